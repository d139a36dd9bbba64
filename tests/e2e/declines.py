"""Declines and replays of the tiny test apps and examples.

For each case: run the program plain, then under
  rangereplay profile --nvtx-include step/ --metrics <three metrics> [tool args] --output R.json -- <program>
and check that the exit codes are equal, the `checksum ` lines are equal (and
present), and the ranges in R.json have the expected outcomes.

A case's expected outcome is either one word every range must have (a
decline_reason, or 'replayed': not declined, and more than one pass when the
metric list needs several), or a dict {outcome: count} the report's ranges
must match exactly (for programs whose ranges differ: an overlapping range
next to the range it overlaps, a last range left open). A case may add tool
arguments (a --set or --metrics among them replaces the default metric list),
need a minimum number of GPUs (fewer: the case is listed as skipped, not
failed), or run the program under the injection library directly, configured
through its environment (RANGEREPLAY_CONFIG), to reach a decline the launcher
prevents by checking its arguments first (an unknown metric name).

Every DeclineReason a program can produce on one machine has a case here,
except write_set_learned and write_set_exceeded (e2e.pool_write_set: a pool
of most of the device's memory); docs/limitations.md lists the others and why
(counters_not_permitted, replay_failed, collective_in_range,
counter_ranges_mismatch).

GPU end-to-end test of declines and replays: every tests/apps program whose range holds an
unsupported situation is declined with exactly its DeclineReason while its own output stays correct,
and every program or example whose range is replayable is replayed with checksums equal to a run
without the tool (docs/limitations.md lists which program produces which reason). Cases that need
more GPUs than the machine has are listed as skipped. Prints a table; exit 1 on any mismatch, 77
without a GPU.
"""
import ctypes
import os
import sys
import tempfile
from collections import Counter

from e2e_common import checksums, injection_environment, load_report, push_pop_range, run, summarize, tail

BUILD = sys.argv[1]
CLI = os.path.join(BUILD, "tools/cli/rangereplay")
METRICS = "smsp__inst_executed.sum,dram__bytes_read.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed"
REPLAYED = "replayed"
# A well-formed metric name no chip has: the profiled process declines every
# range with unknown_metric (the launcher would refuse it with exit 2).
UNKNOWN_METRIC = "rangereplay_test__no_such_counter.sum"


def case(label, exe_rel, args, expected, tool_args=(), min_gpus=1, injection_metrics=None):
    """label: the table's name; exe_rel: executable relative to the build dir;
    args: its arguments; expected: an outcome word or {outcome: count};
    tool_args: added to `rangereplay profile`; min_gpus: GPUs the case needs;
    injection_metrics: run under the injection library directly with this
    metric list instead of through the launcher."""
    return {"label": label, "exe": exe_rel, "args": list(args), "expected": expected, "tool_args": list(tool_args),
            "min_gpus": min_gpus, "injection_metrics": injection_metrics}


TWO = ["--iterations", "2"]

