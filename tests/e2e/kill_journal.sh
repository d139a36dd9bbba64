#!/usr/bin/env bash
# GPU end-to-end test of the report journal: an application that ends without
# its exit handlers (SIGTERM, SIGKILL, abort, _exit, and SIGTERM sent to the
# launcher as a time limit does) after its second range still gets a report
# with both ranges, rebuilt from the journal (with --batch-ranges off, each
# range finished at its end); with --batch-ranges 2 a range still waiting for
# its batch is listed declined process_ended. Prints a
# table; exit 1 on failure, 77 without a GPU.
#   tests/e2e/kill_journal.sh <build-dir>
set -uo pipefail
build=${1:?build dir}
nvidia-smi -L >/dev/null 2>&1 || { echo "skipped: no NVIDIA GPU (nvidia-smi -L failed)"; exit 77; }
exec python3 "$(dirname "$0")/kill_journal.py" "$build"
