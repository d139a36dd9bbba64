"""Nsight Compute's range replay as the speed reference, shared by
bench/profile_vs_ncu.py and tests/workloads/run_workloads.py.

ncu prints its errors on stdout as `==ERROR== ...` lines, so a failed run is
reported with those lines, not with the (often empty) stderr. When ncu refuses
the exact metric list, the run is repeated with its own `--set full` so a
wall-time reference still exists; the result says which list was used.
"""
import subprocess, time


def ncu_messages(text, limit=5):
    """The `==ERROR==` / `==WARNING==` lines of ncu's output (at most `limit`)."""
    lines = [l.strip() for l in text.splitlines() if l.startswith("==ERROR==") or l.startswith("==WARNING==")]
    return lines[:limit]


def timed_run(cmd, timeout):
    t = time.perf_counter()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        return p.returncode, time.perf_counter() - t, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return None, time.perf_counter() - t, "", f"timed out after {timeout} s"


def ncu_range_replay(app_cmd, metrics, nvtx_include="step/", timeout=600):
    """Runs `ncu --replay-mode range` over app_cmd with the metric list; falls
    back to `--set full` when ncu rejects the list. Returns a dict: rc, wall_s,
    metric_list ("same" or "ncu --set full"), errors (ncu's own lines from the
    failed attempt(s)), stderr_tail."""
    base = ["ncu", "--clock-control", "none", "--replay-mode", "range", "--nvtx", "--nvtx-include", nvtx_include]
    rc, wall, out, err = timed_run(base + ["--metrics", ",".join(metrics)] + app_cmd, timeout)
    result = {"rc": rc, "wall_s": wall, "metric_list": "same", "errors": [], "stderr_tail": err.strip()[-300:]}
    if rc == 0:
        return result
    result["errors"] = ncu_messages(out + "\n" + err) or [(out + err).strip()[-300:]]
    rc, wall, out, err = timed_run(base + ["--set", "full"] + app_cmd, timeout)
    result.update(rc=rc, wall_s=wall, metric_list="ncu --set full", stderr_tail=err.strip()[-300:])
    if rc != 0:
        result["errors"] += ncu_messages(out + "\n" + err) or [(out + err).strip()[-300:]]
    return result
