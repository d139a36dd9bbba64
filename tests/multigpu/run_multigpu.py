#!/usr/bin/env python3
"""run_multigpu.py: multi-GPU jobs plain and under rangereplay on a machine
with 2 to 8 GPUs: a torchrun DDP training step (ddp_train.py, NCCL
all-reduces inside each NVTX range `step`) and a JAX step sharded over the
GPUs of one process (jax_sharded.py, a psum inside each range).

    python3 tests/multigpu/run_multigpu.py --build <rangereplay build dir> --logs <dir>
        [--only ddp,jax] [--nproc N] [--steps N] [--set NAME] [--budget S] [--timeout S]
        [--python PY] [--tool-args "..."] [--dry-run]

For each program, each run in its own process group under a time limit (a
run past it is killed with its group and reported as HANG; hang.txt holds
the group's threads and, with gdb, their stacks):
  ddp  1. twice plain under `python3 -m torch.distributed.run
          --nproc_per_node N`: every rank's result lines equal in both runs
          (deterministic), the parameters' checksum equal on every rank;
       2. `rangereplay profile --nvtx-include step/ --set <set>
          -o <logs>/ddp.default.%q{RANK}.json`: every rank's result lines
          equal the plain run's, every step range of every rank declined
          collective_in_range;
       3. the same with `--collectives replay --rendezvous 127.0.0.1:<port>`
          (<logs>/ddp.replay.<rank>.json): results equal, every step range of
          every rank replayed, with a note that it met the other N-1 ranks at
          as many barriers as it has passes, and NCCL kernels among the
          replayed ranges' kernels;
       4. `rangereplay merge` over each tool run's rank reports
          (<logs>/ddp.<run>.merge.json and .txt): ranks whose kernel
          sequences differ, and per kernel whether smsp__inst_executed.sum
          is equal on every rank (reported, not judged: NCCL's kernels poll
          their peers, so their counts may differ).
  jax  1. twice plain; 2. `rangereplay profile` as in ddp 2
       (<logs>/jax.default.json): results equal; the ranges' outcome is
       reported (`multiple_devices` is today's expected decline).
The report has no per-pass counter values, so equal counts across passes
are not checked here; the barrier notes show every pass met its peers.

Prints the table last and writes <logs>/multigpu.txt (the table) and
<logs>/multigpu.json (every run: command, exit code, wall time, result
lines, report summaries). Exit 0 when every program ran as expected; 1 when
a result changes under the tool, a run hangs or fails, a report is missing
or does not match the schema, a DDP range is not declined / not replayed as
expected, or no program ran; 2 for bad input; 77 (skipped) with fewer than
2 GPUs. --budget S: runs that would start after S seconds are reported as
skipped; a run is cut at the budget's end (reported as cut, not a hang).

NCCL_NVLS_ENABLE=0 and TORCH_SYMM_MEM_DISABLE_MULTICAST=1 are set for every
run (no NVLink multicast). Python 3 standard library only; the process-group
runner and report reading are tests/corpus/run_corpus.py's.
"""
import argparse
import json
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "corpus"))
import run_corpus as rc  # noqa: E402

PROGRAMS = ("ddp", "jax")
SKIP_CODE = 77
MIN_RUN_S = 10.0
DEFAULT_TIMEOUT_S = 180.0
MAX_NPROC = 8
INSTRUCTIONS = "smsp__inst_executed.sum"
NCCL_KERNEL = re.compile(r"^nccl\w*Kernel_")
RANKED_LINE = re.compile(r"^rank (\d+) ((?:loss|checksum) \S+ \S+)\s*$")
RUN_LABELS = {"plain1": "plain run 1", "plain2": "plain run 2", "default": "profile (default)",
              "replay": "profile --collectives replay"}
