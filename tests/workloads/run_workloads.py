"""run_workloads.py: the real-workload suite on a GPU machine.

For each workload (examples/stream, examples/gemm, workload_cub, PyTorch
transformer train and infer) it measures
  (a) determinism: two plain runs print the same `checksum ` / `loss ` lines;
  (b) transparency: the same lines under `rangereplay profile --set full`;
  (c) verify: divergent regions per range under `--verify` (every one listed
      with its address, size and origin in workloads.json);
  (d) fidelity, on the report of (b):
      - smsp__inst_executed.sum kernel by kernel (in order) against ncu kernel
        replay run twice: equal, or, for a kernel whose two ncu runs differ
        (nondeterministic, e.g. CUB's decoupled look-back), within ncu's two
        values widened by their difference or by 0.1%, whichever is more
        (kernel_check);
      - dram__bytes_read.sum summed over each range's kernels against
        `ncu --replay-mode range` for the same range, within 2%
        (dram_range_check): both run a range's kernels back to back, so data
        one kernel leaves in L2 is not re-read by the next. Per-kernel DRAM
        bytes against kernel replay (which flushes caches before each kernel)
        and a range replay with --cache-control none stay in the JSON as
        information only;
  (e) speed: wall time of rangereplay against `ncu --replay-mode range` on the
      same ranges and the same metrics: (b)'s list less the metrics ncu's range
      replay cannot collect (tests/ncu/ncu_compare.py), rangereplay run once more
      with that list; plus stream 64 MiB x 50 ranges with --set single-pass,
      and the slowdown with the tool loaded but no range matched.
Prints one summary table last and writes every raw number to
<out-dir>/workloads.json (rewritten after each workload, so a run cut short
keeps what it measured).

    python3 tests/workloads/run_workloads.py <build-dir> <out-dir>
        [--workloads stream,gemm,cub,torch-train,torch-infer]
        [--sections a,b,c,d,e] [--timeout SECONDS] [--no-extra-speed]

Exit status: 0 when every run that could run met its checks, 1 otherwise; a
workload that cannot run (binary or PyTorch missing, no GPU) is reported as
`unavailable` with the reason, never counted as passed.
"""
import argparse, json, os, shutil, subprocess, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "ncu"))
sys.path.insert(0, os.path.join(HERE, "..", "e2e"))
from e2e_common import ReportSchemaError, load_report  # noqa: E402
from ncu_compare import (FIDELITY_METRICS, NcuCsvError, dram_range_check, kernel_check,  # noqa: E402
                         launch_window, ncu_csv_command, ncu_ranges, parse_ncu_csv, range_replay_metrics,
                         range_sums, report_kernels, speed_against_ncu)
VERIFY_METRICS = "smsp__inst_executed.sum,dram__bytes_read.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed"
SKIP_CODE = 77


def result_lines(text):
    return [l for l in text.splitlines() if l.startswith("checksum ") or l.startswith("loss ")]


