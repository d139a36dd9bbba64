"""CPU test of run_corpus.py: the program list (the three sources,
cuda-samples, Rodinia and HeCBench, with their defaults), verdict and output
parsing, report summaries, the judgement of tool runs against plain runs, the
table, the process-group time limit, extraction from a bare git repository (a
mirror lacking files included, a program's extra folders), build lines, input
generators, prepare with any of the sources, and the one-line input errors. No GPU, rangereplay build or cuda-samples
needed (CTest label unit):

    python3 tests/corpus/test_run_corpus.py
    python3 -m unittest discover -s tests/corpus -p 'test_*.py'
"""
import contextlib
import glob
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
from unittest import mock

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run_corpus as rc  # noqa: E402

# Features the corpus must cover (the brief's list).
REQUIRED_FEATURES = {
    "stream-capture", "conditional-nodes", "graph-memory-nodes", "explicit-graph", "streams-events", "many-streams",
    "managed-memory", "host-threads", "openmp", "stream-attach", "zero-copy", "pinned-memory", "atomics",
    "system-atomics", "device-globals", "cooperative-launch", "dynamic-parallelism", "nvrtc", "large-kernel-params",
    "stream-ordered-alloc", "tensor-cores", "thrust", "cublas", "cufft", "cusparse", "cusolver", "curand",
    "profiler-api", "texture-objects", "constant-memory", "stream-priorities", "cross-stream-events",
}


def program(**kw):
    """A checked program entry as load_programs returns it."""
    base = {"name": "p", "path": "Samples/x/p", "sources": ["p.cu"], "features": ["atomics"],
            "selections": [{"args": ["--kernel-range", "0:1"]}], "pass": "Test passed", "fail": "Test failed",
            "deterministic": True}
    base.update(kw)
    doc = {"commit": "c" * 40, "defaults": {"fail": "CUDA error at \\S+:\\d+ code=", "ignore": "(?i:time)"},
           "programs": [base]}
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(doc, f)
    try:
        return rc.load_programs(f.name)["programs"][0]
    finally:
        os.unlink(f.name)


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def read(path):
    with open(path) as f:
        return f.read()


def run_rec(label="tool", exit=0, verdict="PASS", compared=("a",), hung=False, report=None, report_problem="",
            stage=""):
    return {"label": label, "exit": exit, "verdict": verdict, "compared": list(compared), "hung": hung,
            "wall_s": 1.0, "report": report, "report_problem": report_problem, "report_path": "/l/p.json",
            "stage": stage, "stdout": "/l/p.stdout"}


REPORT = {
    "schema_version": 1, "pass_count": 9, "verify": True, "errors": [],
    "ranges": [
        {"index": 0, "name": "kernels 0:2", "declined": False, "decline_reason": "", "decline_detail": "", "passes": 9,
         "kernels": [{"index": 0, "name": "reduce(float*)", "mangled_name": "_Z6reducePf", "launch_index": 0},
                     {"index": 1, "name": "final(float*)", "mangled_name": "_Z5finalPf", "launch_index": 1}],
         "pass_records": [{"pass": 1, "restored_bytes": 4, "divergences": []},
                          {"pass": 2, "restored_bytes": 4,
                           "divergences": [{"address": 4096, "size_bytes": 1048576, "origin": "cudaMalloc"}]}],
         "notes": ["a note"]},
        {"index": 1, "name": "kernels 5:6", "declined": True, "decline_reason": "stream_capture_active",
         "decline_detail": "cuStreamBeginCapture", "passes": 0, "kernels": [], "pass_records": [], "notes": []},
    ],
}


