"""run_workloads.py: the workload suite of issue 8 on a GPU machine.

For each workload (examples/stream, examples/gemm, workload_cub, PyTorch
transformer train and infer) it measures
  (a) determinism: two plain runs print the same `checksum ` / `loss ` lines;
  (b) transparency: the same lines under `rangereplay profile --set full`;
  (c) verify: divergent regions per range under `--verify` (every one listed
      with its address, size and origin in workloads.json);
  (d) fidelity: ncu kernel replay against the rangereplay report of (b), kernel
      by kernel in order: smsp__inst_executed.sum equal, dram__bytes_read.sum
      within 2%;
  (e) speed: wall time of (b) against `ncu --replay-mode range` on the same
      ranges and metrics (the report's "metrics"); plus stream 64 MiB x 50
      ranges with --set single-pass, and the slowdown with the tool loaded but
      no range matched.
Prints one summary table last and writes every raw number to
<out-dir>/workloads.json (rewritten after each workload, so a run cut short
keeps what it measured).

    python3 tests/workloads/run_workloads.py <build-dir> <out-dir>
        [--workloads stream,gemm,cub,torch-train,torch-infer]
        [--sections a,b,c,d,e] [--timeout SECONDS] [--no-extra-speed]

Exit status: 0 when every run that could run met its checks, 1 otherwise; a
workload that cannot run (binary or PyTorch missing, no GPU) is reported as
`unavailable` with the reason, never counted as passed.
"""
import argparse, csv, io, json, os, shutil, subprocess, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "bench"))
from ncu_range import ncu_range_replay  # noqa: E402
VERIFY_METRICS = "smsp__inst_executed.sum,dram__bytes_read.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed"
FIDELITY_METRICS = "smsp__inst_executed.sum,dram__bytes_read.sum"
SKIP_CODE = 77


def result_lines(text):
    return [l for l in text.splitlines() if l.startswith("checksum ") or l.startswith("loss ")]


class Runner:
    def __init__(self, build, out_dir, timeout):
        self.build, self.out_dir, self.timeout = build, out_dir, timeout
        self.cli = os.path.join(build, "tools/cli/rangereplay")

    def run(self, cmd, timeout=None, env=None):
        """Runs cmd; returns dict(rc, wall_s, stdout, stderr); rc None on timeout."""
        t = time.perf_counter()
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout or self.timeout, env=env)
            return {"rc": p.returncode, "wall_s": time.perf_counter() - t, "stdout": p.stdout, "stderr": p.stderr}
        except subprocess.TimeoutExpired as e:
            out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
            err = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
            return {"rc": None, "wall_s": time.perf_counter() - t, "stdout": out,
                    "stderr": err + f"\n[timed out after {timeout or self.timeout} s]"}
        except OSError as e:
            return {"rc": None, "wall_s": 0.0, "stdout": "", "stderr": f"cannot start {cmd[0]}: {e}"}

    def profile(self, name, cmd, extra, tag):
        report = os.path.join(self.out_dir, f"{name}.{tag}.json")
        if os.path.exists(report):
            os.remove(report)
        r = self.run([self.cli, "profile", "--quiet", "--nvtx-include", "step/"] + extra +
                     ["--output", report, "--"] + cmd)
        r["report_path"] = report
        r["report"] = json.load(open(report)) if r["rc"] == 0 and os.path.exists(report) else None
        return r


def brief(r):
    """The part of a run result kept in workloads.json."""
    return {"rc": r["rc"], "wall_s": r["wall_s"], "stderr_tail": r["stderr"].strip()[-600:]}


def ncu_kernels(stdout):
    """Per-kernel {metric: value} in ID order from `ncu --csv --print-units base`."""
    start = stdout.find('"ID"')
    if start < 0:
        return None
    by_id = {}
    for row in csv.DictReader(io.StringIO(stdout[start:])):
        try:
            kid = int(row["ID"])
            value = float(row["Metric Value"].replace(",", ""))
        except (KeyError, ValueError, TypeError):
            continue
        by_id.setdefault(kid, {"name": row.get("Kernel Name", "")})[row["Metric Name"]] = value
    return [by_id[i] for i in sorted(by_id)]


def report_kernels(report):
    kernels = []
    for r in report["ranges"]:
        if r.get("declined"):
            continue
        for k in r["kernels"]:
            vals = {m["name"]: m["value"] for m in k["metrics"]}
            kernels.append({"range": r["index"], "kernel": k["index"], "name": k.get("mangled_name", ""), **vals})
    return kernels


