"""CPU test of run_multigpu.py's pure parts: option parsing and its one-line
errors, the GPU count, result lines of ranks and their comparison, the
judgement of hand-made rank reports (the real report schema's fields, read
by run_corpus.summarize_report) and of a merge's JSON, the commands, the
table and the suite status; and that the suite's programs compile. No GPU,
framework or rangereplay build needed (CTest label unit):

    python3 tests/multigpu/test_run_multigpu.py
"""
import contextlib
import io
import os
import py_compile
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run_multigpu as rm  # noqa: E402  (puts tests/corpus/ on sys.path)

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def parse_error(argv):
    """The argparse error text of argv, '' when it parses."""
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err):
            rm.parse_args(argv)
    except SystemExit as e:
        return err.getvalue() if e.code == 2 else f"exit {e.code}"
    return ""


def range_json(index, declined=False, reason="", passes=9, world=2, kernels=("ncclDevKernel_AllReduce_Sum_f32_RING_LL",
                                                                             "ampere_sgemm"), insts=(100, 200)):
    notes = [] if declined else [f"replayed pass by pass together with the job's other {world - 1} rank(s), meeting "
                                 f"them at {passes} barriers (--collectives replay)"]
    return {"index": index, "name": "step", "declined": declined, "decline_reason": reason if declined else "",
            "decline_detail": f"{reason} detail" if declined else "", "passes": 1 if declined else passes,
            "notes": notes, "pass_records": [],
            "kernels": [] if declined else [{"index": i, "name": n, "mangled_name": n, "launch_index": i,
                                             "metrics": [{"name": rm.INSTRUCTIONS, "unit": "inst", "value": v}]}
                                            for i, (n, v) in enumerate(zip(kernels, insts))]}


def summary(ranges, budget=None):
    doc = {"pass_count": 9, "errors": [], "ranges": ranges}
    if budget is not None:
        doc["time_budget"] = budget
    return rm.summarize(doc)


# options
args = rm.parse_args(["--build", "b", "--logs", "l"])
check(args.programs == ["ddp", "jax"] and args.steps == 3 and args.metric_set == "basic" and args.nproc is None
      and args.timeout == rm.DEFAULT_TIMEOUT_S and args.extra == [], f"defaults: {vars(args)}")
args = rm.parse_args(["--build", "b", "--logs", "l", "--only", "jax", "--nproc", "8", "--tool-args", "--cache-control none"])
check(args.programs == ["jax"] and args.nproc == 8 and args.extra == ["--cache-control", "none"], f"options: {vars(args)}")
for argv, want in ((["--only", "ddq"], "no program 'ddq' (known: ddp, jax)"), (["--nproc", "1"], "--nproc must be 2"),
                   (["--nproc", "9"], "--nproc must be 2"), (["--timeout", "0"], "--timeout must be positive"),
                   (["--budget", "-1"], "--budget must be positive"), (["--steps", "0"], "--steps must be at least 1"),
                   (["--tool-args", "-o x.json"], "'-o', which run_multigpu.py sets itself"),
                   (["--tool-args", "--collectives replay"], "'--collectives'"),
                   (["--tool-args", "'unclosed"], "--tool-args: No closing quotation")):
    err = parse_error(["--build", "b", "--logs", "l"] + argv)
    last = err.strip().splitlines()[-1] if err.strip() else ""
    check(want in last and last.startswith("test_run_multigpu.py: error: "), f"{argv}: error {last!r}, want {want!r}")
check(parse_error(["--logs", "l"]) != "", "--build is required")

# GPU count
smi = "GPU 0: NVIDIA H100 (UUID: a)\nGPU 1: NVIDIA H100 (UUID: b)\nGPU 2: NVIDIA H100 (UUID: c)\n"
check(rm.count_gpus(smi, None) == 3, "three GPUs")
check(rm.count_gpus(smi, "0,1") == 2 and rm.count_gpus(smi, "") == 0 and rm.count_gpus(smi, "1,-1,2") == 1
      and rm.count_gpus(smi, "0,1,2,3") == 3 and rm.count_gpus("", None) == 0, "CUDA_VISIBLE_DEVICES limits")
