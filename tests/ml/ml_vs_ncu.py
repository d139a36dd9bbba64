#!/usr/bin/env python3
"""ml_vs_ncu.py: rangereplay's counters for the `ml` corpus's replayed `step`
ranges against Nsight Compute (ncu), kernel by kernel, on a GPU machine.

    python3 tests/ml/ml_vs_ncu.py --build <rangereplay build dir> --logs <dir>
        [--only A,B] [--budget S] [--timeout S] [--python PY]
        [--programs programs.json] [--dry-run]

For each chosen program (default: DEFAULT_PROGRAMS; argv from programs.json,
run with --python as run_ml.py runs them), each run in its own process group
under min(--timeout, budget left) seconds:
  1. `rangereplay profile <selection> --metrics smsp__inst_executed.sum,
     dram__bytes_read.sum -o <logs>/<name>.profile.json -- <python> <program>`;
  2. twice `ncu --clock-control none --nvtx --nvtx-include step/ --csv
     --print-units base --print-kernel-base mangled --metrics <same> <python>
     <program>` (ncu_compare.ncu_csv_command: kernel replay, only kernels
     launched inside a `step` range, mangled names as in the report).

Pairing: ncu's list holds every kernel of every `step` range in launch order
but says nothing of which range each came from. The report's ranges are
walked in index order, each taking as many of ncu's kernels as it has.
Declined ranges, and the program's timing_dependent_ranges (programs.json:
triton_autotune's range 0, whose autotuning launches a number of benchmark
kernels that depends on timing, so another number under ncu), are not
compared, and their kernels are skipped by count: such a range before the
first compared one takes whatever ncu has beyond the kernels of the ranges
after it; one later takes the number of kernels its report lists. ncu's NVTX
filter is per thread: kernels another thread launches while the range is
open (PyTorch's autograd thread) are not in its list. So when rangereplay
has more kernels than ncu's list and every compared range's kernels carry
launch numbers, ncu runs twice more on the launches of all compared ranges
and WINDOW_MARGIN more on either side (--launch-skip, --launch-count, no
NVTX filter; launch_windows); each range's kernel names are found in a row
in ncu's list (align: the two tools' launch numbers may differ by a few
launches), and the ranges are compared there, the NVTX comparison kept as
comparison_nvtx and a note. When that fails (ncu's runs, or a range's names
not found), the NVTX comparison's failures stand. Otherwise differing counts
fail the program, naming the first range whose kernel names differ from
ncu's, its kernel count and both tools' totals.

Every run of a program with timing_dependent_ranges has Triton's on-disk
autotuning cache on, in a folder of its own (TRITON_CACHE_AUTOTUNING,
TRITON_CACHE_DIR): autotuning keeps the config that was fastest in the first
run (rangereplay's), which all later runs launch; without it ncu's slower
launches made another config of triton_autotune's matmul win (401152
instructions against 199808). An ncu run that ends by a signal with no
kernel table is run again, up to NCU_SIGNAL_TRIES times; a program on which
ncu's first run ends so every time (jax_train with XLA's command buffers:
SIGSEGV under ncu) is unavailable: there is nothing to compare with.

Judgement per kernel (ncu_compare.kernel_check): smsp__inst_executed.sum
equal to ncu's, or, where ncu's two runs differ (a nondeterministic kernel),
within their values widened by their difference or by 0.1%, whichever is
more (ncu_compare.within_spread). DRAM bytes read are judged
where both tools start from the same cache state: ncu's kernel replay flushes
L2 before every kernel (its default --cache-control all); rangereplay's
--cache-control all (its default) flushes L2 before every counted pass of a
range, not per kernel, so only the first kernel of each range starts cold,
and the kernels after it find what earlier kernels left in L2. The first
kernel of each compared range must be within 2% (or 64 KiB, as
tests/e2e/cache_control.py) of either ncu run; every other kernel's DRAM
deviation is kept as information (the `dram 2% all` column). A report made
with --cache-control none has no kernel judged on DRAM.

Prints a table (one row per program: kernels compared, instruction counts
equal to ncu, cold kernels' DRAM within 2%, worst deviations, mismatches)
and a final count line; writes <logs>/mlncu.json (every run's command, exit
code, wall time, ncu's ==ERROR== lines, each kernel pair) and <logs>/mlncu.txt.
Exit 0 when every compared program passed, 1 on a failure (or when none
could be compared), 2 for bad input, 77 when ncu or a GPU is missing or
every program is unavailable (exit 77 of its own: framework missing).

Python 3 standard library only; the program list and commands are
run_ml.py's, the process-group runner run_corpus.py's, the ncu command line,
CSV parser and checks tests/ncu/ncu_compare.py's.
"""
import argparse
import json
import os
import shlex
import shutil
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "ncu"))
import run_ml  # noqa: E402  (puts tests/corpus/ on sys.path)
import run_corpus as rc  # noqa: E402
import ncu_compare as nc  # noqa: E402

