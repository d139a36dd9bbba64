"""Deferred, batched replays against ranges replayed one by one.

GPU end-to-end test of deferred, batched replays (--batch-ranges N): the same values as ranges
replayed one by one (--batch-ranges off), the application's results unchanged, and a free of a
deferred range's memory replaying it first. A range replayed alone in its batch (CUPTI's automatic
ranges) has its kernels' durations within 10% (or 2 us) of the immediate path's; in batches of several the
ratio is printed. Exit 1 on failure, 77 without a GPU.
"""
import os
import sys
import tempfile

from e2e_common import checksums, load_report, run, summarize, tail

BUILD = sys.argv[1]
CLI = os.path.join(BUILD, "tools/cli/rangereplay")
# A multi-pass list: deferral applies to multi-pass ranges only.
METRIC_SET = "basic"


def profile(exe, args, tool_args, batch):
    """(rc, stdout, stderr, report or None) of `rangereplay profile --batch-ranges <batch>` over `exe`."""
    fd, report_path = tempfile.mkstemp(prefix="rr_batch_", suffix=".json")
    os.close(fd)
    os.unlink(report_path)
    cmd = [CLI, "profile", "--nvtx-include", "step/", "--set", METRIC_SET, "--output", report_path, *tool_args,
           "--batch-ranges", str(batch), "--", exe] + args
    rc, out, err = run(cmd, timeout=240)
    report = None
    if os.path.exists(report_path):
        try:
            report = load_report(report_path)
        finally:
            os.unlink(report_path)
    return rc, out, err, report


def instructions(report):
    """Per range: its kernels' (name, smsp__inst_executed.sum), or its whole-range value."""
    out = []
    for r in report["ranges"]:
        kernels = [(k["name"], [m["value"] for m in k["metrics"] if m["name"] == "smsp__inst_executed.sum"])
                   for k in r["kernels"]]
        whole = [m["value"] for m in r.get("range_metrics", []) if m["name"] == "smsp__inst_executed.sum"]
        out.append((r["declined"], kernels, whole))
    return out


DURATION = "gpu__time_duration.sum"
# Kernel durations of the two paths may differ by this much (ns) whatever their length (short kernels vary most).
DURATION_SLACK_NS = 2000.0


def duration_pairs(batched, one):
    """Per counter-range layout of the batched report ("auto": CUPTI's automatic ranges, alone in their batch or in a
    batch of several; "user": a user range pushed around each kernel, after the automatic ranges did not add up):
    (batched, one by one) durations in ns of each kernel with both values, one by one being the immediate path
    (CUPTI's automatic ranges)."""
    pairs = {}
    for rb, ro in zip(batched["ranges"], one["ranges"]):
        for kb, ko in zip(rb["kernels"], ro["kernels"]):
            b = next((m["value"] for m in kb["metrics"] if m["name"] == DURATION), None)
            o = next((m["value"] for m in ko["metrics"] if m["name"] == DURATION), None)
            if b and o:
                pairs.setdefault(rb.get("counter_ranges", ""), []).append((b, o))
    return pairs