check(rm.count_gpus("  MIG 1g.10gb Device 0: (UUID: x)\n", None) == 0, "MIG lines are not GPUs")

# result lines
job = ("rank 1 loss 0 0x1.2p+1\nW0101 torchrun warning\nrank 0 loss 0 0x1.0p+1\nrank 0 loss 1 0x1.8p+0\n"
       "rank 1 loss 1 0x1.4p+0\nrank 0 checksum params 0123456789abcdef\nrank 1 checksum params 0123456789abcdef\n"
       "rangereplay 0.1, pid 3\nrank 12 of the table\n")
res = rm.ranked_results(job)
check(res == {0: ["loss 0 0x1.0p+1", "loss 1 0x1.8p+0", "checksum params 0123456789abcdef"],
              1: ["loss 0 0x1.2p+1", "loss 1 0x1.4p+0", "checksum params 0123456789abcdef"]}, f"ranked: {res}")
check(rm.plain_results("x\nloss 0 0x1p+0\nchecksum params ab\n") == {0: ["loss 0 0x1p+0", "checksum params ab"]}
      and rm.plain_results("nothing\n") == {}, "plain results")
check(rm.compare_results(res, res, 2) == [], "equal results")
changed = {0: res[0], 1: ["loss 0 0x1.2p+1", "loss 1 0x1.4000000000001p+0", res[1][2]]}
check(rm.compare_results(res, changed, 2) == ["rank 1 line 2: expected 'loss 1 0x1.4p+0', got "
                                              "'loss 1 0x1.4000000000001p+0'"], f"{rm.compare_results(res, changed, 2)}")
check(rm.compare_results(res, {0: res[0]}, 2) == ["rank 1: no result lines"], "missing rank")
check(rm.compare_results(res, {0: res[0][:2], 1: res[1]}, 2) == ["rank 0 line 3: expected 'checksum params "
                                                                 "0123456789abcdef', got '(none)'"], "short rank")
check(rm.compare_results(res, {**res, 2: ["loss 0 0x0p+0"]}, 2) == ["result lines of unexpected rank(s) [2]"],
      "extra rank")
check(rm.checksum_disagreement(res) == "", "params agree")
check(rm.checksum_disagreement({0: ["checksum params aa"], 1: ["checksum params bb"]})
      == "checksum params differs across ranks: rank 0 aa, rank 1 bb", "params disagree")

# DDP reports
declined = {r: summary([range_json(i, True, "collective_in_range") for i in range(3)]) for r in (0, 1)}
check(rm.judge_ddp_reports("default", declined, 2, 3) == ([], []), "default: all declined collective_in_range")
problems, _ = rm.judge_ddp_reports("replay", declined, 2, 3)
check(len(problems) == 6 and "declined collective_in_range" in problems[0], f"replay of declined: {problems}")
replayed = {r: summary([range_json(i) for i in range(3)], {"windows_ms": 5.0, "rendezvous_wait_ms": 1.5})
            for r in (0, 1)}
check(rm.judge_ddp_reports("replay", replayed, 2, 3) == ([], []), "replay: all replayed with barriers")
check(replayed[0]["rendezvous_ms"] == {"rendezvous_wait_ms": 1.5} and replayed[0]["ranges"][0]["nccl_kernels"] == 1
      and replayed[0]["ranges"][0]["instructions"] == [100, 200], f"summary: {replayed[0]}")
problems, _ = rm.judge_ddp_reports("default", replayed, 2, 3)
check(len(problems) == 6 and problems[0] == "rank 0 range 0: replayed, expected declined collective_in_range",
      f"default replayed: {problems}")
