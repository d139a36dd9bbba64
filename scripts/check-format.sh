#!/usr/bin/env bash
# Checks that every tracked C++/CUDA source and header is formatted with the
# committed .clang-format (clang-format 14): lists the files that are not and
# exits 1, with the one-line fix (scripts/format.sh). Run by .ci/run before
# the tests; needs no network and no build. See scripts/format.sh.
exec "$(dirname "$0")/format.sh" --check "$@"
