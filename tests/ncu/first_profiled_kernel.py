"""Where ncu's first profiled kernel's extra DRAM writes come from: the copy
kernel of examples/stream (256 MiB) under ncu's kernel replay
(`--cache-control all`) with and without an NVTX filter, with --launch-skip
moving the first profiled launch to the second step, and with the multi-pass
metric list of tests/e2e/cache_control.py; then rangereplay per kernel on the
same steps. Prints, per run, the DRAM bytes read and written of the copy
kernel of every step (every 6th launch) and of the first step's six kernels.
A measurement, not a test: nothing is checked (docs/performance.md, session 13).

    python3 tests/ncu/first_profiled_kernel.py <build-dir>
"""
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "e2e"))
from e2e_common import load_report, run, tail  # noqa: E402
from ncu_compare import MULTI_PASS_THROUGHPUTS, NcuCsvError, kernel_values, ncu_csv_command, parse_ncu_csv  # noqa: E402

build = sys.argv[1]
CLI = os.path.join(build, "tools/cli/rangereplay")
BYTES = ["dram__bytes_read.sum", "dram__bytes_write.sum"]
EXTRA = list(MULTI_PASS_THROUGHPUTS)
KERNELS_PER_STEP = 6


def app(steps):
    return [os.path.join(build, "examples/stream"), "--iterations", str(steps), "--bytes", "256MiB"]


def mb(kernel):
    return " ".join(f"{m.split('__')[1]} {kernel.get(m, float('nan')) / 1e6:.2f} MB" for m in BYTES)


def show(label, kernels):
    steps = " | ".join(f"launch {i}: {mb(kernels[i])}" for i in range(0, len(kernels), KERNELS_PER_STEP))
    print(f"{label}: {len(kernels)} kernels; the copy kernel of each step: {steps}")
    print(f"{label}: the first step's kernels: " + " | ".join(mb(k) for k in kernels[:KERNELS_PER_STEP]))


def ncu(label, steps, metrics, extra, nvtx="step/"):
    rc, out, err = run(ncu_csv_command(app(steps), metrics, ["--cache-control", "all"] + extra, nvtx_include=nvtx),
                       timeout=300)
    try:
        show(label, parse_ncu_csv(out))
    except NcuCsvError as e:
        print(f"{label}: ncu rc={rc}: {e} {tail(err)}")


def ours(label, steps, metrics, env=None):
    out = tempfile.mktemp(suffix=".json")
    rc, _, err = run([CLI, "profile", "--quiet", "--nvtx-include", "step/", "--metrics", ",".join(metrics),
                      "--output", out, "--"] + app(steps), timeout=300,
                     env=None if env is None else dict(os.environ, **env))
    if rc != 0:
        print(f"{label}: rc={rc}: {tail(err)}")
        return
    report = load_report(out)
    show(f"{label} ({report['pass_count']} passes)",
         [kernel_values(k) for r in report["ranges"] for k in r["kernels"]])


ncu("ncu, 3 steps, NVTX filter", 3, BYTES, [])
ncu("ncu, 3 steps, with the throughput metrics", 3, BYTES + EXTRA, [])
ncu("ncu, 4 steps, --launch-skip 6", 4, BYTES, ["--launch-skip", str(KERNELS_PER_STEP)], nvtx=None)
ncu("ncu, 3 steps, no filter", 3, BYTES, [], nvtx=None)
ours("rangereplay, 3 steps", 3, BYTES)
ours("rangereplay, 3 steps, with the throughput metrics", 3, BYTES + EXTRA)
ours("rangereplay, 3 steps, RANGEREPLAY_COUNTER_WARMUP=0", 3, BYTES, {"RANGEREPLAY_COUNTER_WARMUP": "0"})
