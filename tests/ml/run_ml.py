#!/usr/bin/env python3
"""run_ml.py: the `ml` corpus (JAX, torch.compile, Triton, CuPy, numba-cuda
programs in this folder) run plain and under rangereplay on a GPU machine.

    python3 tests/ml/run_ml.py --build <rangereplay build dir> --logs <dir>
        [--only A,B] [--budget S] [--timeout S] [--python PY] [--tool-args "..."]
        [--programs programs.json] [--dry-run]

The programs, their arguments, range selection, expected range count and
whether they are deterministic are listed in programs.json beside this file.
For each program, in its own process group under a time limit (a run past
it is killed with its group and reported as HANG with the tool's last
stderr line):
  1. two plain runs: their result lines (`loss <i> <hex>`, `checksum <name>
     <hex>`) equal means the program is deterministic;
  2. `rangereplay profile <selection> --set full -o <logs>/<name>.full.json`;
  3. `rangereplay profile <selection> --verify -o <logs>/<name>.verify.json`
     (the default metric set).
Each tool run's exit code and result lines are compared with the plain runs
(exactly when the plain runs agree; by line names when they do not), and its
report is read: ranges replayed and declined with their reasons, the
divergences --verify found, and the range count against programs.json.

Prints the table last and writes <logs>/ml.txt (the table), <logs>/ml.json
(every run: command, exit code, wall time, result lines, report summary) and
each run's stdout/stderr. Exit 1 when a program's result lines or exit code
change under the tool, a run hangs, a program fails plain, a report is
missing or has another number of ranges than expected, or no program ran;
0 otherwise; 2 for bad input. --budget S: programs (and runs) that would
start after S seconds are reported as skipped; a run is cut at the budget's
end (reported as cut, not as a hang).

Python 3 standard library only; the process-group runner, the report
summary and the launcher-output parsing are tests/corpus/run_corpus.py's.
"""
import argparse
import difflib
import json
import os
import shlex
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "corpus"))
import run_corpus as rc  # noqa: E402

PROGRAMS_JSON = os.path.join(HERE, "programs.json")
PROGRAM_FIELDS = {"name", "argv", "ranges", "deterministic", "needs", "notes", "selection", "timeout_s",
                  "timing_dependent_ranges"}
SKIP_CODE = 77
# A run is not started with less than this left of the budget.
MIN_RUN_S = 10.0
RUN_KINDS = ("plain1", "plain2", "full", "verify")


class MlError(Exception):
    """Bad input or environment; the message names the cause and the fix."""


def log(msg):
    print(msg, file=sys.stderr, flush=True)


# --------------------------------------------------------------------------
# programs.json


