#!/usr/bin/env bash
# GPU end-to-end test of multi-process jobs: one report per rank, named by the
# rank's own variables (tests/e2e/multi_process.py). Exit 77 (skipped)
# without a GPU.
#   tests/e2e/multi_process.sh <build-dir>
set -uo pipefail
nvidia-smi -L >/dev/null 2>&1 || { echo "skipped: no NVIDIA GPU"; exit 77; }
exec python3 "$(dirname "$0")/multi_process.py" "${1:?build dir}"
