"""Comparing rangereplay with Nsight Compute (ncu): the one place that builds
ncu's command lines, parses its `--csv` output, sums a rangereplay report's
values per kernel and per range, and holds the checks and the speed
comparison, and ncu's Speed Of Light verdict per kernel. Shared by tests/e2e/profile_matches_ncu.py,
tests/e2e/guidance.py, tests/workloads/run_workloads.py and bench/profile_vs_ncu.py, which import it
by path:

    sys.path.insert(0, os.path.join(<repository>, "tests", "ncu"))
    import ncu_compare

Every ncu run goes with `--clock-control none`: ncu otherwise locks the GPU's
clocks to base, and its values and wall times would not be of the clocks
rangereplay runs at.

The speed comparison is like for like: both tools profile the same ranges with
the same metric list. ncu's range replay cannot collect every metric
rangereplay can (range_replay_metrics() says which and why), so the list of
rangereplay's report is filtered first and rangereplay is timed again with the
filtered list when anything was dropped (speed_against_ncu()).

ncu prints its errors on stdout as `==ERROR== ...` lines, so a failed run is
reported with those lines, not with the (often empty) stderr. Only when ncu
still rejects the filtered list is the run repeated with ncu's own
`--set full`, so that a wall-time reference exists; the result says so
(metric_list "ncu --set full") and its ratio is labelled not like for like.

Nothing here needs a GPU except the functions that run ncu (timed_run,
ncu_range_replay, speed_against_ncu); tests/ncu/test_ncu_compare.py tests the
rest with fake ncu output.
"""
import csv, io, subprocess, time

INST = "smsp__inst_executed.sum"
DRAM = "dram__bytes_read.sum"
# The metrics compared value by value with ncu: instructions (exact), DRAM bytes read (within 2%).
FIDELITY_METRICS = (INST, DRAM)
# Throughputs that need counter passes of their own: added to a list of DRAM and L2 counters, they make every
# range multi-pass, so that replayed passes (and their restores) are measured (the cache-control checks).
MULTI_PASS_THROUGHPUTS = ("sm__throughput.avg.pct_of_peak_sustained_elapsed",
                          "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
                          "l1tex__throughput.avg.pct_of_peak_sustained_active",
                          "lts__throughput.avg.pct_of_peak_sustained_elapsed")
# ncu with the GPU's clocks left as they are (ncu's default locks them to base).
NCU = ("ncu", "--clock-control", "none")


def ncu_csv_command(app_cmd, metrics, extra=(), nvtx_include="step/"):
    """`ncu --clock-control none --nvtx --nvtx-include <nvtx_include> --csv
    --print-units base <extra> --metrics <metrics> <app_cmd>` as a list;
    without the NVTX filter when nvtx_include is None (extra then selects
    launches, e.g. --launch-skip / --launch-count). metrics: a list of names.
    Kernel replay unless extra holds `--replay-mode range`; parse its stdout
    with parse_ncu_csv()."""
    select = ["--nvtx", "--nvtx-include", nvtx_include] if nvtx_include is not None else []
    return list(NCU) + select + ["--csv", "--print-units", "base"] + list(extra) + \
        ["--metrics", ",".join(metrics)] + list(app_cmd)


def ncu_range_replay_command(app_cmd, selection, nvtx_include="step/"):
    """`ncu --clock-control none --replay-mode range --nvtx --nvtx-include
    <nvtx_include> <selection> <app_cmd>` as a list; selection is e.g.
    ["--metrics", "a,b"] or ["--set", "full"]. No --csv: the run is timed."""
    return list(NCU) + ["--replay-mode", "range", "--nvtx", "--nvtx-include", nvtx_include] + list(selection) + \
        list(app_cmd)


class NcuCsvError(ValueError):
    """ncu's output holds no usable `--csv` table (the message says what is missing)."""


NAME_COLUMNS = ("Kernel Name", "Range Name", "Name")