def workload_table(build, only):
    py = sys.executable or "python3"
    torch_script = os.path.join(HERE, "torch_transformer.py")
    all_workloads = [
        ("stream", [os.path.join(build, "examples/stream"), "--iterations", "2", "--bytes", "64MiB"]),
        ("gemm", [os.path.join(build, "examples/gemm"), "--iterations", "2"]),
        ("cub", [os.path.join(build, "tests/workloads/workload_cub"), "--iterations", "2"]),
        ("torch-train", [py, torch_script, "--mode", "train", "--steps", "2"]),
        ("torch-infer", [py, torch_script, "--mode", "infer", "--steps", "2"]),
    ]
    return [(n, c) for n, c in all_workloads if not only or n in only]


def unavailable_reason(runner, name, cmd):
    if name.startswith("torch"):
        probe = runner.run([cmd[0], "-c", "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 3)"],
                           timeout=120)
        if probe["rc"] == 3:
            return "PyTorch has no CUDA device"
        if probe["rc"] != 0:
            return "PyTorch not importable: " + probe["stderr"].strip().splitlines()[-1:][0][:200] \
                if probe["stderr"].strip() else f"PyTorch probe rc={probe['rc']}"
    elif not os.access(cmd[0], os.X_OK):
        return f"{cmd[0]} not built"
    return None