DEFAULT_PROGRAMS = "jax_train.no_cmdbuf,jax_train,torch_compile,triton_autotune"
SKIP_CODE = 77
# Seconds per run when --timeout is not given: ncu's kernel replay of every kernel of three steps, plus the
# program's start (JAX and torch.compile compile for tens of seconds).
DEFAULT_TIMEOUT_S = 240.0
# A run is not started with less than this left of the budget.
MIN_RUN_S = 20.0
# DRAM bytes read of a cold kernel: within 2% of ncu's, or within this many bytes (small kernels).
DRAM_SLACK_BYTES = 64 * 1024
NCU_EXTRA = ("--print-kernel-base", "mangled")
# Launches profiled by ncu on either side of a range compared by its launch numbers (align).
WINDOW_MARGIN = 64
# Runs of one ncu command that ended by a signal before it counts as ncu's own failure.
NCU_SIGNAL_TRIES = 3


def log(msg):
    print(msg, file=sys.stderr, flush=True)


# --------------------------------------------------------------------------
# commands


def profile_command(cli, p, report):
    """`rangereplay profile <selection> --metrics <FIDELITY_METRICS> -o <report> --`."""
    return [cli, "profile"] + list(p["selection"]) + ["--metrics", ",".join(nc.FIDELITY_METRICS), "-o", report, "--"]


def ncu_command(app_cmd):
    """ncu kernel replay of the `step` ranges' kernels with mangled names (ncu_compare.ncu_csv_command)."""
    return nc.ncu_csv_command(app_cmd, nc.FIDELITY_METRICS, NCU_EXTRA, "step/")


# --------------------------------------------------------------------------
# pairing and judgement (pure: tested on the CPU by test_ml_vs_ncu.py)


def dram_close(ours, ref):
    """ours within 2% of ref (ncu_compare.within_pct) or within DRAM_SLACK_BYTES; False when either is None."""
    if ours is None or ref is None:
        return False
    return nc.within_pct(ours, ref) or abs(ours - ref) <= DRAM_SLACK_BYTES


def segments(report, n_ncu, uncompared=()):
    """Splits ncu's kernel list (n_ncu kernels, launch order) by the report's
    ranges: [{"index", "declined", "compared", "kernels" (the report's count),
    "start", "count" (ncu's kernels given to the range)}] in index order. A
    range is not compared when declined or its index is in uncompared (the
    program's timing_dependent_ranges). Ranges not compared before the first
    compared one share what ncu has beyond the kernels of the later ranges
    (the first of them takes it all), every other range its report's count; a
    range past ncu's end gets what is left."""
    ranges = sorted(report["ranges"], key=lambda r: r["index"])
    compared = [not r.get("declined") and r["index"] not in uncompared for r in ranges]
    lead = 0
    while lead < len(ranges) and not compared[lead]:
        lead += 1
    rest = sum(len(r.get("kernels", [])) for r in ranges[lead:])
    out, pos = [], 0
    for i, r in enumerate(ranges):
        mine = len(r.get("kernels", []))
        if i < lead and lead < len(ranges):
            want = max(0, n_ncu - rest) if i == 0 else 0
        else:
            want = mine
        count = max(0, min(want, n_ncu - pos))
        out.append({"index": r["index"], "declined": bool(r.get("declined")), "compared": compared[i],
                    "kernels": mine, "start": pos, "count": count, "notes": list(r.get("notes", []))[:2]})
        pos += count
    return out