def parse_ncu_csv(stdout, what="kernel"):
    """Results of `ncu --csv --print-units base` (the default details page:
    one row per result and metric, columns "ID", "Process ID", ..., "Kernel
    Name", ..., "Metric Name", "Metric Unit", "Metric Value"), in ID order, each
    {"id", "name", <metric>: float}. In range replay a result is a range and
    its "Kernel Name" holds the range's name ("Range Name" or "Name" are
    accepted too). Lines before the header (the application's own output,
    ==PROF== lines) and rows whose ID or value is not a number (==WARNING==
    lines after the table, "n/a") are skipped; thousands separators are
    removed. Raises NcuCsvError when there is no header, the header lacks
    "ID" / "Metric Name" / "Metric Value", or no row has a value; `what`
    ("kernel" or "range") names the results in the message."""
    start = stdout.find('"ID"')
    if start < 0:
        errors = [l.strip() for l in stdout.splitlines() if l.startswith("==ERROR==")][:2]
        raise NcuCsvError(f"ncu {what} CSV: no header row starting \"ID\" in its output"
                          + (f" ({' | '.join(errors)})" if errors else ""))
    reader = csv.DictReader(io.StringIO(stdout[start:]))
    missing = [c for c in ("ID", "Metric Name", "Metric Value") if c not in (reader.fieldnames or [])]
    if missing:
        raise NcuCsvError(f"ncu {what} CSV: header lacks {', '.join(missing)}; header: {reader.fieldnames}")
    name_col = next((c for c in NAME_COLUMNS if c in reader.fieldnames), None)
    by_id = {}
    for row in reader:
        try:
            rid = int(row["ID"])
            value = float((row["Metric Value"] or "").replace(",", ""))
        except (ValueError, TypeError):
            continue
        entry = by_id.setdefault(rid, {"id": rid, "name": row.get(name_col, "") if name_col else ""})
        entry[row["Metric Name"]] = value
    if not by_id:
        raise NcuCsvError(f"ncu {what} CSV: a header but no {what} row with a numeric ID and value")
    return [by_id[i] for i in sorted(by_id)]


def ncu_ranges(stdout):
    """Per-range {"id", "name" (the range's name), metric: value} in ID order
    from `ncu --replay-mode range --nvtx ... --csv --print-units base`. Raises
    NcuCsvError (see parse_ncu_csv)."""
    return parse_ncu_csv(stdout, "range")


# ncu's Speed Of Light verdict per kernel, from `--set full --csv` (the
# details page): its SOLBottleneck rule's text where the CSV has rule columns
# ("Rule Name", "Rule Description"), else the section's two headline
# percentages with the rule's own threshold.
SOL_SECTION = "GPU Speed Of Light Throughput"
SOL_COMPUTE = "Compute (SM) Throughput"
SOL_MEMORY = "Memory Throughput"
SOL_RULE = "SOLBottleneck"
# Below this share of peak on both throughputs ncu's rule says latency limits the kernel.
SOL_BOUND_PCT = 60.0
# Phrases of the SOLBottleneck rule's text and the verdict each gives, first match wins. Above 80% ncu says
# "greater than 80.0% ..." and names the section to start with; "well-balanced" is its word for two
# throughputs both high and close, where either side may be called the limit.
SOL_RULE_PHRASES = (
    ("low compute throughput and memory bandwidth", "latency"),
    ("memory is more heavily utilized than compute", "memory"),
    ("compute is more heavily utilized than memory", "compute"),
    ("memory workload analysis", "memory"),
    ("compute workload analysis", "compute"),
    ("well-balanced", "balanced"),
)


def ncu_full_set_command(app_cmd, nvtx_include="step/"):
    """`ncu --clock-control none --nvtx --nvtx-include <nvtx_include> --set
    full --csv <app_cmd>` as a list: kernel replay, the details page with the
    sections' display names and units and, on ncu 2023 and later, the rules'
    results; read it with ncu_sol_verdicts()."""
    return list(NCU) + ["--nvtx", "--nvtx-include", nvtx_include, "--set", "full", "--csv"] + list(app_cmd)


def sol_verdict_from_rule(text):
    """"memory", "compute", "latency" or "balanced" for the text of ncu's
    SOLBottleneck rule (SOL_RULE_PHRASES), None for a text it does not know."""
    lowered = (text or "").lower()
    return next((verdict for phrase, verdict in SOL_RULE_PHRASES if phrase in lowered), None)


