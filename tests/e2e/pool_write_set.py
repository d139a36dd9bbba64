"""Write-set snapshots of a pool that fills most of the device.

GPU end-to-end test of write-set snapshots: app_pool_write_set reserves 80% of free device memory in
one cudaMalloc and sub-allocates its buffers from it, so the pool is one region the snapshot tiers
cannot hold whole. The first range is replayed from a snapshot of the pool's chunks that are not
zero at entry (its buffers and guards, 518 MiB: 129 chunks per buffer, which straddle chunks, and 2) and learns its write set; every later one is
replayed from a snapshot of the chunks the earlier ones wrote, proven by digests. Where the chunks
not zero at entry do not fit the capped tiers, the first range declines write_set_learned. The
checksums equal a run without the tool, --verify finds no divergence, and with --rotate a range
that writes a buffer no earlier range wrote declines write_set_exceeded while the next range over
the grown write set replays. Exit 1 on any failure (a run past its time limit is one), 77 without
a GPU.
"""
import os
import sys

from e2e_common import checksums, profile_with_report, run, summarize, tail

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "ncu"))
from ncu_compare import NcuCsvError, ncu_csv_command, parse_ncu_csv  # noqa: E402

BUILD = sys.argv[1]
CLI = os.path.join(BUILD, "tools/cli/rangereplay")
APP = os.path.join(BUILD, "tests/apps/app_pool_write_set")
INST = "smsp__inst_executed.sum"
METRICS = "smsp__inst_executed.sum,dram__bytes_read.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed"
# The pinned tier capped, so the pool never fits whole whatever the host's memory (a host with over 450 GB free
# could hold both states of a 112 GB pool): the write set is what the test exercises.
HOST_LIMIT = ["--snapshot-host-limit", "4GiB"]
PLAIN_TIMEOUT_S = 45
PROFILE_TIMEOUT_S = 90

# (label, app arguments, tool arguments, expected decline reason per range in order: None = replayed)
CASES = [
    ("same buffer", ["--iterations", "6"], [], [None] * 6),
    ("same buffer --verify", ["--iterations", "4"], ["--verify"], [None] * 4),
    ("same buffer --restore full", ["--iterations", "3"], ["--restore", "full"], [None] * 3),
    # The first range's snapshot holds every buffer; the later ones predict
    # only what the earlier ones wrote.
    ("rotating buffers", ["--iterations", "6", "--rotate"], [],
     [None, "write_set_exceeded", "write_set_exceeded", None, None, None]),
    # Kernel windows over the same steps (4 seed launches, then 2 per step):
    # windows of one length share their prediction.
    ("kernel windows", ["--iterations", "4"], ["--kernel-range", "4:6,6:8,8:10,10:12"], [None] * 4),
    # 262 MiB not zero at entry, twice (entry and exit states), over 400 MiB
    # of tiers: the first range learns; a and acc (130 MiB) fit after.
    ("non-zero chunks over the tiers", ["--iterations", "3", "--buffer-bytes", "64MiB"],
     ["--snapshot-device-limit", "200MiB", "--snapshot-host-limit", "200MiB"], ["write_set_learned", None, None]),
]


def inst_values(r):
    """Per kernel of range `r`, its smsp__inst_executed.sum."""
    values = []
    for k in r["kernels"]:
        for m in k.get("metrics") or []:
            if m["name"] == "smsp__inst_executed.sum":
                values.append(m["value"])
    return values


