#!/usr/bin/env python3
"""tests/generate.py - the files generated from the code, committed, and checked for staleness.

`make generate` (--write) rewrites them; `make check-generated` (--check) fails
naming each file whose committed text differs from what the code produces now.
Each entry is an output path and the ioplan arguments whose stdout it is, or a
function producing the text.  Files made by library code that the ioplan binary
does not expose (the JSON report's schema) are collected from the unit-test
binary ($IOPLAN_UNIT), whose tests write them under $IOPLAN_GENERATE_DIR.
"""
import argparse
import difflib
import os
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
BIN = os.environ.get("IOPLAN_BIN", str(ROOT / "ioplan"))
UNIT = os.environ.get("IOPLAN_UNIT", str(ROOT / "build" / "release" / "unit_tests"))


def ioplan(*args: str) -> str:
    proc = subprocess.run([BIN, *args], cwd=ROOT, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"ioplan {' '.join(args)} failed ({proc.returncode}): {proc.stderr.strip()}")
    return proc.stdout


def man_page(template: str, marker: str = "@OPTIONS@", dump: str = "--dump-man-options") -> str:
    """A man page whose marker line is replaced by a list ioplan prints from one of its tables."""
    text = (ROOT / template).read_text()
    return text.replace(marker + "\n", ioplan(dump))


def from_unit_tests(rel: str, test_case: str):
    """A producer: the file rel as the unit test test_case writes it."""
    def produce() -> str:
        with tempfile.TemporaryDirectory(prefix="ioplan-generate-") as tmp:
            env = dict(os.environ, IOPLAN_GENERATE_DIR=tmp)
            proc = subprocess.run([UNIT, f"--test-case={test_case}", "--no-intro=true"], cwd=ROOT,
                                  env=env, capture_output=True, text=True)
            out = pathlib.Path(tmp) / rel
            if proc.returncode != 0 or not out.exists():
                raise RuntimeError(f"{UNIT} --test-case={test_case!r} failed ({proc.returncode}): "
                                   f"{(proc.stdout + proc.stderr).strip()[-2000:]}")
            return out.read_text()
    return produce


# (output, producer). Producers run from the repository root.
INI_SUFFIXES = (".fio", ".ini", ".txt")


def converted(src: pathlib.Path, to: str) -> str:
    """A job file in another syntax, with the editor schema hint on top."""
    schema = os.path.relpath(ROOT / "schema/job.schema.json", src.parent)
    hint = f"#:schema {schema}\n" if to == "toml" else f"# yaml-language-server: $schema={schema}\n"
    return hint + ioplan("convert", str(src.relative_to(ROOT)), f"--to={to}")


def job_file_variants() -> list:
    """TOML and YAML forms of every INI job file in examples/ and jobs/."""
    out = []
    for d in ("examples", "jobs"):
        for src in sorted((ROOT / d).glob("*")):
            if src.suffix in INI_SUFFIXES:
                for to in ("toml", "yaml"):
                    out.append((f"{d}/{src.stem}.{to}", lambda src=src, to=to: converted(src, to)))
    return out


GENERATED: list = [
    ("man/ioplan-job.5", lambda: man_page("man/ioplan-job.5.in")),
    ("man/ioplan.1", lambda: man_page("man/ioplan.1.in", "@FLAGS@", "--dump-man-flags")),
    ("schema/job.schema.json", lambda: ioplan("--dump-job-schema")),
    ("schema/result.schema.json",
     from_unit_tests("schema/result.schema.json", "json schema: schema/result.schema.json is*")),
] + job_file_variants()


def main() -> int:
    ap = argparse.ArgumentParser()
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true")
    mode.add_argument("--write", action="store_true")
    args = ap.parse_args()
    stale = []
    for rel, produce in GENERATED:
        path = ROOT / rel
        try:
            want = produce()
        except RuntimeError as e:
            print(f"generate: {rel}: {e}", file=sys.stderr)
            return 1
        have = path.read_text() if path.exists() else None
        if have == want:
            continue
        if args.write:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(want)
            print(f"generate: wrote {rel}")
        else:
            stale.append(rel)
            diff = difflib.unified_diff((have or "").splitlines(), want.splitlines(),
                                        f"{rel} (committed)", f"{rel} (generated)", lineterm="", n=1)
            print("\n".join(list(diff)[:20]), file=sys.stderr)
    if stale:
        print(f"check-generated: stale: {' '.join(stale)} (run `make generate` and commit)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
