"""torch_conv_amp.py: a convolutional network trained with automatic mixed
precision for the `ml` corpus (tests/ml/run_ml.py): torchvision's resnet18
with random weights (weights=None: nothing is downloaded), channels_last
memory format, cuDNN convolutions (deterministic algorithms, no
benchmarking), torch.autocast in float16 with a GradScaler (or bfloat16
without one), SGD with momentum.

Each profiled step (forward, scaled backward, the scaler's step and update)
is one NVTX range `step` ending with torch.cuda.synchronize(). The
GradScaler's step reads its inf/NaN flag on the host: one device-to-host
copy inside each range. Two warm-up steps run first (cuDNN handles and
workspaces, the caching allocator's blocks, the optimizer's state).

  --dtype float16|bfloat16   autocast type (float16 uses the GradScaler), default float16
  --steps N                  profiled steps, default 3

Output: `loss <i> <hex>` per profiled step, `checksum params <hex>` (every
parameter and buffer, BatchNorm's running statistics included). Exit 0; 77
without PyTorch, torchvision or a GPU; 2 on a usage error.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ml_common  # noqa: E402

BATCH = 32
IMAGE = 64
CLASSES = 10


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dtype", choices=["float16", "bfloat16"], default="float16")
    p.add_argument("--steps", type=int, default=3)
    args = p.parse_args()
    if args.steps < 1:
        p.error("--steps must be at least 1")
    torch = ml_common.import_torch()
    try:
        import torchvision  # noqa: PLC0415
    except ImportError as e:
        ml_common.skip(f"torchvision not importable: {e}")

    device = torch.device("cuda")
    dtype = getattr(torch, args.dtype)
    model = torchvision.models.resnet18(weights=None, num_classes=CLASSES)
    model = model.to(device).to(memory_format=torch.channels_last)
    model.train()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, foreach=True)
    scaler = torch.amp.GradScaler("cuda", enabled=(dtype == torch.float16))
    loss_fn = torch.nn.CrossEntropyLoss()

    gen = torch.Generator(device="cpu").manual_seed(7)
    batches = [(torch.randn(BATCH, 3, IMAGE, IMAGE, generator=gen).to(device).contiguous(
                    memory_format=torch.channels_last),
                torch.randint(0, CLASSES, (BATCH,), generator=gen).to(device)) for _ in range(args.steps + 2)]

    def step(x, y):
        optimizer.zero_grad(set_to_none=False)
        with torch.autocast(device_type="cuda", dtype=dtype):
            loss = loss_fn(model(x), y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        return loss.detach().float()

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

    state = [t for t in model.state_dict().values() if t.is_floating_point()]
    ml_common.print_results("params", [l.item() for l in losses], ml_common.tensor_bytes(state))
    return 0


if __name__ == "__main__":
    sys.exit(main())
