"""Whole-profile wall time of rangereplay against Nsight Compute's range replay
on the same ranges and metrics, measured side by side in one run (targets:
>= 2.5x faster with a 30+ pass list, >= 20x with a one-pass list over 50+
ranges), plus the stage timings of one replay window.

Like for like: the set's list minus the metrics ncu's range replay cannot
collect (tests/ncu/ncu_compare.py, range_replay_metrics()) is given to both tools;
rangereplay runs once more with that list when anything was dropped.

    python3 bench/profile_vs_ncu.py <build-dir> <out.json> [full,kernel-restores,batch,single,whole,verify,kernels,kernel-replay,loading,outside]

kernel-replay: per-kernel values of one torch-train step with `--set basic`
against ncu's kernel replay of the same launches and the same list (target
25x), with the run's time budget, from which the floor is read.
"""
import json, os, shutil, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "ncu"))
from ncu_compare import launch_window, ncu_csv_command, NcuCsvError, parse_ncu_csv, speed_against_ncu  # noqa: E402

build, out_path = sys.argv[1], sys.argv[2]
# Optional third argument: a comma list of the row groups to run (full,
# kernel-restores, batch, single, whole, verify, kernels, kernel-replay, loading,
# outside); all but kernel-restores and kernel-replay when absent.
GROUPS = {"full", "kernel-restores", "batch", "single", "whole", "verify", "kernels", "kernel-replay", "loading",
          "outside"}
DEFAULT_OFF = {"kernel-restores", "kernel-replay"}
only = set(sys.argv[3].split(",")) if len(sys.argv) > 3 else None
if only is not None and not only <= GROUPS:
    sys.exit(f"profile_vs_ncu: unknown row group(s) {','.join(sorted(only - GROUPS))}; "
             f"choose from {','.join(sorted(GROUPS))}")
def want(group):
    return group in only if only is not None else group not in DEFAULT_OFF
cli = os.path.join(build, "tools/cli/rangereplay")
stream = os.path.join(build, "examples/stream")
rows, raw = [], {}

def timed(cmd, timeout=300, env=None):
    t = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                       env=None if env is None else {**os.environ, **env})
    return time.perf_counter() - t, p

