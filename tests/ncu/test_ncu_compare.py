"""CPU test of tests/ncu/ncu_compare.py, the helpers shared by the e2e test,
the workload suite and the benchmarks for comparing with ncu: its command
lines, the CSV parsers (on fake ncu output), the metric filter for ncu's range
replay, report sums, the instruction and DRAM checks and the like-for-like
speed comparison. It runs no GPU, ncu or rangereplay (ncu's runs are replaced
by fakes), so it is a unit test (CTest label unit):

    python3 tests/ncu/test_ncu_compare.py
"""
import os, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ncu_compare as nc  # noqa: E402

HEADER = ('"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size",'
          '"Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"')


def row(rid, name, metric, value, unit="byte"):
    return (f'"{rid}","4242","stream","host","{name}","1","7","(256, 1, 1)","(1024, 1, 1)","0","9.0",'
            f'"Command line profiler metrics","{metric}","{unit}","{value}"')


def raises(exc, fn, *args):
    try:
        fn(*args)
    except exc as e:
        return str(e)
    raise AssertionError(f"{fn.__name__} did not raise {exc.__name__}")


def test_range_replay_metrics_drops_sass_and_ctc_in_order():
    names = ["gpu__time_duration.sum", "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct",
             "ctc__rx_bytes_data_user.sum", "dram__bytes_read.sum", "smsp__sass_inst_executed_op_global_ld.sum",
             "lts__t_bytes.sum", "ctc__tx_bytes_data_user.sum.per_second"]
    kept, dropped = nc.range_replay_metrics(names)
    assert kept == ["gpu__time_duration.sum", "dram__bytes_read.sum", "lts__t_bytes.sum"], kept
    assert dropped == ["smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct", "ctc__rx_bytes_data_user.sum",
                       "smsp__sass_inst_executed_op_global_ld.sum", "ctc__tx_bytes_data_user.sum.per_second"], dropped
    assert nc.range_replay_metrics([]) == ([], [])
    # `ctc__` only as a prefix: a name merely containing it is kept.
    assert nc.range_replay_metrics(["xctc__a.sum"]) == (["xctc__a.sum"], [])


def test_metric_list_rejected_tells_a_refused_list_from_a_failed_app():
    assert nc.metric_list_rejected(
        ["==ERROR== Metric smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct is not supported in range "
         "replay."])
    assert not nc.metric_list_rejected(["==ERROR== The application returned an error code (1)."])
    assert not nc.metric_list_rejected(["==WARNING== Unable to access the following 6 metrics: ctc__a.sum"])
    assert not nc.metric_list_rejected([])


def test_parse_ncu_csv_reads_kernel_replay_after_app_output():
    text = "\n".join([
        "==PROF== Connected to process 4242 (/build/examples/stream)",
        "checksum a 0123", "checksums-done", "==PROF== Disconnected from process 4242", HEADER,
        row(1, "mul_kernel(double *)", "dram__bytes_read.sum", "4,605,952"),
        row(0, "copy_kernel(double *)", "dram__bytes_read.sum", "22,374,400"),
        row(0, "copy_kernel(double *)", "smsp__inst_executed.sum", "2,883,626", "inst"),
        row(1, "mul_kernel(double *)", "smsp__inst_executed.sum", "n/a", "inst"),
        "==WARNING== Note: Running with unmodified GPU clocks."])
    kernels = nc.parse_ncu_csv(text, "kernel")
    assert [k["id"] for k in kernels] == [0, 1]
    assert kernels[0] == {"id": 0, "name": "copy_kernel(double *)", "dram__bytes_read.sum": 22374400.0,
                          "smsp__inst_executed.sum": 2883626.0}, kernels[0]
    assert kernels[1] == {"id": 1, "name": "mul_kernel(double *)", "dram__bytes_read.sum": 4605952.0}, kernels[1]
    msg = raises(nc.NcuCsvError, nc.parse_ncu_csv, "==ERROR== No kernels were profiled.", "kernel")
    assert msg == 'ncu kernel CSV: no header row starting "ID" in its output (==ERROR== No kernels were profiled.)', msg


