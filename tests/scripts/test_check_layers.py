"""CPU test of scripts/check-layers.py, the build's check of every #include
against the targets' links, on small fake trees written to a temporary
folder with a hand-written CMake file API reply: includes of linked and
unlinked targets, links followed transitively, executables' link lines,
utility dependencies, headers of a folder and headers listed by another
target, CUDA headers, includes beside a file, and the stamp and exit status
of main(); then one tree configured by the real cmake (its first configure,
whose reply the script asks for itself). No build output or GPU (CTest label
unit):

    python3 tests/scripts/test_check_layers.py
"""
import contextlib, importlib.util, io, json, os, shutil, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("check_layers", os.path.join(HERE, "..", "..", "scripts",
                                                                            "check-layers.py"))
layers = importlib.util.module_from_spec(spec)
spec.loader.exec_module(layers)


def write(root, files):
    for path, text in files.items():
        os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
        with open(os.path.join(root, path), "w") as f:
            f.write(text)


def write_reply(root, build, targets):
    """A codemodel-v2 reply in build for targets, a list of dicts: name, type
    (default STATIC_LIBRARY), dir (of its CMakeLists), sources, includes
    (folders relative to root), deps (names, as file API "dependencies"),
    links (names on the link line), cuda (a CUDA compile group)."""
    reply = os.path.join(build, ".cmake", "api", "v1", "reply")
    os.makedirs(reply)
    ids = {t["name"]: f"{t['name']}::@1" for t in targets}
    refs = []
    for t in targets:
        kind = t.get("type", "STATIC_LIBRARY")
        artifact = {"EXECUTABLE": "{}", "SHARED_LIBRARY": "lib{}.so", "STATIC_LIBRARY": "lib{}.a",
                    "MODULE_LIBRARY": "lib{}.so"}.get(kind)
        body = {"name": t["name"], "id": ids[t["name"]], "type": kind,
                "paths": {"source": t.get("dir", "."), "build": t.get("dir", ".")},
                "sources": [{"path": s} for s in t.get("sources", [])],
                "dependencies": [{"id": ids[d]} for d in t.get("deps", [])],
                "compileGroups": [{"language": "CUDA" if t.get("cuda") else "CXX",
                                   "includes": [{"path": os.path.join(root, i)} for i in t.get("includes", [])]}]}
        if artifact:
            body["artifacts"] = [{"path": os.path.join(t.get("dir", "."), artifact.format(t["name"]))}]
        if kind in layers.LINKABLE:
            # Paths on the link line are relative to the target's build folder.
            body["link"] = {"commandFragments": [
                {"role": "libraries", "fragment": os.path.relpath(os.path.join(dict_dir(targets, n),
                                                                               f"lib{n}.a"), t.get("dir", "."))}
                for n in t.get("links", [])] + [{"role": "flags", "fragment": "-Wl,--as-needed"}]}
        name = f"target-{t['name']}.json"
        with open(os.path.join(reply, name), "w") as f:
            json.dump(body, f)
        refs.append({"name": t["name"], "id": ids[t["name"]], "jsonFile": name})
    with open(os.path.join(reply, "codemodel-v2-1.json"), "w") as f:
        json.dump({"configurations": [{"name": "", "targets": refs}]}, f)
    with open(os.path.join(reply, "index-2026-01-01T00-00-00-0000.json"), "w") as f:
        json.dump({"reply": {"codemodel-v2": {"jsonFile": "codemodel-v2-1.json"}}}, f)


def dict_dir(targets, name):
    return next(t.get("dir", ".") for t in targets if t["name"] == name)


