#!/usr/bin/env python3
"""Checks every project `#include` against the build's targets: a file may
include the headers of its own target and of the targets that target links,
as CMake's file API reports them (codemodel-v2), and a target without a CUDA
include folder includes no CUDA, CUPTI, NVTX or NVPW header. The links are
written once, in the CMakeLists' target_link_libraries; this script holds no
table of its own. Run by the build (the CMake target rangereplay_layers,
cmake/layers.cmake, which every library depends on) and testable on the CPU
with a fake tree and a fake reply (tests/scripts/test_check_layers.py).

    scripts/check-layers.py [--root DIR] [--build DIR] [--stamp FILE]

--root: the repository (default: this script's parent folder). --build: the
configured build folder (default: ROOT/build); cmake/layers.cmake writes the
file API query there (.cmake/api/v1/query/codemodel-v2) and CMake answers it
when it generates; where a build folder has the query but no reply yet (its
first configure, which writes the query), the script runs `cmake BUILD` once
to get one. --stamp: a file written when the tree passes (for the build's
dependency tracking). Prints one line per violation,
    <file>:<line>: #include "<name>": <target> does not link <target of the header> (<where to add it>)
    <file>:<line>: #include <cuda.h>: <target> has no CUDA include folder (...)
and exits 1 when there is any, 0 otherwise; exits 2 with one line when the
build folder has no reply to read.

How the build is read:
- a target's dependencies are what CMake builds before it: for a static or
  object library, the targets of its link closure (file API "dependencies",
  less utility targets such as this check); for an executable or a shared or
  module library, the targets whose files its link line names, and the object
  libraries it takes. The check follows them transitively: a file may include
  a header of any target in its target's link closure, the targets a PRIVATE
  link brings in included (a static library's private links reach the link
  line of whatever links it).
- a compiled source belongs to the targets that compile it. Any other file
  (a header) belongs to the targets that list it as a source (a header-only
  part another target uses, declared with target_sources) and to its
  folder's target: the one compiling most of the sources directly in that
  folder, or in the nearest parent folder that has sources. A file that
  belongs to no target (a folder this build does not compile) is not read.
- a quoted include is looked up beside the including file, then in the
  include folders of the file's targets inside the repository; one found
  nowhere there (a generated or third-party header) is not checked. Angle
  includes are system or third-party headers: only the CUDA ones
  (CUDA_HEADER) are checked, against targets with no CUDA include folder (a
  target has one when it compiles CUDA or an include folder of it holds
  cuda.h).
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys

SOURCE_EXTENSIONS = (".h", ".hpp", ".inl", ".cpp", ".cc", ".cu", ".cuh")
COMPILED_EXTENSIONS = (".cpp", ".cc", ".cu")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
# CUDA toolkit headers: the driver and runtime API (cuda.h, cuda_runtime.h,
# cudaTypedefs.h, cuda_fp16.h ...), CUPTI, NVTX (nvtx3/, nvToolsExt),
# NVPW (nvperf_*), and the device libraries (cub, thrust, libcu++'s cuda/,
# cooperative groups).
CUDA_HEADER = re.compile(r"^(cuda[A-Za-z0-9_]*\.h|cupti[A-Za-z0-9_]*\.h|nvperf[A-Za-z0-9_]*\.h|nvToolsExt[A-Za-z0-9_]*\.h"
                         r"|generated_nvtx[A-Za-z0-9_]*\.h|cooperative_groups(\.h|/.*)|nvtx3/.*|cub/.*|thrust/.*"
                         r"|cuda/.*|driver_types\.h|vector_types\.h)$")
CUDA_HEADER_NAMES = "cuda*.h, cupti*.h, nvperf*.h, nvtx3/, nvToolsExt*.h, cub/, thrust/, cuda/"
LINKABLE = ("EXECUTABLE", "SHARED_LIBRARY", "MODULE_LIBRARY")


class NoReply(Exception):
    """The build folder has no codemodel reply to read."""


class Target:
    """What the check needs of one CMake target."""

    def __init__(self, name, kind, cmake_dir):
        self.name = name
        self.kind = kind
        self.cmake_dir = cmake_dir  # the folder of the CMakeLists.txt that defines it, relative to the root
        self.sources = []  # files in the repository, relative to the root
        self.includes = []  # include folders in the repository, relative to the root
        self.cuda = False  # compiles CUDA or has an include folder holding cuda.h
        self.deps = set()  # names of the targets it depends on directly
        self.closure = set()  # itself and everything it depends on, transitively


def newest_index(build):
    """The path of the newest file API reply index in build, or None."""
    found = sorted(glob.glob(os.path.join(build, ".cmake", "api", "v1", "reply", "index-*.json")))
    return found[-1] if found else None


def ensure_reply(build):
    """The newest reply index; runs `cmake BUILD` once when the query is
    there but no reply is (the configure that wrote the query)."""
    index = newest_index(build)
    query = os.path.join(build, ".cmake", "api", "v1", "query", "codemodel-v2")
    if index is None and os.path.exists(query) and os.path.exists(os.path.join(build, "CMakeCache.txt")):
        subprocess.run(["cmake", build], stdout=subprocess.DEVNULL, check=False)
        index = newest_index(build)
    if index is None:
        raise NoReply(f"check-layers: no CMake file API reply in {build}/.cmake/api/v1/reply: configure it first "
                      f"(cmake -S . -B {build}), or pass --build with a configured build folder")
    return index


def inside(root, path):
    """path (absolute or relative to root) relative to root, or None when it
    lies outside root."""
    full = os.path.normpath(os.path.join(root, path))
    rel = os.path.relpath(full, root)
    return None if rel == ".." or rel.startswith("../") else rel


def read_targets(root, build):
    """{name: Target} of the build's one configuration, from the newest reply."""
    index_path = ensure_reply(build)
    reply = os.path.dirname(index_path)
    with open(index_path) as f:
        index = json.load(f)
    codemodel_ref = index.get("reply", {}).get("codemodel-v2")
    if not codemodel_ref or "jsonFile" not in codemodel_ref:
        raise NoReply(f"check-layers: {index_path} answers no codemodel-v2 query: configure {build} again")
    with open(os.path.join(reply, codemodel_ref["jsonFile"])) as f:
        codemodel = json.load(f)
    root = os.path.realpath(root)
    build_rel = inside(root, os.path.realpath(build))
    config = codemodel["configurations"][0]
    raw = {}
    for ref in config["targets"]:
        with open(os.path.join(reply, ref["jsonFile"])) as f:
            raw[ref["id"]] = json.load(f)
    names = {tid: t["name"] for tid, t in raw.items()}
    kinds = {tid: t["type"] for tid, t in raw.items()}
    artifacts = {}
    for tid, t in raw.items():
        for a in t.get("artifacts", []):
            artifacts[os.path.normpath(os.path.join(build, a["path"]))] = names[tid]
    targets = {}
    for tid, t in raw.items():
        if t["type"] == "UTILITY":
            continue
        target = Target(t["name"], t["type"], t.get("paths", {}).get("source", "."))
        for s in t.get("sources", []):
            rel = None if s.get("isGenerated") else inside(root, s["path"])
            if rel and not (build_rel and rel.startswith(build_rel + "/")):
                target.sources.append(rel)
        for group in t.get("compileGroups", []):
            if group.get("language") == "CUDA":
                target.cuda = True
            for inc in group.get("includes", []):
                if os.path.isfile(os.path.join(inc["path"], "cuda.h")):
                    target.cuda = True
                rel = inside(root, inc["path"])
                if rel and rel not in target.includes and not (build_rel and rel.startswith(build_rel)):
                    target.includes.append(rel)
        deps = [d["id"] for d in t.get("dependencies", []) if kinds.get(d["id"]) != "UTILITY"]
        if t["type"] in LINKABLE:
            target.deps = {names[d] for d in deps if kinds[d] == "OBJECT_LIBRARY"}
            for frag in t.get("link", {}).get("commandFragments", []):
                if frag.get("role") == "libraries":
                    # Paths on the link line are relative to the target's own build folder.
                    path = os.path.normpath(os.path.join(build, t.get("paths", {}).get("build", "."),
                                                         frag["fragment"]))
                    if path in artifacts:
                        target.deps.add(artifacts[path])
        else:
            target.deps = {names[d] for d in deps}
        targets[target.name] = target
    for target in targets.values():
        seen, todo = {target.name}, list(target.deps)
        while todo:
            name = todo.pop()
            if name in seen or name not in targets:
                continue
            seen.add(name)
            todo += targets[name].deps
        target.closure = seen
    return targets


