#!/usr/bin/env bash
# GPU end-to-end test of write-set snapshots: app_pool_write_set reserves 80%
# of free device memory in one cudaMalloc and sub-allocates its buffers from
# it, so the pool is one region the snapshot tiers cannot hold whole. The
# first range learns its write set (write_set_learned), every later one is
# replayed from a snapshot of the chunks it writes, proven by digests; the
# checksums equal a run without the tool, --verify finds no divergence, and
# with --rotate a range that writes a buffer no earlier range wrote declines
# write_set_exceeded while the next range over the grown write set replays.
# Exit 1 on any failure (a run past its time limit is one), 77 without a GPU.
#   tests/e2e/pool_write_set.sh <build-dir>
set -uo pipefail
build=${1:?build dir}
nvidia-smi -L >/dev/null 2>&1 || { echo "skipped: no NVIDIA GPU (nvidia-smi -L failed)"; exit 77; }
exec python3 "$(dirname "$0")/pool_write_set.py" "$build"
