"""CPU test of ml_vs_ncu.py's pure parts: its commands, the pairing of a
rangereplay report's ranges with ncu's kernel-replay list (declined ranges
skipped by count, a different kernel count named by range), the judgement of
instruction counts and cold kernels' DRAM bytes, the table and the suite
status, on hand-made reports and fake ncu `--csv` output read with
ncu_compare.parse_ncu_csv. No GPU, ncu, framework or rangereplay build
needed (CTest label unit):

    python3 tests/ml/test_ml_vs_ncu.py
"""
import argparse
import json
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import ml_vs_ncu as mv  # noqa: E402  (puts tests/ncu and tests/corpus on sys.path)
import ncu_compare as nc  # noqa: E402

HEADER = ('"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size",'
          '"Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"')
INST, DRAM = nc.INST, nc.DRAM


def ncu_csv(kernels):
    """Fake `ncu --csv --print-units base` output: the application's lines, ==PROF== lines, then one row per
    kernel and metric; kernels: [(mangled name, instructions, DRAM bytes)]."""
    lines = ["loss 0 0x1.8p-1", "==PROF== Connected to process 4242", HEADER]
    for i, (name, inst, dram) in enumerate(kernels):
        for metric, unit, value in ((DRAM, "byte", dram), (INST, "inst", inst)):
            lines.append(f'"{i}","4242","python3","host","{name}","1","7","(256, 1, 1)","(64, 1, 1)","0","9.0",'
                         f'"Command line profiler metrics","{metric}","{unit}","{value:,}"')
    return "\n".join(lines) + "\n==WARNING== a warning after the table\n"


def kernel(index, name, inst, dram):
    return {"index": index, "name": name, "mangled_name": name, "launch_index": -1,
            "metrics": [{"name": INST, "value": inst}, {"name": DRAM, "value": dram}]}


def rng(index, kernels, declined=False, notes=()):
    """A RangeRecord with the fields ml_vs_ncu reads; kernels: [(name, inst, dram)]."""
    return {"index": index, "name": "step", "declined": declined,
            "decline_reason": "counters_unavailable" if declined else "", "notes": list(notes),
            "kernels": [kernel(i, n, x, d) for i, (n, x, d) in enumerate(kernels)]}


def report(ranges, cache="all"):
    return {"schema_version": 1, "cache_control": cache, "metrics": list(nc.FIDELITY_METRICS), "ranges": ranges}


STEP = [("_Z3fwdPf", 1000.0, 4_000_000.0), ("add_scale", 200.0, 1_000_000.0), ("matmul", 5000.0, 300_000.0)]


def test_commands():
    p = {"name": "p", "argv": ["p.py", "--a"], "selection": ["--nvtx-include", "step/"]}
    cmd = mv.profile_command("/b/rangereplay", p, "/l/p.profile.json")
    assert cmd == ["/b/rangereplay", "profile", "--nvtx-include", "step/", "--metrics",
                   "smsp__inst_executed.sum,dram__bytes_read.sum", "-o", "/l/p.profile.json", "--"], cmd
    ncu = mv.ncu_command(["py", "p.py"])
    assert ncu == ["ncu", "--clock-control", "none", "--nvtx", "--nvtx-include", "step/", "--csv", "--print-units",
                   "base", "--print-kernel-base", "mangled", "--metrics",
                   "smsp__inst_executed.sum,dram__bytes_read.sum", "py", "p.py"], ncu


def test_equal_runs_pass_and_count_every_kernel():
    rep = report([rng(i, STEP) for i in range(3)])
    theirs = nc.parse_ncu_csv(ncu_csv(STEP * 3))
    c = mv.compare(rep, theirs, theirs)
    assert c["ok"], c["failures"]
    assert (c["compared"], c["inst_equal"], c["ranges_compared"], c["kernels_ncu"]) == (9, 9, 3, [9, 9])
    assert (c["dram_cold"], c["dram_cold_ok"], c["dram_all_within_2pct"]) == (3, 3, 9)
    assert [(p["range"], p["position"], p["cold"]) for p in c["pairs"][:4]] == \
        [(0, 0, True), (0, 1, False), (0, 2, False), (1, 0, True)]