class ProgramList(unittest.TestCase):
    def test_programs_json_is_valid_and_covers_the_features(self):
        doc = rc.load_programs()
        programs = doc["programs"]
        self.assertGreaterEqual(len(programs), 25)
        self.assertRegex(doc["commit"], r"^[0-9a-f]{40}$")
        covered = {f for p in programs for f in p["features"]}
        self.assertEqual(REQUIRED_FEATURES - covered, set())
        names = [p["name"] for p in programs]
        self.assertEqual(len(names), len(set(names)))
        for p in programs:
            self.assertTrue(p["selections"], p["name"])
            for s in p["selections"]:
                self.assertTrue(s.get("why"), f"{p['name']}: every selection says why it lands where it does")
            self.assertIn("-arch=sm_90", p["nvcc_all"])
            if p["source"] == "cuda-samples":
                self.assertTrue(any("{common}" in f for f in p["nvcc_all"]), p["name"])
        hang = [p["name"] for p in programs if p.get("hang_repro")]
        self.assertEqual(hang, ["UnifiedMemoryStreams"])
        # Programs built from the same folder with other arguments keep their own names.
        zc = [p for p in programs if p["path"].endswith("simpleZeroCopy")]
        self.assertEqual(sorted(p["name"] for p in zc), ["simpleZeroCopy", "simpleZeroCopy_generic"])

    def test_rodinia_programs_are_pinned_and_built_for_cuda_13(self):
        doc = rc.load_programs()
        rodinia = doc["source_defs"]["rodinia"]
        self.assertRegex(rodinia["commit"], r"^[0-9a-f]{40}$")
        self.assertEqual(rodinia["repository"], "https://github.com/yuhc/gpu-rodinia")
        progs = [p for p in doc["programs"] if p["source"] == "rodinia"]
        self.assertTrue(6 <= len(progs) <= 10, [p["name"] for p in progs])
        for p in progs:
            self.assertTrue(p["path"].startswith("cuda/"), p["name"])
            # Rodinia's own defaults, not the samples' (no Common/ folder there).
            self.assertFalse(any("{common}" in f for f in p["nvcc_all"]), p["name"])
            self.assertIn("-DcudaThreadSynchronize=cudaDeviceSynchronize", p["nvcc_all"])
            self.assertIn("features", p)
            self.assertIn("rodinia", p["features"])
            # Rodinia has no NVTX ranges: kernel windows only.
            for sel in p["selections"]:
                self.assertEqual(sel["args"][0], "--kernel-range", p["name"])
            # The Rodinia default fail pattern applies on top of the program's own.
            self.assertEqual(rc.verdict(p, "", "Cuda error in file 'x.cu' in line 3 : out of memory.\n"), "FAIL")
        # At least one window spans copies or allocations between kernels.
        spans = [p["name"] for p in progs if any("cudaMemcpy" in s.get("why", "") and ":" in s["args"][1]
                                                 for s in p["selections"])]
        self.assertIn("srad_v2", spans)
        # No data set: inputs are generated (lud -s, gaussian -s) or made by the generator prepare runs (nn).
        by_name = {p["name"]: p for p in progs}
        self.assertEqual(by_name["nn"]["generate"]["outputs"], ["data/cane1_0.db"])
        self.assertIn("data/cane1_0.db", by_name["nn"]["files"]["filelist.txt"])
        self.assertEqual(rc.verdict(by_name["lud"], ">>>Verify<<<<\ndismatch at (1, 0): (o)9.9 (n)99.9\n", ""), "FAIL")
        self.assertEqual(rc.verdict(by_name["lud"], ">>>Verify<<<<\n", ""), "-")

    def test_hecbench_programs_are_pinned_and_built_as_their_makefiles(self):
        doc = rc.load_programs()
        hec = doc["source_defs"]["hecbench"]
        self.assertRegex(hec["commit"], r"^[0-9a-f]{40}$")
        self.assertEqual(hec["repository"], "https://github.com/zjin-lcf/HeCBench")
        progs = [p for p in doc["programs"] if p["source"] == "hecbench"]
        self.assertTrue(12 <= len(progs) <= 18, [p["name"] for p in progs])
        # After the samples and Rodinia's in the list (gpu-check's budget skips the last ones).
        sources = [p["source"] for p in doc["programs"]]
        self.assertEqual(sources.index("hecbench"), len(sources) - len(progs))
        for p in progs:
            # Named by the HeCBench folder, binary main, the Makefiles' -O3 and C++17, sm_90.
            self.assertEqual(p["path"], "src/" + p["name"], p["name"])
            self.assertTrue(p["name"].endswith("-cuda"), p["name"])
            self.assertEqual(p["exe"], "main", p["name"])
            self.assertEqual(p["nvcc_all"][:4], ["-O3", "-std=c++17", "-arch=sm_90", "-Wno-deprecated-gpu-targets"])
            self.assertFalse(any("{common}" in f for f in p["nvcc_all"]), p["name"])
            self.assertIn("hecbench", p["features"])
            self.assertGreaterEqual(len(p["features"]), 3, p["name"])
            self.assertTrue(p.get("notes", "").startswith("Brings: "), p["name"])
            # No NVTX ranges or profiler calls in HeCBench: kernel windows only.
            for sel in p["selections"]:
                self.assertEqual(sel["args"][0], "--kernel-range", p["name"])
            # HeCBench's default fail pattern applies on top of the program's own.
            self.assertEqual(rc.verdict(p, "", "CUDA Error = 2: out of memory from file x.cu, line 3\n"), "FAIL")
            self.assertEqual(rc.verdict(p, "GPUassert: invalid argument x.cu 12\n", ""), "FAIL")
        by_name = {p["name"]: p for p in progs}
        # Between them: the patterns the brief asked for that HeCBench has.
        covered = {f for p in progs for f in p["features"]}
        for f in ("stream-capture", "streams-events", "pinned-memory", "managed-memory", "constant-memory",
                  "device-globals", "texture-objects", "host-threads", "openmp", "atomics", "cublas", "cufft",
                  "curand", "cusparse", "thrust"):
            self.assertIn(f, covered)
        # A header from a sibling folder: extracted with the program, named with {root}.
        omp = by_name["openmp-cuda"]
        self.assertEqual(omp["extract"], ["src/openmp-omp"])
        self.assertIn("-I{root}/src/openmp-omp", omp["nvcc_all"])
        self.assertEqual(rc.source_paths([omp, by_name["overlap-cuda"]], "hecbench"),
                         ["src/openmp-cuda", "src/openmp-omp", "src/overlap-cuda"])
        # Data from the repository itself (no download).
        self.assertEqual(by_name["opticalFlow-cuda"]["data"], ["data/frame10.ppm", "data/frame11.ppm"])
        cases = {
            "graphExecution-cuda": ("PASS\nExecution time of using Graph: 3.0 (us)\n", "PASS\nFAIL\n"),
            "streamPriority-cuda": ("PASS\nPASS\n", "CUDA main.cu:88  invalid argument\n"),
            "spmv-cuda": ("Error rate: 0.000000\nError rate: 0.000012\n",
                          "Error rate: 0.000000\nError rate: 0.010000\n"),
            "histogram-cuda": ("Shared memory atomics \tPASS\n", "Global memory atomics \tFAIL\n"),
            "atomicCAS-cuda": ("PASS\n", "atomic add results: 1 2 3.000000\nFAIL\n"),
            "opticalFlow-cuda": ("L1 error : 0.044326\n", "Invalid file format\n"),
            "mrg32k3a-cuda": ("PASS\n", "curand error 102 at main.cu:85\n"),
        }
        for name, (good, bad) in cases.items():
            self.assertEqual(rc.verdict(by_name[name], good, ""), "PASS", name)
            self.assertEqual(rc.verdict(by_name[name], bad, ""), "FAIL", name)
        self.assertEqual(rc.verdict(by_name["collision-cuda"], "Error: numDups=3 expected=0 mask=1\n", ""), "FAIL")
        self.assertEqual(rc.verdict(by_name["collision-cuda"], "Average execution time: 1.0 (us)\n", ""), "-")
        # Lines printed without a unit word are left out of the comparison.
        speedup = " Avg. speedup gained (serialized - overlapped)\t: 0.5\nPASS\n"
        self.assertEqual(rc.compared_output(by_name["overlap-cuda"], speedup), ["PASS"])
        self.assertEqual(rc.compared_output(by_name["openmp-cuda"], "Work took 0.1 seconds with 4 CPU threads\nPASS\n"),
                         ["PASS"])
        self.assertEqual(rc.compared_output(by_name["blas-gemmEx-cuda"], "12.5 TFLOP/s\n9.1 TOP/s\nint8: 1.0\n"),
                         ["int8: 1.0"])

    def test_readme_lists_every_program(self):
        readme = read(os.path.join(HERE, "README.md"))
        for p in rc.load_programs()["programs"]:
            self.assertIn(f"| `{p['name']}`", readme, "tests/corpus/README.md's program table lacks it")

    def test_every_pass_and_fail_pattern_matches_its_own_kind_of_line(self):
        by_name = {p["name"]: p for p in rc.load_programs()["programs"]}
        cases = {
            "jacobiCudaGraphs": ("&&&& jacobiCudaGraphs PASSED", "&&&& jacobiCudaGraphs FAILED"),
            "batchCUBLAS": ("Test Summary\n0 error(s)\n", "@@@@ sgemm test FAIL"),
            "streamOrderedAllocation": ("basicStreamOrderedAllocation PASSED\nx\nstreamOrderedAllocationPostSync PASSED",
                                        "CUDA error at a.cu:12 code=2(cudaErrorMemoryAllocation) \"x\""),
            "simpleCallback": ("Success", "Failure"),
            "matrixMul": ("Result = PASS", "Result = FAIL"),
            "simpleStreams": (None, "1234: 7 50"),
        }
        for name, (good, bad) in cases.items():
            p = by_name[name]
            if good is not None:
                self.assertEqual(rc.verdict(p, good, ""), "PASS", name)
            self.assertEqual(rc.verdict(p, bad, ""), "FAIL", name)
        # Only the pair of lines passes streamOrderedAllocation.
        self.assertEqual(rc.verdict(by_name["streamOrderedAllocation"], "streamOrderedAllocationPostSync PASSED", ""),
                         "NOPASS")

    def test_kernel_range_rules_follow_the_launcher(self):
        self.assertEqual(rc.parse_kernel_range("0:1,1:2,10:20"), [(0, 1), (1, 2), (10, 20)])
        for bad, words in (("5:5", "not after"), ("5:3", "not after"), ("0:4,2:6", "overlaps"), ("4:6,0:2", "overlaps"),
                           ("0-4", "FIRST:END"), ("", "FIRST:END"), ("0:4,", "FIRST:END")):
            with self.assertRaises(ValueError) as e:
                rc.parse_kernel_range(bad)
            self.assertIn(words, str(e.exception), bad)

    def test_selection_needs_exactly_one_range_source(self):
        rc.check_selection(["--profiler-api"], "x")
        rc.check_selection(["--nvtx-include", "step/", "--range-count", "2"], "x")
        for bad, words in (([], "non-empty"), (["--profiler-api", "--kernel-range", "0:1"], "exactly one"),
                           (["--range-count", "1"], "exactly one"), (["--kernel-range"], "needs a value"),
                           (["--kernel-range", "3:1"], "not after"), (["--profiler-api", "-o", "x.json"], "added by")):
            with self.assertRaises(rc.CorpusError) as e:
                rc.check_selection(bad, "sel")
            self.assertIn(words, str(e.exception), bad)

    def test_bad_entries_get_one_line_errors_naming_the_field(self):
        cases = [
            ({"pas": "x"}, "unknown field 'pas' (did you mean 'pass'?)"),
            ({"name": "a b"}, "name must be"),
            ({"sources": []}, "'sources' is empty"),
            ({"sources": ["../x.cu"]}, "inside the sample's folder"),
            ({"deterministic": "yes"}, "'deterministic' must be true or false"),
            ({"set": "basik"}, "unknown set 'basik' (did you mean 'basic'?)"),
            ({"pass": "("}, "bad regular expression"),
            ({"fail": "(?i)x"}, "scoped"),
            ({"selections": [{"args": ["--kernel-range", "0:4,2:3"]}]}, "overlaps"),
            ({"extract": ["../x"]}, "extract entry '../x' must be a path inside the repository"),
            ({"extract": []}, "'extract' must be a non-empty list"),
            ({"extract": "src/x-omp"}, "'extract' must be a non-empty list"),
        ]
        for change, words in cases:
            with self.assertRaises(rc.CorpusError) as e:
                program(**change)
            self.assertIn(words, str(e.exception), change)
            self.assertNotIn("\n", str(e.exception))
        self.assertEqual(program()["set"], "basic")  # a valid entry loads, with the default set

    def test_sources_parse_with_defaults_replaced_key_by_key(self):
        base = {"name": "r", "path": "cuda/r", "sources": ["r.cu"], "features": ["rodinia"],
                "selections": [{"args": ["--kernel-range", "0:1"], "why": "t"}], "pass": None, "fail": None,
                "deterministic": True}

        def load(sources, **prog):
            doc = {"commit": "c" * 40, "defaults": {"nvcc": ["-I{common}"], "set": "memory", "fail": "A", "ignore": "T"},
                   "sources": sources, "programs": [dict(base, **prog)]}
            with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
                json.dump(doc, f)
            try:
                return rc.load_programs(f.name)
            finally:
                os.unlink(f.name)
        doc = load({"rodinia": {"commit": "d" * 40, "defaults": {"nvcc": ["-arch=sm_90"], "fail": "B"}}},
                   source="rodinia", nvcc=["-DX"])
        p = doc["programs"][0]
        self.assertEqual(p["source"], "rodinia")
        self.assertEqual(p["nvcc_all"], ["-arch=sm_90", "-DX"])  # nvcc replaced, the program's appended
        self.assertEqual(p["set"], "memory")  # set inherited
        self.assertEqual(rc.verdict(p, "B", ""), "FAIL")
        self.assertEqual(rc.verdict(p, "A", ""), "-")  # fail replaced
        self.assertEqual(rc.compared_output(p, "T 1\nx\n"), ["x"])  # ignore inherited
        self.assertEqual(doc["source_defs"]["rodinia"]["commit"], "d" * 40)
        self.assertEqual(doc["source_defs"]["rodinia"]["repository"], "https://github.com/yuhc/gpu-rodinia")
        self.assertEqual(doc["source_defs"]["cuda-samples"]["commit"], "c" * 40)
        # Without 'source', a program is a cuda-samples one.
        self.assertEqual(load({})["programs"][0]["source"], "cuda-samples")
        cases = [
            (({"rodinia": {"commit": "xyz"}},), {}, "'commit' must be the 40-hex-digit rodinia commit"),
            (({"parsec": {"commit": "d" * 40}},), {}, "sources.parsec: unknown source (known: rodinia"),
            (({"rodinia": {"commit": "d" * 40, "url": "x"}},), {}, "unknown field 'url'"),
            (({"rodinia": {"commit": "d" * 40, "defaults": {"fail": "("}}},), {}, "bad regular expression"),
            (({},), {"source": "rodinia"}, "source 'rodinia' is not defined"),
            (({"rodinia": {"commit": "d" * 40}},), {"source": "rodinai"}, "(did you mean 'rodinia'?)"),
            (({},), {"generate": {"sources": ["g.c"]}}, "generate.outputs is empty"),
            (({},), {"generate": {"sources": ["g.c"], "outputs": ["../x"]}}, "generate.outputs entry '../x'"),
            (({},), {"generate": {"sources": ["g.c"], "outputs": ["x"], "run": ["sh"]}}, "generate: unknown field 'run'"),
            (({},), {"generate": {"sources": ["g.c"], "outputs": ["x"], "args": [1]}}, "generate.args must be a list"),
            (({},), {"files": {"/etc/x": "t"}}, "files entry '/etc/x'"),
            (({},), {"files": {"a": 1}}, "'files' must be an object"),
        ]
        for (sources,), prog, words in cases:
            with self.assertRaises(rc.CorpusError) as e:
                load(sources, **prog)
            self.assertIn(words, str(e.exception), (sources, prog))
            self.assertNotIn("\n", str(e.exception))

    def test_fingerprints_of_older_corpora_stay_valid(self):
        # Fields added with the second source enter the digest only when set.
        p = program()
        self.assertEqual(rc.build_fingerprint(p), rc.build_fingerprint(dict(p, files={})))
        self.assertNotEqual(rc.build_fingerprint(p), rc.build_fingerprint(dict(p, source="rodinia")))
        self.assertNotEqual(rc.build_fingerprint(p), rc.build_fingerprint(dict(p, files={"a": "b"})))
        self.assertNotEqual(rc.build_fingerprint(p), rc.build_fingerprint(
            dict(p, generate={"sources": ["g.c"], "outputs": ["o"]})))
        # So does a program's 'extract' (added with the third source).
        self.assertEqual(rc.build_fingerprint(p), rc.build_fingerprint(dict(p, extract=[])))
        self.assertNotEqual(rc.build_fingerprint(p), rc.build_fingerprint(dict(p, extract=["src/x-omp"])))

    def test_only_names_unknown_programs_with_the_closest(self):
        doc = rc.load_programs()
        # In the list's order, not the option's.
        self.assertEqual([p["name"] for p in rc.select_programs(doc, "simpleCUFFT,matrixMul")],
                         [p["name"] for p in doc["programs"] if p["name"] in ("simpleCUFFT", "matrixMul")])
        with self.assertRaises(rc.CorpusError) as e:
            rc.select_programs(doc, "simpleCUFF")
        self.assertIn("closest: simpleCUFFT", str(e.exception))


