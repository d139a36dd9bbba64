"""CPU test of scripts/check-layers.py, the build's check of the folder table
(docs/architecture.md, "Folders"), on small fake trees written to a temporary
folder: allowed and forbidden project includes per folder, CUDA headers in
core and report, includes beside the file, a file with a row of its own, and
the stamp and exit status of main(). No build output or GPU (CTest label unit):

    python3 tests/scripts/test_check_layers.py
"""
import contextlib, importlib.util, io, os, shutil, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("check_layers", os.path.join(HERE, "..", "..", "scripts",
                                                                            "check-layers.py"))
layers = importlib.util.module_from_spec(spec)
spec.loader.exec_module(layers)


@contextlib.contextmanager
def tree(files):
    """A temporary repository holding files {relative path: text}."""
    root = tempfile.mkdtemp(prefix="rr_layers_")
    try:
        for path, text in files.items():
            os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
            with open(os.path.join(root, path), "w") as f:
                f.write(text)
        yield root
    finally:
        shutil.rmtree(root)


CLEAN = {
    "src/core/base/status.h": "#pragma once\n#include <string>\n#include <nlohmann/json.hpp>\n",
    "src/core/snapshot/storage/plan.h": '#include "core/base/status.h"\n#include "plan_detail.h"\n',
    "src/core/snapshot/storage/plan_detail.h": "#include <vector>\n",
    "src/report/report_model.h": '#include "core/base/status.h"\n#include <fmt/format.h>\n',
    "src/cuda/snapshot.h": '#include <cuda.h>\n#include "core/base/status.h"\n#include "cuda/cu_status.h"\n',
    "src/cuda/cu_status.h": "#include <cuda.h>\n",
    "src/cuda/kernels/copy_kernel.cu": "#include <cuda_runtime.h>\n#include <cooperative_groups.h>\n",
    "src/cupti/session.cpp": '#include <cupti_target.h>\n#include "cuda/snapshot.h"\n#include "core/base/status.h"\n',
    "src/tool/profiler_tool.cpp": ('#include <nvtx3/nvToolsExt.h>\n#include "cupti/session.h"\n'
                                   '#include "report/report_model.h"\n#include "cuda/snapshot.h"\n'),
    "src/inject/injection_entry.cpp": '#include "tool/profiler_tool.h"\n',
    "tools/cli/launcher.cpp": '#include "cli/launcher.h"\n#include "report/report_model.h"\n#include "core/base/status.h"\n',
    "tools/cli/metric_queries.cpp": '#include <cupti.h>\n#include "cupti/session.h"\n#include "cli/launcher.h"\n',
    "tests/unit/cli/launcher_test.cpp": ('#include <gtest/gtest.h>\n#include "cli/launcher.h"\n'
                                         '#include "temp_tree.h"\n#include "unit/core/snapshot/storage/fake.h"\n'),
    "tests/unit/cli/temp_tree.h": "#include <string>\n",
    "docs/not_checked.cpp": '#include "tool/profiler_tool.h"\n',
    "src/core/notes.txt": '#include "tool/profiler_tool.h"\n',
}


def problems_with(extra):
    with tree({**CLEAN, **extra}) as root:
        return layers.check_tree(root)


def test_a_tree_that_keeps_the_table_passes():
    assert problems_with({}) == []


def test_a_project_include_across_the_table_names_file_include_and_rule():
    got = problems_with({"src/cuda/snapshot.h": '#include <cuda.h>\n\n#include "report/report_model.h"\n'})
    assert got == ['src/cuda/snapshot.h:3: #include "report/report_model.h": cuda may include only cuda, core '
                   '(cuda depends only on core and the CUDA driver)'], got
    got = problems_with({"src/core/snapshot/storage/plan.h": '#  include "cuda/snapshot.h"\n'})
    assert got == ['src/core/snapshot/storage/plan.h:1: #include "cuda/snapshot.h": core may include only core '
                   '(core is GPU-independent and depends on no other folder)'], got


