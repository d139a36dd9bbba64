"""CPU test of run_ml.py's pure parts: the program list (programs.json and
its one-line errors), result lines, the judgement of tool runs against plain
runs on hand-made run records and report summaries (the real report schema's
fields, read by run_corpus.summarize_report), the table and the suite
status; and that every corpus program compiles. No GPU, framework or
rangereplay build needed (CTest label unit):

    python3 tests/ml/test_run_ml.py
"""
import json
import os
import py_compile
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run_ml as rm  # noqa: E402  (puts tests/corpus/ on sys.path)
import run_corpus as rc  # noqa: E402


def program(**kw):
    p = {"name": "p", "argv": ["p.py"], "ranges": 3, "deterministic": True, "selection": ["--nvtx-include", "step/"],
         "timeout_s": 120}
    p.update(kw)
    return p


def range_json(index, declined=False, reason="", detail="", divergences=0):
    """One RangeRecord as the C++ writer emits it (report.schema.json's required fields)."""
    return {"index": index, "name": "step", "declined": declined, "decline_reason": reason if declined else "",
            "decline_detail": detail if declined else "", "passes": 1 if declined else 40, "footprint_bytes": 4096,
            "regions": 1, "tiers": [], "timings": {}, "range_metrics": [], "notes": [],
            "kernels": [] if declined else [{"index": 0, "name": "k", "mangled_name": "_Z1kv", "launch_index": index}],
            "pass_records": [{"pass": 1, "restored_bytes": 4096,
                              "divergences": [{"address": 4096 * (d + 1), "size_bytes": 64, "origin": ""}
                                              for d in range(divergences)]}]}


def report(ranges, verify=False):
    doc = {"schema_version": 1, "pass_count": 40, "verify": verify, "errors": [], "ranges": ranges}
    return rc.summarize_report(doc)


def run(label, exit_code=0, results=("loss 0 0x1.8p-1", "checksum params 0123456789abcdef"), hung=False,
        wall=2.0, rep=None, cut=False):
    r = {"label": label, "exit": exit_code, "hung": hung, "wall_s": wall, "results": list(results),
         "stdout": f"/logs/{label}.stdout", "stage": "", "error_line": "", "report": rep, "report_problem": "",
         "schema_problem": "", "report_path": f"/logs/{label}.json"}
    if cut:
        r["cut"] = True
    return r


def runs_with(full_rep, verify_rep, full_results=None, verify_results=None, plain2=None):
    base = ("loss 0 0x1.8p-1", "checksum params 0123456789abcdef")
    return {"plain1": run("plain run 1"), "plain2": run("plain run 2", results=plain2 or base),
            "full": run("--set full", results=full_results or base, wall=9.0, rep=full_rep),
            "verify": run("--verify", results=verify_results or base, wall=7.0, rep=verify_rep)}


def test_result_lines_take_loss_and_checksum_lines_only():
    out = ("info warming up\nloss 0 0x1.0p+0  \nloss 1 -0x1.2p-3\nchecksum params 00ff\n"
           "checksums-done\nlossy line\n")
    assert rm.result_lines(out) == ["loss 0 0x1.0p+0", "loss 1 -0x1.2p-3", "checksum params 00ff"]
    assert rm.result_keys(rm.result_lines(out)) == ["loss 0", "loss 1", "checksum params"]
    assert rm.first_difference(["a", "b"], ["a", "c"]) == "line 2: plain 'b', tool 'c'"
    assert rm.first_difference(["a"], ["a", "x"]) == "line 2: plain '(none)', tool 'x'"
    assert rm.first_difference(["a"], ["a"]) == ""


def test_result_lines_survive_the_launcher_table():
    # The launcher appends its table after the application's output.
    out = "loss 0 0x1.0p+0\nchecksum params ab\nrangereplay 0.1.0, pid 42\n  range 0 'step' replayed\n"
    assert rm.result_lines(rc.app_stdout(out)) == ["loss 0 0x1.0p+0", "checksum params ab"]


def test_skip_reason_and_error_line():
    assert rm.skip_reason("noise\nskipped: JAX sees no GPU\n") == "JAX sees no GPU"
    assert rm.skip_reason("error\n") == ""
    assert rm.last_error_line("Traceback\n  x\nRuntimeError: boom\nrangereplay: range 0\n\n") == "RuntimeError: boom"


def test_program_list_in_the_repository_loads_and_names_existing_scripts():
    programs = rm.load_programs()
    names = [p["name"] for p in programs]
    assert len(names) == len(set(names)) >= 13
    for p in programs:
        assert os.path.isfile(os.path.join(HERE, p["argv"][0])), p["argv"]
        assert p["selection"] == ["--nvtx-include", "step/"], p
        assert p["timeout_s"] == 120
    by_name = {p["name"]: p for p in programs}
    assert by_name["torch_compile.capture"]["ranges"] == 4
    assert by_name["triton_autotune"]["timing_dependent_ranges"] == [0]
    assert by_name["jax_train"]["timing_dependent_ranges"] == []
    assert by_name["jax_train.no_prealloc"]["argv"] == ["jax_train.py", "--prealloc", "off"]
    assert [p["name"] for p in rm.select_programs(programs, "cupy_ops,jax_train")] == ["jax_train", "cupy_ops"]