FILES = {
    "src/core/base/status.h": "#pragma once\n#include <string>\n#include <nlohmann/json.hpp>\n",
    "src/core/base/status.cpp": '#include "core/base/status.h"\n',
    "src/core/base/elapsed.h": "#pragma once\n#include <chrono>\n",
    "src/core/snapshot/plan.cpp": '#include "core/base/status.h"\n#include "storage/tier.h"\n',
    "src/core/snapshot/storage/tier.h": '#include "core/base/elapsed.h"\n',
    "src/core/snapshot/storage/tier.cpp": '#include "core/snapshot/storage/tier.h"\n',
    "src/report/report_model.h": '#include "core/base/status.h"\n#include <fmt/format.h>\n',
    "src/report/report_model.cpp": '#include "report/report_model.h"\n',
    "src/cuda/snapshot.h": '#include <cuda.h>\n#include "core/snapshot/storage/tier.h"\n#include "cuda/cu_status.h"\n',
    "src/cuda/cu_status.h": "#include <cuda.h>\n",
    "src/cuda/launch_shape.h": "#include <cuda.h>\n",
    "src/cuda/snapshot.cpp": '#include "cuda/snapshot.h"\n',
    "src/cuda/kernels/copy_kernel.cu": "#include <cuda_runtime.h>\n#include <cooperative_groups.h>\n",
    "src/tool/logic/driver_calls.cpp": '#include "cuda/launch_shape.h"\n#include "report/report_model.h"\n',
    "src/tool/profiler_tool.h": '#include <nvtx3/nvToolsExt.h>\n#include "tool/logic/x.h"\n',
    "src/tool/logic/x.h": '#include "core/base/status.h"\n',
    "src/tool/profiler_tool.cpp": '#include "tool/profiler_tool.h"\n#include "cuda/snapshot.h"\n',
    "src/inject/injection_entry.cpp": '#include "tool/profiler_tool.h"\n',
    "tools/cli/launcher.h": '#include "report/report_model.h"\n',
    "tools/cli/launcher.cpp": '#include "cli/launcher.h"\n#include "core/base/status.h"\n',
    "tools/cli/options.cpp": '#include "launcher.h"\n',
    "tools/cli/main.cpp": '#include "cli/launcher.h"\n',
    "tests/fuzz/fuzz.cpp": '#include "tool/profiler_tool.h"\n',
    "docs/not_checked.cpp": '#include "tool/profiler_tool.h"\n',
    "src/core/base/notes.txt": '#include "tool/profiler_tool.h"\n',
}

TARGETS = [
    {"name": "core_base", "dir": "src", "sources": ["src/core/base/status.cpp"], "includes": ["src"]},
    {"name": "core_snapshot", "dir": "src", "sources": ["src/core/snapshot/plan.cpp",
                                                        "src/core/snapshot/storage/tier.cpp"],
     "includes": ["src"], "deps": ["core_base"]},
    {"name": "report", "dir": "src", "sources": ["src/report/report_model.cpp"], "includes": ["src"],
     "deps": ["core_base", "layers"]},
    {"name": "cuda", "dir": "src", "sources": ["src/cuda/snapshot.cpp", "src/cuda/kernels/copy_kernel.cu"],
     "includes": ["src"], "deps": ["core_snapshot", "core_base"], "cuda": True},
    # tool_logic lists cuda/launch_shape.h, a header-only part of cuda.
    {"name": "tool_logic", "dir": "src", "sources": ["src/tool/logic/driver_calls.cpp", "src/cuda/launch_shape.h"],
     "includes": ["src", "cuda-toolkit"], "deps": ["report", "core_base"]},
    {"name": "tool", "type": "OBJECT_LIBRARY", "dir": "src", "sources": ["src/tool/profiler_tool.cpp"],
     "includes": ["src", "cuda-toolkit"], "deps": ["tool_logic", "cuda", "report", "core_snapshot", "core_base"]},
    {"name": "inject", "type": "SHARED_LIBRARY", "dir": "src", "sources": ["src/inject/injection_entry.cpp"],
     "includes": ["src", "cuda-toolkit"],
     "deps": ["tool", "tool_logic", "cuda", "report", "core_snapshot", "core_base"],
     "links": ["tool_logic", "cuda", "report", "core_snapshot", "core_base"]},
    {"name": "cli_lib", "dir": "tools/cli", "sources": ["tools/cli/launcher.cpp", "tools/cli/options.cpp"],
     "includes": ["src", "tools"], "deps": ["report", "core_base"]},
    # The launcher depends on the injection library (built first) but links only cli_lib.
    {"name": "launcher", "type": "EXECUTABLE", "dir": "tools/cli", "sources": ["tools/cli/main.cpp"],
     "includes": ["src", "tools"], "deps": ["cli_lib", "report", "core_base", "inject"],
     "links": ["cli_lib", "report", "core_base"]},
    {"name": "layers", "type": "UTILITY", "dir": "."},
]


@contextlib.contextmanager
def tree(extra_files=None, targets=None):
    """A temporary repository holding FILES (and extra_files), and its build
    folder with a reply describing targets (default TARGETS): (root, build)."""
    root = tempfile.mkdtemp(prefix="rr_layers_")
    try:
        write(root, {**FILES, **(extra_files or {})})
        write(root, {"cuda-toolkit/cuda.h": "", "cuda-toolkit/cupti.h": ""})
        build = os.path.join(root, "build")
        write_reply(root, build, targets or TARGETS)
        yield root, build
    finally:
        shutil.rmtree(root)


def problems_with(extra_files=None, targets=None):
    with tree(extra_files, targets) as (root, build):
        return layers.check_tree(root, build)


