#!/usr/bin/env bash
# GPU end-to-end test of declines and replays: every tests/apps
# program whose range holds an unsupported situation is declined with exactly
# its DeclineReason while its own output stays correct, and every program or
# example whose range is replayable is replayed with checksums equal to a run
# without the tool (docs/limitations.md lists which program produces which
# reason). Cases that need more GPUs than the machine has are listed as
# skipped. Prints a table; exit 1 on any mismatch, 77 without a GPU.
#   tests/e2e/declines.sh <build-dir>
set -uo pipefail
build=${1:?build dir}
nvidia-smi -L >/dev/null 2>&1 || { echo "skipped: no NVIDIA GPU (nvidia-smi -L failed)"; exit 77; }
exec python3 "$(dirname "$0")/declines.py" "$build"