def check(label, app_args, tool_args, expected, failures):
    plain_rc, plain_out, plain_err = run([APP] + app_args, timeout=PLAIN_TIMEOUT_S)
    if plain_rc != 0 or not checksums(plain_out):
        failures.append(f"{label}: the plain run failed (rc={plain_rc}): {tail(plain_err)}")
        return
    selection = [] if "--kernel-range" in tool_args else ["--nvtx-include", "step/"]
    host_limit = [] if "--snapshot-host-limit" in tool_args else HOST_LIMIT
    tool = [*selection, "--metrics", METRICS, *host_limit, *tool_args]
    rc, out, err, report = profile_with_report(CLI, tool, [APP] + app_args, timeout=PROFILE_TIMEOUT_S)
    if rc != plain_rc or checksums(out) != checksums(plain_out):
        failures.append(f"{label}: results differ with the tool (rc {plain_rc} vs {rc}): {tail(err)}")
        return
    if isinstance(report, str):
        failures.append(f"{label}: {report}")
        return
    ranges = report["ranges"]
    if len(ranges) != len(expected):
        failures.append(f"{label}: {len(ranges)} ranges in the report, expected {len(expected)}")
        return
    for error in report.get("errors") or []:
        failures.append(f"{label}: report error: {error}")
    replayed_inst = []
    cells = []
    for r, want in zip(ranges, expected):
        where = f"{label}: range {r['index']}"
        got = r["decline_reason"] if r["declined"] else None
        cells.append(got or f"replayed ({r['footprint_bytes']} B)")
        if got != want:
            failures.append(f"{where}: {got or 'replayed'}, expected {want or 'replayed'} ({r['decline_detail']}); "
                            f"notes {r['notes']}")
            continue
        if want is not None:
            if "bytes" not in r["decline_detail"]:
                failures.append(f"{where}: the detail does not say how many bytes changed: {r['decline_detail']}")
            continue
        notes = [n for n in r["notes"] if n.startswith("snapshot: ") and "proven by digests" in n]
        if not notes:
            failures.append(f"{where}: no write-set note in {r['notes']}")
        elif r["index"] == ranges[-1]["index"]:
            print(f"{label}: last range's policy: {notes[0]}")  # the pool's size and the digests' cost
        for note in r["notes"]:
            if "outside the snapshot's write set" in note or "unavailable" in note:
                failures.append(f"{where}: {note}")
        if "--verify" in tool_args:
            divergent = sum(len(p["divergences"]) for p in r["pass_records"])
            if divergent:
                failures.append(f"{where}: {divergent} divergent regions")
        if not r["pass_records"]:
            failures.append(f"{where}: replayed without pass records")
        replayed_inst.append(inst_values(r))
    # The same kernels over the same sizes: every replayed range counts the same instructions.
    if replayed_inst and any(v != replayed_inst[0] for v in replayed_inst):
        failures.append(f"{label}: instruction counts differ between replayed ranges: {replayed_inst}")
    if replayed_inst and not replayed_inst[0]:
        failures.append(f"{label}: no smsp__inst_executed.sum values in the replayed ranges")
    print(f"{label:<28} {'; '.join(cells)}")
    return report


if not os.access(APP, os.X_OK) or not os.access(CLI, os.X_OK):
    print(f"missing {APP} or {CLI}: build the targets app_pool_write_set and rangereplay first")
    sys.exit(1)
failures = []
reports = {case[0]: check(*case, failures) for case in CASES}

# Instruction counts of the replayed ranges against ncu's kernel replay of the
# same launches (one pass for this metric, so ncu saves no memory of the pool).
first = reports.get("same buffer")
if isinstance(first, dict):
    app = [APP, "--iterations", "6"]
    rc, ncu_out, err = run(ncu_csv_command(app, [INST]), timeout=600)
    try:
        theirs = parse_ncu_csv(ncu_out) if rc == 0 else []
    except NcuCsvError as e:
        theirs, err = [], err + str(e)
    ranges = sorted(first["ranges"], key=lambda r: r["index"])
    per = len(theirs) // len(ranges) if ranges and len(theirs) % len(ranges) == 0 else 0
    if not per:
        failures.append(f"ncu gave {len(theirs)} kernels for {len(ranges)} ranges: {tail(err)}")
    for r in ranges:
        if r["declined"] or not per:
            continue
        ours = inst_values(r)
        ref = [k.get(INST) for k in theirs[r["index"] * per:(r["index"] + 1) * per]]
        print(f"range {r['index']}: {INST} per kernel {ours} vs ncu kernel replay {ref}")
        if ours != ref:
            failures.append(f"range {r['index']}: {INST} {ours} vs ncu kernel replay {ref}")
sys.exit(summarize(failures))
