#!/usr/bin/env bash
# GPU end-to-end test of --verify: integer workloads replay without
# divergence; floating-point atomics may diverge and are reported, not fatal;
# checksums stay equal to a plain run. Exit 77 (skipped) without a GPU.
#   tests/e2e/verify.sh <build-dir>
set -uo pipefail
nvidia-smi -L >/dev/null 2>&1 || { echo "skipped: no NVIDIA GPU"; exit 77; }
exec python3 "$(dirname "$0")/verify.py" "${1:?build dir}"
