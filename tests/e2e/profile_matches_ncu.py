"""Checks rangereplay's main job against a plain run and against ncu.

GPU end-to-end test of the main job: on examples/stream and examples/gemm, `rangereplay profile
--set full` prints values for every kernel of every range, the application's checksums equal a run
without the tool, and per kernel smsp__inst_executed.sum equals ncu's kernel-replay value and
dram__bytes_read.sum is within 2% of it.
"""
import os, subprocess, sys, tempfile

from e2e_common import checksums, load_report

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "ncu"))
from ncu_compare import (DRAM, FIDELITY_METRICS, INST, NcuCsvError, kernel_values,  # noqa: E402
                         ncu_csv_command, parse_ncu_csv, range_sums, report_kernels, within_pct)

build = sys.argv[1]
cli = os.path.join(build, "tools/cli/rangereplay")
failures = []

def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=240)
    return p.returncode, p.stdout, p.stderr

def check(app, args, full_set="full"):
    exe = os.path.join(build, "examples", app)
    rc, plain, err = run([exe] + args)
    if rc != 0:
        failures.append(f"{app}: plain run failed rc={rc}: {err.strip()[-300:]}")
        return
    out = tempfile.mktemp(suffix=".json")
    rc, prof, err = run([cli, "profile", "--quiet", "--nvtx-include", "step/", "--set", full_set,
                         "--output", out, "--", exe] + args)
    if rc != 0:
        failures.append(f"{app}: profile rc={rc}: {err.strip()[-500:]}")
        return
    if checksums(plain) != checksums(prof) or not checksums(plain):
        failures.append(f"{app}: checksums differ with the tool")
    report = load_report(out)
    ranges = report["ranges"]
    if not ranges:
        failures.append(f"{app}: no range profiled")
    for r in ranges:
        if r.get("declined"):
            failures.append(f"{app}: range {r['index']} declined: {r.get('decline_reason')} {r.get('decline_detail')}")
            continue
        if r["passes"] < 30:
            failures.append(f"{app}: range {r['index']} ran {r['passes']} passes; the full set needs 30+")
        for k in r["kernels"]:
            vals = kernel_values(k)
            if len(vals) != len(report["metrics"]):
                failures.append(f"{app}: range {r['index']} kernel {k['index']} has {len(vals)} of {len(report['metrics'])} metrics")
    ours = report_kernels(report)
    # ncu kernel replay on the same kernels.
    rc, ncu_out, err = run(ncu_csv_command([exe] + args, FIDELITY_METRICS))
    if rc != 0:
        failures.append(f"{app}: ncu rc={rc}: {err.strip()[-300:]}")
        return
    try:
        theirs = parse_ncu_csv(ncu_out, "kernel")
    except NcuCsvError as e:
        failures.append(f"{app}: {e}")
        return
    if len(theirs) != len(ours):
        failures.append(f"{app}: ncu profiled {len(theirs)} kernels, rangereplay {len(ours)}")
    for i, (mine, ref) in enumerate(zip(ours, theirs)):
        name = mine["name"]
        a, b = mine.get(INST), ref.get(INST)
        if a != b:
            failures.append(f"{app}: kernel {i} {name[:40]} {INST} {a} != ncu {b}")
        a, b = mine.get(DRAM), ref.get(DRAM)
        if not within_pct(a, b):
            failures.append(f"{app}: kernel {i} {name[:40]} {DRAM} {a} vs ncu {b} (>2%)")
    print(f"{app}: {len(ours)} kernels compared with ncu")
    # One-pass list, --range-metrics whole: the ranges share one CUPTI pass
    # left open across them (the standing pass). Each range's instruction
    # count must equal the sum of its kernels' from the --set run above.
    rc, prof, err = run([cli, "profile", "--quiet", "--nvtx-include", "step/", "--metrics", "smsp__inst_executed.sum",
                         "--range-metrics", "whole", "--output", out, "--", exe] + args)
    if rc != 0 or checksums(plain) != checksums(prof):
        failures.append(f"{app}: whole-range one-pass profile rc={rc} or checksums differ: {err.strip()[-300:]}")
        return
    whole = load_report(out)["ranges"]
    per_range = [s[INST] for s in range_sums(report, [INST])]
    # The range's own value only (range_sums would fall back to its kernels').
    got = [next((m["value"] for m in r.get("range_metrics", []) if m["name"] == INST), None)
           for r in sorted(whole, key=lambda r: r["index"])]
    if got != per_range:
        failures.append(f"{app}: standing-pass instruction counts per range {got} != sums of per-kernel values {per_range}"
                        f"; notes {[r.get('notes') for r in whole]}; declines {[r.get('decline_detail') for r in whole]}")
    else:
        print(f"{app}: standing pass per-range instructions equal the per-kernel sums ({got})")

check("stream", ["--iterations", "2"])
check("gemm", ["--iterations", "2"])
if failures:
    print("\n".join(failures))
    sys.exit(1)
print("ok")