def test_leading_declined_range_takes_ncus_extra_kernels():
    # triton_autotune's range 0: declined, listing 5 launches; ncu's run of it launched 7 (timing-dependent).
    bench = [("add_scale", 210.0, 9.0e5)] * 5
    rep = report([rng(0, bench, declined=True)] + [rng(i, STEP) for i in (1, 2, 3)])
    theirs = nc.parse_ncu_csv(ncu_csv([("add_scale", 999.0, 1.0)] * 7 + STEP * 3))
    c = mv.compare(rep, theirs, theirs)
    assert c["ok"], c["failures"]
    assert c["ranges_declined"] == [0] and c["compared"] == 9 and c["kernels_ncu"] == [9, 9]
    segs = mv.segments(rep, len(theirs))
    assert [(s["index"], s["start"], s["count"]) for s in segs] == [(0, 0, 7), (1, 7, 3), (2, 10, 3), (3, 13, 3)]


def test_timing_dependent_range_replayed_is_left_out_like_a_declined_one():
    # triton_autotune's range 0 replayed with 5 benchmark launches; ncu's run of it launched 7 of other kernels.
    bench = [("add_scale", 210.0, 9.0e5)] * 5
    rep = report([rng(0, bench)] + [rng(i, STEP) for i in (1, 2, 3)])
    theirs = nc.parse_ncu_csv(ncu_csv([("fill", 999.0, 1.0)] * 7 + STEP * 3))
    assert not mv.compare(rep, theirs, theirs)["ok"]
    c = mv.compare(rep, theirs, theirs, uncompared=(0,))
    assert c["ok"], c["failures"]
    assert c["ranges_declined"] == [] and c["ranges_timing_dependent"] == [0]
    assert c["compared"] == 9 and c["kernels"] == 9 and c["kernels_ncu"] == [9, 9]
    assert [p["range"] for p in c["pairs"]] == [1, 1, 1, 2, 2, 2, 3, 3, 3]


def with_launches(rep, firsts):
    """rep's ranges given launch numbers from firsts (one per range); the
    autograd thread's launch (the second kernel) recorded after the main
    thread's (the third), so report order is not launch order."""
    for r, first in zip(rep["ranges"], firsts):
        for k, li in zip(r["kernels"], (first, first + 2, first + 1)):
            k["launch_index"] = li
    return rep


def test_launch_windows_and_windows_report():
    rep = report([rng(0, STEP), rng(1, STEP), rng(2, STEP, declined=True)])
    assert mv.launch_windows(rep) is None                     # no launch_index (-1)
    with_launches(rep, (40, 90, 140))
    assert mv.launch_windows(rep) == [(0, 40, 3), (1, 90, 3)]
    assert mv.launch_windows(rep, uncompared=(0,)) == [(1, 90, 3)]
    rep["ranges"][1]["kernels"][0]["launch_index"] = -1
    assert mv.launch_windows(rep) is None                     # every compared range needs its numbers
    w = mv.windows_report(with_launches(rep, (40, 90)), [1])
    assert [r["index"] for r in w["ranges"]] == [1]
    assert [k["name"] for k in w["ranges"][0]["kernels"]] == ["_Z3fwdPf", "matmul", "add_scale"]
    theirs = nc.parse_ncu_csv(ncu_csv([STEP[0], STEP[2], STEP[1]]))
    assert mv.compare(w, theirs, theirs)["ok"]
    cmd = mv.ncu_window_command(["python3", "p.py"], 90, 3)
    assert "--nvtx" not in cmd and cmd[cmd.index("--launch-skip") + 1] == "90"
    assert cmd[cmd.index("--launch-count") + 1] == "3" and cmd[-2:] == ["python3", "p.py"]


def scripted_suite(folder, outputs):
    """A Suite whose runs return `outputs` in turn: [(exit code, stdout text)], each kept in a file in folder."""
    records = []
    for code, text in outputs:
        out = os.path.join(folder, f"run{len(os.listdir(folder))}.out")
        with open(out, "w") as f:
            f.write(text)
        records.append({"cmd": ["ncu"], "exit": code, "hung": False, "wall_s": 1.0, "stdout": out, "stderr": out})
    suite = mv.Suite(argparse.Namespace(budget=None), "rangereplay", folder, {})
    suite.run = lambda cmd, tag, limit, env: records.pop(0)
    return suite, records