def run_workload(runner, name, cmd, sections, has_ncu):
    rec = {"name": name, "command": cmd}
    problems = []
    reason = unavailable_reason(runner, name, cmd)
    if reason:
        rec["unavailable"] = reason
        return rec, problems

    # (a) determinism
    plain1 = runner.run(cmd)
    rec["plain1"] = brief(plain1)
    if plain1["rc"] == SKIP_CODE:
        rec["unavailable"] = plain1["stderr"].strip()[-200:] or "skipped (77)"
        return rec, problems
    if plain1["rc"] != 0:
        problems.append(f"{name}: plain run rc={plain1['rc']}: {plain1['stderr'].strip()[-300:]}")
        return rec, problems
    lines = result_lines(plain1["stdout"])
    rec["plain_lines"] = lines
    if not lines or "checksums-done" not in plain1["stdout"]:
        problems.append(f"{name}: plain run printed no result lines or no checksums-done")
    if "a" in sections:
        plain2 = runner.run(cmd)
        rec["plain2"] = brief(plain2)
        rec["deterministic"] = plain2["rc"] == 0 and result_lines(plain2["stdout"]) == lines
        if not rec["deterministic"]:
            rec["plain2_lines"] = result_lines(plain2["stdout"])
            problems.append(f"{name}: two plain runs differ (non-deterministic without the tool)")

    # (b) transparency, full set (its report also feeds (d) and (e))
    full = None
    if {"b", "d", "e"} & sections:
        full = runner.profile(name, cmd, ["--set", "full"], "full")
        rec["profile_full"] = brief(full)
        got = result_lines(full["stdout"])
        rec["transparent"] = full["rc"] == 0 and got == lines
        if full["rc"] != 0:
            problems.append(f"{name}: profile --set full rc={full['rc']}: {full['stderr'].strip()[-300:]}")
        elif not rec["transparent"]:
            rec["profile_lines"] = got
            problems.append(f"{name}: results differ under the tool"
                            + (" (and the workload is non-deterministic)" if rec.get("deterministic") is False else ""))
        if full["report"]:
            rep = full["report"]
            rec["full_report"] = {
                "metrics": len(rep["metrics"]), "pass_count": rep.get("pass_count"),
                "ranges": [{"index": r["index"], "declined": r["declined"], "decline_reason": r.get("decline_reason"),
                            "decline_detail": r.get("decline_detail"), "passes": r["passes"],
                            "kernels": len(r["kernels"]), "footprint_bytes": r["footprint_bytes"],
                            "timings": r.get("timings"), "notes": r.get("notes")} for r in rep["ranges"]]}
            for r in rep["ranges"]:
                if r["declined"]:
                    problems.append(f"{name}: range {r['index']} declined: {r.get('decline_reason')} "
                                    f"{r.get('decline_detail')}")

    # (c) verify
    if "c" in sections:
        ver = runner.profile(name, cmd, ["--verify", "--metrics", VERIFY_METRICS], "verify")
        rec["verify_run"] = brief(ver)
        if ver["rc"] != 0 or not ver["report"]:
            problems.append(f"{name}: --verify rc={ver['rc']}: {ver['stderr'].strip()[-300:]}")
        else:
            per_range = []
            for r in ver["report"]["ranges"]:
                divs = [dict(d, **{"pass": p["pass"]}) for p in r["pass_records"] for d in p["divergences"]]
                per_range.append({"index": r["index"], "declined": r["declined"], "divergent_regions": len(divs),
                                  "divergences": divs,
                                  "verify_notes": [n for n in r.get("notes", []) if "verify" in n]})
            rec["verify"] = per_range
            rec["divergences"] = sum(r["divergent_regions"] for r in per_range)
            if result_lines(ver["stdout"]) != lines:
                problems.append(f"{name}: results differ under --verify")

    # (d) fidelity against ncu kernel replay
    if "d" in sections and full and full["report"]:
        if not has_ncu:
            rec["fidelity_unavailable"] = "ncu not on PATH"
        else:
            ncu = runner.run(["ncu", "--clock-control", "none", "--nvtx", "--nvtx-include", "step/", "--csv",
                              "--print-units", "base", "--metrics", FIDELITY_METRICS] + cmd)
            rec["ncu_kernel_replay"] = brief(ncu)
            theirs = ncu_kernels(ncu["stdout"]) if ncu["rc"] == 0 else None
            ours = report_kernels(full["report"])
            if theirs is None:
                problems.append(f"{name}: ncu kernel replay rc={ncu['rc']} or no CSV: {ncu['stderr'].strip()[-300:]}")
            else:
                pairs, inst_bad, dram_bad = [], 0, 0
                for i, (mine, ref) in enumerate(zip(ours, theirs)):
                    a, b = mine.get("smsp__inst_executed.sum"), ref.get("smsp__inst_executed.sum")
                    c, d = mine.get("dram__bytes_read.sum"), ref.get("dram__bytes_read.sum")
                    inst_ok = a is not None and a == b
                    dram_ok = c is not None and d is not None and (abs(c - d) / d <= 0.02 if d > 0 else c <= 4096)
                    inst_bad += not inst_ok
                    dram_bad += not dram_ok
                    pairs.append({"i": i, "name": mine["name"][:120], "ncu_name": ref["name"][:120],
                                  "inst": a, "ncu_inst": b, "dram": c, "ncu_dram": d,
                                  "inst_equal": inst_ok, "dram_within_2pct": dram_ok})
                rec["fidelity"] = {"kernels_rangereplay": len(ours), "kernels_ncu": len(theirs),
                                   "inst_mismatches": inst_bad, "dram_outside_2pct": dram_bad, "kernels": pairs}
                rec["inst_equal"] = inst_bad == 0 and len(ours) == len(theirs) and len(ours) > 0
                rec["dram_within_2pct"] = dram_bad == 0 and len(ours) == len(theirs) and len(ours) > 0
                if len(ours) != len(theirs):
                    problems.append(f"{name}: ncu profiled {len(theirs)} kernels, rangereplay {len(ours)}")
                if inst_bad:
                    problems.append(f"{name}: {inst_bad} kernels with instruction counts unequal to ncu")
                if dram_bad:
                    problems.append(f"{name}: {dram_bad} kernels with DRAM bytes outside 2% of ncu")

    # (e) speed against ncu range replay on the same ranges and metrics
    if "e" in sections and full and full["report"]:
        speed = {"rangereplay_s": full["wall_s"], "plain_s": plain1["wall_s"]}
        if has_ncu:
            ncu = ncu_range_replay(cmd, full["report"]["metrics"], timeout=runner.timeout)
            speed["ncu_range_replay"] = ncu
            if ncu["rc"] == 0:
                speed["ncu_s"] = ncu["wall_s"]
                speed["ratio"] = ncu["wall_s"] / full["wall_s"]
            else:
                problems.append(f"{name}: ncu range replay rc={ncu['rc']}: {' | '.join(ncu['errors'])}")
        # Tool loaded, no range matched: slowdown of the whole application.
        idle = [runner.run([runner.cli, "profile", "--quiet", "--nvtx-include", "no_such_range/", "--set",
                            "single-pass", "--"] + cmd) for _ in range(2)]
        plain_best = min(x["wall_s"] for x in [plain1, rec.get("plain2") or plain1])
        if all(x["rc"] == 0 for x in idle):
            speed["tool_no_range_s"] = min(x["wall_s"] for x in idle)
            speed["no_range_slowdown"] = speed["tool_no_range_s"] / plain_best
        else:
            speed["tool_no_range_runs"] = [brief(x) for x in idle]
            problems.append(f"{name}: tool loaded with no range failed")
        rec["speed"] = speed
    return rec, problems


