#!/usr/bin/env python3
"""run_corpus.py: public CUDA programs run plain and under rangereplay.

The programs (NVIDIA cuda-samples, the Rodinia benchmark suite's CUDA
programs and HeCBench's CUDA programs), how to build and run them, their
range selections and their own pass/fail lines are listed in programs.json
beside this file (nothing of the programs' code is kept in this repository).
Two subcommands:

  prepare [--samples <path>] [--rodinia <path>] [--hecbench <path>] --out <dir> [--only A,B] [--jobs N]
      <path> is a checkout or a bare git repository of the source (the
      pinned commit is then extracted with `git archive`): --samples for
      cuda-samples, --rodinia for gpu-rodinia, --hecbench for HeCBench.
      Builds every program of the
      sources given with nvcc into <dir>/<name>/ with its data files (and
      runs its input generator there, where it has one), strips the binaries
      and writes <dir>/manifest.json (each source's commit, build lines, what
      built, build errors). A program that does not build is reported and
      skipped. Fails when <dir> is larger than --max-mib (52 MiB: it travels
      to the GPU machine).

  run --build <rangereplay build dir> --corpus <dir> --logs <dir>
      [--only A,B] [--timeout S] [--repeat-hang-test N] [--budget S]
      For each program: two plain runs, then per range selection
      `rangereplay profile <selection> --set <set> -o <logs>/<name>.json -- <exe> <args>`
      and the same with --verify, each in its own process group under a time
      limit (a run past it is killed as a group and reported as HANG with the
      last `rangereplay` line of its stderr). Prints one row per program last
      and writes <logs>/corpus.json, <logs>/corpus.txt and every run's output.
      Exit 1 when a program's verdict or exit code changed under the tool, a
      run hung or a report is missing; 0 otherwise; 2 for bad input.

Python 3 standard library only.
"""
import argparse
import collections
import concurrent.futures
import difflib
import glob
import hashlib
import json
import os
import re
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAMS_JSON = os.path.join(HERE, "programs.json")
MANIFEST = "manifest.json"
SIZE_LIMIT_MIB = 52
KNOWN_SETS = ("single-pass", "basic", "memory", "compute", "detailed", "full")
PROGRAM_FIELDS = {"name", "path", "sources", "nvcc", "libs", "data", "args", "features", "selections", "pass", "fail",
                  "deterministic", "ignore", "set", "hang_repro", "notes", "exe", "source", "generate", "files",
                  "extract"}
GENERATE_FIELDS = {"sources", "nvcc", "libs", "args", "mkdir", "outputs"}
DEFAULT_SOURCE = "cuda-samples"
# The repositories programs.json may take programs from: the prepare option
# that names a copy, the folders a checkout holds, the placeholder its root
# becomes in the manifest's build lines, the folders extracted besides the
# programs' own (and besides those a program names in its 'extract'), and
# where to clone it. programs.json pins each one's commit
# (cuda-samples: the top-level 'commit'; the others: 'sources').
SOURCE_KINDS = {
    "cuda-samples": {"option": "--samples", "markers": ("Common", "Samples"), "placeholder": "<samples>",
                     "extract": ("Common",), "url": "https://github.com/NVIDIA/cuda-samples"},
    "rodinia": {"option": "--rodinia", "markers": ("cuda", "common"), "placeholder": "<rodinia>",
                "extract": (), "url": "https://github.com/yuhc/gpu-rodinia"},
    "hecbench": {"option": "--hecbench", "markers": ("src", "src/include"), "placeholder": "<hecbench>",
                 "extract": (), "url": "https://github.com/zjin-lcf/HeCBench"},
}
REQUIRED_FIELDS = ("name", "path", "sources", "features", "selections", "pass", "fail", "deterministic")
RANGE_SOURCES = ("--kernel-range", "--profiler-api", "--nvtx-include")
# The first line of the report table the launcher prints on stdout after the
# application ends: "rangereplay <version>, pid <pid>".
REPORT_HEADER = re.compile(r"^rangereplay( [^,\s]+)?(, pid \d+)?$")
# With several processes' reports, each table follows a line naming its
# process ("==== rank 1 (pid 4242) ====", "==== pid 4242 ===="), after an
# empty line.
PROCESS_HEADER = re.compile(r"^==== (rank -?\d+ \(pid \d+\)|pid \d+|process) ====$")


class CorpusError(Exception):
    """Bad input or environment; the message names the cause and the fix."""


class Interrupted(Exception):
    """SIGTERM or SIGINT arrived (e.g. from `timeout`): the run in progress is
    killed with its group and the summary of what ran is still written."""


def on_signal(signum, _frame):
    raise Interrupted(signal.Signals(signum).name)


def log(msg):
    print(msg, file=sys.stderr, flush=True)


# --------------------------------------------------------------------------
# programs.json


def parse_kernel_range(text):
    """[(first, end), ...] of a --kernel-range value, with the launcher's
    rules: FIRST:END, END exclusive and after FIRST, windows ascending without
    overlap. Raises ValueError naming the problem."""
    windows = []
    for item in text.split(","):
        m = re.fullmatch(r"(\d+):(\d+)", item)
        if not m:
            raise ValueError(f"'{item}' is not FIRST:END (e.g. 100:164)")
        first, end = int(m.group(1)), int(m.group(2))
        if end <= first:
            raise ValueError(f"'{item}': END {end} is not after FIRST {first}")
        if windows and first < windows[-1][1]:
            raise ValueError(f"'{item}' overlaps or precedes {windows[-1][0]}:{windows[-1][1]}")
        windows.append((first, end))
    return windows


def check_selection(args, where):
    """A selection is a list of `profile` options with exactly one range
    source (the launcher accepts one per run)."""
    if not isinstance(args, list) or not args or not all(isinstance(a, str) for a in args):
        raise CorpusError(f"{where}: 'args' must be a non-empty list of strings, e.g. [\"--kernel-range\", \"0:4\"]")
    sources = [a for a in args if a in RANGE_SOURCES]
    if len(sources) != 1:
        raise CorpusError(f"{where}: needs exactly one of {', '.join(RANGE_SOURCES)} (has {len(sources)})")
    for i, a in enumerate(args):
        if a in ("--kernel-range", "--nvtx-include"):
            if i + 1 >= len(args):
                raise CorpusError(f"{where}: {a} needs a value")
            if a == "--kernel-range":
                try:
                    parse_kernel_range(args[i + 1])
                except ValueError as e:
                    raise CorpusError(f"{where}: --kernel-range {e}") from None
        if a in ("-o", "--output", "--set", "--verify", "--"):
            raise CorpusError(f"{where}: '{a}' is added by run_corpus.py; leave it out of the selection")


def compile_regex(value, where):
    if value is None:
        return None
    if not isinstance(value, str) or not value:
        raise CorpusError(f"{where}: must be a regular expression string or null")
    try:
        return re.compile(value, re.MULTILINE)
    except re.error as e:
        raise CorpusError(f"{where}: bad regular expression {value!r}: {e}") from None


def combine_regex(patterns, where):
    """One pattern matching any of `patterns` (None entries left out): a
    program's own fail/ignore pattern and the default one."""
    parts = [x for x in patterns if x]
    if not parts:
        return None
    for x in parts:
        compile_regex(x, where)
    try:
        return re.compile("|".join(f"(?:{x})" for x in parts), re.MULTILINE)
    except re.error as e:
        raise CorpusError(f"{where}: cannot be combined with the default pattern ({e}); write flags scoped, "
                          f"e.g. (?i:...) instead of (?i)...") from None


def relative_inside(rel):
    """Whether rel is a relative path that stays inside its folder."""
    return isinstance(rel, str) and rel != "" and not os.path.isabs(rel) and ".." not in rel.split("/")


def check_pin(value, where, what):
    if not re.fullmatch(r"[0-9a-f]{40}", str(value or "")):
        raise CorpusError(f"{where}: 'commit' must be the 40-hex-digit {what} commit")


def load_sources(doc, path):
    """{source name: {"repository", "commit", "defaults"}}: cuda-samples from
    the document's top-level fields, the others from its 'sources' object. A
    source's defaults replace the top-level defaults key by key."""
    check_pin(doc.get("commit"), path, "cuda-samples")
    defaults = doc.get("defaults", {})
    if not isinstance(defaults, dict):
        raise CorpusError(f"{path}: 'defaults' must be an object")
    out = {DEFAULT_SOURCE: {"repository": doc.get("repository", SOURCE_KINDS[DEFAULT_SOURCE]["url"]),
                            "commit": doc["commit"], "defaults": dict(defaults)}}
    extra = doc.get("sources", {})
    if not isinstance(extra, dict):
        raise CorpusError(f"{path}: 'sources' must be an object {{\"rodinia\": {{\"commit\": ..., \"defaults\": ...}}}}")
    for name, src in extra.items():
        where = f"{path}: sources.{name}"
        if name not in SOURCE_KINDS or name == DEFAULT_SOURCE:
            known = [k for k in SOURCE_KINDS if k != DEFAULT_SOURCE]
            raise CorpusError(f"{where}: unknown source (known: {', '.join(known)}; cuda-samples is the top-level "
                              f"'commit')")
        if not isinstance(src, dict):
            raise CorpusError(f"{where}: must be an object")
        unknown = sorted(set(src) - {"repository", "commit", "defaults", "about"})
        if unknown:
            raise CorpusError(f"{where}: unknown field '{unknown[0]}' (known: about, commit, defaults, repository)")
        check_pin(src.get("commit"), where, name)
        own = src.get("defaults", {})
        if not isinstance(own, dict):
            raise CorpusError(f"{where}: 'defaults' must be an object")
        out[name] = {"repository": src.get("repository", SOURCE_KINDS[name]["url"]), "commit": src["commit"],
                     "defaults": dict(defaults, **own)}
    for name, src in out.items():
        d = src["defaults"]
        compile_regex(d.get("fail"), f"{path}: defaults.fail ({name})")
        compile_regex(d.get("ignore"), f"{path}: defaults.ignore ({name})")
        if not isinstance(d.get("nvcc", []), list) or not all(isinstance(x, str) for x in d.get("nvcc", [])):
            raise CorpusError(f"{path}: defaults.nvcc ({name}) must be a list of strings")
    return out


