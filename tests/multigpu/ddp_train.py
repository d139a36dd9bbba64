"""ddp_train.py: a DistributedDataParallel training step of a small
transformer for the `multigpu` suite (tests/multigpu/run_multigpu.py), one
process per GPU under torchrun:

    python3 -m torch.distributed.run --nproc_per_node 2 tests/multigpu/ddp_train.py [--steps N]

The model is a torch.nn.TransformerEncoder (3 layers, d_model 256, 8 heads,
feed-forward 1024, no dropout) with a linear classifier on the mean over the
sequence, float32, wrapped in DDP with 1 MB gradient buckets, so that the
backward pass of every step launches several NCCL all-reduces of the
gradients. Each profiled step is one NVTX push/pop range `step` (zero the
gradients, forward, backward with DDP's all-reduces, SGD with momentum, then
torch.cuda.synchronize(), so every rank's all-reduces and the update belong to
the range). Three warm-up steps run before the first range (cuBLAS handles,
the caching allocator's pools, DDP's bucket rebuild after its first
iteration, NCCL's communicator and its kernels' first launches).

Determinism: fixed seeds (the model's from 1234 on every rank, each rank's
batches from 1000 + rank on the CPU, all copied to the device before the
first step), deterministic algorithms, CUBLAS_WORKSPACE_CONFIG=:4096:8, TF32
off (tests/ml/ml_common.import_torch), attention on the math backend of
scaled_dot_product_attention only (the flash and memory-efficient backwards
may accumulate with atomics).

The multicast paths NCCL and PyTorch's symmetric memory would take on NVLink
machines (NVLS, cuMulticastCreate) are turned off before the process group
starts: NCCL_NVLS_ENABLE=0, TORCH_SYMM_MEM_DISABLE_MULTICAST=1.

Output, all of a rank's lines written at once after the last step:
    rank <r> loss <i> <float.hex() of the step's loss on rank r>
    rank <r> checksum params <16 hex digits: BLAKE2b-64 of the parameters>
Losses differ from rank to rank (each has its own batches); the parameters,
averaged by DDP every step, are equal on every rank. Exit 0; 77 without
PyTorch, CUDA or NCCL; 2 on a usage error (including a start without
torchrun's RANK, LOCAL_RANK and WORLD_SIZE).
"""
import argparse
import os
import sys

# Read by NCCL and by PyTorch when the process group starts: set before.
os.environ["NCCL_NVLS_ENABLE"] = "0"
os.environ["TORCH_SYMM_MEM_DISABLE_MULTICAST"] = "1"

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "ml"))
import ml_common  # noqa: E402

BATCH = 16
SEQ = 64
MODEL = 256
HEADS = 8
FFN = 1024
LAYERS = 3
CLASSES = 16
WARMUP = 3


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=3, help="profiled steps (NVTX ranges `step`), default 3")
    args = p.parse_args()
    if args.steps < 1:
        p.error("--steps must be at least 1")
    missing = [v for v in ("RANK", "LOCAL_RANK", "WORLD_SIZE") if v not in os.environ]
    if missing:
        p.error(f"{', '.join(missing)} not set: start this under torchrun, e.g. "
                f"python3 -m torch.distributed.run --nproc_per_node 2 {sys.argv[0]}")
    return args


def main():
    args = parse_args()
    rank, local_rank, world = (int(os.environ[v]) for v in ("RANK", "LOCAL_RANK", "WORLD_SIZE"))
    torch = ml_common.import_torch()
    import torch.distributed as dist  # noqa: PLC0415
    from torch.nn.attention import SDPBackend, sdpa_kernel  # noqa: PLC0415
    from torch.nn.parallel import DistributedDataParallel  # noqa: PLC0415

    if not dist.is_nccl_available():
        ml_common.skip("this PyTorch has no NCCL")
    if torch.cuda.device_count() <= local_rank:
        ml_common.skip(f"rank {rank} needs GPU {local_rank}; {torch.cuda.device_count()} visible")
    device = torch.device("cuda", local_rank)
    torch.cuda.set_device(device)
    dist.init_process_group("nccl", rank=rank, world_size=world, device_id=device)

    torch.manual_seed(1234)  # the same initial model on every rank
    layer = torch.nn.TransformerEncoderLayer(MODEL, HEADS, dim_feedforward=FFN, dropout=0.0, batch_first=True)
    model = torch.nn.ModuleDict({"encoder": torch.nn.TransformerEncoder(layer, LAYERS, enable_nested_tensor=False),
                                 "head": torch.nn.Linear(MODEL, CLASSES)}).to(device)

    class Net(torch.nn.Module):
        def __init__(self, parts):
            super().__init__()
            self.parts = parts

        def forward(self, x):
            return self.parts["head"](self.parts["encoder"](x).mean(dim=1))

    net = DistributedDataParallel(Net(model), device_ids=[local_rank], bucket_cap_mb=1,
                                  gradient_as_bucket_view=True)
    opt = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
    loss_fn = torch.nn.CrossEntropyLoss()

    gen = torch.Generator(device="cpu").manual_seed(1000 + rank)
    batches = [(torch.randn(BATCH, SEQ, MODEL, generator=gen).to(device),
                torch.randint(0, CLASSES, (BATCH,), generator=gen).to(device)) for _ in range(WARMUP + args.steps)]

    def step(x, y):
        opt.zero_grad(set_to_none=False)
        with sdpa_kernel(SDPBackend.MATH):
            loss = loss_fn(net(x), y)
            loss.backward()  # DDP's hooks all-reduce the gradient buckets
        opt.step()
        return loss.detach()

    for x, y in batches[:WARMUP]:
        step(x, y)
    torch.cuda.synchronize()
    dist.barrier()

    losses = []
    for x, y in batches[WARMUP:]:
        torch.cuda.nvtx.range_push(ml_common.RANGE_NAME)
        losses.append(step(x, y))
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_pop()

    params = ml_common.digest(ml_common.tensor_bytes(list(net.module.parameters())))
    lines = [f"rank {rank} loss {i} {float(l.item()).hex()}" for i, l in enumerate(losses)]
    lines.append(f"rank {rank} checksum params {params}")
    # One write per rank: the ranks share torchrun's stdout.
    sys.stdout.write("\n".join(lines) + "\n")
    sys.stdout.flush()
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