def test_ranges_compared_by_their_launches_when_ncus_filter_misses_a_thread():
    rep = with_launches(report([rng(0, STEP), rng(1, STEP)]), (40, 90))
    # ncu's NVTX run: the autograd thread's kernel (add_scale) missing from every range.
    nvtx = nc.parse_ncu_csv(ncu_csv([STEP[0], STEP[2]] * 2))
    c = mv.compare(rep, nvtx, nvtx)
    assert not c["ok"] and c["kernels"] == 6 and c["kernels_ncu"][0] == 4
    windows = mv.launch_windows(rep)
    # ncu's window from launch 0: 37 other launches, range 0, 47 others, range 1, the rest (ncu counts 3 more
    # launches before each range than the tool does).
    launches = [("other", 1.0, 1.0)] * 37 + [STEP[0], STEP[2], STEP[1]] + [("other", 1.0, 1.0)] * 47 + \
        [STEP[0], STEP[2], STEP[1]] + [("other", 1.0, 1.0)] * 60
    folder = tempfile.mkdtemp(prefix="ml_vs_ncu_test.")
    suite, left = scripted_suite(folder, [(0, ncu_csv(launches))] * 2)
    res = {"status": "FAIL", "problems": [], "notes": [], "runs": {}}
    w = suite.compare_by_launches(res, "p", ["python3", "p.py"], rep, windows, c, 10.0, {})
    assert w is not None and w["ok"] and w["compared"] == 6, (w, res)
    assert not left and res["comparison_nvtx"]["kernels_ncu"][0] == 4 and "ncu's launches 0..156" in res["notes"][0]
    # A range whose kernels are not in ncu's window: no comparison, the reason in problems.
    suite, _ = scripted_suite(folder, [(0, ncu_csv([("other", 1.0, 1.0)] * 157))] * 2)
    res = {"status": "FAIL", "problems": [], "notes": [], "runs": {}}
    assert suite.compare_by_launches(res, "p", ["python3", "p.py"], rep, windows, c, 10.0, {}) is None
    assert res["problems"] == ["range 0: its 3 kernel names are nowhere in a row in ncu's launches 0..156"]
    shutil.rmtree(folder, ignore_errors=True)


def test_align_finds_the_range_nearest_where_launch_numbers_say():
    names = ["a", "b", "c"]
    lst = nc.parse_ncu_csv(ncu_csv([(n, 1.0, 1.0) for n in ["x", "a", "b", "c", "y", "a", "b", "c", "z"]]))
    assert mv.align(names, lst, 0) == 1 and mv.align(names, lst, 4) == 5 and mv.align(names, lst, 3) == 1
    assert mv.align(["a", "c"], lst, 0) is None and mv.align(names, lst[:3], 0) is None


def program_result(rep, ncu_outputs):
    """Suite.program on a program whose profile run writes `rep` as its report and whose ncu runs print
    `ncu_outputs` in turn; the result and the runs left unused."""
    folder = tempfile.mkdtemp(prefix="ml_vs_ncu_test.")
    suite, left = scripted_suite(folder, ncu_outputs)
    ncu_run = suite.run
    suite.args = argparse.Namespace(budget=None, python="python3", timeout=10.0)

    def run(cmd, tag, limit, env):
        if cmd[0] != "rangereplay":
            return ncu_run(cmd, tag, limit, env)
        with open(cmd[cmd.index("-o") + 1], "w") as f:
            json.dump(rep, f)
        out = os.path.join(folder, "profile.out")
        open(out, "w").close()
        return {"cmd": cmd, "exit": 0, "hung": False, "wall_s": 1.0, "stdout": out, "stderr": out}

    suite.run = run
    p = {"name": "p", "argv": ["p.py"], "selection": ["--nvtx-include", "step/"], "timing_dependent_ranges": []}
    res = suite.program(p)
    shutil.rmtree(folder, ignore_errors=True)
    return res, left


