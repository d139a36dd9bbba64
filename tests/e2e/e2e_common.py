"""Helpers shared by the GPU end-to-end scripts in this folder."""
import subprocess

TIMEOUT_S = 120


def checksums(text):
    """The program's `checksum <name> <hex>` lines (nondeterministic ones excluded)."""
    return [line for line in text.splitlines() if line.startswith("checksum ")]


def run(cmd, timeout=TIMEOUT_S, env=None):
    """(returncode, stdout, stderr); returncode None on timeout. `env`: the
    child's whole environment (None: this process's)."""
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        err = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
        return None, out, err + f"\n(timed out after {timeout} s)"


def tail(text, n=400):
    """The last `n` characters of `text` on one line."""
    return text.strip().replace("\n", " | ")[-n:]


def summarize(failures):
    """Prints the failures (or "ok") and returns the script's exit code."""
    if failures:
        print(f"\n{len(failures)} failure(s):")
        print("\n".join("  " + f for f in failures))
        return 1
    print("\nok")
    return 0
