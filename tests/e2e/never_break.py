"""Programs the tool must never break.

Each program is run plain, then under `rangereplay profile --kernel-range ...`
with a time limit per run; the exit code and the `checksum ` lines must equal
the plain run's, and no run may hang. A run past its limit is killed with its
whole process group (e2e_common.run) and reported as a hang with the stage it
was in: the last `rangereplay` line of its stderr. The first hang is run once
more with RANGEREPLAY_DEBUG=1; its stderr is saved to a log file (folder
$RANGEREPLAY_E2E_LOGS, else <build>/e2e-logs) and its last 20 lines printed.

1. tests/apps/app_capture_open_at_range in each variant, with kernel windows
   before the capture, beginning while it is open, over the graph launches
   and after, once with --set basic and once with --set basic --verify. The
   expected outcome of each window follows from the program's launch layout
   (CAPTURE_* below, from its file comment; captured launches do not execute
   and are not counted): a window that begins while a capture is open, or
   holds a cudaStreamBeginCapture, is declined stream_capture_active; a window
   holding a launch of the graph with a conditional node is declined
   unsupported_api (conditional nodes are not replayed, docs/limitations.md);
   every other window is replayed and holds exactly the window's launches in
   order, each graph launch's kernel nodes after the launch it follows.
   --verify runs must report no divergence in the replayed windows.
2. tests/apps/app_threads_managed_cublas (host threads, each with a stream and
   a cuBLAS handle, on managed memory), THREADS_RUNS consecutive runs under the
   tool with the windows and sets of THREADS_ROTATION in turn. Any range
   outcome is accepted (it is listed); each run must produce one range and
   finish in time with the plain run's checksums.

Prints a table (case, runs, outcomes, hangs, failures); exit 1 on any failure.

GPU end-to-end test of programs the tool must never break: a stream capture open when a --kernel-
range window begins (tests/apps/capture_open_at_range, in each capture mode, with a conditional
node, from a second thread), and host threads driving their own streams and cuBLAS handles on
managed memory (tests/apps/threads_managed_cublas), 20 runs in a row. Exit codes and checksums must
equal a run without the tool, range outcomes follow the capture program's launch layout, and no run
may hang: a run past its time limit is killed with its process group and reported with the stage it
was in. Prints a table; exit 1 on any failure, 77 without a GPU.
"""
import os
import re
import sys
import tempfile
import time
from collections import Counter

from e2e_common import checksums, last_stage, load_report, run, summarize, tail

BUILD = sys.argv[1]
CLI = os.path.join(BUILD, "tools/cli/rangereplay")
CAPTURE_APP = os.path.join(BUILD, "tests/apps/app_capture_open_at_range")
THREADS_APP = os.path.join(BUILD, "tests/apps/app_threads_managed_cublas")
LOG_DIR = os.environ.get("RANGEREPLAY_E2E_LOGS") or os.path.join(BUILD, "e2e-logs")
RUN_LIMIT_S = 60
# After this many hangs no further profiled run is started (each costs RUN_LIMIT_S).
MAX_HANGS = 3
# No run is started after this many seconds, so the script ends within CTest's
# 600 s even when that run hangs and is rerun with RANGEREPLAY_DEBUG=1.
BUDGET_S = 420
REPLAYED = "replayed"
CAPTURE_ACTIVE = "stream_capture_active"
CONDITIONAL_GRAPH = "unsupported_api"

# app_capture_open_at_range's launch indices, executed launches only (its file comment).
CAPTURE_PHASES = (["before_capture_kernel"] * 3 + ["during_capture_kernel"] * 2 + ["between_kernel"] * 4 +
                  ["after_capture_kernel"] * 3)
CAPTURE_OPEN = range(3, 5)       # launches made while a capture is open
CAPTURE_BEGINS_AFTER = 2         # cudaStreamBeginCapture comes after launch 2, before launch 3
GRAPH_LAUNCH_AFTER = (5, 6, 7)   # graph launch g comes right after launch 5 + g
GRAPH_KERNEL_NODES = 3           # captured_kernel x3 (the graph without --conditional)
CAPTURE_WINDOWS = [(0, 3), (3, 4), (4, 6), (6, 9), (9, 12)]
CAPTURE_VARIANTS = [
    ("global", ["--mode", "global"]),
    ("thread-local", ["--mode", "thread-local"]),
    ("relaxed", ["--mode", "relaxed"]),
    ("conditional", ["--conditional"]),
    ("other thread", ["--other-thread"]),
    # The second thread's calls are not restricted by a thread-local capture.
    ("other thread, thread-local", ["--other-thread", "--mode", "thread-local"]),
]
CAPTURE_TOOL_ARGS = [("--set basic", ["--set", "basic"]), ("--set basic --verify", ["--set", "basic", "--verify"])]

