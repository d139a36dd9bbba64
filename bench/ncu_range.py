"""Nsight Compute's range replay as the speed reference, shared by
bench/profile_vs_ncu.py and tests/workloads/run_workloads.py.

The comparison is like for like: both tools profile the same ranges with the
same metric list. ncu's range replay cannot collect every metric rangereplay
can (range_replay_metrics() says which and why), so the list of rangereplay's
report is filtered first and rangereplay is timed again with the filtered list
when anything was dropped (speed_against_ncu()).

ncu prints its errors on stdout as `==ERROR== ...` lines, so a failed run is
reported with those lines, not with the (often empty) stderr. Only when ncu
still rejects the filtered list is the run repeated with ncu's own
`--set full`, so that a wall-time reference exists; the result says so
(metric_list "ncu --set full") and its ratio is labelled not like for like.
"""
import subprocess, time


def range_replay_metrics(metrics):
    """Splits a metric list into (kept, dropped), both in the given order:
    dropped are the metrics ncu's range replay cannot collect (Nsight Compute
    2025.3 on an H200):
      - names containing `sass` (SASS-patched metrics, which need the kernel's
        code instrumented): ncu stops with `==ERROR== Metric
        smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct is not
        supported in range replay`;
      - names starting `ctc__` (chip-to-chip link traffic): ncu warns
        `==WARNING== Unable to access the following 6 metrics:
        ctc__rx_bytes_data_user.sum, ...` and silently collects nothing.
    """
    kept, dropped = [], []
    for m in metrics:
        (dropped if "sass" in m or m.startswith("ctc__") else kept).append(m)
    return kept, dropped


def ncu_messages(text, limit=5):
    """The `==ERROR==` / `==WARNING==` lines of ncu's output (at most `limit`)."""
    lines = [l.strip() for l in text.splitlines() if l.startswith("==ERROR==") or l.startswith("==WARNING==")]
    return lines[:limit]


def metric_list_rejected(errors):
    """True when one of ncu's `==ERROR==` lines is about a metric (the list was
    refused), as opposed to e.g. `The application returned an error code (1)`."""
    return any(e.startswith("==ERROR==") and "metric" in e.lower() for e in errors)


def timed_run(cmd, timeout):
    t = time.perf_counter()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        return p.returncode, time.perf_counter() - t, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return None, time.perf_counter() - t, "", f"timed out after {timeout} s"


def ncu_range_replay(app_cmd, metrics, nvtx_include="step/", timeout=600):
    """Runs `ncu --replay-mode range` over app_cmd with the metric list; falls
    back to `--set full` only when ncu rejects the list (a `==ERROR==` line
    about a metric). Returns a dict: rc, wall_s, metric_list ("same" or
    "ncu --set full"), errors (ncu's own lines from the run(s) that failed),
    warnings (its `==WARNING==` lines of the run timed), stderr_tail."""
    base = ["ncu", "--clock-control", "none", "--replay-mode", "range", "--nvtx", "--nvtx-include", nvtx_include]
    rc, wall, out, err = timed_run(base + ["--metrics", ",".join(metrics)] + app_cmd, timeout)
    messages = ncu_messages(out + "\n" + err, limit=20)
    result = {"rc": rc, "wall_s": wall, "metric_list": "same", "errors": [], "stderr_tail": err.strip()[-300:],
              "warnings": [m for m in messages if m.startswith("==WARNING==")]}
    if rc == 0:
        return result
    result["errors"] = [m for m in messages if m.startswith("==ERROR==")] or [(out + err).strip()[-300:]]
    if not metric_list_rejected(result["errors"]):
        return result  # the list was accepted; the run failed for another reason (kept as is)
    rc, wall, out, err = timed_run(base + ["--set", "full"] + app_cmd, timeout)
    messages = ncu_messages(out + "\n" + err, limit=20)
    result.update(rc=rc, wall_s=wall, metric_list="ncu --set full", stderr_tail=err.strip()[-300:],
                  warnings=[m for m in messages if m.startswith("==WARNING==")])
    if rc != 0:
        result["errors"] += [m for m in messages if m.startswith("==ERROR==")] or [(out + err).strip()[-300:]]
    return result


def speed_against_ncu(app_cmd, set_run, profile_with_metrics, nvtx_include="step/", timeout=600):
    """Wall time of rangereplay against ncu's range replay on the same ranges
    and the same metrics.

    set_run: {"wall_s", "report"} of a finished `rangereplay profile --set X`
    run (its report's "metrics" is the list to compare). profile_with_metrics:
    callable(list of names) -> (wall_s, report dict or None, error text) that
    runs `rangereplay profile --metrics <names>` on the same command; called
    once, only when range_replay_metrics() drops something (else the set run is
    already like for like). Returns a dict: metrics, dropped, dropped_names,
    filtered_metrics, filtered_pass_count, rangereplay_s (of the run with the
    filtered list), rangereplay_run, ncu (ncu_range_replay's dict), and when
    ncu succeeded ncu_s, ratio (ncu_s / rangereplay_s) and like_for_like
    (False when ncu fell back to its own --set full: then the ratio is against
    the set run, labelled in ratio_basis). rangereplay_error when the filtered
    run failed (no ncu run then). ncu_app_failed: the application exited with
    an error under ncu after ncu accepted the list (its `==ERROR== The
    application returned an error code` line); the times are compared then
    too, since the profile ran to its end."""
    report = set_run["report"]
    kept, dropped = range_replay_metrics(report["metrics"])
    res = {"metrics": len(report["metrics"]), "dropped": len(dropped), "dropped_names": dropped,
           "filtered_metrics": len(kept)}
    if not kept:
        res["rangereplay_error"] = "every metric of the list is one ncu's range replay cannot collect"
        return res
    if dropped:
        wall, filtered, error = profile_with_metrics(kept)
        if filtered is None:
            res["rangereplay_error"] = error
            return res
        res.update(rangereplay_s=wall, filtered_pass_count=filtered.get("pass_count"),
                   rangereplay_run="extra run with --metrics <filtered list>")
    else:
        res.update(rangereplay_s=set_run["wall_s"], filtered_pass_count=report.get("pass_count"),
                   rangereplay_run="the --set run (nothing dropped)")
    ncu = ncu_range_replay(app_cmd, kept, nvtx_include=nvtx_include, timeout=timeout)
    res["ncu"] = ncu
    # The application failing under ncu (e.g. its own result check) after ncu
    # accepted the list: the profile ran to the end, so its time still counts.
    res["ncu_app_failed"] = ncu["rc"] not in (0, None) and not metric_list_rejected(ncu["errors"]) and \
        any("application returned an error code" in e for e in ncu["errors"])
    if ncu["rc"] == 0 or res["ncu_app_failed"]:
        res["ncu_s"] = ncu["wall_s"]
        res["like_for_like"] = ncu["metric_list"] == "same"
        if res["like_for_like"]:
            res["ratio"], res["ratio_basis"] = ncu["wall_s"] / res["rangereplay_s"], "same filtered list"
        else:
            res["ratio"] = ncu["wall_s"] / set_run["wall_s"]
            res["ratio_basis"] = "NOT like for like: ncu --set full vs rangereplay's --set run"
    return res