# The environment of every run: no NVLink multicast (NVLS, symmetric memory's
# cuMulticastCreate), one OpenMP thread per rank (torchrun's own default, said once, not per rank).
RUN_ENV = {"NCCL_NVLS_ENABLE": "0", "TORCH_SYMM_MEM_DISABLE_MULTICAST": "1", "PYTHONDONTWRITEBYTECODE": "1"}
# Set by a job launcher for its ranks; a value left from the caller's shell would confuse torchrun's ranks.
JOB_VARIABLES = ("RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT",
                 "TORCHELASTIC_RUN_ID", "GROUP_RANK")


class MultiGpuError(Exception):
    """Bad input or environment; the message names the cause and the fix."""


def log(msg):
    print(msg, file=sys.stderr, flush=True)


# --------------------------------------------------------------------------
# arguments


def parse_args(argv=None):
    """The checked options; exits 2 (argparse) naming the bad one."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", required=True, help="rangereplay build folder (holds tools/cli/rangereplay)")
    ap.add_argument("--logs", required=True, help="folder for outputs, reports, multigpu.json and multigpu.txt")
    ap.add_argument("--only", help=f"comma-separated programs ({', '.join(PROGRAMS)}); default both")
    ap.add_argument("--nproc", type=int, help=f"ranks of the DDP job and devices of the JAX mesh (default: every "
                                              f"visible GPU, at most {MAX_NPROC})")
    ap.add_argument("--steps", type=int, default=3, help="profiled steps (ranges) per program, default 3")
    ap.add_argument("--set", default="basic", dest="metric_set",
                    help="metric set of the tool runs (default basic: 9 passes, so 9 barriers per replayed range)")
    ap.add_argument("--budget", type=float, help="seconds for the whole call; runs left are reported as skipped")
    ap.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT_S,
                    help=f"seconds per plain run before it counts as a hang (default {DEFAULT_TIMEOUT_S:.0f}); tool "
                         f"runs get twice the slower plain run plus half of it when that is longer")
    ap.add_argument("--python", default=sys.executable or "python3",
                    help="interpreter of the programs and of torchrun (python -m torch.distributed.run)")
    ap.add_argument("--tool-args", default="", help="more `profile` options for every tool run")
    ap.add_argument("--no-hang-stacks", action="store_true", help="no gdb backtraces of a hung run")
    ap.add_argument("--dry-run", action="store_true", help="print the commands; run nothing (no GPU needed)")
    args = ap.parse_args(argv)
    if args.timeout <= 0:
        ap.error("--timeout must be positive seconds")
    if args.budget is not None and args.budget <= 0:
        ap.error("--budget must be positive seconds")
    if args.steps < 1:
        ap.error("--steps must be at least 1")
    if args.nproc is not None and not 2 <= args.nproc <= MAX_NPROC:
        ap.error(f"--nproc must be 2 to {MAX_NPROC} (one rank per GPU)")
    try:
        args.programs = select_programs(args.only)
        args.extra = shlex.split(args.tool_args)
    except ValueError as e:
        ap.error(f"--tool-args: {e}")
    except MultiGpuError as e:
        ap.error(str(e))
    for a in args.extra:
        if a in ("-o", "--output", "--set", "--collectives", "--rendezvous", "--") or a.startswith("--output="):
            ap.error(f"--tool-args has '{a}', which run_multigpu.py sets itself; leave it out")
    return args


def select_programs(only):
    """The programs named in `only` (comma-separated; None or '': all), in
    PROGRAMS order. Raises MultiGpuError for an unknown name."""
    if not only:
        return list(PROGRAMS)
    names = [n.strip() for n in only.split(",") if n.strip()]
    for n in names:
        if n not in PROGRAMS:
            raise MultiGpuError(f"--only: no program '{n}' (known: {', '.join(PROGRAMS)})")
    return [p for p in PROGRAMS if p in names]


def count_gpus(smi_list, visible):
    """GPUs a program sees: the `GPU <n>:` lines of `nvidia-smi -L`
    (smi_list), limited by CUDA_VISIBLE_DEVICES (`visible`; None when unset,
    '' hides every GPU)."""
    n = sum(1 for line in smi_list.splitlines() if re.match(r"^GPU \d+:", line))
    if visible is None:
        return n
    entries = [v for v in visible.split(",") if v.strip()]
    # The driver stops at the first entry it cannot use; -1 hides the rest.
    kept = 0
    for v in entries:
        if v.strip().startswith("-"):
            break
        kept += 1
    return min(n, kept)


# --------------------------------------------------------------------------
# result lines


def ranked_results(text):
    """{rank: [result lines without the `rank <r> ` prefix]} of a job's
    stdout (ddp_train.py: `rank <r> loss <i> <hex>`, `rank <r> checksum
    <name> <hex>`), each rank's lines in order; other lines ignored."""
    out = {}
    for line in text.splitlines():
        m = RANKED_LINE.match(line)
        if m:
            out.setdefault(int(m.group(1)), []).append(m.group(2))
    return out