def sol_verdict_from_percentages(compute_pct, memory_pct):
    """The SOLBottleneck rule's verdict from the headline throughputs (% of
    peak): "latency" when both are below SOL_BOUND_PCT, else the higher side
    ("memory" on a tie); None when either is None."""
    if compute_pct is None or memory_pct is None:
        return None
    if compute_pct < SOL_BOUND_PCT and memory_pct < SOL_BOUND_PCT:
        return "latency"
    return "memory" if memory_pct >= compute_pct else "compute"


def ncu_sol_verdicts(stdout):
    """Per kernel of `ncu --set full --csv` output (ncu_full_set_command), in
    ID order: {"id", "name", "compute_pct", "memory_pct" (the Speed Of Light
    section's headline throughputs, None when missing), "rule" (the
    SOLBottleneck text or None), "verdict" ("memory", "compute", "latency",
    "balanced" or None), "source" ("rule" or "percentages")}. The verdict is
    the rule's when its text is known (sol_verdict_from_rule), else the
    percentages' (sol_verdict_from_percentages). Raises NcuCsvError when the
    output has no table or no kernel with a Speed Of Light value or rule."""
    start = stdout.find('"ID"')
    if start < 0:
        errors = [l.strip() for l in stdout.splitlines() if l.startswith("==ERROR==")][:2]
        raise NcuCsvError("ncu --set full CSV: no header row starting \"ID\" in its output"
                          + (f" ({' | '.join(errors)})" if errors else ""))
    reader = csv.DictReader(io.StringIO(stdout[start:]))
    missing = [c for c in ("ID", "Section Name", "Metric Name", "Metric Value") if c not in (reader.fieldnames or [])]
    if missing:
        raise NcuCsvError(f"ncu --set full CSV: header lacks {', '.join(missing)}; header: {reader.fieldnames}")
    name_col = next((c for c in NAME_COLUMNS if c in reader.fieldnames), None)
    by_id = {}
    for row in reader:
        try:
            rid = int(row["ID"])
        except (ValueError, TypeError):
            continue
        entry = by_id.setdefault(rid, {"id": rid, "name": row.get(name_col, "") if name_col else "",
                                       "compute_pct": None, "memory_pct": None, "rule": None})
        if row.get("Rule Name") == SOL_RULE and row.get("Rule Description"):
            entry["rule"] = row["Rule Description"]
        if row["Section Name"] != SOL_SECTION or row["Metric Name"] not in (SOL_COMPUTE, SOL_MEMORY):
            continue
        try:
            value = float((row["Metric Value"] or "").replace(",", ""))
        except ValueError:
            continue
        entry["compute_pct" if row["Metric Name"] == SOL_COMPUTE else "memory_pct"] = value
    kernels = [by_id[i] for i in sorted(by_id)
               if by_id[i]["rule"] is not None or by_id[i]["compute_pct"] is not None]
    if not kernels:
        raise NcuCsvError(f"ncu --set full CSV: no kernel with a {SOL_SECTION} value or a {SOL_RULE} result")
    for k in kernels:
        from_rule = sol_verdict_from_rule(k["rule"])
        k["verdict"] = from_rule or sol_verdict_from_percentages(k["compute_pct"], k["memory_pct"])
        k["source"] = "rule" if from_rule else "percentages"
    return kernels


def kernel_values(kernel):
    """{metric name: value} of one kernel of a rangereplay report."""
    return {m["name"]: m["value"] for m in kernel["metrics"]}


def report_kernels(report):
    """The kernels of a rangereplay report's replayed ranges (declined ones
    skipped), in report order, each {"range", "kernel" (indices), "name" (the
    mangled name), "launch_index" (-1 when absent), <metric>: value}: the list
    to pair with parse_ncu_csv()'s kernel-replay results."""
    kernels = []
    for r in report["ranges"]:
        if r.get("declined"):
            continue
        for k in r["kernels"]:
            kernels.append({"range": r["index"], "kernel": k["index"], "name": k.get("mangled_name", ""),
                            "launch_index": k.get("launch_index", -1), **kernel_values(k)})
    return kernels


