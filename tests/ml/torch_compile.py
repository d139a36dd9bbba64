"""torch_compile.py: a training step compiled with torch.compile for the `ml`
corpus (tests/ml/run_ml.py): a small MLP classifier whose forward and loss
are compiled (Inductor: Triton kernels for the fused pointwise work and
reductions, cuBLAS for the matrix products; AOTAutograd compiles the
backward), with an eager Adam step.

  --mode default            Triton kernels launched one by one.
  --mode reduce-overhead    CUDA graph trees: Inductor captures the compiled
                            forward and backward as CUDA graphs by stream
                            capture, in a private memory pool, with static
                            input buffers, and replays them.
  --range-capture           (reduce-overhead) one more range, first, around the
                            calls that record the graphs (see below).
  --steps N                 profiled steps after the warm-up, default 3.

Warm-up before any range: the first call compiles (Dynamo, Inductor, Triton)
and, under reduce-overhead, runs the compiled code once in the graph pool
without capturing (CUDA graph trees' warm-up run). CUDA graph trees record a
graph on the next call of the same function and replay it from then on, so
without --range-capture 4 warm-up calls run (compile, warm-up, record,
replay) and every range replays graphs. With --range-capture, 1 warm-up call
runs and the range `step` that follows covers calls 2 and 3: the recording
is on call 2 in the versions read while writing this (PyTorch's
cudagraph_trees.py: warm up once, record on the next call); the range spans
call 3 too in case a version warms up twice. The report's first range is
that capture range; the ranges after it replay graphs.

Deterministic: fixed seeds, torch.use_deterministic_algorithms(True), TF32
off, CUBLAS_WORKSPACE_CONFIG, Inductor's deterministic mode where it has one
(TORCHINDUCTOR_DETERMINISTIC=1 before the import and
torch._inductor.config.deterministic: no reduction configurations picked by
timing, whose pick, and so the summation order, could differ between runs).

Output: `loss <i> <hex>` per profiled step (the capture range counts as one),
`checksum params <hex>`. Exit 0; 77 without PyTorch or a GPU; 2 on a usage
error.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ml_common  # noqa: E402

BATCH = 512
SIZES = (512, 1024, 1024, 16)


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--mode", choices=["default", "reduce-overhead"], default="default")
    p.add_argument("--range-capture", action="store_true")
    p.add_argument("--steps", type=int, default=3)
    args = p.parse_args()
    if args.steps < 1:
        p.error("--steps must be at least 1")
    if args.range_capture and args.mode != "reduce-overhead":
        p.error("--range-capture needs --mode reduce-overhead (only CUDA graph trees capture)")
    return args


def main():
    args = parse_args()
    # Inductor reads its deterministic mode's default from the environment
    # when it is imported; the config attribute below is set as well.
    os.environ.setdefault("TORCHINDUCTOR_DETERMINISTIC", "1")
    torch = ml_common.import_torch()
    import torch.nn as nn  # noqa: PLC0415
    import torch.nn.functional as F  # noqa: PLC0415
    import torch._inductor.config as inductor_config  # noqa: PLC0415
    try:
        inductor_config.deterministic = True
    except (AttributeError, KeyError):
        pass  # an Inductor without the mode: its default heuristics pick configurations without timing

    device = torch.device("cuda")
    layers = []
    for i, (fan_in, fan_out) in enumerate(zip(SIZES[:-1], SIZES[1:])):
        layers.append(nn.Linear(fan_in, fan_out))
        if i < len(SIZES) - 2:
            layers += [nn.LayerNorm(fan_out), nn.GELU()]
    model = nn.Sequential(*layers).to(device)

    def forward_loss(x, y):
        return F.cross_entropy(model(x), y)

    compiled = torch.compile(forward_loss, mode=args.mode)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, foreach=True)
    graphs = args.mode == "reduce-overhead"

    gen = torch.Generator(device="cpu").manual_seed(99)
    warm = 1 if args.range_capture else (4 if graphs else 2)
    calls = warm + (2 if args.range_capture else 0) + args.steps
    batches = [(torch.randn(BATCH, SIZES[0], generator=gen).to(device),
                torch.randint(0, SIZES[-1], (BATCH,), generator=gen).to(device)) for _ in range(calls)]

    def step(x, y):
        if graphs:
            # A new iteration: outputs of the previous one may be overwritten.
            torch.compiler.cudagraph_mark_step_begin()
        # Gradients are set anew each step (set_to_none): under graph trees the
        # backward's outputs live in the graph pool, and accumulating into the
        # previous step's would read memory the next replay overwrote.
        optimizer.zero_grad(set_to_none=True)
        loss = compiled(x, y)
        loss.backward()
        optimizer.step()
        # An eager copy: a graph's output lives in the graph pool and is
        # overwritten by the next replay.
        return loss.detach().clone()

    held = None
    for x, y in batches[:warm]:
        held = step(x, y)
    torch.cuda.synchronize()
    del held

    losses = []
    rest = batches[warm:]
    if args.range_capture:
        torch.cuda.nvtx.range_push(ml_common.RANGE_NAME)
        step(*rest[0])
        loss = step(*rest[1])
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_pop()
        losses.append(loss)
        rest = rest[2:]
    for x, y in rest:
        torch.cuda.nvtx.range_push(ml_common.RANGE_NAME)
        loss = step(x, y)
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_pop()
        losses.append(loss)

    ml_common.print_results("params", [l.item() for l in losses], ml_common.tensor_bytes(model.parameters()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