def plain_results(text):
    """{0: [result lines]} of a one-process program's stdout (`loss ...`,
    `checksum ...`), in the shape ranked_results returns."""
    lines = [l.rstrip() for l in text.splitlines() if l.startswith("loss ") or l.startswith("checksum ")]
    return {0: lines} if lines else {}


def compare_results(expected, got, ranks):
    """One line per difference between two {rank: lines} (a rank missing or
    with fewer lines, the first line that differs); [] when equal. `ranks`:
    how many ranks must have lines."""
    out = []
    for r in range(ranks):
        a, b = expected.get(r), got.get(r)
        if not a:
            out.append(f"rank {r}: no result lines in the reference run")
            continue
        if not b:
            out.append(f"rank {r}: no result lines")
            continue
        for i in range(max(len(a), len(b))):
            x = a[i] if i < len(a) else "(none)"
            y = b[i] if i < len(b) else "(none)"
            if x != y:
                out.append(f"rank {r} line {i + 1}: expected '{x}', got '{y}'")
                break
    extra = sorted(set(got) - set(range(ranks)))
    if extra:
        out.append(f"result lines of unexpected rank(s) {extra}")
    return out


def checksum_disagreement(results, name="params"):
    """'' when every rank's `checksum <name>` is the same, else one line
    naming each rank's value (DDP keeps the parameters equal on every rank)."""
    values = {}
    for r, lines in sorted(results.items()):
        for l in lines:
            parts = l.split()
            if parts[:2] == ["checksum", name]:
                values[r] = parts[2]
    if len(set(values.values())) <= 1:
        return ""
    return f"checksum {name} differs across ranks: " + ", ".join(f"rank {r} {v}" for r, v in values.items())


# --------------------------------------------------------------------------
# reports


def summarize(doc):
    """run_corpus.summarize_report of a report, plus per range the NCCL
    kernels among its kernels, each kernel's instruction count (None when
    not collected), and the report's time budget figures of the rendezvous
    (its keys naming a barrier or the rendezvous; none in today's reports)."""
    s = rc.summarize_report(doc)
    for summary, r in zip(s["ranges"], doc.get("ranges", [])):
        kernels = r.get("kernels", [])
        summary["nccl_kernels"] = sum(1 for k in kernels if NCCL_KERNEL.match(k.get("name") or k.get("mangled_name", "")))
        summary["instructions"] = [next((m.get("value") for m in k.get("metrics", []) if m.get("name") == INSTRUCTIONS),
                                        None) for k in kernels]
    budget = doc.get("time_budget") or {}
    s["rendezvous_ms"] = {k: v for k, v in budget.items() if "barrier" in k or "rendezvous" in k}
    s["windows_ms"] = budget.get("windows_ms")
    return s


def read_report(path):
    """(summary, problem) of one report: summarize(), or None and why not
    (missing, unreadable, not matching the report's JSON Schema)."""
    if not os.path.exists(path):
        return None, f"report missing: {path}"
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        return None, f"report unreadable: {path}: {e}"
    problem = rc.schema_problem(path)
    return summarize(doc), (f"{path}: {problem}" if problem else "")