def load_programs(path=PROGRAMS_JSON):
    """The checked program list of programs.json, defaults applied (each
    entry gains 'selection' and 'timeout_s' from 'defaults' when it has none).
    Raises MlError naming the entry and the field."""
    try:
        with open(path) as f:
            doc = json.load(f)
    except OSError as e:
        raise MlError(f"cannot read {path}: {e.strerror}; pass --programs <programs.json>") from None
    except json.JSONDecodeError as e:
        raise MlError(f"{path} is not valid JSON: {e}") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("programs"), list) or not doc["programs"]:
        raise MlError(f"{path}: must be an object with a non-empty 'programs' list")
    defaults = doc.get("defaults", {})
    if not isinstance(defaults, dict):
        raise MlError(f"{path}: 'defaults' must be an object")
    out, seen = [], set()
    for i, entry in enumerate(doc["programs"]):
        where = f"{path}: programs[{i}]"
        if not isinstance(entry, dict):
            raise MlError(f"{where}: must be an object")
        p = dict(defaults, **entry)
        where += f" ({p.get('name')})" if p.get("name") else ""
        unknown = sorted(set(p) - PROGRAM_FIELDS)
        if unknown:
            raise MlError(f"{where}: unknown field '{unknown[0]}' (known: {', '.join(sorted(PROGRAM_FIELDS))})")
        for key in ("name", "argv", "ranges", "deterministic", "selection"):
            if key not in p:
                raise MlError(f"{where}: missing field '{key}'")
        if not isinstance(p["name"], str) or not p["name"] or not all(c.isalnum() or c in "_.-" for c in p["name"]):
            raise MlError(f"{where}: name must be letters, digits, '_', '.', '-' (it names log files)")
        if p["name"] in seen:
            raise MlError(f"{where}: name '{p['name']}' is listed twice")
        seen.add(p["name"])
        for key in ("argv", "selection"):
            if not isinstance(p[key], list) or not p[key] or not all(isinstance(a, str) for a in p[key]):
                raise MlError(f"{where}: '{key}' must be a non-empty list of strings")
        if os.path.isabs(p["argv"][0]) or ".." in p["argv"][0].split("/"):
            raise MlError(f"{where}: argv[0] '{p['argv'][0]}' must be a script in {HERE}")
        for a in p["selection"]:
            if a in ("-o", "--output", "--set", "--verify", "--"):
                raise MlError(f"{where}: selection has '{a}', which run_ml.py adds; leave it out")
        if not isinstance(p["ranges"], int) or isinstance(p["ranges"], bool) or p["ranges"] < 1:
            raise MlError(f"{where}: 'ranges' must be a positive integer (the ranges a run matches)")
        if not isinstance(p["deterministic"], bool):
            raise MlError(f"{where}: 'deterministic' must be true or false")
        t = p.get("timeout_s", 120)
        if not isinstance(t, (int, float)) or isinstance(t, bool) or t <= 0:
            raise MlError(f"{where}: 'timeout_s' must be a positive number of seconds")
        p["timeout_s"] = t
        tdr = p.get("timing_dependent_ranges", [])
        if not isinstance(tdr, list) or not all(isinstance(i, int) and not isinstance(i, bool) and 0 <= i < p["ranges"]
                                                 for i in tdr):
            raise MlError(f"{where}: 'timing_dependent_ranges' must be a list of range indices below 'ranges' "
                          f"({p['ranges']})")
        p["timing_dependent_ranges"] = tdr
        out.append(p)
    return out


def select_programs(programs, only):
    """The programs named in `only` (comma-separated; None: all), in the
    list's order. Raises MlError for a name not in the list."""
    if not only:
        return list(programs)
    names = [n.strip() for n in only.split(",") if n.strip()]
    known = {p["name"] for p in programs}
    for n in names:
        if n not in known:
            close = difflib.get_close_matches(n, sorted(known), n=1)
            raise MlError(f"--only: no program '{n}'" + (f" (did you mean '{close[0]}'?)" if close else
                                                          f" (known: {', '.join(sorted(known))})"))
    return [p for p in programs if p["name"] in names]


# --------------------------------------------------------------------------
# output and reports


def result_lines(stdout_text):
    """The result lines of a program's stdout, in order: `loss ...` and
    `checksum ...` (trailing blanks removed)."""
    return [l.rstrip() for l in stdout_text.splitlines() if l.startswith("loss ") or l.startswith("checksum ")]


def result_keys(lines):
    """Each result line without its value (`loss 3`, `checksum params`): what
    must still match when the program's values differ from run to run."""
    return [l.rsplit(" ", 1)[0] for l in lines]


def first_difference(expected, got):
    """One line naming the first result line that differs, or '' when the
    lists are equal."""
    for i in range(max(len(expected), len(got))):
        a = expected[i] if i < len(expected) else "(none)"
        b = got[i] if i < len(got) else "(none)"
        if a != b:
            return f"line {i + 1}: plain '{a}', tool '{b}'"
    return ""


def skip_reason(stderr_text):
    """The `skipped: ...` line a program prints before exiting 77, or ''."""
    for line in stderr_text.splitlines():
        if line.startswith("skipped: "):
            return line[len("skipped: "):].strip()
    return ""


def last_error_line(stderr_text):
    """The last non-empty stderr line that is not the tool's, for a failed run."""
    lines = [l.strip() for l in stderr_text.splitlines() if l.strip() and not l.startswith("rangereplay")]
    return lines[-1][:240] if lines else ""


def decline_counts(report):
    """{reason: count} of a report summary's declined ranges (run_corpus.summarize_report)."""
    out = {}
    for g in report["ranges"]:
        if g["declined"]:
            out[g["reason"]] = out.get(g["reason"], 0) + 1
    return out


