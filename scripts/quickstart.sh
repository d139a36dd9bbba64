#!/usr/bin/env bash
# The README's first command: installs dependencies, builds, and runs the main
# job on the example workload. Needs an NVIDIA GPU; without one it exits
# non-zero with a one-line reason.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "quickstart: no NVIDIA GPU found (nvidia-smi); rangereplay profiles CUDA programs on an NVIDIA GPU" >&2
  exit 1
fi
scripts/install-deps.sh
scripts/build.sh release
exec build/tools/cli/rangereplay profile --nvtx-include step/ --set full --output stream-report.json \
  -- build/examples/stream