def test_each_folder_gets_its_own_row():
    got = problems_with({"src/report/report_json.cpp": '#include "tool/profiler_tool.h"\n#include "cuda/x.h"\n',
                         "src/cupti/other.cpp": '#include "report/report_model.h"\n',
                         "src/inject/injection_entry.cpp": '#include "tool/profiler_tool.h"\n#include "core/base/status.h"\n',
                         "tests/unit/core/trigger_test.cpp": '#include "tool/range_trigger.h"\n'})
    assert [p.split(": #include ")[0] + " " + p.split(": #include ")[1].split(":")[0] for p in got] == [
        'src/cupti/other.cpp:1 "report/report_model.h"',
        'src/inject/injection_entry.cpp:2 "core/base/status.h"',
        'src/report/report_json.cpp:1 "tool/profiler_tool.h"',
        'src/report/report_json.cpp:2 "cuda/x.h"',
        'tests/unit/core/trigger_test.cpp:1 "tool/range_trigger.h"'], got
    assert "report may include only report, core (report depends only on core)" in got[2], got[2]
    assert "inject may include only inject, tool" in got[1], got[1]


def test_cuda_headers_are_refused_in_core_and_report_only():
    headers = ["cuda.h", "cuda_runtime.h", "cuda_runtime_api.h", "cupti.h", "cupti_target.h", "nvtx3/nvToolsExt.h",
               "nvperf_host.h", "generated_nvtx_meta.h", "cub/cub.cuh"]
    text = "".join(f"#include <{h}>\n" for h in headers)
    got = problems_with({"src/core/bad.h": text, "src/report/bad.cpp": '#include "cuda.h"\n'})
    assert [p.split(":")[0:2] for p in got] == [["src/core/bad.h", str(i + 1)] for i in range(len(headers))] + [
        ["src/report/bad.cpp", "1"]], got
    assert got[0] == ("src/core/bad.h:1: #include <cuda.h>: core may include no CUDA, CUPTI, NVTX or NVPW header "
                      f"({layers.CUDA_HEADER_NAMES}) (core is GPU-independent and depends on no other folder)"), got[0]
    # Other system and third-party headers stay allowed, and so do the CUDA ones in cuda/, cupti/, tool/.
    assert problems_with({"src/core/ok.h": "#include <cstdint>\n#include <immintrin.h>\n#include <fmt/format.h>\n"
                                           "#include <cudalike/x.h>\n"}) == []


def test_a_file_with_a_row_of_its_own_and_includes_beside_a_file():
    # metric_queries.cpp (its own module) may include cupti; the launcher's other files may not.
    got = problems_with({"tools/cli/gpu_probe.cpp": '#include "cupti/session.h"\n#include "launcher.h"\n',
                         "tools/cli/launcher.h": "#pragma once\n"})
    assert got == ['tools/cli/gpu_probe.cpp:1: #include "cupti/session.h": cli may include only cli, report, core '
                   '(the launcher (rangereplay_cli_lib) links core and report)'], got
    # An include found beside the file belongs to that file's folder.
    got = problems_with({"src/report/sneaky.cpp": '#include "../tool/profiler_tool.h"\n',
                         "src/tool/profiler_tool.h": "#pragma once\n"})
    assert got == ['src/report/sneaky.cpp:1: #include "../tool/profiler_tool.h": report may include only report, '
                   'core (report depends only on core)'], got


def test_commented_out_includes_and_files_outside_the_table_are_not_read():
    assert problems_with({"src/core/c.h": '// #include "cuda/snapshot.h"\n  /* #include <cuda.h> */\n',
                          "examples/stream.cu": '#include "tool/profiler_tool.h"\n'}) == []


def test_main_prints_the_violations_and_writes_the_stamp_only_when_clean():
    with tree(CLEAN) as root:
        stamp = os.path.join(root, "layers.stamp")
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            assert layers.main(["--root", root, "--stamp", stamp]) == 0
        assert out.getvalue() == "" and open(stamp).read() == "ok\n"
        with open(os.path.join(root, "src/core/base/status.h"), "a") as f:
            f.write('#include "report/report_model.h"\n')
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            assert layers.main(["--root", root, "--stamp", stamp]) == 1
        assert out.getvalue().splitlines() == [
            'src/core/base/status.h:4: #include "report/report_model.h": core may include only core (core is '
            'GPU-independent and depends on no other folder)'], out.getvalue()
        assert err.getvalue().startswith("check-layers: 1 include(s) across the folder table"), err.getvalue()
        assert not os.path.exists(stamp)  # a failed check leaves no stamp behind


def main():
    tests = [v for k, v in sorted(globals().items()) if k.startswith("test_") and callable(v)]
    for t in tests:
        t()
        print(f"ok  {t.__name__}")
    print(f"{len(tests)} tests passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
