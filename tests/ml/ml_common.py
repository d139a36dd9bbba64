"""ml_common.py: what the `ml` corpus programs share (tests/ml/*.py).

- NVTX push/pop for programs whose framework has no NVTX call of its own
  (JAX, numba): CuPy's binding (cupy.cuda.nvtx), else nvtxRangePushA /
  nvtxRangePop of a libnvToolsExt found by ctypes; neither: the program stops
  with one line naming what to install (exit 3).
- The result lines every program prints, compared by tests/ml/run_ml.py
  between plain runs and runs under rangereplay:
      loss <step> <float.hex() of the step's loss>
      checksum <name> <16 hex digits: BLAKE2b, 8-byte digest, of the bytes>
- SKIP (77): the exit status of a program whose framework or GPU is missing
  (run_ml.py reports it as unavailable, never as passed).

Python 3 standard library only (the frameworks are imported by the programs).
"""
import ctypes
import glob
import hashlib
import os
import sys

SKIP = 77
RANGE_NAME = "step"


def skip(why):
    """Ends the program with status SKIP after one line on stderr naming what is missing."""
    print(f"skipped: {why}", file=sys.stderr, flush=True)
    sys.exit(SKIP)


def _libnvtoolsext_candidates():
    """Paths to try for libnvToolsExt: the loader's search, the pip wheels'
    nvidia/*/lib folders on sys.path, the CUDA toolkit."""
    names = ["libnvToolsExt.so.1", "libnvToolsExt.so"]
    found = []
    for base in sys.path:
        if base and os.path.isdir(os.path.join(base, "nvidia")):
            found += sorted(glob.glob(os.path.join(base, "nvidia", "**", "libnvToolsExt.so*"), recursive=True))
    for root in ("/usr/local/cuda/lib64", "/usr/local/cuda/targets/x86_64-linux/lib"):
        found += sorted(glob.glob(os.path.join(root, "libnvToolsExt.so*")))
    return names + found


def nvtx_functions():
    """(push, pop, source): push(name) opens an NVTX push/pop range on the
    calling thread, pop() closes the innermost one; source names the binding.
    CuPy's cupy.cuda.nvtx when CuPy imports (importing CuPy creates no CUDA
    context), else ctypes on libnvToolsExt. Exits with status 3 and one line
    on stderr when neither exists: a program whose ranges reach no profiler
    would test nothing."""
    try:
        from cupy.cuda import nvtx as cupy_nvtx  # noqa: PLC0415 (optional dependency)
        if getattr(cupy_nvtx, "available", True):
            return (lambda name: cupy_nvtx.RangePush(name)), cupy_nvtx.RangePop, "cupy.cuda.nvtx"
    except ImportError:
        pass
    errors = []
    for path in _libnvtoolsext_candidates():
        try:
            lib = ctypes.CDLL(path)
            push_a, pop_c = lib.nvtxRangePushA, lib.nvtxRangePop
        except (OSError, AttributeError) as e:
            errors.append(str(e))
            continue
        push_a.argtypes, push_a.restype = [ctypes.c_char_p], ctypes.c_int
        pop_c.argtypes, pop_c.restype = [], ctypes.c_int
        return (lambda name: push_a(name.encode())), (lambda: pop_c()), f"ctypes {path}"
    print("error: no NVTX binding: CuPy (cupy.cuda.nvtx) does not import and no libnvToolsExt.so.1 loads "
          f"({errors[-1] if errors else 'none found'}); install cupy-cuda13x or the nvidia-nvtx wheel",
          file=sys.stderr, flush=True)
    sys.exit(3)


def digest(chunks):
    """16 hex digits: BLAKE2b with an 8-byte digest over the byte strings
    `chunks` (bytes, bytearray or memoryview), in order."""
    h = hashlib.blake2b(digest_size=8)
    for c in chunks:
        h.update(c)
    return h.hexdigest()


def print_results(name, losses, chunks):
    """Prints `loss <i> <hex>` for each loss (a Python float, or anything
    float() takes exactly, e.g. a NumPy scalar) and `checksum <name> <digest>`
    of the byte strings `chunks`, then flushes stdout."""
    for i, loss in enumerate(losses):
        print(f"loss {i} {float(loss).hex()}")
    print(f"checksum {name} {digest(chunks)}", flush=True)


def import_torch(deterministic=True):
    """Imports PyTorch for a corpus program, set up to give the same bits in
    every run: CUBLAS_WORKSPACE_CONFIG=:4096:8 (set before the import, as
    cuBLAS reads it), deterministic algorithms, TF32 off, cuDNN's
    deterministic algorithms without benchmarking, seeds 1234. Skips (77)
    when PyTorch or a CUDA device is missing. Returns the torch module.
    Environment variables PyTorch reads at import (PYTORCH_CUDA_ALLOC_CONF)
    must be set before calling this."""
    os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    try:
        import torch  # noqa: PLC0415 (imported after the environment is set)
    except ImportError as e:
        skip(f"PyTorch not importable: {e}")
    if not torch.cuda.is_available():
        skip("no CUDA device visible to PyTorch")
    torch.manual_seed(1234)
    torch.cuda.manual_seed_all(1234)
    if deterministic:
        torch.use_deterministic_algorithms(True)
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cudnn.benchmark = False
    torch.backends.cudnn.deterministic = True
    return torch


def tensor_bytes(tensors):
    """The raw bytes of each tensor in `tensors` (a list of bytes objects),
    copied to the host contiguous (bfloat16 and other dtypes NumPy lacks are
    read as bytes, not converted)."""
    out = []
    for t in tensors:
        host = t.detach().contiguous().cpu()
        out.append(ctypes.string_at(host.data_ptr(), host.numel() * host.element_size()))
    return out
