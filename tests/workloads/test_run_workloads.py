"""CPU test of the pure helpers of run_workloads.py and bench/ncu_range.py:
the ncu CSV parsers, the metric filter for ncu's range replay, range sums,
the instruction and DRAM checks and the like-for-like speed comparison. It
runs no GPU, ncu or rangereplay (ncu's runs are replaced by fakes), so it is a
unit test (CTest label unit):

    python3 tests/workloads/test_run_workloads.py
"""
import os, sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run_workloads as rw  # noqa: E402  (puts bench/ on sys.path)
import ncu_range  # noqa: E402

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
    kept, dropped = ncu_range.range_replay_metrics(names)
    assert kept == ["gpu__time_duration.sum", "dram__bytes_read.sum", "lts__t_bytes.sum"], kept
    assert dropped == ["smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct", "ctc__rx_bytes_data_user.sum",
                       "smsp__sass_inst_executed_op_global_ld.sum", "ctc__tx_bytes_data_user.sum.per_second"], dropped
    assert ncu_range.range_replay_metrics([]) == ([], [])
    # `ctc__` only as a prefix: a name merely containing it is kept.
    assert ncu_range.range_replay_metrics(["xctc__a.sum"]) == (["xctc__a.sum"], [])


def test_metric_list_rejected_tells_a_refused_list_from_a_failed_app():
    assert ncu_range.metric_list_rejected(
        ["==ERROR== Metric smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct is not supported in range "
         "replay."])
    assert not ncu_range.metric_list_rejected(["==ERROR== The application returned an error code (1)."])
    assert not ncu_range.metric_list_rejected(["==WARNING== Unable to access the following 6 metrics: ctc__a.sum"])
    assert not ncu_range.metric_list_rejected([])


def test_parse_ncu_csv_reads_kernel_replay_after_app_output():
    text = "\n".join([
        "==PROF== Connected to process 4242 (/build/examples/stream)",
        "checksum a 0123", "checksums-done", "==PROF== Disconnected from process 4242", HEADER,
        row(1, "mul_kernel(double *)", "dram__bytes_read.sum", "4,605,952"),
        row(0, "copy_kernel(double *)", "dram__bytes_read.sum", "22,374,400"),
        row(0, "copy_kernel(double *)", "smsp__inst_executed.sum", "2,883,626", "inst"),
        row(1, "mul_kernel(double *)", "smsp__inst_executed.sum", "n/a", "inst"),
        "==WARNING== Note: Running with unmodified GPU clocks."])
    kernels = rw.parse_ncu_csv(text, "kernel")
    assert [k["id"] for k in kernels] == [0, 1]
    assert kernels[0] == {"id": 0, "name": "copy_kernel(double *)", "dram__bytes_read.sum": 22374400.0,
                          "smsp__inst_executed.sum": 2883626.0}, kernels[0]
    assert kernels[1] == {"id": 1, "name": "mul_kernel(double *)", "dram__bytes_read.sum": 4605952.0}, kernels[1]
    msg = raises(rw.NcuCsvError, rw.parse_ncu_csv, "==ERROR== No kernels were profiled.", "kernel")
    assert msg == 'ncu kernel CSV: no header row starting "ID" in its output (==ERROR== No kernels were profiled.)', msg


