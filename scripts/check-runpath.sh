#!/usr/bin/env bash
# Checks the run paths (DT_RUNPATH and DT_RPATH, `readelf -d`) of ELF
# executables and shared libraries: every entry must be an absolute folder.
# An empty entry (a leading, trailing or doubled ':') makes the dynamic loader
# search the current working folder, and a relative entry (including one
# starting with $ORIGIN: no binary of this project needs one, since the
# launcher finds its parts by its own location) is resolved against a folder
# the user did not choose; both are refused. Exit 0 when every file passes,
# 1 listing each offending file and entry, 2 on a usage error.
#   scripts/check-runpath.sh <file or folder>...
# Folders are searched recursively for ELF executables and shared libraries
# (CMake's own CMakeFiles folders are skipped: compiler probes live there).
set -uo pipefail
(($#)) || { echo "usage: scripts/check-runpath.sh <file or folder>..." >&2; exit 2; }
command -v readelf >/dev/null || { echo "check-runpath: readelf not found: install binutils" >&2; exit 2; }

# The ELF executables and shared objects among the given paths, one a line.
elf_files() {
  local p
  for p in "$@"; do
    if [[ -d $p ]]; then
      find "$p" -name CMakeFiles -prune -o -type f -print
    elif [[ -f $p ]]; then
      printf '%s\n' "$p"
    else
      echo "check-runpath: $p is neither a file nor a folder" >&2
      return 1
    fi
  done | while IFS= read -r f; do
    [[ $(head -c 4 "$f" 2>/dev/null | od -An -c | tr -d ' ') == '177ELF' ]] || continue
    readelf -h "$f" 2>/dev/null | grep -Eq 'Type:[[:space:]]+(EXEC|DYN)' && printf '%s\n' "$f"
  done
}

files=$(elf_files "$@") || exit 2
checked=0 bad=0
while IFS= read -r f; do
  [[ -n $f ]] || continue
  checked=$((checked + 1))
  # Lines like: 0x...1d (RUNPATH)  Library runpath: [/usr/local/cuda/lib:]
  while IFS= read -r paths; do
    IFS=: read -r -a entries <<<"$paths"
    # `read -a` drops one trailing empty field ("a:" gives just "a") and
    # gives nothing for an empty run path.
    [[ $paths == *: || -z $paths ]] && entries+=("")
    for e in "${entries[@]}"; do
      if [[ -z $e ]]; then
        echo "check-runpath: $f: run path '$paths' has an empty entry (the loader searches the current folder); fix the build's RPATH settings" >&2
        bad=1
      elif [[ $e != /* ]]; then
        echo "check-runpath: $f: run path '$paths' has the relative entry '$e'; use an absolute folder" >&2
        bad=1
      fi
    done
  done < <(readelf -d "$f" 2>/dev/null | sed -n 's/.*(R\(UN\)\{0,1\}PATH).*: \[\(.*\)\]$/\2/p')
done <<<"$files"
((checked)) || { echo "check-runpath: no ELF executable or shared library in: $*" >&2; exit 2; }
((bad)) && exit 1
echo "check-runpath: ok ($checked binaries)"
