"""Reports of real profiles: every report written here
validates against share/rangereplay/report.schema.json and loads in the Python
module; `rangereplay diff` of two `--set full` runs of examples/stream keeps
the instruction counts and gives every metric's change, and of `--set basic`
against `--set full` lists the metrics only the full report has; ncu's own
`--csv --page details` and `--page raw` output of the same program, read by
the readers the tests use on ncu, has the same metric names and units as
rangereplay's CSV pages of its report; the installed launcher, from a prefix
outside the build tree, gives the same instruction counts as the build-tree
one. The reports (and, with REPORTS_TORCH=1, the torch-train workload's
`--set full` report where PyTorch has a GPU) are kept in the artifacts folder
for the HTML test.

    python3 tests/e2e/reports.py <build-dir> [artifacts-dir]

GPU end-to-end test of the reports of real profiles: schema, diff, ncu's CSV readers, the installed
launcher.
"""
import csv
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "ncu"))
sys.path.insert(0, os.path.join(ROOT, "tests", "python"))
from e2e_common import load_report  # noqa: E402
from ncu_compare import INST, NcuCsvError, ncu_csv_command, parse_ncu_csv  # noqa: E402

build = os.path.abspath(sys.argv[1])
artifacts = os.path.abspath(sys.argv[2]) if len(sys.argv) > 2 else tempfile.mkdtemp(prefix="rangereplay-reports.")
os.makedirs(artifacts, exist_ok=True)
cli = os.path.join(build, "tools/cli/rangereplay")
stream = [os.path.join(build, "examples/stream"), "--iterations", "2", "--bytes", "64MiB"]
failures = []
written = []


def run(cmd, timeout=300):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def profile(name, selection, app, launcher=cli, extra=()):
    """Profiles `app` with `selection` (e.g. ["--set", "full"]) into <artifacts>/<name>.json; the report, or None."""
    out = os.path.join(artifacts, name + ".json")
    rc, stdout, err = run([launcher, "profile", "--quiet", "--nvtx-include", "step/", *selection, *extra,
                           "--output", out, "--", *app])
    if rc != 0 or not os.path.exists(out):
        failures.append(f"{name}: profile rc={rc}: {err.strip()[-400:]}")
        return None
    written.append(out)
    report = load_report(out)
    if not any(not r["declined"] for r in report["ranges"]):
        failures.append(f"{name}: no range was replayed: {[r.get('decline_detail') for r in report['ranges']]}")
    return report


def instructions(report):
    """{(range, kernel): smsp__inst_executed.sum} of every replayed kernel."""
    return {(r["index"], k["index"]): m["value"] for r in report["ranges"] if not r["declined"] for k in r["kernels"]
            for m in k["metrics"] if m["name"] == INST}


def units(report):
    return {m["name"]: m["unit"] for r in report["ranges"] if not r["declined"] for k in r["kernels"]
            for m in k["metrics"]}


def diff(base, new):
    rc, out, err = run([cli, "diff", "--json", base, new])
    if rc != 0:
        failures.append(f"diff {os.path.basename(base)} {os.path.basename(new)}: rc={rc}: {err.strip()[-300:]}")
        return None
    return json.loads(out)


def csv_from_header(text, page):
    """The CSV in `text` from ncu's header line (one starting with "ID") on: ncu prints the application's output and
    ==PROF== lines before it."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith('"ID"')), None)
    if start is None:
        raise NcuCsvError(f"no --page {page} header (a line starting with \"ID\")")
    return io.StringIO("\n".join(lines[start:]))


def raw_page(text):
    """ncu's `--page raw` CSV in `text`: (header, units row, result rows)."""
    rows = list(csv.reader(csv_from_header(text, "raw")))
    return rows[0], rows[1], [r for r in rows[2:] if r and r[0].isdigit()]


def details_units(text):
    """{metric name: unit} of a `--page details` CSV in `text`."""
    return {row["Metric Name"]: row["Metric Unit"] for row in csv.DictReader(csv_from_header(text, "details"))
            if row.get("ID", "").isdigit()}


