#!/usr/bin/env bash
# The CPU unit tests under AddressSanitizer and UndefinedBehaviorSanitizer,
# then the parsers' libFuzzer targets. Run by .ci/run after the tests.
#   1. the `asan` preset (GCC, build-asan/): rangereplay_unit_tests with the
#      core, report and launcher libraries it links, and
#      rangereplay_tool_tests (the whole tool on the fake driver, CUPTI and
#      host kernels of tests/tool) with the tool's objects (no CUDA programs:
#      RANGEREPLAY_BUILD_GPU_TESTS=OFF), their tests run by CTest, one process
#      each as in the release run (the unit tests' script tests, unit.*, need
#      the launcher and are left to scripts/test.sh); any sanitizer report
#      fails its test;
#   2. the `fuzz` preset (clang 14, build-fuzz/: core, report and tests/fuzz),
#      then scripts/fuzz.sh: each target for SECONDS from its seed corpus.
# Two compilers because libFuzzer is clang's, and clang 14 cannot compile
# the unit tests that reach the CUDA wrappers (std::source_location).
#   scripts/sanitize.sh [seconds per fuzz target, default 20]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-20}
cmake --preset asan >/dev/null
cmake --build --preset asan -j "$(nproc)"
# detect_leaks: a leak fails too.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
log=build-asan/unit-tests.log
if ! ctest --test-dir build-asan -L unit -E '^unit\.' -j "$(nproc)" --timeout 120 --output-on-failure >"$log" 2>&1; then
  grep -E -A60 'Failed|Exception|\*\*\*' "$log" | tail -n 150 >&2
  echo "sanitize: unit tests failed under the sanitizers; the whole log: $log" >&2
  exit 1
fi
echo "sanitize: $(grep -m1 'tests passed' "$log") under AddressSanitizer and UndefinedBehaviorSanitizer"
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j "$(nproc)"
scripts/fuzz.sh "$seconds" build-fuzz
