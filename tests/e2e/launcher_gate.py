"""The launcher gate on examples/stream.

Each case runs `rangereplay profile` with RANGEREPLAY_DEBUG=1 and checks the
exit code, the checksums against a plain run, the launcher's and the
injection's debug lines, and (when a report is written) its launcher_ms and
gate_wait_ms.

GPU end-to-end test of the launcher gate on examples/stream: the device checks run while the
application runs and it waits for them when its first range begins (report's gate_wait_ms, counted
in launcher_ms); a wrong metric name kills it before any range is profiled (exit 2, no checksums); a
process with the variable but not the descriptor does not wait. Exit 1 on any mismatch, 77 without a
GPU.
"""
import os
import sys
import tempfile
import time

from e2e_common import checksums, load_report, ReportSchemaError, run, summarize, tail, temp_report_path

BUILD = sys.argv[1]
CLI = os.path.join(BUILD, "tools/cli/rangereplay")
STREAM = os.path.join(BUILD, "examples/stream")
APP = [STREAM, "--iterations", "2", "--bytes", "64MiB"]
SELECTION = ["--nvtx-include", "step/", "--set", "single-pass"]
DEBUG_ENV = dict(os.environ, RANGEREPLAY_DEBUG="1")
LAUNCHER_STEPS = ["metric module loaded", "libcuda, CUPTI library, configuration", "application started",
                  "device probe (cuInit)", "chip name, metric names and passes"]
# The application, through python: the gate's descriptor number reused by
# /dev/null (a process that has RANGEREPLAY_GATE but not the pipe), then stream.
REUSED_FD = [sys.executable, "-c",
             "import os, sys\n"
             "fd = int(os.environ['RANGEREPLAY_GATE'].split(':')[0])\n"
             "os.close(fd)\n"
             "null = os.open('/dev/null', os.O_RDONLY)\n"
             "os.dup2(null, fd)\n"
             "os.execv(sys.argv[1], sys.argv[1:])\n"] + APP


def debug_lines(err, prefix):
    return [line[len(prefix):] for line in err.splitlines() if line.startswith(prefix)]


def launcher_steps(err):
    """The launcher's debug step names, in order (the trailing 'N ms' cut)."""
    return [line.rsplit(" ", 2)[0] for line in debug_lines(err, "rangereplay[debug] launcher: ")]


def profile(options, app, report_path=None):
    out_args = ["--output", report_path] if report_path else []
    return run([CLI, "profile"] + options + out_args + ["--"] + app, env=DEBUG_ENV)


def read_report(path):
    try:
        return load_report(path)
    except ReportSchemaError:
        raise
    except (OSError, ValueError):
        return None
    finally:
        if os.path.exists(path):
            os.unlink(path)


def check_opened(plain_out, problems):
    """Checks pass: the application takes the gate at its first cuInit, waits
    at it when its first range begins, then runs profiled."""
    path = temp_report_path("rr_gate_")
    rc, out, err = profile(SELECTION, APP, path)
    report = read_report(path)
    if rc != 0:
        problems.append(f"exit code {rc}: {tail(err)}")
    if checksums(out) != checksums(plain_out):
        problems.append(f"checksums differ (plain {checksums(plain_out)}, profiled {checksums(out)})")
    if launcher_steps(err) != LAUNCHER_STEPS:
        problems.append(f"launcher debug steps {launcher_steps(err)}, expected {LAUNCHER_STEPS}")
    injection = debug_lines(err, "rangereplay[debug] injection: ")
    expected = ["launcher gate taken, waited at when the first range begins",
                "config read, CUPTI subscribe, domains enabled ", "launcher gate opened, waited ", "report written "]
    if [next((line for line in injection if line.startswith(e)), None) is not None for e in expected] != [True] * 4:
        problems.append(f"injection debug lines {injection}, expected lines starting with {expected}")
    if report is None:
        problems.append(f"no report: {tail(err)}")
        return
    gate_ms, launcher_ms = report.get("gate_wait_ms"), report.get("launcher_ms")
    if not isinstance(gate_ms, (int, float)) or gate_ms < 0:
        problems.append(f"gate_wait_ms {gate_ms!r}")
    elif not isinstance(launcher_ms, (int, float)) or launcher_ms < gate_ms or launcher_ms <= 0:
        problems.append(f"launcher_ms {launcher_ms!r} is not the time before the start plus gate_wait_ms {gate_ms}")
    print(f"    launcher_ms {launcher_ms}, gate_wait_ms {gate_ms}")


def check_wrong_metric(plain_out, problems):
    """A wrong name found by the device checks: killed before its first range
    is profiled (at the gate, or earlier), exit 2."""
    rc, out, err = profile(["--nvtx-include", "step/", "--metrics", "dram__bytes_reed.sum"], APP)
    if rc != 2:
        problems.append(f"exit code {rc}, expected 2: {tail(err)}")
    errors = [line for line in err.splitlines() if line.startswith("rangereplay: ")]
    if len(errors) != 1 or not errors[0].startswith("rangereplay: unknown metric 'dram__bytes_reed.sum'") \
            or "dram__bytes_read.sum" not in errors[0]:
        problems.append(f"error lines {errors}, expected one naming the unknown metric and the closest names")
    if checksums(out):
        problems.append(f"the application ran past its first range: {checksums(out)}")
    if debug_lines(err, "rangereplay[debug] injection: launcher gate opened"):
        problems.append("the application passed the gate: " + tail(err))


def check_tree_killed(plain_out, problems):
    """A wrong name kills the application's whole tree: a wrapper's
    background child (a shell here; torchrun's workers alike) does not
    outlive it."""
    with tempfile.TemporaryDirectory(prefix="rr_gate_tree_") as folder:
        marker = os.path.join(folder, "ran")
        app = ["bash", "-c", f"(sleep 1; touch '{marker}') & wait"]
        rc, out, err = profile(["--nvtx-include", "step/", "--metrics", "dram__bytes_reed.sum"], app)
        if rc != 2:
            problems.append(f"exit code {rc}, expected 2: {tail(err)}")
        time.sleep(1.5)
        if os.path.exists(marker):
            problems.append("the wrapper's background child ran on after the kill")


def check_reused_fd(plain_out, problems):
    """A process with the variable but another file at the number proceeds."""
    rc, out, err = profile(SELECTION, REUSED_FD)
    if rc != 0:
        problems.append(f"exit code {rc}: {tail(err)}")
    if checksums(out) != checksums(plain_out):
        problems.append(f"checksums differ (plain {checksums(plain_out)}, profiled {checksums(out)})")
    gate = debug_lines(err, "rangereplay[debug] injection: launcher gate ")
    if gate != ["not this pipe"]:
        problems.append(f"injection gate lines {gate}, expected one 'not this pipe'")


def main():
    for path in (CLI, STREAM):
        if not os.access(path, os.X_OK):
            print(f"error: {path} is missing; build it first")
            return 1
    plain_rc, plain_out, plain_err = run(APP)
    if plain_rc != 0 or not checksums(plain_out):
        print(f"error: the plain run failed (rc={plain_rc}): {tail(plain_err)}")
        return 1
    failures = []
    for label, check in (("gate opens after the checks", check_opened),
                         ("wrong metric kills at the gate", check_wrong_metric),
                         ("wrong metric kills the whole process tree", check_tree_killed),
                         ("reused descriptor number is not read", check_reused_fd)):
        problems = []
        check(plain_out, problems)
        print(f"{label}: {'ok' if not problems else 'FAILED'}")
        failures.extend(f"{label}: {p}" for p in problems)
    return summarize(failures)


if __name__ == "__main__":
    sys.exit(main())
