"""torch_transformer.py: a PyTorch workload for the real-workload suite
(tests/workloads/run_workloads.py): a small transformer language model whose
training step (forward, loss, backward on autograd's thread, AdamW step) or
inference step runs inside the NVTX push/pop range `step`, exercising the CUDA
caching allocator, cuBLAS and PyTorch's own kernels, code this project did not
write.

Deterministic by construction (fixed seeds, deterministic algorithms,
CUBLAS_WORKSPACE_CONFIG set before torch is imported, TF32 off), so that a run
under rangereplay can be compared bit for bit with a plain run.

Output:
    loss <step> <float.hex() of the loss>        one line per step
    checksum params <16 hex>                     BLAKE2b-64 of every parameter's bytes
    checksum logits <16 hex>                     (infer mode) last step's logits
    checksums-done
Two warm-up steps run before any range, so the caching allocator's pools, the
cuBLAS handle and AdamW's state exist before the first profiled range.

usage: python3 torch_transformer.py [--mode train|infer] [--steps N]
Exit status 77 when PyTorch or a CUDA device is missing (skipped), 2 on a
usage error.
"""
import argparse
import ctypes
import hashlib
import os
import sys

os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")

try:
    import torch
    import torch.nn as nn
except ImportError as error:
    print(f"skipped: PyTorch not importable: {error}", file=sys.stderr)
    sys.exit(77)

VOCAB = 8192
D_MODEL = 512
HEADS = 8
LAYERS = 4
SEQ = 256
BATCH = 16
SEED = 1234


def tensor_digest(tensors) -> str:
    """16 hex digits of BLAKE2b (8-byte digest) over the raw bytes of
    `tensors`, in order, copied to the host (ctypes reads the contiguous CPU
    copy, so numpy is not needed)."""
    running = hashlib.blake2b(digest_size=8)
    for t in tensors:
        host = t.detach().contiguous().cpu()
        running.update(ctypes.string_at(host.data_ptr(), host.numel() * host.element_size()))
    return running.hexdigest()


class TinyLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, D_MODEL)
        self.pos = nn.Parameter(torch.randn(SEQ, D_MODEL) * 0.02)
        layer = nn.TransformerEncoderLayer(D_MODEL, HEADS, dim_feedforward=4 * D_MODEL, dropout=0.0,
                                           batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, LAYERS, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(D_MODEL)
        self.head = nn.Linear(D_MODEL, VOCAB, bias=False)
        self.register_buffer("mask", nn.Transformer.generate_square_subsequent_mask(SEQ), persistent=False)

    def forward(self, tokens):
        x = self.embed(tokens) + self.pos
        x = self.encoder(x, mask=self.mask, is_causal=True)
        return self.head(self.norm(x))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=["train", "infer"], default="train")
    parser.add_argument("--steps", type=int, default=3)
    args = parser.parse_args()
    if args.steps < 0:
        parser.error("--steps must be >= 0")
    if not torch.cuda.is_available():
        print("skipped: no CUDA device visible to PyTorch", file=sys.stderr)
        return 77

    torch.manual_seed(SEED)
    torch.cuda.manual_seed_all(SEED)
    torch.use_deterministic_algorithms(True)
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cudnn.benchmark = False
    torch.backends.cudnn.deterministic = True

    device = torch.device("cuda")
    model = TinyLM().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, foreach=True) if args.mode == "train" else None
    loss_fn = nn.CrossEntropyLoss()
    generator = torch.Generator(device="cpu").manual_seed(SEED + 1)
    # Fixed batches, generated on the host so they do not depend on device RNG.
    batches = [torch.randint(0, VOCAB, (BATCH, SEQ + 1), generator=generator) for _ in range(args.steps + 1)]
    batches = [b.to(device) for b in batches]

    def step(tokens):
        inputs, targets = tokens[:, :-1], tokens[:, 1:]
        if args.mode == "train":
            model.train()
            optimizer.zero_grad(set_to_none=False)
            logits = model(inputs)
            loss = loss_fn(logits.reshape(-1, VOCAB), targets.reshape(-1))
            loss.backward()
            optimizer.step()
            return loss.detach(), None
        model.eval()
        with torch.inference_mode():
            logits = model(inputs)
            loss = loss_fn(logits.reshape(-1, VOCAB), targets.reshape(-1))
        return loss, logits

    # Warm-up outside any range: allocator pools, cuBLAS handle, AdamW state.
    # Two steps, the second while the first's results are still held, as each
    # profiled step runs while the previous one's loss and logits are held:
    # with one, the caching allocator grew inside a profiled step (a range that
    # allocates keeps the new memory's bytes for its replays, or declines
    # allocation_in_range past the tool's cap).
    held = step(batches[0])
    held = step(batches[0])
    torch.cuda.synchronize()
    del held

    losses = []
    logits = None
    for i in range(args.steps):
        torch.cuda.nvtx.range_push("step")
        loss, logits = step(batches[i + 1])
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_pop()
        losses.append(loss)

    for i, loss in enumerate(losses):
        print(f"loss {i} {float(loss.item()).hex()}")
    print(f"checksum params {tensor_digest(p for p in model.parameters())}")
    if logits is not None:
        print(f"checksum logits {tensor_digest([logits])}")
    print("checksums-done", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