class Runner:
    def __init__(self, build, out_dir, timeout):
        self.build, self.out_dir, self.timeout = build, out_dir, timeout
        self.cli = os.path.join(build, "tools/cli/rangereplay")
        # Reports that did not validate against the report's JSON Schema.
        self.schema_problems = []

    def run(self, cmd, timeout=None, env=None):
        """Runs cmd; returns dict(rc, wall_s, stdout, stderr); rc None on timeout."""
        t = time.perf_counter()
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout or self.timeout, env=env)
            return {"rc": p.returncode, "wall_s": time.perf_counter() - t, "stdout": p.stdout, "stderr": p.stderr}
        except subprocess.TimeoutExpired as e:
            out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
            err = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
            return {"rc": None, "wall_s": time.perf_counter() - t, "stdout": out,
                    "stderr": err + f"\n[timed out after {timeout or self.timeout} s]"}
        except OSError as e:
            return {"rc": None, "wall_s": 0.0, "stdout": "", "stderr": f"cannot start {cmd[0]}: {e}"}

    def profile(self, name, cmd, extra, tag):
        report = os.path.join(self.out_dir, f"{name}.{tag}.json")
        if os.path.exists(report):
            os.remove(report)
        r = self.run([self.cli, "profile", "--quiet", "--nvtx-include", "step/"] + extra +
                     ["--output", report, "--"] + cmd)
        r["report_path"] = report
        r["report"] = None
        if r["rc"] == 0 and os.path.exists(report):
            try:
                r["report"] = load_report(report)
            except ReportSchemaError as e:
                # Kept as a problem of the suite; the run's figures are still read.
                self.schema_problems.append(f"{name} ({tag}): {e}")
                r["report"] = json.load(open(report))
        return r

    def profiler_with_metrics(self, name, cmd, extra=(), tag="filtered"):
        """speed_against_ncu's profile_with_metrics for this workload: runs
        `profile --metrics <names> <extra>` and returns (wall_s, report or
        None, error). extra ["--range-metrics", "whole"] gives one value set per
        range, what ncu's range replay gives."""
        def profile(names):
            r = self.profile(name, cmd, ["--metrics", ",".join(names)] + list(extra), tag)
            return r["wall_s"], r["report"], f"rc={r['rc']}: {r['stderr'].strip()[-300:]}"
        return profile

    def ncu(self, cmd, extra, nvtx=True):
        """`ncu --clock-control none --nvtx --nvtx-include step/ --csv
        --print-units base <extra> --metrics FIDELITY_METRICS <cmd>`; without
        the NVTX filter when nvtx is False (extra then selects launches)."""
        return self.run(ncu_csv_command(cmd, FIDELITY_METRICS, extra, "step/" if nvtx else None))


def brief(r):
    """The part of a run result kept in workloads.json."""
    return {"rc": r["rc"], "wall_s": r["wall_s"], "stderr_tail": r["stderr"].strip()[-600:]}


def workload_table(build, only):
    py = sys.executable or "python3"
    torch_script = os.path.join(HERE, "torch_transformer.py")
    all_workloads = [
        ("stream", [os.path.join(build, "examples/stream"), "--iterations", "2", "--bytes", "64MiB"]),
        ("gemm", [os.path.join(build, "examples/gemm"), "--iterations", "2"]),
        ("cub", [os.path.join(build, "tests/workloads/workload_cub"), "--iterations", "2"]),
        ("torch-train", [py, torch_script, "--mode", "train", "--steps", "2"]),
        ("torch-infer", [py, torch_script, "--mode", "infer", "--steps", "2"]),
    ]
    return [(n, c) for n, c in all_workloads if not only or n in only]


def unavailable_reason(runner, name, cmd):
    if name.startswith("torch"):
        probe = runner.run([cmd[0], "-c", "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 3)"],
                           timeout=120)
        if probe["rc"] == 3:
            return "PyTorch has no CUDA device"
        if probe["rc"] != 0:
            return "PyTorch not importable: " + probe["stderr"].strip().splitlines()[-1:][0][:200] \
                if probe["stderr"].strip() else f"PyTorch probe rc={probe['rc']}"
    elif not os.access(cmd[0], os.X_OK):
        return f"{cmd[0]} not built"
    return None


def ncu_kernel_runs(runner, name, cmd, extra, nvtx, what, problems):
    """Two ncu kernel-replay runs (Runner.ncu(cmd, extra, nvtx)): (brief of
    each run, kernel list of each: parse_ncu_csv, [] for a run that failed
    or printed no table). Each failure is added to problems, named `what`."""
    runs = [runner.ncu(cmd, extra, nvtx) for _ in range(2)]
    lists = []
    for k, r in enumerate(runs):
        try:
            lists.append(parse_ncu_csv(r["stdout"], "kernel") if r["rc"] == 0 else [])
        except NcuCsvError as e:
            problems.append(f"{name}: {what} run {k + 1}: {e}")
            lists.append([])
        if r["rc"] != 0:
            problems.append(f"{name}: {what} run {k + 1} rc={r['rc']}: {r['stderr'].strip()[-300:]}")
    return [brief(r) for r in runs], lists


