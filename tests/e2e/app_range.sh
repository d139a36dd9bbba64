#!/usr/bin/env bash
# GPU end-to-end test of application range replay (tests/e2e/app_range.py).
# Exit 77 (skipped) without a GPU.
#   tests/e2e/app_range.sh <build-dir>
set -uo pipefail
nvidia-smi -L >/dev/null 2>&1 || { echo "skipped: no NVIDIA GPU"; exit 77; }
exec python3 "$(dirname "$0")/app_range.py" "${1:?build dir}"
