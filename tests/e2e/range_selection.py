"""Range selection on examples/stream.

stream runs 4 steps of 6 kernels each (copy, mul, add, triad, dot, increment)
and no other kernel, so launch indices 6..11 are the second step. Each case
runs the example plain and under `rangereplay profile <selection>`, and checks
the exit code, the checksums, and the report's ranges: their indices, names,
that none is declined, and that each holds the step's 6 kernels in order.

GPU end-to-end test of range selection on examples/stream with 4 iterations: --skip/--range-count
and --range-list over NVTX ranges, --profiler-api, a --kernel-range window, and an NVTX domain
expression. Each run's ranges (count, indices, names, kernels) are checked, and its checksums
against a run without the tool. Exit 1 on any mismatch, 77 without a GPU.
"""
import os
import sys
import tempfile

from e2e_common import checksums, load_report, run, summarize, tail

BUILD = sys.argv[1]
CLI = os.path.join(BUILD, "tools/cli/rangereplay")
STREAM = os.path.join(BUILD, "examples/stream")
METRICS = "smsp__inst_executed.sum,dram__bytes_read.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed"
BASE_ARGS = ["--iterations", "4", "--bytes", "64MiB"]
KERNELS_PER_STEP = 6

# (label, rangereplay selection options, extra stream options, expected [(index, name)])
CASES = [
    ("nvtx skip 1 count 2", ["--nvtx-include", "step/", "--skip", "1", "--range-count", "2"], [],
     [(1, "step"), (2, "step")]),
    ("nvtx range list 0,3", ["--nvtx-include", "step/", "--range-list", "0,3"], [],
     [(0, "step"), (3, "step")]),
    ("profiler api", ["--profiler-api"], ["--profiler-api"],
     [(i, "cudaProfilerStart") for i in range(4)]),
    ("kernel range 6:12", ["--kernel-range", "6:12"], [], [(0, "kernels 6:12")]),
    ("nvtx domain D@step/", ["--nvtx-include", "D@step/"], ["--nvtx-domain", "D"],
     [(i, "step") for i in range(4)]),
    # A domain-less expression names the default domain only.
    ("default domain misses D", ["--nvtx-include", "step/"], ["--nvtx-domain", "D"], []),
]



def check(label, selection, app_options, expected, reference_kernels, failures):
    """Returns the mangled kernel names of the first profiled range (or None)."""
    app = [STREAM] + BASE_ARGS + app_options
    plain_rc, plain_out, plain_err = run(app)
    if plain_rc != 0:
        failures.append(f"{label}: the plain run failed (rc={plain_rc}): {tail(plain_err)}")
        return None
    fd, report_path = tempfile.mkstemp(prefix="rr_selection_", suffix=".json")
    os.close(fd)
    os.unlink(report_path)
    rc, out, err = run([CLI, "profile"] + selection + ["--metrics", METRICS, "--output", report_path, "--"] + app)
    problems = []
    if rc != plain_rc:
        problems.append(f"exit code {rc} under the tool, {plain_rc} without: {tail(err)}")
    if not checksums(plain_out) or checksums(plain_out) != checksums(out):
        problems.append(f"checksums differ (plain {checksums(plain_out)}, profiled {checksums(out)})")
    try:
        report = load_report(report_path)
        os.unlink(report_path)
    except (OSError, ValueError) as e:
        failures.append(f"{label}: cannot read the report: {e}; stderr: {tail(err)}")
        print(f"{label}: FAILED (no report)")
        return None
    ranges = report.get("ranges", [])
    got = [(r.get("index"), r.get("name")) for r in ranges]
    if got != expected:
        problems.append(f"ranges {got}, expected {expected}")
    first_kernels = None
    for r in ranges:
        if r.get("declined"):
            problems.append(f"range {r.get('index')} declined: {r.get('decline_reason')} ({r.get('decline_detail')})")
            continue
        names = [k.get("mangled_name") for k in r.get("kernels", [])]
        if len(names) != KERNELS_PER_STEP:
            problems.append(f"range {r.get('index')} holds {len(names)} kernels, expected {KERNELS_PER_STEP}")
        elif reference_kernels is not None and names != reference_kernels:
            problems.append(f"range {r.get('index')} kernels {names} differ from a step's {reference_kernels}")
        if first_kernels is None:
            first_kernels = names
        if report.get("pass_count", 0) > 1 and r.get("passes", 0) < 2:
            problems.append(f"range {r.get('index')} ran {r.get('passes')} pass(es); the metrics need "
                            f"{report.get('pass_count')}")
    if report.get("errors"):
        problems.append(f"report errors: {report['errors']}")
    print(f"{label}: {len(ranges)} range(s) {got}: {'ok' if not problems else 'FAILED'}")
    failures.extend(f"{label}: {p}" for p in problems)
    return first_kernels


def main():
    for path in (CLI, STREAM):
        if not os.access(path, os.X_OK):
            print(f"error: {path} is missing; build it first")
            return 1
    failures = []
    reference = None
    for label, selection, app_options, expected in CASES:
        kernels = check(label, selection, app_options, expected, reference, failures)
        if reference is None and kernels and len(kernels) == KERNELS_PER_STEP:
            reference = kernels  # a step's kernels, in order, from the first NVTX case
    return summarize(failures)


if __name__ == "__main__":
    sys.exit(main())