def fidelity(runner, name, cmd, report, rec, problems):
    """Section (d) on the report of (b): instruction counts kernel by kernel
    against two ncu kernel-replay runs (kernel_check), DRAM bytes read range by
    range against ncu range replay (dram_range_check); a second range replay
    with --cache-control none is kept as information (rangereplay flushes no
    cache at range entry; ncu flushes by default)."""
    ours = report_kernels(report)
    rec["ncu_kernel_replay"], kernel_lists = ncu_kernel_runs(runner, name, cmd, [], True, "ncu kernel replay",
                                                             problems)
    window = launch_window(report)
    if all(kernel_lists) and len(ours) != len(kernel_lists[0]) and window is not None:
        # ncu's NVTX filter is per thread: kernels another thread launched
        # inside the range (PyTorch's autograd thread) are not in its list.
        # Compare one range by its launch numbers instead.
        index, first, count = window
        # In launch order, as ncu numbers them: two threads' launches may be
        # recorded in the other order (the number is taken before the lock).
        in_range = sorted((k for k in ours if k["range"] == index), key=lambda k: k["launch_index"])
        rec["ncu_kernel_replay_launch_window"], wlists = ncu_kernel_runs(
            runner, name, cmd, ["--launch-skip", str(first), "--launch-count", str(count)], False,
            f"ncu kernel replay of launches {first}+{count}", problems)
        if all(wlists):
            nvtx_check = kernel_check(ours, kernel_lists[0], kernel_lists[1])
            rec["fidelity_nvtx"] = {k: v for k, v in nvtx_check.items() if k != "kernels"}
            ours, kernel_lists = in_range, wlists
            rec["fidelity_basis"] = (f"range {index}: launches {first}..{first + count - 1} (ncu --launch-skip "
                                     f"{first} --launch-count {count}); ncu's NVTX filter saw "
                                     f"{nvtx_check['kernels_ncu'][0]} "
                                     f"kernels in all ranges, rangereplay {nvtx_check['kernels_rangereplay']}")
    if all(kernel_lists):
        check = kernel_check(ours, kernel_lists[0], kernel_lists[1])
        rec["fidelity"] = check
        rec["inst_equal"] = check["ok"]
        if not (len(ours) == len(kernel_lists[0]) == len(kernel_lists[1])):
            problems.append(f"{name}: kernels profiled: rangereplay {len(ours)}, ncu {check['kernels_ncu']}")
        if check["outside_ncu_spread"]:
            problems.append(f"{name}: {check['outside_ncu_spread']} kernels with instruction counts unequal to ncu "
                            f"(and not within the spread of ncu's two runs)")

    sums = range_sums(report)
    for tag, extra in (("ncu_range_replay", []), ("ncu_range_replay_no_flush", ["--cache-control", "none"])):
        r = runner.ncu(cmd, ["--replay-mode", "range"] + extra)
        rec[tag] = brief(r)
        try:
            check = dram_range_check(sums, ncu_ranges(r["stdout"]))
        except NcuCsvError as e:
            check = {"ok": False, "error": f"rc={r['rc']}: {e}"}
        rec[tag]["check"] = check
        if tag != "ncu_range_replay":
            continue  # information only
        rec["dram_range_within_2pct"] = check["ok"]
        if "error" in check:
            problems.append(f"{name}: ncu range replay gave no range values: {check['error']}")
        elif check["ranges_ncu"] != check["ranges_rangereplay"]:
            problems.append(f"{name}: ncu range replay profiled {check['ranges_ncu']} ranges, rangereplay "
                            f"{check['ranges_rangereplay']}")
        elif not check["ok"]:
            problems.append(f"{name}: {check['compared'] - check['within_2pct']} ranges with a DRAM bytes sum outside "
                            f"2% of ncu range replay (largest deviation {100 * check['max_rel_dev']:.2f}%)")
        if r["rc"] != 0 and "error" not in check:
            rec.setdefault("notes", []).append(f"ncu range replay rc={r['rc']} (values parsed): "
                                               f"{r['stderr'].strip()[-200:]}")


def speed_problems(name, speed, problems, rec):
    """Problems (and notes) of speed_against_ncu's result for one row."""
    if "rangereplay_error" in speed:
        problems.append(f"{name}: rangereplay with the filtered list ({speed['filtered_metrics']} metrics) failed: "
                        f"{speed['rangereplay_error']}")
        return
    ncu = speed["ncu"]
    if ncu["metric_list"] != "same":
        problems.append(f"{name}: ncu range replay refused the filtered list (range_replay_metrics() needs another "
                        f"rule): {' | '.join(ncu['errors'])}")
    elif speed.get("ncu_app_failed"):
        rec.setdefault("notes", []).append(f"the application failed under ncu range replay (ncu accepted the list): "
                                           f"{ncu['stderr_tail'][-200:]}")
    elif ncu["rc"] != 0:
        problems.append(f"{name}: ncu range replay rc={ncu['rc']}: {' | '.join(ncu['errors'])}")


