"""A small JSON Schema validator for the keywords that rangereplay's report schema
(share/rangereplay/report.schema.json) uses, so tests can validate reports where
the `jsonschema` package is not installed; and a command that validates report
files against that schema and loads them with python/rangereplay_report.py:

    python3 tests/python/schema_check.py REPORT.json...

It prints one line per problem, `<file>: <JSON path>: <what>`, and exits 1 when
there is any (0 otherwise).

Keywords checked: type, required, properties, items, enum, anyOf, $ref (to
"#/..." in the same schema), minimum, maximum, minItems, maxItems; $schema,
title, description and $defs are annotations. Any other keyword is an error of
the schema, so a keyword added to it cannot be skipped silently. One
difference from the standard: "integer" means a JSON number written without a
fraction (Python's json reads 1.0 as a float), which is also what the C++
reader accepts for its integer fields.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SCHEMA_PATH = os.path.join(ROOT, "share", "rangereplay", "report.schema.json")

KEYWORDS = {"type", "required", "properties", "items", "enum", "anyOf", "$ref", "minimum", "maximum", "minItems",
            "maxItems"}
ANNOTATIONS = {"$schema", "title", "description", "$defs"}


class SchemaError(Exception):
    """The schema itself uses something this validator does not check."""


def _is_type(value, name):
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    return {
        "object": lambda: isinstance(value, dict),
        "array": lambda: isinstance(value, list),
        "string": lambda: isinstance(value, str),
        "boolean": lambda: isinstance(value, bool),
        "null": lambda: value is None,
        "number": lambda: number,
        "integer": lambda: number and isinstance(value, int),
    }.get(name, lambda: _unknown_type(name))()


def _unknown_type(name):
    raise SchemaError(f"unknown type {name!r}")


def _json_equal(a, b):
    # JSON equality: true is not 1, and 1 equals 1.0.
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    return a == b


def _resolve(root, ref):
    if not ref.startswith("#"):
        raise SchemaError(f"$ref {ref!r}: only references into the same schema (#/...) are supported")
    node = root
    for part in [p for p in ref[1:].split("/") if p]:
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, dict) or part not in node:
            raise SchemaError(f"$ref {ref!r} names nothing")
        node = node[part]
    return node


def _join(path, part):
    if isinstance(part, int):
        return f"{path}[{part}]"
    return f"{path}.{part}" if path else part


def check(instance, schema, root=None, path=""):
    """The problems of `instance` against `schema`, as "<path>: <what>" strings; [] when valid.
    Raises SchemaError when the schema uses a keyword this validator does not check."""
    root = schema if root is None else root
    if not isinstance(schema, dict):
        raise SchemaError(f"a schema must be an object, got {schema!r}")
    unknown = set(schema) - KEYWORDS - ANNOTATIONS
    if unknown:
        raise SchemaError(f"keywords not checked by this validator: {sorted(unknown)}")
    where = path or "(root)"
    errors = []
    if "$ref" in schema:
        errors += check(instance, _resolve(root, schema["$ref"]), root, path)
    if "type" in schema:
        types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(_is_type(instance, t) for t in types):
            return errors + [f"{where}: expected {' or '.join(types)}, got {json.dumps(instance)[:60]}"]
    if "enum" in schema and not any(_json_equal(instance, v) for v in schema["enum"]):
        errors.append(f"{where}: {json.dumps(instance)[:60]} is not one of {json.dumps(schema['enum'])}")
    if "anyOf" in schema:
        if not any(not check(instance, s, root, path) for s in schema["anyOf"]):
            errors.append(f"{where}: {json.dumps(instance)[:60]} matches none of the allowed forms")
    number = isinstance(instance, (int, float)) and not isinstance(instance, bool)
    if number and "minimum" in schema and instance < schema["minimum"]:
        errors.append(f"{where}: {instance} is below the minimum {schema['minimum']}")
    if number and "maximum" in schema and instance > schema["maximum"]:
        errors.append(f"{where}: {instance} is above the maximum {schema['maximum']}")
    if isinstance(instance, dict):
        for key in schema.get("required", []):
            if key not in instance:
                errors.append(f"{_join(path, key)}: missing required property")
        for key, sub in schema.get("properties", {}).items():
            if key in instance:
                errors += check(instance[key], sub, root, _join(path, key))
    if isinstance(instance, list):
        if "minItems" in schema and len(instance) < schema["minItems"]:
            errors.append(f"{where}: {len(instance)} items, fewer than {schema['minItems']}")
        if "maxItems" in schema and len(instance) > schema["maxItems"]:
            errors.append(f"{where}: {len(instance)} items, more than {schema['maxItems']}")
        if "items" in schema:
            for i, item in enumerate(instance):
                errors += check(item, schema["items"], root, _join(path, i))
    return errors


def load_schema():
    """The report schema (share/rangereplay/report.schema.json) as a dict."""
    with open(SCHEMA_PATH, encoding="utf-8") as f:
        return json.load(f)


def check_report_file(path, schema=None):
    """The problems of the report file `path`: against the schema, then loading it with
    rangereplay_report.load(); [] when it validates and loads."""
    schema = load_schema() if schema is None else schema
    try:
        with open(path, encoding="utf-8") as f:
            document = json.load(f)
    except (OSError, ValueError) as e:
        return [f"{path}: {e}"]
    problems = [f"{path}: {p}" for p in check(document, schema)]
    sys.path.insert(0, os.path.join(ROOT, "python"))
    try:
        import rangereplay_report
    finally:
        sys.path.pop(0)
    try:
        rangereplay_report.load(path)
    except ValueError as e:
        problems.append(f"{path}: rangereplay_report.load: {e}")
    return problems


def main(argv):
    if not argv:
        print("usage: schema_check.py REPORT.json...", file=sys.stderr)
        return 2
    schema = load_schema()
    problems = [p for path in argv for p in check_report_file(path, schema)]
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
