"""A job launcher of the multi-process test's own, as torchrun starts ranks:
runs the given program as rank 0 and rank 1 (RANK, LOCAL_RANK and WORLD_SIZE
set), one after the other (--sequential) or at the same time (--concurrent),
with its output passed through; exits with the first non-zero exit code.
With TWO_RANKS_GPU_EACH=1 in the environment, each rank sees only GPU
<rank> (CUDA_VISIBLE_DEVICES), as a one-GPU-per-rank job does.

    python3 tests/e2e/two_ranks.py <program> [args...] --sequential|--concurrent
"""
import os
import subprocess
import sys

mode = sys.argv[-1]
cmd = sys.argv[1:-1]
if mode not in ("--sequential", "--concurrent") or not cmd:
    sys.exit("usage: two_ranks.py <program> [args...] --sequential|--concurrent")


def start(rank):
    env = dict(os.environ, RANK=str(rank), LOCAL_RANK=str(rank), WORLD_SIZE="2")
    if os.environ.get("TWO_RANKS_GPU_EACH") == "1":
        env["CUDA_VISIBLE_DEVICES"] = str(rank)
    return subprocess.Popen(cmd, env=env)


codes = []
if mode == "--sequential":
    for rank in (0, 1):
        codes.append(start(rank).wait())
else:
    procs = [start(rank) for rank in (0, 1)]
    codes = [p.wait() for p in procs]
sys.exit(next((c for c in codes if c != 0), 0))