def run_workload(runner, name, cmd, sections, has_ncu, progress=lambda rec: None):
    """One workload's sections; progress(rec) after each, so a run cut short
    keeps what it measured."""
    rec = {"name": name, "command": cmd}
    problems = []

    def checkpoint():
        progress({**rec, "problems_so_far": list(problems)})
    reason = unavailable_reason(runner, name, cmd)
    if reason:
        rec["unavailable"] = reason
        return rec, problems

    # (a) determinism
    plain1 = runner.run(cmd)
    rec["plain1"] = brief(plain1)
    if plain1["rc"] == SKIP_CODE:
        rec["unavailable"] = plain1["stderr"].strip()[-200:] or "skipped (77)"
        return rec, problems
    if plain1["rc"] != 0:
        problems.append(f"{name}: plain run rc={plain1['rc']}: {plain1['stderr'].strip()[-300:]}")
        return rec, problems
    lines = result_lines(plain1["stdout"])
    rec["plain_lines"] = lines
    if not lines or "checksums-done" not in plain1["stdout"]:
        problems.append(f"{name}: plain run printed no result lines or no checksums-done")
    if "a" in sections:
        plain2 = runner.run(cmd)
        rec["plain2"] = brief(plain2)
        rec["deterministic"] = plain2["rc"] == 0 and result_lines(plain2["stdout"]) == lines
        if not rec["deterministic"]:
            rec["plain2_lines"] = result_lines(plain2["stdout"])
            problems.append(f"{name}: two plain runs differ (non-deterministic without the tool)")

    checkpoint()

    # (b) transparency, full set (its report also feeds (d) and (e))
    full = None
    if {"b", "d", "e"} & sections:
        full = runner.profile(name, cmd, ["--set", "full"], "full")
        rec["profile_full"] = brief(full)
        got = result_lines(full["stdout"])
        rec["transparent"] = full["rc"] == 0 and got == lines
        if full["rc"] != 0:
            problems.append(f"{name}: profile --set full rc={full['rc']}: {full['stderr'].strip()[-300:]}")
        elif not rec["transparent"]:
            rec["profile_lines"] = got
            problems.append(f"{name}: results differ under the tool"
                            + (" (and the workload is non-deterministic)" if rec.get("deterministic") is False else ""))
        if full["report"]:
            rep = full["report"]
            rec["full_report"] = {
                "metrics": len(rep["metrics"]), "pass_count": rep.get("pass_count"),
                "ranges": [{"index": r["index"], "declined": r["declined"], "decline_reason": r.get("decline_reason"),
                            "decline_detail": r.get("decline_detail"), "passes": r["passes"],
                            "kernels": len(r["kernels"]), "footprint_bytes": r["footprint_bytes"],
                            "timings": r.get("timings"), "notes": r.get("notes")} for r in rep["ranges"]]}
            for r in rep["ranges"]:
                if r["declined"]:
                    problems.append(f"{name}: range {r['index']} declined: {r.get('decline_reason')} "
                                    f"{r.get('decline_detail')}")

    checkpoint()

    # (c) verify
    if "c" in sections:
        ver = runner.profile(name, cmd, ["--verify", "--metrics", VERIFY_METRICS], "verify")
        rec["verify_run"] = brief(ver)
        if ver["rc"] != 0 or not ver["report"]:
            problems.append(f"{name}: --verify rc={ver['rc']}: {ver['stderr'].strip()[-300:]}")
        else:
            per_range = []
            for r in ver["report"]["ranges"]:
                divs = [dict(d, **{"pass": p["pass"]}) for p in r["pass_records"] for d in p["divergences"]]
                per_range.append({"index": r["index"], "declined": r["declined"], "divergent_regions": len(divs),
                                  "divergences": divs,
                                  "verify_notes": [n for n in r.get("notes", []) if "verify" in n]})
            rec["verify"] = per_range
            rec["divergences"] = sum(r["divergent_regions"] for r in per_range)
            if result_lines(ver["stdout"]) != lines:
                problems.append(f"{name}: results differ under --verify")

    checkpoint()

    # (d) fidelity: instructions against ncu kernel replay (twice), DRAM range sums against ncu range replay
    if "d" in sections and full and full["report"]:
        if not has_ncu:
            rec["fidelity_unavailable"] = "ncu not on PATH"
        else:
            fidelity(runner, name, cmd, full["report"], rec, problems)

    checkpoint()

    # (e) speed against ncu range replay on the same ranges and metrics
    if "e" in sections and full and full["report"]:
        speed = {"rangereplay_set_full_s": full["wall_s"], "plain_s": plain1["wall_s"]}
        if has_ncu:
            speed.update(speed_against_ncu(cmd, full, runner.profiler_with_metrics(name, cmd), timeout=runner.timeout))
            speed_problems(name, speed, problems, rec)
            # Like for like with ncu's range replay, which gives one value set
            # per range: the same filtered list with --range-metrics whole.
            if speed.get("filtered_metrics") and "rangereplay_error" not in speed:
                kept, _ = range_replay_metrics(full["report"]["metrics"])
                wall, whole_rep, error = runner.profiler_with_metrics(name, cmd, ["--range-metrics", "whole"],
                                                                      "filtered-whole")(kept)
                if whole_rep is not None:
                    speed["rangereplay_whole_s"] = wall
                    # Only against ncu's run of the same list (not its --set full fallback).
                    if speed.get("ncu_s") and speed.get("like_for_like"):
                        speed["ratio_whole"] = speed["ncu_s"] / wall
                else:
                    problems.append(f"{name}: --range-metrics whole with the filtered list failed: {error}")
        # Tool loaded, no range matched: slowdown of the whole application.
        idle = [runner.run([runner.cli, "profile", "--quiet", "--nvtx-include", "no_such_range/", "--set",
                            "single-pass", "--"] + cmd) for _ in range(2)]
        plain_best = min(x["wall_s"] for x in [plain1, rec.get("plain2") or plain1])
        if all(x["rc"] == 0 for x in idle):
            speed["tool_no_range_s"] = min(x["wall_s"] for x in idle)
            speed["no_range_slowdown"] = speed["tool_no_range_s"] / plain_best
        else:
            speed["tool_no_range_runs"] = [brief(x) for x in idle]
            problems.append(f"{name}: tool loaded with no range failed")
        rec["speed"] = speed
    return rec, problems


