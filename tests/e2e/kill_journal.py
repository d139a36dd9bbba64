"""Reports rebuilt from the journal of a process that died.

GPU end-to-end test of the report journal: an application that ends without its exit handlers
(SIGTERM, SIGKILL, abort, _exit, and SIGTERM sent to the launcher as a time limit does) after its
second range still gets a report with both ranges, rebuilt from the journal (with --batch-ranges
off, each range finished at its end); with --batch-ranges 2 a range still waiting for its batch is
listed declined process_ended. Prints a table; exit 1 on failure, 77 without a GPU.
"""
import os
import signal
import subprocess
import sys
import tempfile
import threading

from e2e_common import checksums, kill_tree, load_report, run, tail, temp_report_path

BUILD = sys.argv[1]
CLI = os.path.join(BUILD, "tools/cli/rangereplay")
APP = os.path.join(BUILD, "tests/apps/app_kill_after_ranges")
# A multi-pass list: each range is replayed, and batching applies.
METRIC_SET = "basic"
REBUILT = "rebuilt from its journal"


def command(report_path, app_args, batch="off"):
    """The launcher's command. `batch`: its --batch-ranges; "off" (the
    immediate path) by default, so that each range is finished at its own end
    and a kill right after the last range loses none (batched by default,
    every range would still wait for its batch when the process dies)."""
    return [CLI, "profile", "--nvtx-include", "step/", "--set", METRIC_SET, "--output", report_path,
            "--batch-ranges", batch, "--", APP, *app_args]


def report_at(path):
    if not os.path.exists(path):
        return None
    try:
        return load_report(path)
    finally:
        os.unlink(path)


def profile(app_args, batch="off"):
    path = temp_report_path("rr_kill_")
    rc, out, err = run(command(path, app_args, batch), timeout=300)
    return rc, out, err, report_at(path)


def profile_then_term_launcher(app_args):
    """Starts the launcher, waits (at most 240 s) for the application's "ranges
    done", then sends the launcher SIGTERM, as `timeout` or a Slurm time limit
    does."""
    path = temp_report_path("rr_kill_")
    with tempfile.TemporaryFile(mode="w+") as err_file:
        p = subprocess.Popen(command(path, app_args), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=err_file, text=True, start_new_session=True)
        out_lines = []
        ready = threading.Event()

        def read_stdout():
            for line in p.stdout:
                out_lines.append(line)
                if line.startswith("ranges done"):
                    ready.set()
            ready.set()

        reader = threading.Thread(target=read_stdout, daemon=True)
        reader.start()
        ready.wait(timeout=240)
        p.send_signal(signal.SIGTERM)
        try:
            p.wait(timeout=120)
        except subprocess.TimeoutExpired:
            kill_tree(p)
            p.wait()
        reader.join(timeout=10)
        err_file.seek(0)
        err = err_file.read()
    return p.returncode, "".join(out_lines), err, report_at(path)


def check(label, expected_rc, rc, out, err, rep, plain_out, want, failures):
    """`want`: per range, None for replayed or the decline reason expected."""
    if rc != expected_rc:
        failures.append(f"{label}: exit code {rc}, expected {expected_rc}: {tail(err)}")
    if checksums(out) != checksums(plain_out):
        failures.append(f"{label}: results differ with the tool: {tail(err)}")
    if rep is None:
        failures.append(f"{label}: no report: {tail(err)}")
        return "no report"
    got = [r["decline_reason"] if r["declined"] else None for r in rep["ranges"]]
    if got != want:
        failures.append(f"{label}: ranges {got}, expected {want}")
    if not any(REBUILT in e for e in rep["errors"]):
        failures.append(f"{label}: the report does not say it was rebuilt from the journal: {rep['errors']}")
    replayed = [r for r in rep["ranges"] if not r["declined"]]
    if any(not r["kernels"] or not r["kernels"][0]["metrics"] for r in replayed):
        failures.append(f"{label}: a replayed range has no metric values")
    return f"{len(rep['ranges'])} ranges {got}"


def main():
    for path in (CLI, APP):
        if not os.access(path, os.X_OK):
            print(f"FAIL: {path} is missing; build it first")
            return 1
    failures = []
    rows = []
    plain_rc, plain_out, plain_err = run([APP, "--ranges", "2", "--end", "exit"])
    if plain_rc != 7 or not checksums(plain_out):
        print(f"FAIL: the plain run failed (rc={plain_rc}): {tail(plain_err)}")
        return 1
    for how, expected_rc in (("sigterm", 128 + signal.SIGTERM), ("sigkill", 128 + signal.SIGKILL),
                             ("abort", 128 + signal.SIGABRT), ("exit", 7)):
        rc, out, err, rep = profile(["--ranges", "2", "--end", how])
        rows.append((how, rc, check(how, expected_rc, rc, out, err, rep, plain_out, [None, None], failures)))
    rc, out, err, rep = profile_then_term_launcher(["--ranges", "2", "--end", "wait"])
    rows.append(("launcher SIGTERM", rc, check("launcher SIGTERM", 128 + signal.SIGTERM, rc, out, err, rep,
                                                plain_out, [None, None], failures)))
    plain3_rc, plain3_out, _ = run([APP, "--ranges", "3", "--end", "exit"])
    # Batches of two: the first two ranges are replayed together, the third
    # still waits for its batch when the process is killed.
    rc, out, err, rep = profile(["--ranges", "3", "--end", "sigkill"], batch="2")
    rows.append(("batch 2, sigkill", rc, check("batch 2, sigkill", 128 + signal.SIGKILL, rc, out, err, rep,
                                                plain3_out, [None, None, "process_ended"], failures)))
    print(f"{'ending':<20} {'rc':>4}  ranges")
    for how, rc, what in rows:
        print(f"{how:<20} {str(rc):>4}  {what}")
    for f in failures:
        print("FAIL:", f)
    print("kill_journal:", "FAIL" if failures else "PASS")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