class Parsing(unittest.TestCase):
    def test_verdict_kinds_and_stderr(self):
        p = program()
        self.assertEqual(rc.verdict(p, "x\nTest passed\n", ""), "PASS")
        self.assertEqual(rc.verdict(p, "Test failed\nTest passed", ""), "FAIL")
        self.assertEqual(rc.verdict(p, "partial output", ""), "NOPASS")
        # checkCudaErrors lines on stderr fail any program (the default pattern).
        self.assertEqual(rc.verdict(p, "Test passed", "CUDA error at x.cu:3 code=700(cudaErrorIllegalAddress) \"k\"\n"),
                         "FAIL")
        # The tool's own lines never count as the program's.
        self.assertEqual(rc.verdict(program(fail="declined"), "Test passed", "rangereplay: range 1 declined: x\n"),
                         "PASS")
        self.assertEqual(rc.verdict(program(**{"pass": None, "fail": None}), "anything", ""), "-")

    def test_app_stdout_drops_the_report_table(self):
        out = "app line 1\nTest passed\nrangereplay 0.1.0, pid 4242\ndevice: NVIDIA H200\nmetrics: 14\n"
        self.assertEqual(rc.app_stdout(out), "app line 1\nTest passed\n")
        self.assertEqual(rc.app_stdout("rangereplay, pid 7\nx"), "")
        # An application whose output ends with an empty line keeps it.
        plain = "simpleSwitchGraph: Complete\n\n"
        tool = plain + "rangereplay 0.1.0\ncommand: ./graphConditionalNodes\n"
        self.assertEqual(rc.app_stdout(tool), plain)
        self.assertEqual(rc.compared_output(program(), rc.app_stdout(tool)), rc.compared_output(program(), plain))
        # Several processes' tables: all of them are the launcher's.
        two = ("app line\n\n==== rank 0 (pid 11) ====\nrangereplay 0.1.0, pid 11\nsummary: x\n"
               "\n==== rank 1 (pid 12) ====\nrangereplay 0.1.0, pid 12\nsummary: y\n\n2 processes profiled:\n")
        self.assertEqual(rc.app_stdout(two), "app line\n")
        self.assertEqual(rc.app_stdout("no table\nrangereplay is a word here\n"), "no table\nrangereplay is a word here\n")

    def test_compared_output_leaves_out_timings(self):
        p = program(ignore="^kernel:\\s")
        lines = rc.compared_output(p, "Result 3\nElapsed Time: 3 ms\nkernel:\t1.2\nResult 4  \n")
        self.assertEqual(lines, ["Result 3", "Result 4"])

    def test_tool_timeout_grows_with_slow_plain_runs_only(self):
        self.assertEqual(rc.tool_timeout(30, [{"wall_s": 2.0}, {"wall_s": 3.0}]), 30)
        self.assertAlmostEqual(rc.tool_timeout(30, [{"wall_s": 27.4}, {"wall_s": 26.0}]), 69.8)
        # A plain run that hung sets nothing: the base stands.
        self.assertEqual(rc.tool_timeout(30, [{"wall_s": 30.0, "hung": True}]), 30)
        self.assertEqual(rc.tool_timeout(30, []), 30)

    def test_exit_code_of_signals(self):
        self.assertEqual(rc.exit_code(-9), 137)
        self.assertEqual(rc.exit_code(3), 3)
        self.assertIsNone(rc.exit_code(None))

    def test_last_tool_line_is_the_stage(self):
        err = "app noise\nrangereplay: range 1 'kernels 0:4': pass 2/9\nrangereplay[debug] +  1.00 ms: drain\nmore app\n"
        self.assertEqual(rc.last_tool_line(err), "rangereplay[debug] +  1.00 ms: drain")
        self.assertEqual(rc.last_tool_line("nothing"), "")
        self.assertEqual(rc.stage_key("rangereplay[debug] +   12.34 ms: begin range %s"), "rangereplay[debug] begin range %s")
        self.assertEqual(rc.stage_key("rangereplay: range 1 'k': pass 2/9"), "rangereplay: range 1 'k': pass 2/9")


class Reports(unittest.TestCase):
    def test_summary_counts_ranges_declines_and_divergences(self):
        s = rc.summarize_report(REPORT)
        self.assertEqual((s["replayed"], s["declined"], s["divergences"], s["pass_count"]), (1, 1, 1, 9))
        r0, r1 = s["ranges"]
        self.assertEqual((r0["kernels"], r0["launch_first"], r0["launch_last"]), (2, 0, 1))
        self.assertEqual((r0["first_kernel"], r0["last_kernel"]), ("reduce(float*)", "final(float*)"))
        self.assertEqual(r0["divergent"], [{"address": 4096, "size_bytes": 1048576, "origin": "cudaMalloc"}])
        self.assertEqual((r1["reason"], r1["detail"], r1["launch_first"]), ("stream_capture_active", "cuStreamBeginCapture", None))

    def test_load_report_missing_and_bad(self):
        with tempfile.TemporaryDirectory() as d:
            self.assertEqual(rc.load_report(os.path.join(d, "none.json")), (None, "report missing"))
            bad = os.path.join(d, "bad.json")
            write(bad, "{")
            summary, problem = rc.load_report(bad)
            self.assertIsNone(summary)
            self.assertIn("unreadable", problem)
            good = os.path.join(d, "good.json")
            write(good, json.dumps(REPORT))
            self.assertEqual(rc.load_report(good)[0]["declined"], 1)


    def test_schema_problem_names_the_first_mismatch(self):
        sample = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python", "data", "sample_report.json")
        self.assertEqual(rc.schema_problem(sample), "")
        with tempfile.TemporaryDirectory() as d:
            bad = os.path.join(d, "bad.json")
            with open(sample) as f:
                doc = json.load(f)
            doc["ranges"][0]["passes"] = "three"
            write(bad, json.dumps(doc))
            problem = rc.schema_problem(bad)
            self.assertTrue(problem.startswith("report does not match its JSON Schema: "), problem)
            self.assertIn("ranges[0].passes", problem)

    def test_a_schema_problem_is_a_problem_of_the_run(self):
        p = program()
        problems, _, _ = rc.judge(p, [run_rec("plain 1"), run_rec("plain 2")],
                                  [run_rec("tool"), dict(run_rec("verify"), schema_problem="report does not match")])
        self.assertTrue(any("report does not match" in x for x in problems), problems)


class Judge(unittest.TestCase):
    def test_unchanged_runs_have_no_problems(self):
        p = program()
        plain = [run_rec("plain run 1"), run_rec("plain run 2")]
        problems, notes, flags = rc.judge(p, plain, [run_rec("tool"), run_rec("verify")])
        self.assertEqual(problems, [])
        self.assertEqual(notes, [])
        self.assertFalse(flags["changed"])
        self.assertTrue(flags["plain_outputs_same"])

    def test_changed_exit_verdict_hang_and_missing_report_are_problems(self):
        p = program()
        plain = [run_rec("plain run 1"), run_rec("plain run 2")]
        tools = [run_rec("tool", exit=1, verdict="FAIL", stage="rangereplay: range 1 'kernels 0:1': pass 3/9"),
                 run_rec("verify", hung=True, stage="rangereplay: range 1 'kernels 0:1': pass 2/9"),
                 run_rec("tool sel 2", report_problem="report missing")]
        problems, notes, flags = rc.judge(p, plain, tools)
        text = "\n".join(problems)
        self.assertIn("tool: verdict FAIL (plain PASS)", text)
        self.assertIn("tool: exit code 1 (plain 0); last tool line: rangereplay: range 1", text)
        self.assertIn("verify: HANG after 1.0 s at: rangereplay: range 1 'kernels 0:1': pass 2/9", text)
        self.assertIn("tool sel 2: report missing", text)
        self.assertTrue(flags["changed"])

    def test_a_tool_run_matching_either_plain_run_is_unchanged(self):
        p = program(deterministic=False)
        plain = [run_rec("plain run 1", exit=0, compared=("x",)), run_rec("plain run 2", exit=1, compared=("y",))]
        problems, notes, _ = rc.judge(p, plain, [run_rec("tool", exit=1)])
        self.assertEqual(problems, [])
        self.assertIn("nondet: plain outputs differ", notes)
        self.assertIn("plain runs disagree on verdict/exit", notes)

    def test_output_change_is_a_note_for_deterministic_programs(self):
        p = program()
        plain = [run_rec("plain run 1", compared=("a", "b")), run_rec("plain run 2", compared=("a", "b"))]
        problems, notes, flags = rc.judge(p, plain, [run_rec("tool", compared=("a", "b", "GPU: counter = 1"))])
        self.assertEqual(problems, [])
        self.assertIn("output changed under the tool", notes)
        self.assertTrue(flags["tool_output_changed"])
        self.assertIn("+GPU: counter = 1", flags["output_diff"])

    def test_line_count_change_is_a_note_for_nondeterministic_programs(self):
        p = program(deterministic=False)
        plain = [run_rec("plain run 1", compared=("a", "b")), run_rec("plain run 2", compared=("b", "a"))]
        _, notes, _ = rc.judge(p, plain, [run_rec("verify", compared=("a", "b", "c")), run_rec("tool", compared=("c", "d"))])
        self.assertIn("verify: 3 output lines (plain 2)", notes)
        self.assertEqual(len([n for n in notes if "output lines" in n]), 1)

    def test_plain_hang_is_a_problem(self):
        p = program()
        problems, _, _ = rc.judge(p, [run_rec("plain run 1", hung=True), run_rec("plain run 2")], [run_rec("tool")])
        self.assertTrue(any("plain run hung" in x for x in problems))


