"""The guidance rules on a GPU.

Own kernels: tests/apps/guidance_kernels runs one range `step` of four
kernels; profiled with `rangereplay profile --nvtx-include step/ --set full`,
each kernel's `guidance` in the JSON report must name what the kernel was
built for:
  triad_kernel           bottleneck "Memory bound"
  fma_chains_kernel      bottleneck "Compute bound"
  register_heavy_kernel  an `occupancy` finding whose limiter is registers (the
                         launches' wait for registers is the largest wait, or
                         the register block limit the smallest limit)
  strided_load_kernel    an `uncoalesced_access` finding on its global loads,
                         which use under 60% of each sector (4 of 32 bytes)
and the rules built not to fire stay quiet: no uncoalesced finding on the
three coalesced kernels. The program's checksums equal a plain run's.

ncu's verdict: examples/stream and examples/gemm (one range each) are profiled
by rangereplay (`--set full`) and by `ncu --set full --csv` (kernel replay,
clocks left alone); kernel by kernel in launch order, the bottleneck finding
("memory", "compute" or "latency") must equal ncu's GPU Speed Of Light verdict.
That verdict is the text of ncu's SOLBottleneck rule where its CSV has rule
columns; without them (older ncu) it is derived from the section's Compute
(SM) and Memory Throughput with the rule's own threshold, 60% of peak
(tests/ncu/ncu_compare.py, ncu_sol_verdicts). ncu's "well-balanced" accepts
memory or compute. The two tools measure differently (ncu flushes the caches
before each kernel, rangereplay before each pass of the range), so every
kernel's figures from both are printed beside the verdicts.

Exit status: 0 when all checks pass, 1 on a failure (a program missing from
the build included), 2 on bad arguments, 77 (skipped) when ncu is not
installed, after the own kernels were checked and passed.

    python3 tests/e2e/guidance.py <build-dir> [--keep DIR]

GPU end-to-end test of the guidance rules: on tests/apps/guidance_kernels,
each of four kernels gets the finding it was built for (memory bound, compute bound, low occupancy
limited by registers, uncoalesced loads); on examples/stream and examples/gemm, every kernel's
bottleneck equals ncu's own Speed Of Light verdict.
"""
import argparse
import os
import shutil
import sys
import tempfile

from e2e_common import checksums, load_report, run, summarize, tail

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "ncu"))
from ncu_compare import NcuCsvError, ncu_full_set_command, ncu_sol_verdicts  # noqa: E402

SKIP = 77
# Each tool run, with --set full's 40-odd passes, takes seconds to a minute on an H100; ctest gives the script 600 s.
RUN_TIMEOUT_S = 240
OWN_KERNELS = ("triad_kernel", "fma_chains_kernel", "register_heavy_kernel", "strided_load_kernel")
# The uncoalesced rule's threshold (src/report/guidance.h, kMinBytesUsedPerSectorPct).
MIN_BYTES_USED_PCT = 60


def parse_args(argv):
    p = argparse.ArgumentParser(description="Checks the guidance rules on four kernels of our own and against "
                                "ncu's Speed Of Light verdict on examples/stream and examples/gemm (needs a GPU).")
    p.add_argument("build", help="the build folder (holds tools/cli/rangereplay, tests/apps, examples)")
    p.add_argument("--keep", metavar="DIR", help="keep the reports and ncu's CSV output in DIR")
    return p.parse_args(argv)


def findings(kernel, rule):
    return [f for f in kernel.get("guidance", []) if f["rule"] == rule]


def value(finding, label_prefix):
    """The values of `finding` whose label starts with `label_prefix`, {label: value}."""
    return {v["label"]: v["value"] for v in finding["values"] if v["label"].startswith(label_prefix)}


def verdict(kernel):
    """Our bottleneck ("memory", "compute", "latency") from the kernel's finding, None without one."""
    b = findings(kernel, "bottleneck")
    return b[0]["title"].split()[0].lower() if b else None


def profile(cli, app_cmd, out, failures, what):
    """Runs the app plain and under `rangereplay profile --set full`; the report, or None after a failure."""
    rc, plain, err = run(app_cmd, timeout=RUN_TIMEOUT_S)
    if rc != 0:
        failures.append(f"{what}: plain run rc={rc}: {tail(err)}")
        return None
    rc, prof, err = run([cli, "profile", "--quiet", "--nvtx-include", "step/", "--set", "full", "--output", out, "--",
                         *app_cmd], timeout=RUN_TIMEOUT_S)
    if rc != 0:
        failures.append(f"{what}: profile rc={rc}: {tail(err)}")
        return None
    if not checksums(plain) or checksums(plain) != checksums(prof):
        failures.append(f"{what}: checksums differ with the tool")
    try:
        report = load_report(out)
    except (OSError, ValueError) as e:
        failures.append(f"{what}: no readable report: {e}")
        return None
    declined = [r for r in report["ranges"] if r.get("declined")]
    if not report["ranges"] or declined:
        failures.append(f"{what}: {len(report['ranges'])} ranges, {len(declined)} declined "
                        f"{[r.get('decline_detail') for r in declined]}")
        return None
    return report