THREADS_RUNS = 20
THREADS_ROTATION = [
    ("0:1 single-pass", ["--kernel-range", "0:1", "--set", "single-pass"]),
    ("0:16 basic", ["--kernel-range", "0:16", "--set", "basic"]),
    ("0:1 single-pass --verify", ["--kernel-range", "0:1", "--set", "single-pass", "--verify"]),
    ("0:16 basic --verify", ["--kernel-range", "0:16", "--set", "basic", "--verify"]),
    ("4:20 basic", ["--kernel-range", "4:20", "--set", "basic"]),
]

START = time.monotonic()


def window_outcome(first, end, conditional):
    """The expected outcome of capture-app window first:end."""
    last = end - 1
    if first in CAPTURE_OPEN or first <= CAPTURE_BEGINS_AFTER < last:
        return CAPTURE_ACTIVE
    if conditional and any(first <= after < last for after in GRAPH_LAUNCH_AFTER):
        return CONDITIONAL_GRAPH
    return REPLAYED


def window_kernels(first, end):
    """(kernel name, launch_index) of a replayed capture-app window, in order;
    graph kernel nodes have launch_index -1."""
    kernels = []
    for i in range(first, end):
        kernels.append((CAPTURE_PHASES[i], i))
        if i in GRAPH_LAUNCH_AFTER and i < end - 1:
            kernels += [("captured_kernel", -1)] * GRAPH_KERNEL_NODES
    return kernels


def outcome_of(r):
    return (r.get("decline_reason") or "?") if r.get("declined") else REPLAYED


def outcome_text(words):
    return " + ".join(f"{w} x{n}" for w, n in sorted(Counter(words).items())) if words else "no range"


def read_report(path):
    try:
        return load_report(path), None
    except (OSError, ValueError) as e:
        return None, str(e)


class Runs:
    """Hang bookkeeping shared by every profiled run."""

    def __init__(self):
        self.hangs = 0
        self.debug_rerun_done = False

    def stop_reason(self):
        if self.hangs >= MAX_HANGS:
            return f"not started after {self.hangs} hung runs (the RANGEREPLAY_DEBUG rerun included)"
        if time.monotonic() - START > BUDGET_S:
            return f"not started: the script has run {BUDGET_S} s"
        return None

    def profile(self, label, tool_args, app_cmd, report_path):
        """Runs app_cmd under the tool; (rc, out, err, hang message or None)."""
        cmd = [CLI, "profile"] + tool_args + ["--output", report_path, "--"] + app_cmd
        t0 = time.monotonic()
        rc, out, err = run(cmd, timeout=RUN_LIMIT_S)
        took = time.monotonic() - t0
        if rc is not None:
            print(f"  {label}: rc={rc} in {took:.1f} s", flush=True)
            return rc, out, err, None
        self.hangs += 1
        stage = last_stage(err)
        print(f"  {label}: HUNG, killed after {RUN_LIMIT_S} s; last stage: {stage}", flush=True)
        self.debug_rerun(label, cmd)
        return rc, out, err, f"{label}: hung (killed after {RUN_LIMIT_S} s); last stage: {stage}"

    def debug_rerun(self, label, cmd):
        """Once per script: the hung command again with RANGEREPLAY_DEBUG=1, stderr saved to a log."""
        if self.debug_rerun_done:
            return
        self.debug_rerun_done = True
        rc, _, err = run(cmd, timeout=RUN_LIMIT_S, env=dict(os.environ, RANGEREPLAY_DEBUG="1"))
        if rc is None:
            self.hangs += 1
        try:
            os.makedirs(LOG_DIR, exist_ok=True)
            log = os.path.join(LOG_DIR, "never_break_" + re.sub(r"[^A-Za-z0-9]+", "_", label).strip("_") + ".log")
            with open(log, "w") as f:
                f.write(err)
        except OSError as e:
            log = f"(not saved: {e})"
        verdict = "hung again" if rc is None else f"did not hang (rc={rc})"
        print(f"  debug rerun of {label} {verdict}; stderr in {log}; its last 20 lines:")
        for line in err.splitlines()[-20:]:
            print("    " + line)


