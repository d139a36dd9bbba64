"""--collectives replay with two ranks:
tests/apps/rank_alloc.cu run as rank 0 and rank 1 at the same time by this
suite's own job launcher (two_ranks.py), 3 NVTX ranges `step`, `--set basic`
(9 passes), `--rendezvous 127.0.0.1:<a free port>`. Rank 1's range 1
allocates inside the range. The job's checksums equal a plain run's.
- With two GPUs or more, one per rank (TWO_RANKS_GPU_EACH=1): ranges 0 and 2
  are replayed by both ranks, each noting that it met the other rank at as
  many barriers as it has passes, with equal instruction counts; range 1
  declines allocation_in_range on rank 1 and peer_declined on rank 0, whose
  detail names rank 1.
- On one GPU two processes cannot count at once (the second gets
  CUPTI_ERROR_HARDWARE_BUSY; either rank may be the second): the rank
  without counters declines every range counters_unavailable and the other
  takes peer_declined for each, naming it, having met it at every range's
  end, except where its own decline stands (rank 1's range 1); each rank's
  wait at every range's agreement is timed (timings.rendezvous_ms).
Then rank 1 alone, with a rendezvous port nobody listens on: its ranges
decline rendezvous_failed within the timeout (RANGEREPLAY_RENDEZVOUS_TIMEOUT=5)
and the program's output is unchanged. No NCCL: the collective kernels
themselves need two GPUs.

GPU end-to-end test of --collectives replay with two ranks on one GPU: the ranks meet at every
multi-pass range's end and replay it together, and a range one rank declines is declined by both.
"""
import os
import socket
import subprocess
import sys
import tempfile
import time

from e2e_common import checksums, load_report, run, summarize, tail

build = sys.argv[1]
CLI = os.path.join(build, "tools/cli/rangereplay")
APP = [os.path.join(build, "tests/apps/app_rank_alloc"), "--iterations", "3", "--alloc-rank", "1", "--alloc-step", "1"]
JOB = [sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "two_ranks.py")] + APP
failures = []


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def instructions(r):
    return [m["value"] for k in r["kernels"] for m in k["metrics"] if m["name"] == "smsp__inst_executed.sum"]


env = {k: v for k, v in os.environ.items() if k not in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR",
                                                         "MASTER_PORT")}
env["RANGEREPLAY_RENDEZVOUS_TIMEOUT"] = "30"  # a rank that never comes costs 30 s, not 60
gpus = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True).stdout.count("GPU ")
if gpus >= 2:
    env["TWO_RANKS_GPU_EACH"] = "1"
rc, plain, err = run(JOB + ["--concurrent"], timeout=120, env=env)
if rc != 0:
    failures.append(f"plain job rc={rc}: {tail(err)}")
