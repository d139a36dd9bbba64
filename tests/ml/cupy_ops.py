"""cupy_ops.py: CuPy's own machinery for the `ml` corpus
(tests/ml/run_ml.py): its device memory pool (every array below comes from
it; arrays freed in one step are reused by the next), a RawKernel compiled
with NVRTC at its first launch, cuBLAS (cupy.matmul), cuFFT (cupy.fft.fft) and
in-place updates (+=, *=).

One step:
  y = a * x + y               the RawKernel `saxpy`, in place
  A += 0.01 * (A @ B)         cuBLAS SGEMM (TF32 off: CuPy's default)
  z += 0.001 * fft(z)         cuFFT, complex64
  loss = sum(y) + sum(A) + sum(|z|)
Ranges (NVTX `step`, CuPy's binding, each ending with a device
synchronization): range 0 is the RawKernel's first launch (NVRTC compiles it,
or CuPy's kernel cache on disk gives its binary, and the module is loaded)
with the rest of the step; ranges 1..N the same step again (--steps N,
default 3). Two warm-up steps without the RawKernel (its work done by a CuPy
elementwise expression) run first, so cuBLAS's handle, cuFFT's plan, CuPy's
elementwise and reduction kernels and the pool's blocks exist before range 0.

Output: `loss <i> <hex>` per range, `checksum arrays <hex>` of the final y, A
and z. Exit 0; 77 without CuPy or a GPU; 2 on a usage error.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ml_common  # noqa: E402

N_VECTOR = 1 << 22
N_MATRIX = 1024
N_FFT = 1 << 18

SAXPY = r"""
extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
"""


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=3)
    args = p.parse_args()
    if args.steps < 1:
        p.error("--steps must be at least 1")
    try:
        import cupy as cp  # noqa: PLC0415
        import numpy as np  # noqa: PLC0415
    except ImportError as e:
        ml_common.skip(f"CuPy not importable: {e}")
    try:
        if cp.cuda.runtime.getDeviceCount() < 1:
            ml_common.skip("CuPy sees no GPU")
    except cp.cuda.runtime.CUDARuntimeError as e:
        ml_common.skip(f"CuPy sees no GPU: {e}")
    push, pop, _ = ml_common.nvtx_functions()

    rng = np.random.default_rng(21)
    x = cp.asarray(rng.standard_normal(N_VECTOR, dtype=np.float32))
    y = cp.asarray(rng.standard_normal(N_VECTOR, dtype=np.float32))
    a_mat = cp.asarray(rng.standard_normal((N_MATRIX, N_MATRIX), dtype=np.float32) / np.float32(N_MATRIX ** 0.5))
    b_mat = cp.asarray(rng.standard_normal((N_MATRIX, N_MATRIX), dtype=np.float32) / np.float32(N_MATRIX ** 0.5))
    z = cp.asarray((rng.standard_normal(N_FFT) + 1j * rng.standard_normal(N_FFT)).astype(np.complex64))
    alpha = np.float32(0.5)
    saxpy = cp.RawKernel(SAXPY, "saxpy")
    threads = 256
    blocks = (N_VECTOR + threads - 1) // threads

    def step(raw):
        if raw:
            saxpy((blocks,), (threads,), (alpha, x, y, np.int32(N_VECTOR)))
        else:
            y[...] = alpha * x + y
        c = cp.matmul(a_mat, b_mat)
        a_mat[...] += np.float32(0.01) * c
        f = cp.fft.fft(z)
        z[...] += np.complex64(0.001) * f
        return cp.sum(y) + cp.sum(a_mat) + cp.sum(cp.abs(z))

    held = step(raw=False)
    held = step(raw=False)
    cp.cuda.Device().synchronize()
    del held

    losses = []
    for _ in range(args.steps + 1):
        push(ml_common.RANGE_NAME)
        loss = step(raw=True)
        cp.cuda.Device().synchronize()
        pop()
        losses.append(loss)

    ml_common.print_results("arrays", [float(l.get()) for l in losses],
                            [cp.asnumpy(v).tobytes() for v in (y, a_mat, z)])
    return 0


if __name__ == "__main__":
    sys.exit(main())