def first_name_difference(report, segs, ncu_list):
    """(range index, position in the range) of the first replayed kernel whose
    mangled name differs from ncu's kernel at the same place, or None."""
    by_index = {r["index"]: r for r in report["ranges"]}
    for s in segs:
        if not s["compared"]:
            continue
        for j, k in enumerate(by_index[s["index"]]["kernels"]):
            at = s["start"] + j
            theirs = ncu_list[at]["name"] if at < len(ncu_list) else None
            if theirs != k.get("mangled_name", ""):
                return s["index"], j
    return None


def compare(report, run1, run2, uncompared=()):
    """Pairs the report's replayed kernels with two ncu kernel-replay lists
    (parse_ncu_csv) range by range (segments; uncompared: range indices
    left out as declined ones are) and judges them: kernel_check
    on the instruction counts, dram_close on the first kernel of each range.
    Returns a dict: ok, failures (one line each), ranges_compared,
    ranges_declined, kernels (rangereplay's in compared ranges), kernels_ncu
    ([run 1, run 2] in compared ranges), compared, inst_equal,
    outside_ncu_spread, nondeterministic, max_inst_rel_dev, dram_cold
    (judged), dram_cold_ok, max_dram_cold_rel_dev, dram_all_within_2pct
    (information), cache_control, pairs (kernel_check's pairs with range,
    position and cold)."""
    failures = []
    cache = report.get("cache_control", "all")
    n1, n2 = len(run1), len(run2)
    if n1 != n2:
        failures.append(f"ncu's two runs profiled {n1} and {n2} kernels in `step` ranges")
    segs = segments(report, n1, uncompared)
    segs2 = segments(report, n2, uncompared)
    ours_all = [k for k in nc.report_kernels(report) if k["range"] not in uncompared]
    total_ours = len(ours_all)
    total_ncu = sum(s["count"] for s in segs if s["compared"])
    declined = [s for s in segs if s["declined"]]
    # Kernels ncu has that no range took (the report's ranges have fewer kernels in all).
    leftover = n1 - sum(s["count"] for s in segs)
    if total_ours != total_ncu or leftover:
        where = first_name_difference(report, segs, run1)
        seg = next((s for s in segs if where and s["index"] == where[0]), None)
        if seg is None:
            seg = next((s for s in segs if s["compared"] and s["count"] != s["kernels"]), None)
        if seg is None:
            seg = next((s for s in reversed(segs) if s["compared"]), None)
        name = f"range {seg['index']}" if seg else "no replayed range"
        # ncu's list does not say where a range ends: the range named is the first whose names differ.
        failures.append(f"kernel counts differ at {name} ({seg['kernels'] if seg else 0} kernels in rangereplay's "
                        f"report" + (f", the first name unlike ncu's at position {where[1]}" if where else "")
                        + f"); in all compared ranges rangereplay {total_ours}, ncu {total_ncu + max(leftover, 0)}"
                        + (f"; the range's notes: {seg['notes'][0][:160]}" if seg and seg["notes"] else ""))
    # Pair range by range; a range whose counts differ is compared on its common prefix.
    ours, a_list, b_list, where = [], [], [], []
    by_range = {}
    for k in ours_all:
        by_range.setdefault(k["range"], []).append(k)
    for s, s2 in zip(segs, segs2):
        if not s["compared"]:
            continue
        mine = by_range.get(s["index"], [])
        a = run1[s["start"]:s["start"] + s["count"]]
        b = run2[s2["start"]:s2["start"] + s2["count"]]
        n = min(len(mine), len(a), len(b))
        ours += mine[:n]
        a_list += a[:n]
        b_list += b[:n]
        where += [(s["index"], j) for j in range(n)]
    check = nc.kernel_check(ours, a_list, b_list)
    pairs = []
    cold_judged = cold_ok = 0
    max_cold = 0.0
    for p, (ridx, j) in zip(check["kernels"], where):
        p["range"], p["position"], p["cold"] = ridx, j, j == 0
        if p["name"] and p["ncu_name"] and p["name"] != p["ncu_name"][:120]:
            failures.append(f"range {ridx} kernel {j}: names differ: rangereplay {p['name'][:60]}, "
                            f"ncu {p['ncu_name'][:60]}")
        if not p["inst_ok"]:
            failures.append(f"range {ridx} kernel {j} {p['name'][:60]}: {nc.INST} {p['inst']} vs ncu "
                            f"{p['ncu_inst']} / {p['ncu_inst_run2']}")
        if p["cold"] and cache == "all":
            cold_judged += 1
            refs = [r for r in (p["ncu_dram"], p["ncu_dram_run2"]) if r is not None]
            ok = any(dram_close(p["dram"], r) for r in refs)
            p["dram_cold_ok"] = ok
            cold_ok += ok
            if p["dram"] is not None and refs:
                max_cold = max(max_cold, min(nc.relative_deviation(p["dram"], r) for r in refs))
            if not ok:
                failures.append(f"range {ridx} kernel 0 {p['name'][:60]} (cold in both): {nc.DRAM} {p['dram']} vs "
                                f"ncu {p['ncu_dram']} / {p['ncu_dram_run2']} (over 2% and 64 KiB)")
        pairs.append(p)
    if not ours:
        failures.append("no kernel compared: no replayed range with kernels"
                        + (f" ({len(declined)} declined)" if declined else ""))
    return {"ok": not failures, "failures": failures, "ranges_compared": sum(s["compared"] for s in segs),
            "ranges_declined": [s["index"] for s in declined],
            "ranges_timing_dependent": [s["index"] for s in segs if not s["declined"] and not s["compared"]],
            "kernels": total_ours,
            "kernels_ncu": [total_ncu + max(leftover, 0), n2 - sum(s["count"] for s in segs2 if not s["compared"])],
            "compared": check["compared"], "inst_equal": check["equal"],
            "outside_ncu_spread": check["outside_ncu_spread"], "nondeterministic": check["nondeterministic"],
            "max_inst_rel_dev": check["max_rel_dev"], "cache_control": cache, "dram_cold": cold_judged,
            "dram_cold_ok": cold_ok, "max_dram_cold_rel_dev": max_cold,
            "dram_all_within_2pct": check["dram_within_2pct_of_kernel_replay"], "pairs": pairs}