else:
    out_dir = tempfile.mkdtemp(prefix="rangereplay-collectives.")
    rc, out, err = run([CLI, "profile", "--quiet", "--nvtx-include", "step/", "--set", "basic", "--collectives",
                        "replay", "--rendezvous", f"127.0.0.1:{free_port()}", "-o",
                        os.path.join(out_dir, "r_%q{RANK}.json"), "--"] + JOB + ["--concurrent"], timeout=240, env=env)
    if rc != 0:
        failures.append(f"profiled job rc={rc}: {tail(err)}")
    elif sorted(checksums(out)) != sorted(checksums(plain)) or not checksums(plain):
        failures.append("the job's checksums differ under the tool")
    reports = {}
    for rank in (0, 1):
        path = os.path.join(out_dir, f"r_{rank}.json")
        if os.path.exists(path):
            reports[rank] = {r["index"]: r for r in load_report(path)["ranges"]}
        else:
            failures.append(f"no report {path}: {tail(err)}")
    if len(reports) == 2:
        for rank, ranges in reports.items():
            for i, r in sorted(ranges.items()):
                print(f"rank {rank} range {i}: " + (f"declined {r['decline_reason']}: {r['decline_detail']}"
                                                     if r["declined"] else f"replayed, notes {r.get('notes')}"))
        busy = [rank for rank, ranges in reports.items()
                if all(r.get("decline_reason") == "counters_unavailable" and "HARDWARE_BUSY" in r.get("decline_detail", "")
                       for r in ranges.values())]
        if gpus < 2 and len(busy) == 1:
            other = 1 - busy[0]
            print(f"one GPU: rank {busy[0]} could not count beside rank {other}; checking that rank {other} "
                  "declined with it (lockstep replay needs one GPU per rank)")
            # Both ranks met at every range's end: the wait for the agreement is timed.
            for rank in (0, 1):
                for i, r in sorted(reports[rank].items()):
                    if not r.get("timings", {}).get("rendezvous_ms", 0) > 0:
                        failures.append(f"rank {rank} range {i}: no rendezvous wait timed "
                                        f"({r.get('timings', {}).get('rendezvous_ms')})")
            for i, r in sorted(reports[other].items()):
                # A rank's own decline stands (rank 1 allocates in range 1); the others come from the busy rank.
                if other == 1 and i == 1:
                    if r.get("decline_reason") != "allocation_in_range":
                        failures.append(f"rank 1 range 1: {r.get('decline_reason')}, expected its own "
                                        "allocation_in_range")
                    continue
                if r.get("decline_reason") != "peer_declined" or f"rank {busy[0]}" not in r.get("decline_detail", ""):
                    failures.append(f"rank {other} range {i}: {r.get('decline_reason')}: {r.get('decline_detail')}, "
                                    f"expected peer_declined naming rank {busy[0]}")
        else:
            for i in (0, 2):
                a, b = reports[0].get(i), reports[1].get(i)
                if not a or not b or a["declined"] or b["declined"]:
                    failures.append(f"range {i} not replayed by both ranks")
                    continue
                # One barrier before each replayed pass's submit and one before the exit restore.
                want = f"together with the job's other 1 rank(s), meeting them at {a['passes']} barriers"
                if not all(any(want in n for n in r.get("notes", [])) for r in (a, b)) or a["passes"] < 2:
                    failures.append(f"range {i}: a rank's notes lack '{want}': {a.get('notes')} / {b.get('notes')}")
                # The waits for the other rank (agreement and barriers) are timed, within the window.
                for rank, r in ((0, a), (1, b)):
                    t = r.get("timings", {})
                    if not 0 < t.get("rendezvous_ms", 0) <= t.get("window_ms", 0):
                        failures.append(f"range {i} rank {rank}: rendezvous_ms {t.get('rendezvous_ms')} not within "
                                        f"(0, window_ms {t.get('window_ms')}]")
                if not instructions(a) or instructions(a) != instructions(b):
                    failures.append(f"range {i}: instructions rank 0 {instructions(a)} vs rank 1 {instructions(b)}")
            r0, r1 = reports[0].get(1), reports[1].get(1)
            if not r1 or r1.get("decline_reason") != "allocation_in_range":
                failures.append(f"range 1 on rank 1: {r1 and r1.get('decline_reason')}, expected allocation_in_range")
            if not r0 or r0.get("decline_reason") != "peer_declined" or "rank 1" not in r0.get("decline_detail", ""):
                failures.append(f"range 1 on rank 0: {r0 and (r0.get('decline_reason'), r0.get('decline_detail'))}, "
                                "expected peer_declined naming rank 1")

    # A launcher that is one rank of two, with no job id its peers share and no
    # token: refused before the application starts (exit 2), naming the token.
    job_ids = ("PMIX_NAMESPACE", "OMPI_MCA_ess_base_jobid", "TORCHELASTIC_RUN_ID", "SLURM_JOB_ID",
               "RANGEREPLAY_RENDEZVOUS_TOKEN")
    no_job = {k: v for k, v in env.items() if k not in job_ids}
    no_job.update(RANK="1", WORLD_SIZE="2", LOCAL_RANK="1")
    rc, _, err = run([CLI, "profile", "--quiet", "--nvtx-include", "step/", "--set", "basic", "--collectives",
                      "replay", "--rendezvous", f"127.0.0.1:{free_port()}", "-o", os.path.join(out_dir, "no_job.json"),
                      "--"] + APP, timeout=60, env=no_job)
    if rc != 2 or "RANGEREPLAY_RENDEZVOUS_TOKEN" not in err:
        failures.append(f"rank of two without a job id: rc={rc}, expected 2 naming the token: {tail(err)}")

    # A rank whose peers never come (the job's token set, as its launcher under
    # a job would derive it): declines, within the timeout, never hangs.
    alone = dict(no_job, RANGEREPLAY_RENDEZVOUS_TIMEOUT="5", RANGEREPLAY_RENDEZVOUS_TOKEN="job-of-one-rank")
    out_path = os.path.join(out_dir, "alone.json")
    rc_plain, plain1, _ = run(APP, timeout=60, env=alone)
    started = time.monotonic()
    rc, out, err = run([CLI, "profile", "--quiet", "--nvtx-include", "step/", "--set", "basic", "--collectives",
                        "replay", "--rendezvous", f"127.0.0.1:{free_port()}", "-o", out_path, "--"] + APP,
                       timeout=120, env=alone)
    took = time.monotonic() - started
    if rc_plain != 0 or rc != 0 or checksums(out) != checksums(plain1) or not checksums(plain1):
        failures.append(f"rank alone: rc={rc_plain}/{rc} or checksums differ: {tail(err)}")
    elif not os.path.exists(out_path):
        failures.append(f"rank alone: no report {out_path}: {tail(err)}")
    else:
        # Rank 1 waits up to twice the 5 s timeout to reach rank 0, once.
        if took > 60:
            failures.append(f"rank alone: the profiled run took {took:.0f} s")
        reasons = [r.get("decline_reason") for r in load_report(out_path)["ranges"]]
        print(f"rank alone: {reasons}")
        if reasons[:1] != ["rendezvous_failed"] or any(x not in ("rendezvous_failed", "allocation_in_range")
                                                        for x in reasons):
            failures.append(f"rank alone: ranges declined {reasons}, expected rendezvous_failed")
sys.exit(summarize(failures))
