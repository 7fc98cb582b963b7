"""tests/e2e/test_fio_examples_differential.py - fio 3.33's own examples through fio and ioplan.

fio's example job files must run unchanged and move what fio moves: they are
what a user migrating from fio brings first.  test_parse_jobs.py's
FioExamplesCorpus checks that they parse; this module runs them.  Each size-bound example of build/fio-src/examples (`make
fio-examples`) that fio 3.33 accepts and whose engines ioplan has is rewritten
into a scratch form (devices and directories become files in the run's own
directory, sizes shrink to a few MiB, loop and file counts are capped), then
fio 3.33 and ioplan each run it in a fresh directory with --output-format=json.
Compared per job: the number of jobs, groupid, read+write io_bytes and error.
A file left out says why in SKIPPED.  Every compared file must match; random
ones match because ioplan draws, maps and bounds random I/O as fio does
(test_gen_random_like_fio.py checks that I/O for I/O).
"""
import concurrent.futures
import json
import os
import re
import tempfile
import unittest

from common import FIO, ROOT, run, run_fio

EXAMPLES = ROOT / "build/fio-src/examples"
ENGINES = {"psync", "sync", "null", "libaio", "io_uring", "pvsync", "pvsync2", "vsync", "posixaio",
           "mmap", "falloc", "ftruncate", "net", "netsplice", "nbd", "splice", "filecreate",
           "filestat", "filedelete", "dircreate", "dirstat", "dirdelete", "cpuio", "exec", "e4defrag"}
CAP = 4 << 20          # bytes a job's size=/filesize=/io_size= is shrunk to at most
SKIPPED = {
    "1mbs_clients.fio": "rate=1250 B/s with startdelay up to 124 s: bound by wall time, not size",
    "exitwhat.fio": "exitall/exit_what with thinktime and rate: amounts depend on when jobs end",
    "surface-scan.fio": "fill_device=1 fills the whole filesystem of the scratch directory",
    "netio.fio": "ioengine=net needs a peer (a server/client pair)",
    "netio_multicast.fio": "ioengine=net needs a multicast peer",
    # Measured: of 6 runs of fio 3.33 on the shrunk file, several left a process that never exits.
    "fixed-rate-submission.fio": "fio 3.33 hangs here at times with io_submit_mode=offload",
    "poisson-rate-submission.fio": "fio 3.33 hangs here at times with io_submit_mode=offload",
}
# Per-file rewrites beyond the generic ones: option -> value (None drops it).
OVERRIDES = {
    # 30 jobs 124 GiB apart writing 120 GiB each, twice: 2 jobs writing 1 MiB each.
    # 16k of every 128k: 1 MiB spans 8 MiB, so the jobs start 8 MiB apart (closer,
    # they overwrite each other's blocks: fio warns that verification may fail, and
    # ioplan's did, error 84, in 1 of 3 runs 4 MiB apart).
    # 1m of 16k writes every 128k spans 8m a loop, and the second loop goes on from
    # there (both tools): 17m apart the two jobs never write each other's blocks.  At
    # 8m apart job 0's second loop could land between job 1's write and its
    # verify_backlog read, a race that load decides (seen with ioplan, 3 in 60 runs).
    "cross-stripe-verify.fio": {"numjobs": "2", "offset_increment": "17m", "io_size": "1m", "size": "24m"},
    "fsx.fio": {"loops": "4"},
    "filecreate-ioengine.fio": {"nrfiles": "64"},
    # randrepeat=0: fio's own runs differ from each other (16 MiB + 19 to 101 KiB
    # measured in three runs); with fio's repeatable seeds both tools move the same bytes.
    "jesd219.fio": {"randrepeat": "1"},
}


def env_for(text):
    """The ${VAR}s an example uses, set (an rw= one needs a direction)."""
    return {v: "randread" if v.endswith("RW") else "1" for v in re.findall(r"\$\{(\w+)\}", text)}


def to_bytes(value):
    """Bytes of a plain size value (4k, 1g, 512m, 128m), or None for %, ranges, expressions."""
    m = re.fullmatch(r"(\d+)([kmgt]?)i?b?", value.strip().lower())
    if not m:
        return None
    return int(m.group(1)) << {"": 0, "k": 10, "m": 20, "g": 30, "t": 40}[m.group(2)]


def scratch_name(path):
    """A file in the run's directory standing for a device or an absolute path."""
    return re.sub(r"[^A-Za-z0-9_.]+", "_", path.strip().lstrip("/")) or "file"


def rewrite_line(key, value, overrides):
    """The scratch form of one option line, or None to drop it."""
    if key in overrides:
        return None if overrides[key] is None else f"{key}={overrides[key]}"
    if key == "directory":
        return None
    if key == "filename":
        return "filename=" + ":".join(scratch_name(p) for p in value.split(":"))
    if key in ("size", "filesize", "io_size", "io_limit"):
        n = to_bytes(value)
        return f"{key}={min(n, CAP)}" if n is not None else f"{key}={value}"
    if key in ("zonesize", "zoneskip", "zonerange"):
        n = to_bytes(value)            # zones shrink with the file: 256m -> 256k
        return f"{key}={max(n >> 10, 4096)}" if n is not None else f"{key}={value}"
    if key == "number_ios":
        return f"number_ios={min(int(value), 256)}"
    if key == "loops":
        return f"loops={min(int(value), 2)}"
    if key == "nrfiles":
        return f"nrfiles={min(int(value), 64)}"
    return f"{key}={value}" if value is not None else key


