#!/usr/bin/env bash
# GPU end-to-end test of --cache-control against ncu's range replay in the
# same mode (tests/e2e/cache_control.py). Exit 77 (skipped) without a GPU.
#   tests/e2e/cache_control.sh <build-dir>
set -uo pipefail
nvidia-smi -L >/dev/null 2>&1 || { echo "skipped: no NVIDIA GPU"; exit 77; }
exec python3 "$(dirname "$0")/cache_control.py" "${1:?build dir}"