# --------------------------------------------------------------------------
# table


TABLE_HEADER = (f"{'program':<24} {'status':<11} {'ranges':<7} {'kernels':<9} {'inst =':<9} {'dram cold':<9} "
                f"{'dram 2% all':<11} {'worst inst':<10} {'worst dram':<10}  mismatches")


def render_row(res):
    """One row of TABLE_HEADER's columns: status, ranges compared (+declined),
    kernels compared / ncu's, instruction counts equal, cold kernels' DRAM
    within 2% / judged, every kernel's DRAM within 2% (information), worst
    deviations (%), the first mismatches."""
    c = res.get("comparison")
    if c is None:
        return f"{res['name']:<24} {res['status']:<11} {'; '.join(res['problems'] + res['notes'])}"
    ranges = f"{c['ranges_compared']}" + (f"+{len(c['ranges_declined'])}d" if c["ranges_declined"] else "")
    kernels = f"{c['compared']}/{c['kernels_ncu'][0]}"
    mism = "; ".join(res["problems"][:3]) + (f" (+{len(res['problems']) - 3})" if len(res["problems"]) > 3 else "")
    return (f"{res['name']:<24} {res['status']:<11} {ranges:<7} {kernels:<9} {c['inst_equal']:>4}/{c['compared']:<4} "
            f"{c['dram_cold_ok']:>4}/{c['dram_cold']:<4} {c['dram_all_within_2pct']:>5}/{c['compared']:<5} "
            f"{100 * c['max_inst_rel_dev']:9.4f}% {100 * c['max_dram_cold_rel_dev']:9.2f}%  {mism or '-'}")