class Table(unittest.TestCase):
    def result(self, **kw):
        tool_report = rc.summarize_report(REPORT)
        res = {"name": "simpleCudaGraphs", "status": "ran", "problems": [], "notes": ["nondet: plain outputs same"],
               "changed": False,
               "plain": [dict(run_rec("plain run 1"), wall_s=0.4), dict(run_rec("plain run 2"), wall_s=0.6)],
               "tool": [dict(run_rec("tool", report=tool_report), wall_s=2.5),
                        dict(run_rec("verify", report=tool_report), wall_s=2.75)]}
        res.update(kw)
        return res

    def test_row_and_table(self):
        res = self.result()
        row = rc.render_row(res)
        self.assertIn("simpleCudaGraphs", row)
        self.assertIn("PASS ", row)
        self.assertIn(" 1/1 ", row)
        self.assertIn("stream_capture_active", row)
        self.assertIn("0.5/  2.5/  2.8", row)
        self.assertIn("nondet: plain outputs same", row)
        hangs = [{"name": "UnifiedMemoryStreams", "hung": 2, "total": 4, "skipped": 0, "timeout_s": 20,
                  "stages": {"rangereplay[debug] +1 ms: drain": 2}}]
        table = rc.render_table([res, {"name": "x", "status": "not built", "problems": [], "notes": ["not built: ld"]}],
                                hangs, ["corpus: test"])
        lines = table.splitlines()
        self.assertEqual(lines[0], "corpus: test")
        self.assertIn("declined ranges:", table)
        self.assertIn("simpleCudaGraphs [tool] ranges[1] 'kernels 5:6': stream_capture_active (cuStreamBeginCapture)", table)
        self.assertIn("hang test UnifiedMemoryStreams: 2/4 runs hung (limit 20 s)", table)
        self.assertIn("2 x at: rangereplay[debug] +1 ms: drain", table)
        self.assertTrue(lines[-1].startswith("x "))
        self.assertIn(rc.TABLE_HEADER, lines)
        self.assertEqual(rc.suite_status([res], hangs), 1)
        self.assertEqual(rc.suite_status([res], []), 0)

    def test_a_decline_that_differs_under_verify_is_listed(self):
        tool_report = rc.summarize_report(REPORT)
        verify_doc = json.loads(json.dumps(REPORT))
        for g in verify_doc["ranges"]:
            g["declined"], g["decline_reason"], g["decline_detail"] = True, "counter_ranges_mismatch", "CUPTI returned"
        res = self.result(tool=[dict(run_rec("tool sel 1", report=tool_report), wall_s=2.5),
                                dict(run_rec("verify sel 1", report=rc.summarize_report(verify_doc)), wall_s=2.75)])
        table = rc.render_table([res], [])
        self.assertIn("declines that differ between the tool and --verify runs of one selection:", table)
        self.assertIn("simpleCudaGraphs [verify sel 1] ranges[0] 'kernels 0:2': counter_ranges_mismatch "
                      "(tool sel 1: replayed)", table)
        self.assertIn("simpleCudaGraphs [verify sel 1] ranges[1] 'kernels 5:6': counter_ranges_mismatch "
                      "(tool sel 1: stream_capture_active)", table)
        # Equal outcomes list nothing.
        self.assertEqual(rc.verify_decline_differences([self.result()]), [])

    def test_changed_and_hung_rows(self):
        changed = self.result(changed=True, problems=["tool: exit code 1 (plain 0)"])
        self.assertIn(" NO ", rc.render_row(changed))
        hung = self.result(tool=[run_rec("tool", hung=True)], problems=["tool: HANG after 60 s at: x"])
        row = rc.render_row(hung)
        self.assertIn("HANG", row)
        self.assertIn("tool: HANG after 60 s at: x", row)
        self.assertEqual(rc.suite_status([changed], []), 1)
        self.assertEqual(rc.suite_status([{"name": "x", "status": "skipped", "problems": [], "notes": []}], []), 1)

    def test_order_puts_hang_repro_last(self):
        ps = [{"name": "a", "hang_repro": True}, {"name": "b"}, {"name": "c"}]
        self.assertEqual([p["name"] for p in rc.ordered(ps)], ["b", "c", "a"])


class Processes(unittest.TestCase):
    def test_time_limit_kills_the_whole_group_and_keeps_the_stage(self):
        with tempfile.TemporaryDirectory() as d:
            marker = os.path.join(d, "child.pid")
            script = (f"sleep 30 & echo $! > {marker}; echo 'rangereplay: range 1 \"k\": pass 2/9' >&2; "
                      "echo out; sleep 30")
            t0 = time.monotonic()
            r = rc.run_one(["sh", "-c", script], d, dict(os.environ), 1.0, os.path.join(d, "run"))
            self.assertLess(time.monotonic() - t0, 20)
            self.assertTrue(r["hung"])
            self.assertEqual(r["stage"], "rangereplay: range 1 \"k\": pass 2/9")
            self.assertEqual(r["exit"], 137)
            self.assertTrue(os.path.exists(r["hang_info"]))
            self.assertIn("pid ", read(r["hang_info"]))
            self.assertEqual(read(r["stdout"]), "out\n")
            child = int(read(marker))
            for _ in range(50):  # the background sleep went with its group
                if not os.path.exists(f"/proc/{child}") or "Z" in read(f"/proc/{child}/stat").split()[2]:
                    break
                time.sleep(0.1)
            else:
                self.fail("the group's background child outlived the time limit")

    def test_exit_codes_and_missing_program(self):
        with tempfile.TemporaryDirectory() as d:
            r = rc.run_one(["sh", "-c", "exit 3"], d, dict(os.environ), 10, os.path.join(d, "a"))
            self.assertEqual((r["exit"], r["hung"]), (3, False))
            r = rc.run_one(["sh", "-c", "kill -SEGV $$"], d, dict(os.environ), 10, os.path.join(d, "b"))
            self.assertEqual(r["exit"], 139)
            r = rc.run_one([os.path.join(d, "none")], d, dict(os.environ), 10, os.path.join(d, "c"))
            self.assertIn("cannot start", r["error"])


class Git:
    """A git helper with a fixed identity (CI machines may have none)."""

    def git(self, cwd, *args):
        env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t",
                   GIT_COMMITTER_EMAIL="t@t")
        return subprocess.run(["git", "-C", cwd, *args], check=True, capture_output=True, text=True, env=env).stdout.strip()

    def repo(self, d, name, files):
        """A repository `d/<name>` of `files` ({path: text}) in one commit, and
        its bare clone `d/<name>.git`: (bare clone, commit)."""
        work = os.path.join(d, name)
        for rel, text in files.items():
            os.makedirs(os.path.dirname(os.path.join(work, rel)), exist_ok=True)
            write(os.path.join(work, rel), text)
        self.git(d, "init", "-q", work)
        self.git(work, "add", ".")
        self.git(work, "commit", "-qm", "one")
        bare = os.path.join(d, name + ".git")
        subprocess.run(["git", "clone", "-q", "--bare", work, bare], check=True, capture_output=True)
        return bare, self.git(work, "rev-parse", "HEAD")

    def scratch(self, nvcc_script):
        """A temporary folder self.d, removed after the test, holding a fake
        nvcc, self.nvcc, that runs `nvcc_script`."""
        self.d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.d)
        self.nvcc = os.path.join(self.d, "nvcc")
        write(self.nvcc, nvcc_script)
        os.chmod(self.nvcc, 0o755)