problems, _ = rm.judge_ddp_reports("replay", replayed, 4, 3)
check(len(problems) == 6 and "met the other 3 rank(s) at 9 barriers" in problems[0], f"world 4 note: {problems}")
mixed = {0: summary([range_json(0), range_json(1, True, "peer_declined")]),
         1: summary([range_json(0), range_json(1, True, "rendezvous_failed"), range_json(2)])}
problems, _ = rm.judge_ddp_reports("replay", mixed, 2, 3)
check(problems == ["rank 0: 2 ranges in the report, expected 3",
                   "rank 0 range 1: declined peer_declined (peer_declined detail), expected replayed",
                   "rank 1 range 1: declined rendezvous_failed (rendezvous_failed detail), expected replayed"],
      f"mixed: {problems}")
no_nccl = {r: summary([range_json(i, kernels=("gemm",), insts=(1,)) for i in range(3)]) for r in (0, 1)}
problems, _ = rm.judge_ddp_reports("replay", no_nccl, 2, 3)
check(problems and "no NCCL kernel" in problems[0], f"no NCCL: {problems}")
check(rm.judge_ddp_reports("default", {0: declined[0], 1: None}, 2, 3) == ([], []), "missing report judged elsewhere")

# JAX report
problems, notes = rm.judge_jax_report(summary([range_json(i, True, "multiple_devices") for i in range(3)]), 3)
check(problems == [] and notes == ["declined multiple_devices x3 (expected today): multiple_devices detail"],
      f"jax declined: {problems} {notes}")
problems, notes = rm.judge_jax_report(summary([range_json(0), range_json(1, True, "allocation_in_range")]), 3)
check(problems == ["2 ranges in the report, expected 3 (NVTX did not reach the tool?)"]
      and notes == ["1 of 2 multi-device ranges replayed",
                    "declined allocation_in_range x1 (not the expected multiple_devices): allocation_in_range detail"],
      f"jax mixed: {problems} {notes}")

# merge
merge = {"ranges": [{"kernels": [
    {"name": "ncclDevKernel_AllReduce_Sum_f32_RING_LL",
     "metrics": [{"metric": rm.INSTRUCTIONS, "values": [100, 104]}]},
    {"name": "ampere_sgemm", "metrics": [{"metric": rm.INSTRUCTIONS, "values": [200, 200]}]},
    {"name": "softmax", "metrics": [{"metric": "x", "values": [1, 2]}]}]}],
    "mismatched": ["rank 1: kernel 3 differs"], "errors": []}
problems, notes = rm.merge_findings(merge)
check(problems == [] and notes == ["merge: rank 1: kernel 3 differs",
                                   "instructions equal on every rank: 1/1 compute kernels, 0/1 NCCL kernels"],
      f"merge: {notes}")

# commands
cmd = rm.torchrun_command("py", 4, 29500, 3)
check(cmd[:3] == ["py", "-m", "torch.distributed.run"] and "--nproc_per_node" in cmd
      and cmd[cmd.index("--nproc_per_node") + 1] == "4" and cmd[cmd.index("--master_port") + 1] == "29500"
      and cmd[-3].endswith("ddp_train.py") and cmd[-2:] == ["--steps", "3"], f"torchrun: {cmd}")
tool = rm.tool_command("rr", "basic", "/l/ddp.replay.%q{RANK}.json", ["--cache-control", "none"], 4242)
check(tool == ["rr", "profile", "--nvtx-include", "step/", "--set", "basic", "-o", "/l/ddp.replay.%q{RANK}.json",
               "--collectives", "replay", "--rendezvous", "127.0.0.1:4242", "--cache-control", "none", "--"],
      f"tool: {tool}")
check("--collectives" not in rm.tool_command("rr", "full", "o.json"), "default run declines")
pattern, paths = rm.rank_report_paths("/l", "ddp", "replay", 2)
check(pattern == "/l/ddp.replay.%q{RANK}.json" and paths == ["/l/ddp.replay.0.json", "/l/ddp.replay.1.json"],
      f"paths: {pattern} {paths}")