def median(v):
    v = sorted(v)
    return (v[(len(v) - 1) // 2] + v[len(v) // 2]) / 2

def profile(app_args, selection, env=None, nvtx_include="step/", app=None, timeout=300):
    """`rangereplay profile --nvtx-include <nvtx_include> <selection>` of the
    stream example with `app_args` (or of the command `app`):
    (wall_s, report or None, error text)."""
    report = tempfile.mktemp(suffix=".json")
    command = app if app is not None else [stream] + app_args
    wall, p = timed([cli, "profile", "--quiet", "--nvtx-include", nvtx_include] + selection + ["--output", report,
                    "--"] + command, env=env, timeout=timeout)
    if p.returncode != 0 or not os.path.exists(report):
        return wall, None, f"rc={p.returncode}: {p.stderr[-200:]}"
    with open(report) as f:
        rep = json.load(f)
    os.remove(report)
    return wall, rep, ""

def case(name, app_args, set_name, extra=(), env=None):
    """extra: more rangereplay options, given to every rangereplay run of the case; env: its environment."""
    extra = list(extra)
    plain_s, plain = timed([stream] + app_args)
    rr_s, rep, error = profile(app_args, ["--set", set_name] + extra, env=env)
    if rep is None:
        rows.append((name, f"rangereplay failed {error}"))
        return
    speed = speed_against_ncu([stream] + app_args, {"wall_s": rr_s, "report": rep},
                              lambda names: profile(app_args, ["--metrics", ",".join(names)] + extra, env=env))
    ranges = [r for r in rep["ranges"] if not r["declined"]]
    raw[name] = {"plain_s": plain_s, "set_rangereplay_s": rr_s, "set_passes": rep["pass_count"], "speed": speed,
                 "ranges": len(rep["ranges"]), "replayed": len(ranges), "setup_ms": rep["setup_ms"],
                 "timings": [r["timings"] for r in rep["ranges"]]}
    lists = (f"{speed['filtered_metrics']} of {speed['metrics']} metrics ({speed['dropped']} dropped: not collectable "
             f"by ncu range replay), {speed.get('filtered_pass_count')} passes")
    if "rangereplay_error" in speed:
        rows.append((name, f"rangereplay with the filtered list failed: {speed['rangereplay_error']}"))
    elif "ratio" not in speed:
        ncu = speed["ncu"]
        rows.append((name, f"ncu range replay failed rc={ncu['rc']} ({ncu['metric_list']} list): "
                           f"{' | '.join(ncu['errors'])}"))
    elif speed["like_for_like"]:
        rows.append((name, f"app {plain_s:.2f} s | rangereplay {speed['rangereplay_s']:.2f} s | ncu range replay "
                           f"{speed['ncu_s']:.2f} s | ncu/rangereplay = {speed['ratio']:.2f}x | same list: {lists} | "
                           f"{len(ranges)}/{len(rep['ranges'])} ranges replayed"))
    else:
        rows.append((name, f"NOT LIKE FOR LIKE: ncu refused the filtered list ({' | '.join(speed['ncu']['errors'])}); "
                           f"ncu --set full {speed['ncu_s']:.2f} s vs rangereplay --set {set_name} {rr_s:.2f} s = "
                           f"{speed['ratio']:.2f}x"))
    budget = rep.get("time_budget")
    if budget and budget.get("wall_ms", 0) > 0:
        # Where the --set run's wall time went (the report's time budget, ms).
        def num(v):  # the report writes a non-finite time as a string ("inf")
            return float(v) if isinstance(v, (int, float)) else 0.0
        parts = [("launcher checks", budget.get("launcher_checks_ms", 0)),
                 ("start to tool", budget.get("start_to_tool_ms", 0)),
                 ("gate", rep.get("gate_wait_ms") or 0), ("counter set-up", rep.get("setup_ms", 0)),
                 ("begins", budget.get("range_begins_ms", 0)), ("in ranges", budget.get("in_ranges_ms", 0)),
                 ("windows", budget.get("windows_ms", 0)), ("standing flushes", budget.get("standing_flushes_ms", 0)),
                 ("exit", budget.get("exit_ms", 0)), ("outside ranges", budget.get("outside_ranges_ms", 0))]
        raw[name]["time_budget"] = budget
        rows.append(("  time budget", f"{num(budget['wall_ms']):.0f} ms = " +
                     " + ".join(f"{label} {num(ms):.0f}" for label, ms in parts if num(ms) >= 0.5) +
                     f" (first CUPTI start {num(budget.get('first_pass_start_ms')):.0f} ms of these; --set {set_name} run)"))
    if ranges and rep["pass_count"] > 1:
        t = ranges[-1]["timings"]  # a warm window (not the first range)
        replays = max(1, ranges[-1]["passes"] - 1)  # executions less pass 0 (which may not count)
        rows.append((f"  window of range {ranges[-1]['index']}",
                     f"{t['window_ms']:.1f} ms = CUPTI start/stop {t['counters_ms']:.1f} + kernels {t['kernels_ms']:.1f} "
                     f"+ restore {t['restore_ms']:.2f} + tool {t['other_ms']:.2f} "
                     f"(tool per replayed pass {t['other_ms'] / replays:.3f} ms; target <= 1 ms; --set {set_name} run)"))

if want("full"):
    # The default: multi-pass ranges deferred and replayed together (--batch-ranges 16 holds all ten of x10), so
    # every counter pass is one CUPTI start and stop for all of them.
    case("stream 256MB x3, --set full", ["--iterations", "3"], "full")
    case("stream 256MB x10, --set full", ["--iterations", "10"], "full")
if want("kernel-restores"):
    # Batch members restored by a kernel (RANGEREPLAY_BATCH_COPY_ENGINE_RESTORE=0), beside "full", where they
    # restore by the copy engines: the restore's kernel is a counter range of its own in CUPTI's automatic ranges.
    kernels = {"RANGEREPLAY_BATCH_COPY_ENGINE_RESTORE": "0"}
    case("stream 256MB x3, --set full, kernel restores", ["--iterations", "3"], "full", env=kernels)
    case("stream 256MB x10, --set full, kernel restores", ["--iterations", "10"], "full", env=kernels)
if want("batch"):
    # The immediate path beside it: each range replayed at its own end.
    case("stream 256MB x3, --set full, --batch-ranges off", ["--iterations", "3"], "full", ["--batch-ranges", "off"])
    case("stream 256MB x10, --set full, --batch-ranges off", ["--iterations", "10"], "full",
         ["--batch-ranges", "off"])
x50 = ["--iterations", "50", "--bytes", "64MiB"]
if want("single"):
    case("stream 64MB x50, --set single-pass", x50, "single-pass")
if want("whole"):
    # One value set per range, as ncu's range replay gives: one CUPTI pass stays
    # open across the ranges (the standing pass); then the same with it turned off
    # (one CUPTI start and stop per range), side by side.
    case("stream 64MB x50, single-pass, whole", x50, "single-pass", ["--range-metrics", "whole"])
    def insts(rep):
        return [[m["value"] for m in r.get("range_metrics", []) if "inst_executed" in m["name"]] for r in rep["ranges"]]
    off_s, off_rep, off_err = profile(x50, ["--set", "single-pass", "--range-metrics", "whole"], env={"RANGEREPLAY_STANDING_PASS": "0"})
    on_s, on_rep, on_err = profile(x50, ["--set", "single-pass", "--range-metrics", "whole"])
    if on_rep is not None and off_rep is not None:
        raw["standing_pass"] = {"on_s": on_s, "off_s": off_s}
        rows.append(("  standing pass on vs off (x50)", f"{on_s:.2f} s vs {off_s:.2f} s: saves "
                     f"{(off_s - on_s) / 50 * 1000:.1f} ms per range; values equal: "
                     f"{insts(on_rep) == insts(off_rep) and bool(insts(on_rep))} (instruction counts of every range)"))
    else:
        rows.append(("  standing pass on vs off (x50)", f"failed: {on_err or off_err}"))

if want("verify"):
    # --verify on against off (target <= 1.05x): the replay windows of the same
    # ranges, a 3-metric list, differential restore (the default) in both runs.
    # Runs alternate off, on, off, on so drift between runs falls on both sides;
    # the ratio is of medians of the per-range windows (ranges 2 on), and the
    # stage sums show where any difference went (CUPTI's pass start/stop varies
    # from run to run; the tool's own verify cost is verify_ms).
    three = ["--metrics", "smsp__inst_executed.sum,dram__bytes_read.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed"]
    stages = ("window_ms", "counters_ms", "kernels_ms", "restore_ms", "verify_ms", "other_ms")
    per_range = {"off": [], "on": []}
    sums = {"off": dict.fromkeys(stages, 0.0), "on": dict.fromkeys(stages, 0.0)}
    errors = []
    for label in ("off", "on", "off", "on"):
        # --verify replays each range at its end: the run without it does too (--batch-ranges off), so the
        # windows compared are of the same path.
        mode = ["--verify"] if label == "on" else ["--batch-ranges", "off"]
        _, rep, err = profile(["--iterations", "8"], three + mode)
        if rep is None:
            errors.append(f"{label}: {err}")
            continue
        for r in rep["ranges"][1:]:
            if r["declined"]:
                continue
            per_range[label].append(r["timings"]["window_ms"])
            for k in stages:
                sums[label][k] += r["timings"].get(k, 0.0)
    if per_range["off"] and per_range["on"] and not errors:
        m_off, m_on = median(per_range["off"]), median(per_range["on"])
        raw["verify_windows_ms"] = {"per_range": per_range, "stage_sums": sums}
        n_off, n_on = len(per_range["off"]), len(per_range["on"])
        split = " | ".join(f"{k[:-3]} {sums['on'][k] / n_on:.2f} vs {sums['off'][k] / n_off:.2f}" for k in stages[1:])
        rows.append(("--verify on vs off (stream 256MB)", f"median window {m_on:.1f} ms vs {m_off:.1f} ms = {m_on / m_off:.3f}x "
                     f"(target <= 1.05x; {n_on}+{n_off} ranges, 2 runs each, alternating)"))
        rows.append(("  per range, on vs off (ms)", split))
    else:
        rows.append(("--verify on vs off (stream 256MB)", f"failed: {'; '.join(errors) or per_range}"))

if want("kernels"):
    # Per-kernel values of a multi-pass list (pass 0 records, every counter
    # pass is a replay): CUPTI's auto ranges (the default), which make every
    # replayed launch synchronous, against a user range pushed around each
    # replayed kernel (RANGEREPLAY_KERNEL_RANGES=user). Same app, same list, one
    # run each, alternating; values compared kernel by kernel. On the immediate
    # path (--batch-ranges off), and in a batch of four ranges, where the
    # automatic ranges also count the tool's restore and flush kernels between
    # the members (their rows left out) and user ranges run them outside every
    # counter range.
    torch_script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "workloads",
                                "torch_transformer.py")
    off = ["--batch-ranges", "off"]
    apps = [("stream 64MB x3, --set basic", [stream, "--iterations", "3", "--bytes", "64MiB"], off),
            ("stream 64MB x4, --set basic, batch 4", [stream, "--iterations", "4", "--bytes", "64MiB"],
             ["--batch-ranges", "4"])]
    try:
        import torch  # noqa: F401
        apps.append(("torch-train x2, --set basic", [sys.executable, torch_script, "--mode", "train", "--steps", "2"],
                     off))
    except ImportError:
        rows.append(("torch-train per-kernel ranges", "not run: PyTorch is not importable here"))

    def kernel_values(rep):
        return [[(k["name"], [m["value"] for m in k["metrics"] if m["name"] == "smsp__inst_executed.sum"])
                 for k in r["kernels"]] for r in rep["ranges"] if not r["declined"]]

    for label, app, batching in apps:
        runs = {}
        for mode in ("auto", "user", "auto", "user"):
            env = {"RANGEREPLAY_KERNEL_RANGES": "user"} if mode == "user" else None
            runs.setdefault(mode, []).append(profile([], ["--set", "basic"] + batching, env=env, app=app, timeout=600))
        failed = [f"{m}: {e}" for m, rs in runs.items() for _, rep, e in rs if rep is None]
        if failed:
            rows.append((label, "failed: " + " | ".join(failed)))
            continue
        walls = {m: median([w for w, _, _ in rs]) for m, rs in runs.items()}
        windows = {m: median([sum(r["timings"]["window_ms"] for r in rep["ranges"] if not r["declined"])
                              for _, rep, _ in rs]) for m, rs in runs.items()}
        values = {m: [kernel_values(rep) for _, rep, _ in rs] for m, rs in runs.items()}
        kinds = sorted({r.get("counter_ranges", "?") for rs in runs.values() for _, rep, _ in rs for r in rep["ranges"]
                        if not r["declined"]})
        kernels = sum(len(r) for r in values["user"][0])
        same = values["user"][0] == values["auto"][0]
        self_same = values["user"][0] == values["user"][1] and values["auto"][0] == values["auto"][1]
        raw["kernel_ranges " + label] = {"wall_s": walls, "windows_ms": windows, "kernels": kernels,
                                         "values_equal": same, "each_equal_to_itself": self_same,
                                         "counter_ranges": kinds}
        passes = runs["user"][0][1]["pass_count"]
        rows.append((label, f"user ranges {walls['user']:.2f} s vs auto ranges {walls['auto']:.2f} s wall = "
                            f"{walls['auto'] / walls['user']:.2f}x; windows {windows['user']:.0f} vs "
                            f"{windows['auto']:.0f} ms = {windows['auto'] / windows['user']:.2f}x "
                            f"({kernels} kernels, {passes} passes; saves "
                            f"{(windows['auto'] - windows['user']) / max(1, kernels * passes):.3f} ms per kernel "
                            f"and pass)"))
        rows.append(("  instruction counts", f"user equal to auto kernel by kernel: {same}; each mode equal to itself "
                                             f"across its two runs: {self_same}; counter_ranges seen: {kinds}"))

if want("kernel-replay"):
    # Per-kernel values of one torch-train step (the second of three; the first
    # may grow the caching allocator inside it), `--set basic` with the
    # defaults, against ncu's kernel replay of the same launches (`--launch-skip
    # / --launch-count` from the report's launch numbers: ncu's NVTX filter is
    # per thread and misses autograd's) with the same metric list. Both runs
    # cover the whole application; the ratio is of their wall times.
    torch_script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "workloads",
                                "torch_transformer.py")
    app = [sys.executable, torch_script, "--mode", "train", "--steps", "3"]
    label = "torch-train step 2 of 3, --set basic, per kernel"
    plain_s, plain = timed(app, timeout=600)
    if plain.returncode != 0:
        rows.append((label, f"not run: the application alone exited {plain.returncode} "
                            f"({plain.stderr.strip()[-160:]})"))
    else:
        rr_s, rep, err = profile([], ["--set", "basic", "--skip", "1", "--range-count", "1"], app=app, timeout=600)
        window = launch_window(rep) if rep is not None else None
        if window is None:
            rows.append((label, f"rangereplay gave no replayed range with launch numbers: {err or 'declined'}"))
        else:
            index, first, count = window
            command = ncu_csv_command(app, rep["metrics"], ["--launch-skip", str(first), "--launch-count", str(count)],
                                      nvtx_include=None)
            ncu_s, p = timed(command, timeout=1800)
            try:
                ncu_kernels = len(parse_ncu_csv(p.stdout, "kernel")) if p.returncode == 0 else None
            except NcuCsvError as e:
                ncu_kernels, p_error = None, str(e)
            else:
                p_error = p.stderr.strip()[-200:]
            replayed = [r for r in rep["ranges"] if not r["declined"]]
            ours = sum(len(r["kernels"]) for r in replayed)
            raw["kernel_replay"] = {"plain_s": plain_s, "rangereplay_s": rr_s, "ncu_s": ncu_s, "launches": count,
                                    "first_launch": first, "range": index, "kernels_rangereplay": ours,
                                    "kernels_ncu": ncu_kernels, "metrics": len(rep["metrics"]),
                                    "passes": rep["pass_count"], "time_budget": rep.get("time_budget"),
                                    "timings": [r["timings"] for r in replayed]}
            if ncu_kernels is None:
                rows.append((label, f"ncu kernel replay failed rc={p.returncode}: {p_error}"))
            else:
                rows.append((label, f"app {plain_s:.2f} s | rangereplay {rr_s:.2f} s | ncu kernel replay of launches "
                                    f"{first}+{count} {ncu_s:.2f} s | ncu/rangereplay = {ncu_s / rr_s:.2f}x (target "
                                    f"25x) | kernels {ours} vs ncu's {ncu_kernels} | {len(rep['metrics'])} metrics, "
                                    f"{rep['pass_count']} passes"))
            budget = {"counter set-up": rep.get("setup_ms"), **(rep.get("time_budget") or {})}
            t = replayed[0]["timings"] if replayed else {}
            parts = " + ".join(f"{k.removesuffix('_ms').replace('_', ' ')} {budget[k]:.0f}" for k in
                               ("counter set-up", "range_begins_ms", "in_ranges_ms", "windows_ms", "exit_ms",
                                "outside_ranges_ms") if isinstance(budget.get(k), (int, float)))
            rows.append(("  time budget", f"wall {budget.get('wall_ms') or 0:.0f} ms = {parts} (first CUPTI start "
                                          f"{budget.get('first_pass_start_ms') or 0:.0f} of these); the window: CUPTI start/stop {t.get('counters_ms', 0):.0f} + kernels "
                           f"{t.get('kernels_ms', 0):.0f} + restore {t.get('restore_ms', 0):.0f} + tool "
                           f"{t.get('other_ms', 0):.0f} ms"))