def plain_run(label, cmd, failures):
    """Runs cmd without the tool; its (rc, stdout) or None when it failed."""
    rc, out, err = run(cmd, timeout=RUN_LIMIT_S)
    if rc != 0 or not checksums(out) or "checksums-done" not in out:
        failures.append(f"{label}: the plain run failed (rc={rc}): {tail(err)}")
        return None
    return rc, out


def compare_results(label, plain, rc, out, err, problems):
    plain_rc, plain_out = plain
    if rc != plain_rc:
        problems.append(f"{label}: exit code {rc} under the tool, {plain_rc} without: {tail(err)}")
    if checksums(out) != checksums(plain_out) or "checksums-done" not in out:
        problems.append(f"{label}: checksums differ with the tool (plain {checksums(plain_out)}, "
                        f"profiled {checksums(out)}): {tail(err)}")


def check_capture_report(label, report, conditional, verify, problems):
    """Range outcomes and kernels of a capture-app run; returns the outcome words."""
    ranges = report.get("ranges", [])
    by_name = {r.get("name"): r for r in ranges}
    words = [outcome_of(r) for r in ranges]
    if report.get("errors"):
        problems.append(f"{label}: report errors: {report['errors']}")
    expected_names = [f"kernels {a}:{b}" for a, b in CAPTURE_WINDOWS]
    extra = [r.get("name") for r in ranges if r.get("name") not in expected_names]
    if extra:
        problems.append(f"{label}: unexpected ranges {extra}")
    for (first, end), name in zip(CAPTURE_WINDOWS, expected_names):
        want = window_outcome(first, end, conditional)
        r = by_name.get(name)
        if r is None:
            problems.append(f"{label}: no range '{name}' in the report (expected {want})")
            continue
        got = outcome_of(r)
        if got != want:
            detail = f" ({r.get('decline_detail')})" if r.get("declined") else ""
            problems.append(f"{label}: range '{name}' is {got}{detail}, expected {want}")
            continue
        if got != REPLAYED:
            continue
        if report.get("pass_count", 0) > 1 and r.get("passes", 0) < 2:
            problems.append(f"{label}: range '{name}' ran {r.get('passes')} pass(es); the metric list needs "
                            f"{report.get('pass_count')}")
        kernels = r.get("kernels", [])
        wanted = window_kernels(first, end)
        if len(kernels) != len(wanted) or any(
                kernel not in k.get("mangled_name", "") or k.get("launch_index") != index
                for k, (kernel, index) in zip(kernels, wanted)):
            got_kernels = [(k.get("name") or k.get("mangled_name"), k.get("launch_index")) for k in kernels]
            problems.append(f"{label}: range '{name}' holds kernels {got_kernels}, expected {wanted}")
        if verify:
            notes = [n for n in r.get("notes", []) if "--verify unavailable" in n]
            if notes:
                problems.append(f"{label}: range '{name}': {notes[0]}")
            divergent = sum(len(p.get("divergences", [])) for p in r.get("pass_records", []))
            if divergent:
                problems.append(f"{label}: range '{name}': --verify found {divergent} divergent regions")
    return words


def capture_cases(runs, rows, failures):
    if not os.access(CAPTURE_APP, os.X_OK):
        failures.append(f"{CAPTURE_APP} is missing; build target app_capture_open_at_range")
        rows.append(("capture (all variants)", 0, "missing executable", 0, 1))
        return
    windows = ",".join(f"{a}:{b}" for a, b in CAPTURE_WINDOWS)
    for variant, app_args in CAPTURE_VARIANTS:
        app = [CAPTURE_APP] + app_args
        conditional = "--conditional" in app_args
        plain = plain_run(f"capture {variant}", app, failures)
        if plain is None:
            rows.append((f"capture {variant}", 0, "plain run failed", 0, 1))
            continue
        for tool_label, tool_args in CAPTURE_TOOL_ARGS:
            label = f"capture {variant}, {tool_label}"
            problems = []
            hangs = 0
            stop = runs.stop_reason()
            if stop:
                failures.append(f"{label}: {stop}")
                rows.append((label, 0, stop, 0, 1))
                continue
            with tempfile.TemporaryDirectory(prefix="rr_never_break_") as tmp:
                report_path = os.path.join(tmp, "report.json")
                rc, out, err, hang = runs.profile(label, ["--kernel-range", windows] + tool_args, app, report_path)
                if hang:
                    problems.append(hang)
                    hangs = 1
                    outcome = "hung"
                else:
                    compare_results(label, plain, rc, out, err, problems)
                    report, error = read_report(report_path)
                    if report is None:
                        problems.append(f"{label}: cannot read the report: {error}; stderr: {tail(err)}")
                        outcome = f"no report (rc={rc})"
                    else:
                        words = check_capture_report(label, report, conditional, "--verify" in tool_args, problems)
                        outcome = outcome_text(words)
            failures.extend(problems)
            rows.append((label, 1, outcome, hangs, len(problems)))


