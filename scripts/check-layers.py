#!/usr/bin/env python3
"""Checks the folder table of docs/architecture.md ("Folders") on the sources:
every `#include` of a C++/CUDA file must name a folder its own folder may
depend on, and the GPU-independent folders include no CUDA, CUPTI, NVTX or
NVPW header. Run by the build (the CMake target rangereplay_layers, which the
libraries depend on) and testable on the CPU with a fake tree
(tests/scripts/test_check_layers.py).

    scripts/check-layers.py [--root DIR] [--stamp FILE]

--root: the repository (default: this script's parent folder). --stamp: a
file written when the tree passes (for the build's dependency tracking).
Prints one line per violation,
    <file>:<line>: #include "<name>": <folder> may include only <folders> (<rule>)
and exits 1 when there is any, 0 otherwise. Reads files only; needs no build.

How an include is read: a quoted include whose first path component is a
project include root ("core/...", "cuda/...", "cli/..."; INCLUDE_ROOTS) names
the folder of the table that holds that path ("tool/logic/..." is
src/tool/logic); any other quoted include is looked up next to the including file
and belongs to that file's folder. Angle-bracket includes are system or
third-party headers: only the CUDA ones (CUDA_HEADER) are checked, in the
folders whose row says cuda_headers False.
"""
import argparse
import os
import re
import sys

# The include roots of the build (target_include_directories: src/, tools/,
# tests/): the first component of a project include names its folder.
INCLUDE_ROOTS = {
    "core": "src/core",
    "report": "src/report",
    "cuda": "src/cuda",
    "cupti": "src/cupti",
    "tool": "src/tool",
    "inject": "src/inject",
    "cli": "tools/cli",
    "metrics-probe": "tools/metrics-probe",
    "unit": "tests/unit",
    "gpu": "tests/gpu",
    "cupti_host": "tests/cupti_host",
}

# The folder table (docs/architecture.md, "Folders"): for each folder (or one
# file built as a target of its own), the folders its files may include
# besides their own, and whether CUDA headers are allowed. The longest
# matching path wins. The rows follow what each CMake target links.
LAYERS = {
    "src/core": {"may_include": [], "cuda_headers": False,
                 "rule": "core is GPU-independent and depends on no other folder"},
    "src/report": {"may_include": ["src/core"], "cuda_headers": False,
                   "rule": "report depends only on core"},
    "src/cuda": {"may_include": ["src/core"], "cuda_headers": True,
                 "rule": "cuda depends only on core and the CUDA driver"},
    "src/cupti": {"may_include": ["src/cuda", "src/core"], "cuda_headers": True,
                  "rule": "cupti depends on cuda and core"},
    # rangereplay_tool_logic: the tool's parts that call no CUDA driver or
    # CUPTI function (CUDA's and CUPTI's headers give them declarations and
    # enums); the unit tests and the injection library link it.
    "src/tool/logic": {"may_include": ["src/report", "src/core"], "cuda_headers": True,
                       "rule": "tool/logic links only report and core: no CUDA or CUPTI call"},
    # The driver-call table reads the launch parameters through the
    # header-only cuda/launch_shape.h (a template, no driver call).
    "src/tool/logic/driver_calls.cpp": {"may_include": ["src/cuda", "src/report", "src/core"], "cuda_headers": True,
                                        "rule": "tool/logic calls no CUDA function; cuda/launch_shape.h is header-only"},
    "src/tool": {"may_include": ["src/tool/logic", "src/cupti", "src/cuda", "src/report", "src/core"],
                 "cuda_headers": True,
                 "rule": "tool depends on tool/logic, cupti, cuda, report and core"},
    "src/inject": {"may_include": ["src/tool"], "cuda_headers": True,
                   "rule": "inject depends only on tool"},
    # rangereplay_cli_lib and the launcher link core and report only.
    "tools/cli": {"may_include": ["src/report", "src/core"], "cuda_headers": True,
                  "rule": "the launcher (rangereplay_cli_lib) links core and report"},
    # The metric-query module, loaded at run time, links cupti.
    "tools/cli/metric_queries.cpp": {"may_include": ["src/cupti", "src/cuda", "src/core"],
                                     "cuda_headers": True,
                                     "rule": "the metric-query module links cupti"},
    "tools/metrics-probe": {"may_include": ["tools/cli", "src/cupti", "src/cuda", "src/report", "src/core"],
                            "cuda_headers": True,
                            "rule": "metrics-probe links cupti and rangereplay_cli_lib"},
    # rangereplay_unit_tests links core, report and rangereplay_cli_lib; it
    # also tests metrics-probe's header-only option parsing.
    "tests/unit": {"may_include": ["tools/cli", "tools/metrics-probe", "src/report", "src/core"],
                   "cuda_headers": True,
                   "rule": "the CPU unit tests link core, report and the launcher's library"},
    # The tool's CUDA-free part (rangereplay_tool_logic: replay window,
    # counter session, range report, driver-call table, range recorder ...)
    # is linked into the unit tests and tested there.
    "tests/unit/tool": {"may_include": ["src/tool/logic", "tools/cli", "src/report", "src/core"],
                        "cuda_headers": True,
                        "rule": "the tool's unit tests link its CUDA-free part, tool/logic, with core and report"},
    # KernelCounterRanges (tool/restore_strategy.h) is inline: the counter
    # session's test uses it over the fake backend without linking tool/.
    "tests/unit/tool/counter_session_test.cpp": {"may_include": ["src/tool", "src/tool/logic", "tools/cli",
                                                                 "src/report", "src/core"],
                                                 "cuda_headers": True,
                                                 "rule": "only the inline KernelCounterRanges of tool/ is tested here"},
    "tests/gpu": {"may_include": ["src/cupti", "src/cuda", "src/report", "src/core"], "cuda_headers": True,
                  "rule": "the GPU tests link cuda, cupti and report"},
    "tests/cupti_host": {"may_include": ["src/cupti", "src/cuda", "src/core"], "cuda_headers": True,
                         "rule": "the CUPTI host tests link cupti"},
    "tests/fuzz": {"may_include": ["src/report", "src/core"], "cuda_headers": False,
                   "rule": "the fuzz targets link core and report"},
}

