"""A PyTorch program of this test's own with an NCCL communicator of world
size 1 (one process, one GPU): three warm-up steps, then two NVTX ranges per
step, `compute/` (a matrix product) and `allreduce/` (the same product
followed by dist.all_reduce with SUM and with AVG). With one rank NCCL has no
peers to exchange with: it may launch no kernel of its own (SUM in place) or
its one-rank reduction kernel (AVG), which a replay may re-run soundly. Prints `checksum <name> <hex>`
lines of the results. Exit 77 when PyTorch, CUDA or NCCL is missing.

    python3 tests/e2e/nccl_world1.py [--steps N]
"""
import hashlib
import os
import socket
import sys

try:
    import torch
    import torch.distributed as dist
except ImportError as error:
    print(f"skipped: PyTorch not importable: {error}", file=sys.stderr)
    sys.exit(77)
if not torch.cuda.is_available() or not dist.is_nccl_available():
    print("skipped: no CUDA device or no NCCL in this PyTorch", file=sys.stderr)
    sys.exit(77)

steps = int(sys.argv[sys.argv.index("--steps") + 1]) if "--steps" in sys.argv else 2
with socket.socket() as s:  # a free port for the one-rank rendezvous
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK="0", WORLD_SIZE="1")
dist.init_process_group("nccl", rank=0, world_size=1, device_id=torch.device("cuda:0"))
torch.manual_seed(7)
a = torch.randn(1024, 1024, device="cuda")
b = torch.randn(1024, 1024, device="cuda")
out_c = torch.empty(1024, 1024, device="cuda")
out_r = torch.empty(1024, 1024, device="cuda")


def step(profiled):
    if profiled:
        torch.cuda.nvtx.range_push("compute")
    torch.matmul(a, b, out=out_c)
    out_c.mul_(0.5)
    if profiled:
        torch.cuda.nvtx.range_pop()
        torch.cuda.nvtx.range_push("allreduce")
    torch.matmul(out_c, b, out=out_r)
    dist.all_reduce(out_r, op=dist.ReduceOp.SUM)
    dist.all_reduce(out_r, op=dist.ReduceOp.AVG)
    if profiled:
        torch.cuda.nvtx.range_pop()
    a.copy_(out_r * 1e-3)


for _ in range(3):  # warm-up: NCCL's kernels and cuBLAS loaded, the allocator's pools made
    step(False)
torch.cuda.synchronize()
for _ in range(steps):
    step(True)
torch.cuda.synchronize()
for name, t in (("compute", out_c), ("allreduce", out_r)):
    print(f"checksum {name} {hashlib.blake2b(t.cpu().numpy().tobytes(), digest_size=8).hexdigest()}")
dist.destroy_process_group()