CASES = [
    # One program per decline reason, each producing exactly that reason.
    case("app_alloc_in_range --managed", "tests/apps/app_alloc_in_range", TWO + ["--managed"], "allocation_in_range"),
    # Device memory from cudaMalloc inside the range keeps its bytes when allocated: it replays.
    case("app_alloc_in_range", "tests/apps/app_alloc_in_range", TWO, REPLAYED),
    # A cudaFree after the range's kernels: replayed at the free's entry; work after it declines.
    case("app_free_in_range", "tests/apps/app_free_in_range", TWO, REPLAYED),
    case("app_free_in_range --work-after-free", "tests/apps/app_free_in_range", TWO + ["--work-after-free"],
         "free_in_range"),
    # A texture object made, read through and destroyed inside the range.
    case("app_texture_destroyed_in_range", "tests/apps/app_texture_destroyed_in_range", TWO, "free_in_range"),
    # Every case runs under CUDA's default (lazy) module loading: a module
    # loaded inside a range declines only when it has __device__ variables.
    # The PTX module loaded in this range has one.
    case("app_module_load_in_range", "tests/apps/app_module_load_in_range", TWO, "module_load_in_range"),
    case("app_module_unload_in_range", "tests/apps/app_module_unload_in_range", TWO, "module_unload_in_range"),
    # cuMemcpy between two pageable host buffers: no tracked address on either side.
    case("app_unsupported_api_in_range", "tests/apps/app_unsupported_api_in_range", TWO, "unsupported_api"),
    # A whole capture inside each range. A one-pass list counts pass 0 as the
    # program runs, without an entry snapshot: the first range declines and
    # the second, of the same name, is snapshotted and replayed for its pass.
    # With several passes every range is replayed: per-kernel values record
    # pass 0 without counters anyway; whole-range values count pass 0 until
    # the capture begins, stop its counters then and replay every pass (the
    # CUPTI object is replaced after that incomplete pass).
    case("app_stream_capture_in_range", "tests/apps/app_stream_capture_in_range", TWO, REPLAYED),
    case("app_stream_capture_in_range, one-pass list", "tests/apps/app_stream_capture_in_range", TWO,
         {"stream_capture_active": 1, REPLAYED: 1}, tool_args=["--metrics", "smsp__inst_executed.sum"]),
    case("app_stream_capture_in_range, --set basic", "tests/apps/app_stream_capture_in_range", TWO, REPLAYED,
         tool_args=["--set", "basic"]),
    case("app_stream_capture_in_range, --set basic --range-metrics whole", "tests/apps/app_stream_capture_in_range",
         TWO, REPLAYED, tool_args=["--set", "basic", "--range-metrics", "whole"]),
    case("app_host_func_in_range", "tests/apps/app_host_func_in_range", TWO, "host_function_in_range"),
    # 65537 kernel launches per range: one past kMaxRecordedOperations.
    case("app_too_many_operations", "tests/apps/app_too_many_operations", TWO, "too_many_operations"),
    # 17 x 64 MiB host-to-device copies per range: past kMaxCapturedHostBytes (1 GiB).
    case("app_host_data_too_large", "tests/apps/app_host_data_too_large", TWO, "host_data_too_large"),
    # Snapshot caps far below the app's footprint (three 256 KiB buffers, two states).
    case("app_h2d_in_range, 64KiB snapshot caps", "tests/apps/app_h2d_in_range", TWO, "snapshot_does_not_fit",
         tool_args=["--snapshot-device-limit", "64KiB", "--snapshot-host-limit", "64KiB"]),
    # The counter image of 4096 kernels with every metric of --set full (~3.4 MB
    # per kernel on GH100) exceeds the 2 GiB cap (RangeProfilerSession::kMaxImageBytes).
    case("app_too_many_operations --launches 4096, --set full", "tests/apps/app_too_many_operations",
         TWO + ["--launches", "4096"], "counters_unavailable", tool_args=["--set", "full"]),
    case("app_no_kernel_in_range", "tests/apps/app_no_kernel_in_range", TWO, "no_kernel_in_range"),
    case("app_multiple_contexts", "tests/apps/app_multiple_contexts", TWO, "multiple_contexts"),
    # Per iteration: a range begun on a new thread before its first CUDA call
    # declines alone; the main thread's range after it replays.
    case("app_no_context_range", "tests/apps/app_no_context_range", TWO, {"no_context": 2, REPLAYED: 2}),
    case("app_multiple_devices", "tests/apps/app_multiple_devices", TWO, "multiple_devices", min_gpus=2),
    case("app_d2h_in_range, injection with an unknown metric", "tests/apps/app_d2h_in_range", TWO, "unknown_metric",
         injection_metrics=["smsp__inst_executed.sum", UNKNOWN_METRIC]),
    # Per iteration: the main thread's range replays, the worker's `step` overlaps it.
    case("app_overlapping_range", "tests/apps/app_overlapping_range", TWO,
         {REPLAYED: 2, "overlapping_range": 2}),
    # The first range closes and replays; the program exits inside the second.
    case("app_range_not_closed", "tests/apps/app_range_not_closed", TWO, {REPLAYED: 1, "range_not_closed": 1}),
    case("app_graph_destroyed_in_range", "tests/apps/app_graph_destroyed_in_range", TWO, "graph_destroyed_in_range"),
    # A graph launch whose graph holds an allocation and a free node
    # (captured cudaMallocAsync/cudaFreeAsync): its allocation node declines.
    case("app_graph_memory_nodes", "tests/apps/app_graph_memory_nodes", TWO, "allocation_in_range"),
    # A kernel name shared by a module with a __device__ variable and one
    # without: the variable is not found in the second module, so there is
    # nothing of it to snapshot, and the range replays. (Its own module, the
    # one with the variable, is loaded before the ranges under lazy loading
    # too: cudaMemcpyToSymbol needs the variable's device address; so is
    # globals's, the same way.)
    case("app_module_globals_in_range", "tests/apps/app_module_globals_in_range", TWO, REPLAYED),
    # Replayable programs.
    case("app_two_threads", "tests/apps/app_two_threads", TWO, REPLAYED),
    case("app_malloc_async", "tests/apps/app_malloc_async", TWO, REPLAYED),
    case("app_d2h_in_range", "tests/apps/app_d2h_in_range", TWO, REPLAYED),
    case("app_h2d_in_range", "tests/apps/app_h2d_in_range", TWO, REPLAYED),
    case("app_memset_d2d_in_range", "tests/apps/app_memset_d2d_in_range", TWO, REPLAYED),
    # Virtual-memory mappings and device-mapped pinned host memory made before
    # the ranges are tracked and replayed; a cuMemMap inside a range declines.
    case("app_vmm_in_range", "tests/apps/app_vmm_in_range", TWO, REPLAYED),
    case("app_vmm_map_in_range", "tests/apps/app_vmm_map_in_range", TWO, "allocation_in_range"),
    case("app_mapped_host", "tests/apps/app_mapped_host", TWO, REPLAYED),
    # The same through a CUDA graph: its kernel nodes' arguments (read at
    # instantiation, re-read after cudaGraphExecKernelNodeSetParams) point at
    # the pinned buffers, captured at the graph launch and restored.
    case("app_graph_mapped_host", "tests/apps/app_graph_mapped_host", TWO, REPLAYED),
    case("multistream", "examples/multistream", TWO + ["--elements", "1048576"], REPLAYED),
    case("atomics", "examples/atomics", TWO + ["--elements", "4194304"], REPLAYED),
    # Graph launches replay as one unit
    # (src/tool/graph_recording.cpp); globals replays once its module's
    # __device__ variables are found and restored (src/tool/module_globals.cpp).
    case("graph", "examples/graph", TWO + ["--bytes", "64MiB"], REPLAYED),
    case("globals", "examples/globals", TWO, REPLAYED),
]