SOURCE_EXTENSIONS = (".h", ".hpp", ".inl", ".cpp", ".cc", ".cu", ".cuh")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
# CUDA toolkit headers: the driver and runtime API (cuda.h, cuda_runtime.h,
# cudaTypedefs.h, cuda_fp16.h ...), CUPTI, NVTX (nvtx3/, nvToolsExt),
# NVPW (nvperf_*), and the device libraries (cub, thrust, libcu++'s cuda/,
# cooperative groups).
CUDA_HEADER = re.compile(r"^(cuda[A-Za-z0-9_]*\.h|cupti[A-Za-z0-9_]*\.h|nvperf[A-Za-z0-9_]*\.h|nvToolsExt[A-Za-z0-9_]*\.h"
                         r"|generated_nvtx[A-Za-z0-9_]*\.h|cooperative_groups(\.h|/.*)|nvtx3/.*|cub/.*|thrust/.*"
                         r"|cuda/.*|driver_types\.h|vector_types\.h)$")
CUDA_HEADER_NAMES = "cuda*.h, cupti*.h, nvperf*.h, nvtx3/, nvToolsExt*.h, cub/, thrust/, cuda/"


def layer_of(path):
    """The LAYERS key of a path relative to the root (longest match), or None."""
    best = None
    for key in LAYERS:
        if path == key or path.startswith(key + "/"):
            if best is None or len(key) > len(best):
                best = key
    return best


def folder_of(key):
    """The folder of a LAYERS key (a file row belongs to its folder)."""
    return os.path.dirname(key) if key.endswith(SOURCE_EXTENSIONS) else key


def short(folder):
    """src/core -> core, src/tool/logic -> tool/logic, tools/cli -> cli: the
    folder as its include root names it."""
    for root, f in INCLUDE_ROOTS.items():
        if folder == f or folder.startswith(f + "/"):
            return root + folder[len(f):]
    return folder


def included_folder(root, path, name):
    """The folder (an INCLUDE_ROOTS value) a quoted include names, or None
    when it is outside the table (a header of another library)."""
    first, _, rest = name.partition("/")
    if first in INCLUDE_ROOTS and rest:
        key = layer_of(INCLUDE_ROOTS[first] + "/" + rest)
        return folder_of(key) if key else INCLUDE_ROOTS[first]
    beside = os.path.normpath(os.path.join(os.path.dirname(path), name))
    if os.path.isfile(os.path.join(root, beside)):
        key = layer_of(beside)
        return folder_of(key) if key else None
    return None


def check_file(root, path):
    """Violations of one file (path relative to root): a list of lines."""
    key = layer_of(path)
    if key is None:
        return []
    row = LAYERS[key]
    own = folder_of(key)
    allowed = [own] + row["may_include"]
    problems = []
    with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
        for number, line in enumerate(f, 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            quote, name = m.groups()
            shown = f'"{name}"' if quote == '"' else f"<{name}>"
            target = included_folder(root, path, name) if quote == '"' else None
            if target is None:
                if not row["cuda_headers"] and CUDA_HEADER.match(name):
                    problems.append(f"{path}:{number}: #include {shown}: {short(own)} may include no CUDA, CUPTI, "
                                    f"NVTX or NVPW header ({CUDA_HEADER_NAMES}) ({row['rule']})")
            elif target not in allowed:
                names = ", ".join(short(f) for f in allowed)
                problems.append(f"{path}:{number}: #include {shown}: {short(own)} may include only {names} "
                                f"({row['rule']})")
    return problems


def source_files(root):
    """Every C++/CUDA file under the table's folders, relative to root, sorted."""
    files = set()
    for key in LAYERS:
        top = os.path.join(root, key)
        if os.path.isfile(top):
            files.add(key)
            continue
        for folder, _, names in os.walk(top):
            for n in names:
                if n.endswith(SOURCE_EXTENSIONS):
                    files.add(os.path.relpath(os.path.join(folder, n), root))
    return sorted(files)


def check_tree(root):
    """All violations under root, in file and line order."""
    problems = []
    for path in source_files(root):
        problems += check_file(root, path)
    return problems


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    parser.add_argument("--stamp", help="file written when the tree passes")
    args = parser.parse_args(argv)
    problems = check_tree(args.root)
    if args.stamp and os.path.exists(args.stamp):
        os.remove(args.stamp)
    for p in problems:
        print(p)
    if problems:
        print(f"check-layers: {len(problems)} include(s) across the folder table (docs/architecture.md, "
              f"\"Folders\"; the table is LAYERS in scripts/check-layers.py)", file=sys.stderr)
        return 1
    if args.stamp:
        with open(args.stamp, "w") as f:
            f.write("ok\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