def check(label, exe_rel, args, tool_args, batch, expect_note, failures):
    exe = os.path.join(BUILD, exe_rel)
    if not os.access(exe, os.X_OK):
        failures.append(f"{label}: {exe} is missing; build its target first")
        return
    plain_rc, plain_out, plain_err = run([exe] + args)
    if plain_rc != 0 or not checksums(plain_out):
        failures.append(f"{label}: the plain run failed (rc={plain_rc}): {tail(plain_err)}")
        return
    # The baseline is the immediate path: each range replayed at its own end.
    one_rc, one_out, one_err, one = profile(exe, args, tool_args, "off")
    rc, out, err, batched = profile(exe, args, tool_args, batch)
    for name, (r_rc, r_out, r_err, rep) in (("one by one", (one_rc, one_out, one_err, one)),
                                           ("batched", (rc, out, err, batched))):
        if r_rc != plain_rc or checksums(r_out) != checksums(plain_out):
            failures.append(f"{label} {name}: results differ with the tool (rc {plain_rc} vs {r_rc}): {tail(r_err)}")
            return
        if rep is None:
            failures.append(f"{label} {name}: no report: {tail(r_err)}")
            return
    declined = [f"{r['index']}: {r['decline_reason']} ({r['decline_detail']})" for r in batched["ranges"]
                if r["declined"]]
    if declined:
        failures.append(f"{label}: batched ranges declined: {'; '.join(declined)}")
    if instructions(batched) != instructions(one):
        failures.append(f"{label}: instruction counts differ: batched {instructions(batched)} vs one by one "
                        f"{instructions(one)}")
    # A batch of one range replays in a window of its own, with CUPTI's per-kernel ranges.
    notes = [n for r in batched["ranges"] for n in r["notes"]
             if "other deferred ranges" in n or "replayed alone in its batch" in n]
    if len(notes) != len(batched["ranges"]):
        failures.append(f"{label}: {len(notes)} of {len(batched['ranges'])} ranges say they were batched")
    if expect_note and not any(expect_note in n for n in notes):
        failures.append(f"{label}: no batch was replayed because of '{expect_note}': {notes}")
    # Per-kernel values in a batch of several come from CUPTI's automatic ranges (the tool's restore and flush kernels
    # counted at their launch and left out); user ranges there mean the automatic ranges failed or did not add up.
    if "whole" not in tool_args:
        several = [r for r in batched["ranges"] if not r["declined"] and
                   any("other deferred ranges" in n and "with 0 other" not in n for n in r["notes"])]
        user = [f"{r['index']}: {[n for n in r['notes'] if 'second time' in n][:1]}" for r in several
                if r.get("counter_ranges") != "auto"]
        if user:
            failures.append(f"{label}: {len(user)} of {len(several)} ranges batched with others were not counted in "
                            f"CUPTI's automatic ranges: {'; '.join(user)[:600]}")
    # A range counted in CUPTI's automatic ranges, alone in its batch or in a batch of several (the tool's restore and
    # flush kernels' rows left out), is counted as one by one: its kernels' durations must agree (10% or 2 us: the
    # clocks move between runs). A user range pushed around each kernel counts the host's launch path too: its ratio
    # is printed, not checked.
    pairs = duration_pairs(batched, one)
    far = [b / o for b, o in pairs.get("auto", []) if abs(b - o) > max(0.10 * o, DURATION_SLACK_NS)]
    if far:
        failures.append(f"{label}: {len(far)} of {len(pairs['auto'])} kernels counted in automatic ranges in their "
                        f"batch have durations off the immediate path's by more than 10% and 2 us (ratios "
                        f"{sorted(far)[:4]})")
    medians = {layout: sorted(b / o for b, o in v)[len(v) // 2] for layout, v in pairs.items() if v}
    rows = [f"{layout} ranges: {len(pairs[layout])} kernels, median {m:.3f}" for layout, m in sorted(medians.items())]
    print(f"{label:<32} duration batched / one by one: " + ", ".join(rows))
    budget = batched.get("time_budget", {})
    print(f"{label:<32} {len(batched['ranges'])} ranges, equal: {instructions(batched) == instructions(one)}; "
          f"windows {budget.get('windows_ms', 0):.0f} ms batched vs "
          f"{one.get('time_budget', {}).get('windows_ms', 0):.0f} ms one by one; notes: {sorted(set(notes))[:2]}")


failures = []
stream = ("examples/stream", ["--iterations", "4", "--bytes", "64MiB"])
check("stream per kernel, batch 4", *stream, [], 4, "as many ranges as --batch-ranges were deferred", failures)
# The last range is replayed at the application's own frees at its end, or at exit.
check("stream whole range, batch 3", *stream, ["--range-metrics", "whole"], 3, "", failures)
check("stream full restore, batch 2", *stream, ["--restore", "full"], 2, "", failures)
check("free after each range", "tests/apps/app_free_pending", ["--iterations", "3"], [], 8,
      "cuMemFree_v2 while ranges were deferred", failures)
check("multistream", "examples/multistream", ["--iterations", "3"], [], 3, "", failures)
check("globals", "examples/globals", ["--iterations", "3"], [], 3, "", failures)
# A __constant__ round count written before each range: each range is
# replayed at the next write (no snapshot holds constant memory), so its
# instruction count is its own, not the next range's.
check("constant written between ranges", "tests/apps/app_constant_between_ranges", ["--iterations", "3"], [], 3,
      "wrote device memory no deferred range's snapshot holds", failures)
sys.exit(summarize(failures))