def test_program_compares_by_launches_only_when_ncu_lacks_kernels_and_keeps_its_failures_otherwise():
    rep = with_launches(report([rng(0, STEP), rng(1, STEP)]), (40, 90))
    missing = ncu_csv([STEP[0], STEP[2]] * 2)  # ncu's NVTX filter lost the autograd thread's kernel
    launches = ncu_csv([("other", 1.0, 1.0)] * 40 + [STEP[0], STEP[2], STEP[1]] + [("other", 1.0, 1.0)] * 47 +
                       [STEP[0], STEP[2], STEP[1]] + [("other", 1.0, 1.0)] * 60)
    res, left = program_result(rep, [(0, missing)] * 2 + [(0, launches)] * 2)
    assert res["status"] == "pass" and not left, res
    assert res["comparison"]["compared"] == 6 and res["comparison_nvtx"]["kernels_ncu"][0] == 4
    # ncu's window runs crash every time: the NVTX comparison's failures stand.
    res, left = program_result(rep, [(0, missing)] * 2 + [(139, "Segmentation fault\n")] * mv.NCU_SIGNAL_TRIES)
    assert res["status"] == "FAIL" and not left, res
    assert any("kernel counts differ" in x for x in res["problems"]), res["problems"]
    # ncu with more kernels than the report: a failure of the tool's, never compared by launches.
    extra = ncu_csv(STEP + [("extra", 1.0, 1.0)] + STEP)
    res, left = program_result(rep, [(0, extra)] * 2 + [(0, launches)] * 2)
    assert res["status"] == "FAIL" and len(left) == 2 and "comparison_nvtx" not in res, res


def test_ncu_runs_ended_by_a_signal_are_run_again_then_make_the_program_unavailable():
    crash = (139, "Segmentation fault\n")
    folder = tempfile.mkdtemp(prefix="ml_vs_ncu_test.")
    suite, _ = scripted_suite(folder, [crash, (0, ncu_csv(STEP)), (0, ncu_csv(STEP))])
    res = {"status": "FAIL", "problems": [], "notes": [], "runs": {}}
    lists = suite.ncu_lists(res, "p", ["ncu"], "ncu", 10.0, {})
    assert lists is not None and [len(x) for x in lists] == [3, 3] and not res["problems"], res
    assert sorted(res["runs"]) == ["ncu1", "ncu1.try2", "ncu2"], res["runs"]
    assert res["notes"] == ["ncu run 1: ncu ended by a signal 1 time(s) first"], res["notes"]
    suite, left = scripted_suite(folder, [crash] * mv.NCU_SIGNAL_TRIES)
    res = {"status": "FAIL", "problems": [], "notes": [], "runs": {}}
    assert suite.ncu_lists(res, "p", ["ncu"], "ncu", 10.0, {}) is None
    assert res["status"] == "unavailable" and not left and "in 3 runs (exit 139" in res["notes"][0], res
    # A run that ends with an error code and no table is a failure, not run again.
    suite, _ = scripted_suite(folder, [(1, "==ERROR== bad\n")])
    res = {"status": "FAIL", "problems": [], "notes": [], "runs": {}}
    assert suite.ncu_lists(res, "p", ["ncu"], "ncu", 10.0, {}) is None
    assert res["status"] == "FAIL" and res["problems"][0].startswith("ncu run 1:"), res
    shutil.rmtree(folder, ignore_errors=True)


def test_killed_by_signal():
    assert mv.killed_by_signal(139) and mv.killed_by_signal(-11) and mv.killed_by_signal(134)
    assert not mv.killed_by_signal(0) and not mv.killed_by_signal(1) and not mv.killed_by_signal(None)


def test_declined_range_in_the_middle_is_skipped_by_its_count():
    rep = report([rng(0, STEP), rng(1, STEP[:2], declined=True), rng(2, STEP)])
    theirs = nc.parse_ncu_csv(ncu_csv(STEP + [("x", 1.0, 1.0), ("y", 1.0, 1.0)] + STEP))
    c = mv.compare(rep, theirs, theirs)
    assert c["ok"], c["failures"]
    assert c["compared"] == 6 and [p["range"] for p in c["pairs"]] == [0, 0, 0, 2, 2, 2]