def check_generate(gen, where):
    """A program's input generator: {"sources": [...], "nvcc": [...], "libs":
    [...], "args": [...], "mkdir": [...], "outputs": [...]} (paths inside the
    program's folder; the generator runs in the corpus folder of the
    program and must leave every output there)."""
    if not isinstance(gen, dict):
        raise CorpusError(f"{where}: 'generate' must be an object with 'sources' and 'outputs'")
    unknown = sorted(set(gen) - GENERATE_FIELDS)
    if unknown:
        raise CorpusError(f"{where}: generate: unknown field '{unknown[0]}' (known: {', '.join(sorted(GENERATE_FIELDS))})")
    for key in GENERATE_FIELDS:
        v = gen.get(key, [])
        if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
            raise CorpusError(f"{where}: generate.{key} must be a list of strings")
    for key in ("sources", "outputs"):
        if not gen.get(key):
            raise CorpusError(f"{where}: generate.{key} is empty")
    for key in ("sources", "mkdir", "outputs"):
        for rel in gen.get(key, []):
            if not relative_inside(rel):
                raise CorpusError(f"{where}: generate.{key} entry '{rel}' must be a path inside the program's folder")


def check_files(files, where):
    """Small text files written beside the binary ({"relative path": "text"}),
    e.g. a file list naming generated inputs."""
    if not isinstance(files, dict) or not all(isinstance(v, str) for v in files.values()):
        raise CorpusError(f"{where}: 'files' must be an object {{\"name\": \"text\"}}")
    for rel in files:
        if not relative_inside(rel):
            raise CorpusError(f"{where}: files entry '{rel}' must be a path inside the program's folder")


def load_programs(path=PROGRAMS_JSON):
    """programs.json, checked; returns the document with defaults applied to
    each program (keys added: source, nvcc_all, set, pass_re, fail_re,
    ignore_re) and doc["source_defs"] (load_sources)."""
    try:
        with open(path) as f:
            doc = json.load(f)
    except OSError as e:
        raise CorpusError(f"cannot read {path}: {e.strerror}; pass --programs <programs.json>") from None
    except json.JSONDecodeError as e:
        raise CorpusError(f"{path} is not valid JSON: {e}") from None
    if not isinstance(doc, dict):
        raise CorpusError(f"{path}: must be a JSON object with 'commit', 'defaults' and 'programs'")
    sources = load_sources(doc, path)
    doc["source_defs"] = sources
    programs = doc.get("programs")
    if not isinstance(programs, list) or not programs:
        raise CorpusError(f"{path}: 'programs' must be a non-empty list")
    seen = set()
    for i, p in enumerate(programs):
        where = f"{path}: programs[{i}]" + (f" ({p.get('name')})" if isinstance(p, dict) and p.get("name") else "")
        if not isinstance(p, dict):
            raise CorpusError(f"{where}: must be an object")
        unknown = sorted(set(p) - PROGRAM_FIELDS)
        if unknown:
            close = difflib.get_close_matches(unknown[0], PROGRAM_FIELDS, n=1)
            raise CorpusError(f"{where}: unknown field '{unknown[0]}'" +
                              (f" (did you mean '{close[0]}'?)" if close else f" (known: {', '.join(sorted(PROGRAM_FIELDS))})"))
        missing = [k for k in REQUIRED_FIELDS if k not in p]
        if missing:
            raise CorpusError(f"{where}: missing field '{missing[0]}'")
        if not re.fullmatch(r"[A-Za-z0-9_.-]+", p["name"]):
            raise CorpusError(f"{where}: name must be letters, digits, '_', '.', '-' (it names folders and logs)")
        if p["name"] in seen:
            raise CorpusError(f"{where}: name '{p['name']}' is listed twice")
        seen.add(p["name"])
        p["source"] = p.get("source", DEFAULT_SOURCE)
        if p["source"] not in sources:
            known = sorted(sources)
            close = difflib.get_close_matches(str(p["source"]), known, n=1)
            raise CorpusError(f"{where}: source '{p['source']}' is not defined" +
                              (f" (did you mean '{close[0]}'?)" if close else "") +
                              f"; known: {', '.join(known)} (others need an entry in the top-level 'sources')")
        defaults = sources[p["source"]]["defaults"]
        for key in ("sources", "nvcc", "libs", "data", "args", "features"):
            v = p.get(key, [])
            if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
                raise CorpusError(f"{where}: '{key}' must be a list of strings")
        if not p["sources"]:
            raise CorpusError(f"{where}: 'sources' is empty")
        for key in ("sources", "data"):
            for rel in p.get(key, []):
                if not relative_inside(rel):
                    raise CorpusError(f"{where}: {key} entry '{rel}' must be a path inside the sample's folder")
        if "generate" in p:
            check_generate(p["generate"], where)
        if "files" in p:
            check_files(p["files"], where)
        if "extract" in p:
            v = p["extract"]
            if not isinstance(v, list) or not v or not all(isinstance(x, str) for x in v):
                raise CorpusError(f"{where}: 'extract' must be a non-empty list of folders of the repository, "
                                  f"e.g. [\"src/openmp-omp\"]")
            for rel in v:
                if not relative_inside(rel):
                    raise CorpusError(f"{where}: extract entry '{rel}' must be a path inside the repository "
                                      f"(relative to its root)")
        if not isinstance(p["deterministic"], bool):
            raise CorpusError(f"{where}: 'deterministic' must be true or false")
        if not isinstance(p.get("hang_repro", False), bool):
            raise CorpusError(f"{where}: 'hang_repro' must be true or false")
        sels = p["selections"]
        if not isinstance(sels, list) or not sels:
            raise CorpusError(f"{where}: 'selections' must be a non-empty list of {{\"args\": [...], \"why\": \"...\"}}")
        for k, s in enumerate(sels):
            if not isinstance(s, dict) or "args" not in s:
                raise CorpusError(f"{where}: selections[{k}] must be an object with 'args'")
            check_selection(s["args"], f"{where}: selections[{k}]")
        p["set"] = p.get("set", defaults.get("set", "basic"))
        if p["set"] not in KNOWN_SETS:
            close = difflib.get_close_matches(p["set"], KNOWN_SETS, n=1)
            raise CorpusError(f"{where}: unknown set '{p['set']}'" + (f" (did you mean '{close[0]}'?)" if close else ""))
        p["pass_re"] = compile_regex(p["pass"], f"{where}: 'pass'")
        p["fail_re"] = combine_regex([p["fail"], defaults.get("fail")], f"{where}: 'fail'")
        p["ignore_re"] = combine_regex([p.get("ignore"), defaults.get("ignore")], f"{where}: 'ignore'")
        p["nvcc_all"] = list(defaults.get("nvcc", [])) + list(p.get("nvcc", []))
        p.setdefault("exe", p["name"])
        for key in ("libs", "data", "args", "nvcc"):
            p.setdefault(key, [])
    return doc


def select_programs(doc, only):
    """The programs named in --only (comma list, in the list's order), or all."""
    programs = doc["programs"]
    if not only:
        return list(programs)
    names = [n for n in only.split(",") if n]
    known = [p["name"] for p in programs]
    for n in names:
        if n not in known:
            close = difflib.get_close_matches(n, known, n=3)
            raise CorpusError(f"--only: no program '{n}' in programs.json" +
                              (f" (closest: {', '.join(close)})" if close else ""))
    return [p for p in programs if p["name"] in names]


def build_fingerprint(p):
    """Digest of what a program's build depends on in programs.json."""
    key = {k: p.get(k) for k in ("path", "sources", "nvcc_all", "libs", "data", "exe")}
    # Keys added later enter only when set, so the fingerprints of corpora
    # prepared before them stay valid.
    key.update({k: p[k] for k in ("generate", "files", "extract") if p.get(k)})
    if p.get("source", DEFAULT_SOURCE) != DEFAULT_SOURCE:
        key["source"] = p["source"]
    return hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:16]


# --------------------------------------------------------------------------
# prepare


def git(path, *args, check=True):
    r = subprocess.run(["git", "-C", path, *args], capture_output=True, text=True)
    if check and r.returncode != 0:
        raise CorpusError(f"git -C {path} {' '.join(args)} failed: {r.stderr.strip().splitlines()[-1:] or r.returncode}")
    return r


def samples_kind(path, source=DEFAULT_SOURCE):
    """'bare' (a bare git repository), 'checkout' (a folder holding the
    source's top folders: Common/ and Samples/ for cuda-samples, cuda/ and
    common/ for Rodinia, src/ and src/include/ for HeCBench) or raises
    CorpusError."""
    kind = SOURCE_KINDS[source]
    opt, url, markers = kind["option"], kind["url"], kind["markers"]
    if os.path.exists(path) and not os.path.isdir(path):
        raise CorpusError(f"{opt} {path}: is a file, not a folder; give the folder of a {source} checkout "
                          f"(or a bare clone)")
    if not os.path.isdir(path):
        raise CorpusError(f"{opt} {path}: no such folder; clone {source} first: git clone {url} {path}")
    if shutil.which("git"):
        r = subprocess.run(["git", "-C", path, "rev-parse", "--is-bare-repository"], capture_output=True, text=True)
        if r.returncode == 0 and r.stdout.strip() == "true":
            return "bare"
    if all(os.path.isdir(os.path.join(path, m)) for m in markers):
        return "checkout"
    raise CorpusError(f"{opt} {path}: neither a {source} checkout (no {' and '.join(m + '/' for m in markers)}) nor a "
                      f"bare git repository; give the folder of `git clone {url}`")