def outcome_of(report):
    """One word per range: its decline_reason, or 'replayed'."""
    got = []
    for r in report.get("ranges", []):
        got.append((r.get("decline_reason") or "?") if r.get("declined") else REPLAYED)
    return got


def expected_text(expected):
    if isinstance(expected, dict):
        return " + ".join(f"{word} x{count}" for word, count in sorted(expected.items()))
    return expected


def gpu_count():
    """Devices this process's CUDA sees (CUDA_VISIBLE_DEVICES applies): from
    the driver API through ctypes, else the lines of `nvidia-smi -L`."""
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
        count = ctypes.c_int(0)
        if cuda.cuInit(0) == 0 and cuda.cuDeviceGetCount(ctypes.byref(count)) == 0:
            return count.value
    except OSError:
        pass
    rc, out, _ = run(["nvidia-smi", "-L"])
    return sum(1 for line in out.splitlines() if line.startswith("GPU ")) if rc == 0 else 0


def run_profiled(c, exe, report_path, tmp):
    """Runs case `c` under the tool; returns (rc, stdout, stderr)."""
    if c["injection_metrics"] is None:
        metric_args = [] if any(a in ("--metrics", "--set") for a in c["tool_args"]) else ["--metrics", METRICS]
        cmd = ([CLI, "profile", "--nvtx-include", "step/"] + metric_args + c["tool_args"] +
               ["--output", report_path, "--", exe] + c["args"])
        return run(cmd)
    # What the launcher hands the injection (launcher.cpp), with a metric list
    # it would have refused.
    config = {"nvtx_include": [push_pop_range("step")], "metrics": c["injection_metrics"], "report_path": report_path,
              "quiet": False, "command": [exe] + c["args"]}
    return run([exe] + c["args"], env=injection_environment(BUILD, config, tmp))


