#!/usr/bin/env bash
# Line coverage of src/tool by the CPU unit tests (GCC's gcov, read by gcovr).
# Run by .ci/run after the sanitizers; prints, fails on no threshold.
#   1. the `coverage` preset (GCC --coverage -O0, build-coverage/):
#      rangereplay_unit_tests with the libraries it links, the tool's
#      CUDA-free part (rangereplay_tool_logic) among them;
#      rangereplay_tool_tests, the tool's CUDA-bound objects
#      (rangereplay_tool) linked with the fake driver, CUPTI subscription,
#      host kernels and counter backend of tests/tool/fakes; and
#      rangereplay_tool_cupti (the counters' CUPTI side, which only the GPU
#      tests run), compiled, not linked, so that its lines count as not
#      executed rather than being left out of the total. The preset builds
#      the tool's CUDA kernels for one architecture only: no test here
#      links them;
#   2. the unit tests run by CTest (`-L unit` without the `unit.*` script
#      tests: those run the launcher, Python and shell checks, and the
#      browser);
#   3. gcovr: one table of src/tool's files (lines gcov counts as
#      executable, lines executed, percent) and the total.
#   scripts/coverage.sh
# Exits non-zero only when the build, a test or gcovr fails; counters of an
# earlier run are cleared first. Needs gcovr (scripts/install-deps.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v gcovr >/dev/null || { echo "coverage: gcovr is missing: run scripts/install-deps.sh" >&2; exit 1; }
dir=build-coverage
jobs=$(nproc)
cmake --preset coverage >/dev/null
cmake --build --preset coverage -j "$jobs"
find "$dir" -name '*.gcda' -delete
log=$dir/unit-tests.log
if ! ctest --test-dir "$dir" -L unit -E '^unit\.' -j "$jobs" --timeout 120 --output-on-failure >"$log" 2>&1; then
  grep -E -A40 'Failed|Exception|\*\*\*' "$log" | tail -n 100 >&2
  echo "coverage: unit tests failed; the whole log: $log" >&2
  exit 1
fi
echo "coverage: $(grep -m1 'tests passed' "$log")"
summary=$dir/tool-coverage.json
gcovr --root . --object-directory "$dir" --filter 'src/tool/' -j "$jobs" --json-summary "$summary" >/dev/null
python3 - "$summary" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
rows = sorted(s["files"], key=lambda f: f["filename"])
width = max([len(f["filename"]) for f in rows] + [len("total")])
print(f"{'src/tool file':<{width}}  {'lines':>6}  {'run':>6}  {'cover':>6}")
for f in rows:
    print(f"{f['filename']:<{width}}  {f['line_total']:>6}  {f['line_covered']:>6}  {f['line_percent']:>5.1f}%")
print(f"{'total':<{width}}  {s['line_total']:>6}  {s['line_covered']:>6}  {s['line_percent']:>5.1f}%")
PY
