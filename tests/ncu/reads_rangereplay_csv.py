"""A script written for ncu's CSV reads rangereplay's: `rangereplay report
<sample> -o x.csv --csv-page details` is parsed by ncu_compare.parse_ncu_csv
(the parser the e2e tests use on ncu's own `--csv --page details` output)
and by csv.DictReader as ncu's --page raw is read (header, units row, one
row per result), finding the report's metric names and units.

    python3 tests/ncu/reads_rangereplay_csv.py <build-dir>
"""
import csv
import io
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import ncu_compare as nc  # noqa: E402

build = sys.argv[1]
cli = os.path.join(build, "tools/cli/rangereplay")
sample = os.path.join(HERE, "..", "python", "data", "sample_report.json")
report = json.load(open(sample))
kernels = [k for r in report["ranges"] if not r["declined"] for k in r["kernels"]]
units = {m["name"]: m["unit"] for k in kernels for m in k["metrics"]}
failures = []
with tempfile.TemporaryDirectory() as d:
    for page in ("details", "raw"):
        out = os.path.join(d, f"{page}.csv")
        p = subprocess.run([cli, "report", sample, "-o", out, "--csv-page", page], capture_output=True, text=True)
        if p.returncode != 0:
            failures.append(f"{page}: rangereplay report failed: {p.stderr.strip()}")
            continue
        text = open(out).read()
        if page == "details":
            results = nc.parse_ncu_csv(text)
            names = [r["name"] for r in results]
            if names != [k["name"] for k in kernels]:
                failures.append(f"details: results {names}")
            found = {row["Metric Name"]: row["Metric Unit"] for row in csv.DictReader(io.StringIO(text))}
        else:
            rows = list(csv.reader(io.StringIO(text)))
            header, unit_row, body = rows[0], rows[1], rows[2:]
            found = {h: u for h, u in zip(header[11:], unit_row[11:])}
            if len(body) != len(kernels):
                failures.append(f"raw: {len(body)} rows for {len(kernels)} kernels")
        if found != units:
            failures.append(f"{page}: names and units {found}, expected {units}")
print("\n".join(failures) if failures else "ok: ncu's readers read rangereplay's CSV")
sys.exit(1 if failures else 0)