def final_line(results):
    """'ml vs ncu: P of N programs passed (U unavailable, S skipped); K kernels compared, E with equal instructions'."""
    by = lambda s: sum(r["status"] == s for r in results)  # noqa: E731
    compared = sum(r["comparison"]["compared"] for r in results if r.get("comparison"))
    equal = sum(r["comparison"]["inst_equal"] for r in results if r.get("comparison"))
    return (f"ml vs ncu: {by('pass')} of {len(results)} programs passed ({by('FAIL')} failed, "
            f"{by('unavailable')} unavailable, {by('skipped')} skipped); {compared} kernels compared, {equal} with "
            f"instruction counts equal to ncu's")


def render_table(results, header_lines=()):
    out = list(header_lines) + ["", TABLE_HEADER, "-" * len(TABLE_HEADER)]
    out += [render_row(r) for r in results]
    problems = [(r["name"], x) for r in results for x in r["problems"]]
    if problems:
        out.append("failures:")
        out += [f"  {n}: {x}" for n, x in problems]
    out.append(final_line(results))
    return "\n".join(out) + "\n"


def suite_status(results):
    """0 when a program was compared and none failed; 77 when every program
    was unavailable; 1 otherwise."""
    if results and all(r["status"] == "unavailable" for r in results):
        return SKIP_CODE
    if any(r["status"] == "FAIL" for r in results) or not any(r["status"] == "pass" for r in results):
        return 1
    return 0


# --------------------------------------------------------------------------
# runs


