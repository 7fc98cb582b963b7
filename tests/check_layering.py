#!/usr/bin/env python3
"""tests/check_layering.py - enforces the one-way data flow of docs/architecture.md by #include lines.

parser/ -> plan (engine/plan.h) -> engine/ -> results (engine/results.h) -> report/;
results/ (the store) reads reports' JSON.
Only cli/ may include from every stage; tests/ may include anything.
Inside engine/ and report/, FORBIDDEN says what each sub-folder must not include.
Exits 1 and names each offending line when a file includes what its stage may not.
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')

# For each stage: the project paths (prefixes) its files may include.
ALLOWED = {
    # taus88.h, taus258.h: fio's generators alone (no engine state), for the draws fio makes while
    # planning (a filesize= range's file sizes)
    "parser": ("parser/", "engine/plan.h", "engine/gen/taus88.h", "engine/gen/taus258.h"),
    "engine": ("engine/",),
    "report": ("report/", "engine/plan.h", "engine/results.h"),
    # the results store: it reads the JSON reports, never the engine or the parser
    "results": ("results/",),
    "cli": ("cli/", "parser/", "engine/", "report/", "results/"),
}
# Engine internals: the engine may include these, nobody else but cli/ and tests/.
PUBLIC_ENGINE = ("engine/plan.h", "engine/results.h", "engine/engine.h",
                 # checks the cli runs before starting the engine, and reports
                 "engine/safety/preflight.h", "engine/safety/safety.h")

# Inside a stage: what each sub-folder must not include, and why.  The worker
# drives the parts below it; none of them reaches back into the worker.
WORKER = ("engine/worker/",)
FORBIDDEN = {
    "engine/gen/": WORKER + ("engine/ioengines/", "engine/safety/", "engine/layout/", "engine/logs/"),
    "engine/ioengines/": WORKER + ("engine/gen/", "engine/verify/", "engine/logs/", "engine/layout/"),
    "engine/verify/": WORKER + ("engine/layout/", "engine/logs/"),
    "engine/logs/": WORKER,
    "engine/layout/": WORKER + ("engine/verify/", "engine/logs/"),
    "engine/safety/": WORKER,
    "report/diskspd/": ("report/fio/", "report/plot/"),
}
WHY = {
    "engine/gen/": "offset generators are pure: no file, no worker",
    "engine/ioengines/": "an I/O engine sees engine/ioengine.h's contract, not the worker or the generators",
}


def folder_violation(rel: str, target: str) -> str:
    """The rule an include inside a stage breaks, or ''."""
    for folder, banned in FORBIDDEN.items():
        if rel.startswith(folder) and any(target.startswith(b) for b in banned):
            return WHY.get(folder, "the worker drives this part; it does not reach back")
    return ""


def resolve(src: pathlib.Path, inc: str) -> str:
    """Project-relative path of an include, whether written from the root or the file's dir."""
    if (ROOT / inc).exists():
        return inc
    local = (src.parent / inc).resolve()
    try:
        return str(local.relative_to(ROOT))
    except ValueError:
        return inc


def main() -> int:
    bad = []
    for stage, allowed in ALLOWED.items():
        for src in sorted((ROOT / stage).rglob("*")):
            if src.suffix not in (".c", ".h", ".cpp", ".hpp"):
                continue
            for lineno, line in enumerate(src.read_text(errors="replace").splitlines(), 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                target = resolve(src, m.group(1))
                if not (ROOT / target).exists():
                    continue  # a system header written with quotes
                ok = any(target == a or (a.endswith("/") and target.startswith(a)) for a in allowed)
                if stage == "cli" and target.startswith("engine/") and target not in PUBLIC_ENGINE:
                    ok = False
                rel = str(src.relative_to(ROOT))
                if not ok:
                    bad.append(f"{rel}:{lineno}: {stage}/ may not include \"{target}\"")
                elif why := folder_violation(rel, target):
                    bad.append(f"{rel}:{lineno}: may not include \"{target}\" ({why})")
    for b in bad:
        print(b, file=sys.stderr)
    if bad:
        print(f"check-layering: {len(bad)} include(s) break the data flow (docs/architecture.md)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