def compare_names(what, ours, theirs):
    """ours, theirs: {metric: unit}. Every name of ours is in theirs with the same unit, and none is missing."""
    missing = sorted(set(ours) - set(theirs))
    extra = sorted(set(theirs) - set(ours))
    other_unit = sorted(f"{n}: ours '{ours[n]}', ncu '{theirs[n]}'" for n in set(ours) & set(theirs)
                        if ours[n] != theirs[n])
    if missing:
        failures.append(f"{what}: {len(missing)} of rangereplay's metrics not in ncu's: {missing[:8]}")
    if extra:
        failures.append(f"{what}: {len(extra)} of ncu's metrics not in rangereplay's: {extra[:8]}")
    if other_unit:
        failures.append(f"{what}: {len(other_unit)} units differ: {other_unit[:8]}")
    print(f"{what}: {len(set(ours) & set(theirs))} metric names shared, {len(missing)} missing, {len(extra)} extra, "
          f"{len(other_unit)} with another unit")


full = profile("stream_full", ["--set", "full"], stream)
full2 = profile("stream_full_2", ["--set", "full"], stream)
basic = profile("stream_basic", ["--set", "basic"], stream)

# Two runs of the same program: instruction counts unchanged, a change for every metric.
if full and full2:
    d = diff(written[0], written[1])
    if d is not None:
        metrics = set(full["metrics"])
        rows = d["rows"]
        # A change from 0 has no percent (the diff prints n/a); any other pair has one.
        with_change = {row["metric"] for row in rows if row["change_pct"] is not None or row["base"] == 0}
        if with_change != metrics:
            failures.append(f"diff full/full: {len(metrics - with_change)} metrics without a percent change: "
                            f"{sorted(metrics - with_change)[:8]}")
        moved = [row for row in rows if row["metric"] == INST and row["change_pct"] != 0]
        if moved or not any(row["metric"] == INST for row in rows):
            failures.append(f"diff full/full: instruction counts changed: {moved[:4]}")
        if d["unmatched"]:
            failures.append(f"diff full/full: unmatched {d['unmatched'][:4]}")
        print(f"diff full/full: {len(rows)} rows, {len(with_change)} metrics with a change, "
              f"{sum(1 for r in rows if r['metric'] == INST)} instruction rows unchanged")
# --set basic against --set full: the full set's other metrics are listed as only in the new report.
if full and basic:
    d = diff(os.path.join(artifacts, "stream_basic.json"), written[0])
    if d is not None:
        only_new = set(full["metrics"]) - set(basic["metrics"])
        listed = {u.split("'")[1] for u in d["unmatched"] if u.endswith("only in the new report")}
        if listed != only_new:
            failures.append(f"diff basic/full: lists {len(listed)} metrics only in the full report, expected "
                            f"{len(only_new)}; not listed {sorted(only_new - listed)[:6]}")
        print(f"diff basic/full: {len(listed)} metrics listed as only in the full report")