@unittest.skipUnless(shutil.which("git"), "git not installed")
class Samples(Git, unittest.TestCase):
    def make_repo(self, d):
        work = os.path.join(d, "work")
        os.makedirs(os.path.join(work, "Common"))
        os.makedirs(os.path.join(work, "Samples", "a", "prog"))
        os.makedirs(os.path.join(work, "Samples", "b", "other"))
        write(os.path.join(work, "Common", "helper.h"), "// helper\n")
        write(os.path.join(work, "Samples", "a", "prog", "prog.cu"), "int main() {}\n")
        write(os.path.join(work, "Samples", "b", "other", "big.bin"), "x" * 100)
        self.git(d, "init", "-q", work)
        self.git(work, "add", ".")
        self.git(work, "commit", "-qm", "one")
        first = self.git(work, "rev-parse", "HEAD")
        write(os.path.join(work, "Common", "helper.h"), "// helper 2\n")
        self.git(work, "commit", "-qam", "two")
        bare = os.path.join(d, "bare.git")
        subprocess.run(["git", "clone", "-q", "--bare", work, bare], check=True, capture_output=True)
        return work, bare, first

    def test_bare_repository_extracts_only_the_named_paths_at_the_commit(self):
        with tempfile.TemporaryDirectory() as d:
            work, bare, first = self.make_repo(d)
            self.assertEqual(rc.samples_kind(bare), "bare")
            self.assertEqual(rc.samples_kind(work), "checkout")
            root, tmp, desc = rc.materialize_samples(bare, first, ["Common", "Samples/a/prog"])
            try:
                self.assertEqual(read(os.path.join(root, "Common", "helper.h")), "// helper\n")
                self.assertTrue(os.path.exists(os.path.join(root, "Samples", "a", "prog", "prog.cu")))
                self.assertFalse(os.path.exists(os.path.join(root, "Samples", "b")))
                self.assertIn(first, desc)
            finally:
                shutil.rmtree(tmp)
            with self.assertRaises(rc.CorpusError) as e:
                rc.materialize_samples(bare, "1" * 40, ["Common"])
            self.assertIn("fetch origin", str(e.exception))
            with self.assertRaises(rc.CorpusError) as e:
                rc.materialize_samples(bare, first, ["Common", "Samples/none"])
            self.assertIn("git archive", str(e.exception))

    def test_files_missing_from_a_mirror_are_left_out(self):
        # A mirror that lacks a large file: its tree names a blob it does not hold.
        with tempfile.TemporaryDirectory() as d:
            bare = os.path.join(d, "mirror.git")
            self.git(d, "init", "-q", "--bare", bare)
            with open(os.path.join(d, "a.cu"), "w") as f:
                f.write("int main() {}\n")
            blob = self.git(bare, "hash-object", "-w", os.path.join(d, "a.cu"))
            inner = subprocess.run(["git", "-C", bare, "mktree", "--missing"], check=True, capture_output=True, text=True,
                                   input=f"100644 blob {blob}\ta.cu\n100644 blob {'1' * 40}\tresult.txt\n").stdout.strip()
            top = subprocess.run(["git", "-C", bare, "mktree", "--missing"], check=True, capture_output=True, text=True,
                                 input=f"040000 tree {inner}\tprog\n").stdout.strip()
            commit = self.git(bare, "commit-tree", top, "-m", "one")
            files, missing, unmatched = rc.present_files(bare, commit, ["prog", "nothing"])
            self.assertEqual((files, missing, unmatched), (["prog/a.cu"], ["prog/result.txt"], ["nothing"]))
            err = io.StringIO()
            with contextlib.redirect_stderr(err):
                root, tmp, _ = rc.materialize_samples(bare, commit, ["prog"], "rodinia")
            try:
                self.assertEqual(read(os.path.join(root, "prog", "a.cu")), "int main() {}\n")
                self.assertFalse(os.path.exists(os.path.join(root, "prog", "result.txt")))
                self.assertIn("lacks 1 file(s)", err.getvalue())
                self.assertIn("prog/result.txt", err.getvalue())
            finally:
                shutil.rmtree(tmp)

    def test_checkout_at_another_commit_is_warned_about(self):
        with tempfile.TemporaryDirectory() as d:
            work, _, first = self.make_repo(d)
            err = io.StringIO()
            with contextlib.redirect_stderr(err):
                root, tmp, _ = rc.materialize_samples(work, first, ["Common"])
            self.assertIsNone(tmp)
            self.assertEqual(root, os.path.abspath(work))
            self.assertIn(f"not the pinned {first[:12]}", err.getvalue())

    def test_not_samples(self):
        with tempfile.TemporaryDirectory() as d:
            with self.assertRaises(rc.CorpusError) as e:
                rc.samples_kind(os.path.join(d, "missing"))
            self.assertIn("git clone https://github.com/NVIDIA/cuda-samples", str(e.exception))
            with self.assertRaises(rc.CorpusError):
                rc.samples_kind(d)
            # A Rodinia checkout holds cuda/ and common/; the messages name its option and repository.
            with self.assertRaises(rc.CorpusError) as e:
                rc.samples_kind(os.path.join(d, "missing"), "rodinia")
            self.assertIn("--rodinia", str(e.exception))
            self.assertIn("git clone https://github.com/yuhc/gpu-rodinia", str(e.exception))
            os.makedirs(os.path.join(d, "cuda"))
            os.makedirs(os.path.join(d, "common"))
            self.assertEqual(rc.samples_kind(d, "rodinia"), "checkout")
            with self.assertRaises(rc.CorpusError) as e:
                rc.samples_kind(d)
            self.assertIn("no Common/ and Samples/", str(e.exception))
            # A HeCBench checkout holds src/ and src/include/.
            with self.assertRaises(rc.CorpusError) as e:
                rc.samples_kind(d, "hecbench")
            self.assertIn("--hecbench", str(e.exception))
            self.assertIn("no src/ and src/include/", str(e.exception))
            self.assertIn("git clone https://github.com/zjin-lcf/HeCBench", str(e.exception))
            os.makedirs(os.path.join(d, "src", "include"))
            self.assertEqual(rc.samples_kind(d, "hecbench"), "checkout")


FAKE_NVCC = r"""#!/usr/bin/env python3
# Stands in for nvcc: writes the -o file, fails for a source named broken.cu.
import sys
args = sys.argv[1:]
if args == ["--version"]:
    print("Cuda compilation tools, release 13.0, V13.0.0")
    sys.exit(0)
if any(a.endswith("broken.cu") for a in args):
    print("broken.cu(1): error: expected a ';'", file=sys.stderr)
    sys.exit(1)
exe = args[args.index("-o") + 1]
if any(a.endswith("gen.c") for a in args):
    # An input generator: writes its arguments to data/gen.db (in its working folder).
    with open(exe, "w") as f:
        f.write('#!/bin/sh\necho "$@" > data/gen.db\n')
    import os
    os.chmod(exe, 0o755)
    sys.exit(0)
if any(a.endswith("genfail.c") for a in args):
    with open(exe, "w") as f:
        f.write('#!/bin/sh\necho "no space left" >&2\nexit 3\n')
    import os
    os.chmod(exe, 0o755)
    sys.exit(0)
with open(exe, "w") as f:
    f.write("binary " + " ".join(args))
"""


@unittest.skipUnless(shutil.which("git"), "git not installed")
class Prepare(Git, unittest.TestCase):
    def setUp(self):
        self.scratch(FAKE_NVCC)
        self.bare, self.commit = self.repo(self.d, "work", {
            "Common/helper.h": "//", "Samples/a/good/good.cu": "int main() {}", "Samples/a/good/input.dat": "data",
            "Samples/a/bad/broken.cu": "int main() {"})
        base = {"features": ["atomics"], "selections": [{"args": ["--kernel-range", "0:1"], "why": "t"}],
                "pass": None, "fail": None, "deterministic": True}
        doc = {"commit": self.commit, "defaults": {"nvcc": ["-arch=sm_90", "-I{common}"]},
               "programs": [dict(base, name="good", path="Samples/a/good", sources=["good.cu"], data=["input.dat"],
                                 libs=["-lcublas"]),
                            dict(base, name="bad", path="Samples/a/bad", sources=["broken.cu"])]}
        self.plist = os.path.join(self.d, "programs.json")
        write(self.plist, json.dumps(doc))

    def prepare(self, *extra):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = rc.main(["--programs", self.plist, "prepare", "--samples", self.bare, "--out",
                            os.path.join(self.d, "corpus"), "--nvcc", self.nvcc, *extra])
        return code, out.getvalue(), err.getvalue()

    def test_builds_copies_data_and_records_failures_in_the_manifest(self):
        code, out, err = self.prepare()
        self.assertEqual(code, 0, err)
        self.assertIn("1 of 2 programs built", out)
        self.assertIn("not built: bad: broken.cu(1): error: expected a ';'", out)
        corpus = os.path.join(self.d, "corpus")
        m = json.loads(read(os.path.join(corpus, rc.MANIFEST)))
        self.assertEqual(m["commit"], self.commit)
        self.assertEqual(m["nvcc_version"], "Cuda compilation tools, release 13.0, V13.0.0")
        good = m["programs"]["good"]
        self.assertTrue(good["built"])
        self.assertIn("-I<samples>/Common -o <out>/good/good <samples>/Samples/a/good/good.cu -lcublas",
                      good["build_line"])
        self.assertEqual(read(os.path.join(corpus, "good", "input.dat")), "data")
        self.assertFalse(m["programs"]["bad"]["built"])
        self.assertFalse(os.path.exists(os.path.join(corpus, "bad")))
        self.assertEqual(self.prepare("--strict")[0], 1)
        # --only keeps the other entries.
        code, out, _ = self.prepare("--only", "bad")
        self.assertEqual(code, 0)
        self.assertTrue(json.loads(read(os.path.join(corpus, rc.MANIFEST)))["programs"]["good"]["built"])

    def test_size_limit_fails_loudly(self):
        code, out, err = self.prepare("--max-mib", "0.000001")
        self.assertEqual(code, 1)
        self.assertIn("over the 1e-06 MiB it may take to travel to the GPU machine; largest: good", err)