def launch_window(report):
    """(range index, first launch index, launch count) of the first replayed
    range whose kernels all carry a process-wide launch_index, or None. A
    range's launches are consecutive in the process (every thread's launch
    while it is open belongs to it), so `ncu --launch-skip first
    --launch-count count` profiles exactly its kernels, whichever thread
    launched them."""
    for r in sorted(report["ranges"], key=lambda r: r["index"]):
        if r.get("declined") or not r.get("kernels"):
            continue
        idx = [k.get("launch_index", -1) for k in r["kernels"]]
        if min(idx) >= 0:
            return r["index"], min(idx), max(idx) - min(idx) + 1
    return None


def range_sums(report, metrics=FIDELITY_METRICS):
    """Per range of a rangereplay report, in index order: {"index", "name",
    "declined", "kernels", <metric>: value} where value is the sum of the
    kernels' values (None when the range was declined or a kernel lacks the
    metric). A report made with --range-metrics whole gives the range's own
    value instead."""
    out = []
    for r in sorted(report["ranges"], key=lambda r: r["index"]):
        row = {"index": r["index"], "name": r.get("name", ""), "declined": bool(r.get("declined")),
               "kernels": len(r.get("kernels", []))}
        whole = {m["name"]: m["value"] for m in r.get("range_metrics") or []}
        for name in metrics:
            if row["declined"]:
                row[name] = None
            elif name in whole:
                row[name] = whole[name]
            else:
                values = [next((m["value"] for m in k["metrics"] if m["name"] == name), None) for k in r["kernels"]]
                row[name] = sum(values) if values and None not in values else None
        out.append(row)
    return out


def relative_deviation(ours, ref):
    """|ours - ref| / ref (ref 0: the absolute difference)."""
    return abs(ours - ref) / ref if ref else abs(ours - ref)


def within_pct(ours, ref, pct=0.02, zero_slack=4096.0):
    """ours within pct of ref; for ref 0, ours <= zero_slack (bytes). False when
    either is None."""
    if ours is None or ref is None:
        return False
    return relative_deviation(ours, ref) <= pct if ref > 0 else ours <= zero_slack


# A nondeterministic kernel's instruction count (ncu's two runs differ) may
# lie this far (relative) outside the two runs, however close they are: two
# draws bound a third poorly (for evenly spread counts, a third lands outside
# the two widened by their difference about 3 times in 10).
NONDETERMINISTIC_REL_SLACK = 0.001


def within_spread(ours, a, b):
    """ours within [min(a, b) - w, max(a, b) + w], w = max(|a - b|,
    NONDETERMINISTIC_REL_SLACK * max(|a|, |b|)) when a != b: ncu's two runs
    widened by their own difference, or by 0.1% where that is more. Equal runs
    (a deterministic kernel) leave only ours == a. False when any is None."""
    if ours is None or a is None or b is None:
        return False
    if a == b:
        return ours == a
    w = max(abs(a - b), NONDETERMINISTIC_REL_SLACK * max(abs(a), abs(b)))
    return min(a, b) - w <= ours <= max(a, b) + w


