"""Read rangereplay's JSON reports (`rangereplay profile -o x.json`) from Python.

`load(path)` reads a report into dataclasses named like the C++ report model
(src/report/report_model.h): a `Report` holds `RangeRecord`s, each with its
`KernelRecord`s, and every kernel its `MetricValue`s. `to_records(report)`
flattens a report into plain rows (lists of dicts) and `to_dataframes(report)`
turns those rows into pandas DataFrames, when pandas is installed.

    import rangereplay_report as rr

    report = rr.load("x.json")
    for r in report.ranges:
        for k in r.kernels:
            print(r.name, k.name, k.metric("dram__bytes_read.sum"))
    frames = rr.to_dataframes(report)   # {"ranges", "kernels", "metrics"}
    frames["metrics"].pivot_table(index=["range_index", "kernel_index"], columns="metric", values="value")

The reader checks what the C++ reader checks (src/report/report_json.cpp):
every field that report has always written must be there with its JSON type;
fields added to schema_version 1 later may be missing and keep their default;
unknown keys are ignored. Doubles written as "nan", "inf" or "-inf" become
the float values. Any problem is one ValueError line naming the file and the
JSON path, e.g. `report 'x.json' is not a valid rangereplay report:
ranges[0].name: missing field`. It accepts exactly the documents the C++ reader
accepts (tests/data/report_corpus holds examples both are tested on): no
number beyond a double's range (1e400), no lone surrogate (\\ud800), no
invalid UTF-8, no "-0" where an unsigned integer goes. `load` reads at most
MAX_REPORT_BYTES (1 GiB, as the C++ reader), also from a FIFO or a device. The report's JSON Schema is
share/rangereplay/report.schema.json. Standard library only; pandas is
needed for to_dataframes alone.

As a script, `python3 rangereplay_report.py x.json...` loads each report and
prints one line per range (exit 1 with the error line when one does not load);
control characters in names are escaped (escape_controls) so none reaches the
terminal.
"""
from __future__ import annotations

import dataclasses
import json
import math
import os
import stat
import sys
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

SCHEMA_VERSION = 1
"""The report schema_version this module reads."""

_U32_MAX = 2**32 - 1
_U64_MAX = 2**64 - 1
_I64_MIN, _I64_MAX = -(2**63), 2**63 - 1
_NON_FINITE = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}

MAX_REPORT_BYTES = 1 << 30
"""The largest report file load() reads, in bytes (src/report/report_file.h's kMaxReadBytes)."""


# --- the model ------------------------------------------------------------------
#
# One dataclass per C++ struct, its attributes named as the JSON keys (PassRecord's
# "pass" is `pass_`, `pass` being a Python keyword). Field defaults are the C++
# defaults, which a missing added-later field keeps.

@dataclass
class MetricValue:
    """One metric's value, named as Nsight Compute names it ("dram__bytes_read.sum", unit "byte")."""
    name: str = ""
    unit: str = ""
    value: float = 0.0


@dataclass
class KernelRecord:
    """One kernel launch of a range, in submission order. grid and block are (x, y, z) tuples;
    launch_index is -1 for a graph's kernel node (and in reports older than the field)."""
    index: int = 0
    name: str = ""
    mangled_name: str = ""
    grid: Tuple[int, int, int] = (1, 1, 1)
    block: Tuple[int, int, int] = (1, 1, 1)
    shared_mem_bytes: int = 0
    stream_id: int = 0
    launch_index: int = -1
    metrics: List[MetricValue] = field(default_factory=list)

    def metric(self, name: str) -> Optional[float]:
        """The value of metric `name`, or None when the kernel has no such metric."""
        return _metric_value(self.metrics, name)


@dataclass
class StageTimings:
    """Wall time of each stage of one replay window, in milliseconds."""
    sync_ms: float = 0.0
    capture_ms: float = 0.0
    restore_ms: float = 0.0
    replay_submit_ms: float = 0.0
    kernels_ms: float = 0.0
    counters_ms: float = 0.0
    decode_ms: float = 0.0
    verify_ms: float = 0.0
    window_ms: float = 0.0
    begin_ms: float = 0.0
    other_ms: float = 0.0
    pass0_ms: float = 0.0
    rendezvous_ms: float = 0.0