@unittest.skipUnless(shutil.which("git"), "git not installed")
class PrepareTwoSources(Git, unittest.TestCase):
    """prepare with cuda-samples and Rodinia programs in one list."""

    def setUp(self):
        self.scratch(FAKE_NVCC)
        self.samples, self.samples_commit = self.repo(self.d, "samples", {
            "Common/helper.h": "//", "Samples/a/good/good.cu": "int main() {}"})
        self.rodinia, self.rodinia_commit = self.repo(self.d, "rodinia", {
            "common/make.config": "#", "cuda/nn/nn_cuda.cu": "int main() {}", "cuda/nn/gen.c": "int main() {}",
            "cuda/nw/needle.cu": "int main() {}", "cuda/bad/needle.cu": "int main() {}", "cuda/bad/genfail.c": ""})
        base = {"features": ["atomics"], "selections": [{"args": ["--kernel-range", "0:1"], "why": "t"}],
                "pass": None, "fail": None, "deterministic": True}
        gen = {"sources": ["gen.c"], "mkdir": ["data"], "args": ["5", "1"], "outputs": ["data/gen.db"]}
        doc = {"commit": self.samples_commit, "defaults": {"nvcc": ["-std=c++17", "-I{common}"]},
               "sources": {"rodinia": {"commit": self.rodinia_commit, "defaults": {"nvcc": ["-arch=sm_90"]}}},
               "programs": [dict(base, name="good", path="Samples/a/good", sources=["good.cu"]),
                            dict(base, name="nn", source="rodinia", path="cuda/nn", sources=["nn_cuda.cu"],
                                 nvcc=["-I{path}"], generate=gen, files={"filelist.txt": "data/gen.db\n"}),
                            dict(base, name="nw", source="rodinia", path="cuda/nw", sources=["needle.cu"]),
                            dict(base, name="badgen", source="rodinia", path="cuda/bad", sources=["needle.cu"],
                                 generate=dict(gen, sources=["genfail.c"]))]}
        self.plist = os.path.join(self.d, "programs.json")
        write(self.plist, json.dumps(doc))
        self.corpus = os.path.join(self.d, "corpus")

    def prepare(self, *extra):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = rc.main(["--programs", self.plist, "prepare", "--out", self.corpus, "--nvcc", self.nvcc, *extra])
        return code, out.getvalue(), err.getvalue()

    def manifest(self):
        return json.loads(read(os.path.join(self.corpus, rc.MANIFEST)))

    def test_both_sources_build_with_their_own_defaults_and_commits(self):
        code, out, err = self.prepare("--samples", self.samples, "--rodinia", self.rodinia)
        self.assertEqual(code, 0, err)
        self.assertIn("3 of 4 programs built", out)
        m = self.manifest()
        self.assertEqual(m["commit"], self.samples_commit)
        self.assertEqual(m["sources"]["rodinia"]["commit"], self.rodinia_commit)
        self.assertEqual(m["sources"]["cuda-samples"]["commit"], self.samples_commit)
        self.assertIn(self.rodinia_commit, m["sources"]["rodinia"]["from"])
        nn = m["programs"]["nn"]
        self.assertEqual(nn["source"], "rodinia")
        self.assertTrue(nn["build_line"].endswith(" -arch=sm_90 -I<rodinia>/cuda/nn -o <out>/nn/nn "
                                                  "<rodinia>/cuda/nn/nn_cuda.cu"), nn["build_line"])
        self.assertIn("-std=c++17 -I<samples>/Common -o <out>/good/good", m["programs"]["good"]["build_line"])
        # The generator ran in the program's folder (data/ made first) and only its output stays.
        self.assertEqual(read(os.path.join(self.corpus, "nn", "data", "gen.db")), "5 1\n")
        self.assertEqual(nn["generated"], {"data/gen.db": 4})
        self.assertEqual(nn["generate_run"], "gen 5 1")
        self.assertIn("-O2 -o <tmp>/gen <rodinia>/cuda/nn/gen.c", nn["generate_line"])
        self.assertEqual(sorted(os.listdir(os.path.join(self.corpus, "nn"))), ["data", "filelist.txt", "nn"])
        self.assertEqual(read(os.path.join(self.corpus, "nn", "filelist.txt")), "data/gen.db\n")
        # A failing generator fails the program's build, with the generator's own words.
        self.assertFalse(m["programs"]["badgen"]["built"])
        self.assertIn("input generator failed (exit code 3), no data/gen.db: no space left",
                      m["programs"]["badgen"]["error"])
        self.assertFalse(os.path.exists(os.path.join(self.corpus, "badgen")))
        self.assertIn("not built: badgen: input generator failed", out)

    def test_a_source_not_given_is_skipped_and_its_earlier_builds_kept(self):
        code, out, err = self.prepare("--samples", self.samples)
        self.assertEqual(code, 0, err)
        self.assertIn("1 of 4 programs built", out)
        self.assertIn("not built: 3 rodinia programs: prepare had no --rodinia (a git directory of "
                      "https://github.com/yuhc/gpu-rodinia)", out)
        self.assertNotIn("not built: nn", out)
        self.assertEqual(self.prepare("--samples", self.samples, "--strict")[0], 0)  # not a build failure
        self.assertNotIn("rodinia", self.manifest()["sources"])
        code, out, err = self.prepare("--rodinia", self.rodinia)
        self.assertEqual(code, 0, err)
        self.assertIn("3 of 4 programs built", out)  # good's earlier build is kept
        m = self.manifest()
        self.assertTrue(m["programs"]["good"]["built"])
        self.assertEqual(set(m["sources"]), {"cuda-samples", "rodinia"})
        self.assertIn("1 cuda-samples programs not built: no --samples given (their earlier builds are kept)", err)
        self.assertEqual(self.prepare("--rodinia", self.rodinia, "--strict")[0], 1)  # badgen failed to build
        # --only across sources.
        code, out, _ = self.prepare("--rodinia", self.rodinia, "--only", "nw")
        self.assertEqual(code, 0)
        self.assertTrue(self.manifest()["programs"]["nn"]["built"])
        # A manifest from before 'sources' keeps telling the samples' commit it was built from.
        m = self.manifest()
        del m["sources"]
        m["commit"] = "f" * 40
        write(os.path.join(self.corpus, rc.MANIFEST), json.dumps(m))
        self.assertEqual(self.prepare("--rodinia", self.rodinia, "--only", "nw")[0], 0)
        m = self.manifest()
        self.assertEqual((m["commit"], m["sources"]["cuda-samples"]["commit"]), ("f" * 40, "f" * 40))
        self.assertEqual(m["sources"]["rodinia"]["commit"], self.rodinia_commit)

    def test_no_source_at_all_is_one_line(self):
        code, _, err = self.prepare()
        self.assertEqual(code, 2)
        self.assertIn("prepare needs one or more of --samples <cuda-samples git dir>, --rodinia <gpu-rodinia git dir> "
                      "and --hecbench <HeCBench git dir>", err)
        self.assertEqual(len(err.strip().splitlines()), 1)


# A fake nvcc that fails, as nvcc would, when an -I folder is missing.
FAKE_NVCC_INCLUDES = FAKE_NVCC.replace("exe = args[args.index(\"-o\") + 1]\n", """exe = args[args.index("-o") + 1]
import os
for a in args:
    if a.startswith("-I") and not os.path.isdir(a[2:]):
        print("main.cu(3): fatal error: reference.h: No such file or directory (" + a + ")", file=sys.stderr)
        sys.exit(1)
""", 1)


