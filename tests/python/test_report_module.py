"""CPU test of python/rangereplay_report.py (loading JSON reports into records and
DataFrames) and of the report's JSON Schema, share/rangereplay/report.schema.json.

The fixture data/sample_report.json is the golden text of the C++ test
ReportJson.dump_text_is_pinned_byte_for_byte (tests/unit/report/report_json_test.cpp),
with "nan", "inf" and "-inf" values; a test checks that the two stay the same.
The schema is checked against the C++ writer's field lists
(src/report/report_json.cpp) and member types (src/report/report_model.h), and
the sample validates against it with schema_check.py's validator (and with the
jsonschema package too, where it is installed). The pandas tests skip without
pandas. Standard library only, no build output:

    python3 tests/python/test_report_module.py
"""
import dataclasses
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import unittest
from unittest import mock

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, HERE)
import rangereplay_report as rr  # noqa: E402
import schema_check  # noqa: E402

SAMPLE = os.path.join(HERE, "data", "sample_report.json")
MODULE = os.path.join(ROOT, "python", "rangereplay_report.py")
REPORT_JSON_CPP = os.path.join(ROOT, "src", "report", "report_json.cpp")
REPORT_MODEL_H = os.path.join(ROOT, "src", "report", "report_model.h")
REPORT_JSON_TEST = os.path.join(ROOT, "tests", "unit", "report", "report_json_test.cpp")

try:
    import jsonschema
except ImportError:
    jsonschema = None
try:
    import pandas
except ImportError:
    pandas = None