def expect_error(doc, words):
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(doc, f)
    try:
        rm.load_programs(f.name)
    except rm.MlError as e:
        assert words in str(e), (words, str(e))
        assert "\n" not in str(e)
    else:
        raise AssertionError(f"no error for {doc}")
    finally:
        os.unlink(f.name)


def test_program_list_errors_name_the_entry_and_field():
    good = {"name": "a", "argv": ["a.py"], "ranges": 3, "deterministic": True, "selection": ["--nvtx-include", "s/"]}
    expect_error({"programs": []}, "non-empty 'programs' list")
    expect_error({"programs": [dict(good, rnages=3)]}, "programs[0] (a): unknown field 'rnages'")
    expect_error({"programs": [{k: v for k, v in good.items() if k != "ranges"}]}, "missing field 'ranges'")
    expect_error({"programs": [good, good]}, "listed twice")
    expect_error({"programs": [dict(good, ranges=0)]}, "'ranges' must be a positive integer")
    expect_error({"programs": [dict(good, argv=["../x.py"])]}, "must be a script in")
    expect_error({"programs": [dict(good, selection=["--nvtx-include", "s/", "--verify"])]}, "run_ml.py adds")
    expect_error({"programs": [dict(good, name="a b")]}, "name must be letters")
    expect_error({"programs": [dict(good, timing_dependent_ranges=[3])]}, "range indices below 'ranges' (3)")
    expect_error({"programs": [dict(good, timing_dependent_ranges=0)]}, "'timing_dependent_ranges' must be a list")
    try:
        rm.select_programs(rm.load_programs(), "jax_trian")
    except rm.MlError as e:
        assert "did you mean 'jax_train'" in str(e), str(e)
    else:
        raise AssertionError("no error for an unknown --only name")


def test_report_summary_counts_declines_and_divergences():
    rep = report([range_json(0, True, "write_set_learned", "first instance"), range_json(1),
                  range_json(2, divergences=2)], verify=True)
    assert (rep["replayed"], rep["declined"], rep["divergences"]) == (2, 1, 2)
    assert rm.decline_counts(rep) == {"write_set_learned": 1}


def test_unchanged_program_has_no_problem_and_renders_its_row():
    full = report([range_json(0, True, "write_set_learned"), range_json(1), range_json(2)])
    verify = report([range_json(0, True, "write_set_learned"), range_json(1), range_json(2)], verify=True)
    runs = runs_with(full, verify)
    problems, notes, flags = rm.judge(program(), runs)
    assert problems == [] and notes == [], (problems, notes)
    assert flags == {"plain_deterministic": True, "same_full": True, "same_verify": True}
    res = dict(name="jax_train", status="ran", problems=problems, notes=notes, runs=runs, **flags)
    row = rm.render_row(res)
    for cell in ("jax_train", "yes ", "yes/yes", " 0 ", "2/3", "write_set_learned", "2.0/  9.0/  7.0"):
        assert cell in row, (cell, row)
    table = rm.render_table([res], ["ml corpus: 1 programs"])
    lines = table.splitlines()
    assert lines[0] == "ml corpus: 1 programs"
    assert "declined ranges:" in lines and any("jax_train [full] ranges[0] 'step': write_set_learned" in l
                                               for l in lines)
    assert lines[-1] == "1 ran (1 unchanged, 0 with problems); ranges replayed under --set full: 2/3 (67%)"
    assert rm.suite_status([res]) == 0


def test_changed_result_line_and_exit_code_are_problems():
    full = report([range_json(i) for i in range(3)])
    runs = runs_with(full, full, full_results=("loss 0 0x1.9p-1", "checksum params 0123456789abcdef"))
    runs["verify"]["exit"] = 1
    runs["verify"]["stage"] = "rangereplay: range 1 'step': pass 3/40"
    problems, _, flags = rm.judge(program(), runs)
    assert flags["same_full"] is False and flags["same_verify"] is False
    assert "--set full: result lines changed: line 1: plain 'loss 0 0x1.8p-1', tool 'loss 0 0x1.9p-1'" in problems
    assert any(p.startswith("--verify: exit code 1 (plain 0); last tool line: rangereplay: range 1") for p in problems)
    res = dict(name="x", status="ran", problems=problems, notes=[], runs=runs, **flags)
    assert "NO/NO" in rm.render_row(res) and "0/0/1" in rm.render_row(res)
    assert rm.suite_status([res]) == 1