@dataclass
class TierUsage:
    """Snapshot bytes held by one storage tier ("device", "pinned") for a range."""
    tier: str = ""
    bytes: int = 0
    arena_bytes: int = 0
    new_allocation: bool = False


@dataclass
class Divergence:
    """One allocation whose digest after a replay differs from the range-exit state."""
    address: int = 0
    size_bytes: int = 0
    origin: str = ""


@dataclass
class MetricSample:
    """One PM sample of a range profiled by --set triage: its start and end in milliseconds from the
    range's first sample, and one value per range metric (RangeRecord.range_metrics' order)."""
    start_ms: float = 0.0
    end_ms: float = 0.0
    values: List[float] = field(default_factory=list)


@dataclass
class PassRecord:
    """One replayed pass (pass 1 to N-1); JSON key "pass" is the attribute `pass_`."""
    pass_: int = 0
    restored_bytes: int = 0
    divergences: List[Divergence] = field(default_factory=list)


@dataclass
class RangeRecord:
    """One matched range, replayed or declined. `range_metrics` holds the whole-range values
    (--range-metrics whole); `samples` the PM samples of --set triage (empty otherwise: the key is
    written only when there are samples); `restore` and `counter_ranges` are empty in reports older
    than them."""
    index: int = 0
    name: str = ""
    declined: bool = False
    decline_reason: str = ""
    decline_detail: str = ""
    passes: int = 0
    footprint_bytes: int = 0
    regions: int = 0
    tiers: List[TierUsage] = field(default_factory=list)
    restore: str = ""
    counter_ranges: str = ""
    timings: StageTimings = field(default_factory=StageTimings)
    kernels: List[KernelRecord] = field(default_factory=list)
    range_metrics: List[MetricValue] = field(default_factory=list)
    samples: List[MetricSample] = field(default_factory=list)
    pass_records: List[PassRecord] = field(default_factory=list)
    notes: List[str] = field(default_factory=list)

    def metric(self, name: str) -> Optional[float]:
        """The whole-range value of metric `name`, or None when the range has none."""
        return _metric_value(self.range_metrics, name)


@dataclass
class TimeBudget:
    """Where a profiled run's wall time went, in milliseconds (all zeros in reports older than it)."""
    wall_ms: float = 0.0
    launcher_checks_ms: float = 0.0
    start_to_tool_ms: float = 0.0
    gate_wait_ms: float = 0.0
    counter_setup_ms: float = 0.0
    first_pass_start_ms: float = 0.0
    range_begins_ms: float = 0.0
    in_ranges_ms: float = 0.0
    windows_ms: float = 0.0
    standing_flushes_ms: float = 0.0
    exit_ms: float = 0.0
    outside_ranges_ms: float = 0.0
    tool_start_clock_ms: float = 0.0
    exit_start_clock_ms: float = 0.0
    rendezvous_ms: float = 0.0


@dataclass
class Report:
    """A whole profiled run: the device, the requested metrics and the matched ranges."""
    tool_version: str = ""
    device_name: str = ""
    chip_name: str = ""
    driver_version: str = ""
    compute_capability: str = ""
    process_id: int = 0
    host_name: str = ""
    cache_control: str = "none"  # reports older than the field were all made without a flush
    environment: Dict[str, str] = field(default_factory=dict)
    command: List[str] = field(default_factory=list)
    metrics: List[str] = field(default_factory=list)
    # The --set's metrics the chip lacks (by their GH100 names); not in metrics.
    missing_metrics: List[str] = field(default_factory=list)
    range_metrics: str = "kernel"
    pass_count: int = 0
    counter_backend: str = ""  # "range_profiler" or "pm_sampling" (--set triage); empty in reports older than the field
    setup_ms: float = 0.0
    launcher_ms: float = 0.0
    gate_wait_ms: float = 0.0
    verify: bool = False
    ranges: List[RangeRecord] = field(default_factory=list)
    errors: List[str] = field(default_factory=list)
    time_budget: TimeBudget = field(default_factory=TimeBudget)
    schema_version: int = SCHEMA_VERSION