@unittest.skipUnless(shutil.which("git"), "git not installed")
class PrepareHecbench(Git, unittest.TestCase):
    """prepare --hecbench: a third source, programs with a sibling folder to extract."""

    def setUp(self):
        self.scratch(FAKE_NVCC_INCLUDES)
        self.bare, self.commit = self.repo(self.d, "hec", {
            "src/include/common.h": "//", "src/a-cuda/main.cu": "int main() {}", "src/a-omp/reference.h": "//",
            "src/b-cuda/main.cpp": "int main() {}", "src/b-cuda/data/in.ppm": "P6", "src/c-omp/big.dat": "x" * 100})
        base = {"source": "hecbench", "exe": "main", "features": ["hecbench"], "pass": "^PASS$", "fail": None,
                "selections": [{"args": ["--kernel-range", "0:1"], "why": "t"}], "deterministic": True}
        self.doc = {"commit": "c" * 40, "defaults": {"nvcc": ["-std=c++17", "-I{common}"]},
                    "sources": {"hecbench": {"commit": self.commit, "defaults": {"nvcc": ["-O3", "-arch=sm_90"],
                                                                                "fail": "^GPUassert: "}}},
                    "programs": [dict(base, name="a-cuda", path="src/a-cuda", sources=["main.cu"],
                                      extract=["src/a-omp"], nvcc=["-I{root}/src/a-omp"]),
                                 dict(base, name="b-cuda", path="src/b-cuda", sources=["main.cpp"],
                                      data=["data/in.ppm"], libs=["-lcufft"])]}
        self.plist = os.path.join(self.d, "programs.json")
        write(self.plist, json.dumps(self.doc))
        self.corpus = os.path.join(self.d, "corpus")

    def prepare(self, *extra):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = rc.main(["--programs", self.plist, "prepare", "--out", self.corpus, "--nvcc", self.nvcc, *extra])
        return code, out.getvalue(), err.getvalue()

    def test_programs_build_from_their_folder_and_the_extra_one(self):
        code, out, err = self.prepare("--hecbench", self.bare, "--strict")
        self.assertEqual(code, 0, out + err)
        self.assertIn("2 of 2 programs built", out)
        m = json.loads(read(os.path.join(self.corpus, rc.MANIFEST)))
        self.assertEqual(m["sources"]["hecbench"]["commit"], self.commit)
        self.assertEqual(m["sources"]["hecbench"]["repository"], "https://github.com/zjin-lcf/HeCBench")
        a = m["programs"]["a-cuda"]
        self.assertEqual(a["source"], "hecbench")
        self.assertTrue(a["build_line"].endswith(" -O3 -arch=sm_90 -I<hecbench>/src/a-omp -o <out>/a-cuda/main "
                                                 "<hecbench>/src/a-cuda/main.cu"), a["build_line"])
        self.assertEqual(read(os.path.join(self.corpus, "b-cuda", "data", "in.ppm")), "P6")
        self.assertEqual(sorted(os.listdir(os.path.join(self.corpus, "b-cuda"))), ["data", "main"])
        # The manifest's samples commit stays the top-level one although no samples were built.
        self.assertEqual(m["commit"], "c" * 40)

    def test_without_extract_the_sibling_folder_is_not_there(self):
        del self.doc["programs"][0]["extract"]
        write(self.plist, json.dumps(self.doc))
        code, out, _ = self.prepare("--hecbench", self.bare)
        self.assertEqual(code, 0)
        self.assertIn("1 of 2 programs built", out)
        self.assertIn("not built: a-cuda: main.cu(3): fatal error: reference.h", out)
        # An 'extract' folder the commit lacks: git archive of a bare repository names it (as for a missing
        # program folder); with a checkout the program's build names it, not the compiler.
        self.doc["programs"][0]["extract"] = ["src/none-omp"]
        write(self.plist, json.dumps(self.doc))
        code, _, err = self.prepare("--hecbench", self.bare)
        self.assertEqual(code, 2)
        self.assertIn("git archive of", err)
        code, out, err = self.prepare("--hecbench", os.path.join(self.d, "hec"))
        self.assertEqual(code, 0, err)
        self.assertIn("not built: a-cuda: not in the hecbench files at this commit: src/none-omp", out)
        self.assertIn("checkout " + os.path.join(self.d, "hec"),
                      json.loads(read(os.path.join(self.corpus, rc.MANIFEST)))["sources"]["hecbench"]["from"])

    def test_a_hecbench_corpus_added_to_samples_keeps_their_builds(self):
        m = {"schema": 2, "commit": "c" * 40, "sources": {"cuda-samples": {"commit": "c" * 40}},
             "programs": {"old": {"built": True, "exe": "old", "fingerprint": "f"}}}
        os.makedirs(os.path.join(self.corpus, "old"))
        write(os.path.join(self.corpus, "old", "old"), "binary")
        self.doc["programs"].append({"name": "old", "path": "Samples/a/old", "sources": ["old.cu"],
                                     "features": ["atomics"], "selections": [{"args": ["--profiler-api"]}],
                                     "pass": None, "fail": None, "deterministic": True})
        write(self.plist, json.dumps(self.doc))
        write(os.path.join(self.corpus, rc.MANIFEST), json.dumps(m))
        code, out, err = self.prepare("--hecbench", self.bare)
        self.assertEqual(code, 0, err)
        self.assertIn("3 of 3 programs built", out)
        self.assertIn("1 cuda-samples programs not built: no --samples given (their earlier builds are kept)", err)
        m = json.loads(read(os.path.join(self.corpus, rc.MANIFEST)))
        self.assertEqual(m["programs"]["old"], {"built": True, "exe": "old", "fingerprint": "f"})
        self.assertEqual(read(os.path.join(self.corpus, "old", "old")), "binary")
        self.assertEqual(set(m["sources"]), {"cuda-samples", "hecbench"})


class CommandLine(unittest.TestCase):
    def main(self, *argv):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = rc.main(list(argv))
        return code, out.getvalue(), err.getvalue()

    def fake_tree(self, d, programs=("simpleCUFFT",)):
        build = os.path.join(d, "build")
        os.makedirs(os.path.join(build, "tools", "cli"))
        cli = os.path.join(build, "tools", "cli", "rangereplay")
        write(cli, "#!/bin/sh\n")
        os.chmod(cli, 0o755)
        corpus = os.path.join(d, "corpus")
        os.makedirs(corpus)
        doc = rc.load_programs()
        entries = {}
        for p in doc["programs"]:
            if p["name"] in programs:
                entries[p["name"]] = {"built": True, "exe": p["exe"], "fingerprint": rc.build_fingerprint(p)}
        write(os.path.join(corpus, rc.MANIFEST), json.dumps({"commit": doc["commit"], "programs": entries}))
        return build, corpus

    def test_run_input_errors_are_one_line(self):
        with tempfile.TemporaryDirectory() as d:
            build, corpus = self.fake_tree(d)
            code, _, err = self.main("run", "--build", build, "--corpus", os.path.join(d, "none"), "--logs", d)
            self.assertEqual(code, 2)
            self.assertIn("no manifest.json; build it first", err)
            self.assertEqual(len(err.strip().splitlines()), 1)
            code, _, err = self.main("run", "--build", os.path.join(d, "nobuild"), "--corpus", corpus, "--logs", d)
            self.assertEqual(code, 2)
            self.assertIn("no launcher at", err)
            code, _, err = self.main("run", "--build", build, "--corpus", corpus, "--logs", d, "--only", "nope")
            self.assertEqual(code, 2)
            self.assertIn("no program 'nope'", err)

    def test_run_without_gpu_says_so_in_one_line(self):
        with tempfile.TemporaryDirectory() as d:
            build, corpus = self.fake_tree(d)
            real_which = shutil.which
            with mock.patch.object(rc.shutil, "which", lambda n, *a, **k: None if n == "nvidia-smi" else real_which(n)):
                code, out, err = self.main("run", "--build", build, "--corpus", corpus, "--logs", os.path.join(d, "l"))
            self.assertEqual(code, 1)
            self.assertEqual(err.strip(), "run_corpus: no GPU: nvidia-smi not found; run this on a machine with an "
                                          "NVIDIA GPU and its driver (or pass --dry-run to print the commands)")
            self.assertFalse(os.path.exists(os.path.join(d, "l")))

    def test_dry_run_prints_plain_tool_and_verify_commands(self):
        with tempfile.TemporaryDirectory() as d:
            build, corpus = self.fake_tree(d, programs=("matrixMul", "nn", "openmp-cuda"))
            code, out, _ = self.main("run", "--build", build, "--corpus", corpus, "--logs", "/L", "--dry-run",
                                     "--only", "matrixMul,simpleCUFFT,nn,srad_v2,openmp-cuda,spmv-cuda")
            self.assertEqual(code, 0)
            self.assertIn("# matrixMul (built)", out)
            self.assertIn("# simpleCUFFT (NOT BUILT)", out)
            self.assertIn("profile --profiler-api --set basic -o /L/matrixMul.json -- ", out)
            self.assertIn("profile --kernel-range 1:5,100:104 --set basic -o /L/matrixMul.s1.verify.json --verify -- ", out)
            # Rodinia programs name their source; their binary may have another name (srad_v2's is srad).
            self.assertIn(f"# nn (built, rodinia), cwd {corpus}/nn", out)
            self.assertIn("# srad_v2 (NOT BUILT, rodinia)", out)
            self.assertIn(f"  {corpus}/nn/nn filelist.txt -r 5 -lat 30 -lng 90\n", out)
            self.assertIn(f"profile --kernel-range 0:1 --set basic -o /L/nn.verify.json --verify -- {corpus}/nn/nn "
                          f"filelist.txt", out)
            self.assertIn(f"{corpus}/srad_v2/srad 128 128", out)
            # HeCBench programs: named by their folder, binary main.
            self.assertIn(f"# openmp-cuda (built, hecbench), cwd {corpus}/openmp-cuda", out)
            self.assertIn(f"  {corpus}/openmp-cuda/main 4\n", out)
            self.assertIn(f"profile --kernel-range 94:126 --set basic -o /L/openmp-cuda.s1.verify.json --verify -- "
                          f"{corpus}/openmp-cuda/main 4", out)
            self.assertIn("# spmv-cuda (NOT BUILT, hecbench)", out)

    def test_run_warns_about_each_source_built_from_another_commit(self):
        with tempfile.TemporaryDirectory() as d:
            build, corpus = self.fake_tree(d, programs=("nn", "simpleCUFFT"))
            m = json.loads(read(os.path.join(corpus, rc.MANIFEST)))
            m["sources"] = {"rodinia": {"commit": "e" * 40}}
            write(os.path.join(corpus, rc.MANIFEST), json.dumps(m))
            code, _, err = self.main("run", "--build", build, "--corpus", corpus, "--logs", "/L", "--dry-run")
            self.assertEqual(code, 0)
            self.assertIn("the corpus's rodinia programs were built from eeeeeeeeeeee", err)
            self.assertNotIn("cuda-samples programs were built from", err)  # the top-level commit matches

    def test_build_command_and_its_display(self):
        p = [x for x in rc.load_programs()["programs"] if x["name"] == "UnifiedMemoryStreams"][0]
        cmd = rc.build_command(p, "/cuda/bin/nvcc", "/tmp/src", "/o")
        self.assertEqual(cmd[0], "/cuda/bin/nvcc")
        self.assertIn("-I/tmp/src/Common", cmd)
        self.assertIn("-arch=sm_90", cmd)
        self.assertEqual(cmd[cmd.index("-o") + 1], "/o/UnifiedMemoryStreams/UnifiedMemoryStreams")
        self.assertEqual(cmd[-2:], ["-lcublas", "-lgomp"])
        shown = rc.display_command(cmd, "/tmp/src", "/o")
        self.assertIn("-I<samples>/Common", shown)
        self.assertIn("<samples>/Samples/0_Introduction/UnifiedMemoryStreams/UnifiedMemoryStreams.cu", shown)

    def test_rodinia_build_lines_fill_in_the_program_folder(self):
        by_name = {x["name"]: x for x in rc.load_programs()["programs"]}
        lud = by_name["lud"]
        cmd = rc.build_command(lud, "/cuda/bin/nvcc", "/tmp/rod/", "/o")
        self.assertEqual(cmd[:5], ["/cuda/bin/nvcc", "-O2", "-arch=sm_90", "-Wno-deprecated-gpu-targets",
                                   "-DcudaThreadSynchronize=cudaDeviceSynchronize"])
        self.assertIn("-I/tmp/rod/cuda/lud/common", cmd)  # {path}
        self.assertNotIn("-std=c++17", cmd)  # the samples' defaults are replaced, not added to
        self.assertEqual(cmd[cmd.index("-o") + 1:], ["/o/lud/lud", "/tmp/rod/cuda/lud/cuda/lud.cu",
                                                     "/tmp/rod/cuda/lud/cuda/lud_kernel.cu",
                                                     "/tmp/rod/cuda/lud/common/common.c"])
        shown = rc.display_command(cmd, "/tmp/rod/", "/o", rc.SOURCE_KINDS["rodinia"]["placeholder"])
        self.assertIn("-I<rodinia>/cuda/lud/common -o <out>/lud/lud <rodinia>/cuda/lud/cuda/lud.cu", shown)
        # exe differs from the name; -D values with brackets survive as one argument.
        srad = rc.build_command(by_name["srad_v2"], "nvcc", "/r", "/o")
        self.assertEqual(srad[srad.index("-o") + 1], "/o/srad_v2/srad")
        self.assertIn("-DclockRate=reserved[0]", rc.build_command(by_name["gaussian"], "nvcc", "/r", "/o"))
        self.assertIn("'-DclockRate=reserved[0]'", rc.display_command(
            rc.build_command(by_name["gaussian"], "nvcc", "/r", "/o"), "/r", "/o", "<rodinia>"))
        # The input generator: nvcc -O2, its sources from the program's folder, its libraries last.
        gen = rc.generator_command(by_name["nn"], "nvcc", "/r", "/tmp/w/hurricane_gen")
        self.assertEqual(gen, ["nvcc", "-O2", "-o", "/tmp/w/hurricane_gen", "/r/cuda/nn/hurricane_gen.c", "-lm"])
        self.assertEqual(rc.expand_flag("{root}/x:{path}:{common}", "/r/", by_name["nn"]), "/r/x:/r/cuda/nn:/r/Common")