class Ownership:
    """Which targets each file of the repository belongs to."""

    def __init__(self, targets):
        self.targets = targets
        self.listed = {}  # file -> names of the targets listing it
        counts = {}  # folder -> {target: compiled sources directly in it}
        for t in targets.values():
            for s in t.sources:
                self.listed.setdefault(s, set()).add(t.name)
                if s.endswith(COMPILED_EXTENSIONS):
                    per = counts.setdefault(os.path.dirname(s), {})
                    per[t.name] = per.get(t.name, 0) + 1
        self.folder_targets = {}
        for folder, per in counts.items():
            most = max(per.values())
            self.folder_targets[folder] = {n for n, c in per.items() if c == most}

    def of_folder(self, folder):
        """The targets of a folder, or of its nearest parent with sources."""
        while True:
            if folder in self.folder_targets:
                return self.folder_targets[folder]
            if folder in ("", "."):
                return set()
            folder = os.path.dirname(folder)

    def of(self, path):
        """The names of the targets path belongs to (empty: not checked)."""
        listed = self.listed.get(path, set())
        if listed and path.endswith(COMPILED_EXTENSIONS):
            return listed
        return listed | self.of_folder(os.path.dirname(path))


def where_to_link(targets, owners):
    """Where the link is declared: the CMakeLists of the including targets."""
    files = sorted({os.path.join(targets[o].cmake_dir, "CMakeLists.txt").removeprefix("./") for o in owners})
    return "target_link_libraries in " + ", ".join(files)


