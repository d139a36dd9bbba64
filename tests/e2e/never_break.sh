#!/usr/bin/env bash
# GPU end-to-end test of programs the tool must never break: a stream capture
# open when a --kernel-range window begins (tests/apps/capture_open_at_range,
# in each capture mode, with a conditional node, from a second thread), and
# host threads driving their own streams and cuBLAS handles on managed memory
# (tests/apps/threads_managed_cublas), 20 runs in a row. Exit codes and
# checksums must equal a run without the tool, range outcomes follow the
# capture program's launch layout, and no run may hang: a run past its time
# limit is killed with its process group and reported with the stage it was
# in. Prints a table; exit 1 on any failure, 77 without a GPU.
#   tests/e2e/never_break.sh <build-dir>
set -uo pipefail
build=${1:?build dir}
nvidia-smi -L >/dev/null 2>&1 || { echo "skipped: no NVIDIA GPU (nvidia-smi -L failed)"; exit 77; }
exec python3 "$(dirname "$0")/never_break.py" "$build"