def test_hang_missing_report_and_range_count():
    full = report([range_json(0)])
    runs = runs_with(full, None)
    runs["verify"]["hung"] = True
    runs["verify"]["wall_s"] = 180.0
    runs["verify"]["stage"] = "rangereplay[debug] drain"
    runs["full"]["report_problem"] = ""
    problems, _, flags = rm.judge(program(), runs)
    assert "--verify: HANG after 180.0 s at: rangereplay[debug] drain" in problems
    assert any("the report has 1 ranges, programs.json expects 3" in p for p in problems), problems
    assert flags["same_verify"] is False
    res = dict(name="x", status="ran", problems=problems, notes=[], runs=runs, **flags)
    row = rm.render_row(res)
    assert "HANG" in row and "1/1" in row
    runs = runs_with(None, None)
    runs["full"]["report_problem"] = "report missing"
    problems, _, _ = rm.judge(program(), runs)
    assert "--set full: report missing (/logs/--set full.json)" in problems


def test_nondeterministic_program_is_compared_by_line_names():
    rep = report([range_json(i) for i in range(3)])
    other = ("loss 0 0x1.7p-1", "checksum params fedcba9876543210")
    runs = runs_with(rep, rep, plain2=other, full_results=other)
    problems, notes, flags = rm.judge(program(deterministic=False), runs)
    assert problems == [] and flags["plain_deterministic"] is False and flags["same_full"] is True
    problems, notes, _ = rm.judge(program(deterministic=True), runs)
    assert problems == [] and notes and notes[0].startswith("declared deterministic, yet the plain runs differ")
    runs["verify"]["results"] = ["loss 0 0x1.7p-1"]
    problems, _, _ = rm.judge(program(deterministic=False), runs)
    assert problems and "result lines changed (names)" in problems[0], problems


def test_divergences_in_a_deterministic_program_are_noted():
    full = report([range_json(i) for i in range(3)])
    verify = report([range_json(0), range_json(1, divergences=3), range_json(2)], verify=True)
    problems, notes, _ = rm.judge(program(), runs_with(full, verify))
    assert problems == [] and notes == ["--verify: 3 divergent regions in a deterministic program"]
    res = dict(name="x", status="ran", problems=[], notes=notes, runs=runs_with(full, verify),
               plain_deterministic=True, same_full=True, same_verify=True)
    assert "   3  " in rm.render_row(res)


def test_plain_failure_cut_runs_and_statuses():
    runs = {"plain1": run("plain run 1", exit_code=1, results=())}
    runs["plain1"]["error_line"] = "RuntimeError: No available kernel"
    problems, _, flags = rm.judge(program(), runs)
    assert problems == ["plain run 1 exit 1 without the tool: RuntimeError: No available kernel"]
    assert flags["plain_deterministic"] is None
    runs = runs_with(report([range_json(i) for i in range(3)]), None)
    runs["verify"] = run("--verify", cut=True, wall=30.0)
    problems, _, flags = rm.judge(program(), runs)
    assert problems == [] and flags["same_verify"] is None
    results = [dict(name="a", status="unavailable", problems=[], notes=["JAX sees no GPU"]),
               dict(name="b", status="skipped", problems=[], notes=["budget of 480 s spent"])]
    assert rm.render_row(results[0]).endswith("unavailable: JAX sees no GPU")
    assert rm.count_line(results) == "0 ran (0 unchanged, 0 with problems), 1 unavailable, 1 skipped"
    assert rm.suite_status(results) == 1


def test_tool_command_shapes():
    p = program()
    full = rm.tool_command("/b/rangereplay", p, "/l/p.full.json", False, ["--fallback", "app-range"])
    assert full == ["/b/rangereplay", "profile", "--nvtx-include", "step/", "--set", "full", "-o", "/l/p.full.json",
                    "--fallback", "app-range", "--"]
    verify = rm.tool_command("/b/rangereplay", p, "/l/p.verify.json", True)
    assert verify == ["/b/rangereplay", "profile", "--nvtx-include", "step/", "-o", "/l/p.verify.json", "--verify",
                      "--"]
    assert rm.program_command("py", program(argv=["x.py", "--a", "b"])) == ["py", os.path.join(HERE, "x.py"), "--a",
                                                                             "b"]


def test_every_program_compiles():
    with tempfile.TemporaryDirectory() as tmp:
        for name in sorted(os.listdir(HERE)):
            if name.endswith(".py"):
                py_compile.compile(os.path.join(HERE, name), cfile=os.path.join(tmp, name + "c"), doraise=True)


def main():
    tests = [v for k, v in sorted(globals().items()) if k.startswith("test_") and callable(v)]
    for t in tests:
        t()
        print(f"ok  {t.__name__}")
    print(f"{len(tests)} tests passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