def test_ncu_ranges_reads_the_range_name_and_fails_clearly():
    text = "\n".join([HEADER, row(0, "step", "dram__bytes_read.sum", "139,587,584"),
                      row(0, "step", "smsp__inst_executed.sum", "17,213,035", "inst"),
                      row(1, "step", "dram__bytes_read.sum", "139,000,000"),
                      row(1, "step", "smsp__inst_executed.sum", "17,213,035", "inst")])
    ranges = rw.ncu_ranges(text)
    assert ranges == [{"id": 0, "name": "step", "dram__bytes_read.sum": 139587584.0,
                       "smsp__inst_executed.sum": 17213035.0},
                      {"id": 1, "name": "step", "dram__bytes_read.sum": 139000000.0,
                       "smsp__inst_executed.sum": 17213035.0}], ranges
    # A "Range Name" column instead of "Kernel Name" is accepted.
    renamed = text.replace('"Kernel Name"', '"Range Name"')
    assert [r["name"] for r in rw.ncu_ranges(renamed)] == ["step", "step"]
    msg = raises(rw.NcuCsvError, rw.ncu_ranges, "app output\n==ERROR== Range replay failed.\n")
    assert 'no header row starting "ID"' in msg and "==ERROR== Range replay failed." in msg, msg
    msg = raises(rw.NcuCsvError, rw.ncu_ranges, '"ID","Kernel Name","Metric Name"\n"0","step","x"\n')
    assert "header lacks Metric Value" in msg, msg
    msg = raises(rw.NcuCsvError, rw.ncu_ranges, HEADER + "\n==WARNING== nothing\n")
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
    sums = rw.range_sums(REPORT)
    assert [s["index"] for s in sums] == [0, 1, 2, 3, 4]
    assert sums[0] == {"index": 0, "name": "step", "declined": False, "kernels": 1,
                       "smsp__inst_executed.sum": 1.0, "dram__bytes_read.sum": 7.0}, sums[0]
    assert sums[1]["smsp__inst_executed.sum"] == 15.0 and sums[1]["dram__bytes_read.sum"] == 150.0
    assert sums[2]["declined"] and sums[2]["dram__bytes_read.sum"] is None
    assert sums[3]["dram__bytes_read.sum"] is None and sums[3]["smsp__inst_executed.sum"] == 2.0  # a kernel lacks it
    assert sums[4]["dram__bytes_read.sum"] == 4096.0 and sums[4]["smsp__inst_executed.sum"] == 12.0  # whole range
    assert rw.range_sums({"ranges": []}) == []


def test_within_spread_and_within_pct():
    assert rw.within_spread(100, 100, 100)
    assert not rw.within_spread(101, 100, 100)          # deterministic: equal or nothing
    assert rw.within_spread(95, 100, 105)               # lower bound: 100 - 5
    assert rw.within_spread(110, 100, 105)              # upper bound: 105 + 5
    assert not rw.within_spread(94, 105, 100) and not rw.within_spread(111, 100, 105)
    assert not rw.within_spread(None, 1, 1) and not rw.within_spread(1, None, 1)
    assert rw.within_pct(102.0, 100.0) and not rw.within_pct(102.5, 100.0) and rw.within_pct(98.0, 100.0)
    assert rw.within_pct(4096.0, 0.0) and not rw.within_pct(4097.0, 0.0)
    assert not rw.within_pct(None, 1.0) and not rw.within_pct(1.0, None)


def ncu_kernel(inst, dram=1000.0):
    return {"name": "k", "smsp__inst_executed.sum": inst, "dram__bytes_read.sum": dram}


def test_kernel_check_passes_a_mismatch_only_for_a_nondeterministic_kernel():
    ours = [{"name": "a", "smsp__inst_executed.sum": 100.0, "dram__bytes_read.sum": 1000.0},
            {"name": "b", "smsp__inst_executed.sum": 1015.0, "dram__bytes_read.sum": 500.0}]
    # kernel b: ncu's runs 1000 and 1010 (spread 10): 1015 is inside [990, 1020].
    check = rw.kernel_check(ours, [ncu_kernel(100.0), ncu_kernel(1000.0)], [ncu_kernel(100.0), ncu_kernel(1010.0)])
    assert check["ok"] and check["equal"] == 1 and check["compared"] == 2 and check["nondeterministic"] == 1
    assert check["outside_ncu_spread"] == 0
    assert abs(check["max_rel_dev"] - 5 / 1010) < 1e-12, check["max_rel_dev"]
    assert check["kernels"][1]["nondeterministic"] and not check["kernels"][1]["inst_equal"]
    assert check["dram_within_2pct_of_kernel_replay"] == 1  # information only: 500 vs 1000
    # the same 1% deviation on a kernel ncu counts the same twice fails.
    bad = rw.kernel_check(ours, [ncu_kernel(100.0), ncu_kernel(1010.0)], [ncu_kernel(100.0), ncu_kernel(1010.0)])
    assert not bad["ok"] and bad["outside_ncu_spread"] == 1 and bad["nondeterministic"] == 0
    # a kernel count that differs fails even when the common kernels agree.
    short = rw.kernel_check(ours[:1], [ncu_kernel(100.0)] * 2, [ncu_kernel(100.0)] * 2)
    assert not short["ok"] and short["compared"] == 1 and short["kernels_ncu"] == [2, 2]
    assert not rw.kernel_check([], [], [])["ok"]