def test_ncu_ranges_reads_the_range_name_and_fails_clearly():
    text = "\n".join([HEADER, row(0, "step", "dram__bytes_read.sum", "139,587,584"),
                      row(0, "step", "smsp__inst_executed.sum", "17,213,035", "inst"),
                      row(1, "step", "dram__bytes_read.sum", "139,000,000"),
                      row(1, "step", "smsp__inst_executed.sum", "17,213,035", "inst")])
    ranges = nc.ncu_ranges(text)
    assert ranges == [{"id": 0, "name": "step", "dram__bytes_read.sum": 139587584.0,
                       "smsp__inst_executed.sum": 17213035.0},
                      {"id": 1, "name": "step", "dram__bytes_read.sum": 139000000.0,
                       "smsp__inst_executed.sum": 17213035.0}], ranges
    # A "Range Name" column instead of "Kernel Name" is accepted.
    renamed = text.replace('"Kernel Name"', '"Range Name"')
    assert [r["name"] for r in nc.ncu_ranges(renamed)] == ["step", "step"]
    msg = raises(nc.NcuCsvError, nc.ncu_ranges, "app output\n==ERROR== Range replay failed.\n")
    assert 'no header row starting "ID"' in msg and "==ERROR== Range replay failed." in msg, msg
    msg = raises(nc.NcuCsvError, nc.ncu_ranges, '"ID","Kernel Name","Metric Name"\n"0","step","x"\n')
    assert "header lacks Metric Value" in msg, msg
    msg = raises(nc.NcuCsvError, nc.ncu_ranges, HEADER + "\n==WARNING== nothing\n")
    assert "no range row" in msg, msg


def kernel(index, inst, dram):
    metrics = [{"name": "smsp__inst_executed.sum", "unit": "inst", "value": inst}]
    if dram is not None:
        metrics.append({"name": "dram__bytes_read.sum", "unit": "byte", "value": dram})
    return {"index": index, "mangled_name": f"_Z{index}k", "metrics": metrics}


REPORT = {"ranges": [
    {"index": 1, "name": "step", "declined": False, "kernels": [kernel(0, 10.0, 100.0), kernel(1, 5.0, 50.0)]},
    {"index": 0, "name": "step", "declined": False, "kernels": [kernel(0, 1.0, 7.0)]},
    {"index": 2, "name": "step", "declined": True, "decline_reason": "too_large", "kernels": []},
    {"index": 3, "name": "step", "declined": False, "kernels": [kernel(0, 2.0, None)]},
    {"index": 4, "name": "step", "declined": False, "kernels": [],
     "range_metrics": [{"name": "dram__bytes_read.sum", "value": 4096.0},
                       {"name": "smsp__inst_executed.sum", "value": 12.0}]}]}


def test_range_sums_adds_each_ranges_kernels_in_index_order():
    sums = nc.range_sums(REPORT)
    assert [s["index"] for s in sums] == [0, 1, 2, 3, 4]
    assert sums[0] == {"index": 0, "name": "step", "declined": False, "kernels": 1,
                       "smsp__inst_executed.sum": 1.0, "dram__bytes_read.sum": 7.0}, sums[0]
    assert sums[1]["smsp__inst_executed.sum"] == 15.0 and sums[1]["dram__bytes_read.sum"] == 150.0
    assert sums[2]["declined"] and sums[2]["dram__bytes_read.sum"] is None
    assert sums[3]["dram__bytes_read.sum"] is None and sums[3]["smsp__inst_executed.sum"] == 2.0  # a kernel lacks it
    assert sums[4]["dram__bytes_read.sum"] == 4096.0 and sums[4]["smsp__inst_executed.sum"] == 12.0  # whole range
    assert nc.range_sums({"ranges": []}) == []