def sample_json():
    """The sample as the model holds it: a range's roofline is derived from its
    metrics when written, and neither reader reads it back."""
    with open(SAMPLE, encoding="utf-8") as f:
        j = json.load(f)
    for r in j.get("ranges", []):
        r.pop("roofline", None)
    return j


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def model_to_json(value):
    """A loaded model value back as the writer's JSON value, to compare with the file read (a
    range's samples are written only when it has some)."""
    if dataclasses.is_dataclass(value):
        return {("pass" if f.name == "pass_" else f.name): model_to_json(getattr(value, f.name))
                for f in dataclasses.fields(value) if not (f.name == "samples" and not getattr(value, f.name))}
    if isinstance(value, (list, tuple)):
        return [model_to_json(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    return value


def cpp_field_lists():
    """{struct: [(key, member, required)]} from the Fields<...> lists of report_json.cpp."""
    lists = {}
    for struct, body in re.findall(r"struct Fields<(\w+)> \{(.*?)\n\};", read(REPORT_JSON_CPP), re.S):
        lists[struct] = [(key, member, kind == "required") for kind, key, member in
                         re.findall(r'\b(required|added_later|added_later_list)\("(\w+)",\s*&T::(\w+)\)', body)]
    return lists


def cpp_member_types():
    """{struct: {member: C++ type}} from the structs of report_model.h."""
    types = {}
    for struct, body in re.findall(r"^struct (\w+) \{(.*?)^\};", read(REPORT_MODEL_H), re.S | re.M):
        members = {}
        for line in body.splitlines():
            line = line.split("//")[0].strip()
            m = re.match(r"^((?:std::(?:vector|optional)<[\w:<>]+>)|[\w:]+)\s+([^()]+);$", line)
            if not m or line.startswith("friend"):
                continue
            for declarator in m.group(2).split(","):
                members[declarator.split("=")[0].strip()] = m.group(1)
        types[struct] = members
    return types


def schema_shape(schema, node):
    """What a property schema says of its value: ("ref", name) or ("type", name, items' shape)."""
    if "$ref" in node:
        return ("ref", node["$ref"].rsplit("/", 1)[1])
    items = node.get("items")
    return ("type", node["type"], schema_shape(schema, items) if items else None)


def expected_shape(cpp_type):
    scalar = {"std::string": ("type", "string", None), "bool": ("type", "boolean", None),
              "std::uint32_t": ("ref", "uint32"), "std::uint64_t": ("ref", "uint64"),
              "std::int64_t": ("ref", "int64"), "double": ("ref", "double"), "Dim3": ("ref", "dim3")}
    if cpp_type == "Environment":  # std::map<std::string, std::string>
        return ("type", "object", None)
    m = re.match(r"std::optional<(.+)>$", cpp_type)
    if m:  # a field added later: absent in older reports, the same shape when present
        return expected_shape(m.group(1))
    m = re.match(r"std::vector<(.+)>$", cpp_type)
    if m:
        return ("type", "array", expected_shape(m.group(1)))
    return scalar.get(cpp_type, ("ref", cpp_type))


class TempDir(unittest.TestCase):
    def setUp(self):
        self._dir = tempfile.TemporaryDirectory()
        self.dir = self._dir.name

    def tearDown(self):
        self._dir.cleanup()

    def write(self, name, content):
        path = os.path.join(self.dir, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(content if isinstance(content, str) else json.dumps(content, indent=2))
        return path

    def load_error(self, content):
        path = self.write("report.json", content)
        with self.assertRaises(ValueError) as caught:
            rr.load(path)
        message = str(caught.exception)
        self.assertNotIn("\n", message)
        self.assertTrue(message.startswith(f"report '{path}' "), message)
        return message[len(f"report '{path}' "):]


class SchemaTest(unittest.TestCase):
    def setUp(self):
        self.schema = schema_check.load_schema()

    def test_fixture_is_the_golden_text_of_the_cpp_writer_test(self):
        source = read(REPORT_JSON_TEST)
        start = source.index('EXPECT_EQ(dump(r), R"json(') + len('EXPECT_EQ(dump(r), R"json(')
        self.assertEqual(read(SAMPLE), source[start:source.index(')json");', start)])

    def test_schema_is_draft_2020_12_and_well_formed(self):
        self.assertEqual(self.schema["$schema"], "https://json-schema.org/draft/2020-12/schema")
        self.assertEqual(self.schema["properties"]["schema_version"]["enum"], [rr.SCHEMA_VERSION])
        if jsonschema is not None:
            jsonschema.Draft202012Validator.check_schema(self.schema)

    def test_objects_allow_keys_the_schema_does_not_list(self):
        objects = [self.schema] + [d for d in self.schema["$defs"].values() if d.get("type") == "object"]
        self.assertEqual(len(objects), 10)
        for node in objects:
            self.assertNotIn("additionalProperties", node)
            self.assertNotIn("unevaluatedProperties", node)

    def test_properties_and_required_are_the_cpp_field_lists(self):
        lists = cpp_field_lists()
        self.assertEqual(set(lists), {"MetricValue", "KernelRecord", "StageTimings", "TierUsage", "Divergence",
                                      "MetricSample", "PassRecord", "RangeRecord", "TimeBudget", "Report"})
        for struct, fields in lists.items():
            node = self.schema if struct == "Report" else self.schema["$defs"][struct]
            keys = [key for key, _, _ in fields]
            required = [key for key, _, req in fields if req]
            if struct == "Report":  # written by to_json(Report) beside the field list
                keys.insert(0, "schema_version")
                required.insert(0, "schema_version")
            if struct == "RangeRecord":  # a replayed range's roofline, derived from its metrics when written
                keys.append("roofline")
            if struct == "KernelRecord":  # a kernel's guidance findings, derived from its metrics when written
                keys.append("guidance")
            if struct == "TimeBudget":  # written by to_json(Report) from its setup_ms and gate_wait_ms
                keys += ["counter_setup_ms", "gate_wait_ms"]
                required += ["counter_setup_ms"]  # gate_wait_ms only where the report has one
            self.assertEqual(sorted(node["properties"]), sorted(keys), struct)
            self.assertEqual(sorted(node["required"]), sorted(required), struct)

    def test_property_types_are_the_cpp_member_types(self):
        members = cpp_member_types()
        for struct, fields in cpp_field_lists().items():
            node = self.schema if struct == "Report" else self.schema["$defs"][struct]
            for key, member, _ in fields:
                self.assertEqual(schema_shape(self.schema, node["properties"][key]),
                                 expected_shape(members[struct][member]), f"{struct}.{key}")
        self.assertEqual(members["Dim3"], {"x": "std::uint32_t", "y": "std::uint32_t", "z": "std::uint32_t"})
        dim3 = self.schema["$defs"]["dim3"]
        self.assertEqual((dim3["type"], dim3["items"], dim3["minItems"], dim3["maxItems"]),
                         ("array", {"$ref": "#/$defs/uint32"}, 3, 3))

    def test_sample_report_validates(self):
        whole = json.loads(read(SAMPLE))  # its ranges' roofline objects included
        self.assertIn("roofline", whole["ranges"][0])
        self.assertEqual(schema_check.check(whole, self.schema), [])
        self.assertEqual(schema_check.main([SAMPLE]), 0)
        if jsonschema is not None:
            jsonschema.Draft202012Validator(self.schema).validate(whole)

    def test_real_h200_reports_validate_and_load(self):
        # Reports of --set full profiles written on an H200 by tests/e2e/reports.py
        # (the HTML test's fixtures): examples/stream and the torch-train workload.
        import lzma
        for name, kernels in (("stream_full_h200", 12), ("torch_train_full_h200", 1120)):
            with lzma.open(os.path.join(ROOT, "tests", "scripts", "data", name + ".json.xz"), "rt") as f:
                text = f.read()
            self.assertEqual(schema_check.check(json.loads(text), self.schema), [], name)
            with tempfile.TemporaryDirectory() as d:
                path = os.path.join(d, name + ".json")
                with open(path, "w") as f:
                    f.write(text)
                report = rr.load(path)
            self.assertEqual(sum(len(r.kernels) for r in report.ranges), kernels, name)

    def test_the_e2e_tests_read_reports_through_the_schema(self):
        sys.path.insert(0, os.path.join(ROOT, "tests", "e2e"))
        try:
            import e2e_common
        finally:
            sys.path.pop(0)
        self.assertEqual(e2e_common.load_report(SAMPLE)["schema_version"], sample_json()["schema_version"])
        j = sample_json()
        del j["ranges"][0]["declined"]
        with tempfile.TemporaryDirectory() as d:
            bad = os.path.join(d, "bad.json")
            with open(bad, "w") as f:
                json.dump(j, f)
            with self.assertRaisesRegex(e2e_common.ReportSchemaError, r"ranges\[0\]\.declined: missing required"):
                e2e_common.load_report(bad)

    def test_a_budget_without_a_gate_wait_validates_and_loads(self):
        # What `rangereplay report` writes again for a report that had a budget but no gate wait.
        j = sample_json()
        del j["gate_wait_ms"], j["time_budget"]["gate_wait_ms"]
        self.assertEqual(schema_check.check(j, self.schema), [])
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "r.json")
            with open(path, "w") as f:
                json.dump(j, f)
            self.assertEqual(rr.load(path).time_budget.gate_wait_ms, 0.0)

    def test_report_without_added_later_fields_validates(self):
        j = sample_json()
        for key in ("time_budget", "launcher_ms", "gate_wait_ms"):
            del j[key]
        for r in j["ranges"]:
            del r["restore"], r["counter_ranges"], r["timings"]["pass0_ms"]
            for k in r["kernels"]:
                del k["launch_index"]
        self.assertEqual(schema_check.check(j, self.schema), [])

    def test_bad_reports_fail_with_the_path(self):
        cases = [
            (lambda j: j.pop("ranges"), "ranges: missing required property"),
            (lambda j: j["ranges"][0]["kernels"][1]["metrics"][0].pop("unit"),
             "ranges[0].kernels[1].metrics[0].unit: missing required property"),
            (lambda j: j.__setitem__("schema_version", 2), "schema_version: 2 is not one of [1]"),
            (lambda j: j.__setitem__("verify", 1), "verify: expected boolean"),
            (lambda j: j["ranges"][0].__setitem__("passes", -1), "ranges[0].passes: -1 is below the minimum 0"),
            (lambda j: j["ranges"][0].__setitem__("passes", 3.5), "ranges[0].passes: expected integer"),
            (lambda j: j["ranges"][0]["kernels"][0].__setitem__("grid", [1, 1]),
             "ranges[0].kernels[0].grid: 2 items, fewer than 3"),
            (lambda j: j["ranges"][0]["kernels"][0]["metrics"][0].__setitem__("value", "NaN"),
             "ranges[0].kernels[0].metrics[0].value: \"NaN\" matches none of the allowed forms"),
            (lambda j: j["ranges"][0].__setitem__("restore", "partial"), "ranges[0].restore: \"partial\" is not one"),
            (lambda j: j["ranges"][1]["tiers"].append({"tier": "device"}), "ranges[1].tiers[0].bytes: missing"),
            (lambda j: j.__setitem__("process_id", 2**32), "process_id: 4294967296 is above the maximum"),
        ]
        for mutate, expected in cases:
            j = sample_json()
            mutate(j)
            errors = schema_check.check(j, self.schema)
            self.assertTrue(any(e.startswith(expected) for e in errors), (expected, errors))
            if jsonschema is not None:
                self.assertFalse(jsonschema.Draft202012Validator(self.schema).is_valid(j), expected)

    def test_unknown_keys_are_allowed(self):
        j = sample_json()
        j["written_by_a_newer_build"] = {"x": 1}
        j["ranges"][0]["kernels"][0]["extra"] = [1, 2]
        self.assertEqual(schema_check.check(j, self.schema), [])

    def test_validator_refuses_keywords_it_does_not_check(self):
        with self.assertRaises(schema_check.SchemaError):
            schema_check.check({}, {"type": "object", "patternProperties": {}})
        with self.assertRaises(schema_check.SchemaError):
            schema_check.check(1, {"$ref": "other.json#/x"})
        self.assertEqual(schema_check.check(True, {"enum": [1]}), ["(root): true is not one of [1]"])


class LoadTest(TempDir):
    def test_sample_loads_into_the_model(self):
        report = rr.load(SAMPLE)
        self.assertEqual((report.schema_version, report.tool_version, report.device_name, report.chip_name),
                         (1, "0.1.0", "NVIDIA H200", "GH100"))
        self.assertEqual(report.command, ["./stream", "--n", "1000"])
        self.assertEqual((report.pass_count, report.process_id, report.verify), (3, 4242, True))
        self.assertEqual(report.gate_wait_ms, math.inf)
        self.assertEqual(len(report.ranges), 2)
        step, declined = report.ranges
        self.assertEqual((step.restore, step.counter_ranges, step.passes), ("differential", "user", 3))
        self.assertEqual(step.timings.other_ms, -math.inf)
        scale, add = step.kernels
        self.assertEqual((scale.name, scale.grid, scale.block, scale.launch_index), ("scale(float*, int)",
                                                                                     (1024, 1, 1), (256, 1, 1), 12))
        self.assertEqual(scale.metric("dram__bytes_read.sum"), 6291488.0)
        self.assertIsNone(scale.metric("no_such_metric"))
        self.assertEqual((add.grid, add.launch_index, add.shared_mem_bytes), ((64, 2, 1), -1, 49152))
        self.assertTrue(math.isnan(add.metric("smsp__inst_executed.sum")))
        self.assertEqual(step.pass_records[1].pass_, 2)
        self.assertEqual(step.pass_records[1].divergences[0].address, 139637976731648)
        self.assertEqual([t.tier for t in step.tiers], ["device", "pinned"])
        self.assertEqual((declined.declined, declined.decline_reason), (True, "free_in_range"))
        # The budget's gate wait and counter set-up are the report's own fields, written again.
        self.assertEqual(report.time_budget, rr.TimeBudget(gate_wait_ms=math.inf, counter_setup_ms=171.25))
        self.assertEqual((report.time_budget.gate_wait_ms, report.time_budget.counter_setup_ms),
                         (report.gate_wait_ms, report.setup_ms))

    def test_every_key_of_the_sample_is_read(self):
        self.assertEqual(model_to_json(rr.load(SAMPLE)), sample_json())

    def test_added_later_fields_may_be_missing(self):
        j = sample_json()
        for key in ("time_budget", "launcher_ms", "gate_wait_ms"):
            del j[key]
        del j["ranges"][0]["restore"], j["ranges"][0]["counter_ranges"], j["ranges"][0]["timings"]["pass0_ms"]
        del j["ranges"][0]["kernels"][0]["launch_index"]
        report = rr.load(self.write("old.json", j))
        self.assertEqual(report.time_budget, rr.TimeBudget())
        self.assertEqual((report.launcher_ms, report.gate_wait_ms), (0.0, 0.0))
        self.assertEqual((report.ranges[0].restore, report.ranges[0].counter_ranges), ("", ""))
        self.assertEqual(report.ranges[0].timings.pass0_ms, 0.0)
        self.assertEqual(report.ranges[0].kernels[0].launch_index, -1)

    def test_a_triage_ranges_samples_load_and_validate(self):
        j = sample_json()
        j["counter_backend"] = "pm_sampling"
        j["ranges"][0]["samples"] = [{"start_ms": 0.0, "end_ms": 0.5, "values": [1024.0, 98304.0]},
                                     {"start_ms": 0.5, "end_ms": 1.0, "values": [2048.0, "nan"]}]
        self.assertEqual(schema_check.check(j, schema_check.load_schema()), [])
        report = rr.load(self.write("triage.json", j))
        self.assertEqual(report.counter_backend, "pm_sampling")
        first, second = report.ranges[0].samples
        self.assertEqual(first, rr.MetricSample(start_ms=0.0, end_ms=0.5, values=[1024.0, 98304.0]))
        self.assertEqual((second.end_ms, second.values[0]), (1.0, 2048.0))
        self.assertTrue(math.isnan(second.values[1]))
        self.assertEqual(report.ranges[1].samples, [])  # the key is absent: no samples
        self.assertEqual(model_to_json(report), json.loads(json.dumps(j)))
        j["ranges"][0]["samples"][1]["values"] = [1.0, True]
        with self.assertRaisesRegex(ValueError, r"ranges\[0\]\.samples\[1\]\.values\[1\]: expected a number"):
            rr.load(self.write("bad.json", j))

    def test_a_file_that_starts_with_a_utf8_byte_order_mark_loads(self):
        text = read(SAMPLE)
        path = os.path.join(self.dir, "bom.json")
        with open(path, "wb") as f:
            f.write(b"\xef\xbb\xbf" + text.encode("utf-8"))
        self.assertEqual(model_to_json(rr.load(path)), sample_json())
        self.assertEqual(rr.loads("\ufeff" + text).device_name, sample_json()["device_name"])

    def test_a_file_without_schema_version_is_not_a_report(self):
        self.assertEqual(self.load_error({"ranges": []}), "is not a rangereplay report: it has no schema_version field")
        self.assertEqual(self.load_error("[1, 2]"), "is not a rangereplay report: it has no schema_version field")

    def test_another_schema_version_is_refused(self):
        j = sample_json()
        j["schema_version"] = 2
        self.assertEqual(self.load_error(j), "has schema_version 2, but rangereplay_report reads schema_version 1: "
                                             "read it with the rangereplay build that wrote it")
        self.assertEqual(self.load_error({"schema_version": "1"}),
                         "is not a valid rangereplay report: schema_version: expected an unsigned integer, got string")

    def test_not_json_is_one_line(self):
        self.assertTrue(self.load_error("{\n  \"schema_version\": 1,\n").startswith("is not valid JSON: "))
        self.assertEqual(self.load_error('{"schema_version": NaN}'), "is not valid JSON: NaN is not a JSON value")

    def test_the_first_bad_field_in_reading_order_is_named(self):
        # The same cases and messages as the C++ reader's test of that name.
        j = sample_json()
        del j["ranges"][0]["name"]
        j["ranges"][0]["passes"] = "three"
        del j["ranges"][0]["index"]
        self.assertEqual(self.load_error(j), "is not a valid rangereplay report: ranges[0].index: missing field")
        j["ranges"][0]["index"] = 0
        self.assertEqual(self.load_error(j), "is not a valid rangereplay report: ranges[0].name: missing field")
        j["ranges"][0]["name"] = "step"
        self.assertEqual(self.load_error(j), "is not a valid rangereplay report: ranges[0].passes: expected an "
                                             "unsigned integer, got string")
        j["tool_version"] = 1
        self.assertEqual(self.load_error(j), "is not a valid rangereplay report: tool_version: expected a string, "
                                             "got number")

    def test_bad_values_name_their_path(self):
        cases = [
            (lambda j: j["ranges"][0]["kernels"][1]["metrics"][0].pop("unit"),
             "ranges[0].kernels[1].metrics[0].unit: missing field"),
            (lambda j: j["ranges"][0]["kernels"][0].__setitem__("grid", [1, 2]),
             "ranges[0].kernels[0].grid: expected [x, y, z], got array"),
            (lambda j: j["ranges"][0]["kernels"][0].__setitem__("block", [1, -2, 1]),
             "ranges[0].kernels[0].block[1]: expected an unsigned integer, got number"),
            (lambda j: j["ranges"][0]["timings"].__setitem__("sync_ms", "NaN"),
             'ranges[0].timings.sync_ms: expected a number or "nan", "inf", "-inf", got string'),
            (lambda j: j.__setitem__("process_id", 2**32), "process_id: 4294967296 does not fit in 32 bits"),
            (lambda j: j["ranges"][0].__setitem__("declined", 0), "ranges[0].declined: expected true or false, "
                                                                  "got number"),
            (lambda j: j["ranges"][0]["notes"].append(None), "ranges[0].notes[1]: expected a string, got null"),
            (lambda j: j.__setitem__("time_budget", []), "time_budget: expected an object, got array"),
        ]
        for mutate, expected in cases:
            j = sample_json()
            mutate(j)
            self.assertEqual(self.load_error(j), "is not a valid rangereplay report: " + expected)

    def test_unknown_keys_are_ignored(self):
        j = sample_json()
        j["written_by_a_newer_build"] = 1
        j["ranges"][0]["kernels"][0]["extra"] = {"a": 1}
        self.assertEqual(rr.load(self.write("newer.json", j)), rr.load(SAMPLE))

    def test_docstring_examples(self):
        import doctest
        self.assertEqual(doctest.testmod(rr).failed, 0)

    def test_command_line_prints_ranges_and_fails_on_a_bad_file(self):
        ok = subprocess.run([sys.executable, MODULE, SAMPLE], capture_output=True, text=True)
        self.assertEqual(ok.returncode, 0, ok.stderr)
        self.assertIn("range 1 'step': declined (free_in_range)", ok.stdout)
        bad = subprocess.run([sys.executable, MODULE, self.write("x.json", {})], capture_output=True, text=True)
        self.assertEqual(bad.returncode, 1)
        self.assertEqual(bad.stderr.count("\n"), 1)
        self.assertIn("has no schema_version field", bad.stderr)

    def test_command_line_escapes_control_characters_in_names(self):
        j = sample_json()
        j["ranges"][0]["name"] = "st\x1b[2Jep\x07\r\x7f\x9b 梯度"
        j["device_name"] = "H200\x1b]0;title\x07"
        out = subprocess.run([sys.executable, MODULE, self.write("ctl.json", j)], capture_output=True, text=True)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("range 0 'st\\x1b[2Jep\\x07\\x0d\\x7f\\u009b 梯度': 3 passes", out.stdout)
        self.assertIn("H200\\x1b]0;title\\x07, 2 ranges", out.stdout)
        for c in "\x1b\x07\r\x7f\x9b":
            self.assertNotIn(c, out.stdout)

    def test_escape_controls_matches_the_cpp_rule(self):
        # The cases of tests/unit/core/base/ascii_test.cpp's EscapeControls tests, as characters.
        self.assertEqual(rr.escape_controls("a\x1b[2Jb"), "a\\x1b[2Jb")
        self.assertEqual(rr.escape_controls("bell\x07 over\rwrite del\x7f nul\x00 tab\t two\nlines"),
                         "bell\\x07 over\\x0dwrite del\\x7f nul\\x00 tab\\x09 two\\x0alines")
        self.assertEqual(rr.escape_controls("csi\x9b31m \x80\x9f"), "csi\\u009b31m \\u0080\\u009f")
        self.assertEqual(rr.escape_controls("lone \ud800"), "lone \\ud800")
        for text in ("", "step/forward", "größe \xa0nbsp", "梯度", "emoji \U0001f600", "back\\slash"):
            self.assertEqual(rr.escape_controls(text), text)


class CapTest(TempDir):
    def test_a_file_past_the_cap_is_one_line(self):
        path = self.write("big.json", "x" * 11)
        with mock.patch.object(rr, "MAX_REPORT_BYTES", 10), self.assertRaises(ValueError) as caught:
            rr.load(path)
        self.assertEqual(str(caught.exception), f"cannot read '{path}': larger than the 10-byte cap of a file the "
                                                "profiler reads; is it the right file?")
        self.assertEqual(rr.MAX_REPORT_BYTES, 1 << 30)

    def test_dev_zero_is_read_up_to_the_cap_only(self):
        with mock.patch.object(rr, "MAX_REPORT_BYTES", 1 << 20), self.assertRaises(ValueError) as caught:
            rr.load("/dev/zero")
        self.assertEqual(str(caught.exception), "cannot read '/dev/zero': larger than the 1048576-byte cap of a file "
                                                "the profiler reads; is it the right file?")

    def test_a_fifo_is_read_up_to_the_cap_only(self):
        fifo = os.path.join(self.dir, "fifo")
        os.mkfifo(fifo)
        # Opened read-write here, so neither end waits; the bytes fit in the pipe.
        fd = os.open(fifo, os.O_RDWR)
        try:
            os.write(fd, b"y" * 2000)
            with mock.patch.object(rr, "MAX_REPORT_BYTES", 1000), self.assertRaises(ValueError) as caught:
                rr.load(fifo)
        finally:
            os.close(fd)
        self.assertIn("1000-byte cap", str(caught.exception))

    def test_the_command_line_says_dev_zero_in_one_line(self):
        # The real 1 GiB cap: read, refused, no MemoryError traceback.
        out = subprocess.run([sys.executable, MODULE, "/dev/zero"], capture_output=True, text=True, timeout=120)
        self.assertEqual(out.returncode, 1)
        self.assertEqual(out.stderr, f"error: cannot read '/dev/zero': larger than the {1 << 30}-byte cap of a file "
                                     "the profiler reads; is it the right file?\n")


CORPUS = os.path.join(ROOT, "tests", "data", "report_corpus")


class CorpusTest(unittest.TestCase):
    """tests/data/report_corpus: the verdicts the C++ test ReportCorpus.* checks too."""

    def files(self, verdict):
        return sorted(os.path.join(CORPUS, n) for n in os.listdir(CORPUS)
                      if n.startswith(verdict + ".") and n.endswith(".json"))

    def test_every_accepted_document_loads(self):
        files = self.files("accept")
        self.assertGreaterEqual(len(files), 10)
        for path in files:
            with self.subTest(os.path.basename(path)):
                rr.load(path)

    def test_every_rejected_document_is_one_error_line_naming_the_file(self):
        files = self.files("reject")
        self.assertGreaterEqual(len(files), 20)
        for path in files:
            with self.subTest(os.path.basename(path)):
                with self.assertRaises(ValueError) as caught:
                    rr.load(path)
                self.assertNotIn("\n", str(caught.exception))
                self.assertIn(path, str(caught.exception))

    def test_an_added_later_budget_field_takes_the_reports_value(self):
        without = rr.load(os.path.join(CORPUS, "accept.time_budget_without_counter_setup_or_gate_wait.json"))
        self.assertEqual((without.time_budget.counter_setup_ms, without.time_budget.gate_wait_ms), (1.5, 0.0))
        only = rr.load(os.path.join(CORPUS, "accept.time_budget_gate_wait_only_in_the_budget.json"))
        self.assertEqual((only.gate_wait_ms, only.time_budget.gate_wait_ms), (0.75, 0.75))
        underflow = rr.load(os.path.join(CORPUS, "accept.underflow_1e-400_reads_as_zero.json"))
        self.assertEqual(underflow.ranges[0].kernels[0].metrics[0].value, 0.0)


def whole_range_report():
    """The sample as a --range-metrics whole run: range 0's values belong to the range."""
    j = sample_json()
    j["range_metrics"] = "whole"
    for k in j["ranges"][0]["kernels"]:
        k["metrics"] = []
    j["ranges"][0]["range_metrics"] = [{"name": "dram__bytes_read.sum", "unit": "byte", "value": 6292722.5678}]
    return rr.from_dict(j)


class RecordsTest(unittest.TestCase):
    def test_rows_per_range_kernel_and_metric_value(self):
        rows = rr.to_records(rr.load(SAMPLE))
        self.assertEqual([len(rows[t]) for t in ("ranges", "kernels", "metrics")], [2, 2, 4])
        step = rows["ranges"][0]
        self.assertEqual((step["range_index"], step["status"], step["kernels"], step["snapshot_bytes"],
                          step["snapshot_device_bytes"], step["snapshot_pinned_bytes"]),
                         (0, "replayed", 2, 268435456, 201326592, 67108864))
        self.assertEqual((step["restored_bytes"], step["divergences"], step["other_ms"]), (6291456, 1, -math.inf))
        declined = rows["ranges"][1]
        self.assertEqual((declined["status"], declined["snapshot_device_bytes"]), ("declined", 0))
        self.assertEqual(rows["kernels"][1]["grid"], "(64, 2, 1)")
        self.assertEqual(rows["metrics"][0], {
            "range_index": 0, "range_name": "step", "kernel_index": 0, "kernel_name": "scale(float*, int)",
            "grid": "(1024, 1, 1)", "block": "(256, 1, 1)", "metric": "dram__bytes_read.sum", "unit": "byte",
            "value": 6291488.0})
        self.assertTrue(math.isnan(rows["metrics"][3]["value"]))

    def test_whole_range_values_have_empty_kernel_columns(self):
        rows = rr.to_records(whole_range_report())
        self.assertEqual(len(rows["kernels"]), 2)
        self.assertEqual(rows["metrics"], [{
            "range_index": 0, "range_name": "step", "kernel_index": None, "kernel_name": None, "grid": None,
            "block": None, "metric": "dram__bytes_read.sum", "unit": "byte", "value": 6292722.5678}])
        self.assertEqual(whole_range_report().ranges[0].metric("dram__bytes_read.sum"), 6292722.5678)

    def test_kernel_name_falls_back_to_the_mangled_name(self):
        report = rr.load(SAMPLE)
        report.ranges[0].kernels[0].name = ""
        self.assertEqual(rr.to_records(report)["kernels"][0]["kernel_name"], "_Z5scalePfi")

    def test_to_dataframes_without_pandas_is_a_clear_import_error(self):
        saved = sys.modules.get("pandas")
        sys.modules["pandas"] = None  # makes `import pandas` raise ImportError
        try:
            with self.assertRaises(ImportError) as caught:
                rr.to_dataframes(rr.load(SAMPLE))
        finally:
            if saved is None:
                del sys.modules["pandas"]
            else:
                sys.modules["pandas"] = saved
        self.assertIn("needs pandas, which is not installed", str(caught.exception))
        self.assertNotIn("\n", str(caught.exception))


@unittest.skipIf(pandas is None, "pandas is not installed")
class DataFramesTest(unittest.TestCase):
    def test_one_frame_per_table(self):
        frames = rr.to_dataframes(rr.load(SAMPLE))
        self.assertEqual(sorted(frames), ["kernels", "metrics", "ranges"])
        self.assertEqual([len(frames[t]) for t in ("ranges", "kernels", "metrics")], [2, 2, 4])
        self.assertEqual(list(frames["metrics"].columns), ["range_index", "range_name", "kernel_index",
                                                           "kernel_name", "grid", "block", "metric", "unit", "value"])
        m = frames["metrics"]
        dram = m[m.metric == "dram__bytes_read.sum"].set_index("kernel_index")["value"]
        self.assertEqual(dram.to_dict(), {0: 6291488.0, 1: 1234.5678})
        self.assertTrue(m["value"].isna().iloc[3])
        wide = m.pivot_table(index=["range_index", "kernel_index"], columns="metric", values="value")
        self.assertEqual(wide.shape, (2, 2))
        self.assertEqual(frames["ranges"]["snapshot_pinned_bytes"].tolist(), [67108864, 0])
        self.assertEqual(frames["kernels"]["launch_index"].tolist(), [12, -1])

    def test_whole_range_values_have_empty_kernel_columns(self):
        m = rr.to_dataframes(whole_range_report())["metrics"]
        self.assertEqual(len(m), 1)
        self.assertEqual(str(m["kernel_index"].dtype), "Int64")
        self.assertTrue(pandas.isna(m["kernel_index"].iloc[0]))
        self.assertTrue(pandas.isna(m["kernel_name"].iloc[0]))

    def test_a_report_without_ranges_has_empty_frames_with_columns(self):
        report = rr.load(SAMPLE)
        report.ranges = []
        frames = rr.to_dataframes(report)
        self.assertEqual([len(f) for f in frames.values()], [0, 0, 0])
        self.assertIn("window_ms", frames["ranges"].columns)
        self.assertIn("metric", frames["metrics"].columns)


if __name__ == "__main__":
    unittest.main(verbosity=2)
