"""Ranges holding NCCL calls: tests/e2e/nccl_world1.py
(an NCCL communicator of world size 1) under `rangereplay profile
--nvtx-include compute/ --nvtx-include allreduce/ --set basic`: the program's
checksums equal a plain run's; every `compute` range is replayed; an
`allreduce` range that launched one of NCCL's collective kernels
(ncclDevKernel_*: core/interprocess/collective_kernels.h) declines collective_in_range,
and one without (a world-size-1 all-reduce may launch none, or NCCL's
one-rank reduction, which has no peers) is replayed. The kernels each range
held are printed. Skipped (77) without PyTorch, CUDA or NCCL.

GPU end-to-end test of ranges holding an NCCL collective (PyTorch's NCCL, world size 1): they
decline collective_in_range and the program's results are unchanged.
"""
import os
import sys
import tempfile

from e2e_common import checksums, load_report, run, summarize, tail

build = sys.argv[1]
CLI = os.path.join(build, "tools/cli/rangereplay")
APP = [sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "nccl_world1.py"), "--steps", "2"]
failures = []
rc, plain, err = run(APP, timeout=300)
if rc == 77:
    print(f"skipped: {tail(err)}")
    sys.exit(77)
if rc != 0:
    failures.append(f"plain run rc={rc}: {tail(err)}")
else:
    out_path = tempfile.mktemp(suffix=".json")
    rc, out, err = run([CLI, "profile", "--quiet", "--nvtx-include", "compute/", "--nvtx-include", "allreduce/",
                        "--set", "basic", "--output", out_path, "--"] + APP, timeout=240)
    if rc != 0:
        failures.append(f"profile rc={rc}: {tail(err)}")
    else:
        if checksums(out) != checksums(plain) or not checksums(plain):
            failures.append(f"checksums differ under the tool: {checksums(out)} vs {checksums(plain)}")
        report = load_report(out_path)
        for r in report["ranges"]:
            print(f"range {r['index']} '{r['name']}': "
                  + (f"declined {r['decline_reason']}: {r['decline_detail']}" if r["declined"] else
                     f"replayed, {len(r['kernels'])} kernels"))
            if r["name"] == "allreduce":
                names = [k["name"] for k in r["kernels"]]
                print(f"  kernels: {names}")
                if r["declined"] and r["decline_reason"] != "collective_in_range":
                    failures.append(f"range {r['index']} allreduce: {r['decline_reason']} {r['decline_detail']}")
                if not r["declined"] and any("ncclDevKernel" in n or "ncclKernel" in n for n in names):
                    failures.append(f"range {r['index']} allreduce replayed an NCCL collective kernel: {names}")
            if r["name"] == "compute" and r["declined"]:
                failures.append(f"range {r['index']} compute declined: {r['decline_reason']} {r['decline_detail']}")
        if sorted(r["name"] for r in report["ranges"]) != ["allreduce", "allreduce", "compute", "compute"]:
            failures.append(f"ranges {[r['name'] for r in report['ranges']]}")
sys.exit(summarize(failures))
