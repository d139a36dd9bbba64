"""torch_sdpa.py: scaled-dot-product attention on the flash kernels for the
`ml` corpus (tests/ml/run_ml.py): a causal self-attention block (query, key,
value and output projections around
torch.nn.functional.scaled_dot_product_attention, restricted to
SDPBackend.FLASH_ATTENTION with torch.nn.attention.sdpa_kernel) in float16
or bfloat16, forward and backward, and an SGD update of the projections.

Each profiled step is one NVTX range `step` ending with
torch.cuda.synchronize(); two warm-up steps run first. Deterministic
algorithms are on; whether PyTorch's flash backward then gives the same bits
in every run (its dQ may be accumulated with atomics) is what the two plain
runs of run_ml.py show.

  --dtype float16|bfloat16   default bfloat16
  --steps N                  profiled steps, default 3

Output: `loss <i> <hex>` per profiled step, `checksum params <hex>`. Exit 0;
77 without PyTorch or a GPU; 2 on a usage error. A GPU or build whose flash
kernel cannot run these shapes fails with PyTorch's "No available kernel"
error (exit 1).
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ml_common  # noqa: E402

BATCH = 4
SEQ = 1024
HEADS = 8
HEAD_DIM = 64
MODEL = HEADS * HEAD_DIM


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dtype", choices=["float16", "bfloat16"], default="bfloat16")
    p.add_argument("--steps", type=int, default=3)
    args = p.parse_args()
    if args.steps < 1:
        p.error("--steps must be at least 1")
    torch = ml_common.import_torch()
    import torch.nn.functional as F  # noqa: PLC0415
    from torch.nn.attention import SDPBackend, sdpa_kernel  # noqa: PLC0415

    device = torch.device("cuda")
    dtype = getattr(torch, args.dtype)
    gen = torch.Generator(device="cpu").manual_seed(11)

    def weight(rows, cols):
        return (torch.randn(rows, cols, generator=gen) / cols ** 0.5).to(device=device, dtype=dtype).requires_grad_()

    w_qkv, w_out = weight(3 * MODEL, MODEL), weight(MODEL, MODEL)
    params = [w_qkv, w_out]
    xs = [torch.randn(BATCH, SEQ, MODEL, generator=gen).to(device=device, dtype=dtype) for _ in range(args.steps + 2)]

    def step(x):
        for w in params:
            if w.grad is not None:
                w.grad.zero_()
        qkv = F.linear(x, w_qkv).view(BATCH, SEQ, 3, HEADS, HEAD_DIM).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
            attn = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        out = F.linear(attn.transpose(1, 2).reshape(BATCH, SEQ, MODEL), w_out)
        loss = out.float().pow(2).mean()
        loss.backward()
        with torch.no_grad():
            for w in params:
                w.sub_(w.grad, alpha=0.5)
        return loss.detach()

    held = step(xs[0])
    held = step(xs[1])
    torch.cuda.synchronize()
    del held

    losses = []
    for x in xs[2:]:
        torch.cuda.nvtx.range_push(ml_common.RANGE_NAME)
        loss = step(x)
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_pop()
        losses.append(loss)

    ml_common.print_results("params", [l.item() for l in losses], ml_common.tensor_bytes(params))
    return 0


if __name__ == "__main__":
    sys.exit(main())