def barrier_note_ok(summary_range, world):
    """True when a replayed range's notes say it met the job's other
    world-1 ranks at as many barriers as it has passes (one before each
    replayed pass, one before the exit restore)."""
    want = f"together with the job's other {world - 1} rank(s), meeting them at {summary_range['passes']} barriers"
    return any(want in n for n in summary_range.get("notes", []))


def judge_ddp_reports(kind, reports, world, steps):
    """Problems of a DDP tool run's rank reports ({rank: summary}): `default`
    must decline every range collective_in_range, `replay` must replay every
    range on every rank with the barrier note and hold NCCL kernels. Each
    report must hold `steps` ranges. Returns (problems, notes)."""
    problems, notes = [], []
    nccl = 0
    for r in range(world):
        s = reports.get(r)
        if s is None:
            continue  # read_report's problem already names it
        if len(s["ranges"]) != steps:
            problems.append(f"rank {r}: {len(s['ranges'])} ranges in the report, expected {steps}")
        for g in s["ranges"]:
            where = f"rank {r} range {g['index']}"
            if kind == "default":
                if not g["declined"]:
                    problems.append(f"{where}: replayed, expected declined collective_in_range")
                elif g["reason"] != "collective_in_range":
                    problems.append(f"{where}: declined {g['reason']} ({g['detail']}), expected collective_in_range")
            else:
                if g["declined"]:
                    problems.append(f"{where}: declined {g['reason']} ({g['detail']}), expected replayed")
                    continue
                if not barrier_note_ok(g, world):
                    problems.append(f"{where}: no note that it met the other {world - 1} rank(s) at {g['passes']} "
                                    f"barriers: {g.get('notes')}")
                nccl += g.get("nccl_kernels", 0)
        if s["errors"]:
            notes.append(f"rank {r} report errors: {'; '.join(s['errors'])[:200]}")
    if kind == "replay" and not problems and nccl == 0:
        problems.append("no NCCL kernel among the replayed ranges' kernels: the all-reduce was not in the range")
    return problems, notes


def judge_jax_report(summary, steps):
    """(problems, notes) of the JAX tool run's report: the range count is
    judged; the outcome (replayed, or the decline reasons) is a note, marked
    expected for multiple_devices."""
    problems, notes = [], []
    if len(summary["ranges"]) != steps:
        problems.append(f"{len(summary['ranges'])} ranges in the report, expected {steps} (NVTX did not reach the "
                        f"tool?)")
    reasons = decline_counts(summary)
    if summary["replayed"]:
        notes.append(f"{summary['replayed']} of {len(summary['ranges'])} multi-device ranges replayed")
    for reason, n in sorted(reasons.items()):
        tag = "expected today" if reason == "multiple_devices" else "not the expected multiple_devices"
        detail = next(g["detail"] for g in summary["ranges"] if g["declined"] and g["reason"] == reason)
        notes.append(f"declined {reason} x{n} ({tag}): {detail[:160]}")
    return problems, notes


def decline_counts(summary):
    out = {}
    for g in summary["ranges"]:
        if g["declined"]:
            out[g["reason"]] = out.get(g["reason"], 0) + 1
    return out


def merge_findings(doc):
    """(problems, notes) of `rangereplay merge`'s JSON (report_merge.h): ranks
    whose kernel sequences differ are notes, as are the merge's errors; per
    kernel whether the instruction count is equal on every rank that has
    it (NCCL kernels counted apart)."""
    notes = []
    for m in doc.get("mismatched", []):
        notes.append(f"merge: {m}")
    for e in doc.get("errors", []):
        notes.append(f"merge error: {e}")
    equal = total = nccl_equal = nccl_total = 0
    for rng in doc.get("ranges", []):
        for k in rng.get("kernels", []):
            m = next((m for m in k.get("metrics", []) if m.get("metric") == INSTRUCTIONS), None)
            values = [v for v in (m or {}).get("values", []) if v is not None]
            if len(values) < 2:
                continue
            same = len(set(values)) == 1
            if NCCL_KERNEL.match(k.get("name", "")):
                nccl_total += 1
                nccl_equal += same
            else:
                total += 1
                equal += same
    if total or nccl_total:
        notes.append(f"instructions equal on every rank: {equal}/{total} compute kernels, "
                     f"{nccl_equal}/{nccl_total} NCCL kernels")
    return [], notes


