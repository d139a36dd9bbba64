"""Differential restore against full restore on the examples.

GPU end-to-end test of differential restore: every example and app_unchanged_range, run under the
default (--restore differential) and under --restore full, gives checksums equal to a run without
the tool; full restores the whole footprint every pass, differential at most that, and a range that
leaves memory unchanged restores 0 bytes per pass when it is replayed on its own (--batch-ranges off;
in a batch, each member also restores what the other members and the application changed between
them: app_unchanged_range's accumulator). Also with --verify (one digest plan serves both). By default a
member whose pass holds CUPTI's automatic per-kernel ranges may restore its whole entry state by the copy
engines, reported as full with a note: at least one range must, and no batch may be replayed a second time for
more counter ranges than kernels (CUPTI counted the copies); with RANGEREPLAY_BATCH_COPY_ENGINE_RESTORE=0 none
may.
Exit 1 on any mismatch, 77 without a GPU.
"""
import os
import re
import sys
import tempfile

from e2e_common import checksums, load_report, run, tail

BUILD = sys.argv[1]
CLI = os.path.join(BUILD, "tools/cli/rangereplay")
METRICS = "smsp__inst_executed.sum,dram__bytes_read.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed"

# (label, executable relative to the build dir, arguments, every pass restores 0 bytes under differential).
CASES = [
    ("stream", "examples/stream", ["--iterations", "2", "--bytes", "64MiB"], False),
    ("atomics", "examples/atomics", ["--iterations", "2"], False),
    ("atomics-float", "examples/atomics", ["--iterations", "2", "--float"], False),
    ("multistream", "examples/multistream", ["--iterations", "2"], False),
    ("globals", "examples/globals", ["--iterations", "2"], False),
    ("gemm", "examples/gemm", ["--iterations", "2", "--size", "1024"], False),
    ("graph", "examples/graph", ["--iterations", "2", "--bytes", "64MiB"], False),
    ("app_unchanged_range", "tests/apps/app_unchanged_range", ["--iterations", "2"], True),
]
# (tool arguments, the restore mode every replayed range must report, environment). Without
# RANGEREPLAY_BATCH_COPY_ENGINE_RESTORE=0 a batch member in CUPTI's automatic ranges may restore its whole entry
# state by the copy engines instead.
KERNELS = {"RANGEREPLAY_BATCH_COPY_ENGINE_RESTORE": "0"}
MODES = [([], "differential", None), (["--restore", "full"], "full", None), (["--verify"], "differential", None),
         ([], "differential", KERNELS)]


# A batch's note after its automatic ranges gave more counter ranges than its kernels and the tool's own: CUPTI
# made ranges of something else in the pass (the copy-engine restores). One range fewer is CUPTI's own miss.
SECOND_BATCH_WINDOW = re.compile(r"replayed a second time .* after the first replay, in CUPTI's automatic per-kernel "
                                 r"ranges, failed: CUPTI returned (\d+) counter ranges for (\d+) kernels of \d+ "
                                 r"ranges and (\d+) of the tool's own")


def counted_copies(note):
    m = SECOND_BATCH_WINDOW.search(note)
    return m is not None and int(m.group(1)) > int(m.group(2)) + int(m.group(3))


def check(label, exe_rel, args, unchanged, failures):
    exe = os.path.join(BUILD, exe_rel)
    if not os.access(exe, os.X_OK):
        failures.append(f"{label}: {exe} is missing; build its target first")
        return
    plain_rc, plain_out, plain_err = run([exe] + args)
    if plain_rc != 0 or not checksums(plain_out):
        failures.append(f"{label}: the plain run failed (rc={plain_rc}): {tail(plain_err)}")
        return
    for tool_args, mode, env in MODES:
        name = f"{label} {' '.join(tool_args) or '(default)'}" + (" (restores by kernels only)" if env else "")
        fd, report_path = tempfile.mkstemp(prefix=f"rr_{label}_", suffix=".json")
        os.close(fd)
        os.unlink(report_path)
        alone = ["--batch-ranges", "off"] if unchanged else []
        cmd = [CLI, "profile", "--quiet", "--nvtx-include", "step/", "--metrics", METRICS, "--output", report_path,
               *alone, *tool_args, "--", exe] + args
        rc, out, err = run(cmd, timeout=240, env=None if env is None else {**os.environ, **env})
        if rc != plain_rc or checksums(out) != checksums(plain_out):
            failures.append(f"{name}: results differ with the tool (rc {plain_rc} vs {rc}): {tail(err)}")
            continue
        try:
            report = load_report(report_path)
        except (OSError, ValueError) as e:
            failures.append(f"{name}: no readable report: {e}")
            continue
        finally:
            if os.path.exists(report_path):
                os.unlink(report_path)
        cells = []
        for r in report["ranges"]:
            where = f"{name}: range {r['index']}"
            if r["declined"]:
                failures.append(f"{where} declined: {r['decline_reason']} ({r['decline_detail']})")
                continue
            # A batch member in CUPTI's automatic ranges restores its whole entry state by the copy engines
            # (no kernel launch, so no counter range of the tool's) and says so in a note.
            by_engines = any("by the copy engines" in note for note in r["notes"])
            expected = "full" if by_engines else mode
            if r.get("restore") != expected:
                failures.append(f"{where} restored '{r.get('restore')}', expected '{expected}'; notes {r['notes']}")
            if by_engines and env is not None:
                failures.append(f"{where}: restored by the copy engines with {KERNELS}")
            if by_engines:
                engine_ranges.append(where)
            if env is None:
                for note in r["notes"]:
                    if counted_copies(note):
                        failures.append(f"{where}: CUPTI counted the copy-engine restores, and the batch was "
                                        f"replayed a second time: {note}")
            if by_engines and "--verify" in tool_args:
                failures.append(f"{where}: restored by the copy engines under --verify, which replays each range "
                                "alone with its own restore")
            for note in r["notes"]:
                if "unavailable" in note or "did not fit" in note:
                    failures.append(f"{where}: {note}")
            footprint = r["footprint_bytes"]
            restored = [p["restored_bytes"] for p in r["pass_records"]]
            if not restored:
                failures.append(f"{where}: no pass records")
            for p in r["pass_records"]:
                b = p["restored_bytes"]
                if expected == "full" and b != footprint:
                    failures.append(f"{where} pass {p['pass']}: full restore moved {b} bytes of {footprint}")
                if expected == "differential" and b > footprint:
                    failures.append(f"{where} pass {p['pass']}: restored {b} bytes, more than the footprint {footprint}")
                if expected == "differential" and unchanged and b != 0:
                    failures.append(f"{where} pass {p['pass']}: an unchanged range restored {b} bytes")
            if mode == "differential" and unchanged and footprint == 0:
                failures.append(f"{where}: footprint 0, the check of 0 restored bytes proves nothing")
            if "--verify" in tool_args and label != "atomics-float":
                divergent = sum(len(p["divergences"]) for p in r["pass_records"])
                if divergent:
                    failures.append(f"{where}: {divergent} divergent regions in a deterministic workload")
            cells.append(f"{footprint}B->{'/'.join(str(b) for b in restored)}{' (copy engines)' if by_engines else ''}")
        print(f"{name:<44} {'; '.join(cells)}")


failures = []
engine_ranges = []  # the ranges restored by the copy engines, in every case and mode
for case in CASES:
    check(*case, failures)
if not engine_ranges:
    failures.append("no range was restored by the copy engines by default, in any case: a batch of two in "
                    "CUPTI's automatic ranges with a small entry state on the device tier should have been")
print("\n".join(failures) if failures else "ok")
sys.exit(1 if failures else 0)