def _metric_value(metrics: List[MetricValue], name: str) -> Optional[float]:
    for m in metrics:
        if m.name == name:
            return m.value
    return None


# --- the reader -----------------------------------------------------------------

class _PathError(Exception):
    """A bad value with the JSON path to it; enclosing fields prepend their key or index."""

    def __init__(self, path: str, reason: str):
        super().__init__(reason)
        self.path, self.reason = path, reason

    def prepend(self, part: str) -> None:
        joiner = "" if not self.path or self.path.startswith("[") else "."
        self.path = part + joiner + self.path

    def message(self) -> str:
        return f"{self.path}: {self.reason}" if self.path else self.reason


def _type_name(v: Any) -> str:
    # nlohmann-json's names, as the C++ reader's errors say them.
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, (int, float)):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    return "object"


def _mismatch(v: Any, expected: str) -> _PathError:
    return _PathError("", f"expected {expected}, got {_type_name(v)}")


def _read_str(v: Any) -> str:
    if not isinstance(v, str):
        raise _mismatch(v, "a string")
    return v


def _read_bool(v: Any) -> bool:
    if not isinstance(v, bool):
        raise _mismatch(v, "true or false")
    return v


def _unsigned(bits: int, limit: int):
    def read(v: Any) -> int:
        if isinstance(v, (bool, _NegativeZero)) or not isinstance(v, int) or v < 0:
            raise _mismatch(v, "an unsigned integer")
        if v > limit:
            raise _PathError("", f"{v} does not fit in {bits} bits")
        return v
    return read


_read_u32 = _unsigned(32, _U32_MAX)
_read_u64 = _unsigned(64, _U64_MAX)


def _read_i64(v: Any) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise _mismatch(v, "an integer")
    if not _I64_MIN <= v <= _I64_MAX:
        raise _PathError("", f"{v} does not fit in a signed 64-bit integer")
    return v


def _read_double(v: Any) -> float:
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return float(v)
    if isinstance(v, str) and v in _NON_FINITE:
        return _NON_FINITE[v]
    raise _mismatch(v, 'a number or "nan", "inf", "-inf"')


def _read_dim3(v: Any) -> Tuple[int, int, int]:
    if not isinstance(v, list) or len(v) != 3:
        raise _mismatch(v, "[x, y, z]")
    return tuple(_element(v, i, _read_u32) for i in range(3))  # type: ignore[return-value]


def _element(array: list, i: int, read):
    try:
        return read(array[i])
    except _PathError as e:
        e.prepend(f"[{i}]")
        raise


def _list_of(read):
    def read_list(v: Any) -> list:
        if not isinstance(v, list):
            raise _mismatch(v, "an array")
        return [_element(v, i, read) for i in range(len(v))]
    return read_list


def _read_str_map(v: Any) -> Dict[str, str]:
    if not isinstance(v, dict):
        raise _mismatch(v, "an object of strings")
    out = {}
    for key, value in v.items():
        try:
            out[key] = _read_str(value)
        except _PathError as e:
            e.prepend(key)
            raise
    return out


def _struct(cls, fields):
    """A reader of the JSON object of dataclass `cls`. `fields`: (key, reader, required) in
    the C++ reading order, so the first bad field is the one named; an absent optional key
    keeps the dataclass default."""
    def read(v: Any):
        if not isinstance(v, dict):
            raise _mismatch(v, "an object")
        values = {}
        for key, read_value, required in fields:
            if key not in v:
                if required:
                    raise _PathError(key, "missing field")
                continue
            try:
                values[_attribute(key)] = read_value(v[key])
            except _PathError as e:
                e.prepend(key)
                raise
        return cls(**values)
    return read


def _attribute(key: str) -> str:
    return "pass_" if key == "pass" else key