def test_within_spread_and_within_pct():
    assert nc.within_spread(100, 100, 100)
    assert not nc.within_spread(101, 100, 100)          # deterministic: equal or nothing
    assert nc.within_spread(95, 100, 105)               # lower bound: 100 - 5
    assert nc.within_spread(110, 100, 105)              # upper bound: 105 + 5
    assert not nc.within_spread(94, 105, 100) and not nc.within_spread(111, 100, 105)
    # Runs close together: 0.1% of the larger widens them (the gemm of jax_train: 928152 vs 927864 / 927692).
    assert nc.within_spread(928152, 927864, 927692)
    assert nc.within_spread(927864 + 927, 927864, 927863) and not nc.within_spread(927864 + 929, 927864, 927863)
    assert not nc.within_spread(None, 1, 1) and not nc.within_spread(1, None, 1)
    assert nc.within_pct(102.0, 100.0) and not nc.within_pct(102.5, 100.0) and nc.within_pct(98.0, 100.0)
    assert nc.within_pct(4096.0, 0.0) and not nc.within_pct(4097.0, 0.0)
    assert not nc.within_pct(None, 1.0) and not nc.within_pct(1.0, None)


def ncu_kernel(inst, dram=1000.0):
    return {"name": "k", "smsp__inst_executed.sum": inst, "dram__bytes_read.sum": dram}


def test_kernel_check_passes_a_mismatch_only_for_a_nondeterministic_kernel():
    ours = [{"name": "a", "smsp__inst_executed.sum": 100.0, "dram__bytes_read.sum": 1000.0},
            {"name": "b", "smsp__inst_executed.sum": 1015.0, "dram__bytes_read.sum": 500.0}]
    # kernel b: ncu's runs 1000 and 1010 (spread 10): 1015 is inside [990, 1020].
    check = nc.kernel_check(ours, [ncu_kernel(100.0), ncu_kernel(1000.0)], [ncu_kernel(100.0), ncu_kernel(1010.0)])
    assert check["ok"] and check["equal"] == 1 and check["compared"] == 2 and check["nondeterministic"] == 1
    assert check["outside_ncu_spread"] == 0
    assert abs(check["max_rel_dev"] - 5 / 1010) < 1e-12, check["max_rel_dev"]
    assert check["kernels"][1]["nondeterministic"] and not check["kernels"][1]["inst_equal"]
    assert check["dram_within_2pct_of_kernel_replay"] == 1  # information only: 500 vs 1000
    # the same 1% deviation on a kernel ncu counts the same twice fails.
    bad = nc.kernel_check(ours, [ncu_kernel(100.0), ncu_kernel(1010.0)], [ncu_kernel(100.0), ncu_kernel(1010.0)])
    assert not bad["ok"] and bad["outside_ncu_spread"] == 1 and bad["nondeterministic"] == 0
    # a kernel count that differs fails even when the common kernels agree.
    short = nc.kernel_check(ours[:1], [ncu_kernel(100.0)] * 2, [ncu_kernel(100.0)] * 2)
    assert not short["ok"] and short["compared"] == 1 and short["kernels_ncu"] == [2, 2]
    assert not nc.kernel_check([], [], [])["ok"]


def test_dram_range_check_compares_range_sums_with_ncu_ranges():
    sums = nc.range_sums(REPORT)[:3]  # ranges 0, 1 and 2 (declined)
    theirs = [{"name": "step", "dram__bytes_read.sum": 7.0, "smsp__inst_executed.sum": 1.0},
              {"name": "step", "dram__bytes_read.sum": 148.0, "smsp__inst_executed.sum": 15.0},
              {"name": "step", "dram__bytes_read.sum": 99.0, "smsp__inst_executed.sum": 9.0}]
    check = nc.dram_range_check(sums, theirs)
    assert check["ok"] and check["compared"] == 2 and check["within_2pct"] == 2, check
    assert abs(check["max_rel_dev"] - 2 / 148) < 1e-12
    assert check["ranges"][2] == {"index": 2, "declined": True}
    theirs[1]["dram__bytes_read.sum"] = 140.0  # 150 vs 140: 7.1%
    check = nc.dram_range_check(sums, theirs)
    assert not check["ok"] and check["within_2pct"] == 1 and not check["ranges"][1]["dram_within_2pct"]
    check = nc.dram_range_check(sums, theirs[:2])  # ncu profiled fewer ranges
    assert not check["ok"] and check["ranges_ncu"] == 2 and check["ranges_rangereplay"] == 3


