"""How deep the L2 flush of --cache-control must read for a cold L2: range
totals of examples/stream at 16 MiB (3 ranges, `--range-metrics whole`, the
multi-pass list of tests/e2e/cache_control.py) under rangereplay with the
flush reading a multiple of the L2 (RANGEREPLAY_CACHE_FLUSH_L2_MULTIPLE) and then
discarding its lines or, with ":keep", leaving them in L2
(RANGEREPLAY_CACHE_FLUSH_DISCARD=0), each run several times, and under `ncu --replay-mode range --cache-control all` as
many times, in one call. Prints DRAM bytes read and written and the L2 hit
rate of every range, then the spread of each. A measurement, not a test:
nothing is checked.

    python3 tests/ncu/flush_sweep.py <build-dir> [runs] [sweep[:keep],...]   (default 3 2,2:keep,8)
"""
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "e2e"))
from e2e_common import load_report, run, tail  # noqa: E402
from ncu_compare import NcuCsvError, ncu_csv_command, parse_ncu_csv, range_sums  # noqa: E402

build = sys.argv[1]
runs = int(sys.argv[2]) if len(sys.argv) > 2 else 3
sweeps = (sys.argv[3] if len(sys.argv) > 3 else "2,2:keep,8").split(",")
CLI = os.path.join(build, "tools/cli/rangereplay")
METRICS = ["dram__bytes_read.sum", "dram__bytes_write.sum", "lts__t_sector_hit_rate.pct"]
EXTRA = ["sm__throughput.avg.pct_of_peak_sustained_elapsed",
         "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
         "l1tex__throughput.avg.pct_of_peak_sustained_active", "lts__throughput.avg.pct_of_peak_sustained_elapsed"]
APP = [os.path.join(build, "examples/stream"), "--iterations", "3", "--bytes", "16MiB"]


def label(sweep):
    """"2:keep" -> "2x L2, lines kept"; "2" -> "2x L2, discarded"."""
    return sweep.split(":")[0] + "x L2, " + ("lines kept" if sweep.endswith(":keep") else "discarded")


def show(label, ranges, spread):
    for i, r in enumerate(ranges):
        print(f"{label} range {i}: " + ", ".join(f"{m.split('__')[1]} {r.get(m)}" for m in METRICS))
        for m in METRICS:
            v = r.get(m)
            if isinstance(v, (int, float)) and v == v:
                spread.setdefault(m, []).append(v)


def summary(label, spread):
    print(f"{label}: " + "; ".join(f"{m.split('__')[1]} {min(v):.6g}-{max(v):.6g} over {len(v)}"
                                   for m, v in spread.items()))


lines = []
for sweep in sweeps:
    spread = {}
    for k in range(runs):
        out = tempfile.mktemp(suffix=".json")
        rc, _, err = run([CLI, "profile", "--quiet", "--nvtx-include", "step/", "--metrics", ",".join(METRICS + EXTRA),
                          "--range-metrics", "whole", "--output", out, "--"] + APP, timeout=300,
                         env=dict(os.environ, RANGEREPLAY_CACHE_FLUSH_L2_MULTIPLE=sweep.split(":")[0],
                                  RANGEREPLAY_CACHE_FLUSH_DISCARD="0" if sweep.endswith(":keep") else "1"))
        if rc != 0:
            print(f"sweep {sweep} run {k}: rc={rc}: {tail(err)}")
            continue
        show(f"rangereplay, flush {label(sweep)}, run {k}", range_sums(load_report(out), METRICS), spread)
    lines.append((f"rangereplay, flush {label(sweep)}", spread))
spread = {}
for k in range(runs):
    rc, out, err = run(ncu_csv_command(APP, METRICS + EXTRA, ["--replay-mode", "range", "--cache-control", "all"]),
                       timeout=300)
    try:
        show(f"ncu range replay, run {k}", parse_ncu_csv(out, "range"), spread)
    except NcuCsvError as e:
        print(f"ncu run {k}: rc={rc}: {e} {tail(err)}")
lines.append(("ncu --replay-mode range --cache-control all", spread))
print("---")
for label, s in lines:
    summary(label, s)