def rewrite(text, overrides):
    """The example in scratch form: every section kept, its options shrunk."""
    out, seen = [], set()
    for raw in text.splitlines():
        line = re.split(r"\s[;#]", raw, maxsplit=1)[0].strip()
        if not line or line[0] in ";#" or line.startswith("["):
            out.append(line)
            continue
        key, _, value = line.partition("=")
        key = key.strip()
        seen.add(key)
        new = rewrite_line(key, value.strip() if _ else None, overrides)
        if new is not None:
            out.append(new)
    head = [] if seen & {"size", "filesize", "io_size"} else [f"size={CAP}"]   # a device's: a file needs one
    head += [f"{k}={v}" for k, v in overrides.items() if v is not None and k not in seen]
    return "[global]\n" + "".join(h + "\n" for h in head) + "\n".join(out) + "\n"


def engines_of(text):
    return set(re.findall(r"(?m)^\s*ioengine\s*=\s*(\S+)", text)) or {"psync"}


def size_bound(text):
    """No time_based: the run ends when its bytes are done (runtime= then only caps it)."""
    return not re.search(r"(?m)^\s*time_based", text)


def per_job(doc):
    """[(groupid, read+write io_bytes, error)] of a JSON document's jobs, in order."""
    return [(j["groupid"], j["read"]["io_bytes"] + j["write"]["io_bytes"], j["error"])
            for j in doc["jobs"]]


@unittest.skipIf(FIO is None, "fio not installed")
@unittest.skipUnless(EXAMPLES.is_dir(), "fio 3.33's examples are not extracted (make fio-examples)")
class FioExamplesDifferential(unittest.TestCase):
    def run_both(self, name, job):
        """(fio's per_job, ioplan's per_job) for a scratch job text."""
        results = []
        for runner in (run_fio, run):
            with tempfile.TemporaryDirectory(prefix="ioplan-ex-") as d:
                path = os.path.join(d, name)
                with open(path, "w") as f:
                    f.write(job)
                p = runner(["--output-format=json", name], cwd=d)
                self.assertIn(p.returncode, (0, 1, 2), f"{runner.__name__} {name}: {p.stderr}")
                start = p.stdout.find("{")
                # A job refused before any I/O: fio exits 1 from its parser, ioplan 2 from its preflight.
                results.append(per_job(json.loads(p.stdout[start:])) if start >= 0 else ("refused",))
        return results

    def candidates(self):
        """(name, text, skip reason or None) of every example both parse."""
        files = sorted(EXAMPLES.glob("*.fio"))
        texts = {f: f.read_text(errors="replace") for f in files}
        for text in texts.values():
            os.environ.update(env_for(text))   # fio and ioplan inherit the ${VAR}s
        asked = [f for f in files if f.name not in SKIPPED and engines_of(texts[f]) <= ENGINES]
        # fio's start-up is most of a parse: four at a time.
        with concurrent.futures.ThreadPoolExecutor(4) as pool:
            parses = dict(zip(asked, pool.map(lambda f: run_fio(["--parse-only", str(f)]).returncode, asked)))
        for f in files:
            text = texts[f]
            if f.name in SKIPPED:
                yield f.name, text, SKIPPED[f.name]
            elif f not in parses:
                continue                      # an engine ioplan lacks: not in the promise
            elif parses[f] != 0:
                continue                      # fio itself refuses it here
            elif re.search(r"(?m)^\s*zonemode\s*=\s*zbd", text):
                yield f.name, text, "zonemode=zbd needs a zoned block device (none here)"
            elif not size_bound(text):
                yield f.name, text, "time_based"
            else:
                yield f.name, text, None

    def test_examples(self):
        todo, skipped = [], {}
        for name, text, reason in self.candidates():
            if reason:
                skipped.setdefault(reason, []).append(name)
            else:
                todo.append((name, rewrite(text, OVERRIDES.get(name, {}))))
        # Size-bound examples in their own directories compare bytes, not speed: two
        # examples at a time (most of a run is fsync and process start-up).
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            results = list(pool.map(lambda job: self.run_both(*job), todo))
        equal = 0
        for (name, _), (fio, ours) in zip(todo, results):
            with self.subTest(example=name):
                self.assertEqual(ours, fio, f"{name}: (groupid, io_bytes, error) per job, ioplan vs fio")
                equal += 1
        compared = [name for name, _ in todo]
        reasons = "; ".join(f"{r}: {', '.join(n)}" for r, n in skipped.items())
        print(f"\nfio examples differential: {len(compared)} compared, {equal} equal, "
              f"{sum(map(len, skipped.values()))} skipped ({reasons})\n"
              f"compared: {', '.join(compared)}", flush=True)
        self.assertGreaterEqual(len(compared), 20)


if __name__ == "__main__":
    unittest.main()