# ncu's CSV pages of the same program with the same metrics, and rangereplay's pages of its report.
if full:
    names = list(full["metrics"])
    ours = units(full)
    for page in ("details", "raw"):
        out = os.path.join(artifacts, f"stream_full.{page}.csv")
        rc, _, err = run([cli, "report", written[0], "-o", out, "--csv-page", page])
        if rc != 0:
            failures.append(f"csv {page}: rangereplay report rc={rc}: {err.strip()[-300:]}")
            continue
        mine = open(out).read()
        rc, ncu_out, err = run(ncu_csv_command(stream, names, ["--page", page]), timeout=420)
        with open(os.path.join(artifacts, f"ncu_stream.{page}.csv"), "w") as f:
            f.write(ncu_out)
        if rc != 0:
            failures.append(f"ncu --page {page}: rc={rc}: {err.strip()[-300:]}")
            continue
        try:
            if page == "details":
                # The reader the e2e tests use on ncu's output reads ours unchanged.
                theirs_kernels, mine_kernels = parse_ncu_csv(ncu_out), parse_ncu_csv(mine)
                if len(theirs_kernels) != len(mine_kernels):
                    failures.append(f"csv details: ncu {len(theirs_kernels)} kernels, rangereplay {len(mine_kernels)}")
                for a, b in zip(mine_kernels, theirs_kernels):
                    if a.get(INST) != b.get(INST):
                        failures.append(f"csv details: {a['name'][:40]} {INST} {a.get(INST)} vs ncu {b.get(INST)}")
                compare_names("csv details, ncu's", details_units(mine), details_units(ncu_out))
            else:
                h, u, body = raw_page(ncu_out)
                mh, mu, mbody = raw_page(mine)
                # The columns before the first metric's (a metric's name holds "__").
                first = next((i for i, c in enumerate(h) if "__" in c), len(h))
                mfirst = next((i for i, c in enumerate(mh) if "__" in c), len(mh))
                # ncu's --nvtx adds its two NVTX columns ("thread Domain:Push/Pop_Range:...",
                # "Id:Domain:Start/Stop_Range:..."); its layout without them is ours.
                lead = [c for c in h[:first] if "Domain:" not in c]
                if lead != mh[:mfirst]:
                    failures.append(f"csv raw: leading columns ncu {lead} vs rangereplay {mh[:mfirst]}")
                if len(body) != len(mbody):
                    failures.append(f"csv raw: ncu {len(body)} rows, rangereplay {len(mbody)}")
                # ncu's raw page adds columns of its own (launch__*, device__attribute_*): those are counted,
                # the requested metrics compared.
                theirs = {c: x for c, x in zip(h, u) if c in names}
                print(f"csv raw: ncu has {len(h) - first - len(theirs)} columns beyond the requested metrics")
                compare_names("csv raw, ncu's", dict(zip(mh[mfirst:], mu[mfirst:])), theirs)
        except NcuCsvError as e:
            failures.append(f"csv {page}: {e}")
    if ours and set(ours) != set(names):
        failures.append(f"stream_full: kernels carry {len(ours)} of the report's {len(names)} metrics")

# The installed launcher, from a prefix outside the build tree.
prefix = tempfile.mkdtemp(prefix="rangereplay-prefix.")
try:
    rc, _, err = run(["cmake", "--install", build, "--prefix", prefix])
    if rc != 0:
        failures.append(f"install: cmake --install rc={rc}: {err.strip()[-300:]}")
    elif basic:
        installed = profile("stream_basic_installed", ["--set", "basic"], stream,
                            launcher=os.path.join(prefix, "bin", "rangereplay"))
        if installed:
            if instructions(installed) != instructions(basic) or not instructions(basic):
                failures.append(f"installed: instruction counts {instructions(installed)} vs build tree "
                                f"{instructions(basic)}")
            if units(installed) != units(basic):
                failures.append("installed: metric names or units differ from the build tree's")
            print(f"installed launcher: {len(instructions(installed))} kernels, instruction counts equal: "
                  f"{instructions(installed) == instructions(basic)}")
finally:
    shutil.rmtree(prefix, ignore_errors=True)

# The torch-train workload's --set full report, where PyTorch has a GPU and
# REPORTS_TORCH=1 asks for it (gpu-check.sh's `reports` stage, which keeps the
# HTML test's fixtures; about a minute the `gpu` suite does without).
py = sys.executable or "python3"
rc = 1
if os.environ.get("REPORTS_TORCH") == "1":
    rc, _, _ = run([py, "-c", "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 3)"], timeout=120)
if rc == 0:
    torch_cmd = [py, os.path.join(ROOT, "tests", "workloads", "torch_transformer.py"), "--mode", "train", "--steps",
                 "2"]
    train = profile("torch_train_full", ["--set", "full"], torch_cmd)
    if train:
        print(f"torch-train --set full: {len(train['ranges'])} ranges, "
              f"{sum(len(r['kernels']) for r in train['ranges'])} kernels")
else:
    print("torch-train: skipped (REPORTS_TORCH=1 not set, or PyTorch without a CUDA device)")

# Every report written here validates against the schema and loads in the Python module.
rc, out, err = run([py, os.path.join(ROOT, "tests", "python", "schema_check.py"), *written]) if written else (0, "", "")
if rc != 0:
    failures.append(f"schema: {(out + err).strip()[-600:]}")
else:
    print(f"schema: {len(written)} reports valid")
print(f"artifacts: {artifacts}")
if failures:
    print("\n".join(failures))
    sys.exit(1)
print("ok")
