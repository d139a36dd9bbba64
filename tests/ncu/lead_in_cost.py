"""What the whole-range lead-in costs per counted pass: examples/stream (3
ranges, `--range-metrics whole`, the multi-pass list of
tests/e2e/cache_control.py) at 16 MiB and 256 MiB under rangereplay with the
lead-in (the default under --cache-control all) and without it
(RANGEREPLAY_WHOLE_RANGE_LEAD_IN=0), alternating, several runs of each, in
one call. Prints per run the ranges' counted passes, the time of their
begins and replay windows together (ms, from the report's per-range
timings), that time per counted pass, and the ranges' DRAM writes; then the
median time per counted pass of each variant and their difference, the
lead-in's cost. A measurement, not a test: nothing is checked.

    python3 tests/ncu/lead_in_cost.py <build-dir> [runs]   (default 3)
"""
import os
import statistics
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "e2e"))
from e2e_common import load_report, run, tail  # noqa: E402
from ncu_compare import MULTI_PASS_THROUGHPUTS, range_sums  # noqa: E402

build = sys.argv[1]
runs = int(sys.argv[2]) if len(sys.argv) > 2 else 3
CLI = os.path.join(build, "tools/cli/rangereplay")
METRICS = ["dram__bytes_read.sum", "dram__bytes_write.sum", "lts__t_sector_hit_rate.pct"] + list(MULTI_PASS_THROUGHPUTS)
VARIANTS = [("lead-in", {}), ("no lead-in", {"RANGEREPLAY_WHOLE_RANGE_LEAD_IN": "0"})]

for size in ("16MiB", "256MiB"):
    app = [os.path.join(build, "examples/stream"), "--iterations", "3", "--bytes", size]
    per_pass = {name: [] for name, _ in VARIANTS}
    for k in range(runs):
        for name, env in VARIANTS:
            out = tempfile.mktemp(suffix=".json")
            rc, _, err = run([CLI, "profile", "--quiet", "--nvtx-include", "step/", "--metrics", ",".join(METRICS),
                              "--range-metrics", "whole", "--output", out, "--"] + app, timeout=300,
                             env=dict(os.environ, **env))
            if rc != 0:
                print(f"{size} {name} run {k}: rc={rc}: {tail(err)}")
                continue
            report = load_report(out)
            ranges = [r for r in report["ranges"] if not r.get("declined")]
            passes = sum(r["passes"] for r in ranges)
            ms = sum(r["timings"]["begin_ms"] + r["timings"]["window_ms"] for r in ranges)
            if passes:
                per_pass[name].append(ms / passes)
            writes = [s.get("dram__bytes_write.sum") for s in range_sums(report, METRICS[1:2])]
            print(f"{size} {name} run {k}: {len(ranges)} ranges, {passes} counted passes, begins + windows "
                  f"{ms:.1f} ms, {ms / passes if passes else float('nan'):.3f} ms per pass; DRAM writes {writes}")
    medians = {name: statistics.median(v) for name, v in per_pass.items() if v}
    if len(medians) == len(VARIANTS):
        on, off = medians["lead-in"], medians["no lead-in"]
        print(f"{size}: median per counted pass {on:.3f} ms with the lead-in, {off:.3f} ms without: "
              f"{(on - off) * 1000:.0f} us per pass ({(on - off) / off * 100:.2f}%)")