# --------------------------------------------------------------------------
# commands


def torchrun_command(python, nproc, master_port, steps):
    return [python, "-m", "torch.distributed.run", "--nnodes", "1", "--nproc_per_node", str(nproc),
            "--master_addr", "127.0.0.1", "--master_port", str(master_port),
            os.path.join(HERE, "ddp_train.py"), "--steps", str(steps)]


def jax_command(python, nproc, steps):
    return [python, os.path.join(HERE, "jax_sharded.py"), "--devices", str(nproc), "--steps", str(steps)]


def tool_command(cli, metric_set, output, extra=(), rendezvous_port=None):
    """`rangereplay profile --nvtx-include step/ --set <set> -o <output>
    [--collectives replay --rendezvous 127.0.0.1:<port>] <extra> --`."""
    cmd = [cli, "profile", "--nvtx-include", "step/", "--set", metric_set, "-o", output]
    if rendezvous_port is not None:
        cmd += ["--collectives", "replay", "--rendezvous", f"127.0.0.1:{rendezvous_port}"]
    return cmd + list(extra) + ["--"]


def rank_report_paths(logs, program, kind, world):
    """The `-o` pattern of a tool run and the files it names, rank 0 first."""
    if program == "jax":
        path = os.path.join(logs, f"jax.{kind}.json")
        return path, [path]
    pattern = os.path.join(logs, f"ddp.{kind}.%q{{RANK}}.json")
    return pattern, [os.path.join(logs, f"ddp.{kind}.{r}.json") for r in range(world)]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# --------------------------------------------------------------------------
# table


TABLE_HEADER = (f"{'program':<8} {'run':<8} {'gpus':>5} {'exit':<5} {'det/same':<8} {'replayed/ranges per rank':<26} "
                f"{'declined (reasons)':<34} {'nccl k':>6} {'wall s':>7}  notes")


def result_cell(res, kind):
    if kind in ("plain1", "plain2"):
        return "-" if res["deterministic"] is None else ("det" if res["deterministic"] else "NOT-DET")
    same = res["same"].get(kind)
    return "-" if same is None else ("same" if same else "CHANGED")


def render_row(res, kind):
    """One row of TABLE_HEADER for a program's run `kind`."""
    run = res["runs"][kind]
    state = "HANG" if run["hung"] else ("cut" if run.get("cut") else str(run["exit"]))
    reports = res["reports"].get(kind, {})
    per_rank = " ".join(f"{s['replayed']}/{len(s['ranges'])}" if s else "-" for _, s in sorted(reports.items()))
    reasons = {}
    nccl = 0
    for s in reports.values():
        if s:
            for reason, n in decline_counts(s).items():
                reasons[reason] = reasons.get(reason, 0) + n
            nccl += sum(g.get("nccl_kernels", 0) for g in s["ranges"])
    reason_text = ", ".join(f"{r} x{n}" for r, n in sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0])))
    notes = "; ".join(res["run_notes"].get(kind, []))
    return (f"{res['name']:<8} {kind:<8} {res['world']:>5} {state:<5} {result_cell(res, kind):<8} "
            f"{per_rank or '-':<26} {reason_text[:34] or '-':<34} {nccl if reports else '-'!s:>6} "
            f"{run['wall_s']:7.1f}  {notes}")


