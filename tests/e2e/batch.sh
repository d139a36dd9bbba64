#!/usr/bin/env bash
# GPU end-to-end test of deferred, batched replays (--batch-ranges N): the
# same values as ranges replayed one by one (--batch-ranges off), the application's results
# unchanged, and a free of a deferred range's memory replaying it first.
# Exit 1 on failure, 77 without a GPU.
#   tests/e2e/batch.sh <build-dir>
set -uo pipefail
build=${1:?build dir}
nvidia-smi -L >/dev/null 2>&1 || { echo "skipped: no NVIDIA GPU (nvidia-smi -L failed)"; exit 77; }
exec python3 "$(dirname "$0")/batch.py" "$build"
