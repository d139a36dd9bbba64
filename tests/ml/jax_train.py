"""jax_train.py: a jitted JAX training step (an MLP classifier, optax Adam)
for the `ml` corpus (tests/ml/run_ml.py).

Each profiled step is one NVTX push/pop range `step` (CuPy's NVTX binding:
JAX emits no NVTX of its own) around one call of the jitted step, with
block_until_ready inside the range so the step's GPU work belongs to it. Two
warm-up steps (compilation, XLA's allocator reaching its steady state) run
before the first range. Parameters and optimizer state are donated to the
step, as training loops do, so XLA reuses their buffers.

Options set XLA's environment before jax is imported:
  --prealloc default|off        off: XLA_PYTHON_CLIENT_PREALLOCATE=false (the
                                default preallocates ~75% of GPU memory as one pool)
  --command-buffers on|off      off: XLA_FLAGS --xla_gpu_enable_command_buffer=
                                (empty: XLA launches every kernel itself, no CUDA graphs)
  --deterministic-ops on|off    on (default): --xla_gpu_deterministic_ops=true and
                                --xla_gpu_autotune_level=0 (no timing-picked GEMM or fusion
                                configurations, whose pick could differ from run to run)
  --steps N                     profiled steps (ranges), default 3

Output: `loss <i> <hex>` per profiled step, `checksum params <hex>` (BLAKE2b-64
of every parameter's bytes after the last step). Exit 0; 77 when JAX, optax
or a GPU is missing; 2 on a usage error.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ml_common  # noqa: E402

SEED = 1234
BATCH = 256
SIZES = (512, 1024, 1024, 10)  # input, hidden, hidden, classes


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--prealloc", choices=["default", "off"], default="default")
    p.add_argument("--command-buffers", choices=["on", "off"], default="on")
    p.add_argument("--deterministic-ops", choices=["on", "off"], default="on")
    p.add_argument("--steps", type=int, default=3)
    args = p.parse_args()
    if args.steps < 1:
        p.error("--steps must be at least 1")
    return args


def set_xla_environment(args):
    """XLA reads these when jax initializes its backend: set before import."""
    if args.prealloc == "off":
        os.environ["XLA_PYTHON_CLIENT_PREALLOCATE"] = "false"
    flags = os.environ.get("XLA_FLAGS", "").split()
    if args.deterministic_ops == "on":
        flags += ["--xla_gpu_deterministic_ops=true", "--xla_gpu_autotune_level=0"]
    if args.command_buffers == "off":
        flags.append("--xla_gpu_enable_command_buffer=")
    os.environ["XLA_FLAGS"] = " ".join(flags)


def main():
    args = parse_args()
    set_xla_environment(args)
    push, pop, _ = ml_common.nvtx_functions()
    try:
        import jax
        import jax.numpy as jnp
        import numpy as np
        import optax
    except ImportError as e:
        ml_common.skip(f"JAX/optax not importable: {e}")
    try:
        if not jax.devices("gpu"):
            ml_common.skip("JAX sees no GPU")
    except RuntimeError as e:
        ml_common.skip(f"JAX has no GPU backend: {e}")

    key = jax.random.PRNGKey(SEED)
    params = []
    for fan_in, fan_out in zip(SIZES[:-1], SIZES[1:]):
        key, wk = jax.random.split(key)
        w = jax.random.normal(wk, (fan_in, fan_out), jnp.float32) * (1.0 / np.sqrt(fan_in))
        params.append({"w": w, "b": jnp.zeros((fan_out,), jnp.float32)})

    def forward(params, x):
        for layer in params[:-1]:
            x = jax.nn.relu(x @ layer["w"] + layer["b"])
        return x @ params[-1]["w"] + params[-1]["b"]

    def loss_fn(params, x, y):
        logits = forward(params, x)
        return optax.softmax_cross_entropy_with_integer_labels(logits, y).mean()

    optimizer = optax.adam(1e-3)
    opt_state = optimizer.init(params)

    def train_step(params, opt_state, x, y):
        loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
        updates, opt_state = optimizer.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), opt_state, loss

    step = jax.jit(train_step, donate_argnums=(0, 1))

    # Every batch is on the device before the first range: no host-to-device
    # copy inside a step.
    batches = []
    for _ in range(args.steps + 2):
        key, xk, yk = jax.random.split(key, 3)
        batches.append((jax.random.normal(xk, (BATCH, SIZES[0]), jnp.float32),
                        jax.random.randint(yk, (BATCH,), 0, SIZES[-1], jnp.int32)))
    jax.block_until_ready(batches)

    # Warm-up outside any range: the first call compiles, the second runs the
    # executable as every profiled step does.
    for x, y in batches[:2]:
        params, opt_state, loss = step(params, opt_state, x, y)
    jax.block_until_ready((params, opt_state, loss))

    losses = []
    for x, y in batches[2:]:
        push(ml_common.RANGE_NAME)
        params, opt_state, loss = step(params, opt_state, x, y)
        jax.block_until_ready((params, opt_state, loss))
        pop()
        losses.append(loss)

    leaves = jax.tree_util.tree_leaves(params)
    ml_common.print_results("params", [float(np.asarray(l)) for l in losses],
                            [np.ascontiguousarray(np.asarray(leaf)).tobytes() for leaf in leaves])
    return 0


if __name__ == "__main__":
    sys.exit(main())