def resolve(root, path, name, include_dirs):
    """The repository file a quoted include names, relative to root, or None."""
    for folder in [os.path.dirname(path)] + include_dirs:
        candidate = os.path.normpath(os.path.join(folder, name))
        if not candidate.startswith("..") and os.path.isfile(os.path.join(root, candidate)):
            return candidate
    return None


def shared_program_header(targets, owners, header, include_dirs):
    """Whether `header` is a header of programs (only executables own it:
    none can be linked) that the including target reaches through an include
    folder it declares itself, such as examples/example_common.h for the
    test apps: the include folder is then the declared dependency."""
    if not all(targets[o].kind == "EXECUTABLE" for o in owners):
        return False
    return os.path.dirname(header) in include_dirs


def check_file(root, path, targets, owned):
    """Violations of one file (path relative to root): a list of lines."""
    owners = sorted(owned.of(path))
    if not owners:
        return []
    allowed = set().union(*(targets[o].closure for o in owners))
    include_dirs = []
    for o in owners:
        include_dirs += [d for d in targets[o].includes if d not in include_dirs]
    cuda = any(targets[o].cuda for o in owners)
    who = " or ".join(owners)
    problems = []
    with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
        for number, line in enumerate(f, 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            quote, name = m.groups()
            shown = f'"{name}"' if quote == '"' else f"<{name}>"
            header = resolve(root, path, name, include_dirs) if quote == '"' else None
            if header is None:
                if not cuda and CUDA_HEADER.match(name):
                    problems.append(f"{path}:{number}: #include {shown}: {who} has no CUDA include folder: a "
                                    f"GPU-independent target includes no CUDA, CUPTI, NVTX or NVPW header "
                                    f"({CUDA_HEADER_NAMES})")
                continue
            theirs = owned.of(header)
            if theirs and not theirs & allowed and not shared_program_header(targets, theirs, header, include_dirs):
                problems.append(f"{path}:{number}: #include {shown}: {who} does not link "
                                f"{' or '.join(sorted(theirs))} ({where_to_link(targets, owners)})")
    return problems


def files_to_check(root, targets):
    """Every C++/CUDA file in the folders of the targets' sources (and their
    subfolders), relative to root, sorted."""
    tops = {s.split("/")[0] for t in targets.values() for s in t.sources if "/" in s}
    files = {s for t in targets.values() for s in t.sources if s.endswith(SOURCE_EXTENSIONS)}
    for top in tops:
        for folder, dirs, names in os.walk(os.path.join(root, top)):
            dirs[:] = [d for d in dirs if not os.path.exists(os.path.join(folder, d, "CMakeCache.txt"))]
            for n in names:
                if n.endswith(SOURCE_EXTENSIONS):
                    files.add(os.path.relpath(os.path.join(folder, n), root))
    return sorted(files)


def check_tree(root, build):
    """All violations under root against the build folder's targets, in file
    and line order."""
    targets = read_targets(root, build)
    owned = Ownership(targets)
    problems = []
    for path in files_to_check(root, targets):
        problems += check_file(root, path, targets, owned)
    return problems


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    parser.add_argument("--build", help="the configured build folder (default: ROOT/build)")
    parser.add_argument("--stamp", help="file written when the tree passes")
    args = parser.parse_args(argv)
    if args.stamp and os.path.exists(args.stamp):
        os.remove(args.stamp)
    try:
        problems = check_tree(args.root, args.build or os.path.join(args.root, "build"))
    except NoReply as e:
        print(e, file=sys.stderr)
        return 2
    for p in problems:
        print(p)
    if problems:
        print(f"check-layers: {len(problems)} include(s) of a target not linked (the links are the CMakeLists' "
              f"target_link_libraries, read from the build's file API reply; docs/architecture.md, \"Folders\")",
              file=sys.stderr)
        return 1
    if args.stamp:
        with open(args.stamp, "w") as f:
            f.write("ok\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