def render_table(results, header_lines=()):
    """The summary: header lines, every problem, one row per run, the count line."""
    out = list(header_lines)
    problems = [(r["name"], x) for r in results for x in r["problems"]]
    if problems:
        out.append("problems:")
        out += [f"  {n}: {x}" for n, x in problems]
    notes = [(r["name"], x) for r in results if r["status"] == "ran" for x in r["notes"]]
    if notes:
        out.append("notes:")
        out += [f"  {n}: {x}" for n, x in notes]
    out += ["", TABLE_HEADER, "-" * len(TABLE_HEADER)]
    for r in results:
        if r["status"] != "ran":
            out.append(f"{r['name']:<8} {r['status']}: {'; '.join(r['notes'][:1])}")
            continue
        out += [render_row(r, kind) for kind in ("plain1", "plain2", "default", "replay") if kind in r["runs"]]
    out.append(count_line(results))
    return "\n".join(out) + "\n"


def count_line(results):
    return rc.ran_line(results, "as expected")


def suite_status(results):
    """0 when a program ran and none has a problem; 1 otherwise."""
    if not any(r["status"] == "ran" for r in results):
        return 1
    return 1 if any(r["problems"] for r in results) else 0


# --------------------------------------------------------------------------
# runs


class Suite:
    def __init__(self, args, cli, logs, env, world):
        self.args, self.cli, self.logs, self.env, self.world = args, cli, logs, env, world
        self.t0 = time.monotonic()

    def budget_left(self):
        if self.args.budget is None:
            return float("inf")
        return self.args.budget - (time.monotonic() - self.t0)

    def run(self, res, kind, cmd, limit, report_paths=()):
        """One run under min(limit, budget left) seconds; None when the budget
        has less than MIN_RUN_S left. Reads its result lines and reports."""
        left = self.budget_left()
        if left < MIN_RUN_S:
            return None
        for path in report_paths:
            if os.path.exists(path):
                os.remove(path)
        tag = f"{res['name']}.{kind}"
        r = rc.run_one(cmd, self.logs, self.env, min(limit, left), os.path.join(self.logs, tag),
                       stacks=not self.args.no_hang_stacks)
        r["label"] = RUN_LABELS[kind]
        if r["hung"] and left < limit:
            r["hung"], r["cut"] = False, True
        out, err = rc.read_text(r["stdout"]), rc.read_text(r["stderr"])
        r["results"] = ranked_results(out) if res["name"] == "ddp" else plain_results(out)
        r["skip_reason"] = next((l[len("skipped: "):] for l in err.splitlines() if l.startswith("skipped: ")), "")
        lines = [l.strip() for l in err.splitlines() if l.strip() and not l.startswith("rangereplay")]
        r["error_line"] = lines[-1][:240] if lines and r["exit"] not in (0, None) else ""
        state = "HANG" if r["hung"] else ("cut (budget)" if r.get("cut") else f"exit {r['exit']}")
        log(f"  {r['label']:<30} {state:<12} {r['wall_s']:6.1f} s, result lines of {len(r['results'])} rank(s)")
        res["runs"][kind] = r
        return r

    def failed(self, res, r):
        """A problem line for a run that hung or failed, else ''."""
        if r["hung"]:
            return f"{r['label']} hung ({r['wall_s']} s, stage '{r.get('stage', '')}'); see {r.get('hang_info')}"
        if r.get("error"):
            return f"{r['label']}: {r['error']}"
        if not r.get("cut") and r["exit"] != 0:
            return f"{r['label']} exit {r['exit']}: {r['error_line'] or '?'} (see {r['stderr']})"
        return ""

    def program(self, name):
        res = {"name": name, "status": "ran", "world": self.world, "problems": [], "notes": [], "runs": {},
               "reports": {}, "run_notes": {}, "deterministic": None, "same": {}}
        if self.budget_left() < MIN_RUN_S:
            res["status"] = "skipped"
            res["notes"].append(f"budget of {self.args.budget:.0f} s spent")
            return res
        log(f"{name}: {self.world} GPUs")
        steps, world = self.args.steps, self.world

        def plain_cmd():
            if name == "ddp":
                return torchrun_command(self.args.python, world, free_port(), steps)
            return jax_command(self.args.python, world, steps)

        first = self.run(res, "plain1", plain_cmd(), self.args.timeout)
        if first is None:
            res["status"] = "skipped"
            res["notes"].append(f"budget of {self.args.budget:.0f} s spent")
            return res
        if first["exit"] == SKIP_CODE or (name == "ddp" and first["skip_reason"] and first["exit"] != 0):
            res["status"] = "unavailable"
            res["notes"].append(first["skip_reason"] or "the program exited 77 (skipped)")
            return res
        for kind in ("plain2", "default", "replay"):
            if kind == "replay" and name != "ddp":
                continue
            prior = [res["runs"][k] for k in ("plain1", "plain2") if k in res["runs"]]
            if any(self.failed(res, r) for r in prior):
                res["notes"].append("later runs not started: the program fails without the tool")
                break
            if kind == "plain2":
                r = self.run(res, kind, plain_cmd(), self.args.timeout)
            else:
                pattern, paths = rank_report_paths(self.logs, name, kind, world)
                port = free_port() if kind == "replay" else None
                cmd = tool_command(self.cli, self.args.metric_set, pattern, self.args.extra, port) + plain_cmd()
                r = self.run(res, kind, cmd, rc.tool_timeout(self.args.timeout, prior), paths)
            if r is None:
                res["notes"].append(f"{kind} and later runs not started (budget of {self.args.budget:.0f} s)")
                break
        self.judge(res)
        return res

    def judge(self, res):
        name, world, steps = res["name"], self.world, self.args.steps
        ranks = world if name == "ddp" else 1
        runs = res["runs"]
        for r in runs.values():
            problem = self.failed(res, r)
            if problem:
                res["problems"].append(problem)
            if r.get("cut"):
                res["notes"].append(f"{r['label']} cut at the budget's end after {r['wall_s']} s")
        ok = {k: r for k, r in runs.items() if not self.failed(res, r) and not r.get("cut")}
        if "plain1" in ok and "plain2" in ok:
            diff = compare_results(ok["plain1"]["results"], ok["plain2"]["results"], ranks)
            res["deterministic"] = not diff
            if diff:
                res["problems"].append(f"the plain runs differ: {diff[0]}")
        if name == "ddp" and "plain1" in ok:
            disagree = checksum_disagreement(ok["plain1"]["results"])
            if disagree:
                res["problems"].append(f"plain run 1: {disagree}")
        reference = ok.get("plain1")
        for kind in ("default", "replay"):
            r = runs.get(kind)
            if r is None:
                continue
            notes = res["run_notes"].setdefault(kind, [])
            if kind in ok and reference is not None:
                diff = compare_results(reference["results"], r["results"], ranks)
                res["same"][kind] = not diff
                if diff:
                    res["problems"].append(f"{r['label']}: results changed: {'; '.join(diff[:3])}")
            if r["hung"] or r.get("cut") or r.get("error"):
                continue
            _, paths = rank_report_paths(self.logs, name, kind, world)
            reports = {}
            for rank, path in enumerate(paths):
                summary, problem = read_report(path)
                reports[rank] = summary
                if problem:
                    res["problems"].append(f"{r['label']}: {problem}")
            res["reports"][kind] = reports
            if name == "ddp":
                problems, more = judge_ddp_reports(kind, reports, world, steps)
                res["problems"] += [f"{r['label']}: {p}" for p in problems]
                notes += more
                if all(reports.values()):
                    notes += self.merge(kind, paths, res)
                    budget = [s["rendezvous_ms"] for s in reports.values() if s["rendezvous_ms"]]
                    if budget:
                        notes.append(f"time budget at the rendezvous per rank: {budget}")
            elif reports.get(0):
                problems, more = judge_jax_report(reports[0], steps)
                res["problems"] += [f"{r['label']}: {p}" for p in problems]
                notes += more
            if kind in ok and reference is not None and reference["wall_s"]:
                notes.append(f"{r['wall_s'] / reference['wall_s']:.1f}x the plain run's wall time")

    def merge(self, kind, paths, res):
        """`rangereplay merge` of a tool run's rank reports: JSON to
        <logs>/ddp.<kind>.merge.json, its terminal output to .merge.txt.
        Returns the notes; a failed merge is a problem of `res`."""
        out = os.path.join(self.logs, f"ddp.{kind}.merge.json")
        r = rc.run_one([self.cli, "merge"] + paths + ["-o", out], self.logs, self.env, 60,
                       os.path.join(self.logs, f"ddp.{kind}.merge"))
        if r["hung"] or r["exit"] != 0 or not os.path.exists(out):
            res["problems"].append(f"merge of the {kind} run's reports: exit {r['exit']}, hung {r['hung']}: "
                                   f"{rc.read_text(r['stderr']).strip()[-200:]}")
            return []
        try:
            with open(out) as f:
                doc = json.load(f)
        except (OSError, json.JSONDecodeError) as e:
            res["problems"].append(f"merge output {out} unreadable: {e}")
            return []
        problems, notes = merge_findings(doc)
        res["problems"] += problems
        return notes


