#!/usr/bin/env bash
# GPU end-to-end test of the guidance rules (tests/e2e/guidance.py): on
# tests/apps/guidance_kernels, each of four kernels gets the finding it was
# built for (memory bound, compute bound, low occupancy limited by registers,
# uncoalesced loads); on examples/stream and examples/gemm, every kernel's
# bottleneck equals ncu's own Speed Of Light verdict. Exit 77 (skipped)
# without a GPU; without ncu the own kernels are checked and the run then
# exits 77, as the comparison with ncu did not run.
#   tests/e2e/guidance.sh <build-dir> [--keep DIR]
set -uo pipefail
nvidia-smi -L >/dev/null 2>&1 || { echo "skipped: no NVIDIA GPU"; exit 77; }
exec python3 "$(dirname "$0")/guidance.py" "${1:?build dir}" "${@:2}"
