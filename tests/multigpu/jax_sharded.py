"""jax_sharded.py: a data-parallel JAX training step sharded over the GPUs of
one process, for the `multigpu` suite (tests/multigpu/run_multigpu.py):

    python3 tests/multigpu/jax_sharded.py [--devices N] [--steps N]

A jax.sharding.Mesh with one axis `data` over the first N GPUs (default all
that JAX sees). The step is a shard_map of a two-layer MLP's loss and
gradients over each device's slice of the batch, with `jax.lax.psum` of the
loss and of every gradient over `data` (XLA lowers it to an NCCL all-reduce
among the process's devices), then an SGD update of the parameters,
replicated on every device; jitted, parameters donated. Each profiled step is
one NVTX push/pop range `step` (tests/ml/ml_common.nvtx_functions: JAX emits
no NVTX of its own) around one call with block_until_ready inside it. Two
warm-up steps (compilation, NCCL's communicators) run before the first range.

Several devices in one process is its own case for rangereplay: the step's
work is submitted to every device, where a range covers one
(`multiple_devices` in docs/limitations.md).

XLA's environment is set before jax is imported: --xla_gpu_deterministic_ops
and --xla_gpu_autotune_level=0 (as tests/ml/jax_train.py), and NCCL's
multicast off (NCCL_NVLS_ENABLE=0, TORCH_SYMM_MEM_DISABLE_MULTICAST=1).

Output: `loss <i> <float.hex()>` per profiled step (the mean over the whole
batch, equal on every device) and `checksum params <16 hex digits>`
(BLAKE2b-64 of the parameters after the last step, each device's copy read
and compared: copies that differ end the program with exit 1 and a line on
stderr). Exit 0; 77 without JAX, a GPU backend or with fewer than 2 GPUs; 2
on a usage error.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "ml"))
import ml_common  # noqa: E402

SEED = 1234
BATCH_PER_DEVICE = 128
SIZES = (256, 512, 16)  # input, hidden, classes
LR = 0.1
WARMUP = 2


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--devices", type=int, default=0, help="GPUs in the mesh (default 0: every GPU JAX sees)")
    p.add_argument("--steps", type=int, default=3, help="profiled steps (NVTX ranges `step`), default 3")
    args = p.parse_args()
    if args.steps < 1:
        p.error("--steps must be at least 1")
    if args.devices < 0 or args.devices == 1:
        p.error("--devices must be 0 (every GPU) or at least 2")
    return args


def set_environment():
    os.environ["NCCL_NVLS_ENABLE"] = "0"
    os.environ["TORCH_SYMM_MEM_DISABLE_MULTICAST"] = "1"
    flags = os.environ.get("XLA_FLAGS", "").split()
    flags += ["--xla_gpu_deterministic_ops=true", "--xla_gpu_autotune_level=0"]
    os.environ["XLA_FLAGS"] = " ".join(flags)


def shard_map_function(jax):
    """jax.shard_map (newer JAX), else jax.experimental.shard_map.shard_map."""
    fn = getattr(jax, "shard_map", None)
    if fn is not None:
        return fn
    from jax.experimental.shard_map import shard_map  # noqa: PLC0415 (older JAX)
    return shard_map


def main():
    args = parse_args()
    set_environment()
    push, pop, _ = ml_common.nvtx_functions()
    try:
        import jax
        import jax.numpy as jnp
        import numpy as np
        from jax.sharding import Mesh, NamedSharding
        from jax.sharding import PartitionSpec as P
    except ImportError as e:
        ml_common.skip(f"JAX not importable: {e}")
    try:
        gpus = jax.devices("gpu")
    except RuntimeError as e:
        ml_common.skip(f"JAX has no GPU backend: {e}")
    want = args.devices or len(gpus)
    if len(gpus) < 2 or want > len(gpus):
        ml_common.skip(f"JAX sees {len(gpus)} GPU(s); this program needs {max(want, 2)}")
    devices = gpus[:want]
    mesh = Mesh(np.array(devices), ("data",))
    shard_map = shard_map_function(jax)
    replicated = NamedSharding(mesh, P())
    by_batch = NamedSharding(mesh, P("data"))

    key = jax.random.PRNGKey(SEED)
    params = []
    for fan_in, fan_out in zip(SIZES[:-1], SIZES[1:]):
        key, wk = jax.random.split(key)
        params.append({"w": jax.random.normal(wk, (fan_in, fan_out), jnp.float32) / np.sqrt(fan_in),
                       "b": jnp.zeros((fan_out,), jnp.float32)})
    params = jax.device_put(params, replicated)

    def loss_fn(params, x, y):
        h = jax.nn.relu(x @ params[0]["w"] + params[0]["b"])
        logits = h @ params[1]["w"] + params[1]["b"]
        logp = jax.nn.log_softmax(logits)
        return -jnp.take_along_axis(logp, y[:, None], axis=1).sum()

    total = BATCH_PER_DEVICE * want

    def local_step(params, x, y):
        loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
        loss = jax.lax.psum(loss, "data") / total
        grads = jax.tree_util.tree_map(lambda g: jax.lax.psum(g, "data") / total, grads)
        params = jax.tree_util.tree_map(lambda p, g: p - LR * g, params, grads)
        return params, loss

    step = jax.jit(shard_map(local_step, mesh=mesh, in_specs=(P(), P("data"), P("data")), out_specs=(P(), P())),
                   donate_argnums=(0,))

    batches = []
    for _ in range(WARMUP + args.steps):
        key, xk, yk = jax.random.split(key, 3)
        x = jax.random.normal(xk, (total, SIZES[0]), jnp.float32)
        y = jax.random.randint(yk, (total,), 0, SIZES[-1], jnp.int32)
        batches.append((jax.device_put(x, by_batch), jax.device_put(y, by_batch)))
    jax.block_until_ready(batches)

    for x, y in batches[:WARMUP]:
        params, loss = step(params, x, y)
    jax.block_until_ready((params, loss))

    losses = []
    for x, y in batches[WARMUP:]:
        push(ml_common.RANGE_NAME)
        params, loss = step(params, x, y)
        jax.block_until_ready((params, loss))
        pop()
        losses.append(loss)

    leaves = jax.tree_util.tree_leaves(params)
    copies = {}  # device index -> that device's copy of every parameter
    for leaf in leaves:
        for shard in leaf.addressable_shards:
            copies.setdefault(devices.index(shard.device), []).append(
                np.ascontiguousarray(np.asarray(shard.data)).tobytes())
    digests = {i: ml_common.digest(c) for i, c in sorted(copies.items())}
    if len(set(digests.values())) != 1 or len(digests) != want:
        print(f"error: the devices' copies of the parameters differ (device: checksum {digests})", file=sys.stderr,
              flush=True)
        return 1
    ml_common.print_results("params", [float(np.asarray(l)) for l in losses], copies[0])
    return 0


if __name__ == "__main__":
    sys.exit(main())
