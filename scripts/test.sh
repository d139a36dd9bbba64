#!/usr/bin/env bash
# The README's test command: installs dependencies, builds, runs every test.
# On a machine without a GPU the tests labelled `gpu` are reported as skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh release
ctest --preset release -j "$(nproc)" "$@"
