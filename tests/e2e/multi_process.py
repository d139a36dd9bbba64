"""Multi-process jobs: a job launcher of this test's own
(tests/e2e/two_ranks.py) starts examples/stream as rank 0 and rank 1, with
RANK and WORLD_SIZE set as torchrun sets them, one after the other and then at
the same time. Under `rangereplay profile -o <dir>/r_%q{RANK}.json`: each rank
writes its own report, named by its own RANK (unset where rangereplay runs),
recording its pid, host and RANK; the terminal shows one summary line per rank;
the job's output equals a plain run's. Ranks run one after the other replay
their ranges with equal instruction counts, and `rangereplay merge` of their
two reports pairs every range across the ranks, each rank's instruction
counts side by side (min equal to max); ranks run at the same time are
reported as they come (a range that could not get the GPU's counters says why:
two processes cannot count on one GPU at once).

GPU end-to-end test of multi-process jobs: one report per rank, named by the rank's own variables.
"""
import json
import os
import sys
import tempfile

from e2e_common import checksums, load_report, run, summarize, tail

build = sys.argv[1]
CLI = os.path.join(build, "tools/cli/rangereplay")
JOB = [sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "two_ranks.py"),
       os.path.join(build, "examples/stream"), "--iterations", "2", "--bytes", "16MiB"]
failures = []


def instructions(report):
    return [m["value"] for r in report["ranges"] if not r["declined"] for k in r["kernels"] for m in k["metrics"]
            if m["name"] == "smsp__inst_executed.sum"]


for mode in ("sequential", "concurrent"):
    env = {k: v for k, v in os.environ.items() if k not in ("RANK", "WORLD_SIZE", "LOCAL_RANK")}
    rc, plain, err = run(JOB + ["--" + mode], timeout=240, env=env)
    if rc != 0:
        failures.append(f"{mode}: plain job rc={rc}: {tail(err)}")
        continue
    out_dir = tempfile.mkdtemp(prefix="rangereplay-ranks.")
    rc, out, err = run([CLI, "profile", "--nvtx-include", "step/", "--set", "basic", "-o",
                        os.path.join(out_dir, "r_%q{RANK}.json"), "--"] + JOB + ["--" + mode],
                       timeout=150 if mode == "concurrent" else 300, env=env)
    if rc != 0:
        failures.append(f"{mode}: profiled job rc={rc}: {tail(err)}")
        continue
    if sorted(checksums(out)) != sorted(checksums(plain)) or not checksums(plain):
        failures.append(f"{mode}: the job's checksums differ under the tool")
    reports = []
    for rank in (0, 1):
        path = os.path.join(out_dir, f"r_{rank}.json")
        if not os.path.exists(path):
            failures.append(f"{mode}: no report {path}; files: {sorted(os.listdir(out_dir))}; {tail(err)}")
            continue
        rep = load_report(path)
        reports.append(rep)
        if rep["environment"].get("RANK") != str(rank) or not rep["process_id"] or not rep["host_name"]:
            failures.append(f"{mode}: r_{rank}.json records pid {rep['process_id']}, host '{rep['host_name']}', "
                            f"environment {rep['environment']}")
        declined = [f"{r['decline_reason']}: {r['decline_detail']}" for r in rep["ranges"] if r["declined"]]
        print(f"{mode} rank {rank}: pid {rep['process_id']}, {len(rep['ranges'])} ranges, "
              f"{len(instructions(rep))} kernel values, declined {declined}")
        if mode == "sequential" and declined:
            failures.append(f"{mode}: rank {rank} declined {declined}")
    if len(reports) == 2 and reports[0]["process_id"] == reports[1]["process_id"]:
        failures.append(f"{mode}: both reports name pid {reports[0]['process_id']}")
    if mode == "sequential" and len(reports) == 2:
        if not instructions(reports[0]) or instructions(reports[0]) != instructions(reports[1]):
            failures.append(f"{mode}: instruction counts rank 0 {instructions(reports[0])} vs rank 1 "
                            f"{instructions(reports[1])}")
        merged_path = os.path.join(out_dir, "job.json")
        rc, mout, merr = run([CLI, "merge", os.path.join(out_dir, "r_0.json"), os.path.join(out_dir, "r_1.json"),
                              "-o", merged_path], timeout=60)
        if rc != 0 or not os.path.exists(merged_path):
            failures.append(f"merge rc={rc}: {tail(merr)}")
        else:
            with open(merged_path) as f:
                merged = json.load(f)
            pairs = [(r["range"], m) for r in merged["ranges"] for k in r["kernels"] for m in k["metrics"]
                     if m["metric"] == "smsp__inst_executed.sum"]
            print(f"merge: {len(merged['ranks'])} ranks, {len(merged['ranges'])} ranges, {len(pairs)} kernel "
                  f"instruction rows, mismatched {merged['mismatched']}")
            if len(merged["ranks"]) != 2 or len(merged["ranges"]) != len(reports[0]["ranges"]) or not pairs:
                failures.append(f"merge: {len(merged['ranks'])} ranks and {len(merged['ranges'])} ranges")
            for rng, m in pairs:  # a range both ranks declined has no values (count 0): reported above
                if m["count"] and (m["count"] != 2 or m["min"] != m["max"]):
                    failures.append(f"merge: {rng}: instructions per rank {m['values']}")
    lines = [line for line in out.splitlines() if line.startswith("  rank ")]
    if "2 processes profiled:" not in out or len(lines) != 2 or not all(" -> " in line for line in lines):
        failures.append(f"{mode}: the terminal's per-process lines: {lines}")
    else:
        print("\n".join(lines))
sys.exit(summarize(failures))
