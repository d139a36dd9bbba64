"""numba_atomics.py: numba-cuda kernels with atomics for the `ml` corpus
(tests/ml/run_ml.py).

One step over 2^24 uint32 values:
  clear      hist[:] = 0 (a kernel of ours)
  histogram  cuda.atomic.add(hist, value % BINS, 1) from a grid-stride loop,
             cuda.atomic.max(peak, 0, hist count seen) on a second array
  advance    value = value * 1664525 + 1013904223 (mod 2^32), in place
Integer atomics make the histogram independent of the order threads run in,
so the results are the same bits in every run. The loss of a step is the
chi-square statistic of its histogram against the uniform one, computed on
the host after the range.

Ranges (NVTX `step`, CuPy's binding or libnvToolsExt, each ending with
cuda.synchronize()): --steps N, default 3. One warm-up step (numba compiles
each kernel at its first launch and loads its module) runs before them.

Output: `loss <i> <hex>` per range, `checksum data <hex>` of the final values,
histogram and peak. Exit 0; 77 without numba-cuda or a GPU; 2 on a usage
error.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ml_common  # noqa: E402

N_VALUES = 1 << 24
BINS = 1024


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=3)
    args = p.parse_args()
    if args.steps < 1:
        p.error("--steps must be at least 1")
    try:
        import numpy as np  # noqa: PLC0415
        # numba-cuda 0.x registers an overload for np.row_stack, which NumPy 2.5
        # removed (an alias of vstack): its import fails without the alias.
        if not hasattr(np, "row_stack"):
            np.row_stack = np.vstack
        from numba import cuda  # noqa: PLC0415
    except ImportError as e:
        ml_common.skip(f"numba-cuda not importable: {e}")
    if not cuda.is_available():
        ml_common.skip("numba sees no CUDA GPU")
    push, pop, _ = ml_common.nvtx_functions()

    @cuda.jit
    def clear(hist, peak):
        i = cuda.grid(1)
        if i < hist.size:
            hist[i] = 0
        if i == 0:
            peak[0] = 0

    @cuda.jit
    def histogram(values, hist, peak):
        i = cuda.grid(1)
        stride = cuda.gridsize(1)
        while i < values.size:
            b = values[i] % BINS
            seen = cuda.atomic.add(hist, b, 1)
            cuda.atomic.max(peak, 0, seen + 1)
            i += stride

    @cuda.jit
    def advance(values):
        i = cuda.grid(1)
        stride = cuda.gridsize(1)
        while i < values.size:
            values[i] = values[i] * np.uint32(1664525) + np.uint32(1013904223)
            i += stride

    rng = np.random.default_rng(17)
    values = cuda.to_device(rng.integers(0, 2**32, N_VALUES, dtype=np.uint32))
    hist = cuda.device_array(BINS, dtype=np.int32)
    peak = cuda.device_array(1, dtype=np.int32)
    threads = 256
    blocks = 4 * 132

    def step():
        clear[(BINS + threads - 1) // threads, threads](hist, peak)
        histogram[blocks, threads](values, hist, peak)
        advance[blocks, threads](values)

    step()
    cuda.synchronize()

    losses = []
    expected = N_VALUES / BINS
    for _ in range(args.steps):
        push(ml_common.RANGE_NAME)
        step()
        cuda.synchronize()
        pop()
        counts = hist.copy_to_host().astype(np.float64)
        if int(counts.sum()) != N_VALUES:
            print(f"error: the histogram counts {int(counts.sum())} values, not {N_VALUES}", file=sys.stderr)
            return 1
        losses.append(float(((counts - expected) ** 2).sum() / expected))

    ml_common.print_results("data", losses, [values.copy_to_host().tobytes(), hist.copy_to_host().tobytes(),
                                             peak.copy_to_host().tobytes()])
    return 0


if __name__ == "__main__":
    sys.exit(main())
