#!/usr/bin/env bash
# GPU end-to-end test of --collectives replay with two ranks on one GPU: the
# ranks meet at every multi-pass range's end and replay it together, and a
# range one rank declines is declined by both (tests/e2e/collectives_replay.py).
# Exit 77 (skipped) without a GPU.
#   tests/e2e/collectives_replay.sh <build-dir>
set -uo pipefail
nvidia-smi -L >/dev/null 2>&1 || { echo "skipped: no NVIDIA GPU"; exit 77; }
exec python3 "$(dirname "$0")/collectives_replay.py" "${1:?build dir}"
