#!/usr/bin/env bash
# Formats the C++/CUDA sources with clang-format 14 and the committed
# .clang-format (Google style, 120 columns).
#   scripts/format.sh [FILE...]          rewrites the files in place
#   scripts/format.sh --check [FILE...]  changes nothing; lists the files that
#                                        are not formatted and exits 1 if any
# Without FILE: every C++/CUDA source and header git tracks (*.h *.hpp *.cpp
# *.cc *.cu *.cuh). The binary is $CLANG_FORMAT, else clang-format-14, else a
# clang-format whose major version is 14 (other versions format differently).
# Needs no network and no build.
set -euo pipefail
cd "$(dirname "$0")/.."

check=0
if [[ ${1:-} == --check ]]; then
  check=1
  shift
fi

find_clang_format() {
  local candidate
  for candidate in "${CLANG_FORMAT:-}" clang-format-14 clang-format; do
    [[ -n $candidate ]] && command -v "$candidate" >/dev/null || continue
    if [[ $candidate == "${CLANG_FORMAT:-}" ]] || "$candidate" --version | grep -q 'version 14\.'; then
      echo "$candidate"
      return 0
    fi
  done
  return 1
}
if ! clang_format=$(find_clang_format); then
  echo "format: clang-format 14 not found (apt-get install clang-format-14, or set CLANG_FORMAT to one)" >&2
  exit 2
fi

files=()
if (($#)); then
  files=("$@")
else
  mapfile -d '' files < <(git ls-files -z -- '*.h' '*.hpp' '*.cpp' '*.cc' '*.cu' '*.cuh')
fi
((${#files[@]})) || exit 0

if ((check == 0)); then
  printf '%s\0' "${files[@]}" | xargs -0 -n 32 "$clang_format" --style=file -i
  exit 0
fi

# --dry-run -Werror: one `<file>:<line>:<col>: error: code should be
# clang-formatted` line per file that would change (--ferror-limit=1); any
# other output (a file that cannot be read or parsed) is shown as it is.
set +e
output=$(printf '%s\0' "${files[@]}" | xargs -0 -n 32 "$clang_format" --style=file --dry-run -Werror --ferror-limit=1 2>&1)
status=$?
set -e
unformatted=$(sed -n 's/^\(.*\):[0-9]*:[0-9]*: error: code should be clang-formatted.*/\1/p' <<<"$output" | sort -u)
if [[ -n $unformatted ]]; then
  count=$(wc -l <<<"$unformatted")
  echo "check-format: $count file(s) not formatted with .clang-format ($("$clang_format" --version | sed 's/.*version /clang-format /')):"
  sed 's/^/  /' <<<"$unformatted"
  echo "fix: scripts/format.sh"
  exit 1
fi
if ((status != 0)); then
  echo "check-format: $clang_format failed:" >&2
  echo "$output" >&2
  exit 2
fi
echo "check-format: ${#files[@]} files formatted"
