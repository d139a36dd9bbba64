"""--cache-control against Nsight Compute's: range
totals of examples/stream (3 ranges, `--range-metrics whole`) of DRAM bytes
read and written and the L2 hit rate, at a footprint that fits the L2
(16 MiB) and one that does not (256 MiB), under `rangereplay --cache-control
all` and `ncu --replay-mode range --cache-control all`, side by side in one
run: each total within 2% (or 64 KiB for bytes) of ncu's, in at least one of
two ncu runs, or between them (ncu's own totals vary from run to run), except DRAM writes at
16 MiB, which must not exceed ncu's (the range writes next to nothing: ncu's
own are 35-318 KB from run to run); the same with the
two DRAM counters alone, a one-pass list (the standing pass). Under `none` no range may show more DRAM writes than ncu's `none` run
(by more than 2% or 64 KiB) at 16 MiB: the tool's restore is written back
before a replayed pass's counters start. Per kernel (the default
`--range-metrics kernel`, `--cache-control all`): the first kernel of each
range, the one a cold cache meets, has DRAM bytes read and written within 2%
(or 64 KiB) of `ncu --cache-control all` kernel replay's for the same launch;
the application runs one step more, which ncu profiles first and this tool
skips (`--skip 1`), since ncu's first profiled kernel of a process carries
traffic of its own. The program's
checksums equal a plain run's. The one-pass totals of the first range without
the counter set-up's warm-up pass (RANGEREPLAY_COUNTER_WARMUP=0) are printed
beside ncu's, unchecked.

GPU end-to-end test of --cache-control against ncu's range replay in the same mode.
"""
import os
import sys
import tempfile

from e2e_common import checksums, load_report, run, summarize, tail

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "ncu"))
from ncu_compare import MULTI_PASS_THROUGHPUTS, NcuCsvError, ncu_csv_command, parse_ncu_csv, range_sums  # noqa: E402

build = sys.argv[1]
CLI = os.path.join(build, "tools/cli/rangereplay")
METRICS = ["dram__bytes_read.sum", "dram__bytes_write.sum", "lts__t_sector_hit_rate.pct"]
# Throughputs that need passes of their own, so every range is replayed (the
# restore before a replayed pass is what the flush must keep uncounted).
EXTRA = list(MULTI_PASS_THROUGHPUTS)
failures = []


def number(v):
    """A finite value of a report or ncu row (reports write NaN as the string "nan")."""
    return isinstance(v, (int, float)) and v == v


def bytes_close(ours, ref):
    return number(ours) and number(ref) and abs(ours - ref) <= max(0.02 * abs(ref), 65536.0)


def close(metric, ours, ref):
    if not number(ours) or not number(ref):
        return False
    if metric.endswith(".pct"):
        return abs(ours - ref) <= 0.02 * abs(ref)
    return bytes_close(ours, ref)


def close_to_a_run(metric, ours, runs, i, size):
    """ours close to range i's value in at least one of ncu's runs, or between
    them (ncu's own hit rates at 16 MiB differ by up to 5 points: there, within
    2.5 points of a run is close). At 16 MiB
    the range's data stays in L2 and it writes next to nothing to DRAM: ncu's
    DRAM writes there are its own, 35-318 KB from run to run, so ours must
    only not exceed the larger run's by more than 2% or 64 KiB (a restore
    written back inside the range would add megabytes)."""
    refs = [t[i].get(metric) for t in runs if number(t[i].get(metric))]
    if not number(ours) or not refs:
        return False
    if size == "16MiB" and metric == "dram__bytes_write.sum":
        return ours <= max(refs) + max(0.02 * max(refs), 65536.0)
    # At 16 MiB ncu's hit rates move by up to 5 points between its own runs:
    # within half of that of either run (seen: 87.25% against 83.65% and
    # 85.38%, where the tool's other two ranges lay between ncu's runs).
    if size == "16MiB" and metric.endswith(".pct"):
        return any(abs(ours - r) <= 2.5 for r in refs) or min(refs) <= ours <= max(refs)
    # Between ncu's two runs is as close as ncu comes to itself.
    return any(close(metric, ours, r) for r in refs) or min(refs) <= ours <= max(refs)


def run_values(runs, i, metric):
    """Range i's value in each of ncu's runs, for printing: "a / b"."""
    return " / ".join(str(t[i].get(metric)) for t in runs)


