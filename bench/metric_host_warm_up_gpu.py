"""The first range's counter set-up on a GPU with and without
RANGEREPLAY_METRIC_HOST_WARMUP (0 against 1), side by side in one run.

Profiles examples/stream (3 steps of 256 MiB, `--set full`) alternately
with the warm-up off and on, --repeat times each, and prints the median
counter set-up (the report's setup_ms), the whole profile's wall time, and
whether every kernel's instruction count is the same in both modes (the
warm-up must not change a value).

    python3 bench/metric_host_warm_up_gpu.py <build-dir> [--repeat 5] [--set full]
"""
import argparse, json, os, statistics, subprocess, sys, tempfile, time

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("build")
parser.add_argument("--repeat", type=int, default=5)
parser.add_argument("--set", default="full")
args = parser.parse_args()
cli = os.path.join(args.build, "tools/cli/rangereplay")
stream = os.path.join(args.build, "examples/stream")
for path in (cli, stream):
    if not os.access(path, os.X_OK):
        sys.exit(f"metric_host_warm_up_gpu: {path} is missing; build the tool and its examples first")


def profile(warm_up, out_dir, i):
    report = os.path.join(out_dir, f"{'warm' if warm_up else 'cold'}{i}.json")
    env = dict(os.environ)
    env["RANGEREPLAY_METRIC_HOST_WARMUP"] = "1" if warm_up else "0"
    start = time.monotonic()
    p = subprocess.run([cli, "profile", "--quiet", "--nvtx-include", "step/", "--set", args.set, "--output", report,
                        "--", stream, "--iterations", "3", "--bytes", "256MiB"],
                       env=env, capture_output=True, text=True, timeout=300)
    wall = time.monotonic() - start
    if p.returncode != 0:
        sys.exit(f"metric_host_warm_up_gpu: rangereplay exited {p.returncode}: {p.stderr.strip()[-400:]}")
    with open(report) as f:
        data = json.load(f)
    counts = [m["value"] for r in data["ranges"] for k in r["kernels"] for m in k["metrics"]
              if m["name"] == "smsp__inst_executed.sum"]
    return data["setup_ms"], wall, counts


with tempfile.TemporaryDirectory() as out_dir:
    runs = {False: [], True: []}
    for i in range(args.repeat):
        for warm_up in (False, True):
            runs[warm_up].append(profile(warm_up, out_dir, i))
cold_setup = statistics.median(r[0] for r in runs[False])
warm_setup = statistics.median(r[0] for r in runs[True])
cold_wall = statistics.median(r[1] for r in runs[False])
warm_wall = statistics.median(r[1] for r in runs[True])
same = all(r[2] == runs[False][0][2] for r in runs[False] + runs[True]) and bool(runs[False][0][2])
print(f"examples/stream 256 MiB x3, --set {args.set}, {args.repeat} runs per mode, medians")
print(f"{'':34} {'without':>10} {'with warm-up':>13} {'ratio':>7}")
print(f"{'counter set-up (setup_ms)':34} {cold_setup:10.1f} {warm_setup:13.1f} {cold_setup / warm_setup:6.2f}x")
print(f"{'whole profile, s':34} {cold_wall:10.2f} {warm_wall:13.2f} {cold_wall / warm_wall:6.2f}x")
print(f"instruction counts equal in every run: {'yes' if same else 'NO'} ({len(runs[False][0][2])} kernels)")
sys.exit(0 if same else 1)
