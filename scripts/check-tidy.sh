#!/usr/bin/env bash
# Runs clang-tidy 14 with the repository's .clang-tidy on the C++ sources
# (.cpp) that changed, reporting only the lines that changed (clang-tidy's
# --line-filter, from `git diff -U0`), with a build folder's
# compile_commands.json; any warning on a changed line fails (exit 1).
# Checking only changed lines keeps it fast and holds each change to the
# rules without first fixing the whole tree.
#   scripts/check-tidy.sh [--build DIR] [BASE]
# What "changed" means:
#   BASE given            the changes between BASE and the work tree (git diff
#                         BASE: commits since BASE and uncommitted edits),
#                         e.g. origin/main or HEAD~3
#   no BASE, on a branch  the changes since the merge base with origin/main
#   ahead of origin/main
#   otherwise             the last commit's changes (HEAD~1) plus uncommitted
#                         edits: what CI checks on a clean clone of main (a
#                         merge commit: everything it brought in). A clone
#                         without HEAD~1 (shallow, depth 1) checks nothing.
# Sources that are not in compile_commands.json (CUDA sources, sources of
# targets the build did not configure) are skipped and listed, as are those
# clang 14 cannot compile (the CUDA wrappers use std::source_location, which
# clang 14 lacks with GCC 12's library). DIR defaults to build
# (scripts/build.sh release); configure it first. Exit 2: missing tool,
# build folder or base.
set -euo pipefail
cd "$(dirname "$0")/.."
build=build
if [[ ${1:-} == --build ]]; then build=${2:?--build needs a folder}; shift 2; fi
base=${1:-}
tidy=$(command -v clang-tidy-14 || true)
[[ -n $tidy ]] || { echo "check-tidy: clang-tidy-14 not found: run scripts/install-deps.sh" >&2; exit 2; }
[[ -f $build/compile_commands.json ]] ||
  { echo "check-tidy: $build/compile_commands.json not found: configure first (cmake --preset release)" >&2; exit 2; }
if [[ -z $base ]]; then
  if git rev-parse -q --verify origin/main >/dev/null && ! git merge-base --is-ancestor HEAD origin/main; then
    base=$(git merge-base HEAD origin/main)
  elif git rev-parse -q --verify HEAD~1 >/dev/null; then
    base=HEAD~1
  else
    echo "check-tidy: no parent commit to compare with (a shallow clone?); nothing checked"
    exit 0
  fi
fi
git rev-parse -q --verify "$base^{commit}" >/dev/null || { echo "check-tidy: $base is not a commit" >&2; exit 2; }

# The changed line ranges of `file` as clang-tidy's --line-filter JSON
# ([first,last] pairs; a hunk that only deletes adds nothing).
line_filter() {
  local file=$1 ranges
  ranges=$(git diff -U0 "$base" -- "$file" |
    sed -n 's/^@@ -[0-9,]* +\([0-9]*\)\(,\([0-9]*\)\)\{0,1\} @@.*/\1 \3/p' |
    awk '{n = ($2 == "") ? 1 : $2; if (n > 0) printf "%s[%d,%d]", (c++ ? "," : ""), $1, $1 + n - 1}')
  [[ -n $ranges ]] && printf '[{"name":"%s","lines":[%s]}]' "$file" "$ranges"
}

mapfile -t changed < <(git diff --name-only --diff-filter=ACMR "$base" -- '*.cpp' | sort -u)
files=() skipped=()
for f in "${changed[@]}"; do
  if grep -q "\"file\": \"$PWD/$f\"" "$build/compile_commands.json"; then files+=("$f"); else skipped+=("$f"); fi
done
((${#skipped[@]})) && echo "check-tidy: not in $build/compile_commands.json, skipped: ${skipped[*]}"
((${#files[@]})) || { echo "check-tidy: no changed C++ source to check (base $base)"; exit 0; }
echo "check-tidy: ${#files[@]} changed source(s) since $(git rev-parse --short "$base")"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for f in "${files[@]}"; do
  filter=$(line_filter "$f") || continue
  printf '%s\0%s\0%s\0' "$f" "$filter" "$out/${f//\//%}"
done | xargs -0 -n 3 -P "$(nproc)" sh -c '"$0" -p "$1" --quiet --line-filter="$3" "$2" >"$4" 2>/dev/null; true' \
  "$tidy" "$build"
fail=0
for log in "$out"/*; do
  [[ -e $log ]] || continue
  f=$(basename "$log")
  if grep -q 'clang-diagnostic-error' "$log"; then
    echo "check-tidy: ${f//%//} not checked, clang 14 cannot compile it: $(grep -m1 'error:' "$log")"
  elif grep -Eq '(warning|error): ' "$log"; then
    cat "$log"
    fail=1
  fi
done
((fail)) && { echo "check-tidy: clang-tidy warns on changed lines (above); fix them or, for a false positive, add NOLINT(check) saying why" >&2; exit 1; }
echo "check-tidy: ok"