def fake_ncu(results):
    calls = []
    def run(app_cmd, metrics, nvtx_include="step/", timeout=600):
        calls.append(list(metrics))
        return dict(results.pop(0))
    return run, calls


def ok_ncu(wall, metric_list="same", rc=0, errors=()):
    return {"rc": rc, "wall_s": wall, "metric_list": metric_list, "errors": list(errors), "warnings": [],
            "stderr_tail": ""}


def test_speed_against_ncu_gives_both_tools_the_filtered_list():
    report = {"metrics": ["a.sum", "smsp__sass_x.sum", "ctc__rx.sum", "b.sum"], "pass_count": 9}
    profiled = []
    def profile(names):
        profiled.append(list(names))
        return 4.0, {"pass_count": 3}, ""
    saved = nc.ncu_range_replay
    try:
        nc.ncu_range_replay, calls = fake_ncu([ok_ncu(10.0)])
        res = nc.speed_against_ncu(["app"], {"wall_s": 20.0, "report": report}, profile)
        assert profiled == [["a.sum", "b.sum"]] and calls == [["a.sum", "b.sum"]]
        assert res["dropped"] == 2 and res["filtered_metrics"] == 2 and res["filtered_pass_count"] == 3
        assert res["rangereplay_s"] == 4.0 and res["ratio"] == 2.5 and res["like_for_like"]
        # nothing dropped: the --set run is already like for like, no extra run.
        profiled.clear()
        nc.ncu_range_replay, calls = fake_ncu([ok_ncu(10.0)])
        res = nc.speed_against_ncu(["app"], {"wall_s": 5.0, "report": {"metrics": ["a.sum"], "pass_count": 1}},
                                          profile)
        assert profiled == [] and res["ratio"] == 2.0 and res["filtered_pass_count"] == 1 and res["dropped"] == 0
        # ncu fell back to its own --set full: ratio against the set run, labelled.
        nc.ncu_range_replay, calls = fake_ncu([ok_ncu(30.0, "ncu --set full")])
        res = nc.speed_against_ncu(["app"], {"wall_s": 20.0, "report": report}, profile)
        assert not res["like_for_like"] and res["ratio"] == 1.5 and "NOT like for like" in res["ratio_basis"]
        # the application failed under ncu after the list was accepted: times still compared.
        nc.ncu_range_replay, calls = fake_ncu(
            [ok_ncu(8.0, rc=1, errors=["==ERROR== The application returned an error code (1)."])])
        res = nc.speed_against_ncu(["app"], {"wall_s": 20.0, "report": report}, profile)
        assert res["ncu_app_failed"] and res["ratio"] == 2.0
        # ncu failed otherwise: no ratio.
        nc.ncu_range_replay, calls = fake_ncu([ok_ncu(8.0, rc=1, errors=["==ERROR== Failed to profile."])])
        res = nc.speed_against_ncu(["app"], {"wall_s": 20.0, "report": report}, profile)
        assert "ratio" not in res and not res["ncu_app_failed"]
        # the extra rangereplay run failed: no ncu run.
        nc.ncu_range_replay, calls = fake_ncu([])
        res = nc.speed_against_ncu(["app"], {"wall_s": 20.0, "report": report}, lambda n: (1.0, None, "rc=2"))
        assert res["rangereplay_error"] == "rc=2" and calls == []
    finally:
        nc.ncu_range_replay = saved


def test_command_lines_leave_the_clocks_alone():
    app = ["/build/examples/stream", "--iterations", "2"]
    assert nc.ncu_csv_command(app, nc.FIDELITY_METRICS) == [
        "ncu", "--clock-control", "none", "--nvtx", "--nvtx-include", "step/", "--csv", "--print-units", "base",
        "--metrics", "smsp__inst_executed.sum,dram__bytes_read.sum", "/build/examples/stream", "--iterations", "2"]
    # No NVTX filter: the launches are selected by the extra options, which come before --metrics.
    assert nc.ncu_csv_command(app, ["a.sum"], ["--launch-skip", "5", "--launch-count", "2"], None) == [
        "ncu", "--clock-control", "none", "--csv", "--print-units", "base", "--launch-skip", "5", "--launch-count",
        "2", "--metrics", "a.sum"] + app
    assert nc.ncu_csv_command(app, ["a.sum"], ["--replay-mode", "range"])[:9] == [
        "ncu", "--clock-control", "none", "--nvtx", "--nvtx-include", "step/", "--csv", "--print-units", "base"]
    assert nc.ncu_range_replay_command(app, ["--set", "full"], "iter/") == [
        "ncu", "--clock-control", "none", "--replay-mode", "range", "--nvtx", "--nvtx-include", "iter/", "--set",
        "full"] + app