def check_own_kernels(build, cli, folder, failures):
    app = [os.path.join(build, "tests/apps/app_guidance_kernels"), "--iterations", "1"]
    report = profile(cli, app, os.path.join(folder, "guidance_kernels.json"), failures, "guidance_kernels")
    if report is None:
        return
    kernels = {}
    for k in report["ranges"][0]["kernels"]:
        for name in OWN_KERNELS:
            if name in k["name"]:
                kernels[name] = k
    if sorted(kernels) != sorted(OWN_KERNELS):
        failures.append(f"guidance_kernels: kernels {sorted(kernels)} in the report, expected {sorted(OWN_KERNELS)}")
        return
    for name, k in kernels.items():
        print(f"{name}:")
        for f in k.get("guidance", []):
            print(f"  [{f['rule']}] {f['title']}: {f['detail']}")

    for name, expected in (("triad_kernel", "memory"), ("fma_chains_kernel", "compute")):
        if verdict(kernels[name]) != expected:
            failures.append(f"{name}: bottleneck {verdict(kernels[name])}, expected {expected}")

    reg = kernels["register_heavy_kernel"]
    occupancy = findings(reg, "occupancy")
    if not occupancy:
        failures.append(f"register_heavy_kernel: no occupancy finding (bottleneck {verdict(reg)}; the rule needs a "
                        "latency-bound kernel under 25% achieved occupancy)")
    else:
        waits = value(occupancy[0], "Warp launches waiting for")
        limits = value(occupancy[0], "Block Limit")
        if limits:
            by_registers = min(limits, key=limits.get) == "Block Limit Registers"
        else:
            by_registers = bool(waits) and max(waits, key=waits.get) == "Warp launches waiting for registers" and \
                waits["Warp launches waiting for registers"] > 0
        if not by_registers or "registers" not in occupancy[0]["detail"]:
            failures.append(f"register_heavy_kernel: occupancy limiter is not registers: waits {waits}, limits "
                            f"{limits}; {occupancy[0]['detail']}")

    strided = findings(kernels["strided_load_kernel"], "uncoalesced_access")
    if not strided:
        failures.append("strided_load_kernel: no uncoalesced_access finding")
    else:
        used = value(strided[0], "Global loads bytes used per sector")
        sectors = value(strided[0], "Global loads sectors")
        requests = value(strided[0], "Global loads requests")
        wasteful = (used and min(used.values()) < MIN_BYTES_USED_PCT) or \
            (sectors and requests and sum(sectors.values()) / max(sum(requests.values()), 1) > 16)
        if not wasteful or "global loads" not in strided[0]["detail"]:
            failures.append(f"strided_load_kernel: the finding does not name wasteful global loads: {strided[0]}")
    for name in ("triad_kernel", "fma_chains_kernel", "register_heavy_kernel"):
        if findings(kernels[name], "uncoalesced_access"):
            failures.append(f"{name}: coalesced, yet an uncoalesced_access finding: "
                            f"{findings(kernels[name], 'uncoalesced_access')[0]['detail']}")


def headline(kernel):
    """(compute %, memory %) of our bottleneck finding's values, None where missing."""
    b = findings(kernel, "bottleneck")
    vals = {v["label"]: v["value"] for v in b[0]["values"]} if b else {}
    return vals.get("Compute (SM) Throughput"), vals.get("Memory Throughput")


def check_against_ncu(build, cli, folder, failures):
    for app, args in (("stream", ["--iterations", "1"]), ("gemm", ["--iterations", "1"])):
        app_cmd = [os.path.join(build, "examples", app), *args]
        report = profile(cli, app_cmd, os.path.join(folder, f"{app}.json"), failures, app)
        if report is None:
            continue
        ours = [k for r in report["ranges"] for k in r["kernels"]]
        rc, out, err = run(ncu_full_set_command(app_cmd), timeout=RUN_TIMEOUT_S)
        with open(os.path.join(folder, f"{app}.ncu.csv"), "w", encoding="utf-8") as f:
            f.write(out)
        if rc != 0:
            failures.append(f"{app}: ncu rc={rc}: {tail(out + err)}")
            continue
        try:
            theirs = ncu_sol_verdicts(out)
        except NcuCsvError as e:
            failures.append(f"{app}: {e}")
            continue
        if len(theirs) != len(ours):
            failures.append(f"{app}: ncu profiled {len(theirs)} kernels, rangereplay {len(ours)}")
            continue
        print(f"{app}: kernel, rangereplay (compute %, memory %) verdict, ncu (compute %, memory %) verdict [source]")
        for i, (mine, ref) in enumerate(zip(ours, theirs)):
            got = verdict(mine)
            agree = got == ref["verdict"] or (ref["verdict"] == "balanced" and got in ("memory", "compute"))
            print(f"  {i} {mine['name'][:60]}: {headline(mine)} {got}; ncu ({ref['compute_pct']}, "
                  f"{ref['memory_pct']}) {ref['verdict']} [{ref['source']}]{'' if agree else '  DIFFERENT'}")
            if not agree:
                failures.append(f"{app}: kernel {i} {mine['name'][:60]}: bottleneck {got}, ncu says {ref['verdict']} "
                                f"({ref['rule'] or 'from its percentages'})")


def main(argv):
    args = parse_args(argv)
    build = os.path.abspath(args.build)
    cli = os.path.join(build, "tools/cli/rangereplay")
    needed = [cli, os.path.join(build, "tests/apps/app_guidance_kernels"), os.path.join(build, "examples/stream"),
              os.path.join(build, "examples/gemm")]
    missing = [p for p in needed if not os.access(p, os.X_OK)]
    if missing:
        print(f"error: the build lacks {', '.join(missing)}: build the targets rangereplay, rangereplay_inject, "
              "app_guidance_kernels, stream and gemm first")
        return 1
    folder = os.path.abspath(args.keep) if args.keep else tempfile.mkdtemp(prefix="rangereplay-guidance.")
    os.makedirs(folder, exist_ok=True)
    failures = []
    try:
        check_own_kernels(build, cli, folder, failures)
        has_ncu = shutil.which("ncu") is not None
        if has_ncu:
            check_against_ncu(build, cli, folder, failures)
        code = summarize(failures)
        if code == 0 and not has_ncu:
            print("skipped: ncu not installed, so the comparison with ncu's verdict did not run")
            return SKIP
        return code
    finally:
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
