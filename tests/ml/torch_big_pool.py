"""torch_big_pool.py: training steps run while PyTorch's caching allocator
holds a huge freed segment, for the `ml` corpus (tests/ml/run_ml.py).

Before the model exists, --reserve-gb GB (default 40) are allocated in
--pieces tensors (default 4), written once, and freed: the caching allocator
keeps the memory (it returns nothing to the driver before empty_cache()), and
the model's parameters, activations and optimizer state are then carved out
of those cached segments. So each profiled step writes a few MB inside
allocations of ~10 GB each: what a tool that snapshots whole allocations
meets in a training process that once held more.

  --expandable-segments on|off   on: PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True
                                 (set before torch is imported): the allocator maps
                                 physical memory into one growing virtual range
                                 (cuMemCreate/cuMemMap) instead of one cudaMalloc per segment
  --reserve-gb N                 GB allocated and freed first, default 40 (0: none)
  --pieces N                     tensors they are allocated in, default 4
  --steps N                      profiled steps, default 3

The model is an MLP classifier with AdamW, two warm-up steps outside any
range, then one NVTX range `step` per profiled step ending with
torch.cuda.synchronize().

Output: `loss <i> <hex>` per profiled step, `checksum params <hex>`. Exit 0;
77 without PyTorch or a GPU, or when the GPU has less free memory than
--reserve-gb plus 4 GB; 2 on a usage error.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ml_common  # noqa: E402

BATCH = 1024
SIZES = (1024, 2048, 2048, 32)
GB = 1 << 30


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--expandable-segments", choices=["on", "off"], default="off")
    p.add_argument("--reserve-gb", type=float, default=40.0)
    p.add_argument("--pieces", type=int, default=4)
    p.add_argument("--steps", type=int, default=3)
    args = p.parse_args()
    if args.steps < 1 or args.pieces < 1 or args.reserve_gb < 0:
        p.error("--steps and --pieces must be at least 1, --reserve-gb not negative")
    if args.expandable_segments == "on":
        conf = os.environ.get("PYTORCH_CUDA_ALLOC_CONF", "")
        os.environ["PYTORCH_CUDA_ALLOC_CONF"] = ",".join(x for x in (conf, "expandable_segments:True") if x)
    torch = ml_common.import_torch()
    import torch.nn as nn  # noqa: PLC0415
    device = torch.device("cuda")

    free, _total = torch.cuda.mem_get_info()
    if free < (args.reserve_gb + 4) * GB:
        ml_common.skip(f"{free / GB:.1f} GB free on the GPU, --reserve-gb {args.reserve_gb} needs 4 GB more")
    piece = int(args.reserve_gb * GB) // args.pieces
    if piece:
        big = [torch.empty(piece, dtype=torch.uint8, device=device) for _ in range(args.pieces)]
        for t in big:
            t.fill_(0x5A)
        torch.cuda.synchronize()
        del big, t
    stats = torch.cuda.memory_stats()
    print(f"info reserved {stats.get('reserved_bytes.all.current', 0) / GB:.1f} GB, "
          f"allocated {stats.get('allocated_bytes.all.current', 0) / GB:.1f} GB after the free", file=sys.stderr)

    layers = []
    for i, (fan_in, fan_out) in enumerate(zip(SIZES[:-1], SIZES[1:])):
        layers.append(nn.Linear(fan_in, fan_out))
        if i < len(SIZES) - 2:
            layers.append(nn.ReLU())
    model = nn.Sequential(*layers).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, foreach=True)
    loss_fn = nn.CrossEntropyLoss()
    gen = torch.Generator(device="cpu").manual_seed(5)
    batches = [(torch.randn(BATCH, SIZES[0], generator=gen).to(device),
                torch.randint(0, SIZES[-1], (BATCH,), generator=gen).to(device)) for _ in range(args.steps + 2)]

    def step(x, y):
        optimizer.zero_grad(set_to_none=False)
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        return loss.detach()

    held = step(*batches[0])
    held = step(*batches[1])
    torch.cuda.synchronize()
    del held

    losses = []
    for x, y in batches[2:]:
        torch.cuda.nvtx.range_push(ml_common.RANGE_NAME)
        loss = step(x, y)
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_pop()
        losses.append(loss)

    ml_common.print_results("params", [l.item() for l in losses], ml_common.tensor_bytes(model.parameters()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
