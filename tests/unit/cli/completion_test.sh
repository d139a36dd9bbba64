#!/usr/bin/env bash
# The generated bash completion, run: what it offers for typical command
# lines (subcommands, options, an option's choices, nothing where the
# application's words go); the zsh script parses (`zsh -n`, where zsh is
# installed) and the man page renders without warnings (groff, where
# installed).
#   tests/unit/cli/completion_test.sh <folder with rangereplay.bash, _rangereplay, rangereplay.1.gz>
set -uo pipefail
docs=${1:?folder of the generated man page and completions}
fail=0
# shellcheck source=/dev/null
source "$docs/rangereplay.bash" || { echo "FAILED: rangereplay.bash does not load"; exit 1; }
# expect "<offered words>" <command line words...> (the last word is the one completed)
expect() {
  local want=$1
  shift
  COMP_WORDS=("$@")
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  COMPREPLY=()
  _rangereplay
  if [[ "${COMPREPLY[*]}" != "$want" ]]; then
    echo "FAILED: '$*' offered '${COMPREPLY[*]}', want '$want'"
    fail=1
  fi
}
expect "profile list-metrics list-sets diff merge report" rangereplay ""
expect "--list-metrics --list-sets" rangereplay --li
expect "details raw" rangereplay profile --csv-page ""
expect "differential" rangereplay profile --restore d
expect "range app-range" rangereplay profile --replay-mode = ""
expect "--skip" rangereplay profile --sk
expect "--batch-ranges" rangereplay profile --ba
# A number or off: no word list to offer.
expect "" rangereplay profile --batch-ranges ""
expect "--set --skip --snapshot-device-limit --snapshot-host-limit" rangereplay profile --quiet --s
expect "" rangereplay profile --set full ./app --s
expect "" rangereplay profile -- ./app --s
expect "raw" rangereplay report x.json --csv-page r
expect "--csv --changed-above" rangereplay diff --c
expect "summary" rangereplay report x.json --page su
expect "change" rangereplay diff a.json b.json --sort ch
if command -v zsh >/dev/null; then
  zsh -n "$docs/_rangereplay" || { echo "FAILED: _rangereplay does not parse in zsh"; fail=1; }
fi
if command -v groff >/dev/null; then
  warnings=$(zcat "$docs/rangereplay.1.gz" | groff -man -ww -z 2>&1)
  [[ -z $warnings ]] || { echo "FAILED: groff warns about the man page: $warnings"; fail=1; }
fi
[[ $fail == 0 ]] && echo ok
exit $fail