def check(c, gpus, rows, failures):
    label, expected = c["label"], c["expected"]
    want = expected_text(expected)
    if gpus < c["min_gpus"]:
        rows.append((label, want, f"skipped (needs {c['min_gpus']} GPUs)", "-"))
        return
    exe = os.path.join(BUILD, c["exe"])
    if not os.access(exe, os.X_OK):
        rows.append((label, want, "missing executable", "-"))
        failures.append(f"{label}: {exe} is missing; build its target first")
        return
    plain_rc, plain_out, plain_err = run([exe] + c["args"])
    if plain_rc != 0:
        rows.append((label, want, f"plain run rc={plain_rc}", "-"))
        failures.append(f"{label}: the plain run failed (rc={plain_rc}): {tail(plain_err)}")
        return
    with tempfile.TemporaryDirectory(prefix="rr_declines_") as tmp:
        # The tool writes the report; its absence means the tool wrote nothing.
        report_path = os.path.join(tmp, "report.json")
        try:
            rc, out, err = run_profiled(c, exe, report_path, tmp)
        except RuntimeError as e:
            rows.append((label, want, "cannot run", "-"))
            failures.append(f"{label}: {e}")
            return
        same = bool(checksums(plain_out)) and checksums(plain_out) == checksums(out) and "checksums-done" in out
        same_text = "yes" if same else "NO"
        if rc != plain_rc:
            failures.append(f"{label}: exit code {rc} under the tool, {plain_rc} without: {tail(err)}")
        if not same:
            failures.append(f"{label}: checksums differ with the tool (plain {checksums(plain_out)}, "
                            f"profiled {checksums(out)}): {tail(err)}")
        try:
            report = load_report(report_path)
        except (OSError, ValueError) as e:
            rows.append((label, want, f"no report (rc={rc})", same_text))
            failures.append(f"{label}: cannot read the report {report_path}: {e}; stderr: {tail(err)}")
            return
    got = outcome_of(report)
    passes = [r.get("passes", 0) for r in report.get("ranges", [])]
    summary = " + ".join(f"{word} x{n}" for word, n in sorted(Counter(got).items())) if got else "no range"
    if REPLAYED in got:
        summary += f" (passes {passes})"
    rows.append((label, want, summary, same_text))
    if not got:
        failures.append(f"{label}: the report has no range; errors: {report.get('errors')}; stderr: {tail(err)}")
        return
    details = "; ".join(f"range {r.get('index')}: {r.get('decline_reason')} ({r.get('decline_detail')})"
                        for r in report["ranges"] if r.get("declined"))
    if isinstance(expected, dict):
        if Counter(got) != Counter(expected):
            failures.append(f"{label}: range outcomes {dict(Counter(got))}, expected {expected}"
                            + (f"; declines: {details}" if details else ""))
    else:
        for r, word in zip(report["ranges"], got):
            if word != expected:
                failures.append(f"{label}: range {r.get('index')} '{r.get('name')}' is {word}, expected {expected}"
                                + (f" ({r.get('decline_detail')})" if r.get("declined") else ""))
    for r, word in zip(report["ranges"], got):
        if word == REPLAYED and report.get("pass_count", 0) > 1 and r.get("passes", 0) < 2:
            failures.append(f"{label}: range {r.get('index')} ran {r.get('passes')} pass(es); the metric list "
                            f"needs {report.get('pass_count')}")


def main():
    if not os.access(CLI, os.X_OK):
        print(f"error: {CLI} is missing; build the rangereplay target first")
        return 1
    gpus = gpu_count()
    rows, failures = [], []
    for c in CASES:
        check(c, gpus, rows, failures)
    header = ("app", "expected", "got", "checksums equal")
    widths = [max(len(str(r[i])) for r in rows + [header]) for i in range(4)]
    for r in [header] + rows:
        print("  ".join(str(col).ljust(w) for col, w in zip(r, widths)).rstrip())
    return summarize(failures)


if __name__ == "__main__":
    sys.exit(main())
