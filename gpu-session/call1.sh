#!/usr/bin/env bash
# Call 1: unpack, the new GPU tests, the batch e2e tests, stream vs ncu (defaults; and with prewarm).
cd "$(dirname "$0")/.."
export USE_PREBUILT=force NCCL_NVLS_ENABLE=0
o=$OUT/c1; mkdir -p $o
t0=$(date +%s)
scripts/gpu-check.sh $o/check build > $o/check.txt 2>&1
source build/prebuilt.env
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $o/gpu.txt
ctest --test-dir build -L gpu -R "CopyPlanTest|SnapshotTest" --timeout 200 --output-on-failure > $o/gtests.log 2>&1
echo "gtests: $(grep -E 'tests passed|tests failed' $o/gtests.log)" >> $o/summary.txt
timeout 240 python3 bench/profile_vs_ncu.py build $o/pvn.json full > $o/pvn.txt 2>&1; echo "pvn rc=$?" >> $o/summary.txt
RANGEREPLAY_COUNTER_PREWARM=1 timeout 150 python3 bench/profile_vs_ncu.py build $o/pvn_prewarm.json full > $o/pvn_prewarm.txt 2>&1; echo "pvn prewarm rc=$?" >> $o/summary.txt
ctest --test-dir build -R "gpu.e2e.(batch|differential_restore|verify)$" --timeout 200 --output-on-failure > $o/e2e.log 2>&1
echo "e2e: $(grep -E 'tests passed|tests failed' $o/e2e.log)" >> $o/summary.txt
grep -E "Failed|Timeout" $o/e2e.log $o/gtests.log | head >> $o/summary.txt
echo "elapsed $(( $(date +%s) - t0 )) s" >> $o/summary.txt
cat $o/check.txt | tail -5; cat $o/gpu.txt; cat $o/summary.txt
echo ---; tail -14 $o/pvn.txt; echo --- prewarm; tail -8 $o/pvn_prewarm.txt