if want("loading"):
    # Start-up cost a user pays by choosing CUDA_MODULE_LOADING=EAGER (the fix
    # module_load_in_range suggests; the launcher leaves the loading mode alone):
    # cuBLAS's gemm example, plain, lazy against eager loading.
    gemm = os.path.join(build, "examples/gemm")
    if os.access(gemm, os.X_OK):
        loading = {}
        for mode in ("LAZY", "EAGER"):
            wall, p = timed([gemm, "--iterations", "2"], env={"CUDA_MODULE_LOADING": mode})
            loading[mode] = wall if p.returncode == 0 else None
        raw["gemm_module_loading_s"] = loading
        if loading["LAZY"] and loading["EAGER"]:
            rows.append(("gemm plain, lazy vs eager loading", f"{loading['LAZY']:.2f} s vs {loading['EAGER']:.2f} s "
                         f"(+{loading['EAGER'] - loading['LAZY']:.2f} s at start-up when the user sets EAGER)"))

if want("outside"):
    # Tool loaded, no range matched: application slowdown (target <= 2%).
    # Five runs of each variant, alternating, 100 iterations, so ratios are of
    # medians (single runs spread by ~5% here). The variants take the tool's
    # fixed cost apart: the injection library loaded by CUDA but not configured
    # (it stops at once: library and CUPTI loading), configured directly with
    # no launcher (CUPTI subscription, callbacks, report at exit), and the
    # whole `rangereplay profile` (adds the launcher, whose delay of the
    # application's start the report gives as launcher_ms: its checks before
    # the start plus gate_wait_ms, the application's wait at its first cuInit
    # for the device checks the launcher runs while it starts).
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "e2e"))
    from e2e_common import injection_environment, push_pop_range  # noqa: E402
    app = [stream, "--iterations", "100"]
    folder = tempfile.mkdtemp(prefix="rr_outside_")
    direct_report = os.path.join(folder, "report.json")
    try:
        direct_env = injection_environment(build, {"nvtx_include": [push_pop_range("no_such_range")], "metrics": [
            "smsp__inst_executed.sum"], "report_path": direct_report, "quiet": True, "command": app}, folder)
        loaded_env = {k: v for k, v in direct_env.items() if k != "RANGEREPLAY_CONFIG"}
    except RuntimeError as e:
        direct_env = loaded_env = None
        rows.append(("injection without the launcher", f"not run: {e}"))
    runs = {"plain": [], "loaded": [], "direct": [], "tool": [], "launcher": [], "gate": []}
    for _ in range(5):
        runs["plain"].append(timed(app)[0])
        if direct_env is not None:
            wall, p = timed(app, env=loaded_env)
            if p.returncode == 0:
                runs["loaded"].append(wall)
            wall, p = timed(app, env=direct_env)
            if p.returncode == 0 and os.path.exists(direct_report):
                runs["direct"].append(wall)
        wall, rep, _ = profile(["--iterations", "100"], ["--set", "single-pass"], nvtx_include="no_such_range/")
        if rep is not None:
            runs["tool"].append(wall)
            runs["launcher"].append(rep.get("launcher_ms", 0.0) / 1000)
            runs["gate"].append(rep.get("gate_wait_ms", 0.0) / 1000)
    raw["outside_ranges"] = runs
    plain_s = median(runs["plain"])
    def ratio_row(label, key, what):
        if not runs[key]:
            rows.append((label, "failed: every run failed"))
            return None
        s = median(runs[key])
        rows.append((label, f"{s / plain_s:.3f}x wall of the app alone (medians of 5: {plain_s:.3f} s vs {s:.3f} s, "
                            f"+{(s - plain_s) * 1000:.0f} ms; {what})"))
        return s
    ratio_row("injection loaded, not configured", "loaded", "library and CUPTI loading")
    ratio_row("injection configured, no launcher", "direct", "CUPTI callbacks and the report, no range")
    tool_s = ratio_row("tool loaded, no range (100 it.)", "tool", "rangereplay profile; target <= 1.02x")
    if tool_s is not None:
        launcher_s, gate_s = median(runs["launcher"]), median(runs["gate"])
        rows.append(("  less the launcher's delay", f"{(tool_s - launcher_s) / plain_s:.3f}x (the launcher delayed the "
                     f"application's start by {launcher_s * 1000:.0f} ms, {gate_s * 1000:.0f} ms of it at its first "
                     f"cuInit waiting for the checks)"))
    if direct_env is not None:
        # Where the injection's own time goes (RANGEREPLAY_DEBUG lines).
        _, p = timed(app, env={**direct_env, "RANGEREPLAY_DEBUG": "1"})
        for line in p.stderr.splitlines():
            if line.startswith("rangereplay[debug]"):
                rows.append(("  " + line.split("]", 1)[0] + "]", line.split("]", 1)[1].strip()))
    shutil.rmtree(folder, ignore_errors=True)

json.dump(raw, open(out_path, "w"), indent=2)
print("\n".join(f"{a:<34} {b}" for a, b in rows))
