"""CPU test of the pure helpers of run_workloads.py: the summary table, the
launch window of a range and the fidelity section's pairing of kernels (the
shared ncu helpers it uses are tested in tests/ncu/test_ncu_compare.py). It
runs no GPU, ncu or rangereplay (ncu's runs are replaced by fakes), so it is a
unit test (CTest label unit):

    python3 tests/workloads/test_run_workloads.py
"""
import os, sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run_workloads as rw  # noqa: E402  (puts tests/ncu/ on sys.path)

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