# The field lists of src/report/report_json.cpp (Fields<...>): True where the C++
# list says required(...), False for added_later(...).
_read_metric = _struct(MetricValue, [("name", _read_str, True), ("unit", _read_str, True),
                                     ("value", _read_double, True)])
_read_kernel = _struct(KernelRecord, [
    ("index", _read_u32, True), ("name", _read_str, True), ("mangled_name", _read_str, True),
    ("grid", _read_dim3, True), ("block", _read_dim3, True), ("shared_mem_bytes", _read_u32, True),
    ("stream_id", _read_u64, True), ("launch_index", _read_i64, False), ("metrics", _list_of(_read_metric), True)])
_read_timings = _struct(StageTimings, [
    (k, _read_double, k not in ("pass0_ms", "rendezvous_ms"))
    for k in ("sync_ms", "capture_ms", "restore_ms", "replay_submit_ms", "kernels_ms", "counters_ms", "decode_ms",
              "verify_ms", "window_ms", "begin_ms", "other_ms", "pass0_ms", "rendezvous_ms")])
_read_tier = _struct(TierUsage, [("tier", _read_str, True), ("bytes", _read_u64, True),
                                 ("arena_bytes", _read_u64, True), ("new_allocation", _read_bool, True)])
_read_divergence = _struct(Divergence, [("address", _read_u64, True), ("size_bytes", _read_u64, True),
                                        ("origin", _read_str, True)])
_read_sample = _struct(MetricSample, [("start_ms", _read_double, True), ("end_ms", _read_double, True),
                                      ("values", _list_of(_read_double), True)])
_read_pass = _struct(PassRecord, [("pass", _read_u32, True), ("restored_bytes", _read_u64, True),
                                  ("divergences", _list_of(_read_divergence), True)])
_read_range = _struct(RangeRecord, [
    ("index", _read_u32, True), ("name", _read_str, True), ("declined", _read_bool, True),
    ("decline_reason", _read_str, True), ("decline_detail", _read_str, True), ("passes", _read_u32, True),
    ("footprint_bytes", _read_u64, True), ("regions", _read_u32, True), ("tiers", _list_of(_read_tier), True),
    ("restore", _read_str, False), ("counter_ranges", _read_str, False), ("timings", _read_timings, True),
    ("kernels", _list_of(_read_kernel), True), ("range_metrics", _list_of(_read_metric), True),
    ("samples", _list_of(_read_sample), False), ("pass_records", _list_of(_read_pass), True),
    ("notes", _list_of(_read_str), True)])
# The budget's counter_setup_ms and gate_wait_ms are the report's setup_ms and
# gate_wait_ms written again; as the C++ reader, they are not read from the budget
# (from_dict fills them in), but for a report whose gate_wait_ms is only there.
_read_budget = _struct(TimeBudget, [(f.name, _read_double, f.name != "rendezvous_ms")
                                    for f in dataclasses.fields(TimeBudget)
                                    if f.name not in ("counter_setup_ms", "gate_wait_ms")])
_read_report = _struct(Report, [
    ("tool_version", _read_str, True), ("device_name", _read_str, True), ("chip_name", _read_str, True),
    ("driver_version", _read_str, True), ("compute_capability", _read_str, True), ("process_id", _read_u32, True),
    ("host_name", _read_str, False), ("environment", _read_str_map, False),
    ("command", _list_of(_read_str), True), ("metrics", _list_of(_read_str), True),
    ("missing_metrics", _list_of(_read_str), False),
    ("range_metrics", _read_str, True), ("pass_count", _read_u32, True),
    ("counter_backend", _read_str, False), ("setup_ms", _read_double, True),
    ("launcher_ms", _read_double, False), ("gate_wait_ms", _read_double, False), ("verify", _read_bool, True),
    ("cache_control", _read_str, False),
    ("ranges", _list_of(_read_range), True), ("errors", _list_of(_read_str), True),
    ("time_budget", _read_budget, False)])


class _NotJson(ValueError):
    pass


def _refuse_constant(name: str):
    # Python's json reads NaN and Infinity, which are not JSON (the writer spells them "nan", "inf").
    raise _NotJson(f"{name} is not a JSON value")


