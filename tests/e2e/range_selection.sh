#!/usr/bin/env bash
# GPU end-to-end test of range selection on examples/stream with 4
# iterations: --skip/--range-count and --range-list over NVTX ranges,
# --profiler-api, a --kernel-range window, and an NVTX domain expression. Each
# run's ranges (count, indices, names, kernels) are checked, and its checksums
# against a run without the tool. Exit 1 on any mismatch, 77 without a GPU.
#   tests/e2e/range_selection.sh <build-dir>
set -uo pipefail
build=${1:?build dir}
nvidia-smi -L >/dev/null 2>&1 || { echo "skipped: no NVIDIA GPU (nvidia-smi -L failed)"; exit 77; }
exec python3 "$(dirname "$0")/range_selection.py" "$build"