def extra_speed(runner, has_ncu):
    """stream 64 MiB x 50 ranges, one-pass list; and the no-range slowdown at 20 iterations."""
    stream = os.path.join(runner.build, "examples/stream")
    rows, problems = {}, []
    if not os.access(stream, os.X_OK):
        return {"unavailable": "examples/stream not built"}, problems
    args = [stream, "--iterations", "50", "--bytes", "64MiB"]
    plain = runner.run(args)
    rr = runner.profile("stream-x50", args, ["--set", "single-pass"], "single")
    row = {"plain_s": plain["wall_s"], "rangereplay": brief(rr)}
    rows["single_pass_x50"] = row
    if rr["rc"] == 0 and rr["report"]:
        row["rangereplay_set_s"] = rr["wall_s"]
        row["ranges"] = len(rr["report"]["ranges"])
        row["pass_count"] = rr["report"].get("pass_count")
        row["transparent"] = result_lines(rr["stdout"]) == result_lines(plain["stdout"])
        if has_ncu:
            row.update(speed_against_ncu(args, rr, runner.profiler_with_metrics("stream-x50", args),
                                         timeout=runner.timeout))
            note = {}
            speed_problems("stream x50 single-pass", row, problems, note)
            row["notes"] = note.get("notes", [])
    else:
        problems.append(f"stream x50 single-pass: rc={rr['rc']}: {rr['stderr'].strip()[-300:]}")
    args20 = [stream, "--iterations", "20"]
    plain20 = min(runner.run(args20)["wall_s"] for _ in range(2))
    tool20 = [runner.run([runner.cli, "profile", "--quiet", "--nvtx-include", "no_such_range/", "--set",
                          "single-pass", "--"] + args20) for _ in range(2)]
    rows["no_range_x20"] = {"plain_s": plain20, "tool_s": min(t["wall_s"] for t in tool20),
                            "rcs": [t["rc"] for t in tool20]}
    rows["no_range_x20"]["slowdown"] = rows["no_range_x20"]["tool_s"] / plain20
    return rows, problems