FAKE_LAUNCHER = r"""#!/usr/bin/env python3
# Stands in for tools/cli/rangereplay: runs the command after --, writes a
# one-range report to -o and prints the report table's first line, like the
# launcher. A program whose name holds 'hang' hangs under it.
import json, os, subprocess, sys, time
args = sys.argv[1:]
cmd = args[args.index("--") + 1:]
out = args[args.index("-o") + 1]
if "hang" in os.path.basename(cmd[0]):
    print("rangereplay: range 1 'kernels 0:1': pass 2/9", file=sys.stderr, flush=True)
    time.sleep(60)
rc = subprocess.call(cmd)
if "nreport" not in cmd[0]:
    # A whole report (it must match the report's JSON Schema): the sample's,
    # with one range of its own.
    doc = json.load(open(@SAMPLE@))
    doc["verify"] = "--verify" in args
    doc["errors"] = []
    doc["pass_count"] = 9
    doc["ranges"] = [dict(doc["ranges"][0], index=0, name="kernels 0:1", declined="decl" in cmd[0],
                          decline_reason="allocation_in_range" if "decl" in cmd[0] else "", decline_detail="",
                          passes=9, kernels=[], pass_records=[], notes=[])]
    with open(out, "w") as f:
        json.dump(doc, f)
print("rangereplay 0.0.0, pid 1")
sys.exit(rc + (1 if "flip" in cmd[0] else 0))
""".replace("@SAMPLE@", repr(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python", "data",
                                          "sample_report.json")))


class FakeCorpus:
    """Fake programs (shell scripts), a fake launcher and a fake nvidia-smi:
    the whole `run` flow on a CPU machine."""

    def make_fake(self, d, names):
        """programs.json, corpus, build and bin folders for fake programs
        {name: shell body}; returns (programs.json, environment with the fake
        nvidia-smi first on PATH)."""
        programs, entries = [], {}
        for n, body in names.items():
            exe = {"declines": "decl", "noreport": "nreport"}.get(n, n)
            programs.append({"name": n, "path": "Samples/x/" + n, "sources": ["x.cu"], "exe": exe,
                             "features": ["atomics"], "pass": "Test passed", "fail": None, "deterministic": True,
                             "selections": [{"args": ["--kernel-range", "0:1"], "why": "test"}],
                             "hang_repro": n == "hangs"})
            os.makedirs(os.path.join(d, "corpus", n))
            path = os.path.join(d, "corpus", n, exe)
            write(path, "#!/bin/sh\n" + body + "\n")
            os.chmod(path, 0o755)
        doc = {"commit": "c" * 40, "defaults": {"ignore": "(?i:time)"}, "programs": programs}
        plist = os.path.join(d, "programs.json")
        write(plist, json.dumps(doc))
        for p in rc.load_programs(plist)["programs"]:
            entries[p["name"]] = {"built": True, "exe": p["exe"], "fingerprint": rc.build_fingerprint(p)}
        write(os.path.join(d, "corpus", rc.MANIFEST), json.dumps({"commit": "c" * 40, "programs": entries}))
        os.makedirs(os.path.join(d, "build", "tools", "cli"))
        cli = os.path.join(d, "build", "tools", "cli", "rangereplay")
        write(cli, FAKE_LAUNCHER)
        os.chmod(cli, 0o755)
        bindir = os.path.join(d, "bin")
        os.makedirs(bindir)
        write(os.path.join(bindir, "nvidia-smi"), "#!/bin/sh\necho 'Fake GPU, 1.0'\n")
        os.chmod(os.path.join(bindir, "nvidia-smi"), 0o755)
        return plist, {"PATH": bindir + os.pathsep + os.environ["PATH"]}

class EndToEnd(FakeCorpus, unittest.TestCase):
    def test_run_writes_the_table_and_fails_on_changes_hangs_and_missing_reports(self):
        with tempfile.TemporaryDirectory() as d:
            names = {"good": "echo 'Test passed'; echo 'Time = 3 ms'", "declines": "echo 'Test passed'",
                     "flip": "echo 'Test passed'", "hangs": "echo 'Test passed'", "noreport": "echo 'Test passed'"}
            plist, path = self.make_fake(d, names)
            logs = os.path.join(d, "logs")
            with mock.patch.dict(os.environ, path):
                out, err = io.StringIO(), io.StringIO()
                with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                    code = rc.main(["--programs", plist, "run", "--build", os.path.join(d, "build"), "--corpus",
                                    os.path.join(d, "corpus"), "--logs", logs, "--timeout", "2",
                                    "--repeat-hang-test", "1", "--hang-timeout", "1", "--no-hang-stacks"])
            self.assertEqual(code, 1)
            table = read(os.path.join(logs, "corpus.txt"))
            self.assertEqual(out.getvalue(), table)
            rows = {l.split()[0]: l for l in table.splitlines() if l.split() and l.split()[0] in names}
            self.assertRegex(rows["good"], r"^good +PASS +0 +yes +1/0 +- +0 ")
            self.assertRegex(rows["declines"], r" 0/1 +allocation_in_range ")
            self.assertRegex(rows["flip"], r"PASS +0/1/1 +NO ")
            self.assertIn("HANG", rows["hangs"])
            self.assertIn("no-rep", rows["noreport"])
            self.assertIn("flip: tool: exit code 1 (plain 0)", table)
            self.assertIn("hangs: tool: HANG after", table)
            self.assertIn("at: rangereplay: range 1 'kernels 0:1': pass 2/9", table)
            self.assertIn("noreport: tool: report missing", table)
            self.assertIn("hang test hangs: 1/1 runs hung (limit 1.0 s)", table)
            self.assertIn("gpu: Fake GPU, 1.0", table)
            self.assertIn("corpus: 5 programs (5 cuda-samples at cccccccccccc) (", table)
            self.assertIn("5 ran (2 unchanged, 1 changed, 1 hung, 1 without a report)", table)
            # The hang_repro program ran last; every run left its output behind.
            summary = json.loads(read(os.path.join(logs, "corpus.json")))
            self.assertEqual([r["name"] for r in summary["results"]], ["good", "declines", "flip", "noreport", "hangs"])
            self.assertTrue(os.path.exists(os.path.join(logs, "good.plain1.stdout")))
            self.assertTrue(os.path.exists(os.path.join(logs, "good.verify.json")))
            self.assertTrue(os.path.exists(os.path.join(logs, "hangs.hang.txt")))
            self.assertEqual(summary["hang_test"][0]["hung"], 1)


class Interrupt(FakeCorpus, unittest.TestCase):
    def test_sigterm_kills_the_run_in_progress_and_still_writes_the_summary(self):
        with tempfile.TemporaryDirectory() as d:
            plist, path = self.make_fake(d, {"good": "echo 'Test passed'", "hangs": "echo 'Test passed'"})
            logs = os.path.join(d, "logs")
            env = dict(os.environ, **path)
            proc = subprocess.Popen([sys.executable, os.path.join(HERE, "run_corpus.py"), "--programs", plist, "run",
                                     "--build", os.path.join(d, "build"), "--corpus", os.path.join(d, "corpus"),
                                     "--logs", logs, "--timeout", "50"], env=env, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True)
            stdout = os.path.join(logs, "hangs.stderr")
            for _ in range(100):  # until the hanging tool run has started
                if os.path.exists(stdout) and "pass 2/9" in read(stdout):
                    break
                time.sleep(0.1)
            proc.terminate()
            out, err = proc.communicate(timeout=20)
            self.assertEqual(proc.returncode, 1)
            self.assertIn("interrupted by SIGTERM", out)
            self.assertRegex(out, r"\ngood +PASS ")
            launcher = os.path.join(d, "build", "tools", "cli", "rangereplay")
            left = [c for c in (rc.read_text(f) for f in glob.glob("/proc/[0-9]*/cmdline")) if launcher in c]
            self.assertEqual(left, [], "the hanging launcher outlived the interrupt")


if __name__ == "__main__":
    unittest.main()
