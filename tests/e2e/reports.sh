#!/usr/bin/env bash
# GPU end-to-end test of the reports of real profiles: schema, diff, ncu's CSV
# readers, the installed launcher (tests/e2e/reports.py). Exit 77 (skipped)
# without a GPU.
#   tests/e2e/reports.sh <build-dir> [artifacts-dir]
set -uo pipefail
nvidia-smi -L >/dev/null 2>&1 || { echo "skipped: no NVIDIA GPU"; exit 77; }
exec python3 "$(dirname "$0")/reports.py" "${1:?build dir}" ${2:+"$2"}
