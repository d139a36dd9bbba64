#!/usr/bin/env bash
# GPU end-to-end test of snapshot spilling: with device
# memory filled so that only 3 GiB stay free, a 6 GiB footprint's snapshot
# cannot stay on the device. The ranges must still replay with the
# application's checksums equal to a run without the tool, the report must
# show bytes on both the device and the pinned tier in range 0, and range 1
# must reuse the retained arenas (new_allocation false on every tier).
# Exit 77 (skipped) without a GPU.
#   tests/e2e/snapshot_spill.sh <build-dir>
set -uo pipefail
build=${1:?build dir}
nvidia-smi -L >/dev/null 2>&1 || { echo "skipped: no NVIDIA GPU"; exit 77; }

app="$build/tests/apps/app_big_footprint"
cli="$build/tools/cli/rangereplay"
metrics="smsp__inst_executed.sum,dram__bytes_read.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed"
args=(--fill-device-except 3GiB)
for f in "$app" "$cli"; do
  [[ -x "$f" ]] || { echo "FAIL: $f not built"; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if ! "$app" "${args[@]}" >"$tmp/plain.out" 2>"$tmp/plain.err"; then
  echo "FAIL: plain run of big_footprint failed"; tail -5 "$tmp/plain.err"; exit 1
fi
# --batch-ranges off: range 1 reuses range 0's arenas only when range 0 was
# replayed at its own end; deferred together, each range's snapshot would
# hold a storage of its own while they wait.
if ! "$cli" profile --nvtx-include step/ --metrics "$metrics" --batch-ranges off --output "$tmp/report.json" \
    -- "$app" "${args[@]}" >"$tmp/profile.out" 2>"$tmp/profile.err"; then
  echo "FAIL: rangereplay profile failed"; tail -20 "$tmp/profile.err"; exit 1
fi
grep '^big_footprint:' "$tmp/plain.err" "$tmp/profile.err"

grep '^checksum ' "$tmp/plain.out" >"$tmp/plain.sums"
grep '^checksum ' "$tmp/profile.out" >"$tmp/profile.sums"
if [[ ! -s "$tmp/plain.sums" ]] || ! grep -qx 'checksums-done' "$tmp/plain.out" ||
   ! grep -qx 'checksums-done' "$tmp/profile.out"; then
  echo "FAIL: a run did not finish its checksums"; exit 1
fi
if ! diff "$tmp/plain.sums" "$tmp/profile.sums"; then
  echo "FAIL: checksums differ with the tool"; exit 1
fi

python3 - "$tmp/report.json" "$(dirname "$0")" <<'EOF'
import sys

sys.path.insert(0, sys.argv[2])
from e2e_common import load_report

report = load_report(sys.argv[1])
ranges = report["ranges"]
failures = []
if len(ranges) < 2:
    failures.append(f"{len(ranges)} ranges in the report, expected 2")
for r in ranges:
    tiers = {t["tier"]: t for t in r["tiers"]}
    print(f"range {r['index']}: passes {r['passes']}, footprint {r['footprint_bytes']} bytes, tiers " +
          ", ".join(f"{t['tier']} {t['bytes']} bytes (arena {t['arena_bytes']}, "
                    f"{'new' if t['new_allocation'] else 'retained'})" for t in r["tiers"]) +
          f", capture {r['timings']['capture_ms']:.1f} ms, restore {r['timings']['restore_ms']:.1f} ms")
    for note in r["notes"]:
        print(f"  note: {note}")
    if r["declined"]:
        failures.append(f"range {r['index']} declined: {r['decline_reason']} ({r['decline_detail']})")
    elif r["passes"] < 2:
        failures.append(f"range {r['index']} ran {r['passes']} pass(es); the metric list must need 2+ for a replay")
if len(ranges) >= 1 and not ranges[0]["declined"]:
    tiers = {t["tier"]: t for t in ranges[0]["tiers"]}
    for name in ("device", "pinned"):
        if tiers.get(name, {}).get("bytes", 0) == 0:
            failures.append(f"range 0 has no bytes on the {name} tier: {ranges[0]['tiers']}")
if len(ranges) >= 2 and not ranges[1]["declined"]:
    if not ranges[1]["tiers"]:
        failures.append("range 1 reports no tiers")
    for t in ranges[1]["tiers"]:
        if t["new_allocation"]:
            failures.append(f"range 1 allocated a new {t['tier']} arena instead of reusing the retained one")
if failures:
    print("FAIL: " + "\nFAIL: ".join(failures))
    sys.exit(1)
print("ok")
EOF
