"""--verify on the examples.

GPU end-to-end test of --verify: integer workloads replay without divergence; floating-point atomics
may diverge and are reported, not fatal; checksums stay equal to a plain run.
"""
import os, subprocess, sys, tempfile

from e2e_common import load_report

build = sys.argv[1]
cli = os.path.join(build, "tools/cli/rangereplay")
metrics = "smsp__inst_executed.sum,dram__bytes_read.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed"
failures = []

def sums(text):
    return [l for l in text.splitlines() if l.startswith("checksum ")]

def run(app, args, may_diverge, restore=None, corrupt=False):
    """corrupt: the test-only switch RANGEREPLAY_TEST_CORRUPT_RESTORES makes every
    restore leave 16 wrong bytes per region; --verify must then report divergence,
    and the application must still get its own results."""
    exe = os.path.join(build, "examples", app)
    plain = subprocess.run([exe] + args, capture_output=True, text=True, timeout=120)
    out = tempfile.mktemp(suffix=".json")
    env = dict(os.environ, RANGEREPLAY_TEST_CORRUPT_RESTORES="1") if corrupt else None
    extra = ["--restore", restore] if restore else []
    prof = subprocess.run([cli, "profile", "--quiet", "--verify", "--nvtx-include", "step/", "--metrics", metrics] +
                          extra + ["--output", out, "--", exe] + args, capture_output=True, text=True, timeout=240,
                          env=env)
    name = " ".join([app] + args + extra + (["(corrupted restores)"] if corrupt else []))
    if prof.returncode != plain.returncode or sums(prof.stdout) != sums(plain.stdout):
        failures.append(f"{name}: results differ with the tool (rc {plain.returncode} vs {prof.returncode})")
        return
    report = load_report(out)
    divergent = 0
    for r in report["ranges"]:
        if r["declined"]:
            failures.append(f"{name}: range {r['index']} declined: {r['decline_reason']}")
        notes = [n for n in r["notes"] if "--verify unavailable" in n]
        if notes:
            failures.append(f"{name}: {notes[0]}")
        divergent += sum(len(p["divergences"]) for p in r["pass_records"])
    if corrupt and not divergent:
        failures.append(f"{name}: restores were corrupted on purpose but --verify reported no divergence")
    if divergent and not may_diverge and not corrupt:
        failures.append(f"{name}: {divergent} divergent regions in an integer workload")
    print(f"{name:<28} ranges {len(report['ranges'])}  divergent regions {divergent}")

run("stream", ["--iterations", "2", "--bytes", "64MiB"], may_diverge=False)
run("atomics", ["--iterations", "2"], may_diverge=False)
run("atomics", ["--iterations", "2", "--float"], may_diverge=True)
run("multistream", ["--iterations", "2"], may_diverge=False)
run("stream", ["--iterations", "2", "--bytes", "64MiB"], may_diverge=False, corrupt=True)
run("stream", ["--iterations", "2", "--bytes", "64MiB"], may_diverge=False, restore="full", corrupt=True)
print("\n".join(failures) if failures else "ok")
sys.exit(1 if failures else 0)