def gpu_count():
    smi = shutil.which("nvidia-smi")
    if not smi:
        return 0, "nvidia-smi not found"
    r = subprocess.run([smi, "-L"], capture_output=True, text=True)
    if r.returncode != 0:
        return 0, (r.stderr or r.stdout).strip()[:200]
    return count_gpus(r.stdout, os.environ.get("CUDA_VISIBLE_DEVICES")), r.stdout.strip().splitlines()[0]


def run_environment():
    env = {k: v for k, v in os.environ.items() if k not in JOB_VARIABLES}
    env.update(RUN_ENV)
    env.setdefault("OMP_NUM_THREADS", "1")
    return env


def dry_run(args, cli, logs, world):
    for name in args.programs:
        plain = (torchrun_command(args.python, world, "<port>", args.steps) if name == "ddp"
                 else jax_command(args.python, world, args.steps))
        print(f"# {name}")
        print("  " + shlex.join(plain) + "   (twice)")
        for kind in ("default", "replay") if name == "ddp" else ("default",):
            pattern, paths = rank_report_paths(logs, name, kind, world)
            port = "<port>" if kind == "replay" else None
            print("  " + shlex.join(tool_command(cli, args.metric_set, pattern, args.extra, port) + plain))
            if name == "ddp":
                print("  " + shlex.join([cli, "merge"] + paths + ["-o", os.path.join(logs, f"ddp.{kind}.merge.json")]))
    return 0