class Suite:
    def __init__(self, args, cli, logs, env):
        self.args, self.cli, self.logs, self.env = args, cli, logs, env
        self.t0 = time.monotonic()

    def budget_left(self):
        return float("inf") if self.args.budget is None else self.args.budget - (time.monotonic() - self.t0)

    def run(self, cmd, tag, limit, env):
        """One run under min(limit, budget left) seconds; None when the budget
        has less than MIN_RUN_S left. The record (run_corpus.run_one) gains
        'problem' for a hang, a cut or a run that could not start."""
        left = self.budget_left()
        if left < MIN_RUN_S:
            return None
        r = rc.run_one(cmd, self.logs, env, min(limit, left), os.path.join(self.logs, tag))
        if r.get("error"):
            r["problem"] = f"{tag}: {r['error']}"
        elif r["hung"]:
            r["problem"] = (f"{tag}: cut at the budget's end after {r['wall_s']} s" if left < limit else
                            f"{tag}: timed out after {r['wall_s']} s (--timeout); see {r['stderr']}")
        log(f"  {tag:<36} {'HANG' if r['hung'] else 'exit ' + str(r['exit']):<8} {r['wall_s']:6.1f} s")
        return r

    def program(self, p):
        res = {"name": p["name"], "argv": p["argv"], "status": "FAIL", "problems": [], "notes": [], "runs": {}}
        app = run_ml.program_command(self.args.python, p)
        limit = self.args.timeout or DEFAULT_TIMEOUT_S
        report_path = os.path.join(self.logs, f"{p['name']}.profile.json")
        if os.path.exists(report_path):
            os.remove(report_path)
        log(f"{p['name']}: {shlex.join(p['argv'])}")
        env = self.env
        if p.get("timing_dependent_ranges"):
            # Autotuning picks the config that was fastest in this run; under ncu another may win. With Triton's
            # on-disk autotuning cache, fresh per program, every later run launches the config of the first.
            cache = os.path.join(self.logs, f"{p['name']}.triton-cache")
            shutil.rmtree(cache, ignore_errors=True)
            env = dict(self.env, TRITON_CACHE_AUTOTUNING="1", TRITON_CACHE_DIR=cache)
        prof = self.run(profile_command(self.cli, p, report_path) + app, f"{p['name']}.profile", limit, env)
        if prof is None:
            res["status"] = "skipped"
            res["notes"].append(f"budget of {self.args.budget:.0f} s spent")
            return res
        res["runs"]["profile"] = brief(prof)
        if prof["exit"] == SKIP_CODE:
            res["status"] = "unavailable"
            res["notes"].append(run_ml.skip_reason(rc.read_text(prof["stderr"])) or "the program exited 77")
            return res
        if prof.get("problem") or prof["exit"] != 0:
            res["problems"].append(prof.get("problem") or f"rangereplay profile exit {prof['exit']}: "
                                   f"{run_ml.last_error_line(rc.read_text(prof['stderr'])) or '?'}")
            return res
        try:
            with open(report_path) as f:
                report = json.load(f)
        except (OSError, json.JSONDecodeError) as e:
            res["problems"].append(f"report {report_path} unreadable: {e}")
            return res
        uncompared = tuple(p.get("timing_dependent_ranges", []))
        lists = self.ncu_lists(res, p["name"], ncu_command(app), "ncu", limit, env)
        if lists is None:
            return res
        comparison = compare(report, lists[0], lists[1], uncompared)
        windows = launch_windows(report, uncompared)
        if not comparison["ok"] and comparison["kernels"] > comparison["kernels_ncu"][0] and windows:
            # ncu's NVTX filter is per thread: kernels another thread launched
            # inside a range (PyTorch's autograd thread) are missing from its
            # list. Compare the ranges by their launch numbers instead.
            windowed = self.compare_by_launches(res, p["name"], app, report, windows, comparison, limit, env)
            if windowed is None:
                res["comparison"] = comparison
                res["problems"] += comparison["failures"]
                res["status"] = "FAIL"
                return res
            comparison = windowed
        res["comparison"] = comparison
        res["problems"] += comparison["failures"]
        res["status"] = "pass" if not res["problems"] else "FAIL"
        return res

    def compare_by_launches(self, res, name, app, report, windows, nvtx, limit, env):
        """The compared ranges against two ncu runs over their launches
        (windows: launch_windows) and WINDOW_MARGIN more on either side, each
        range found by its kernel names (align): compare's result over them,
        or None (res's problems and notes say why) when ncu's runs failed or
        a range's names are not in them. nvtx: the comparison by ncu's NVTX
        filter, kept in res as comparison_nvtx."""
        skip = max(0, min(first for _, first, _ in windows) - WINDOW_MARGIN)
        end = max(first + count for _, first, count in windows) + WINDOW_MARGIN
        res["comparison_nvtx"] = {k: v for k, v in nvtx.items() if k != "pairs"}
        res["notes"].append(f"ncu's NVTX filter saw {nvtx['kernels_ncu'][0]} kernels, rangereplay "
                            f"{nvtx['kernels']}: ranges compared by their launches, ncu's launches {skip}..{end - 1}")
        wlists = self.ncu_lists(res, name, ncu_window_command(app, skip, end - skip), "ncu_window", limit, env)
        if wlists is None:
            return None
        sub = windows_report(report, [index for index, _, _ in windows])
        slices = [[], []]
        for r, (index, first, _) in zip(sub["ranges"], windows):
            names = [k.get("mangled_name", "") for k in r["kernels"]]
            at = [align(names, w, first - skip) for w in wlists]
            if None in at:
                res["problems"].append(f"range {index}: its {len(names)} kernel names are nowhere in a row in ncu's "
                                       f"launches {skip}..{end - 1}")
                return None
            for k, (w, a) in enumerate(zip(wlists, at)):
                slices[k] += w[a:a + len(names)]
        return compare(sub, slices[0], slices[1])

    def ncu_lists(self, res, name, cmd, tag, limit, env):
        """Two runs of an ncu kernel-replay command: [kernel list of run 1,
        of run 2] (parse_ncu_csv), or None with res's status and problems or
        notes set: skipped when the budget is spent, unavailable when ncu's
        first run ends by a signal with no table NCU_SIGNAL_TRIES times in a
        row (ncu fails on the program without rangereplay: nothing to compare
        with), FAIL otherwise. A run ended by a signal with no table is run
        again (ncu crashed on jax_train.no_cmdbuf in 2 of 3 calls, seconds
        after its start), up to NCU_SIGNAL_TRIES times."""
        lists = []
        for k in (1, 2):
            for attempt in range(1, NCU_SIGNAL_TRIES + 1):
                key = f"{tag}{k}" + (f".try{attempt}" if attempt > 1 else "")
                r = self.run(cmd, f"{name}.{key}", limit, env)
                if r is None:
                    res["status"] = "skipped"
                    res["notes"].append(f"{tag} run {k} not started: budget of {self.args.budget:.0f} s spent")
                    return None
                res["runs"][key] = brief(r)
                out = rc.read_text(r["stdout"])
                errors = [m for m in nc.ncu_messages(out + "\n" + rc.read_text(r["stderr"]), limit=20)
                          if m.startswith("==ERROR==")]
                res["runs"][key]["errors"] = errors
                if r.get("problem"):
                    res["problems"].append(r["problem"])
                    return None
                try:
                    table = nc.parse_ncu_csv(out, "kernel")
                except nc.NcuCsvError as e:
                    if killed_by_signal(r["exit"]) and attempt < NCU_SIGNAL_TRIES:
                        continue
                    if k == 1 and killed_by_signal(r["exit"]):
                        res["status"] = "unavailable"
                        res["notes"].append(f"ncu itself ended by a signal on this program in {attempt} runs (exit "
                                            f"{r['exit']}: {' | '.join(errors[:2]) or 'no ==ERROR== line'}), with no "
                                            f"kernel table: nothing to compare with")
                        return None
                    res["problems"].append(f"{tag} run {k}: {e}")
                    return None
                if attempt > 1:
                    res["notes"].append(f"{tag} run {k}: ncu ended by a signal {attempt - 1} time(s) first")
                lists.append(table)
                if r["exit"] != 0 or errors:
                    res["problems"].append(f"{tag} run {k} exit {r['exit']}: "
                                           f"{' | '.join(errors[:2]) or '(no ==ERROR== line)'}")
                break
        return lists


