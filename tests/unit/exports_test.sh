#!/usr/bin/env bash
# The injection library, loaded into someone else's process, exports exactly
# one symbol: CUPTI's entry point InitializeInjection (src/inject/exports.map).
# Anything else it defined dynamically (the static CUDA runtime, fmt, JSON,
# the tool's own classes) could bind to, or take the place of, the
# application's own copies.
#   tests/unit/exports_test.sh <librangereplay_inject.so>
set -uo pipefail
lib=${1:?injection library}
[[ -f $lib ]] || { echo "FAILED: $lib does not exist"; exit 1; }
# Defined dynamic symbols, version nodes (ABS "*@@..." entries) excluded.
defined=$(nm -D --defined-only "$lib" | awk '$2 != "A" {print $3}' | sed 's/@.*//' | sort -u)
if [[ $defined != InitializeInjection ]]; then
  echo "FAILED: $lib must export only InitializeInjection; it exports:"
  printf '  %s\n' $defined
  exit 1
fi
readelf --dyn-syms -W "$lib" | grep -Eq ' FUNC +GLOBAL +DEFAULT +[0-9]+ InitializeInjection$' ||
  { echo "FAILED: InitializeInjection is not a global default-visibility function of $lib"; exit 1; }
echo ok
