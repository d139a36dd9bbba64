"""Declines and replays of the tiny test apps and examples (see declines.sh).

For each program: run it plain, then under
  rangereplay profile --nvtx-include step/ --metrics <three metrics> --output R.json -- <program>
and check that the exit codes are equal, the `checksum ` lines are equal (and
present), and every range in R.json has the expected outcome: declined with
exactly the expected decline_reason, or replayed (not declined, and more than
one pass when the metric list needs several).
"""
import json
import os
import sys
import tempfile

from e2e_common import checksums, run, tail

BUILD = sys.argv[1]
CLI = os.path.join(BUILD, "tools/cli/rangereplay")
METRICS = "smsp__inst_executed.sum,dram__bytes_read.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed"
REPLAYED = "replayed"

# (label, executable relative to the build dir, arguments, expected outcome)
CASES = [
    ("app_alloc_in_range", "tests/apps/app_alloc_in_range", ["--iterations", "2"], "allocation_in_range"),
    ("app_free_in_range", "tests/apps/app_free_in_range", ["--iterations", "2"], "free_in_range"),
    ("app_module_load_in_range", "tests/apps/app_module_load_in_range", ["--iterations", "2"],
     "module_load_in_range"),
    ("app_host_func_in_range", "tests/apps/app_host_func_in_range", ["--iterations", "2"],
     "host_function_in_range"),
    ("app_stream_capture_in_range", "tests/apps/app_stream_capture_in_range", ["--iterations", "2"],
     "stream_capture_active"),
    ("app_no_kernel_in_range", "tests/apps/app_no_kernel_in_range", ["--iterations", "2"], "no_kernel_in_range"),
    ("app_two_threads", "tests/apps/app_two_threads", ["--iterations", "2"], REPLAYED),
    ("app_malloc_async", "tests/apps/app_malloc_async", ["--iterations", "2"], REPLAYED),
    ("app_d2h_in_range", "tests/apps/app_d2h_in_range", ["--iterations", "2"], REPLAYED),
    ("app_h2d_in_range", "tests/apps/app_h2d_in_range", ["--iterations", "2"], REPLAYED),
    ("app_memset_d2d_in_range", "tests/apps/app_memset_d2d_in_range", ["--iterations", "2"], REPLAYED),
    # Virtual-memory mappings and device-mapped pinned host memory made before
    # the ranges are tracked and replayed; a cuMemMap inside a range declines.
    ("app_vmm_in_range", "tests/apps/app_vmm_in_range", ["--iterations", "2"], REPLAYED),
    ("app_vmm_map_in_range", "tests/apps/app_vmm_map_in_range", ["--iterations", "2"], "allocation_in_range"),
    ("app_mapped_host", "tests/apps/app_mapped_host", ["--iterations", "2"], REPLAYED),
    ("multistream", "examples/multistream", ["--iterations", "2", "--elements", "1048576"], REPLAYED),
    ("atomics", "examples/atomics", ["--iterations", "2", "--elements", "4194304"], REPLAYED),
    # The goal of issue 7: graph launches replay as one unit
    # (src/tool/graph_recording.cpp); globals replays once its module's
    # __device__ variables are found and restored (src/tool/module_globals.cpp).
    ("graph", "examples/graph", ["--iterations", "2", "--bytes", "64MiB"], REPLAYED),
    ("globals", "examples/globals", ["--iterations", "2"], REPLAYED),
]



def outcome_of(report):
    """One word per range: its decline_reason, or 'replayed'."""
    got = []
    for r in report.get("ranges", []):
        got.append((r.get("decline_reason") or "?") if r.get("declined") else REPLAYED)
    return got


def check(label, exe_rel, args, expected, rows, failures):
    exe = os.path.join(BUILD, exe_rel)
    if not os.access(exe, os.X_OK):
        rows.append((label, expected, "missing executable", "-"))
        failures.append(f"{label}: {exe} is missing; build its target first")
        return
    plain_rc, plain_out, plain_err = run([exe] + args)
    if plain_rc != 0:
        rows.append((label, expected, f"plain run rc={plain_rc}", "-"))
        failures.append(f"{label}: the plain run failed (rc={plain_rc}): {tail(plain_err)}")
        return
    fd, report_path = tempfile.mkstemp(prefix=f"rr_{label}_", suffix=".json")
    os.close(fd)
    os.unlink(report_path)  # the tool writes it; its absence means the tool wrote nothing
    cmd = [CLI, "profile", "--nvtx-include", "step/", "--metrics", METRICS, "--output", report_path, "--", exe] + args
    rc, out, err = run(cmd)
    same = bool(checksums(plain_out)) and checksums(plain_out) == checksums(out) and "checksums-done" in out
    same_text = "yes" if same else "NO"
    if rc != plain_rc:
        failures.append(f"{label}: exit code {rc} under the tool, {plain_rc} without: {tail(err)}")
    if not same:
        failures.append(f"{label}: checksums differ with the tool (plain {checksums(plain_out)}, "
                        f"profiled {checksums(out)}): {tail(err)}")
    try:
        with open(report_path) as f:
            report = json.load(f)
    except (OSError, ValueError) as e:
        rows.append((label, expected, f"no report (rc={rc})", same_text))
        failures.append(f"{label}: cannot read the report {report_path}: {e}; stderr: {tail(err)}")
        return
    got = outcome_of(report)
    passes = [r.get("passes", 0) for r in report.get("ranges", [])]
    summary = ",".join(sorted(set(got))) + f" x{len(got)}" if got else "no range"
    if expected == REPLAYED and got:
        summary += f" (passes {passes})"
    rows.append((label, expected, summary, same_text))
    if not got:
        failures.append(f"{label}: the report has no range; errors: {report.get('errors')}; stderr: {tail(err)}")
        return
    for r, word in zip(report["ranges"], got):
        if word != expected:
            failures.append(f"{label}: range {r.get('index')} '{r.get('name')}' is {word}, expected {expected}"
                            + (f" ({r.get('decline_detail')})" if r.get("declined") else ""))
        elif expected == REPLAYED and report.get("pass_count", 0) > 1 and r.get("passes", 0) < 2:
            failures.append(f"{label}: range {r.get('index')} ran {r.get('passes')} pass(es); the metric list "
                            f"needs {report.get('pass_count')}")
    os.unlink(report_path)


def main():
    if not os.access(CLI, os.X_OK):
        print(f"error: {CLI} is missing; build the rangereplay target first")
        return 1
    rows, failures = [], []
    for label, exe_rel, args, expected in CASES:
        check(label, exe_rel, args, expected, rows, failures)
    header = ("app", "expected", "got", "checksums equal")
    widths = [max(len(str(r[i])) for r in rows + [header]) for i in range(4)]
    for r in [header] + rows:
        print("  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip())
    if failures:
        print(f"\n{len(failures)} failure(s):")
        print("\n".join("  " + f for f in failures))
        return 1
    print("\nok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