def killed_by_signal(code):
    """True for an exit status a signal gives: negative (Popen) or 128 + N (a shell's)."""
    return code is not None and (code < 0 or 128 < code < 160)


def align(names, ncu_list, expected):
    """The offset in ncu_list (parse_ncu_csv) at which the kernel names
    `names` follow each other, the one nearest `expected` (where launch
    numbers say the range starts), or None. Launch numbers of the two tools
    may differ by a few launches one counts and the other does not."""
    n = len(names)
    found = [i for i in range(len(ncu_list) - n + 1) if [k["name"] for k in ncu_list[i:i + n]] == names]
    return min(found, key=lambda i: (abs(i - expected), i)) if found else None


def launch_windows(report, uncompared=()):
    """[(range index, first launch index, launch count)] of every replayed
    range not in uncompared, in index order, or None when one of them lacks
    launch numbers (ncu_compare.launch_window: a range's launches are
    consecutive in the process, whichever thread made them)."""
    out = []
    for r in sorted(report["ranges"], key=lambda r: r["index"]):
        if r.get("declined") or r["index"] in uncompared or not r.get("kernels"):
            continue
        w = nc.launch_window({"ranges": [r]})
        if w is None:
            return None
        out.append(w)
    return out or None


def windows_report(report, indices):
    """The report with the ranges `indices` alone, in index order, each
    range's kernels in launch order (as ncu numbers launches: two threads'
    launches may be recorded in the other order)."""
    ranges = sorted((r for r in report["ranges"] if r["index"] in indices), key=lambda r: r["index"])
    return dict(report, ranges=[dict(r, kernels=sorted(r["kernels"], key=lambda k: k.get("launch_index", -1)))
                                for r in ranges])