def test_a_tree_whose_includes_follow_the_links_passes():
    assert problems_with() == []


def test_an_include_of_a_target_not_linked_names_file_include_and_missing_link():
    got = problems_with({"src/cuda/snapshot.h": '#include <cuda.h>\n\n#include "report/report_model.h"\n'})
    assert got == ['src/cuda/snapshot.h:3: #include "report/report_model.h": cuda does not link report '
                   '(target_link_libraries in src/CMakeLists.txt)'], got
    got = problems_with({"src/core/snapshot/storage/tier.h": '#  include "cuda/snapshot.h"\n'})
    assert got == ['src/core/snapshot/storage/tier.h:1: #include "cuda/snapshot.h": core_snapshot does not link '
                   'cuda (target_link_libraries in src/CMakeLists.txt)'], got


def test_links_are_followed_transitively_and_utility_dependencies_grant_nothing():
    # inject links tool (an object library), which links cuda, which links core_snapshot.
    assert problems_with({"src/inject/injection_entry.cpp": '#include "core/snapshot/storage/tier.h"\n'}) == []
    # report depends on the utility target layers: that is no link.
    assert problems_with({"src/report/report_model.cpp": '#include "cuda/snapshot.h"\n'}) == [
        'src/report/report_model.cpp:1: #include "cuda/snapshot.h": report does not link cuda '
        '(target_link_libraries in src/CMakeLists.txt)']
    # The launcher is built after inject but does not link it: its link line decides.
    got = problems_with({"tools/cli/main.cpp": '#include "tool/profiler_tool.h"\n'})
    assert got == ['tools/cli/main.cpp:1: #include "tool/profiler_tool.h": launcher does not link tool '
                   '(target_link_libraries in tools/cli/CMakeLists.txt)'], got


def test_headers_belong_to_their_folders_target_and_to_targets_that_list_them():
    # tool/profiler_tool.h belongs to tool (the folder's sources); a header in
    # a folder without sources belongs to the nearest parent folder's target.
    got = problems_with({"src/tool/extra/helper.h": '#include "cupti/none.h"\n#include "tools_only.h"\n',
                         "src/report/report_model.h": '#include "tool/extra/helper.h"\n'})
    assert got == ['src/report/report_model.h:1: #include "tool/extra/helper.h": report does not link tool '
                   '(target_link_libraries in src/CMakeLists.txt)'], got
    # cuda/launch_shape.h is listed by tool_logic; cuda/cu_status.h is not.
    got = problems_with({"src/tool/logic/driver_calls.cpp": '#include "cuda/launch_shape.h"\n'
                                                            '#include "cuda/cu_status.h"\n'})
    assert got == ['src/tool/logic/driver_calls.cpp:2: #include "cuda/cu_status.h": tool_logic does not link cuda '
                   '(target_link_libraries in src/CMakeLists.txt)'], got


def test_cuda_headers_need_a_cuda_include_folder():
    headers = ["cuda.h", "cuda_runtime.h", "cuda_runtime_api.h", "cupti.h", "cupti_target.h", "nvtx3/nvToolsExt.h",
               "nvperf_host.h", "generated_nvtx_meta.h", "cub/cub.cuh"]
    text = "".join(f"#include <{h}>\n" for h in headers)
    got = problems_with({"src/core/base/bad.h": text, "src/report/bad.cpp": '#include "cuda.h"\n'})
    assert [p.split(":")[0:2] for p in got] == [["src/core/base/bad.h", str(i + 1)] for i in range(len(headers))] + [
        ["src/report/bad.cpp", "1"]], got
    assert got[0] == ("src/core/base/bad.h:1: #include <cuda.h>: core_base has no CUDA include folder: a "
                      "GPU-independent target includes no CUDA, CUPTI, NVTX or NVPW header "
                      f"({layers.CUDA_HEADER_NAMES})"), got[0]
    # Other system and third-party headers stay allowed; CUDA ones too where a
    # target compiles CUDA (cuda) or has the toolkit's folder (tool_logic, tool).
    assert problems_with({"src/core/base/ok.h": "#include <cstdint>\n#include <immintrin.h>\n"
                                                "#include <fmt/format.h>\n#include <cudalike/x.h>\n",
                          "src/tool/logic/x.h": "#include <cupti.h>\n"}) == []


def test_includes_beside_a_file_and_files_of_no_target():
    # An include found beside the file is a file of that folder.
    got = problems_with({"src/report/sneaky.cpp": '#include "../tool/profiler_tool.h"\n'})
    assert got == ['src/report/sneaky.cpp:1: #include "../tool/profiler_tool.h": report does not link tool '
                   '(target_link_libraries in src/CMakeLists.txt)'], got
    # tests/fuzz (not built here), docs/ and comments are not read.
    assert problems_with({"src/core/base/c.h": '// #include "cuda/snapshot.h"\n  /* #include <cuda.h> */\n'}) == []


