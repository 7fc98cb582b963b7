#!/usr/bin/python3
"""tests/report/check_json.py - validate JSON documents against a JSON Schema, strictly.

Usage: check_json.py SCHEMA FILE...

Each FILE must hold exactly one JSON document with no key repeated in any
object and no NaN/Infinity (Python's json module accepts both by default;
here they are errors), and the document must validate against SCHEMA with
jsonschema's validator for the draft the schema names.  Prints one line per
problem and exits 1 if there was any; prints "ok: N documents" otherwise.
The unit tests (tests/report/test_json_schema.cpp) run it on every document
the writers produce.
"""
import json
import sys

import jsonschema


class Invalid(ValueError):
    pass


def no_duplicates(pairs):
    seen = {}
    for key, value in pairs:
        if key in seen:
            raise Invalid(f"duplicate key {key!r}")
        seen[key] = value
    return seen


def no_constants(name):
    raise Invalid(f"non-JSON constant {name}")


def load_strict(text):
    return json.loads(text, object_pairs_hook=no_duplicates, parse_constant=no_constants)


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    with open(argv[0], encoding="utf-8") as f:
        schema = load_strict(f.read())
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    validator = cls(schema)
    problems = 0
    for path in argv[1:]:
        try:
            with open(path, encoding="utf-8") as f:
                doc = load_strict(f.read())
        except (ValueError, UnicodeDecodeError) as e:
            print(f"{path}: not strict JSON: {e}")
            problems += 1
            continue
        for err in sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path)):
            where = "/" + "/".join(str(p) for p in err.absolute_path)
            print(f"{path}: {where}: {err.message}")
            problems += 1
    if problems:
        return 1
    print(f"ok: {len(argv) - 1} documents")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
