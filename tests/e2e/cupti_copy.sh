#!/usr/bin/env bash
# GPU end-to-end regression test: an application that loads its own copy of
# libcupti before CUDA starts (PyTorch does, for Kineto) must still have its
# NVTX ranges seen. The tool then runs on that copy, and NVTX must be pointed
# at it rather than at the toolkit's copy the launcher named (before the fix,
# no range matched under PyTorch). Exit 1 on failure, 77 without a GPU.
#   tests/e2e/cupti_copy.sh <build-dir>
set -uo pipefail
build=${1:?build dir}
nvidia-smi -L >/dev/null 2>&1 || { echo "skipped: no NVIDIA GPU (nvidia-smi -L failed)"; exit 77; }
exec python3 "$(dirname "$0")/cupti_copy.py" "$build"
