#!/usr/bin/env bash
# `metrics-probe --chip CHIP --sets` succeeds for every chip CUPTI's profiler
# host API knows from Ampere on (the chips named in the probe's own message for
# an unknown chip, less the GV, GV11B and TU chips before Ampere): exit 0 and
# one row per built-in set, each with at least one metric and one pass. No GPU
# needed; about 0.3 s per chip.
#   tests/scripts/metrics_probe_sets_test.sh <build-dir>
set -uo pipefail
build=${1:?build dir}
probe=$build/tools/metrics-probe/metrics-probe
[[ -x $probe ]] || { echo "FAIL: no $probe"; exit 1; }
message=$("$probe" --chip NO_SUCH_CHIP --sets 2>&1)
[[ $message == *"supported chips: "* ]] || { echo "FAIL: no chip list in: $message"; exit 1; }
chips=$(tr ',' '\n' <<<"${message#*supported chips: }" | tr -d ' ' | grep -v -E '^(GK|GM|GP|GV|TU)')
count=$(wc -w <<<"$chips")
((count >= 20)) || { echo "FAIL: only $count chips from Ampere on: $chips"; exit 1; }
# A chip typed in lower case is refused (exit 2) with CUPTI's spelling offered.
lower=$("$probe" --chip gh100 --sets 2>&1)
rc=$?
[[ $rc == 2 && $lower == *"does not know chip 'gh100' (did you mean GH100?); supported chips: "* ]] ||
  { echo "FAIL: --chip gh100 gave rc=$rc: $lower"; exit 1; }
# A family written as GA10x: its chips, which --chip takes.
family=$("$probe" --chip GA10x --sets 2>&1)
[[ $family == *"does not know chip 'GA10x' (one chip of the family: GA102, GA103, GA104, GA106, GA107); "* ]] ||
  { echo "FAIL: --chip GA10x: $family"; exit 1; }
sets=7  # single-pass triage basic memory compute detailed full
failed=0
for chip in $chips; do
  if ! out=$("$probe" --chip "$chip" --sets 2>&1); then
    echo "FAIL: $chip: $out"
    failed=1
    continue
  fi
  # Rows: set, metrics, missing, passes, sections.
  rows=$(awk 'NR > 1 && $2 > 0 && $4 > 0' <<<"$out" | wc -l)
  if ((rows != sets)); then
    echo "FAIL: $chip: $rows of $sets sets with metrics and passes:"
    echo "$out"
    failed=1
  fi
done
((failed == 0)) && echo "ok: every set on $count chips from Ampere on"
exit $failed