def test_a_missing_kernel_names_the_range_and_both_counts():
    # ncu's NVTX filter misses a kernel of range 1 (launched by another thread).
    rep = report([rng(i, STEP, notes=["graph launches: whole-range values"] if i == 1 else []) for i in range(3)])
    theirs = nc.parse_ncu_csv(ncu_csv(STEP + STEP[:2] + STEP))
    c = mv.compare(rep, theirs, theirs)
    assert not c["ok"]
    first = c["failures"][0]
    assert first.startswith("kernel counts differ at range 1 (3 kernels in rangereplay's report, the first name "
                            "unlike ncu's at position 2); in all compared ranges rangereplay 9, ncu 8"), first
    assert "graph launches" in first


def test_ncu_with_more_kernels_than_the_report_fails():
    rep = report([rng(0, STEP)])
    theirs = nc.parse_ncu_csv(ncu_csv(STEP + STEP[:1]))
    c = mv.compare(rep, theirs, theirs)
    assert not c["ok"] and "rangereplay 3, ncu 4" in c["failures"][0], c["failures"]


def test_instruction_mismatch_fails_unless_ncu_disagrees_with_itself():
    mine = [("k", 1000.0, 4.0e6), ("l", 503.0, 1.0e6)]
    rep = report([rng(0, mine)])
    run1 = nc.parse_ncu_csv(ncu_csv([("k", 1000.0, 4.0e6), ("l", 500.0, 1.0e6)]))
    run2 = nc.parse_ncu_csv(ncu_csv([("k", 1000.0, 4.0e6), ("l", 502.0, 1.0e6)]))
    c = mv.compare(rep, run1, run2)
    # Spread 2: [498, 504] holds 503 (a nondeterministic kernel).
    assert c["ok"] and c["nondeterministic"] == 1 and c["inst_equal"] == 1, c
    assert abs(c["max_inst_rel_dev"] - 1 / 502) < 1e-12
    c = mv.compare(rep, run1, run1)
    assert not c["ok"] and c["outside_ncu_spread"] == 1
    assert c["failures"] == ["range 0 kernel 1 l: smsp__inst_executed.sum 503.0 vs ncu 500.0 / 500.0"], c["failures"]


def test_dram_judged_on_each_ranges_first_kernel_only():
    # Kernel 1 reads 40% less than under ncu's per-kernel flush (kernel 0 left its data in L2): information only.
    mine = [("k", 1000.0, 4.1e6), ("l", 500.0, 0.6e6)]
    ref = [("k", 1000.0, 4.0e6), ("l", 500.0, 1.0e6)]
    c = mv.compare(report([rng(0, mine)]), nc.parse_ncu_csv(ncu_csv(ref)), nc.parse_ncu_csv(ncu_csv(ref)))
    # 2.5% over on the cold kernel: outside 2% and outside 64 KiB.
    assert not c["ok"] and c["dram_cold"] == 1 and c["dram_cold_ok"] == 0 and c["dram_all_within_2pct"] == 0
    assert abs(c["max_dram_cold_rel_dev"] - 0.025) < 1e-9
    assert c["failures"] == ["range 0 kernel 0 k (cold in both): dram__bytes_read.sum 4100000.0 vs ncu 4000000.0 / "
                             "4000000.0 (over 2% and 64 KiB)"], c["failures"]
    # Either ncu run may be the nearer one; a small kernel passes within 64 KiB.
    run2 = nc.parse_ncu_csv(ncu_csv([("k", 1000.0, 4.09e6), ("l", 500.0, 1.0e6)]))
    assert mv.compare(report([rng(0, mine)]), nc.parse_ncu_csv(ncu_csv(ref)), run2)["ok"]
    small = [("k", 1000.0, 100_000.0)]
    assert mv.compare(report([rng(0, small)]), *[nc.parse_ncu_csv(ncu_csv([("k", 1000.0, 150_000.0)]))] * 2)["ok"]
    assert not mv.compare(report([rng(0, small)]), *[nc.parse_ncu_csv(ncu_csv([("k", 1000.0, 170_000.0)]))] * 2)["ok"]
    # --cache-control none: no kernel starts cold in rangereplay, none is judged on DRAM.
    c = mv.compare(report([rng(0, mine)], cache="none"), *[nc.parse_ncu_csv(ncu_csv(ref))] * 2)
    assert c["ok"] and c["dram_cold"] == 0


