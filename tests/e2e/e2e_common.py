"""Helpers shared by the GPU end-to-end scripts in this folder."""
import json
import os
import re
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


def injection_libraries(build):
    """(injection library, CUPTI library) as the launcher would pick them, or
    raises RuntimeError naming what is missing. The injection library is
    looked up like library_lookup.cpp does ($RANGEREPLAY_INJECT_LIB, then the
    build's src/); CUPTI is the one the injection library links (ldd), else the
    launcher's default folders."""
    candidates = [os.environ.get("RANGEREPLAY_INJECT_LIB", ""),
                  os.path.join(build, "src", "librangereplay_inject.so"),
                  os.path.join(build, "lib", "librangereplay_inject.so")]
    inject = next((c for c in candidates if c and os.path.isfile(c)), None)
    if inject is None:
        raise RuntimeError("librangereplay_inject.so not found (looked in " +
                           ", ".join(c for c in candidates if c) + "); build target rangereplay_inject")
    cupti = None
    rc, out, _ = run(["ldd", inject])
    if rc == 0:
        m = re.search(r"libcupti\.so[^\s]*\s+=>\s+(\S+)", out)
        if m and os.path.isfile(m.group(1)):
            cupti = m.group(1)
    if cupti is None:
        dirs = [d for d in os.environ.get("LD_LIBRARY_PATH", "").split(":") if d]
        dirs += ["/usr/local/cuda/lib64", "/usr/local/cuda/extras/CUPTI/lib64", "/usr/lib/x86_64-linux-gnu"]
        cupti = next((os.path.join(d, n) for d in dirs for n in ("libcupti.so", "libcupti.so.13")
                      if os.path.isfile(os.path.join(d, n))), None)
    if cupti is None:
        raise RuntimeError("libcupti.so not found (ldd of the injection library, LD_LIBRARY_PATH, /usr/local/cuda)")
    return inject, cupti


def injection_environment(build, config, folder):
    """This process's environment plus what the launcher hands the profiled
    application (launcher.cpp, application_environment): the injection and
    NVTX libraries and RANGEREPLAY_CONFIG naming `config` (a dict in the
    launcher's config.json form), written to `folder`/config.json. For runs
    that bypass the launcher's checks. Raises RuntimeError as injection_libraries."""
    inject, cupti = injection_libraries(build)
    config_path = os.path.join(folder, "config.json")
    with open(config_path, "w") as f:
        json.dump(config, f)
    return dict(os.environ, CUDA_INJECTION64_PATH=inject, NVTX_INJECTION64_PATH=cupti,
                RANGEREPLAY_CONFIG=config_path)


def summarize(failures):
    """Prints the failures (or "ok") and returns the script's exit code."""
    if failures:
        print(f"\n{len(failures)} failure(s):")
        print("\n".join("  " + f for f in failures))
        return 1
    print("\nok")
    return 0