def yes_no(v):
    return "-" if v is None else ("yes" if v else "NO")


def fmt_s(v):
    return "-" if v is None else f"{v:.2f}"


def ncu_cell(sp):
    """ncu's seconds, marked `*` when ncu refused the filtered list and ran its
    own --set full (ratio not like for like), `!` when the application failed
    under ncu after ncu accepted the list."""
    ncu = sp.get("ncu") or {}
    mark = "*" if ncu.get("metric_list") == "ncu --set full" else ("!" if sp.get("ncu_app_failed") else "")
    return fmt_s(sp.get("ncu_s")) + mark


def pct(v, digits=2):
    return "-" if v is None else f"{100 * v:.{digits}f}%"


def inst_cell(rec):
    """`yes 18/20, 0.570%`: pass, kernels equal to ncu / compared, largest deviation."""
    f = rec.get("fidelity")
    if not f:
        return "-"
    return f"{yes_no(f['ok'])} {f['equal']}/{f['compared']}, {pct(f['max_rel_dev'], 3)}"


def dram_cell(rec):
    """`yes 0.40% (no flush 0.10%)`: pass, largest deviation of a range's DRAM
    sum from ncu range replay, and the same against ncu with --cache-control none."""
    check = (rec.get("ncu_range_replay") or {}).get("check")
    if not check:
        return "-"
    if "error" in check:
        return "NO (no ncu values)"
    cell = f"{yes_no(check['ok'])} {pct(check['max_rel_dev'])}"
    other = (rec.get("ncu_range_replay_no_flush") or {}).get("check") or {}
    return cell + (f" (no flush {pct(other['max_rel_dev'])})" if "max_rel_dev" in other else "")


def metrics_cell(sp):
    """`339 (46), 31 passes`: metrics given to both tools, dropped from the
    report's list, passes of the filtered list."""
    if sp.get("filtered_metrics") is None:
        return "-"
    return f"{sp['filtered_metrics']} ({sp['dropped']}), {sp.get('filtered_pass_count', '?')} passes"


def ratio_cell(sp):
    return "-" if sp.get("ratio") is None else f"{sp['ratio']:.2f}x"


def summary(records, extra):
    header = ["workload", "deterministic", "transparent", "divergences", "inst equal (n/N, max dev)",
              "dram range sum within 2%", "ncu metrics (dropped)", "rangereplay s", "ncu s", "ratio",
              "ratio whole"]
    blank = ["-"] * 6
    rows = []
    for rec in records:
        if rec.get("unavailable"):
            rows.append([rec["name"], f"unavailable: {rec['unavailable'][:40]}"] + [""] * (len(header) - 2))
            continue
        sp = rec.get("speed", {})
        rows.append([rec["name"], yes_no(rec.get("deterministic")), yes_no(rec.get("transparent")),
                     "-" if rec.get("divergences") is None else str(rec["divergences"]),
                     inst_cell(rec), dram_cell(rec), metrics_cell(sp),
                     fmt_s(sp.get("rangereplay_s")), ncu_cell(sp), ratio_cell(sp),
                     f"{sp['ratio_whole']:.2f}x" if sp.get("ratio_whole") else "-"])
    if extra:
        sp = extra.get("single_pass_x50", {})
        if sp:
            rows.append(["stream 64MiB x50 single-pass", "-", yes_no(sp.get("transparent")), "-", "-", "-",
                         metrics_cell(sp), fmt_s(sp.get("rangereplay_s")), ncu_cell(sp), ratio_cell(sp), "-"])
        nr = extra.get("no_range_x20")
        if nr:
            rows.append(["stream x20, tool loaded, no range"] + blank + [fmt_s(nr["tool_s"]),
                         f"plain {nr['plain_s']:.2f}", f"{nr['slowdown']:.3f}x slower", "-"])
        for rec in records:
            s = rec.get("speed", {}).get("no_range_slowdown")
            if s is not None:
                rows.append([f"{rec['name']}, tool loaded, no range"] + blank +
                            [fmt_s(rec["speed"].get("tool_no_range_s")), f"plain {rec['speed']['plain_s']:.2f}",
                             f"{s:.3f}x slower", "-"])
    widths = [max(len(str(r[i])) for r in [header] + rows) for i in range(len(header))]
    line = lambda r: " | ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip()
    table = [line(header), "-+-".join("-" * w for w in widths)] + [line(r) for r in rows]
    if any(r[8].endswith("*") for r in rows):
        table.append("* ncu refused the filtered metric list (its errors are in workloads.json); it ran its own "
                     "--set full, ratio against rangereplay's --set run: NOT like for like")
    if any(r[8].endswith("!") for r in rows):
        table.append("! the application exited with an error under ncu's range replay (ncu accepted the list; "
                     "see notes in workloads.json); its wall time is still compared")
    return "\n".join(table)