def present_files(path, commit, paths):
    """(files, missing, unmatched) of `paths` at `commit` in the git
    repository at `path`: the files whose contents the repository holds, the
    ones it lacks (a mirror may leave large files out: git archive of their
    folder would fail) and the requested paths that name nothing."""
    r = git(path, "ls-tree", "-r", "-z", commit, "--", *paths)
    entries = []
    for rec in r.stdout.split("\0"):
        if not rec or "\t" not in rec:
            continue
        meta, name = rec.split("\t", 1)
        mode, typ, sha = meta.split()
        if typ == "blob":
            entries.append((sha, name))
    have = set()
    if entries:
        check = subprocess.run(["git", "-C", path, "cat-file", "--batch-check=%(objectname) %(objecttype)"],
                               input="".join(sha + "\n" for sha, _ in entries), capture_output=True, text=True)
        for line in check.stdout.splitlines():
            parts = line.split()
            if len(parts) == 2 and parts[1] == "blob":
                have.add(parts[0])
    files = [name for sha, name in entries if sha in have]
    missing = [name for sha, name in entries if sha not in have]
    unmatched = [p for p in paths if not any(n == p or n.startswith(p.rstrip("/") + "/") for _, n in entries)]
    return files, missing, unmatched


def materialize_samples(path, commit, paths, source=DEFAULT_SOURCE):
    """(root folder with the source's files, temporary folder to remove or
    None, description). For a bare repository the pinned commit's `paths`
    are extracted with `git archive` (only those, and of them only the files
    the repository holds: a mirror may lack large files). For a checkout, a
    HEAD other than the pinned commit is warned about."""
    kind = samples_kind(path, source)
    opt = SOURCE_KINDS[source]["option"]
    if kind == "checkout":
        desc = f"checkout {path}"
        if shutil.which("git") and os.path.exists(os.path.join(path, ".git")):
            head = git(path, "rev-parse", "HEAD", check=False).stdout.strip()
            if head != commit:
                log(f"run_corpus: warning: {path} is at {head[:12] or '?'}, not the pinned {commit[:12]}; "
                    f"results may differ (git -C {path} checkout {commit})")
            desc += f" at {head or '?'}"
        else:
            log(f"run_corpus: warning: {path} is not a git checkout; cannot check it is at {commit[:12]}")
        return os.path.abspath(path), None, desc
    if git(path, "cat-file", "-e", commit + "^{commit}", check=False).returncode != 0:
        raise CorpusError(f"{opt} {path}: commit {commit} is not in this repository; fetch it "
                          f"(git -C {path} fetch origin {commit})")
    wanted = sorted(set(paths))
    files, missing, unmatched = present_files(path, commit, wanted)
    if missing:
        log(f"run_corpus: warning: {path} lacks {len(missing)} file(s) of {commit[:12]} (left out): "
            f"{', '.join(missing[:5])}{' ...' if len(missing) > 5 else ''}")
    tmp = tempfile.mkdtemp(prefix=f"{source}-")
    # Paths that name nothing are passed on as they are: git archive says so.
    proc = subprocess.Popen(["git", "-C", path, "--literal-pathspecs", "archive", "--format=tar", commit, "--",
                             *(files + unmatched)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        with tarfile.open(fileobj=proc.stdout, mode="r|") as tar:
            if hasattr(tarfile, "data_filter"):
                tar.extractall(tmp, filter="data")
            else:
                tar.extractall(tmp)
    except tarfile.TarError:
        pass  # git's own message (below) says why the stream ended
    err = proc.stderr.read().decode(errors="replace").strip()
    proc.stdout.close()
    proc.stderr.close()
    if proc.wait() != 0:
        shutil.rmtree(tmp, ignore_errors=True)
        raise CorpusError(f"git archive of {commit[:12]} from {path} failed: {err.splitlines()[-1] if err else proc.returncode}")
    return tmp, tmp, f"bare repository {path} at {commit}"


def find_nvcc(explicit=None):
    for cand in ([explicit] if explicit else []) + [shutil.which("nvcc"), "/usr/local/cuda/bin/nvcc"]:
        if cand and os.access(cand, os.X_OK):
            return cand
    raise CorpusError("nvcc not found: put the CUDA 13 toolkit's bin folder on PATH or pass --nvcc /usr/local/cuda/bin/nvcc")


def expand_flag(flag, src_root, p):
    """A build flag with its placeholders filled in: {common} (the samples'
    Common/ folder), {root} (the source's root folder), {path} (the
    program's folder)."""
    root = src_root.rstrip("/") or "/"
    return (flag.replace("{common}", os.path.join(root, "Common")).replace("{root}", root)
            .replace("{path}", os.path.join(root, p["path"])))


def build_command(p, nvcc, src_root, out):
    sample = os.path.join(src_root, p["path"])
    flags = [expand_flag(f, src_root, p) for f in p["nvcc_all"]]
    exe = os.path.join(out, p["name"], p["exe"])
    return [nvcc] + flags + ["-o", exe] + [os.path.join(sample, s) for s in p["sources"]] + p["libs"]


def generator_command(p, nvcc, src_root, exe):
    """The build line of a program's input generator: nvcc -O2 <its flags>
    -o exe <its sources> <its libraries> (host code: nvcc hands .c/.cpp
    files to the host compiler)."""
    gen = p["generate"]
    sample = os.path.join(src_root, p["path"])
    return ([nvcc, "-O2"] + [expand_flag(f, src_root, p) for f in gen.get("nvcc", [])] + ["-o", exe] +
            [os.path.join(sample, s) for s in gen["sources"]] + list(gen.get("libs", [])))


def display_command(cmd, src_root, out, placeholder="<samples>"):
    """The build line with this run's folders written as <samples> (or the
    source's own placeholder) and <out>."""
    text = shlex.join(cmd)
    return text.replace(src_root.rstrip("/"), placeholder).replace(out.rstrip("/"), "<out>")


def error_lines(text, rc, what="nvcc"):
    lines = [l for l in text.splitlines() if l.strip()]
    errors = [l for l in lines if "error" in l.lower()] or lines
    return " | ".join(errors[:3])[:600] or f"{what} exit code {rc}", "\n".join(lines[-30:])


def run_generator(p, nvcc, src_root, out, pdir, work, timeout, entry):
    """Builds the program's input generator in `work` and runs it in the
    program's corpus folder; returns an error text or "" (entry gets the
    generator's build line, command and outputs with their sizes)."""
    gen = p["generate"]
    placeholder = SOURCE_KINDS[p["source"]]["placeholder"]
    exe = os.path.join(work, os.path.splitext(os.path.basename(gen["sources"][0]))[0])
    cmd = generator_command(p, nvcc, src_root, exe)
    entry["generate_line"] = display_command(cmd, src_root, out, placeholder).replace(work, "<tmp>")
    try:
        r = subprocess.run(cmd, cwd=work, capture_output=True, text=True, timeout=timeout)
        rc, text = r.returncode, r.stdout + r.stderr
    except subprocess.TimeoutExpired:
        rc, text = None, f"nvcc did not finish within {timeout} s"
    if rc != 0 or not os.path.exists(exe):
        err, entry["log_tail"] = error_lines(text, rc)
        return f"input generator did not build: {err}"
    for rel in gen.get("mkdir", []):
        os.makedirs(os.path.join(pdir, rel), exist_ok=True)
    entry["generate_run"] = shlex.join([os.path.basename(exe)] + gen.get("args", []))
    try:
        r = subprocess.run([exe] + gen.get("args", []), cwd=pdir, capture_output=True, text=True, timeout=timeout,
                           stdin=subprocess.DEVNULL)
        rc, text = r.returncode, r.stdout + r.stderr
    except subprocess.TimeoutExpired:
        rc, text = None, f"the generator did not finish within {timeout} s"
    except OSError as e:
        rc, text = None, f"cannot run the generator: {e.strerror}"
    absent = [rel for rel in gen["outputs"] if not os.path.isfile(os.path.join(pdir, rel))]
    if rc != 0 or absent:
        err, entry["log_tail"] = error_lines(text, rc, "generator")
        return (f"input generator failed (exit code {rc})" + (f", no {', '.join(absent)}" if absent else "") +
                f": {err}")
    entry["generated"] = {rel: os.path.getsize(os.path.join(pdir, rel)) for rel in gen["outputs"]}
    return ""


def build_one(p, nvcc, src_root, out, timeout):
    """Builds one program into <out>/<name>/ (copies its data files, writes
    its 'files', runs its input generator); returns its manifest entry."""
    pdir = os.path.join(out, p["name"])
    shutil.rmtree(pdir, ignore_errors=True)
    os.makedirs(pdir)
    placeholder = SOURCE_KINDS[p["source"]]["placeholder"]
    cmd = build_command(p, nvcc, src_root, out)
    entry = {"built": False, "exe": p["exe"], "path": p["path"], "build_line": display_command(cmd, src_root, out, placeholder),
             "fingerprint": build_fingerprint(p), "data": list(p["data"])}
    if p["source"] != DEFAULT_SOURCE:
        entry["source"] = p["source"]
    sample = os.path.join(src_root, p["path"])
    needed = p["sources"] + p["data"] + (p["generate"]["sources"] if p.get("generate") else [])
    missing = [os.path.join(p["path"], s) for s in needed if not os.path.exists(os.path.join(sample, s))]
    missing += [rel for rel in p.get("extract", []) if not os.path.exists(os.path.join(src_root, rel))]
    if missing:
        entry["error"] = f"not in the {p['source']} files at this commit: {', '.join(missing)}"
        shutil.rmtree(pdir, ignore_errors=True)
        return entry
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="corpus-build-") as work:
        try:
            r = subprocess.run(cmd, cwd=work, capture_output=True, text=True, timeout=timeout)
            rc, text = r.returncode, (r.stdout + r.stderr)
        except subprocess.TimeoutExpired:
            rc, text = None, f"nvcc did not finish within {timeout} s"
        exe = os.path.join(pdir, p["exe"])
        if rc != 0 or not os.path.exists(exe):
            entry["seconds"] = round(time.monotonic() - t0, 1)
            entry["error"], entry["log_tail"] = error_lines(text, rc)
            shutil.rmtree(pdir, ignore_errors=True)
            return entry
        if shutil.which("strip"):
            s = subprocess.run(["strip", "--strip-all", exe], capture_output=True, text=True)
            entry["stripped"] = s.returncode == 0
        for rel in p["data"]:
            dst = os.path.join(pdir, rel)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            src = os.path.join(sample, rel)
            (shutil.copytree if os.path.isdir(src) else shutil.copy2)(src, dst)
        for rel, text in sorted(p.get("files", {}).items()):
            dst = os.path.join(pdir, rel)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            with open(dst, "w") as f:
                f.write(text)
        if p.get("generate"):
            err = run_generator(p, nvcc, src_root, out, pdir, work, timeout, entry)
            if err:
                entry["seconds"] = round(time.monotonic() - t0, 1)
                entry["error"] = err
                shutil.rmtree(pdir, ignore_errors=True)
                return entry
    entry["seconds"] = round(time.monotonic() - t0, 1)
    entry["built"] = True
    entry["size_bytes"] = folder_bytes(pdir)
    return entry


def folder_bytes(path):
    total = 0
    for root, _, files in os.walk(path):
        for f in files:
            fp = os.path.join(root, f)
            if not os.path.islink(fp):
                total += os.path.getsize(fp)
    return total


def du_bytes(path):
    """Disk usage as `du -sk` counts it (falls back to the sum of file sizes)."""
    try:
        r = subprocess.run(["du", "-sk", path], capture_output=True, text=True)
        return int(r.stdout.split()[0]) * 1024
    except (OSError, ValueError, IndexError):
        return folder_bytes(path)


def mib(n):
    return f"{n / 1048576:.1f} MiB"


def source_paths(programs, source):
    """The folders of `source` that its programs' builds need: the source's
    shared folders (cuda-samples' Common/), each program's folder and the
    folders it names in 'extract' (a HeCBench program including a header of
    its sibling -omp folder)."""
    paths = list(SOURCE_KINDS[source]["extract"])
    for p in programs:
        paths += [p["path"]] + list(p.get("extract", []))
    return list(dict.fromkeys(paths))


def cmd_prepare(args):
    doc = load_programs(args.programs)
    chosen = select_programs(doc, args.only)
    given = {name: getattr(args, kind["option"][2:]) for name, kind in SOURCE_KINDS.items()}
    if not any(given.values()):
        raise CorpusError("prepare needs one or more of --samples <cuda-samples git dir>, "
                          "--rodinia <gpu-rodinia git dir> and --hecbench <HeCBench git dir> "
                          "(tests/corpus/README.md says how to get them)")
    nvcc = find_nvcc(args.nvcc)
    out = os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)
    manifest_path = os.path.join(out, MANIFEST)
    old_doc = {}
    if os.path.exists(manifest_path):
        try:
            with open(manifest_path) as f:
                old_doc = json.load(f)
        except (OSError, json.JSONDecodeError):
            old_doc = {}
    old = old_doc.get("programs", {}) if isinstance(old_doc.get("programs"), dict) else {}
    by_name = {p["name"]: p for p in doc["programs"]}
    for name in old:
        if name not in by_name and re.fullmatch(r"[A-Za-z0-9_.-]+", name):
            shutil.rmtree(os.path.join(out, name), ignore_errors=True)  # a program no longer listed
    # Entries kept from the old manifest: with --only, every program not
    # chosen; always, the programs of a source not given this time.
    kept = {n: e for n, e in old.items() if n in by_name and
            (args.only or not given[by_name[n]["source"]])}
    skipped = [p for p in chosen if not given[p["source"]]]
    todo = [p for p in chosen if given[p["source"]]]
    roots, tmps, descs = {}, [], {}
    results = {}
    try:
        for source in SOURCE_KINDS:
            progs = [p for p in todo if p["source"] == source]
            if not progs:
                continue
            commit = doc["source_defs"][source]["commit"]
            roots[source], tmp, descs[source] = materialize_samples(given[source], commit, source_paths(progs, source),
                                                                    source)
            if tmp:
                tmps.append(tmp)
        version = subprocess.run([nvcc, "--version"], capture_output=True, text=True).stdout.strip().splitlines()
        jobs = args.jobs or os.cpu_count() or 1
        log(f"run_corpus: building {len(todo)} programs from {'; '.join(descs.values()) or 'nothing'} with {nvcc}, "
            f"{jobs} at a time")
        with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
            futures = {pool.submit(build_one, p, nvcc, roots[p["source"]], out, args.build_timeout): p for p in todo}
            for fut in concurrent.futures.as_completed(futures):
                p = futures[fut]
                e = fut.result()
                results[p["name"]] = e
                log(f"  {p['name']:<32} {'built' if e['built'] else 'FAILED: ' + e.get('error', '')}"
                    f"{' (%s s)' % e['seconds'] if 'seconds' in e else ''}")
    finally:
        for tmp in tmps:
            shutil.rmtree(tmp, ignore_errors=True)
    for source in sorted({p["source"] for p in skipped}):
        n = sum(1 for p in skipped if p["source"] == source)
        log(f"run_corpus: {n} {source} programs not built: no {SOURCE_KINDS[source]['option']} given"
            + (" (their earlier builds are kept)" if any(p["name"] in kept for p in skipped if p["source"] == source)
               else ""))
    programs = dict(kept)
    for p in todo:
        programs[p["name"]] = results[p["name"]]
    for p in skipped:
        if p["name"] not in programs:
            kind = SOURCE_KINDS[p["source"]]
            programs[p["name"]] = {"built": False, "exe": p["exe"], "path": p["path"], "source": p["source"],
                                   "no_source": True,
                                   "error": f"prepare had no {kind['option']} (a git directory of {kind['url']})"}
    sources = {k: v for k, v in (old_doc.get("sources") or {}).items() if k in doc["source_defs"]}
    if DEFAULT_SOURCE not in sources and old_doc.get("commit"):
        # A manifest from before 'sources': its samples' commit.
        sources[DEFAULT_SOURCE] = {"commit": old_doc["commit"], "from": old_doc.get("samples", ""),
                                   "repository": doc["source_defs"][DEFAULT_SOURCE]["repository"]}
    for source, desc in descs.items():
        sources[source] = {"commit": doc["source_defs"][source]["commit"], "from": desc,
                           "repository": doc["source_defs"][source]["repository"]}
    samples_desc = descs.get(DEFAULT_SOURCE, old_doc.get("samples", ""))
    # 'commit' and 'samples' (the cuda-samples ones) are kept for readers of
    # the first manifests.
    manifest = {"schema": 2, "commit": sources.get(DEFAULT_SOURCE, {}).get("commit", doc["commit"]),
                "samples": samples_desc, "sources": sources,
                "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                "nvcc": nvcc, "nvcc_version": version[-1] if version else "", "programs": programs}
    total = du_bytes(out)
    manifest["size_bytes"] = total
    with open(manifest_path, "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
        f.write("\n")
    built = [n for n, e in programs.items() if e.get("built")]
    failed = [n for n, e in programs.items() if not e.get("built")]
    print(f"corpus: {out}: {len(built)} of {len(programs)} programs built, {mib(total)} (limit {args.max_mib} MiB)")
    for n in failed:
        if not programs[n].get("no_source"):
            print(f"  not built: {n}: {programs[n].get('error', '?')}")
    absent = collections.Counter(programs[n].get("source", DEFAULT_SOURCE) for n in failed if programs[n].get("no_source"))
    for source, n in sorted(absent.items()):
        kind = SOURCE_KINDS[source]
        print(f"  not built: {n} {source} programs: prepare had no {kind['option']} (a git directory of {kind['url']})")
    if total > args.max_mib * 1048576:
        biggest = sorted(((e.get("size_bytes", 0), n) for n, e in programs.items()), reverse=True)[:5]
        print(f"run_corpus: {out} is {mib(total)}, over the {args.max_mib} MiB it may take to travel to the GPU "
              f"machine; largest: {', '.join(f'{n} {mib(b)}' for b, n in biggest)}; drop programs with --only or "
              f"from programs.json", file=sys.stderr)
        return 1
    if not built:
        print("run_corpus: no program built; see the errors above", file=sys.stderr)
        return 1
    # --strict: a build that failed; not a program whose source was not given.
    return 1 if (args.strict and any(not programs[n].get("no_source") for n in failed)) else 0


# --------------------------------------------------------------------------
# runs


def run_programs(programs, run_program, logs, stem, header, render, status, t0, extra_json=lambda results: {}):
    """The runners' loop (run_ml.py, run_multigpu.py): run_program(p) for each of
    `programs` in order, <logs>/<stem>.json rewritten after each (header, results,
    elapsed_s, and extra_json(results)); SIGTERM or Ctrl-C stops the loop with a
    header line. Then <logs>/<stem>.txt gets render(results, header), which is
    printed last. Returns 1 when interrupted, else status(results)."""
    results = []

    def save():
        doc = {"header": header, "results": results, **extra_json(results),
               "elapsed_s": round(time.monotonic() - t0, 1)}
        with open(os.path.join(logs, stem + ".json"), "w") as f:
            json.dump(doc, f, indent=1, default=str)
    interrupted = None
    signal.signal(signal.SIGTERM, on_signal)
    try:
        for p in programs:
            results.append(run_program(p))
            save()
    except (Interrupted, KeyboardInterrupt) as e:
        interrupted = str(e) or "SIGINT"
        header.append(f"interrupted by {interrupted}: programs after the last row did not run")
    header.append(f"elapsed: {time.monotonic() - t0:.0f} s")
    save()
    table = render(results, header)
    with open(os.path.join(logs, stem + ".txt"), "w") as f:
        f.write(table)
    print(table, end="", flush=True)
    return 1 if interrupted else status(results)


def exit_code(rc):
    """A shell-style exit code: 128+N for a process ended by signal N."""
    if rc is None:
        return None
    return 128 - rc if rc < 0 else rc


def last_tool_line(stderr_text):
    """The last line the tool wrote on stderr (its `rangereplay:` progress or
    `rangereplay[debug]` trace), i.e. the stage a hung run was in."""
    lines = [l.strip() for l in stderr_text.splitlines() if l.startswith("rangereplay")]
    return lines[-1] if lines else ""


def stage_key(stage):
    """A stage without the elapsed-time prefix of RANGEREPLAY_DEBUG lines
    ("rangereplay[debug] +   12.34 ms: drain" -> "rangereplay[debug] drain"),
    so hangs at the same step count together."""
    return re.sub(r"^(rangereplay\[debug\]) \+\s*[\d.]+ ms: ", r"\1 ", stage)


def group_members(pgid):
    """pids whose process group is pgid (from /proc)."""
    pids = []
    for d in glob.glob("/proc/[0-9]*/stat"):
        text = read_text(d)
        if not text:
            continue
        fields = text[text.rfind(")") + 2:].split()
        if len(fields) > 2 and fields[2] == str(pgid):
            pids.append(int(d.split("/")[2]))
    return sorted(pids)


def process_snapshot(pgid):
    """Threads of a process group: name, state and kernel wait channel, read
    from /proc before the group is killed (where a hang sits)."""
    out = []
    for pid in group_members(pgid):
        cmdline = read_text(f"/proc/{pid}/cmdline").replace("\0", " ").strip() or "?"
        out.append(f"pid {pid}: {cmdline}")
        for task in sorted(glob.glob(f"/proc/{pid}/task/*"), key=lambda t: int(t.rsplit("/", 1)[1])):
            def read(name):
                return read_text(f"{task}/{name}").strip() or "?"
            stat = read("stat")
            state = stat[stat.rfind(")") + 2:].split()[0] if ")" in stat else "?"
            out.append(f"  tid {task.rsplit('/', 1)[1]} {read('comm')!r} state {state} wchan {read('wchan')}")
    return "\n".join(out)


def gdb_stacks(pgid, timeout=30):
    """`thread apply all bt` of each process of the group, when gdb exists."""
    gdb = shutil.which("gdb")
    if not gdb:
        return ""
    out = []
    for pid in group_members(pgid)[:3]:
        try:
            r = subprocess.run([gdb, "-p", str(pid), "-batch", "-nx", "-ex", "set pagination off",
                                "-ex", "thread apply all bt"], capture_output=True, text=True, timeout=timeout)
            out.append(f"=== pid {pid}\n{r.stdout}{r.stderr}")
        except (subprocess.TimeoutExpired, OSError) as e:
            out.append(f"=== pid {pid}: gdb failed: {e}")
    return "\n".join(out)


def kill_group(pgid):
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def run_one(cmd, cwd, env, timeout, prefix, stacks=False):
    """Runs cmd in its own process group with stdout/stderr in <prefix>.stdout
    / .stderr; past `timeout` s the group is SIGKILLed (after a /proc
    snapshot, and gdb stacks when `stacks`). Returns the run's record."""
    rec = {"cmd": cmd, "cwd": cwd, "stdout": prefix + ".stdout", "stderr": prefix + ".stderr",
           "rc": None, "exit": None, "hung": False, "wall_s": 0.0}
    t0 = time.monotonic()
    with open(rec["stdout"], "wb") as fo, open(rec["stderr"], "wb") as fe:
        try:
            proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=fo, stderr=fe, stdin=subprocess.DEVNULL,
                                    start_new_session=True)
        except OSError as e:
            rec["error"] = f"cannot start {cmd[0]}: {e.strerror}"
            return rec
        try:
            rc = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            rec["hung"] = True
            rec["wall_s"] = round(time.monotonic() - t0, 2)
            snap = process_snapshot(proc.pid)
            if stacks:
                snap += "\n" + gdb_stacks(proc.pid)
            with open(prefix + ".hang.txt", "w") as f:
                f.write(snap + "\n")
            rec["hang_info"] = prefix + ".hang.txt"
            kill_group(proc.pid)
            rc = proc.wait()
        finally:
            # Whatever is left in the group (after a hang or an interrupt; the
            # launcher itself leaves nothing) would disturb the next run.
            kill_group(proc.pid)
            if proc.returncode is None:
                proc.wait()
    if not rec["hung"]:
        rec["wall_s"] = round(time.monotonic() - t0, 2)
    rec["rc"] = rc
    rec["exit"] = exit_code(rc)
    rec["stage"] = last_tool_line(read_text(rec["stderr"]))
    return rec


def tool_timeout(base, plain_runs):
    """Seconds a run under the tool may take before it counts as a hang: `base`, or twice the slowest plain run
    that finished plus `base` / 2 when that is longer (a program that takes most of `base` on its own, plus the
    replays, would otherwise read as a hang)."""
    walls = [r["wall_s"] for r in plain_runs if not r.get("hung")]
    return max(base, 2 * max(walls) + base / 2) if walls else base


def read_text(path):
    try:
        with open(path, "rb") as f:
            return f.read().decode(errors="replace")
    except OSError:
        return ""


def app_stdout(stdout_text):
    """The application's stdout from a tool run: the launcher appends its
    report table (from a `rangereplay <version>, pid N` line on) after the
    application has ended. The application's own lines keep their line
    ends, so its last line, even an empty one, is kept."""
    lines = stdout_text.splitlines(keepends=True)
    for i in range(len(lines) - 1, -1, -1):
        if REPORT_HEADER.match(lines[i].rstrip("\r\n")):
            # The first of several processes' tables starts earlier.
            for j in range(i):
                if PROCESS_HEADER.match(lines[j].rstrip("\r\n")) and j > 0 and lines[j - 1].strip() == "" \
                        and j + 1 < len(lines) and REPORT_HEADER.match(lines[j + 1].rstrip("\r\n")):
                    return "".join(lines[:j - 1])
            return "".join(lines[:i])
    return stdout_text


def verdict(p, stdout_text, stderr_text):
    """The program's own verdict: FAIL when its fail pattern (or a
    checkCudaErrors line) appears, PASS when its pass pattern does, NOPASS when
    a pass pattern exists but is missing, '-' when it prints no verdict (the
    exit code decides)."""
    text = stdout_text + "\n" + "\n".join(l for l in stderr_text.splitlines() if not l.startswith("rangereplay"))
    if p["fail_re"] is not None and p["fail_re"].search(text):
        return "FAIL"
    if p["pass_re"] is not None:
        return "PASS" if p["pass_re"].search(text) else "NOPASS"
    return "-"


def compared_output(p, stdout_text):
    """The lines of stdout compared between runs: without the lines the
    program's ignore pattern (timings, throughputs) matches."""
    lines = [l.rstrip() for l in stdout_text.splitlines()]
    if p["ignore_re"] is not None:
        lines = [l for l in lines if not p["ignore_re"].search(l)]
    return lines


def summarize_report(doc):
    """The figures of one rangereplay JSON report (src/report/report_json.cpp):
    per range its status, decline reason and detail, kernels (count, launch
    indices, first and last name), passes and divergences (pass_records[]
    .divergences, filled by --verify)."""
    ranges = []
    for r in doc.get("ranges", []):
        kernels = r.get("kernels", [])
        idx = [k.get("launch_index", -1) for k in kernels if k.get("launch_index", -1) >= 0]
        divs = [d for pr in r.get("pass_records", []) for d in pr.get("divergences", [])]
        ranges.append({
            "index": r.get("index"), "name": r.get("name", ""), "declined": bool(r.get("declined")),
            "reason": r.get("decline_reason", "") if r.get("declined") else "",
            "detail": r.get("decline_detail", "") if r.get("declined") else "",
            "passes": r.get("passes"), "kernels": len(kernels),
            "launch_first": min(idx) if idx else None, "launch_last": max(idx) if idx else None,
            "first_kernel": (kernels[0].get("name") or kernels[0].get("mangled_name", "")) if kernels else "",
            "last_kernel": (kernels[-1].get("name") or kernels[-1].get("mangled_name", "")) if kernels else "",
            "divergences": len(divs),
            "divergent": [{"address": d.get("address"), "size_bytes": d.get("size_bytes"), "origin": d.get("origin", "")}
                          for d in divs[:20]],
            "notes": r.get("notes", []),
        })
    return {"pass_count": doc.get("pass_count"), "verify": bool(doc.get("verify")), "errors": doc.get("errors", []),
            "ranges": ranges, "replayed": sum(1 for r in ranges if not r["declined"]),
            "declined": sum(1 for r in ranges if r["declined"]),
            "divergences": sum(r["divergences"] for r in ranges)}


def load_report(path):
    """(summary, problem): the report's summary, or None and why not."""
    if not os.path.exists(path):
        return None, "report missing"
    try:
        with open(path) as f:
            return summarize_report(json.load(f)), ""
    except (OSError, json.JSONDecodeError, AttributeError, TypeError) as e:
        return None, f"report unreadable: {e}"


def schema_problem(path):
    """The first way the report at `path` does not match the report's JSON Schema
    (share/rangereplay/report.schema.json, checked by tests/python/schema_check.py),
    with how many there are; "" when it matches."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
    try:
        import schema_check
    finally:
        sys.path.pop(0)
    problems = schema_check.check_report_file(path)
    if not problems:
        return ""
    return f"report does not match its JSON Schema: {problems[0]}" + (
        f" (and {len(problems) - 1} more)" if len(problems) > 1 else "")


def judge(p, plain, tool_runs):
    """Compares the tool runs with the plain runs. Returns (problems, notes,
    flags); problems make the suite fail. A tool run's verdict or exit code
    counts as changed when it matches neither plain run."""
    problems, notes = [], []
    plain_ok = [r for r in plain if not r["hung"] and r.get("error") is None]
    plain_verdicts = {r["verdict"] for r in plain_ok}
    plain_exits = {r["exit"] for r in plain_ok}
    for r in plain:
        if r["hung"]:
            problems.append(f"plain run hung ({r['wall_s']} s): the program itself; see {r['stdout']}")
        elif r.get("error"):
            problems.append(f"plain run: {r['error']}")
    if len(plain_verdicts) > 1 or len(plain_exits) > 1:
        notes.append("plain runs disagree on verdict/exit")
    outputs = [tuple(r["compared"]) for r in plain_ok]
    plain_same = len(set(outputs)) <= 1 if outputs else None
    if p["deterministic"]:
        if plain_same is False:
            notes.append("deterministic, yet the plain outputs differ")
    else:
        notes.append("nondet: plain outputs " + ("differ" if plain_same is False else "same"))
    changed = False
    out_changed = False
    diff = []
    plain_counts = {len(o) for o in outputs}
    for r in tool_runs:
        what = r["label"]
        if r["hung"]:
            problems.append(f"{what}: HANG after {r['wall_s']} s at: {r.get('stage') or '(no rangereplay line)'}")
            continue
        if r.get("error"):
            problems.append(f"{what}: {r['error']}")
            continue
        if plain_ok and r["verdict"] not in plain_verdicts:
            changed = True
            problems.append(f"{what}: verdict {r['verdict']} (plain {'/'.join(sorted(plain_verdicts))})")
        if plain_ok and r["exit"] not in plain_exits:
            changed = True
            problems.append(f"{what}: exit code {r['exit']} (plain {'/'.join(str(e) for e in sorted(plain_exits))})"
                            + (f"; last tool line: {r['stage']}" if r.get("stage") else ""))
        if r.get("report_problem"):
            problems.append(f"{what}: {r['report_problem']} ({r['report_path']})")
        if r.get("schema_problem"):
            problems.append(f"{what}: {r['schema_problem']}")
        if p["deterministic"] and plain_same and outputs and tuple(r["compared"]) != outputs[0]:
            if not out_changed:
                diff = list(difflib.unified_diff(list(outputs[0]), r["compared"], "plain", what, n=1, lineterm=""))[:16]
            out_changed = True
        elif not p["deterministic"] and plain_counts and len(r["compared"]) not in plain_counts:
            notes.append(f"{what}: {len(r['compared'])} output lines (plain "
                         f"{'/'.join(str(n) for n in sorted(plain_counts))})")
    if out_changed:
        notes.append("output changed under the tool")
    return problems, notes, {"changed": changed, "plain_outputs_same": plain_same, "tool_output_changed": out_changed,
                             "output_diff": diff}


# --------------------------------------------------------------------------
# run


def cuda_lib_dirs():
    """The CUDA toolkit's folders on this machine holding the libraries the
    samples link (libcublas, libcufft, ...) and CUPTI (which the injection
    library loads): prepended to LD_LIBRARY_PATH, as scripts/gpu-check.sh does
    for a prebuilt tree. Empty when no toolkit is found."""
    roots = [os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH")]
    nvcc = shutil.which("nvcc")
    if nvcc:
        roots.append(os.path.dirname(os.path.dirname(os.path.realpath(nvcc))))
    roots += ["/usr/local/cuda"] + sorted(glob.glob("/usr/local/cuda-*"), reverse=True)
    subs = ("lib64", "lib", "targets/x86_64-linux/lib", "targets/sbsa-linux/lib", "extras/CUPTI/lib64")
    found = []
    for wanted in ("libcublas.so*", "libcupti.so*"):
        for root in filter(None, roots):
            hits = [os.path.realpath(os.path.join(root, sub)) for sub in subs
                    if glob.glob(os.path.join(root, sub, wanted))]
            if hits:
                if hits[0] not in found:
                    found.append(hits[0])
                break
    return found


def run_env():
    env = dict(os.environ)
    dirs = cuda_lib_dirs()
    have = env.get("LD_LIBRARY_PATH", "").split(":")
    add = [d for d in dirs if d not in have]
    if add:
        env["LD_LIBRARY_PATH"] = ":".join(add + ([env["LD_LIBRARY_PATH"]] if env.get("LD_LIBRARY_PATH") else []))
    return env, ":".join(dirs)


def missing_libraries(exe, env):
    """Shared libraries `ldd` cannot find for exe (empty when ldd is absent)."""
    if not shutil.which("ldd"):
        return []
    r = subprocess.run(["ldd", exe], capture_output=True, text=True, env=env)
    return [l.split("=>")[0].strip() for l in r.stdout.splitlines() if "not found" in l]


def gpu_check():
    """One line naming the GPU, or raises CorpusError (exit 1) when this
    machine has none."""
    smi = shutil.which("nvidia-smi")
    if not smi:
        raise CorpusError("no GPU: nvidia-smi not found; run this on a machine with an NVIDIA GPU and its driver "
                          "(or pass --dry-run to print the commands)")
    r = subprocess.run([smi, "--query-gpu=name,driver_version", "--format=csv,noheader"], capture_output=True, text=True)
    if r.returncode != 0 or not r.stdout.strip():
        raise CorpusError(f"no GPU: nvidia-smi found no device ({(r.stderr or r.stdout).strip()[:200]}); check the "
                          f"driver with nvidia-smi")
    return r.stdout.strip().splitlines()[0]


def tool_command(cli, p, selection, report, verify, set_override=None):
    cmd = [cli, "profile"] + list(selection["args"]) + ["--set", set_override or p["set"], "-o", report]
    if verify:
        cmd.append("--verify")
    return cmd + ["--"]


class Suite:
    def __init__(self, args, doc, manifest, cli, logs, env):
        self.args, self.doc, self.manifest, self.cli, self.logs, self.env = args, doc, manifest, cli, logs, env
        self.t0 = time.monotonic()

    def over_budget(self, need=0.0):
        return self.args.budget is not None and time.monotonic() - self.t0 + need > self.args.budget

    def exe(self, p):
        return os.path.join(self.args.corpus, p["name"], self.manifest["programs"][p["name"]]["exe"])

    def plain_run(self, p, i):
        pdir = os.path.join(self.args.corpus, p["name"])
        r = run_one([self.exe(p)] + p["args"], pdir, self.env, self.args.timeout,
                    os.path.join(self.logs, f"{p['name']}.plain{i}"))
        return self.finish(p, r, f"plain run {i}", tool=False)

    def tool_run(self, p, k, verify, timeout=None, tag=None, env=None, stacks=True):
        pdir = os.path.join(self.args.corpus, p["name"])
        sel = p["selections"][k]
        tag = tag or (f"{p['name']}" + (f".s{k}" if k else "") + (".verify" if verify else ""))
        report = os.path.join(self.logs, tag + ".json")
        if os.path.exists(report):
            os.remove(report)
        cmd = tool_command(self.cli, p, sel, report, verify, self.args.set) + [self.exe(p)] + p["args"]
        r = run_one(cmd, pdir, env or self.env, timeout or self.args.timeout, os.path.join(self.logs, tag),
                    stacks=stacks and not self.args.no_hang_stacks)
        r["report_path"] = report
        r["selection"] = k
        label = ("verify" if verify else "tool") + (f" sel {k + 1}" if len(p["selections"]) > 1 else "")
        r = self.finish(p, r, label, tool=True)
        if not r["hung"] and r.get("error") is None:
            r["report"], r["report_problem"] = load_report(report)
            r["schema_problem"] = schema_problem(report) if r["report"] is not None else ""
        else:
            r["report"], r["report_problem"] = None, ""
        return r

    def finish(self, p, r, label, tool):
        r["label"] = label
        out, err = read_text(r["stdout"]), read_text(r["stderr"])
        if tool:
            out = app_stdout(out)
        r["verdict"] = verdict(p, out, err) if not r["hung"] else "HANG"
        r["compared"] = compared_output(p, out)
        r["stdout_lines"] = len(out.splitlines())
        log(f"  {label:<14} exit {r['exit']!s:<4} {r['verdict']:<6} {r['wall_s']:6.2f} s"
            + (f"  HANG at: {r.get('stage') or '-'}" if r["hung"] else ""))
        return r

    def program(self, p):
        name = p["name"]
        res = {"name": name, "features": p["features"], "deterministic": p["deterministic"], "set": self.args.set or p["set"],
               "selections": [s["args"] for s in p["selections"]], "status": "ran", "problems": [], "notes": []}
        entry = self.manifest["programs"].get(name)
        if not entry or not entry.get("built"):
            res["status"] = "not built"
            res["notes"].append("not built: " + (entry or {}).get("error", "not in the corpus manifest (run prepare)"))
            return res
        if entry.get("fingerprint") != build_fingerprint(p):
            res["notes"].append("build line changed since prepare (rerun prepare)")
        exe = self.exe(p)
        if not os.access(exe, os.X_OK):
            res["status"] = "not built"
            res["notes"].append(f"{exe} missing or not executable (rerun prepare)")
            return res
        libs = missing_libraries(exe, self.env)
        if libs:
            res["status"] = "unrunnable"
            fix = ("install the NVIDIA driver" if libs == ["libcuda.so.1"] else
                   "put the CUDA toolkit's lib folder on LD_LIBRARY_PATH")
            res["notes"].append(f"{', '.join(libs)} not found: {fix}")
            return res
        log(f"{name}:")
        res["plain"] = [self.plain_run(p, 1), self.plain_run(p, 2)]
        res["tool"] = []
        limit = tool_timeout(self.args.timeout, res["plain"])
        if limit > self.args.timeout:
            res["notes"].append(f"runs under the tool limited to {limit:.0f} s (twice the slower plain run plus "
                                f"{self.args.timeout / 2:.0f} s) instead of {self.args.timeout:.0f} s")
        for k in range(len(p["selections"])):
            res["tool"].append(self.tool_run(p, k, verify=False, timeout=limit))
            res["tool"].append(self.tool_run(p, k, verify=True, timeout=limit))
        problems, notes, flags = judge(p, res["plain"], res["tool"])
        res["problems"] += problems
        res["notes"] += notes
        res.update(flags)
        return res

    def hang_test(self, programs, n):
        """Each hang_repro program n more times under the tool with each of its
        selections (RANGEREPLAY_DEBUG=1, so the last stderr line is the
        lifecycle step), under --hang-timeout."""
        env = dict(self.env, RANGEREPLAY_DEBUG="1")
        out = []
        for p in programs:
            entry = self.manifest["programs"].get(p["name"], {})
            if not entry.get("built"):
                continue
            runs, skipped = [], 0
            for k in range(len(p["selections"])):
                for i in range(n):
                    if self.over_budget(self.args.hang_timeout):
                        skipped += 1
                        continue
                    tag = f"{p['name']}.hang{i + 1}" + (f".s{k}" if k else "")
                    log(f"{p['name']}: hang test {i + 1}/{n}, selection {k + 1}")
                    r = self.tool_run(p, k, verify=False, timeout=self.args.hang_timeout, tag=tag, env=env,
                                      stacks=not any(x["hung"] for x in runs))
                    runs.append({"selection": k, "run": i + 1, "hung": r["hung"], "exit": r["exit"], "verdict": r["verdict"],
                                 "wall_s": r["wall_s"], "stage": r.get("stage", ""), "stderr": r["stderr"],
                                 "hang_info": r.get("hang_info")})
            hung = [r for r in runs if r["hung"]]
            stages = collections.Counter(stage_key(r["stage"]) or "(no rangereplay line)" for r in hung)
            out.append({"name": p["name"], "runs": runs, "hung": len(hung), "total": len(runs), "skipped": skipped,
                        "stages": dict(stages), "timeout_s": self.args.hang_timeout})
        return out


def cell(values):
    """plain/tool/verify cell: 'a' when all equal, else 'a/b/c'."""
    vals = [str(v) for v in values]
    return vals[0] if len(set(vals)) == 1 else "/".join(vals)


def short_reason_list(reasons, width=44):
    text = ", ".join(f"{r} x{n}" if n > 1 else r for r, n in collections.Counter(reasons).most_common())
    return text if len(text) <= width else text[:width - 1] + "~"


def render_row(res):
    """One table row of a program's result (see render_table for columns)."""
    name = res["name"]
    if res["status"] != "ran":
        return f"{name:<30} {res['status']}: {'; '.join(res['notes'])}"
    plain, tool = res["plain"], res["tool"]
    tools = [r for r in tool if "verify" not in r["label"]]
    verifies = [r for r in tool if "verify" in r["label"]]

    def agg(runs, key):
        vals = sorted({str(r[key]) if not r["hung"] else "HANG" for r in runs})
        return "|".join(vals) if vals else "-"
    verd = cell([agg(plain, "verdict"), agg(tools, "verdict"), agg(verifies, "verdict")])
    ex = cell([agg(plain, "exit"), agg(tools, "exit"), agg(verifies, "exit")])
    hung = any(r["hung"] for r in plain + tool)
    missing = any(r.get("report_problem") for r in tool)
    same = "HANG" if hung else ("NO" if res.get("changed") else ("no-rep" if missing else "yes"))
    reports = [r["report"] for r in tools if r.get("report")]
    vreports = [r["report"] for r in verifies if r.get("report")]
    rep = sum(x["replayed"] for x in reports)
    dec = sum(x["declined"] for x in reports)
    reasons = [g["reason"] for x in reports for g in x["ranges"] if g["declined"]]
    div = sum(x["divergences"] for x in vreports) if vreports else "-"
    pw = statistics.median([r["wall_s"] for r in plain]) if plain else 0
    tw = max((r["wall_s"] for r in tools), default=0)
    vw = max((r["wall_s"] for r in verifies), default=0)
    notes = list(res["notes"])
    notes += [x for x in res["problems"] if "HANG" in x][:1]
    return (f"{name:<30} {verd:<18} {ex:<11} {same:<6} {rep:>2}/{dec:<3} {short_reason_list(reasons) or '-':<44} "
            f"{div!s:>4}  {pw:5.1f}/{tw:5.1f}/{vw:5.1f}  {'; '.join(notes)}")


TABLE_HEADER = (f"{'program':<30} {'verdict p/t/v':<18} {'exit p/t/v':<11} {'same':<6} {'r/d':<6} "
                f"{'declined (reasons)':<44} {'div':>4}  {'wall s p/t/v':<17}  notes")


def verify_decline_differences(results):
    """One line per range whose outcome in a --verify run (replayed, or the
    decline reason) differs from the tool run of the same selection: a
    decline that comes and goes between runs of one program."""
    lines = []
    for r in results:
        runs = {t["label"]: t for t in r.get("tool", []) if t.get("report")}
        for label, verify in runs.items():
            tool = runs.get(label.replace("verify", "tool")) if "verify" in label else None
            if tool is None:
                continue
            tool_ranges = {g["index"]: g for g in tool["report"]["ranges"]}
            for g in verify["report"]["ranges"]:
                t = tool_ranges.get(g["index"])
                if t is None or t["reason"] == g["reason"]:
                    continue
                lines.append(f"  {r['name']} [{label}] ranges[{g['index']}] '{g['name']}': "
                             f"{g['reason'] or 'replayed'} ({tool['label']}: {t['reason'] or 'replayed'})")
    return lines


def decline_lines(program, label, summary):
    """One indented line per declined range of a report summary
    (summarize_report): program, run label, index, name, reason and detail."""
    return [f"  {program} [{label}] ranges[{g['index']}] '{g['name']}': {g['reason']}"
            + (f" ({g['detail']})" if g["detail"] else "") for g in summary["ranges"] if g["declined"]]


def render_table(results, hangs, header_lines=()):
    """The summary: header lines, each problem, each declined range of the
    tool runs with its detail, the ranges whose outcome differs under
    --verify, the hang test, then one row per program. Columns: the program's
    own verdict and exit code for plain/tool/verify runs (a cell shows one
    value when all runs agree; '|' joins different ones), whether they are
    unchanged under the tool, ranges replayed/declined in the tool runs (all
    selections) with the decline reasons, divergent regions from --verify,
    wall seconds (plain median, slowest tool run, slowest verify run), notes."""
    out = list(header_lines)
    problems = [(r["name"], x) for r in results for x in r["problems"]]
    if problems:
        out.append("problems:")
        out += [f"  {n}: {x}" for n, x in problems]
    declines = []
    for r in results:
        for t in r.get("tool", []):
            if "verify" in t["label"] or not t.get("report"):
                continue
            declines += decline_lines(r["name"], t["label"], t["report"])
    if declines:
        out.append("declined ranges:")
        out += declines
    differing = verify_decline_differences(results)
    if differing:
        out.append("declines that differ between the tool and --verify runs of one selection:")
        out += differing
    for h in hangs:
        line = f"hang test {h['name']}: {h['hung']}/{h['total']} runs hung (limit {h['timeout_s']} s)"
        if h["skipped"]:
            line += f", {h['skipped']} not run (budget)"
        out.append(line)
        out += [f"  {n} x at: {s}" for s, n in sorted(h["stages"].items(), key=lambda kv: -kv[1])]
    out.append("")
    out.append(TABLE_HEADER)
    out.append("-" * len(TABLE_HEADER))
    out += [render_row(r) for r in results]
    return "\n".join(out) + "\n"


def status_counts(results, statuses):
    """', N <status>' for each of `statuses` that some result has, in that order."""
    text = ""
    for status in statuses:
        n = sum(1 for r in results if r["status"] == status)
        if n:
            text += f", {n} {status}"
    return text


def ran_line(results, clean_word):
    """'N ran (U <clean_word>, C with problems), K unavailable, S skipped' (the ml and multigpu runners)."""
    ran = [r for r in results if r["status"] == "ran"]
    clean = [r for r in ran if not r["problems"]]
    return (f"{len(ran)} ran ({len(clean)} {clean_word}, {len(ran) - len(clean)} with problems)"
            + status_counts(results, ("unavailable", "skipped")))


def count_line(results):
    """'N ran (U unchanged, C changed, H hung, M without report), ...'."""
    ran = [r for r in results if r["status"] == "ran"]
    hung = [r for r in ran if any(x["hung"] for x in r.get("plain", []) + r.get("tool", []))]
    changed = [r for r in ran if r.get("changed")]
    norep = [r for r in ran if any(x.get("report_problem") for x in r.get("tool", []))]
    clean = [r for r in ran if not r["problems"]]
    return (f"{len(ran)} ran ({len(clean)} unchanged, {len(changed)} changed, {len(hung)} hung, "
            f"{len(norep)} without a report)" + status_counts(results, ("not built", "unrunnable", "skipped")))


def suite_status(results, hangs):
    """0 when nothing changed, hung or lost its report; 1 otherwise (also when
    no program ran)."""
    ran = [r for r in results if r["status"] == "ran"]
    if not ran:
        return 1
    if any(r["problems"] for r in results):
        return 1
    if any(h["hung"] for h in hangs):
        return 1
    return 0


def without_compared(obj):
    """obj without the runs' compared output lines (corpus.json keeps the
    paths of the outputs instead)."""
    if isinstance(obj, dict):
        return {k: without_compared(v) for k, v in obj.items() if k != "compared"}
    if isinstance(obj, list):
        return [without_compared(v) for v in obj]
    return obj


def load_manifest(corpus):
    path = os.path.join(corpus, MANIFEST)
    if not os.path.exists(path):
        raise CorpusError(f"--corpus {corpus}: no {MANIFEST}; build it first: python3 tests/corpus/run_corpus.py "
                          "prepare --samples <cuda-samples> --rodinia <gpu-rodinia> --hecbench <HeCBench> "
                          f"--out {corpus}")
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        raise CorpusError(f"{path} unreadable ({e}); rebuild it with prepare") from None


def ordered(programs):
    """The list's order with the hang_repro programs last, so a hang costs the
    others nothing."""
    return [p for p in programs if not p.get("hang_repro")] + [p for p in programs if p.get("hang_repro")]


def cmd_run(args):
    doc = load_programs(args.programs)
    chosen = select_programs(doc, args.only)
    args.corpus = os.path.abspath(args.corpus)
    manifest = load_manifest(args.corpus)
    for source in sorted({p["source"] for p in chosen}):
        pinned = doc["source_defs"][source]["commit"]
        built = (manifest.get("sources") or {}).get(source, {}).get("commit")
        if built is None and source == DEFAULT_SOURCE:
            built = manifest.get("commit")  # a manifest from before 'sources'
        if built is None:
            continue  # none of its programs was built: their rows say so
        if built != pinned:
            log(f"run_corpus: warning: the corpus's {source} programs were built from {built[:12]}, programs.json "
                f"pins {pinned[:12]}; rerun prepare")
    cli = os.path.join(os.path.abspath(args.build), "tools", "cli", "rangereplay")
    if not os.access(cli, os.X_OK):
        raise CorpusError(f"--build {args.build}: no launcher at {cli}; build rangereplay (scripts/build.sh) or pass "
                          f"the build folder that holds tools/cli/rangereplay")
    if args.set and args.set not in KNOWN_SETS:
        raise CorpusError(f"--set {args.set}: unknown set (known: {', '.join(KNOWN_SETS)})")
    env, lib = run_env()
    logs = os.path.abspath(args.logs)
    if args.dry_run:
        for p in ordered(chosen):
            e = manifest["programs"].get(p["name"], {})
            exe = os.path.join(args.corpus, p["name"], e.get("exe", p["exe"]))
            state = "built" if e.get("built") else "NOT BUILT"
            if p["source"] != DEFAULT_SOURCE:
                state += ", " + p["source"]
            print(f"# {p['name']} ({state}), cwd {os.path.dirname(exe)}")
            print("  " + shlex.join([exe] + p["args"]))
            for k, s in enumerate(p["selections"]):
                for verify in (False, True):
                    tag = p["name"] + (f".s{k}" if k else "") + (".verify" if verify else "")
                    print("  " + shlex.join(tool_command(cli, p, s, os.path.join(logs, tag + ".json"), verify, args.set)
                                            + [exe] + p["args"]))
        return 0
    gpu = gpu_check()
    os.makedirs(logs, exist_ok=True)
    suite = Suite(args, doc, manifest, cli, logs, env)
    counts = collections.Counter(p["source"] for p in chosen)
    origin = ", ".join(f"{counts[src]} {src} at {doc['source_defs'][src]['commit'][:12]}"
                       for src in SOURCE_KINDS if counts[src])
    header = [f"corpus: {len(chosen)} programs ({origin}) ({args.corpus}), "
              f"set {args.set or 'per program'}, timeout {args.timeout} s", f"gpu: {gpu}",
              f"CUDA libraries: {lib or 'not found (system paths)'}"]
    summary_path = os.path.join(logs, "corpus.json")
    results, hangs = [], []

    def save():
        with open(summary_path, "w") as f:
            json.dump({"header": header, "results": without_compared(results), "hang_test": hangs,
                       "elapsed_s": round(time.monotonic() - suite.t0, 1)}, f, indent=1, default=str)
    interrupted = None
    signal.signal(signal.SIGTERM, on_signal)
    try:
        for p in ordered(chosen):
            if suite.over_budget():
                results.append({"name": p["name"], "status": "skipped", "problems": [],
                                "notes": [f"budget of {args.budget} s spent"]})
            else:
                results.append(suite.program(p))
            save()
        if args.repeat_hang_test:
            hangs = suite.hang_test([p for p in chosen if p.get("hang_repro")], args.repeat_hang_test)
    except (Interrupted, KeyboardInterrupt) as e:
        interrupted = str(e) or "SIGINT"
        header.append(f"interrupted by {interrupted}: programs after the last row did not run")
    header.append(f"elapsed: {time.monotonic() - suite.t0:.0f} s; " + count_line(results))
    save()
    table = render_table(results, hangs, header)
    with open(os.path.join(logs, "corpus.txt"), "w") as f:
        f.write(table)
    print(table, end="", flush=True)
    return 1 if interrupted else suite_status(results, hangs)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--programs", default=PROGRAMS_JSON, help="the program list (default: programs.json beside this file)")
    sub = ap.add_subparsers(dest="command", required=True)
    pp = sub.add_parser("prepare", help="build the programs into a corpus folder (--samples, --rodinia, --hecbench)")
    pp.add_argument("--samples", help="cuda-samples checkout or bare git repository")
    pp.add_argument("--rodinia", help="gpu-rodinia (Rodinia's CUDA programs) checkout or bare git repository")
    pp.add_argument("--hecbench", help="HeCBench (its src/<name>-cuda programs) checkout or bare git repository")
    pp.add_argument("--out", required=True, help="corpus folder (e.g. .corpus)")
    pp.add_argument("--only", help="comma-separated program names")
    pp.add_argument("--jobs", type=int, default=0, help="parallel nvcc runs (default: number of CPUs)")
    pp.add_argument("--nvcc", help="nvcc to use (default: PATH, then /usr/local/cuda/bin/nvcc)")
    pp.add_argument("--max-mib", type=float, default=SIZE_LIMIT_MIB, help="fail above this size (default 52)")
    pp.add_argument("--build-timeout", type=int, default=900, help="seconds per program build (default 900)")
    pp.add_argument("--strict", action="store_true", help="exit 1 when any program fails to build")
    rp = sub.add_parser("run", help="run the corpus plain and under rangereplay (GPU machine)")
    rp.add_argument("--build", required=True, help="rangereplay build folder (holds tools/cli/rangereplay)")
    rp.add_argument("--corpus", required=True, help="folder made by prepare")
    rp.add_argument("--logs", required=True, help="folder for outputs, reports, corpus.json and corpus.txt")
    rp.add_argument("--only", help="comma-separated program names")
    rp.add_argument("--timeout", type=float, default=60, help="seconds per run before it counts as a hang (default 60); runs under the tool get "
                                                       "more when the plain runs take most of it")
    rp.add_argument("--repeat-hang-test", type=int, default=0, metavar="N",
                    help="run the hang_repro programs N more times under the tool with each selection")
    rp.add_argument("--hang-timeout", type=float, default=20, help="seconds per hang-test run (default 20)")
    rp.add_argument("--budget", type=float, help="seconds for the whole call; programs left when it is spent are "
                                                 "reported as skipped")
    rp.add_argument("--set", help="metric set for every program instead of each one's own")
    rp.add_argument("--no-hang-stacks", action="store_true", help="no gdb backtraces of a hung run")
    rp.add_argument("--dry-run", action="store_true", help="print the commands; run nothing (no GPU needed)")
    args = ap.parse_args(argv)
    for key in ("jobs", "repeat_hang_test"):
        if getattr(args, key, 0) and getattr(args, key) < 0:
            ap.error(f"--{key.replace('_', '-')} must not be negative")
    if getattr(args, "timeout", 1) <= 0 or getattr(args, "hang_timeout", 1) <= 0:
        ap.error("timeouts must be positive seconds")
    try:
        return cmd_prepare(args) if args.command == "prepare" else cmd_run(args)
    except CorpusError as e:
        print(f"run_corpus: {e}", file=sys.stderr)
        return 1 if str(e).startswith("no GPU") else 2
    except KeyboardInterrupt:
        print("run_corpus: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
