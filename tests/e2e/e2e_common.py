"""Helpers shared by the GPU end-to-end scripts in this folder."""
import json
import os
import re
import signal
import subprocess
import sys
import tempfile

TIMEOUT_S = 120
# How long the output of a killed command is still read (a process outside its
# process group may keep the pipes open).
_DRAIN_S = 10


_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(_HERE, "..", "python"))
import schema_check  # noqa: E402

_SCHEMA = schema_check.load_schema()


class ReportSchemaError(ValueError):
    """A report that does not match share/rangereplay/report.schema.json, or that
    python/rangereplay_report.py does not load; the message names the first
    problem and how many there are."""


def load_report(path):
    """The rangereplay report at `path` as a dict, once it has validated against
    the report's JSON Schema and loaded in the Python module
    (tests/python/schema_check.py), so every report a test reads is checked.
    Raises OSError or ValueError when the file cannot be read or parsed, and
    ReportSchemaError (a ValueError) when it does not validate."""
    with open(path, encoding="utf-8") as f:
        report = json.load(f)
    problems = schema_check.check_report_file(path, _SCHEMA)
    if problems:
        raise ReportSchemaError(f"{problems[0]}" + (f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""))
    return report


def checksums(text):
    """The program's `checksum <name> <hex>` lines (nondeterministic ones excluded)."""
    return [line for line in text.splitlines() if line.startswith("checksum ")]


def last_stage(err):
    """The last progress or debug line of the tool in `err` (`rangereplay: range 1 'x': pass 2/9`,
    `rangereplay[debug] ...`), or a sentence saying there is none."""
    lines = [line.strip() for line in (err or "").splitlines() if line.startswith("rangereplay")]
    return lines[-1] if lines else "no rangereplay line on stderr"


def _text(data):
    if isinstance(data, bytes):
        return data.decode(errors="replace")
    return data or ""


def _descendants(pid):
    """Process ids whose parent chain leads to `pid`, read from /proc (empty where it cannot be read)."""
    children = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return []
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        # pid (comm) state ppid ...: comm may hold spaces and parentheses.
        fields = stat[stat.rfind(")") + 2:].split()
        if len(fields) > 1 and fields[1].isdigit():
            children.setdefault(int(fields[1]), []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def kill_tree(p):
    """SIGKILLs the process group of `p` (started with start_new_session) and any descendant that left it."""
    escaped = _descendants(p.pid)
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    for pid in escaped:
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def run(cmd, timeout=TIMEOUT_S, env=None):
    """(returncode, stdout, stderr); returncode None on timeout. `env`: the
    child's whole environment (None: this process's).

    The command runs in a session (and process group) of its own. When it runs
    past `timeout` seconds, the whole group (the launcher, the application and
    whatever they started) is killed, and stderr gets a last line
    `(timed out after N s; last stage: <line>)` naming the last progress line of
    the tool (last_stage), which tells where it hung."""
    p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=env, start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
        return p.returncode, out, err
    except subprocess.TimeoutExpired:
        kill_tree(p)
        try:
            out, err = p.communicate(timeout=_DRAIN_S)
        except subprocess.TimeoutExpired as e:
            out, err = _text(e.stdout), _text(e.stderr)
            for pipe in (p.stdout, p.stderr):
                pipe.close()
            p.wait()
        out, err = _text(out), _text(err)
        return None, out, err + f"\n(timed out after {timeout} s; last stage: {last_stage(err)})"
    except BaseException:
        # Interrupted (Ctrl-C reaches this process only: the command has its own session).
        kill_tree(p)
        p.wait()
        raise


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


def push_pop_range(name):
    """The configuration's parsed form (src/core/range/range_json.h) of the
    NVTX expression `name/`: a push/pop range named `name` of the default
    domain, anywhere on the thread's stack. `name` is plain text."""
    return {"text": name + "/", "kind": "push_pop", "domain": None, "bottom_anchored": False,
            "top_anchored": False, "elements": [{"kind": "name", "name": name, "regex": False}]}


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


def temp_report_path(prefix="rr_"):
    """A free path for a report in the temporary folder, `<prefix>XXXXXXXX.json` (the name is
    reserved with mkstemp, then the file removed, so the launcher's writability check creates it)."""
    fd, path = tempfile.mkstemp(prefix=prefix, suffix=".json")
    os.close(fd)
    os.unlink(path)
    return path


def profile_with_report(cli, tool_args, app_cmd, timeout=TIMEOUT_S):
    """Runs `cli profile --quiet --output <a temporary file> tool_args -- app_cmd` (run(), so a run past
    `timeout` seconds is killed) and reads its report (load_report) before removing the file. Returns
    (returncode, stdout, stderr, report): report is the dict, or a string saying why there is none."""
    report_path = temp_report_path()
    try:
        rc, out, err = run([cli, "profile", "--quiet", "--output", report_path, *tool_args, "--", *app_cmd],
                           timeout=timeout)
        try:
            report = load_report(report_path)
        except (OSError, ValueError) as e:
            report = f"no readable report: {e}"
        return rc, out, err, report
    finally:
        if os.path.exists(report_path):
            os.unlink(report_path)


def summarize(failures):
    """Prints the failures (or "ok") and returns the script's exit code."""
    if failures:
        print(f"\n{len(failures)} failure(s):")
        print("\n".join("  " + f for f in failures))
        return 1
    print("\nok")
    return 0