def threads_cases(runs, rows, failures):
    if not os.access(THREADS_APP, os.X_OK):
        failures.append(f"{THREADS_APP} is missing; build target app_threads_managed_cublas")
        rows.append(("threads", 0, "missing executable", 0, 1))
        return
    app = [THREADS_APP]
    plain = plain_run("threads", app, failures)
    again = plain_run("threads (second plain run)", app, failures) if plain else None
    if plain is None or again is None:
        rows.append(("threads", 0, "plain run failed", 0, 1))
        return
    if checksums(plain[1]) != checksums(again[1]):
        failures.append(f"threads: two plain runs print different checksums ({checksums(plain[1])}, "
                        f"{checksums(again[1])}): the program is not deterministic")
        rows.append(("threads", 0, "plain runs differ", 0, 1))
        return
    stats = {label: {"runs": 0, "words": [], "hangs": 0, "failures": 0, "not_started": 0}
             for label, _ in THREADS_ROTATION}
    stopped = None
    for k in range(THREADS_RUNS):
        case_label, tool_args = THREADS_ROTATION[k % len(THREADS_ROTATION)]
        label = f"threads run {k + 1}/{THREADS_RUNS} ({case_label})"
        s = stats[case_label]
        stopped = stopped or runs.stop_reason()
        if stopped:
            s["not_started"] += 1
            s["failures"] += 1
            continue
        problems = []
        s["runs"] += 1
        with tempfile.TemporaryDirectory(prefix="rr_never_break_") as tmp:
            report_path = os.path.join(tmp, "report.json")
            rc, out, err, hang = runs.profile(label, tool_args, app, report_path)
            if hang:
                problems.append(hang)
                s["hangs"] += 1
                s["words"].append("hung")
            else:
                compare_results(label, plain, rc, out, err, problems)
                report, error = read_report(report_path)
                if report is None:
                    problems.append(f"{label}: cannot read the report: {error}; stderr: {tail(err)}")
                    s["words"].append("no report")
                else:
                    ranges = report.get("ranges", [])
                    words = [outcome_of(r) for r in ranges]
                    s["words"].extend(words)
                    if len(ranges) != 1:
                        problems.append(f"{label}: {len(ranges)} ranges in the report, expected 1 ({words})")
                    if report.get("errors"):
                        problems.append(f"{label}: report errors: {report['errors']}")
                    for r, word in zip(ranges, words):
                        if word == REPLAYED and report.get("pass_count", 0) > 1 and r.get("passes", 0) < 2:
                            problems.append(f"{label}: range '{r.get('name')}' ran {r.get('passes')} pass(es); "
                                            f"the metric list needs {report.get('pass_count')}")
        s["failures"] += len(problems)
        failures.extend(problems)
    not_started = sum(s["not_started"] for s in stats.values())
    if not_started:
        failures.append(f"threads: {not_started} of {THREADS_RUNS} runs {stopped}")
    for case_label, _ in THREADS_ROTATION:
        s = stats[case_label]
        outcomes = outcome_text(s["words"]) if s["words"] else "-"
        if s["not_started"]:
            outcomes += f", {s['not_started']} not started"
        rows.append((f"threads {case_label}", s["runs"], outcomes, s["hangs"], s["failures"]))


def main():
    if not os.access(CLI, os.X_OK):
        print(f"error: {CLI} is missing; build the rangereplay target first")
        return 1
    runs = Runs()
    rows, failures = [], []
    print("capture open when a range begins:", flush=True)
    capture_cases(runs, rows, failures)
    print("host threads with managed memory and cuBLAS:", flush=True)
    threads_cases(runs, rows, failures)
    print(f"\n{time.monotonic() - START:.0f} s in all")
    header = ("case", "runs", "outcomes", "hangs", "failures")
    widths = [max(len(str(r[i])) for r in rows + [header]) for i in range(len(header))]
    for r in [header] + rows:
        print("  ".join(str(col).ljust(w) for col, w in zip(r, widths)).rstrip())
    return summarize(failures)


if __name__ == "__main__":
    sys.exit(main())
