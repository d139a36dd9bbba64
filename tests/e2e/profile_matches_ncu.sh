#!/usr/bin/env bash
# GPU end-to-end test of the main job: on examples/stream and
# examples/gemm, `rangereplay profile --set full` prints values for every
# kernel of every range, the application's checksums equal a run without the
# tool, and per kernel smsp__inst_executed.sum equals ncu's kernel-replay value
# and dram__bytes_read.sum is within 2% of it. Exit 77 (skipped) without a GPU.
#   tests/e2e/profile_matches_ncu.sh <build-dir>
set -uo pipefail
build=${1:?build dir}
nvidia-smi -L >/dev/null 2>&1 || { echo "skipped: no NVIDIA GPU"; exit 77; }
command -v ncu >/dev/null || { echo "skipped: ncu not installed"; exit 77; }
exec python3 "$(dirname "$0")/profile_matches_ncu.py" "$build"