def main(argv=None):
    args = parse_args(argv)
    cli = os.path.join(os.path.abspath(args.build), "tools", "cli", "rangereplay")
    logs = os.path.abspath(args.logs)
    if args.dry_run:
        return dry_run(args, cli, logs, args.nproc or 2)
    gpus, gpu_line = gpu_count()
    if gpus < 2:
        print(f"skipped: {gpus} GPU(s) visible ({gpu_line}); the multigpu suite needs 2 or more", flush=True)
        return SKIP_CODE
    if not os.access(cli, os.X_OK):
        print(f"run_multigpu: --build {args.build}: no launcher at {cli}; build rangereplay (scripts/build.sh) or "
              f"pass the build folder that holds tools/cli/rangereplay", file=sys.stderr)
        return 2
    if args.nproc is not None and args.nproc > gpus:
        print(f"run_multigpu: --nproc {args.nproc}: only {gpus} GPUs visible; pass --nproc {gpus} or less",
              file=sys.stderr)
        return 2
    world = args.nproc or min(gpus, MAX_NPROC)
    os.makedirs(logs, exist_ok=True)
    suite = Suite(args, cli, logs, run_environment(), world)
    header = [f"multigpu: {', '.join(args.programs)} on {world} of {gpus} GPUs ({gpu_line}), python {args.python}, "
              f"--set {args.metric_set}, {args.steps} steps, timeout {args.timeout:.0f} s, budget "
              f"{args.budget or 'none'} s" + (f", tool args {args.tool_args}" if args.tool_args else "")]
    return rc.run_programs(args.programs, suite.program, logs, "multigpu", header, render_table, suite_status,
                           suite.t0)


if __name__ == "__main__":
    sys.exit(main())