def extra_speed(runner, has_ncu):
    """stream 64 MiB x 50 ranges, one-pass list; and the no-range slowdown at 20 iterations."""
    stream = os.path.join(runner.build, "examples/stream")
    rows, problems = {}, []
    if not os.access(stream, os.X_OK):
        return {"unavailable": "examples/stream not built"}, problems
    args = [stream, "--iterations", "50", "--bytes", "64MiB"]
    plain = runner.run(args)
    rr = runner.profile("stream-x50", args, ["--set", "single-pass"], "single")
    rows["single_pass_x50"] = {"plain_s": plain["wall_s"], "rangereplay": brief(rr)}
    if rr["rc"] == 0 and rr["report"]:
        rows["single_pass_x50"]["rangereplay_s"] = rr["wall_s"]
        rows["single_pass_x50"]["ranges"] = len(rr["report"]["ranges"])
        rows["single_pass_x50"]["pass_count"] = rr["report"].get("pass_count")
        rows["single_pass_x50"]["transparent"] = result_lines(rr["stdout"]) == result_lines(plain["stdout"])
        if has_ncu:
            ncu = ncu_range_replay(args, rr["report"]["metrics"], timeout=runner.timeout)
            rows["single_pass_x50"]["ncu"] = ncu
            if ncu["rc"] == 0:
                rows["single_pass_x50"]["ncu_s"] = ncu["wall_s"]
                rows["single_pass_x50"]["ratio"] = ncu["wall_s"] / rr["wall_s"]
    else:
        problems.append(f"stream x50 single-pass: rc={rr['rc']}: {rr['stderr'].strip()[-300:]}")
    args20 = [stream, "--iterations", "20"]
    plain20 = min(runner.run(args20)["wall_s"] for _ in range(2))
    tool20 = [runner.run([runner.cli, "profile", "--quiet", "--nvtx-include", "no_such_range/", "--set",
                          "single-pass", "--"] + args20) for _ in range(2)]
    rows["no_range_x20"] = {"plain_s": plain20, "tool_s": min(t["wall_s"] for t in tool20),
                            "rcs": [t["rc"] for t in tool20]}
    rows["no_range_x20"]["slowdown"] = rows["no_range_x20"]["tool_s"] / plain20
    return rows, problems


def yes_no(v):
    return "-" if v is None else ("yes" if v else "NO")


def fmt_s(v):
    return "-" if v is None else f"{v:.2f}"


def ncu_cell(sp):
    """ncu's seconds, marked `*` when ncu refused the same list and ran its own --set full."""
    ncu = sp.get("ncu_range_replay") or sp.get("ncu") or {}
    mark = "*" if ncu.get("metric_list") == "ncu --set full" else ""
    return fmt_s(sp.get("ncu_s")) + mark


def summary(records, extra):
    header = ["workload", "deterministic", "transparent", "divergences", "inst equal", "dram within 2%",
              "rangereplay s", "ncu s", "ratio"]
    rows = []
    for rec in records:
        if rec.get("unavailable"):
            rows.append([rec["name"], f"unavailable: {rec['unavailable'][:40]}"] + [""] * 7)
            continue
        sp = rec.get("speed", {})
        rows.append([rec["name"], yes_no(rec.get("deterministic")), yes_no(rec.get("transparent")),
                     "-" if rec.get("divergences") is None else str(rec["divergences"]),
                     yes_no(rec.get("inst_equal")), yes_no(rec.get("dram_within_2pct")),
                     fmt_s(sp.get("rangereplay_s")), ncu_cell(sp),
                     "-" if sp.get("ratio") is None else f"{sp['ratio']:.2f}x"])
    if extra:
        sp = extra.get("single_pass_x50", {})
        if sp:
            rows.append(["stream 64MiB x50 single-pass", "-", yes_no(sp.get("transparent")), "-", "-", "-",
                         fmt_s(sp.get("rangereplay_s")), ncu_cell(sp),
                         "-" if sp.get("ratio") is None else f"{sp['ratio']:.2f}x"])
        nr = extra.get("no_range_x20")
        if nr:
            rows.append(["stream x20, tool loaded, no range", "-", "-", "-", "-", "-", fmt_s(nr["tool_s"]),
                         f"plain {nr['plain_s']:.2f}", f"{nr['slowdown']:.3f}x slower"])
        for rec in records:
            s = rec.get("speed", {}).get("no_range_slowdown")
            if s is not None:
                rows.append([f"{rec['name']}, tool loaded, no range", "-", "-", "-", "-", "-",
                             fmt_s(rec["speed"].get("tool_no_range_s")), f"plain {rec['speed']['plain_s']:.2f}",
                             f"{s:.3f}x slower"])
    widths = [max(len(str(r[i])) for r in [header] + rows) for i in range(len(header))]
    line = lambda r: " | ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip()
    table = [line(header), "-+-".join("-" * w for w in widths)] + [line(r) for r in rows]
    if any(r[7].endswith("*") for r in rows):
        table.append("* ncu refused the same metric list (its errors are in workloads.json); it ran its own --set full")
    return "\n".join(table)


