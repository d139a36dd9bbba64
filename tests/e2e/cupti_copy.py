"""An application preloading its own libcupti copy still has its ranges seen.

GPU end-to-end regression test: an application that loads its own copy of libcupti before CUDA
starts (PyTorch does, for Kineto) must still have its NVTX ranges seen. The tool then runs on that
copy, and NVTX must be pointed at it rather than at the toolkit's copy the launcher named (before
the fix, no range matched under PyTorch). Exit 1 on failure, 77 without a GPU.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

from e2e_common import checksums, load_report, run, tail

BUILD = sys.argv[1]
CLI = os.path.join(BUILD, "tools/cli/rangereplay")
STREAM = os.path.join(BUILD, "examples/stream")
INJECT = os.path.join(BUILD, "src/librangereplay_inject.so")
METRICS = "smsp__inst_executed.sum,dram__bytes_read.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed"
APP_ARGS = ["--iterations", "2", "--bytes", "64MiB"]


def cupti_of_injection():
    """The libcupti file the injection library resolves to (ldd)."""
    out = subprocess.run(["ldd", INJECT], capture_output=True, text=True).stdout
    m = re.search(r"libcupti\.so\.\d+ => (\S+)", out)
    return m.group(1) if m else None


def main():
    cupti = cupti_of_injection()
    if cupti is None:
        print(f"FAIL: ldd {INJECT} names no libcupti")
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        # Same soname, another file: the dynamic loader then binds the
        # injection library's libcupti dependency to this copy.
        copy = os.path.join(tmp, os.path.basename(cupti))
        shutil.copy2(os.path.realpath(cupti), copy)
        rc, plain_out, plain_err = run([STREAM] + APP_ARGS)
        if rc != 0 or not checksums(plain_out):
            print(f"FAIL: plain run rc={rc}: {tail(plain_err)}")
            return 1
        report_path = os.path.join(tmp, "report.json")
        # Preloaded in the application only (through env), not in the launcher.
        cmd = [CLI, "profile", "--quiet", "--nvtx-include", "step/", "--metrics", METRICS, "--output", report_path,
               "--", "env", f"LD_PRELOAD={copy}", STREAM] + APP_ARGS
        rc, out, err = run(cmd, timeout=240)
        failures = []
        if rc != 0:
            failures.append(f"profile rc={rc}: {tail(err)}")
        if checksums(out) != checksums(plain_out):
            failures.append("checksums differ with the tool")
        try:
            ranges = load_report(report_path)["ranges"]
        except (OSError, ValueError) as e:
            ranges = []
            failures.append(f"no readable report: {e}")
        replayed = [r for r in ranges if not r["declined"]]
        if len(ranges) != 2 or len(replayed) != 2:
            failures.append(f"expected 2 replayed ranges, got {len(ranges)} ranges "
                            f"({[(r.get('decline_reason'), r.get('decline_detail')) for r in ranges if r['declined']]})")
        print(f"libcupti copy preloaded by the application ({copy}): {len(ranges)} ranges, {len(replayed)} replayed")
        if failures:
            print("\n".join("FAIL: " + f for f in failures))
            return 1
    print("ok")
    return 0


sys.exit(main())