def main():
    parser = argparse.ArgumentParser(description="issue 8 workload suite")
    parser.add_argument("build")
    parser.add_argument("out_dir")
    parser.add_argument("--workloads", default="", help="comma list of stream,gemm,cub,torch-train,torch-infer")
    parser.add_argument("--sections", default="a,b,c,d,e", help="comma list of a,b,c,d,e (see the docstring)")
    parser.add_argument("--timeout", type=int, default=300, help="seconds per subprocess (default 300)")
    parser.add_argument("--no-extra-speed", action="store_true", help="skip stream x50 and the x20 no-range rows")
    args = parser.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    runner = Runner(os.path.abspath(args.build), os.path.abspath(args.out_dir), args.timeout)
    sections = set(s.strip() for s in args.sections.split(",") if s.strip())
    only = set(w.strip() for w in args.workloads.split(",") if w.strip())
    has_ncu = shutil.which("ncu") is not None
    if not os.access(runner.cli, os.X_OK):
        print(f"error: {runner.cli} not built", file=sys.stderr)
        return 1

    out_json = os.path.join(args.out_dir, "workloads.json")
    started = time.time()
    doc = {"started": time.strftime("%Y-%m-%d %H:%M:%S"), "build": runner.build, "ncu": has_ncu,
           "sections": sorted(sections), "workloads": [], "extra_speed": None, "problems": []}
    smi = runner.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"], timeout=60)
    doc["gpu"] = smi["stdout"].strip() if smi["rc"] == 0 else "unknown"
    if has_ncu:
        doc["ncu_version"] = runner.run(["ncu", "--version"], timeout=60)["stdout"].strip().splitlines()[-1:]
    git = runner.run(["git", "-C", HERE, "rev-parse", "HEAD"], timeout=30)
    doc["commit"] = git["stdout"].strip() if git["rc"] == 0 else "unknown"

    def save():
        doc["elapsed_s"] = time.time() - started
        with open(out_json, "w") as f:
            json.dump(doc, f, indent=1)

    for name, cmd in workload_table(runner.build, only):
        t = time.time()
        print(f"[{time.time() - started:7.1f} s] {name}: {' '.join(cmd)}", flush=True)
        def progress(partial):
            doc["in_progress"] = partial
            save()
        rec, problems = run_workload(runner, name, cmd, sections, has_ncu, progress)
        problems += runner.schema_problems
        runner.schema_problems = []
        doc.pop("in_progress", None)
        rec["elapsed_s"] = time.time() - t
        doc["workloads"].append(rec)
        doc["problems"] += problems
        for p in problems:
            print(f"  problem: {p}", flush=True)
        for n in rec.get("notes", []):
            print(f"  note: {n}", flush=True)
        if rec.get("unavailable"):
            print(f"  unavailable: {rec['unavailable']}", flush=True)
        save()
    if "e" in sections and not args.no_extra_speed and (not only or "stream" in only):
        print(f"[{time.time() - started:7.1f} s] extra speed rows (stream x50 single-pass, x20 no range)", flush=True)
        doc["extra_speed"], problems = extra_speed(runner, has_ncu)
        problems += runner.schema_problems
        runner.schema_problems = []
        doc["problems"] += problems
        save()
    if not has_ncu:
        print("note: ncu not on PATH: fidelity and ncu timings not measured")
    print()
    print(summary(doc["workloads"], doc["extra_speed"]))
    print(f"\nraw numbers: {out_json} ({time.time() - started:.0f} s)")
    save()
    return 1 if doc["problems"] else 0


if __name__ == "__main__":
    sys.exit(main())
