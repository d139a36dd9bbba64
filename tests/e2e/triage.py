"""`--set triage`: every range sampled once by PM sampling in the application's own run, against the range
profiler's whole-range values of the same metrics.

For three examples and two `ml` programs (JAX, torch.compile; skipped where their stack does not import): the
plain run's checksums and exit code are kept under `--set triage`; the report names the
`pm_sampling` backend and 1 pass; every range has PM samples in time order whose per-metric sums are its
totals; and against `--metrics <the same list> --range-metrics whole` (range replay, CUPTI's range profiler) each
range's instruction count is equal and every other total within 2 % (DRAM bytes written within 4 %: write-backs
follow the eviction order of the run), or within twice the range profiler's own difference between two runs where
that is larger (the totals of DRAM bytes and L2 sectors move from run to run, with concurrent streams most). A range that begins a stream capture is declined `stream_capture_active` (captured
work does not run in the range): such ranges are left out of the comparison, and a program whose every range was
declined so is reported as skipped.

GPU end-to-end test. Exit 1 on any mismatch, 77 without a GPU.
"""
import math
import os
import sys

from e2e_common import checksums, profile_with_report, run, summarize, tail

BUILD = sys.argv[1]
CLI = os.path.join(BUILD, "tools/cli/rangereplay")
EXACT = ("smsp__inst_executed.sum",)
TOLERANCE = 0.02
# DRAM bytes written are the L2's write-backs, which follow the order lines are evicted in: the application's own
# run (concurrent streams, its own kernel order) evicts otherwise than the range profiler's replay of the same work,
# and on an H100 the two differed by up to 3.7% where each side's own runs agree within 0.6%.
TOLERANCES = {"dram__bytes_write.sum": 0.04}
ML = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "ml")
SKIP = 77  # an ml program whose stack does not import (tests/ml/ml_common.py)
CASES = [
    ("stream", [os.path.join(BUILD, "examples/stream"), "--iterations", "3", "--bytes", "256MiB"]),
    ("gemm", [os.path.join(BUILD, "examples/gemm"), "--iterations", "2", "--size", "2048"]),
    ("multistream", [os.path.join(BUILD, "examples/multistream"), "--iterations", "2"]),
    ("jax_train", [sys.executable, os.path.join(ML, "jax_train.py")]),
    ("torch_compile", [sys.executable, os.path.join(ML, "torch_compile.py"), "--mode", "default"]),
]
failures = []


def values(r):
    return {m["name"]: m["value"] for m in r.get("range_metrics") or []}


def capturing(r):
    """Whether the range was declined for a stream capture begun inside it."""
    return r["declined"] and r["decline_reason"] == "stream_capture_active"


def check_samples(label, r, names):
    """The range's samples: present, in time order, summing to its totals."""
    samples = r.get("samples") or []
    if not samples:
        failures.append(f"{label}: no samples; notes {r.get('notes')}")
        return
    last_end = 0.0
    for s in samples:
        if len(s["values"]) != len(names) or s["start_ms"] > s["end_ms"] or s["start_ms"] + 1e-9 < last_end:
            failures.append(f"{label}: a malformed or out-of-order sample {s} after {last_end} ms")
            return
        last_end = s["end_ms"]
    totals = values(r)
    for i, name in enumerate(names):
        if not all(isinstance(s["values"][i], (int, float)) for s in samples):
            failures.append(f"{label}: {name} has a sample that is not a number")
            continue
        summed = sum(s["values"][i] for s in samples)
        if not math.isclose(summed, totals.get(name, math.nan), rel_tol=1e-9, abs_tol=1e-6):
            failures.append(f"{label}: {name} samples sum to {summed}, the total says {totals.get(name)}")
    print(f"  {label}: {len(samples)} samples over {last_end:.2f} ms")


