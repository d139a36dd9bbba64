"""The full metric set keeps the application's exit: its code, and a report the process wrote itself.

GPU end-to-end test: `examples/stream` (two small ranges) runs plain and under
`rangereplay profile --set full`. The tool's run must end with the plain run's
exit code, its checksums, and the report the process wrote at its exit (not
one the launcher rebuilt from the journal after the process died).

When it does not, the full set's metric list (metrics-probe --set full --each)
is bisected: each probe profiles the same program with part of the list, and
the smallest part that still changes the exit is printed, so the failure names
the metric or the list size that causes it (a part whose halves both keep the
exit is printed as such: the cause needs the whole part, not one metric).
When the process died of a signal and cuda-gdb is on PATH (it debugs host
code too), the full-set run is repeated under it, following the launcher's
fork into the application, and the backtrace where it stopped is printed.
Exit 1 on a changed exit, 77 without a GPU.
"""
import os
import shutil
import sys
import time

from e2e_common import checksums, run, summarize, tail, temp_report_path

BUILD = sys.argv[1]
CLI = os.path.join(BUILD, "tools/cli/rangereplay")
PROBE = os.path.join(BUILD, "tools/metrics-probe/metrics-probe")
APP = [os.path.join(BUILD, "examples/stream"), "--iterations", "2", "--bytes", "16MiB"]
JOURNAL_WARNING = "ended before writing its report"
# Probes after the first: at most this many bisection steps (402 metrics: 9).
MAX_STEPS = 12
# The whole test's time, inside CTest's limit for an e2e test (600 s): each
# step gets what is left, and one that cannot start stops with what it found.
DEADLINE = time.monotonic() + 540
sys.stdout.reconfigure(line_buffering=True)


def time_left():
    return DEADLINE - time.monotonic()


def profile(metric_args):
    """(kept, why): whether the tool's run kept the plain run's exit and wrote its own report."""
    report = temp_report_path()
    try:
        rc, out, err = run([CLI, "profile", "--nvtx-include", "step/", *metric_args, "--output", report, "--", *APP],
                           timeout=max(1, min(240, time_left())))
    finally:
        if os.path.exists(report):
            os.unlink(report)
    if rc != PLAIN_RC:
        return False, f"exit code {rc} (plain {PLAIN_RC}): {tail(err, 300)}"
    if checksums(out) != PLAIN_SUMS:
        return False, "checksums differ from the plain run"
    if JOURNAL_WARNING in err:
        return False, "the report was rebuilt from the journal: " + tail(err, 300)
    return True, "kept"


def full_set_metrics():
    rc, out, err = run([PROBE, "--set", "full", "--each"], timeout=120)
    if rc != 0:
        raise SystemExit(f"metrics-probe --set full --each failed (rc={rc}): {tail(err)}")
    names = []
    for line in out.splitlines():
        fields = line.split()
        if fields and "__" in fields[0] and fields[0] not in names:
            names.append(fields[0])
    return names


def bisect(metrics):
    """The smallest part of `metrics` (halving) whose profile still changes the exit."""
    part = metrics
    for _ in range(MAX_STEPS):
        if len(part) == 1:
            return part, "one metric"
        if time_left() < 60:
            return part, "stopped at the test's time limit"
        half = len(part) // 2
        first, second = part[:half], part[half:]
        if not profile(["--metrics", ",".join(first)])[0]:
            part = first
        elif not profile(["--metrics", ",".join(second)])[0]:
            part = second
        else:
            return part, "both halves keep the exit: the cause needs this whole part"
    return part, f"stopped after {MAX_STEPS} steps"


def backtrace():
    """The backtraces of a --set full run under cuda-gdb (last 80 lines), or why there are none."""
    gdb = shutil.which("cuda-gdb")
    if gdb is None:
        return "(no cuda-gdb on PATH for a backtrace)"
    report = temp_report_path()
    cmd = [gdb, "-batch", "-ex", "set follow-fork-mode child", "-ex", "set detach-on-fork on",
           "-ex", "set cuda break_on_launch none", "-ex", "run", "-ex", "bt 40", "-ex", "info threads",
           "--args", CLI, "profile", "--nvtx-include", "step/", "--set", "full", "--output", report, "--", *APP]
    try:
        rc, out, err = run(cmd, timeout=max(1, min(300, time_left())))
    finally:
        if os.path.exists(report):
            os.unlink(report)
    lines = [line for line in (out + "\n" + err).splitlines() if line.strip()]
    return "cuda-gdb (rc {}):\n".format(rc) + "\n".join(lines[-80:])


PLAIN_RC, plain_out, plain_err = run(APP)
PLAIN_SUMS = checksums(plain_out)
failures = []
if PLAIN_RC != 0 or not PLAIN_SUMS:
    failures.append(f"the plain run failed (rc={PLAIN_RC}): {tail(plain_err)}")
else:
    kept, why = profile(["--set", "full"])
    print(f"--set full: {why}")
    if not kept:
        # The bisection first (it names the cause), then the backtrace in the time left.
        part, verdict = bisect(full_set_metrics())
        print(f"bisection: {len(part)} metric(s) ({verdict}): {','.join(part[:12])}")
        if why.startswith("exit code ") and why.split()[2].isdigit() and int(why.split()[2]) > 128:
            print(backtrace() if time_left() > 60 else "(no time left for a backtrace)")
        shown = ",".join(part) if len(part) <= 12 else f"{len(part)} metrics from {part[0]} to {part[-1]}"
        failures.append(f"--set full changed the application's exit ({why}); smallest part that does: {shown} "
                        f"({verdict})")
sys.exit(summarize(failures))