def test_report_kernels_lists_replayed_kernels_in_report_order():
    kernels = nc.report_kernels(REPORT)
    assert [(k["range"], k["kernel"]) for k in kernels] == [(1, 0), (1, 1), (0, 0), (3, 0)], kernels
    assert kernels[0] == {"range": 1, "kernel": 0, "name": "_Z0k", "launch_index": -1,
                          "smsp__inst_executed.sum": 10.0, "dram__bytes_read.sum": 100.0}, kernels[0]
    assert "dram__bytes_read.sum" not in kernels[3]
    assert nc.kernel_values(REPORT["ranges"][0]["kernels"][1]) == {"smsp__inst_executed.sum": 5.0,
                                                                   "dram__bytes_read.sum": 50.0}


DETAILS_HEADER = HEADER + ',"Rule Name","Rule Type","Rule Description","Estimated Speedup Type","Estimated Speedup"'


def details_row(rid, section, metric, unit, value, rule=("", "", "")):
    return (f'"{rid}","4242","stream","host","k{rid}(double*)","1","7","(256, 1, 1)","(1024, 1, 1)","0","9.0",'
            f'"{section}","{metric}","{unit}","{value}","{rule[0]}","{rule[1]}","{rule[2]}","",""')


def test_ncu_sol_verdicts_read_the_rule_text_else_the_percentages():
    sol = nc.SOL_SECTION
    rules = {
        0: "Memory is more heavily utilized than Compute: Look at the Memory Workload Analysis section.",
        1: ("This workload is utilizing greater than 80.0% of the available compute or memory performance of this "
            "device. To further improve performance, work will likely need to be shifted from the most utilized to "
            "another unit. Start by analyzing workloads in the Compute Workload Analysis section."),
        2: ("This workload exhibits low compute throughput and memory bandwidth utilization relative to the peak "
            "performance of this device. Achieved compute throughput and/or memory bandwidth below 60.0% of peak "
            "typically indicate latency issues."),
        3: "Compute and Memory are well-balanced: To reduce runtime, both ...",
    }
    lines = ["==PROF== Connected to process 4242", DETAILS_HEADER]
    for rid, (compute, memory) in enumerate([(20, 91.5), (88, 40), (12, 30), (75, 74), (65, 95)]):
        lines.append(details_row(rid, sol, nc.SOL_COMPUTE, "%", compute))
        lines.append(details_row(rid, sol, nc.SOL_MEMORY, "%", memory))
        # The Memory Workload Analysis section's "Memory Throughput" is a bandwidth: not the headline.
        lines.append(details_row(rid, "Memory Workload Analysis", nc.SOL_MEMORY, "Gbyte/s", "3,210.00"))
        if rid in rules:
            lines.append(details_row(rid, "SpeedOfLight", "", "", "", (nc.SOL_RULE, "OPT", rules[rid])))
    # Kernel 4 has no rule row: the higher throughput, memory, decides.
    got = nc.ncu_sol_verdicts("\n".join(lines) + "\n==WARNING== done\n")
    assert [k["verdict"] for k in got] == ["memory", "compute", "latency", "balanced", "memory"], got
    assert [k["source"] for k in got] == ["rule"] * 4 + ["percentages"], got
    assert (got[0]["compute_pct"], got[0]["memory_pct"]) == (20.0, 91.5), got[0]
    assert got[0]["name"] == "k0(double*)" and got[4]["rule"] is None
    # Without rule columns (ncu before 2023), the percentages decide.
    old = [HEADER] + [row(0, "k", nc.SOL_COMPUTE, 30, "%").replace("Command line profiler metrics", sol),
                      row(0, "k", nc.SOL_MEMORY, 59.9, "%").replace("Command line profiler metrics", sol)]
    got = nc.ncu_sol_verdicts("\n".join(old))
    assert [(k["verdict"], k["source"]) for k in got] == [("latency", "percentages")], got
    assert nc.sol_verdict_from_percentages(60, 59) == "compute"
    assert nc.sol_verdict_from_percentages(61, 61) == "memory"
    assert nc.sol_verdict_from_percentages(None, 61) is None
    assert nc.sol_verdict_from_rule("something new") is None
    assert "no header" in raises(nc.NcuCsvError, nc.ncu_sol_verdicts, "==ERROR== The application returned an error")
    assert "no kernel" in raises(nc.NcuCsvError, nc.ncu_sol_verdicts, DETAILS_HEADER + "\n" +
                                 details_row(0, "Launch Statistics", "Block Size", "", "256"))
    cmd = nc.ncu_full_set_command(["./app", "--iterations", "1"])
    assert cmd[:3] == ["ncu", "--clock-control", "none"] and cmd[-3:] == ["./app", "--iterations", "1"], cmd
    assert "--set" in cmd and cmd[cmd.index("--set") + 1] == "full" and "--csv" in cmd, cmd