# --------------------------------------------------------------------------
# judgement


def judge(p, runs):
    """Compares a program's tool runs with its plain runs. `runs` maps
    RUN_KINDS to run records (absent: not run) holding exit, hung, cut,
    results and, for tool runs, report / report_problem / schema_problem.
    Returns (problems, notes, flags): problems fail the suite; flags holds
    plain_deterministic (True, False, or None when fewer than two plain runs
    finished) and same_full / same_verify (True, False, None: not run)."""
    problems, notes = [], []
    plain = [runs[k] for k in ("plain1", "plain2") if k in runs]
    finished = [r for r in plain if not r["hung"] and not r.get("cut") and r.get("error") is None]
    for r in plain:
        if r["hung"]:
            problems.append(f"{r['label']} hung ({r['wall_s']} s): the program itself; see {r['stdout']}")
        elif r.get("error"):
            problems.append(f"{r['label']}: {r['error']}")
        elif not r.get("cut") and r["exit"] != 0:
            problems.append(f"{r['label']} exit {r['exit']} without the tool: {r.get('error_line') or '?'}")
    det = None
    if len(finished) == 2:
        det = finished[0]["results"] == finished[1]["results"] and finished[0]["exit"] == finished[1]["exit"]
        if not det and p["deterministic"]:
            notes.append("declared deterministic, yet the plain runs differ: " +
                         (first_difference(finished[0]["results"], finished[1]["results"]) or "exit codes differ"))
    if finished and not finished[0]["results"] and finished[0]["exit"] == 0:
        problems.append(f"{finished[0]['label']} printed no result line (loss/checksum)")
    flags = {"plain_deterministic": det, "same_full": None, "same_verify": None}
    reference = finished[0] if finished else None
    for kind in ("full", "verify"):
        r = runs.get(kind)
        if r is None or r.get("cut"):
            continue
        if r["hung"]:
            problems.append(f"{r['label']}: HANG after {r['wall_s']} s at: {r.get('stage') or '(no rangereplay line)'}")
            flags["same_" + kind] = False
            continue
        if r.get("error"):
            problems.append(f"{r['label']}: {r['error']}")
            continue
        if reference is None:
            continue
        same = True
        if r["exit"] != reference["exit"]:
            same = False
            problems.append(f"{r['label']}: exit code {r['exit']} (plain {reference['exit']})"
                            + (f"; last tool line: {r['stage']}" if r.get("stage") else "")
                            + (f"; {r['error_line']}" if r.get("error_line") else ""))
        if det is False:
            if result_keys(r["results"]) != result_keys(reference["results"]):
                same = False
                problems.append(f"{r['label']}: result lines changed (names): "
                                f"{first_difference(result_keys(reference['results']), result_keys(r['results']))}")
        elif r["results"] != reference["results"]:
            same = False
            problems.append(f"{r['label']}: result lines changed: {first_difference(reference['results'], r['results'])}")
        flags["same_" + kind] = same
        if r.get("report_problem"):
            problems.append(f"{r['label']}: {r['report_problem']} ({r['report_path']})")
        if r.get("schema_problem"):
            problems.append(f"{r['label']}: {r['schema_problem']}")
        rep = r.get("report")
        if rep is not None and len(rep["ranges"]) != p["ranges"]:
            problems.append(f"{r['label']}: the report has {len(rep['ranges'])} ranges, programs.json expects "
                            f"{p['ranges']} (is NVTX reaching the tool?)")
        if kind == "verify" and rep is not None and rep["divergences"] and det:
            notes.append(f"--verify: {rep['divergences']} divergent regions in a deterministic program")
    return problems, notes, flags


# --------------------------------------------------------------------------
# table


def yes_no(value):
    return "-" if value is None else ("yes" if value else "NO")


def replayed_cell(run):
    """'replayed/total' of a tool run's report, 'HANG', 'cut' or '-'."""
    if run is None:
        return "-"
    if run["hung"]:
        return "HANG"
    if run.get("cut"):
        return "cut"
    rep = run.get("report")
    if rep is None:
        return "no-rep"
    return f"{rep['replayed']}/{len(rep['ranges'])}"