def test_dram_range_check_compares_range_sums_with_ncu_ranges():
    sums = rw.range_sums(REPORT)[:3]  # ranges 0, 1 and 2 (declined)
    theirs = [{"name": "step", "dram__bytes_read.sum": 7.0, "smsp__inst_executed.sum": 1.0},
              {"name": "step", "dram__bytes_read.sum": 148.0, "smsp__inst_executed.sum": 15.0},
              {"name": "step", "dram__bytes_read.sum": 99.0, "smsp__inst_executed.sum": 9.0}]
    check = rw.dram_range_check(sums, theirs)
    assert check["ok"] and check["compared"] == 2 and check["within_2pct"] == 2, check
    assert abs(check["max_rel_dev"] - 2 / 148) < 1e-12
    assert check["ranges"][2] == {"index": 2, "declined": True}
    theirs[1]["dram__bytes_read.sum"] = 140.0  # 150 vs 140: 7.1%
    check = rw.dram_range_check(sums, theirs)
    assert not check["ok"] and check["within_2pct"] == 1 and not check["ranges"][1]["dram_within_2pct"]
    check = rw.dram_range_check(sums, theirs[:2])  # ncu profiled fewer ranges
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
    saved = ncu_range.ncu_range_replay
    try:
        ncu_range.ncu_range_replay, calls = fake_ncu([ok_ncu(10.0)])
        res = ncu_range.speed_against_ncu(["app"], {"wall_s": 20.0, "report": report}, profile)
        assert profiled == [["a.sum", "b.sum"]] and calls == [["a.sum", "b.sum"]]
        assert res["dropped"] == 2 and res["filtered_metrics"] == 2 and res["filtered_pass_count"] == 3
        assert res["rangereplay_s"] == 4.0 and res["ratio"] == 2.5 and res["like_for_like"]
        # nothing dropped: the --set run is already like for like, no extra run.
        profiled.clear()
        ncu_range.ncu_range_replay, calls = fake_ncu([ok_ncu(10.0)])
        res = ncu_range.speed_against_ncu(["app"], {"wall_s": 5.0, "report": {"metrics": ["a.sum"], "pass_count": 1}},
                                          profile)
        assert profiled == [] and res["ratio"] == 2.0 and res["filtered_pass_count"] == 1 and res["dropped"] == 0
        # ncu fell back to its own --set full: ratio against the set run, labelled.
        ncu_range.ncu_range_replay, calls = fake_ncu([ok_ncu(30.0, "ncu --set full")])
        res = ncu_range.speed_against_ncu(["app"], {"wall_s": 20.0, "report": report}, profile)
        assert not res["like_for_like"] and res["ratio"] == 1.5 and "NOT like for like" in res["ratio_basis"]
        # the application failed under ncu after the list was accepted: times still compared.
        ncu_range.ncu_range_replay, calls = fake_ncu(
            [ok_ncu(8.0, rc=1, errors=["==ERROR== The application returned an error code (1)."])])
        res = ncu_range.speed_against_ncu(["app"], {"wall_s": 20.0, "report": report}, profile)
        assert res["ncu_app_failed"] and res["ratio"] == 2.0
        # ncu failed otherwise: no ratio.
        ncu_range.ncu_range_replay, calls = fake_ncu([ok_ncu(8.0, rc=1, errors=["==ERROR== Failed to profile."])])
        res = ncu_range.speed_against_ncu(["app"], {"wall_s": 20.0, "report": report}, profile)
        assert "ratio" not in res and not res["ncu_app_failed"]
        # the extra rangereplay run failed: no ncu run.
        ncu_range.ncu_range_replay, calls = fake_ncu([])
        res = ncu_range.speed_against_ncu(["app"], {"wall_s": 20.0, "report": report}, lambda n: (1.0, None, "rc=2"))
        assert res["rangereplay_error"] == "rc=2" and calls == []
    finally:
        ncu_range.ncu_range_replay = saved


