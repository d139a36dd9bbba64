#!/usr/bin/env bash
# GPU end-to-end test of the launcher gate on examples/stream: the device
# checks run while the application runs and it waits for them when its first
# range begins (report's gate_wait_ms, counted in launcher_ms); a wrong metric
# name kills it before any range is profiled (exit 2, no checksums); a
# process with the variable but not the descriptor does not wait. Exit 1 on
# any mismatch, 77 without a GPU.
#   tests/e2e/launcher_gate.sh <build-dir>
set -uo pipefail
build=${1:?build dir}
nvidia-smi -L >/dev/null 2>&1 || { echo "skipped: no NVIDIA GPU (nvidia-smi -L failed)"; exit 77; }
exec python3 "$(dirname "$0")/launcher_gate.py" "$build"