def short_reasons(counts, width=46):
    """'reason xN, other' of {reason: count}, most frequent first, cut to width."""
    text = ", ".join(f"{r} x{n}" if n > 1 else r for r, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
    return text if len(text) <= width else text[:width - 1] + "~"


TABLE_HEADER = (f"{'program':<30} {'det':<4} {'same f/v':<9} {'exit p/f/v':<11} {'full r/t':<9} {'verify r/t':<10} "
                f"{'declined (full run; reasons)':<46} {'div':>4}  {'wall s p/f/v':<17}  notes")


def render_row(res):
    """One table row (columns: TABLE_HEADER): deterministic plain runs,
    result lines and exit code unchanged under --set full / --verify, exit
    codes, ranges replayed/total per tool run, the full run's decline
    reasons, --verify's divergent regions, wall seconds (plain median,
    full, verify), notes."""
    name = res["name"]
    if res["status"] != "ran":
        return f"{name:<30} {res['status']}: {'; '.join(res['notes'])}"
    runs = res["runs"]
    full, verify = runs.get("full"), runs.get("verify")

    def ex(r):
        return "-" if r is None else ("HANG" if r["hung"] else ("cut" if r.get("cut") else str(r["exit"])))
    plain_exit = "|".join(sorted({ex(runs[k]) for k in ("plain1", "plain2") if k in runs})) or "-"
    exits = [plain_exit, ex(full), ex(verify)]
    exit_cell = exits[0] if len(set(exits)) == 1 else "/".join(exits)
    same = f"{yes_no(res['same_full'])}/{yes_no(res['same_verify'])}"
    reasons = decline_counts(full["report"]) if full and full.get("report") else {}
    div = verify["report"]["divergences"] if verify and verify.get("report") else "-"
    walls = [runs[k]["wall_s"] for k in ("plain1", "plain2") if k in runs]
    pw = statistics.median(walls) if walls else 0.0
    fw = full["wall_s"] if full else 0.0
    vw = verify["wall_s"] if verify else 0.0
    notes = list(res["notes"]) + [x for x in res["problems"] if "HANG" in x][:1]
    return (f"{name:<30} {yes_no(res['plain_deterministic']):<4} {same:<9} {exit_cell:<11} {replayed_cell(full):<9} "
            f"{replayed_cell(verify):<10} {short_reasons(reasons) or '-':<46} {div!s:>4}  "
            f"{pw:5.1f}/{fw:5.1f}/{vw:5.1f}  {'; '.join(notes)}")


def totals(results):
    """(replayed, total) ranges over every program's --set full run."""
    replayed = total = 0
    for res in results:
        full = res.get("runs", {}).get("full")
        if full and full.get("report"):
            replayed += full["report"]["replayed"]
            total += len(full["report"]["ranges"])
    return replayed, total


def count_line(results):
    """'N ran (U unchanged, C with problems), ...; ranges replayed R/T (P%)'."""
    text = rc.ran_line(results, "unchanged")
    replayed, total = totals(results)
    if total:
        text += f"; ranges replayed under --set full: {replayed}/{total} ({100.0 * replayed / total:.0f}%)"
    return text


def render_table(results, header_lines=()):
    """The summary: header lines, each problem, each declined range of the
    --set full runs with its detail, then one row per program."""
    out = list(header_lines)
    problems = [(r["name"], x) for r in results for x in r["problems"]]
    if problems:
        out.append("problems:")
        out += [f"  {n}: {x}" for n, x in problems]
    declines = []
    for r in results:
        for kind in ("full", "verify"):
            run = r.get("runs", {}).get(kind)
            if not run or not run.get("report"):
                continue
            declines += rc.decline_lines(r["name"], kind, run["report"])
    if declines:
        out.append("declined ranges:")
        out += declines
    out.append("")
    out.append(TABLE_HEADER)
    out.append("-" * len(TABLE_HEADER))
    out += [render_row(r) for r in results]
    out.append(count_line(results))
    return "\n".join(out) + "\n"


def suite_status(results):
    """0 when at least one program ran and none has a problem; 1 otherwise."""
    if not any(r["status"] == "ran" for r in results):
        return 1
    return 1 if any(r["problems"] for r in results) else 0


# --------------------------------------------------------------------------
# runs


def tool_command(cli, p, report, verify, extra=()):
    """`rangereplay profile <selection> [--set full] -o <report> [--verify] <extra> --`:
    the full-set run without --verify, the --verify run with the default set."""
    cmd = [cli, "profile"] + list(p["selection"])
    if not verify:
        cmd += ["--set", "full"]
    cmd += ["-o", report]
    if verify:
        cmd.append("--verify")
    return cmd + list(extra) + ["--"]


def program_command(python, p):
    return [python, os.path.join(HERE, p["argv"][0])] + p["argv"][1:]


class Suite:
    def __init__(self, args, cli, logs, env):
        self.args, self.cli, self.logs, self.env = args, cli, logs, env
        self.extra = shlex.split(args.tool_args or "")
        self.t0 = time.monotonic()

    def budget_left(self):
        if self.args.budget is None:
            return float("inf")
        return self.args.budget - (time.monotonic() - self.t0)

    def run(self, p, kind, limit):
        """One run of kind RUN_KINDS under min(limit, budget left) seconds;
        None when the budget has less than MIN_RUN_S left."""
        left = self.budget_left()
        if left < MIN_RUN_S:
            return None
        cut_by_budget = left < limit
        tag = f"{p['name']}.{kind}"
        cmd = program_command(self.args.python, p)
        report = None
        if kind in ("full", "verify"):
            report = os.path.join(self.logs, tag + ".json")
            if os.path.exists(report):
                os.remove(report)
            cmd = tool_command(self.cli, p, report, kind == "verify", self.extra) + cmd
        r = rc.run_one(cmd, self.logs, self.env, min(limit, left), os.path.join(self.logs, tag),
                       stacks=not self.args.no_hang_stacks and report is not None)
        r["label"] = {"plain1": "plain run 1", "plain2": "plain run 2", "full": "--set full",
                      "verify": "--verify"}[kind]
        if r["hung"] and cut_by_budget:
            r["hung"], r["cut"] = False, True
        out, err = rc.read_text(r["stdout"]), rc.read_text(r["stderr"])
        if report is not None:
            out = rc.app_stdout(out)
        r["results"] = result_lines(out)
        r["error_line"] = last_error_line(err) if r["exit"] not in (0, None) else ""
        r["skip_reason"] = skip_reason(err) if r["exit"] == SKIP_CODE else ""
        if report is not None:
            r["report_path"] = report
            r["report"], r["report_problem"], r["schema_problem"] = None, "", ""
            if not r["hung"] and not r.get("cut") and r.get("error") is None:
                r["report"], r["report_problem"] = rc.load_report(report)
                r["schema_problem"] = rc.schema_problem(report) if r["report"] is not None else ""
        state = "HANG" if r["hung"] else ("cut (budget)" if r.get("cut") else f"exit {r['exit']}")
        extra = ""
        if r.get("report"):
            extra = f", {r['report']['replayed']}/{len(r['report']['ranges'])} replayed"
        log(f"  {r['label']:<12} {state:<12} {r['wall_s']:6.1f} s, {len(r['results'])} result lines{extra}")
        return r

    def program(self, p):
        res = {"name": p["name"], "argv": p["argv"], "deterministic": p["deterministic"], "ranges": p["ranges"],
               "status": "ran", "problems": [], "notes": [], "runs": {}, "plain_deterministic": None,
               "same_full": None, "same_verify": None}
        if self.budget_left() < MIN_RUN_S:
            res["status"] = "skipped"
            res["notes"].append(f"budget of {self.args.budget:.0f} s spent")
            return res
        log(f"{p['name']}: {shlex.join(p['argv'])}")
        base = self.args.timeout or p["timeout_s"]
        runs = res["runs"]
        first = self.run(p, "plain1", base)
        if first is None:
            res["status"] = "skipped"
            res["notes"].append(f"budget of {self.args.budget:.0f} s spent")
            return res
        runs["plain1"] = first
        if first["exit"] == SKIP_CODE:
            res["status"] = "unavailable"
            res["notes"].append(first["skip_reason"] or "the program exited 77 (skipped)")
            return res
        if first["exit"] == 0 and not first["hung"]:
            for kind in ("plain2", "full", "verify"):
                limit = base if kind == "plain2" else rc.tool_timeout(base, [runs[k] for k in ("plain1", "plain2")
                                                                             if k in runs])
                r = self.run(p, kind, limit)
                if r is None:
                    res["notes"].append(f"{kind} and later runs not started (budget of {self.args.budget:.0f} s)")
                    break
                runs[kind] = r
        else:
            res["notes"].append("tool runs not started: the program fails without the tool")
        for r in runs.values():
            if r.get("cut"):
                res["notes"].append(f"{r['label']} cut at the budget's end after {r['wall_s']} s")
        problems, notes, flags = judge(p, runs)
        res["problems"] += problems
        res["notes"] += notes
        res.update(flags)
        return res


def dry_run(programs, cli, logs, python, extra):
    for p in programs:
        print(f"# {p['name']}: {p.get('notes', '')}")
        cmd = program_command(python, p)
        print("  " + shlex.join(cmd) + "   (twice)")
        for kind in ("full", "verify"):
            report = os.path.join(logs, f"{p['name']}.{kind}.json")
            print("  " + shlex.join(tool_command(cli, p, report, kind == "verify", extra) + cmd))
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", required=True, help="rangereplay build folder (holds tools/cli/rangereplay)")
    ap.add_argument("--logs", required=True, help="folder for outputs, reports, ml.json and ml.txt")
    ap.add_argument("--only", help="comma-separated program names (programs.json)")
    ap.add_argument("--budget", type=float, help="seconds for the whole call; programs left are reported as skipped")
    ap.add_argument("--timeout", type=float, help="seconds per plain run before it counts as a hang (default: each "
                                                  "program's timeout_s, 120); tool runs get more when the plain runs "
                                                  "take most of it")
    ap.add_argument("--python", default=sys.executable or "python3", help="interpreter of the programs")
    ap.add_argument("--tool-args", help="more `profile` options for both tool runs, e.g. \"--fallback app-range\"")
    ap.add_argument("--programs", default=PROGRAMS_JSON, help="the program list (default: programs.json here)")
    ap.add_argument("--no-hang-stacks", action="store_true", help="no gdb backtraces of a hung tool run")
    ap.add_argument("--dry-run", action="store_true", help="print the commands; run nothing (no GPU needed)")
    args = ap.parse_args(argv)
    if args.timeout is not None and args.timeout <= 0:
        ap.error("--timeout must be positive seconds")
    if args.budget is not None and args.budget <= 0:
        ap.error("--budget must be positive seconds")
    try:
        for a in ("-o", "--output", "--set", "--verify", "--"):
            if a in shlex.split(args.tool_args or ""):
                raise MlError(f"--tool-args has '{a}', which run_ml.py adds itself; leave it out")
        chosen = select_programs(load_programs(args.programs), args.only)
        cli = os.path.join(os.path.abspath(args.build), "tools", "cli", "rangereplay")
        logs = os.path.abspath(args.logs)
        if args.dry_run:
            return dry_run(chosen, cli, logs, args.python, shlex.split(args.tool_args or ""))
        if not os.access(cli, os.X_OK):
            raise MlError(f"--build {args.build}: no launcher at {cli}; build rangereplay (scripts/build.sh) or pass "
                          f"the build folder that holds tools/cli/rangereplay")
        gpu = rc.gpu_check()
    except MlError as e:
        print(f"run_ml: {e}", file=sys.stderr)
        return 2
    except rc.CorpusError as e:
        print(f"run_ml: {e}", file=sys.stderr)
        return 1
    os.makedirs(logs, exist_ok=True)
    # The programs' own environment, unchanged for plain and tool runs alike.
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    suite = Suite(args, cli, logs, env)
    header = [f"ml corpus: {len(chosen)} programs, python {args.python}, "
              f"timeout {args.timeout or 'per program'} s, budget {args.budget or 'none'} s"
              + (f", tool args {args.tool_args}" if args.tool_args else ""), f"gpu: {gpu}"]

    def totals_json(results):
        replayed, total = totals(results)
        return {"ranges_replayed": replayed, "ranges_total": total}
    return rc.run_programs(chosen, suite.program, logs, "ml", header, render_table, suite_status, suite.t0,
                           totals_json)


if __name__ == "__main__":
    sys.exit(main())