def test_names_that_differ_fail_and_nothing_compared_fails():
    c = mv.compare(report([rng(0, [("k", 1.0, 1.0)])]), *[nc.parse_ncu_csv(ncu_csv([("other", 1.0, 1.0)]))] * 2)
    assert not c["ok"] and any("names differ" in f for f in c["failures"]), c["failures"]
    c = mv.compare(report([rng(0, STEP, declined=True)]), *[nc.parse_ncu_csv(ncu_csv(STEP))] * 2)
    assert not c["ok"] and c["failures"] == ["no kernel compared: no replayed range with kernels (1 declined)"]


def test_ncu_runs_with_different_counts_fail():
    rep = report([rng(0, STEP)])
    c = mv.compare(rep, nc.parse_ncu_csv(ncu_csv(STEP)), nc.parse_ncu_csv(ncu_csv(STEP + STEP[:1])))
    assert not c["ok"] and c["failures"][0] == "ncu's two runs profiled 3 and 4 kernels in `step` ranges"


def test_table_and_status():
    rep = report([rng(i, STEP) for i in range(3)])
    theirs = nc.parse_ncu_csv(ncu_csv(STEP * 3))
    good = {"name": "jax_train", "status": "pass", "problems": [], "notes": [],
            "comparison": mv.compare(rep, theirs, theirs)}
    bad_c = mv.compare(report([rng(0, STEP)]), theirs, theirs)
    bad = {"name": "torch_compile", "status": "FAIL", "problems": bad_c["failures"], "notes": [], "comparison": bad_c}
    gone = {"name": "triton_autotune", "status": "unavailable", "problems": [], "notes": ["Triton not importable"]}
    table = mv.render_table([good, bad, gone], ["ml vs ncu: 3 programs"])
    lines = table.splitlines()
    row = next(l for l in lines if l.startswith("jax_train"))
    assert row.split()[:6] == ["jax_train", "pass", "3", "9/9", "9/9", "3/3"], row
    assert "triton_autotune          unavailable Triton not importable" in table
    assert "failures:" in table and "  torch_compile: kernel counts differ" in table
    assert lines[-1] == ("ml vs ncu: 1 of 3 programs passed (1 failed, 1 unavailable, 0 skipped); 12 kernels "
                         "compared, 12 with instruction counts equal to ncu's"), lines[-1]
    assert mv.suite_status([good]) == 0
    assert mv.suite_status([good, bad]) == 1
    assert mv.suite_status([good, gone]) == 0
    assert mv.suite_status([gone]) == 77
    assert mv.suite_status([{"name": "x", "status": "skipped", "problems": [], "notes": []}]) == 1


def test_dry_run_prints_commands_for_the_default_programs():
    import contextlib
    import io
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert mv.main(["--build", "/b", "--logs", "/l", "--dry-run", "--python", "py"]) == 0
    out = buf.getvalue().splitlines()
    names = [l.split(":")[0][2:] for l in out if l.startswith("# ")]
    assert names == ["jax_train", "jax_train.no_cmdbuf", "torch_compile", "triton_autotune"], names
    assert out[1] == ("  /b/tools/cli/rangereplay profile --nvtx-include step/ --metrics "
                      "smsp__inst_executed.sum,dram__bytes_read.sum -o /l/jax_train.profile.json -- py "
                      + os.path.join(HERE, "jax_train.py")), out[1]
    assert out[2].startswith("  ncu --clock-control none --nvtx --nvtx-include step/ --csv") and \
        out[2].endswith("(twice)")


def main():
    tests = [v for k, v in sorted(globals().items()) if k.startswith("test_") and callable(v)]
    for t in tests:
        t()
        print(f"ok  {t.__name__}")
    print(f"{len(tests)} tests passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
