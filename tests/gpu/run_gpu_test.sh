#!/usr/bin/env bash
# Runs one GPU test executable, or reports it skipped (77) where no NVIDIA
# driver is installed: without libcuda.so.1 the executable could not even load.
if ! nvidia-smi -L >/dev/null 2>&1; then
  echo "skipped: no NVIDIA GPU or driver on this machine"
  exit 77
fi
exec "$@"