def _finite_float(text: str) -> float:
    # 1e400 would read as inf; the C++ reader refuses a number past a double's range.
    value = float(text)
    if math.isinf(value):
        raise _NotJson(f"number overflow parsing '{text}'")
    return value


class _NegativeZero(int):
    """-0 in the JSON text: an integer but, as in the C++ reader, not an unsigned one."""


def _parse_int(text: str) -> int:
    value = int(text)
    return _NegativeZero(0) if value == 0 and text.startswith("-") else value


def _check_surrogates(data: Any) -> None:
    # A lone surrogate escape ("\ud800") reads as a str Python keeps; the C++ reader
    # refuses it (it is no character). A pair reads as one character, never a surrogate.
    stack = [data]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            texts = (v,)
        elif isinstance(v, dict):
            texts = tuple(v.keys())
            stack.extend(v.values())
        elif isinstance(v, list):
            texts = ()
            stack.extend(v)
        else:
            continue
        for t in texts:
            for c in t:
                if "\ud800" <= c <= "\udfff":
                    raise _NotJson(f"invalid string: lone surrogate U+{ord(c):04X}")


def loads(text: str, source: str = "report") -> Report:
    """The Report in the JSON text `text`; `source` names it in errors.

    >>> loads('{"schema_version": 2}').ranges
    Traceback (most recent call last):
    ...
    ValueError: report has schema_version 2, but rangereplay_report reads schema_version 1: read it with the rangereplay build that wrote it
    """
    if text.startswith("\ufeff"):  # a UTF-8 byte-order mark, which json.loads refuses
        text = text[1:]
    try:
        data = json.loads(text, parse_constant=_refuse_constant, parse_float=_finite_float, parse_int=_parse_int)
        _check_surrogates(data)
    except (json.JSONDecodeError, _NotJson) as e:
        raise ValueError(f"{source} is not valid JSON: {e}") from None
    except RecursionError:
        raise ValueError(f"{source} is not valid JSON: nested too deeply") from None
    return from_dict(data, source)


def from_dict(data: Any, source: str = "report") -> Report:
    """The Report of an already parsed JSON value (what json.load returns); see loads()."""
    if not isinstance(data, dict) or "schema_version" not in data:
        raise ValueError(f"{source} is not a rangereplay report: it has no schema_version field")
    version = data["schema_version"]
    try:
        version = _read_u32(version)
    except _PathError as e:
        e.prepend("schema_version")
        raise ValueError(f"{source} is not a valid rangereplay report: {e.message()}") from None
    if version != SCHEMA_VERSION:
        raise ValueError(f"{source} has schema_version {version}, but rangereplay_report reads schema_version "
                         f"{SCHEMA_VERSION}: read it with the rangereplay build that wrote it")
    try:
        report = _read_report(data)
        budget = data.get("time_budget")
        if isinstance(budget, dict):
            report.time_budget.counter_setup_ms = report.setup_ms
            if "gate_wait_ms" not in data and "gate_wait_ms" in budget:
                try:
                    report.gate_wait_ms = _read_double(budget["gate_wait_ms"])
                except _PathError as e:
                    e.prepend("gate_wait_ms")
                    e.prepend("time_budget")
                    raise
            report.time_budget.gate_wait_ms = report.gate_wait_ms
    except _PathError as e:
        raise ValueError(f"{source} is not a valid rangereplay report: {e.message()}") from None
    report.schema_version = version
    return report


def load(path) -> Report:
    """The Report in the JSON file `path` (a str or os.PathLike).

    Raises ValueError (one line, naming the file) when the file is larger than
    MAX_REPORT_BYTES (a FIFO or device such as /dev/zero is read up to it), is not
    UTF-8 JSON, not a rangereplay report, has another schema_version or a bad field,
    and OSError when it cannot be read.

        report = load("x.json")
        print(report.device_name, [r.name for r in report.ranges])
    """
    source = f"report '{path}'"
    too_large = (f"cannot read '{path}': larger than the {MAX_REPORT_BYTES}-byte cap of a file the profiler "
                 "reads; is it the right file?")
    with open(path, "rb") as f:
        st = os.fstat(f.fileno())
        if stat.S_ISREG(st.st_mode) and st.st_size > MAX_REPORT_BYTES:
            raise ValueError(too_large)
        data = f.read(MAX_REPORT_BYTES + 1)
    if len(data) > MAX_REPORT_BYTES:
        raise ValueError(too_large)
    try:
        # utf-8-sig: a file an editor saved with a byte-order mark reads as without it.
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise ValueError(f"{source} is not valid JSON: invalid UTF-8 at byte {e.start}") from None
    return loads(text, source)