def kernel_check(ours, run1, run2):
    """Kernel-by-kernel (in order) instruction check of rangereplay's kernels
    (report_kernels) against two ncu kernel-replay runs (parse_ncu_csv). A
    kernel is nondeterministic when ncu's two runs differ for it; it passes
    when within_spread(ours, run1, run2), so a deterministic kernel must be
    equal. "equal" counts kernels equal to one of ncu's runs; "max_rel_dev"
    is the largest deviation from the nearer run. DRAM bytes against kernel
    replay (which flushes caches before each kernel, range replay does not)
    are kept per kernel as information only. ok: same kernel count in all
    three lists, at least one kernel, every kernel passes."""
    n = min(len(ours), len(run1), len(run2))
    pairs, equal, outside, nondet, max_dev = [], 0, 0, 0, 0.0
    for i in range(n):
        mine, a_row, b_row = ours[i], run1[i], run2[i]
        x, a, b = mine.get(INST), a_row.get(INST), b_row.get(INST)
        c, d = mine.get(DRAM), a_row.get(DRAM)
        is_equal = x is not None and x in (a, b)
        passes = within_spread(x, a, b)
        dev = min(relative_deviation(x, r) for r in (a, b) if r is not None) \
            if x is not None and (a is not None or b is not None) else None
        equal += is_equal
        outside += not passes
        nondet += a is not None and b is not None and a != b
        max_dev = max(max_dev, dev) if dev is not None else max_dev
        pairs.append({"i": i, "name": mine.get("name", "")[:120], "ncu_name": a_row.get("name", "")[:120],
                      "inst": x, "ncu_inst": a, "ncu_inst_run2": b,
                      "nondeterministic": a is not None and b is not None and a != b,
                      "inst_equal": is_equal, "inst_rel_dev": dev, "inst_ok": passes,
                      "dram": c, "ncu_dram": d, "ncu_dram_run2": b_row.get(DRAM),
                      "dram_within_2pct_of_kernel_replay": within_pct(c, d)})
    counts_equal = len(ours) == len(run1) == len(run2)
    return {"kernels_rangereplay": len(ours), "kernels_ncu": [len(run1), len(run2)], "compared": n,
            "equal": equal, "max_rel_dev": max_dev, "nondeterministic": nondet, "outside_ncu_spread": outside,
            "dram_within_2pct_of_kernel_replay": sum(p["dram_within_2pct_of_kernel_replay"] for p in pairs),
            "ok": counts_equal and n > 0 and outside == 0, "kernels": pairs}


def dram_range_check(sums, theirs):
    """Each range's sum of per-kernel DRAM bytes read (range_sums) against
    ncu's range-replay value for the same range (ncu_ranges; paired in order:
    ncu's result i is the report's range index i), within 2%. Instruction sums
    are kept beside it as information. Declined ranges are not compared. ok:
    as many ranges as ncu, at least one compared, all within 2%."""
    rows, within, max_dev = [], 0, 0.0
    compared = 0
    for mine, ref in zip(sums, theirs):
        if mine["declined"]:
            rows.append({"index": mine["index"], "declined": True})
            continue
        compared += 1
        c, d = mine.get(DRAM), ref.get(DRAM)
        ok = within_pct(c, d)
        within += ok
        dev = relative_deviation(c, d) if c is not None and d is not None else None
        max_dev = max(max_dev, dev) if dev is not None else max_dev
        x, y = mine.get(INST), ref.get(INST)
        rows.append({"index": mine["index"], "name": mine["name"], "ncu_name": ref.get("name", ""),
                     "kernels": mine["kernels"], "dram": c, "ncu_dram": d, "dram_rel_dev": dev,
                     "dram_within_2pct": ok, "inst": x, "ncu_inst": y,
                     "inst_rel_dev": relative_deviation(x, y) if x is not None and y is not None else None})
    not_declined = sum(not m["declined"] for m in sums)
    return {"ranges_rangereplay": len(sums), "ranges_ncu": len(theirs), "compared": compared, "within_2pct": within,
            "max_rel_dev": max_dev, "ranges": rows,
            "ok": len(sums) == len(theirs) and compared > 0 and within == compared == not_declined}


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
    """Runs cmd: (rc, wall_s, stdout, stderr); rc None and stderr `timed out
    after <timeout> s` when it ran past timeout (seconds)."""
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
    rc, wall, out, err = timed_run(ncu_range_replay_command(app_cmd, ["--metrics", ",".join(metrics)], nvtx_include),
                                   timeout)
    messages = ncu_messages(out + "\n" + err, limit=20)
    result = {"rc": rc, "wall_s": wall, "metric_list": "same", "errors": [], "stderr_tail": err.strip()[-300:],
              "warnings": [m for m in messages if m.startswith("==WARNING==")]}
    if rc == 0:
        return result
    result["errors"] = [m for m in messages if m.startswith("==ERROR==")] or [(out + err).strip()[-300:]]
    if not metric_list_rejected(result["errors"]):
        return result  # the list was accepted; the run failed for another reason (kept as is)
    rc, wall, out, err = timed_run(ncu_range_replay_command(app_cmd, ["--set", "full"], nvtx_include), timeout)
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