def main():
    parser = argparse.ArgumentParser(description="issue 8 workload suite")
    parser.add_argument("build")
    parser.add_argument("out_dir")
    parser.add_argument("--workloads", default="", help="comma list of stream,gemm,cub,torch-train,torch-infer")
    parser.add_argument("--sections", default="a,b,c,d,e", help="comma list of a,b,c,d,e (see the docstring)")
    parser.add_argument("--timeout", type=int, default=300, help="seconds per subprocess (default 300)")
    parser.add_argument("--no-extra-speed", action="store_true", help="skip stream x50 and the x20 no-range rows")
    args = parser.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    runner = Runner(os.path.abspath(args.build), os.path.abspath(args.out_dir), args.timeout)
    sections = set(s.strip() for s in args.sections.split(",") if s.strip())
    only = set(w.strip() for w in args.workloads.split(",") if w.strip())
    has_ncu = shutil.which("ncu") is not None
    if not os.access(runner.cli, os.X_OK):
        print(f"error: {runner.cli} not built", file=sys.stderr)
        return 1

    out_json = os.path.join(args.out_dir, "workloads.json")
    started = time.time()
    doc = {"started": time.strftime("%Y-%m-%d %H:%M:%S"), "build": runner.build, "ncu": has_ncu,
           "sections": sorted(sections), "workloads": [], "extra_speed": None, "problems": []}
    smi = runner.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"], timeout=60)
    doc["gpu"] = smi["stdout"].strip() if smi["rc"] == 0 else "unknown"
    if has_ncu:
        doc["ncu_version"] = runner.run(["ncu", "--version"], timeout=60)["stdout"].strip().splitlines()[-1:]
    git = runner.run(["git", "-C", HERE, "rev-parse", "HEAD"], timeout=30)
    doc["commit"] = git["stdout"].strip() if git["rc"] == 0 else "unknown"

    def save():
        doc["elapsed_s"] = time.time() - started
        with open(out_json, "w") as f:
            json.dump(doc, f, indent=1)

    for name, cmd in workload_table(runner.build, only):
        t = time.time()
        print(f"[{time.time() - started:7.1f} s] {name}: {' '.join(cmd)}", flush=True)
        rec, problems = run_workload(runner, name, cmd, sections, has_ncu)
        rec["elapsed_s"] = time.time() - t
        doc["workloads"].append(rec)
        doc["problems"] += problems
        for p in problems:
            print(f"  problem: {p}", flush=True)
        if rec.get("unavailable"):
            print(f"  unavailable: {rec['unavailable']}", flush=True)
        save()
    if "e" in sections and not args.no_extra_speed and (not only or "stream" in only):
        print(f"[{time.time() - started:7.1f} s] extra speed rows (stream x50 single-pass, x20 no range)", flush=True)
        doc["extra_speed"], problems = extra_speed(runner, has_ncu)
        doc["problems"] += problems
        save()
    if not has_ncu:
        print("note: ncu not on PATH: fidelity and ncu timings not measured")
    print()
    print(summary(doc["workloads"], doc["extra_speed"]))
    print(f"\nraw numbers: {out_json} ({time.time() - started:.0f} s)")
    save()
    return 1 if doc["problems"] else 0


if __name__ == "__main__":
    sys.exit(main())
