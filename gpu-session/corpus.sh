#!/usr/bin/env bash
# The 60-program corpus with the defaults (batching on) and the counter set-up on a tool thread.
# usage: corpus.sh <tag> <budget_s> [--only a,b,...]
cd "$(dirname "$0")/.."
export USE_PREBUILT=force NCCL_NVLS_ENABLE=0 RANGEREPLAY_COUNTER_PREWARM=1
tag=$1; budget=$2; shift 2
o=$OUT/$tag; mkdir -p $o
if [[ -f build/prebuilt.env ]]; then source build/prebuilt.env; else scripts/gpu-check.sh $o/check build > $o/check.txt 2>&1; source build/prebuilt.env; fi
t0=$(date +%s)
timeout $((budget + 60)) python3 tests/corpus/run_corpus.py run --build build --corpus .corpus --logs $o/corpus \
  --timeout 45 --budget $budget --repeat-hang-test 1 "$@" > $o/corpus.log 2>&1
echo "corpus rc=$? elapsed $(( $(date +%s) - t0 )) s"
tail -70 $o/corpus/corpus.txt 2>/dev/null || tail -20 $o/corpus.log