check(rm.rank_report_paths("/l", "jax", "default", 2) == ("/l/jax.default.json", ["/l/jax.default.json"]), "jax path")
env = rm.run_environment()
check(env["NCCL_NVLS_ENABLE"] == "0" and env["TORCH_SYMM_MEM_DISABLE_MULTICAST"] == "1", "no multicast")

# table and status


def run_record(label, wall, results=None, exit_code=0, hung=False):
    return {"label": label, "exit": exit_code, "hung": hung, "wall_s": wall, "results": results or res}


ok = {"name": "ddp", "status": "ran", "world": 2, "problems": [], "notes": [], "deterministic": True,
      "same": {"default": True, "replay": True},
      "runs": {"plain1": run_record("plain run 1", 20.0), "plain2": run_record("plain run 2", 21.0),
               "default": run_record("profile (default)", 30.0), "replay": run_record("replay", 60.0)},
      "reports": {"default": declined, "replay": replayed}, "run_notes": {"replay": ["3.0x the plain run's wall time"]}}
bad = dict(ok, name="jax", problems=["profile (default): results changed"], same={"default": False},
           runs={"plain1": ok["runs"]["plain1"], "plain2": ok["runs"]["plain2"],
                 "default": run_record("profile (default)", 9.0, hung=True)},
           reports={"default": {0: None}}, run_notes={})
table = rm.render_table([ok, bad, {"name": "x", "status": "unavailable", "notes": ["no JAX"], "problems": []}],
                        ["header"])
lines = table.splitlines()
check(lines[0] == "header" and lines[1] == "problems:" and "jax: profile (default): results changed" in lines[2],
      f"table head: {lines[:3]}")
rows = {(l.split()[0], l.split()[1]): l for l in lines if l.startswith(("ddp ", "jax "))}
check(rows[("ddp", "default")].split()[2:6] == ["2", "0", "same", "0/3"]
      and "collective_in_range x6" in rows[("ddp", "default")], f"default row: {rows[('ddp', 'default')]}")
check("3/3 3/3" in rows[("ddp", "replay")] and rows[("ddp", "replay")].rstrip().endswith("3.0x the plain run's wall time")
      and " 6 " in rows[("ddp", "replay")], f"replay row: {rows[('ddp', 'replay')]}")
check(rows[("ddp", "plain2")].split()[4] == "det" and "HANG" in rows[("jax", "default")]
      and "CHANGED" in rows[("jax", "default")], f"rows: {rows}")
check("x        unavailable: no JAX" in table and lines[-1] == "2 ran (1 as expected, 1 with problems), 1 unavailable",
      f"table tail: {lines[-3:]}")
check(rm.suite_status([ok]) == 0 and rm.suite_status([ok, bad]) == 1 and rm.suite_status([]) == 1
      and rm.suite_status([{"status": "unavailable", "problems": []}]) == 1, "suite status")

# dry run: every command printed, nothing run
out = io.StringIO()
with contextlib.redirect_stdout(out):
    code = rm.main(["--build", "/nonexistent", "--logs", tempfile.gettempdir(), "--dry-run", "--nproc", "4"])
text = out.getvalue()
check(code == 0 and text.count("rangereplay profile") == 3 and text.count("rangereplay merge") == 2
      and "--nproc_per_node 4" in text and "--devices 4" in text, f"dry run: {code} {text}")

# the suite's programs compile
for name in ("ddp_train.py", "jax_sharded.py", "run_multigpu.py"):
    try:
        py_compile.compile(os.path.join(HERE, name), doraise=True, cfile=os.path.join(tempfile.gettempdir(),
                                                                                      f"rr_{name}c"))
    except py_compile.PyCompileError as e:
        failures.append(f"{name} does not compile: {e}")

for f in failures:
    print(f"FAIL: {f}")
print(f"{'FAILED' if failures else 'ok'}: run_multigpu.py pure parts ({len(failures)} failures)")
sys.exit(1 if failures else 0)
