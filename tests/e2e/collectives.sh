#!/usr/bin/env bash
# GPU end-to-end test of ranges holding an NCCL collective (PyTorch's NCCL,
# world size 1): they decline collective_in_range and the program's results
# are unchanged (tests/e2e/collectives.py). Exit 77 (skipped) without a GPU,
# PyTorch or NCCL.
#   tests/e2e/collectives.sh <build-dir>
set -uo pipefail
nvidia-smi -L >/dev/null 2>&1 || { echo "skipped: no NVIDIA GPU"; exit 77; }
exec python3 "$(dirname "$0")/collectives.py" "${1:?build dir}"