def ncu_window_command(app_cmd, first, count):
    """ncu kernel replay of launches first..first + count - 1, no NVTX filter (ncu_compare.ncu_csv_command)."""
    return nc.ncu_csv_command(app_cmd, nc.FIDELITY_METRICS, NCU_EXTRA + ("--launch-skip", str(first),
                                                                        "--launch-count", str(count)), None)


def brief(r):
    return {"cmd": shlex.join(r["cmd"]), "exit": r["exit"], "hung": r["hung"], "wall_s": r["wall_s"],
            "stdout": r["stdout"], "stderr": r["stderr"]}


def dry_run(programs, cli, logs, python):
    for p in programs:
        app = run_ml.program_command(python, p)
        print(f"# {p['name']}: {p.get('notes', '')}")
        print("  " + shlex.join(profile_command(cli, p, os.path.join(logs, f"{p['name']}.profile.json")) + app))
        print("  " + shlex.join(ncu_command(app)) + "   (twice)")
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", required=True, help="rangereplay build folder (holds tools/cli/rangereplay)")
    ap.add_argument("--logs", required=True, help="folder for outputs, reports, mlncu.json and mlncu.txt")
    ap.add_argument("--only", default=DEFAULT_PROGRAMS, help=f"comma-separated program names (programs.json; "
                                                             f"default {DEFAULT_PROGRAMS})")
    ap.add_argument("--budget", type=float, help="seconds for the whole call; programs left are reported as skipped")
    ap.add_argument("--timeout", type=float, help=f"seconds per run (profile or ncu) before it is killed "
                                                  f"(default {DEFAULT_TIMEOUT_S:.0f})")
    ap.add_argument("--python", default=sys.executable or "python3", help="interpreter of the programs")
    ap.add_argument("--programs", default=run_ml.PROGRAMS_JSON, help="the program list (default: programs.json)")
    ap.add_argument("--dry-run", action="store_true", help="print the commands; run nothing (no GPU needed)")
    args = ap.parse_args(argv)
    for name in ("timeout", "budget"):
        if getattr(args, name) is not None and getattr(args, name) <= 0:
            ap.error(f"--{name} must be positive seconds")
    try:
        chosen = run_ml.select_programs(run_ml.load_programs(args.programs), args.only)
        cli = os.path.join(os.path.abspath(args.build), "tools", "cli", "rangereplay")
        logs = os.path.abspath(args.logs)
        if args.dry_run:
            return dry_run(chosen, cli, logs, args.python)
        if not os.access(cli, os.X_OK):
            raise run_ml.MlError(f"--build {args.build}: no launcher at {cli}; build rangereplay (scripts/build.sh) "
                                 f"or pass the build folder that holds tools/cli/rangereplay")
    except run_ml.MlError as e:
        print(f"ml_vs_ncu: {e}", file=sys.stderr)
        return 2
    if shutil.which("ncu") is None:
        print("skipped: ncu not found on PATH; install Nsight Compute or add its folder to PATH")
        return SKIP_CODE
    try:
        gpu = rc.gpu_check()
    except rc.CorpusError as e:
        print(f"skipped: {e}")
        return SKIP_CODE
    os.makedirs(logs, exist_ok=True)
    suite = Suite(args, cli, logs, dict(os.environ, PYTHONDONTWRITEBYTECODE="1"))
    header = [f"ml vs ncu: {len(chosen)} programs, python {args.python}, timeout {args.timeout or DEFAULT_TIMEOUT_S} "
              f"s per run, budget {args.budget or 'none'} s", f"gpu: {gpu}"]
    return rc.run_programs(chosen, suite.program, logs, "mlncu", header, render_table, suite_status, suite.t0)


if __name__ == "__main__":
    sys.exit(main())