# --- rows and DataFrames ------------------------------------------------------------

def format_dim3(d: Tuple[int, int, int]) -> str:
    """A dim3 as Nsight Compute and rangereplay's CSV write it: (1024, 1, 1) -> "(1024, 1, 1)"."""
    return "(" + ", ".join(str(v) for v in d) + ")"


def _kernel_name(k: KernelRecord) -> str:
    return k.name or k.mangled_name


def to_records(report: Report) -> Dict[str, List[Dict[str, Any]]]:
    """The report as plain rows: {"ranges": [...], "kernels": [...], "metrics": [...]}, lists of dicts.

    - ranges: one row per range, named as in rangereplay's x.ranges.csv: range_index, range_name,
      status ("replayed" or "declined"), declined, decline_reason, decline_detail, passes,
      kernels (count), regions, footprint_bytes, snapshot_bytes, snapshot_<tier>_bytes per tier
      seen in the report, restore, counter_ranges, restored_bytes and divergences (over all pass
      records), then each stage timing (sync_ms ... pass0_ms, rendezvous_ms).
    - kernels: one row per kernel: range_index, range_name, kernel_index, kernel_name (the
      demangled name, else the mangled one), mangled_name, grid and block ("(1024, 1, 1)"),
      shared_mem_bytes, stream_id, launch_index, metrics (count).
    - metrics: one row per metric value, as in rangereplay's CSV: range_index, range_name,
      kernel_index, kernel_name, grid, block, metric, unit, value; whole-range values
      (--range-metrics whole) have None in the four kernel columns.

        rows = to_records(load("x.json"))
        dram = sum(r["value"] for r in rows["metrics"] if r["metric"] == "dram__bytes_read.sum")
    """
    tier_names: List[str] = []
    for r in report.ranges:
        for t in r.tiers:
            if t.tier not in tier_names:
                tier_names.append(t.tier)
    ranges, kernels, metrics = [], [], []
    for r in report.ranges:
        row: Dict[str, Any] = {
            "range_index": r.index, "range_name": r.name, "status": "declined" if r.declined else "replayed",
            "declined": r.declined, "decline_reason": r.decline_reason, "decline_detail": r.decline_detail,
            "passes": r.passes, "kernels": len(r.kernels), "regions": r.regions,
            "footprint_bytes": r.footprint_bytes, "snapshot_bytes": sum(t.bytes for t in r.tiers)}
        for name in tier_names:
            row[f"snapshot_{name}_bytes"] = sum(t.bytes for t in r.tiers if t.tier == name)
        row.update({
            "restore": r.restore, "counter_ranges": r.counter_ranges,
            "restored_bytes": sum(p.restored_bytes for p in r.pass_records),
            "divergences": sum(len(p.divergences) for p in r.pass_records)})
        row.update(dataclasses.asdict(r.timings))
        ranges.append(row)
        for k in r.kernels:
            base = {"range_index": r.index, "range_name": r.name, "kernel_index": k.index,
                    "kernel_name": _kernel_name(k)}
            grid, block = format_dim3(k.grid), format_dim3(k.block)
            kernels.append({**base, "mangled_name": k.mangled_name, "grid": grid, "block": block,
                            "shared_mem_bytes": k.shared_mem_bytes, "stream_id": k.stream_id,
                            "launch_index": k.launch_index, "metrics": len(k.metrics)})
            for m in k.metrics:
                metrics.append({**base, "grid": grid, "block": block, "metric": m.name, "unit": m.unit,
                                "value": m.value})
        for m in r.range_metrics:
            metrics.append({"range_index": r.index, "range_name": r.name, "kernel_index": None, "kernel_name": None,
                            "grid": None, "block": None, "metric": m.name, "unit": m.unit, "value": m.value})
    return {"ranges": ranges, "kernels": kernels, "metrics": metrics}