def test_a_program_header_is_reached_through_a_declared_include_folder_only():
    # examples/common.h belongs to the example programs (executables, which
    # nothing links); a test app that declares examples/ as an include folder
    # may include it, one that does not may not.
    files = {"examples/common.h": "#pragma once\n", "examples/stream.cu": '#include "common.h"\n',
             "tests/apps/app.cu": '#include "common.h"\n', "tests/apps/other.cu": '#include "../../examples/common.h"\n'}
    programs = [{"name": "stream", "type": "EXECUTABLE", "dir": "examples", "sources": ["examples/stream.cu"],
                 "includes": ["examples"]},
                {"name": "app", "type": "EXECUTABLE", "dir": "tests/apps", "sources": ["tests/apps/app.cu"],
                 "includes": ["examples"]},
                {"name": "other", "type": "EXECUTABLE", "dir": "tests/apps", "sources": ["tests/apps/other.cu"]}]
    got = problems_with(files, TARGETS + programs)
    assert got == ['tests/apps/other.cu:1: #include "../../examples/common.h": other does not link stream '
                   '(target_link_libraries in tests/apps/CMakeLists.txt)'], got


def test_main_prints_the_violations_and_writes_the_stamp_only_when_clean():
    with tree() as (root, build):
        stamp = os.path.join(root, "layers.stamp")
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            assert layers.main(["--root", root, "--build", build, "--stamp", stamp]) == 0
        assert out.getvalue() == "" and open(stamp).read() == "ok\n"
        with open(os.path.join(root, "src/core/base/status.h"), "a") as f:
            f.write('#include "report/report_model.h"\n')
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            assert layers.main(["--root", root, "--build", build, "--stamp", stamp]) == 1
        assert out.getvalue().splitlines() == [
            'src/core/base/status.h:4: #include "report/report_model.h": core_base does not link report '
            '(target_link_libraries in src/CMakeLists.txt)'], out.getvalue()
        assert err.getvalue().startswith("check-layers: 1 include(s) of a target not linked"), err.getvalue()
        assert not os.path.exists(stamp)  # a failed check leaves no stamp behind
        # A build folder never configured: one line, exit 2.
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            assert layers.main(["--root", root, "--build", os.path.join(root, "nowhere")]) == 2
        assert err.getvalue().startswith("check-layers: no CMake file API reply in ") and \
            err.getvalue().count("\n") == 1, err.getvalue()


CMAKE_PROJECT = """cmake_minimum_required(VERSION 3.20)
project(layers_test CXX)
file(WRITE ${CMAKE_BINARY_DIR}/.cmake/api/v1/query/codemodel-v2 "")
add_library(base STATIC base/base.cpp)
target_include_directories(base PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
add_library(mid STATIC mid/mid.cpp)
target_link_libraries(mid PRIVATE base)
add_library(top STATIC top/top.cpp)
target_include_directories(top PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
add_executable(app app/main.cpp)
target_link_libraries(app PRIVATE mid top)
"""


def test_a_tree_configured_by_cmake():
    if shutil.which("cmake") is None:
        print("skip: no cmake")
        return
    root = tempfile.mkdtemp(prefix="rr_layers_cmake_")
    try:
        write(root, {"CMakeLists.txt": CMAKE_PROJECT, "base/base.h": "#pragma once\n",
                     "base/base.cpp": '#include "base/base.h"\n', "mid/mid.cpp": '#include "base/base.h"\n',
                     "top/top.h": "#pragma once\n", "top/top.cpp": '#include "top/top.h"\n#include "base/base.h"\n',
                     "app/main.cpp": '#include "base/base.h"\n#include "top/top.h"\nint main() {}\n'})
        build = os.path.join(root, "build")
        subprocess.run(["cmake", "-S", root, "-B", build], check=True, stdout=subprocess.DEVNULL)
        # The first configure wrote the query and no reply: the script configures once more.
        assert layers.newest_index(build) is None
        got = layers.check_tree(root, build)
        assert layers.newest_index(build) is not None
        assert got == ['top/top.cpp:2: #include "base/base.h": top does not link base '
                       '(target_link_libraries in CMakeLists.txt)'], got
    finally:
        shutil.rmtree(root)


def main():
    tests = [v for k, v in sorted(globals().items()) if k.startswith("test_") and callable(v)]
    for t in tests:
        t()
        print(f"ok  {t.__name__}")
    print(f"{len(tests)} tests passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