def test_summary_shows_the_new_columns():
    rec = {"name": "cub", "deterministic": True, "transparent": True, "divergences": 0,
           "fidelity": {"ok": True, "equal": 10, "compared": 20, "max_rel_dev": 0.0057},
           "ncu_range_replay": {"check": {"ok": True, "max_rel_dev": 0.004}},
           "ncu_range_replay_no_flush": {"check": {"ok": True, "max_rel_dev": 0.001}},
           "speed": {"filtered_metrics": 339, "dropped": 46, "filtered_pass_count": 31, "rangereplay_s": 20.0,
                     "ncu_s": 40.0, "ratio": 2.0, "ncu": {"metric_list": "same"}, "ncu_app_failed": True}}
    text = rw.summary([rec], None)
    lines = text.splitlines()
    assert "inst equal (n/N, max dev)" in lines[0] and "dram range sum within 2%" in lines[0]
    assert "ncu metrics (dropped)" in lines[0]
    for cell in ("yes 10/20, 0.570%", "yes 0.40% (no flush 0.10%)", "339 (46), 31 passes", "40.00!", "2.00x"):
        assert cell in lines[2], (cell, lines[2])
    assert lines[-1].startswith("! the application exited with an error")



def test_launch_window_takes_the_first_replayed_range_with_launch_numbers():
    report = {"ranges": [
        {"index": 0, "declined": True, "kernels": []},
        {"index": 1, "declined": False, "kernels": [{"launch_index": 907}, {"launch_index": 905}, {"launch_index": 906}]},
        {"index": 2, "declined": False, "kernels": [{"launch_index": 1400}]}]}
    assert rw.launch_window(report) == (1, 905, 3)
    graph_only = {"ranges": [{"index": 0, "declined": False, "kernels": [{"launch_index": -1}]}]}
    assert rw.launch_window(graph_only) is None
    old_report = {"ranges": [{"index": 0, "declined": False, "kernels": [{"index": 0}]}]}
    assert rw.launch_window(old_report) is None



def test_fidelity_launch_window_pairs_kernels_in_launch_order():
    # Two threads' launches recorded out of launch order (a at 6 before b at 5):
    # ncu's launch window lists b then a.
    def csv(rows):
        out = ['"ID","Kernel Name","Metric Name","Metric Unit","Metric Value"']
        for i, (n, inst) in enumerate(rows):
            out += [f'"{i}","{n}","smsp__inst_executed.sum","inst","{inst}"',
                    f'"{i}","{n}","dram__bytes_read.sum","byte","1"']
        return "\n".join(out)

    class FakeRunner:
        def ncu(self, cmd, extra, nvtx=True):
            if "--replay-mode" in extra:
                return {"rc": 1, "wall_s": 1.0, "stdout": "", "stderr": "no ranges"}
            rows = [("a", 10)] if nvtx else [("b", 20), ("a", 10)]
            return {"rc": 0, "wall_s": 1.0, "stdout": csv(rows), "stderr": ""}

    def kernel(i, name, inst, launch):
        return {"index": i, "mangled_name": name, "launch_index": launch,
                "metrics": [{"name": "smsp__inst_executed.sum", "value": inst},
                            {"name": "dram__bytes_read.sum", "value": 1}]}
    report = {"ranges": [{"index": 0, "name": "step/0", "declined": False,
                          "kernels": [kernel(0, "a", 10, 6), kernel(1, "b", 20, 5)]}]}
    rec, problems = {}, []
    rw.fidelity(FakeRunner(), "w", ["app"], report, rec, problems)
    assert rec["fidelity_basis"].startswith("range 0: launches 5..6")
    assert rec["inst_equal"] is True and rec["fidelity"]["equal"] == 2, rec["fidelity"]

def main():
    tests = [v for k, v in sorted(globals().items()) if k.startswith("test_") and callable(v)]
    for t in tests:
        t()
        print(f"ok  {t.__name__}")
    print(f"{len(tests)} tests passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())