for size in ("16MiB", "256MiB"):
    app = [os.path.join(build, "examples/stream"), "--iterations", "3", "--bytes", size]
    rc, plain, err = run(app, timeout=120)
    if rc != 0:
        failures.append(f"{size}: plain run rc={rc}: {tail(err)}")
        continue
    for mode in ("all", "none"):
        out = tempfile.mktemp(suffix=".json")
        rc, prof, err = run([CLI, "profile", "--quiet", "--nvtx-include", "step/", "--metrics", ",".join(METRICS + EXTRA),
                             "--range-metrics", "whole", "--cache-control", mode, "--output", out, "--"] + app,
                            timeout=300)
        if rc != 0 or checksums(prof) != checksums(plain):
            failures.append(f"{size} {mode}: profile rc={rc} or checksums differ: {tail(err)}")
            continue
        report = load_report(out)
        if report.get("cache_control") != mode:
            failures.append(f"{size} {mode}: the report says cache_control {report.get('cache_control')}")
        replayed = [r["passes"] for r in report["ranges"]]
        if report["pass_count"] < 2 or any(p < 2 for p in replayed):
            failures.append(f"{size} {mode}: {report['pass_count']} passes per range (ranges ran {replayed}): "
                            "no replayed pass was checked; add metrics that need more passes")
        ours = range_sums(report, METRICS)
        # ncu runs twice under all: its own totals vary from run to run (at 16 MiB its DRAM writes, which the
        # ranges do not make, were 35-318 KB), and a value of ours passes when it is close to either run's.
        ncu_runs, errs = [], []
        for _ in range(2 if mode == "all" else 1):
            rc, ncu_out, err = run(ncu_csv_command(app, METRICS + EXTRA,
                                                   ["--replay-mode", "range", "--cache-control", mode]), timeout=300)
            try:
                ncu_runs.append(parse_ncu_csv(ncu_out, "range") if rc == 0 else [])
            except NcuCsvError as e:
                ncu_runs.append([])
                err += str(e)
            errs.append(tail(err))
        theirs = ncu_runs[0]
        if any(len(t) != len(ours) for t in ncu_runs) or len(ours) != 3:
            failures.append(f"{size} {mode}: ncu gave {[len(t) for t in ncu_runs]} ranges, rangereplay {len(ours)}: "
                            f"{' | '.join(errs)}")
            continue
        for i, a in enumerate(ours):
            row = ", ".join(f"{m.split('__')[1]} {a.get(m)} vs ncu {run_values(ncu_runs, i, m)}" for m in METRICS)
            print(f"{size} --cache-control {mode} range {i}: {row}")
            if mode == "all":
                for m in METRICS:
                    if not close_to_a_run(m, a.get(m), ncu_runs, i, size):
                        failures.append(f"{size} all range {i}: {m} {a.get(m)} vs ncu {run_values(ncu_runs, i, m)}")
            elif size == "16MiB":
                w, ref = a.get("dram__bytes_write.sum"), theirs[i].get("dram__bytes_write.sum")
                if not number(w) or not number(ref) or w > ref + max(0.02 * ref, 65536.0):
                    failures.append(f"{size} none range {i}: dram__bytes_write.sum {w} above ncu none's {ref}")
        if mode == "all":
            # The DRAM counters alone fit one pass: the standing pass, a flush before each range's push.
            out = tempfile.mktemp(suffix=".json")
            rc, prof, err = run([CLI, "profile", "--quiet", "--nvtx-include", "step/", "--metrics", ",".join(METRICS[:2]),
                                 "--range-metrics", "whole", "--output", out, "--"] + app, timeout=300)
            one_pass = load_report(out) if rc == 0 and checksums(prof) == checksums(plain) else {"pass_count": 0}
            if one_pass["pass_count"] != 1 or len(one_pass["ranges"]) != len(theirs):
                failures.append(f"{size} all one pass: rc={rc}, {one_pass['pass_count']} passes: {tail(err)}")
                continue
            for i, a in enumerate(range_sums(one_pass, METRICS[:2])):
                print(f"{size} --cache-control all, one pass, range {i}: " +
                      ", ".join(f"{m.split('__')[1]} {a.get(m)} vs ncu {run_values(ncu_runs, i, m)}"
                                for m in METRICS[:2]))
                for m in METRICS[:2]:
                    if not close_to_a_run(m, a.get(m), ncu_runs, i, size):
                        failures.append(f"{size} all one pass range {i}: {m} {a.get(m)} vs ncu "
                                        f"{run_values(ncu_runs, i, m)}")
            # For the record, not checked: the first range without the set-up's warm-up pass, where CUPTI's
            # first start of the process falls into that range's pass.
            out = tempfile.mktemp(suffix=".json")
            rc, prof, err = run([CLI, "profile", "--quiet", "--nvtx-include", "step/", "--metrics", ",".join(METRICS[:2]),
                                 "--range-metrics", "whole", "--output", out, "--"] + app, timeout=300,
                                env=dict(os.environ, RANGEREPLAY_COUNTER_WARMUP="0"))
            if rc == 0:
                cold = range_sums(load_report(out), METRICS[:2])
                if cold:
                    print(f"{size} --cache-control all, one pass, RANGEREPLAY_COUNTER_WARMUP=0, range 0: " +
                          ", ".join(f"{m.split('__')[1]} {cold[0].get(m)} vs ncu {theirs[0].get(m)}"
                                    for m in METRICS[:2]))

    # The first kernel of each range against ncu's kernel replay, both cold. ncu's first profiled kernel of a
    # process writes about 1.9 MB more at 256 MiB than the same kernel profiled later, whichever execution of the
    # application it is (measured with --launch-skip: the excess moves with it), so it is no reference for the
    # kernel: the application runs one more step, ncu profiles every step and this tool skips the first; the
    # first kernel of each range this tool profiles (its first profiled range included) is checked against ncu's
    # value for that same launch. ncu's first profiled kernel is printed, unchecked.
    bytes_metrics = METRICS[:2]
    app_more = app[:2] + [str(int(app[2]) + 1)] + app[3:]
    out = tempfile.mktemp(suffix=".json")
    rc, prof, err = run([CLI, "profile", "--quiet", "--nvtx-include", "step/", "--skip", "1", "--metrics",
                         ",".join(bytes_metrics + EXTRA), "--output", out, "--"] + app_more, timeout=300)
    rc_plain, plain_more, _ = run(app_more, timeout=120)
    if rc != 0 or rc_plain != 0 or checksums(prof) != checksums(plain_more):
        failures.append(f"{size} per kernel: profile rc={rc}, plain run rc={rc_plain}, or checksums differ: "
                        f"{tail(err)}")
        continue
    report = load_report(out)
    rc, ncu_out, err = run(ncu_csv_command(app_more, bytes_metrics, ["--cache-control", "all"]), timeout=300)
    try:
        ncu_kernels = parse_ncu_csv(ncu_out) if rc == 0 else []
    except NcuCsvError as e:
        ncu_kernels = []
        err += str(e)
    ranges = [r for r in sorted(report["ranges"], key=lambda r: r["index"])]
    per_step = len(ncu_kernels) // (len(ranges) + 1) if ranges else 0
    if (any(r.get("declined") for r in ranges) or len(ranges) != int(app[2]) or
            any(len(r["kernels"]) != per_step for r in ranges) or per_step * (len(ranges) + 1) != len(ncu_kernels)):
        failures.append(f"{size} per kernel: ncu gave {len(ncu_kernels)} kernels for {len(ranges) + 1} steps, "
                        f"rangereplay {[len(r['kernels']) for r in ranges]} per range after skipping one: {tail(err)}")
        continue
    print(f"{size} ncu's first profiled kernel (step 0, not profiled here): " +
          ", ".join(f"{m.split('__')[1]} {ncu_kernels[0].get(m)}" for m in bytes_metrics))
    for step, r in enumerate(ranges, start=1):
        ours = {m["name"]: m["value"] for m in r["kernels"][0]["metrics"]}
        theirs = ncu_kernels[step * per_step]
        print(f"{size} first kernel of step {step} (range {r['index']}): " +
              ", ".join(f"{m.split('__')[1]} {ours.get(m)} vs ncu kernel replay {theirs.get(m)}" for m in bytes_metrics))
        for m in bytes_metrics:
            if not bytes_close(ours.get(m), theirs.get(m)):
                failures.append(f"{size} first kernel of step {step}: {m} {ours.get(m)} vs ncu {theirs.get(m)}")
sys.exit(summarize(failures))
