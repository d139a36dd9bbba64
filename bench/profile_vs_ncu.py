"""Whole-profile wall time of rangereplay against Nsight Compute's range replay
on the same ranges and metrics, measured side by side in one run (PERFORMANCE.md
targets: >= 2.5x faster with a 30+ pass list, >= 20x with a one-pass list over
50+ ranges), plus the stage timings of one replay window.

    python3 bench/profile_vs_ncu.py <build-dir> <out.json>
"""
import json, os, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ncu_range import ncu_range_replay  # noqa: E402

build, out_path = sys.argv[1], sys.argv[2]
cli = os.path.join(build, "tools/cli/rangereplay")
stream = os.path.join(build, "examples/stream")
rows, raw = [], {}

def timed(cmd, timeout=300):
    t = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    return time.perf_counter() - t, p

def case(name, app_args, set_name, ncu_extra_check=None):
    plain_s, plain = timed([stream] + app_args)
    report = tempfile.mktemp(suffix=".json")
    rr_s, rr = timed([cli, "profile", "--quiet", "--nvtx-include", "step/", "--set", set_name, "--output", report,
                      "--", stream] + app_args)
    if rr.returncode != 0:
        rows.append((name, f"rangereplay failed rc={rr.returncode}: {rr.stderr[-200:]}"))
        return
    rep = json.load(open(report))
    metrics = ",".join(rep["metrics"])
    ncu = ncu_range_replay([stream] + app_args, rep["metrics"])
    ncu_s = ncu["wall_s"]
    if ncu["errors"]:
        rows.append((name, f"ncu with the same {len(rep['metrics'])} metrics failed: {' | '.join(ncu['errors'])}"))
    if ncu["rc"] != 0:
        rows.append((name, f"ncu range replay failed rc={ncu['rc']}"))
    ranges = [r for r in rep["ranges"] if not r["declined"]]
    raw[name] = {"plain_s": plain_s, "rangereplay_s": rr_s, "ncu_s": ncu_s, "passes": rep["pass_count"],
                 "ranges": len(rep["ranges"]), "replayed": len(ranges), "setup_ms": rep["setup_ms"],
                 "timings": [r["timings"] for r in rep["ranges"]], "ncu": ncu}
    rows.append((name, f"app {plain_s:.2f} s | rangereplay {rr_s:.2f} s | ncu range replay {ncu_s:.2f} s | "
                       f"ncu/rangereplay = {ncu_s / rr_s:.2f}x (ncu list: {ncu['metric_list']}) | {rep['pass_count']} passes, {len(ranges)}/{len(rep['ranges'])} ranges replayed"))
    if ranges and rep["pass_count"] > 1:
        t = ranges[-1]["timings"]  # a warm window (not the first range)
        replays = max(1, rep["pass_count"] - 1)
        rows.append((f"  window of range {ranges[-1]['index']}",
                     f"{t['window_ms']:.1f} ms = CUPTI start/stop {t['counters_ms']:.1f} + kernels {t['kernels_ms']:.1f} "
                     f"+ restore {t['restore_ms']:.2f} + tool {t['other_ms']:.2f} "
                     f"(tool per replayed pass {t['other_ms'] / replays:.3f} ms; target <= 1 ms)"))

case("stream 256MB x3, --set full", ["--iterations", "3"], "full")
case("stream 64MB x50, --set single-pass", ["--iterations", "50", "--bytes", "64MiB"], "single-pass")

# Tool loaded, no range matched: application slowdown.
env_cmd = [cli, "profile", "--quiet", "--nvtx-include", "no_such_range/", "--set", "single-pass", "--", stream, "--iterations", "20"]
plain_s, _ = timed([stream, "--iterations", "20"])
tool_s, _ = timed(env_cmd)
raw["outside_ranges"] = {"plain_s": plain_s, "tool_s": tool_s}
rows.append(("tool loaded, no range (20 it.)", f"{tool_s / plain_s:.3f}x wall of the app alone ({plain_s:.2f} s vs {tool_s:.2f} s, incl. start-up)"))

json.dump(raw, open(out_path, "w"), indent=2)
print("\n".join(f"{a:<34} {b}" for a, b in rows))
