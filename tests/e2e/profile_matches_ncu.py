"""Checks rangereplay's main job against a plain run and against ncu (see the .sh)."""
import csv, io, json, os, subprocess, sys, tempfile

build = sys.argv[1]
cli = os.path.join(build, "tools/cli/rangereplay")
failures = []

def checksums(text):
    return [l for l in text.splitlines() if l.startswith("checksum ")]

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
    report = json.load(open(out))
    ranges = report["ranges"]
    if not ranges:
        failures.append(f"{app}: no range profiled")
    ours = []
    for r in ranges:
        if r.get("declined"):
            failures.append(f"{app}: range {r['index']} declined: {r.get('decline_reason')} {r.get('decline_detail')}")
            continue
        if r["passes"] < 30:
            failures.append(f"{app}: range {r['index']} ran {r['passes']} passes; the full set needs 30+")
        for k in r["kernels"]:
            vals = {m["name"]: m["value"] for m in k["metrics"]}
            if len(vals) != len(report["metrics"]):
                failures.append(f"{app}: range {r['index']} kernel {k['index']} has {len(vals)} of {len(report['metrics'])} metrics")
            ours.append((k["mangled_name"], vals))
    # ncu kernel replay on the same kernels.
    rc, ncu_out, err = run(["ncu", "--clock-control", "none", "--nvtx", "--nvtx-include", "step/", "--csv",
                            "--print-units", "base", "--metrics", "smsp__inst_executed.sum,dram__bytes_read.sum",
                            exe] + args)
    if rc != 0:
        failures.append(f"{app}: ncu rc={rc}: {err.strip()[-300:]}")
        return
    rows = list(csv.DictReader(io.StringIO(ncu_out[ncu_out.find('"ID"'):])))
    by_id = {}
    for row in rows:
        by_id.setdefault(int(row["ID"]), {})[row["Metric Name"]] = float(row["Metric Value"].replace(",", ""))
    theirs = [by_id[i] for i in sorted(by_id)]
    if len(theirs) != len(ours):
        failures.append(f"{app}: ncu profiled {len(theirs)} kernels, rangereplay {len(ours)}")
    for i, ((name, mine), ref) in enumerate(zip(ours, theirs)):
        a, b = mine.get("smsp__inst_executed.sum"), ref.get("smsp__inst_executed.sum")
        if a != b:
            failures.append(f"{app}: kernel {i} {name[:40]} smsp__inst_executed.sum {a} != ncu {b}")
        a, b = mine.get("dram__bytes_read.sum"), ref.get("dram__bytes_read.sum")
        if a is None or b is None or (b > 0 and abs(a - b) / b > 0.02) or (b == 0 and a > 4096):
            failures.append(f"{app}: kernel {i} {name[:40]} dram__bytes_read.sum {a} vs ncu {b} (>2%)")
    print(f"{app}: {len(ours)} kernels compared with ncu")
    # One-pass list, --range-metrics whole: the ranges share one CUPTI pass
    # left open across them (the standing pass). Each range's instruction
    # count must equal the sum of its kernels' from the --set run above.
    rc, prof, err = run([cli, "profile", "--quiet", "--nvtx-include", "step/", "--metrics", "smsp__inst_executed.sum",
                         "--range-metrics", "whole", "--output", out, "--", exe] + args)
    if rc != 0 or checksums(plain) != checksums(prof):
        failures.append(f"{app}: whole-range one-pass profile rc={rc} or checksums differ: {err.strip()[-300:]}")
        return
    whole = json.load(open(out))["ranges"]
    per_range = [sum(k_vals.get("smsp__inst_executed.sum", 0) for k_vals in
                     ({m["name"]: m["value"] for m in k["metrics"]} for k in r["kernels"])) for r in ranges]
    got = [next((m["value"] for m in r.get("range_metrics", []) if m["name"] == "smsp__inst_executed.sum"), None)
           for r in whole]
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
