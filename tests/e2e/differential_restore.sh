#!/usr/bin/env bash
# GPU end-to-end test of differential restore: every example and
# app_unchanged_range, run under the default (--restore differential) and
# under --restore full, gives checksums equal to a run without the tool; full
# restores the whole footprint every pass, differential at most that, and a
# range that leaves memory unchanged restores 0 bytes per pass. Also with
# --verify (one digest plan serves both). Exit 1 on any mismatch, 77 without a GPU.
#   tests/e2e/differential_restore.sh <build-dir>
set -uo pipefail
build=${1:?build dir}
nvidia-smi -L >/dev/null 2>&1 || { echo "skipped: no NVIDIA GPU (nvidia-smi -L failed)"; exit 77; }
exec python3 "$(dirname "$0")/differential_restore.py" "$build"