def test_ncu_messages_keeps_errors_and_warnings_up_to_the_limit():
    text = "app line\n==PROF== Connected\n==WARNING== w1\n==ERROR== e1\n  ==ERROR== indented\n==ERROR== e2\n"
    assert nc.ncu_messages(text) == ["==WARNING== w1", "==ERROR== e1", "==ERROR== e2"]
    assert nc.ncu_messages(text, limit=2) == ["==WARNING== w1", "==ERROR== e1"]


def fake_timed_runs(results):
    calls = []
    def run(cmd, timeout):
        calls.append(list(cmd))
        return results.pop(0)
    return run, calls


def test_ncu_range_replay_falls_back_to_set_full_only_for_a_refused_list():
    saved = nc.timed_run
    app = ["app", "-n", "1"]
    try:
        nc.timed_run, calls = fake_timed_runs([(0, 3.0, "==WARNING== Unable to access ctc__a.sum\n", "")])
        res = nc.ncu_range_replay(app, ["a.sum", "b.sum"], timeout=9)
        assert calls == [nc.ncu_range_replay_command(app, ["--metrics", "a.sum,b.sum"])]
        assert res == {"rc": 0, "wall_s": 3.0, "metric_list": "same", "errors": [], "stderr_tail": "",
                       "warnings": ["==WARNING== Unable to access ctc__a.sum"]}, res
        # The list refused: one more run with ncu's own --set full, timed instead.
        refused = "==ERROR== Metric smsp__sass_x.pct is not supported in range replay\n"
        nc.timed_run, calls = fake_timed_runs([(1, 0.5, refused, ""), (0, 7.0, "", "")])
        res = nc.ncu_range_replay(app, ["smsp__sass_x.pct"])
        assert calls[1] == nc.ncu_range_replay_command(app, ["--set", "full"])
        assert res["rc"] == 0 and res["wall_s"] == 7.0 and res["metric_list"] == "ncu --set full"
        assert res["errors"] == ["==ERROR== Metric smsp__sass_x.pct is not supported in range replay"], res
        # The application failed (not the list): no second run; no ncu line: the output's tail.
        nc.timed_run, calls = fake_timed_runs([(1, 2.0, "==ERROR== The application returned an error code (1).\n",
                                                "")])
        res = nc.ncu_range_replay(app, ["a.sum"])
        assert len(calls) == 1 and res["metric_list"] == "same" and res["rc"] == 1
        nc.timed_run, calls = fake_timed_runs([(None, 9.0, "", "timed out after 9 s")])
        res = nc.ncu_range_replay(app, ["a.sum"], timeout=9)
        assert res["rc"] is None and res["errors"] == ["timed out after 9 s"], res
    finally:
        nc.timed_run = saved


def main():
    tests = [v for k, v in sorted(globals().items()) if k.startswith("test_") and callable(v)]
    for t in tests:
        t()
        print(f"ok  {t.__name__}")
    print(f"{len(tests)} tests passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