# The columns of each table, for DataFrames of a report without rows.
_RANGE_COLUMNS = ["range_index", "range_name", "status", "declined", "decline_reason", "decline_detail", "passes",
                  "kernels", "regions", "footprint_bytes", "snapshot_bytes", "restore", "counter_ranges",
                  "restored_bytes", "divergences"] + [f.name for f in dataclasses.fields(StageTimings)]
_KERNEL_COLUMNS = ["range_index", "range_name", "kernel_index", "kernel_name", "mangled_name", "grid", "block",
                   "shared_mem_bytes", "stream_id", "launch_index", "metrics"]
_METRIC_COLUMNS = ["range_index", "range_name", "kernel_index", "kernel_name", "grid", "block", "metric", "unit",
                   "value"]


def to_dataframes(report: Report) -> Dict[str, Any]:
    """The rows of to_records() as pandas DataFrames: {"ranges", "kernels", "metrics"}.

    The metrics frame's kernel_index has pandas' nullable Int64 type, so whole-range values
    show <NA> there (and None in kernel_name, grid and block). Raises ImportError when pandas
    is not installed.

        frames = to_dataframes(load("x.json"))
        m = frames["metrics"]
        m[m.metric == "dram__bytes_read.sum"].groupby("kernel_name")["value"].sum()
    """
    try:
        import pandas as pd
    except ImportError:
        raise ImportError("rangereplay_report.to_dataframes needs pandas, which is not installed "
                          "(apt-get install python3-pandas, or pip install pandas); "
                          "to_records() gives the same rows without it") from None
    rows = to_records(report)
    frames = {
        "ranges": pd.DataFrame(rows["ranges"], columns=None if rows["ranges"] else _RANGE_COLUMNS),
        "kernels": pd.DataFrame(rows["kernels"], columns=_KERNEL_COLUMNS),
        "metrics": pd.DataFrame(rows["metrics"], columns=_METRIC_COLUMNS),
    }
    frames["metrics"]["kernel_index"] = frames["metrics"]["kernel_index"].astype("Int64")
    frames["metrics"]["value"] = frames["metrics"]["value"].astype("float64")
    return frames


def escape_controls(text: str) -> str:
    r"""`text` with every character a terminal could act on written as visible text, as
    the C++ tool writes names (src/core/base/ascii.h): C0 controls and DEL as "\x1b",
    C1 controls (U+0080-U+009F) and lone surrogates as "\u009b"; printable text,
    non-ASCII included, unchanged.

    >>> print(escape_controls("step\x1b[2J\u009b \u68af\u5ea6"))
    step\x1b[2J\u009b 梯度
    """
    out = []
    for c in text:
        o = ord(c)
        if o < 0x20 or o == 0x7F:
            out.append(f"\\x{o:02x}")
        elif 0x80 <= o < 0xA0 or 0xD800 <= o <= 0xDFFF:
            out.append(f"\\u{o:04x}")
        else:
            out.append(c)
    return "".join(out)


def _main(argv: List[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print("usage: rangereplay_report.py REPORT.json...  (loads each report, one line per range)")
        return 0 if argv else 2
    for path in argv:
        try:
            report = load(path)
        except (ValueError, OSError) as e:
            print(escape_controls(f"error: {e}"), file=sys.stderr)
            return 1
        print(escape_controls(f"{path}: {report.device_name or 'unknown device'}, {len(report.ranges)} ranges, "
                              f"{len(report.metrics)} metrics"))
        for r in report.ranges:
            what = f"declined ({r.decline_reason})" if r.declined else \
                f"{r.passes} passes, {len(r.kernels)} kernels"
            print(escape_controls(f"  range {r.index} '{r.name}': {what}"))
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
