"""The one runner of the GPU end-to-end tests in this folder.

  python3 tests/e2e/run_e2e.py NAME BUILD_DIR
  python3 tests/e2e/run_e2e.py --list

Runs the test NAME (NAME.py, or NAME.sh for a test written in shell) with the
build folder as its argument, after the checks every test needs: an NVIDIA
GPU (`nvidia-smi -L`), and the tools a test names in REQUIRES (on PATH).
Without them it prints one line saying what is missing and exits 77, which
CTest reads as skipped (SKIP_RETURN_CODE). Otherwise its exit code is the
test's. CTest registers every name in TESTS (every file here but HELPERS) with
rangereplay_add_e2e_test (tests/CMakeLists.txt); the shared helpers are in
e2e_common.py.
"""
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# The files here that are not tests: the shared helpers, programs the tests
# run, the runner and its own test.
HELPERS = ("e2e_common.py", "nccl_world1.py", "two_ranks.py", "run_e2e.py", "test_run_e2e.py")

# Every end-to-end test, by name: every other .py or .sh file here.
TESTS = tuple(sorted({os.path.splitext(f)[0] for f in os.listdir(HERE)
                      if f.endswith((".py", ".sh")) and f not in HELPERS}))

# Tools a test needs besides the GPU, on PATH.
REQUIRES = {"profile_matches_ncu": ("ncu",)}

SKIPPED = 77


def script(name):
    """The file that holds test `name`: NAME.py, else NAME.sh."""
    for ext in (".py", ".sh"):
        path = os.path.join(HERE, name + ext)
        if os.path.isfile(path):
            return path
    raise FileNotFoundError(f"no tests/e2e/{name}.py or .sh")


def missing(name, which=shutil.which, gpu=None):
    """Why test `name` cannot run here, or None. `gpu`: whether an NVIDIA GPU
    answers (asked with `nvidia-smi -L` when None)."""
    if gpu is None:
        try:
            gpu = subprocess.run(["nvidia-smi", "-L"], capture_output=True, timeout=60).returncode == 0
        except (OSError, subprocess.TimeoutExpired):
            gpu = False
    if not gpu:
        return "no NVIDIA GPU (nvidia-smi -L failed)"
    for tool in REQUIRES.get(name, ()):
        if which(tool) is None:
            return f"{tool} not installed"
    return None


def main(argv):
    if argv[1:] == ["--list"]:
        print("\n".join(TESTS))
        return 0
    if len(argv) != 3 or argv[1] not in TESTS:
        known = ", ".join(TESTS)
        print(f"usage: run_e2e.py NAME BUILD_DIR (NAME one of: {known}) or run_e2e.py --list", file=sys.stderr)
        return 2
    name, build = argv[1], argv[2]
    why = missing(name)
    if why:
        print(f"skipped: {why}")
        return SKIPPED
    path = script(name)
    cmd = [sys.executable, path, build] if path.endswith(".py") else ["bash", path, build]
    return subprocess.call(cmd)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