for label, app in CASES:
    prc, pout, perr = run(app, timeout=180)
    if prc == SKIP and app[0] == sys.executable:
        print(f"{label}: skipped: {tail(perr)}")
        continue
    if prc != 0 or not checksums(pout):
        failures.append(f"{label}: the plain run failed (rc={prc}): {tail(perr)}")
        continue
    rc, out, err, triage = profile_with_report(CLI, ["--nvtx-include", "step/", "--set", "triage"], app, timeout=240)
    if isinstance(triage, str) or rc != prc or checksums(out) != checksums(pout):
        failures.append(f"{label} --set triage: rc={rc} (plain {prc}), checksums equal "
                        f"{checksums(out) == checksums(pout)}, {triage if isinstance(triage, str) else 'report'}: "
                        f"{tail(err)}")
        continue
    counted = [r for r in triage["ranges"] if not r["declined"]]
    if triage["ranges"] and all(capturing(r) for r in triage["ranges"]):
        print(f"{label}: skipped: every range declined stream_capture_active (it captures inside its ranges)")
        continue
    names = [m["name"] for m in (counted[0].get("range_metrics") or [])] if counted else []
    print(f"{label}: backend {triage.get('counter_backend')}, {triage['pass_count']} pass, {len(names)} metrics "
          f"({', '.join(names)}), missing {triage.get('missing_metrics')}")
    if triage.get("counter_backend") != "pm_sampling" or triage["pass_count"] != 1 or not names:
        declines = sorted({f"{r['decline_reason']} ({r['decline_detail']})" for r in triage["ranges"] if r["declined"]})
        failures.append(f"{label}: backend {triage.get('counter_backend')}, {triage['pass_count']} passes, "
                        f"{len(names)} metrics; errors {triage.get('errors')}; {len(triage['ranges'])} ranges, "
                        f"declines {declines[:3]}")
        continue
    refs = []
    for _ in range(2):
        rc, out, err, ref = profile_with_report(CLI, ["--nvtx-include", "step/", "--metrics", ",".join(names),
                                                      "--range-metrics", "whole"], app, timeout=240)
        if isinstance(ref, str) or rc != prc:
            failures.append(f"{label} range profiler: rc={rc}, {ref if isinstance(ref, str) else 'report'}: "
                            f"{tail(err)}")
            break
        refs.append(ref)
    if len(refs) < 2:
        continue
    ref = refs[0]
    ref_ranges = {r["index"]: r for r in ref["ranges"]}
    again = {r["index"]: r for r in refs[1]["ranges"]}
    if {r["index"] for r in triage["ranges"]} != set(ref_ranges):
        failures.append(f"{label}: triage matched ranges {sorted(r['index'] for r in triage['ranges'])}, the range "
                        f"profiler's run {sorted(ref_ranges)}")
    # The ml programs pick kernels by timing (XLA's autotuner, Inductor), each run on its own: their instruction
    # counts are held to the tolerance, the examples' to equality.
    exact = EXACT if app[0] != sys.executable else ()
    for r in triage["ranges"]:
        where = f"{label} range {r['index']}"
        if capturing(r):
            print(f"  {where}: declined stream_capture_active, left out")
            continue
        if r["declined"]:
            failures.append(f"{where} declined: {r['decline_reason']} ({r['decline_detail']})")
            continue
        check_samples(where, r, names)
        if not any("sampled in the application's own run" in n for n in r["notes"]):
            failures.append(f"{where}: no note of the one sampled run: {r['notes']}")
        other = ref_ranges.get(r["index"])
        if other is None or other["declined"]:
            failures.append(f"{where}: the range profiler's run has no values for it")
            continue
        ours, theirs = values(r), values(other)
        second = values(again[r["index"]]) if r["index"] in again and not again[r["index"]]["declined"] else {}
        cells = []
        for name in names:
            a, b = ours.get(name), theirs.get(name)
            if a is None or b is None:
                failures.append(f"{where}: {name} missing (triage {a}, range profiler {b})")
                continue
            if not isinstance(a, (int, float)) or not isinstance(b, (int, float)):
                failures.append(f"{where}: {name} is not a number (triage {a}, range profiler {b})")
                continue
            rel = abs(a - b) / max(abs(b), 1.0)
            c = second.get(name)
            spread = abs(c - b) / max(abs(b), 1.0) if isinstance(c, (int, float)) else 0.0
            allowed = max(TOLERANCES.get(name, TOLERANCE), 2 * spread)
            cells.append(f"{name} {a:.6g}/{b:.6g} ({100 * (a - b) / max(abs(b), 1.0):+.2f}%, "
                         f"range profiler's own {100 * spread:.2f}%)")
            if (name in exact and a != b) or rel > allowed:
                failures.append(f"{where}: {name} triage {a} vs range profiler {b} ({100 * rel:.2f}%; allowed "
                                f"{100 * allowed:.2f}%)")
        print(f"  {where}: " + "; ".join(cells))

sys.exit(summarize(failures))
