"""Application range replay: `--fallback app-range` and
`--replay-mode app-range`, which re-run the application once per counter pass.

- app_free_in_range --work-after-free (a kernel after a free inside each
  range: free_in_range) and app_graph_memory_nodes (a graph with memory nodes launched in
  each range), both declined by range replay: with `--set full --fallback
  app-range` every range gets every metric of the set, its note names the
  runs, the program's checksums and exit code are its plain run's, and
  `smsp__inst_executed.sum` per range equals the sum of ncu's kernel-replay
  values of the range's kernels (each range of these programs runs the same
  kernels, so ncu's kernels split evenly into the ranges).
- app_nondeterministic (its kernel count drawn from the clock) under
  `--replay-mode app-range --set basic` (9 runs): declined
  nondeterministic_application, no values merged.
- examples/stream under `--replay-mode app-range` and under range replay
  (`--range-metrics whole`) with the same multi-pass list: equal instruction
  counts per range.

GPU end-to-end test of application range replay.
"""
import os
import sys

from e2e_common import checksums, profile_with_report, run, summarize, tail

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "ncu"))
from ncu_compare import NcuCsvError, ncu_csv_command, parse_ncu_csv  # noqa: E402

BUILD = sys.argv[1]
CLI = os.path.join(BUILD, "tools/cli/rangereplay")
INST = "smsp__inst_executed.sum"
failures = []


def range_values(r):
    return {m["name"]: m["value"] for m in r.get("range_metrics") or []}


def plain(app):
    rc, out, err = run(app, timeout=120)
    if rc != 0:
        failures.append(f"{os.path.basename(app[0])}: plain run rc={rc}: {tail(err)}")
    return rc, out


for exe, extra in (("tests/apps/app_free_in_range", ["--work-after-free"]), ("tests/apps/app_graph_memory_nodes", [])):
    label = os.path.basename(exe)
    app = [os.path.join(BUILD, exe), "--iterations", "2"] + extra
    prc, pout = plain(app)
    rc, out, err, report = profile_with_report(CLI, ["--nvtx-include", "step/", "--set", "full", "--fallback",
                                                     "app-range"], app, timeout=900)
    if isinstance(report, str) or rc != prc or checksums(out) != checksums(pout) or not checksums(pout):
        failures.append(f"{label}: rc={rc} (plain {prc}), checksums equal: {checksums(out) == checksums(pout)}, "
                        f"{report if isinstance(report, str) else 'report read'}: {tail(err)}")
        continue
    metrics = set(report["metrics"])
    ranges = sorted(report["ranges"], key=lambda r: r["index"])
    print(f"{label}: {len(ranges)} ranges, {len(metrics)} metrics, {report['pass_count']} passes")
    if len(ranges) != 2:
        failures.append(f"{label}: {len(ranges)} ranges, expected 2")
        continue
    for r in ranges:
        values = range_values(r)
        notes = " | ".join(r.get("notes", []))
        print(f"  range {r['index']}: declined={r.get('declined')} {r.get('decline_reason', '')}, "
              f"{len(values)} values, {INST} {values.get(INST)}, notes: {notes[:200]}")
        if r.get("declined") or set(values) != metrics:
            failures.append(f"{label} range {r['index']}: declined={r.get('declined')} "
                            f"{r.get('decline_reason')} {r.get('decline_detail')}, {len(values)} of {len(metrics)} "
                            "metrics")
        if "app-range:" not in notes:
            failures.append(f"{label} range {r['index']}: no app-range note: {notes}")
    rc, ncu_out, nerr = run(ncu_csv_command(app, [INST]), timeout=300)
    try:
        kernels = parse_ncu_csv(ncu_out) if rc == 0 else []
    except NcuCsvError as e:
        kernels, nerr = [], nerr + str(e)
    if not kernels or len(kernels) % len(ranges):
        failures.append(f"{label}: ncu gave {len(kernels)} kernels for {len(ranges)} ranges: {tail(nerr)}")
        continue
    per = len(kernels) // len(ranges)
    for i, r in enumerate(ranges):
        theirs = sum(k[INST] for k in kernels[i * per:(i + 1) * per])
        ours = range_values(r).get(INST)
        print(f"  range {r['index']}: {INST} {ours} vs ncu kernel replay's sum {theirs} ({per} kernels)")
        if ours != theirs:
            failures.append(f"{label} range {r['index']}: {INST} {ours} vs ncu kernel replay {theirs}")

# A program whose kernel count changes from run to run.
app = [os.path.join(BUILD, "tests/apps/app_nondeterministic"), "--iterations", "1"]
prc, pout = plain(app)
rc, out, err, report = profile_with_report(CLI, ["--nvtx-include", "step/", "--set", "basic", "--replay-mode",
                                                 "app-range"], app, timeout=600)
if isinstance(report, str) or rc != prc:
    failures.append(f"app_nondeterministic: rc={rc} (plain {prc}): {report if isinstance(report, str) else ''} "
                    f"{tail(err)}")
else:
    for r in report["ranges"]:
        print(f"app_nondeterministic range {r['index']}: {r.get('decline_reason')}: {r.get('decline_detail', '')[:160]}")
        if r.get("decline_reason") != "nondeterministic_application" or r.get("range_metrics"):
            failures.append(f"app_nondeterministic range {r['index']}: {r.get('decline_reason')}, "
                            f"{len(r.get('range_metrics') or [])} values merged")

# The same ranges measured both ways.
app = [os.path.join(BUILD, "examples/stream"), "--iterations", "3", "--bytes", "16MiB"]
prc, pout = plain(app)
LIST = [INST, "dram__bytes_read.sum", "sm__throughput.avg.pct_of_peak_sustained_elapsed",
        "lts__throughput.avg.pct_of_peak_sustained_elapsed"]
both = {}
for mode in (["--replay-mode", "app-range"], ["--range-metrics", "whole"]):
    rc, out, err, report = profile_with_report(CLI, ["--nvtx-include", "step/", "--metrics", ",".join(LIST)] + mode,
                                               app, timeout=600)
    if isinstance(report, str) or rc != prc or checksums(out) != checksums(pout):
        failures.append(f"stream {' '.join(mode)}: rc={rc}, checksums equal {checksums(out) == checksums(pout)}: "
                        f"{report if isinstance(report, str) else ''} {tail(err)}")
        continue
    if report["pass_count"] < 2:
        failures.append(f"stream {' '.join(mode)}: {report['pass_count']} passes: no counter data was carried; "
                        "add metrics that need more passes")
    both[mode[0]] = [range_values(r).get(INST) for r in sorted(report["ranges"], key=lambda r: r["index"])]
    print(f"stream {' '.join(mode)}: {report['pass_count']} passes, {INST} per range {both[mode[0]]}")
if len(both) == 2 and (both["--replay-mode"] != both["--range-metrics"] or None in both["--replay-mode"]):
    failures.append(f"stream: app-range {both['--replay-mode']} vs range replay {both['--range-metrics']}")
sys.exit(summarize(failures))
