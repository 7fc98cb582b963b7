"""tests/e2e/test_run_faults.py - targets that fail or misbehave at run time.

Faults a run meets after its input was accepted, each through the binary on real files, devices,
FIFOs and signals: reads that return no data (/dev/null, a file truncated by
the test mid-run) are EIO and exit 1 as in fio, and so are mmap's copies from
or to pages a truncation took away (SIGBUS, caught); a FIFO nobody writes is
waited for only until SIGINT or runtime; streams without size=, targets
that are no file at all (a directory, a socket, directory= naming a file),
queues whose buffers cannot fit, and more open files than the hard limit
allows are refused before any I/O with the job and the path or the product
named; a layout ends at the first file the disk has no room for;
openfiles= keeps at most that many files open, as fio does; a failed
fsync fails the run as in fio; a write past `ulimit -f` is the job's
EFBIG, not the death of the process by SIGXFSZ; a clone whose thread the system refuses is its
job's error, named on stderr, and the clones already started stop.
"""
import json
import os
import pathlib
import pty
import re
import resource
import signal
import socket
import subprocess
import time
import unittest

from common import (BIN, FIO, STOP_BOUND_S, TmpDirCase, TmpfsCase, ext4_loop, run, run_fio, tmpfs, wait_for_stderr,
                    wait_until, waits_in)


class NoData(TmpDirCase):
    def test_dev_null_reads_are_eio_as_in_fio(self):
        args = ["--name=j", "--filename=/dev/null", "--rw=read", "--size=1m", "--output-format=json"]
        p = run(args)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn("job 'j': /dev/null: offset 0: short read (0 of 4096 bytes): "
                      "Input/output error (errno 5)", p.stderr)
        doc = json.loads(p.stdout)
        self.assertEqual(doc["jobs"][0]["error"], 5)
        self.assertEqual(doc["jobs"][0]["read"]["io_bytes"], 0)
        if FIO:
            out = self.tmp / "fio.json"  # fio also prints its err= line on stdout
            f = run_fio([*args, f"--output={out}"])
            self.assertEqual((f.returncode, json.loads(out.read_text())["jobs"][0]["error"]), (p.returncode, 5))

    def test_a_read_of_nothing_ends_the_job_whatever_continue_on_error_says(self):
        # fio's "full resid" is the job's error, not the I/O's: continue_on_error
        # does not cover it.  ioplan read /dev/null 16 times with continue_on_error=read,
        # ending with error 0, and counted none of the reads.  (fio 3.33's thread then
        # dies of an assertion, "got signal=6", and fio exits 0: its exit code is not
        # compared, ioplan's is the error's 1.)
        for who, runner in (("ioplan", run), ("fio", run_fio)) if FIO else (("ioplan", run),):
            with self.subTest(who=who):
                out = self.tmp / f"{who}.json"
                p = runner(["--name=j", "--filename=/dev/null", "--rw=read", "--size=64k", "--continue_on_error=read",
                            "--output-format=json", f"--output={out}"])
                text = out.read_text()
                doc, _ = json.JSONDecoder().raw_decode(text[text.index("{"):])  # fio's lines may come around it
                job = doc["jobs"][0]
                self.assertEqual((job["error"], job["total_err"], job["read"]["total_ios"]), (5, 1, 1))
                if who == "ioplan":
                    self.assertEqual(p.returncode, 1, p.stderr)

    def test_normal_output_shows_the_error(self):
        p = run(["--name=j", "--filename=/dev/null", "--rw=read", "--size=64k"])
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn("j: (groupid=0, jobs=1): err= 5 (short read (0 of 4096 bytes) /dev/null at offset 0: "
                      "Input/output error)", p.stdout)

    def test_async_engines_fail_the_same_way(self):
        for engine in ("libaio", "io_uring"):
            p = run(["--name=j", "--filename=/dev/null", "--rw=read", "--size=64k", f"--ioengine={engine}",
                     "--iodepth=4", "--output-format=json"])
            errors = json.loads(p.stdout)["ioplan"]["jobs"][0]["errors"]
            if engine == "io_uring" and errors and errors[0]["errno"] in (1, 38):
                continue  # io_uring refused by the kernel
            self.assertEqual(p.returncode, 1, p.stderr)
            self.assertEqual(json.loads(p.stdout)["jobs"][0]["error"], 5, engine)

    def test_file_truncated_mid_run_ends_the_job_with_eio(self):
        target = self.tmp / "data"
        target.write_bytes(os.urandom(8 << 20))
        proc = subprocess.Popen([BIN, "--name=t", f"--filename={target}", "--rw=read", "--bs=4k",
                                 "--rate_iops=2000", "--time_based", "--runtime=30", "--output-format=json",
                                 "--eta=always"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        wait_for_stderr(proc, b"[R(1)]")  # reading, past the layout
        os.truncate(target, 0)
        start = time.monotonic()
        out, err = proc.communicate(timeout=30)
        # The next read (0.5 ms on at 2000 IOPS) ends the job, not its 30 s runtime; what
        # bounds the exit is a busy machine's scheduling, as after a signal.
        self.assertLess(time.monotonic() - start, STOP_BOUND_S)
        self.assertEqual(proc.returncode, 1, err)
        doc = json.loads(out)
        self.assertEqual(doc["jobs"][0]["error"], 5)
        first = doc["ioplan"]["jobs"][0]["errors"][0]
        self.assertEqual((first["errno"], first["file"]), (5, str(target)))
        self.assertEqual(doc["jobs"][0]["read"]["io_bytes"], first["offset"])  # all before the failed read
        self.assertIn(f"job 't': {target}: offset {first['offset']}: short read (0 of 4096 bytes)", err)

    def test_a_file_truncated_under_mmap_is_eio_not_the_death_of_the_process(self):
        # A page of the mapping with no file behind it any more: the copy's SIGBUS killed
        # ioplan (exit 135, no report; fio 3.33's job dies of it too).
        for rw in ("read", "write"):
            with self.subTest(rw=rw):
                target = self.tmp / f"m-{rw}"
                proc = subprocess.Popen([BIN, "--name=t", f"--filename={target}", f"--rw={rw}", "--bs=4k",
                                         "--size=8m", "--ioengine=mmap", "--rate_iops=2000", "--time_based",
                                         "--runtime=30", "--output-format=json", "--eta=always"],
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                self.addCleanup(lambda: proc.poll() is None and (proc.kill(), proc.wait()))
                wait_for_stderr(proc, f"[{rw[0].upper()}(1)]".encode())  # under way, past the layout
                os.truncate(target, 4096)
                out, err = proc.communicate(timeout=30)
                self.assertEqual(proc.returncode, 1, err)
                doc = json.loads(out)
                job = doc["jobs"][0]
                first = doc["ioplan"]["jobs"][0]["errors"][0]
                self.assertEqual((job["error"], first["errno"], first["file"]), (5, 5, str(target)))
                self.assertEqual(job[rw]["io_bytes"], first["offset"])  # every copy before the one that failed
                self.assertIn(f"offset {first['offset']}: {rw}: Input/output error (errno 5)", err)


class FailedAtDepth(TmpDirCase):
    def test_the_ios_in_flight_when_a_job_fails_are_counted_as_fio_counts_them(self):
        # Polled (hipri) buffered reads all fail, EOPNOTSUPP, after iodepth=8 went out.  fio
        # counts every I/O it issued and reaps the others before the job ends: total_ios=8,
        # eight errors; ioplan stopped at the first completion and counted 1 ("issued
        # rwts: total=1"), its report naming one error.
        args = ["--name=j", "--ioengine=io_uring", "--hipri=1", "--rw=read", "--bs=4k", "--size=1m",
                "--iodepth=8", "--output-format=json,normal"]
        got = {}
        for who, runner in (("ioplan", run), ("fio", run_fio)) if FIO else (("ioplan", run),):
            out = self.tmp / f"{who}.out"
            p = runner([*args, f"--filename={self.tmp / who}", f"--output={out}"])
            text = out.read_text()
            doc, end = json.JSONDecoder().raw_decode(text[text.index("{"):])
            job = doc["jobs"][0]
            if who == "ioplan" and job["error"] in (1, 38):
                self.skipTest("io_uring refused by the kernel")
            issued = re.search(r"issued rwts: total=(\S+)", text).group(1)
            complete = re.search(r"complete  : (.*)", text).group(1)
            got[who] = (p.returncode, job["error"], job["read"]["total_ios"], job["read"]["io_bytes"], issued,
                        complete, len(re.findall(r"(?:io_u error on file|error: job 'j':).*offset", p.stderr)))
        self.assertEqual(got["ioplan"], (1, 95, 8, 0, "8,0,0,0",
                                         "0=0.0%, 4=66.7%, 8=33.3%, 16=0.0%, 32=0.0%, 64=0.0%, >=64=0.0%", 8))
        if FIO:
            self.assertEqual(got["ioplan"], got["fio"])


class Streams(TmpDirCase):
    def test_char_devices_and_fifos_need_size(self):
        fifo = self.tmp / "fifo"
        os.mkfifo(fifo)
        for path, kind, engine in (("/dev/zero", "a character device", "psync"),
                                   ("/dev/urandom", "a character device", "libaio"),
                                   (str(fifo), "a FIFO", "io_uring")):
            for extra in ([], ["--time_based", "--runtime=1"]):
                p = run(["--name=z", f"--filename={path}", "--rw=read", f"--ioengine={engine}", *extra], timeout=10)
                self.assertEqual(p.returncode, 2, p.stderr)
                self.assertIn(f"error: job 'z': {path} is {kind}, which has no size: the job needs size=",
                              p.stderr)

    def test_char_device_with_size_reads_exactly_that(self):
        p = run(["--name=z", "--filename=/dev/zero", "--rw=read", "--size=8m", "--output-format=json"])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(json.loads(p.stdout)["jobs"][0]["read"]["io_bytes"], 8 << 20)

    def test_fifos_and_terminals_are_read_by_io_uring_only(self):
        # psync's pread fails on them (ESPIPE); libaio reads them inside io_submit, where the
        # thread waits for the writer and no SIGINT reaches it (only SIGKILL ended that run).
        fifo = self.tmp / "fifo"
        os.mkfifo(fifo)
        writer = os.open(fifo, os.O_RDWR)  # a writer that writes nothing: the read would wait
        self.addCleanup(os.close, writer)
        master, slave = pty.openpty()
        self.addCleanup(os.close, master)
        self.addCleanup(os.close, slave)
        tty = os.ttyname(slave)
        for path, kind in ((str(fifo), "a FIFO"), (tty, "a terminal")):
            for engine in ("psync", "libaio"):
                p = run(["--name=s", f"--filename={path}", "--rw=read", "--size=4k", f"--ioengine={engine}"],
                        timeout=10)
                self.assertEqual(p.returncode, 2, p.stderr)
                self.assertIn(f"error: job 's': {path} is {kind}: only ioengine=io_uring reads it", p.stderr)

    def test_fifo_is_not_written(self):
        fifo = self.tmp / "fifo"
        os.mkfifo(fifo)
        p = run(["--name=w", f"--filename={fifo}", "--rw=write", "--size=1m"], timeout=10)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn(f"error: job 'w': {fifo} is a FIFO: ioplan reads FIFOs but does not write them", p.stderr)


class FifoWithoutWriter(TmpDirCase):
    """open() of a FIFO waits for a writer; the run must not wait inside it."""

    def start(self, *extra):
        self.fifo = self.tmp / "fifo"
        os.mkfifo(self.fifo)
        proc = subprocess.Popen([BIN, "--name=f", f"--filename={self.fifo}", "--rw=read", "--size=8k",
                                 "--ioengine=io_uring", "--output-format=json", "--eta=always", *extra],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.addCleanup(lambda: proc.poll() is None and (proc.kill(), proc.communicate()))
        wait_for_stderr(proc, b"[I(1)]")  # the job is opening its file
        self.assertIsNone(proc.poll(), "still waiting for the writer")
        return proc

    def finish(self, proc, timeout):
        start = time.monotonic()
        out, err = proc.communicate(timeout=30)
        self.assertLess(time.monotonic() - start, timeout)
        doc = json.loads(out)
        errors = doc["ioplan"]["jobs"][0]["errors"]
        if errors and errors[0]["errno"] in (1, 38):
            self.skipTest("io_uring refused by the kernel")
        return doc, err

    def test_sigint_ends_the_wait_at_once(self):
        proc = self.start()
        proc.send_signal(signal.SIGINT)
        doc, err = self.finish(proc, STOP_BOUND_S)
        self.assertEqual(proc.returncode, 1, err)
        self.assertTrue(doc["ioplan"]["interrupted"])
        self.assertEqual((doc["jobs"][0]["error"], doc["jobs"][0]["read"]["io_bytes"]), (0, 0))

    def test_runtime_ends_the_wait_with_an_error(self):
        proc = self.start("--runtime=1500ms", "--stall_timeout=200ms")
        doc, err = self.finish(proc, 1.5 + STOP_BOUND_S)  # what is left of the runtime, then the stop
        self.assertEqual(proc.returncode, 1, err)
        self.assertEqual(doc["jobs"][0]["error"], 110)
        self.assertIn(f"job 'f': {self.fifo}: no writer opened the FIFO within runtime", err)
        self.assertTrue(any(w.startswith("f: thread 1: no I/O completed for") for w in doc["ioplan"]["warnings"]),
                        doc["ioplan"]["warnings"])

    def test_a_writer_that_comes_later_is_read(self):
        proc = self.start()
        fd = os.open(self.fifo, os.O_WRONLY)
        os.write(fd, os.urandom(8192))
        doc, err = self.finish(proc, 5.0)
        os.close(fd)
        self.assertEqual(proc.returncode, 0, err)
        self.assertEqual(doc["jobs"][0]["read"]["io_bytes"], 8192)

    def test_a_writer_that_leaves_without_writing_is_eio(self):
        proc = self.start()
        os.close(os.open(self.fifo, os.O_WRONLY))
        doc, err = self.finish(proc, 5.0)
        self.assertEqual(proc.returncode, 1, err)
        self.assertEqual(doc["jobs"][0]["error"], 5)


class NotAFile(TmpDirCase):
    def test_directory_as_filename(self):
        d = self.tmp / "d"
        d.mkdir()
        p = run(["--name=j", f"--filename={d}", "--rw=read", "--size=1m"], timeout=10)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn(f"error: job 'j': {d} is a directory, not a file or device to do I/O on", p.stderr)
        self.assertEqual(list(d.iterdir()), [])

    def test_socket_as_filename(self):
        path = self.tmp / "sock"
        s = socket.socket(socket.AF_UNIX)
        s.bind(str(path))
        self.addCleanup(s.close)
        for rw in ("read", "write"):
            p = run(["--name=j", f"--filename={path}", f"--rw={rw}", "--size=1m"], timeout=10)
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertIn(f"error: job 'j': {path} is a socket, not a file or device to do I/O on", p.stderr)

    def test_directory_option_naming_a_regular_file(self):
        f = self.tmp / "plain"
        f.write_bytes(b"keep")
        p = run(["--name=j", f"--directory={f}", "--rw=write", "--size=1m"], timeout=10)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn(f"error: job 'j': directory={f} is a regular file, not a directory", p.stderr)
        self.assertEqual(f.read_bytes(), b"keep")


def mem_available():
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    return 0


class QueueTooBig(TmpDirCase):
    """Every failed set-up says what failed and why, before any I/O where it can be known."""

    def test_buffers_beyond_memory_are_refused_before_any_io(self):
        if mem_available() >= 64 << 30:
            self.skipTest("64 GiB of buffers would fit here")
        target = self.tmp / "t"
        p = run(["--name=j", f"--filename={target}", "--iodepth=65536", "--bs=1m", "--size=4m",
                 "--ioengine=libaio"], timeout=30)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertRegex(p.stderr, r"error: job 'j': iodepth=65536 x bs=1 MiB needs 64 GiB of I/O buffers "
                                   r"\(for 1 thread\), more than the [0-9.]+ [KMG]iB of memory available")
        self.assertFalse(target.exists(), "nothing laid out")

    def test_io_uring_depth_beyond_its_ring_is_refused(self):
        p = run(["--name=j", f"--filename={self.tmp / 't'}", "--iodepth=40000", "--bs=4k", "--size=4m",
                 "--ioengine=io_uring"], timeout=30)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("error: job 'j': iodepth=40000 is more than the 32768 entries an io_uring ring can have",
                      p.stderr)


def limit_nofile(soft, hard):
    return lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def limit_fsize(nbytes):
    return lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (nbytes, nbytes))


class FileSizeLimit(TmpDirCase):
    """A write past `ulimit -f` is the job's error (EFBIG), named, with what was measured.

    SIGXFSZ's default action ended ioplan silently (exit 153, an empty report, fio
    3.33 dies the same way); ioplan ignores it while it runs, so the write fails
    instead.  (subprocess restores SIGXFSZ's default in the child, as a shell has it.)"""

    def run_limited(self, *args):
        """ioplan on a 1 MiB job of 4 KiB blocks, its files limited to 100 KiB."""
        return subprocess.run([BIN, *args, "--bs=4k", "--size=1m", "--output-format=json"], cwd=self.tmp,
                              capture_output=True, text=True, timeout=60, preexec_fn=limit_fsize(100 << 10))

    def test_the_write_past_the_limit_is_an_error_and_the_report_is_whole(self):
        p = self.run_limited("--name=w", "--rw=write")
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn("job 'w': w.0.0: offset 102400: write: File too large (errno 27)", p.stderr)
        job = json.loads(p.stdout)["jobs"][0]
        self.assertEqual((job["error"], job["write"]["io_bytes"]), (27, 100 << 10))

    def test_a_layout_past_the_limit_is_an_error(self):
        p = self.run_limited("--name=r", "--rw=read")
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn("r.0.0: File too large", p.stderr)
        self.assertEqual(json.loads(p.stdout)["jobs"][0]["error"], 27)
        self.assertFalse((self.tmp / "r.0.0").exists(), "the layout it could not finish is removed")

    def test_programs_the_run_starts_get_sigxfsz_as_any_program(self):
        script = self.tmp / "ign.sh"
        script.write_text("grep SigIgn /proc/self/status\n")
        p = subprocess.run([BIN, "--name=x", "--ioengine=null", "--size=64k", f"--exec_prerun=sh {script}"],
                           cwd=self.tmp, capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        ignored = int((self.tmp / "x.prerun.txt").read_text().split()[1], 16)
        self.assertFalse(ignored & (1 << (signal.SIGXFSZ - 1)), "SIGXFSZ is not ignored in the command")


class OpenFiles(TmpfsCase):
    """openfiles= as in fio: at most that many files of a thread open at once.

    Descriptors are the matter, not the disk: the thousands of files are laid out
    on a tmpfs where one can be mounted (on a busy disk their fsynced creation took
    30 s a test)."""

    def watch_fds(self, args, directory):
        """Runs ioplan; returns (process, most of directory's files it held open at once).

        The directory's own descriptor (held to open its files by name without
        a race) is not one of the files openfiles= counts."""
        proc = subprocess.Popen([BIN, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        fd_dir, most, prefix = f"/proc/{proc.pid}/fd", 0, str(directory) + "/"
        while proc.poll() is None:
            n = 0
            try:
                for fd in os.listdir(fd_dir):
                    try:
                        n += os.readlink(f"{fd_dir}/{fd}").startswith(prefix)
                    except OSError:
                        pass
            except OSError:
                break
            most = max(most, n)
            time.sleep(0.002)  # sampling, for as long as the run lasts
        return proc, most

    def test_at_most_openfiles_are_open_and_every_block_is_read(self):
        for engine in ("psync", "libaio"):
            for service in ("roundrobin", "random", "sequential"):
                d = self.tmp / f"{engine}-{service}"
                d.mkdir()
                args = ["--name=o", f"--directory={d}", "--nrfiles=60", "--openfiles=5", "--rw=randread",
                        "--bs=4k", "--size=3840k", f"--ioengine={engine}", "--iodepth=8",
                        f"--file_service_type={service}", "--rate_iops=4000", "--output-format=json"]
                run(args[:-2] + ["--create_only=1"])  # lay out first: the run then only reads
                proc, most = self.watch_fds(args, d)
                out, err = proc.communicate(timeout=60)
                self.assertEqual(proc.returncode, 0, err)
                self.assertLessEqual(most, 5, (engine, service))
                # sequential service finishes (and closes) a file as it starts the next: 1 or 2 open
                self.assertGreaterEqual(most, 1 if service == "sequential" else 5, (engine, service))
                self.assertEqual(json.loads(out)["jobs"][0]["read"]["io_bytes"], 3840 << 10, (engine, service))

    def test_more_files_than_ulimit_allows_as_fio(self):
        # The nrfiles=5000 openfiles=100 under ulimit -n 1024, scaled down (5000 fsynced
        # creations take 20 s on a busy machine): 1000 files, openfiles=50, ulimit -n 128.
        args = ["--name=j", "--nrfiles=1000", "--openfiles=50", "--rw=read", "--size=8m", "--bs=4k",
                "--output-format=json"]
        p = subprocess.run([BIN, f"--directory={self.tmp}", *args], capture_output=True, text=True, timeout=120,
                           preexec_fn=limit_nofile(128, 128))
        self.assertEqual(p.returncode, 0, p.stderr)
        got = json.loads(p.stdout)["jobs"][0]["read"]["io_bytes"]
        self.assertEqual(got, 1000 * 8192)
        if FIO:
            out, d = self.tmp / "fio.json", self.tmp / "fio"
            d.mkdir()
            f = subprocess.run([FIO, f"--directory={d}", *args, f"--output={out}"], capture_output=True, text=True,
                               timeout=300, preexec_fn=limit_nofile(128, 128))
            self.assertEqual(f.returncode, 0, f.stderr)
            self.assertEqual(json.loads(out.read_text())["jobs"][0]["read"]["io_bytes"], got)

    def test_written_files_are_read_back_after_closing(self):
        p = run(["--name=w", f"--directory={self.tmp}", "--nrfiles=20", "--openfiles=3", "--rw=randwrite",
                 "--bs=4k", "--size=1280k", "--verify=crc32c", "--fsync_on_close=1", "--output-format=json"])
        self.assertEqual(p.returncode, 0, p.stderr)
        doc = json.loads(p.stdout)
        self.assertEqual(doc["jobs"][0]["write"]["io_bytes"], 1280 << 10)
        self.assertEqual((doc["ioplan"]["jobs"][0]["verify_failures"], doc["ioplan"]["jobs"][0]["errors"]), (0, []))

    def test_more_files_than_the_hard_limit_is_refused_before_layout(self):
        args = [BIN, "--name=j", f"--directory={self.tmp}", "--nrfiles=2000", "--rw=read", "--size=8m"]
        p = subprocess.run(args, capture_output=True, text=True, timeout=60, preexec_fn=limit_nofile(256, 1024))
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertRegex(p.stderr, r"error: job 'j': the jobs running with it keep \d+ files and descriptors open "
                                   r"at once, more than the limit of open files \(ulimit -n: 256, at most 1024\); "
                                   r"set openfiles=")
        self.assertEqual(list(self.tmp.iterdir()), [])
        # Under the hard limit, the soft one is raised and the run goes on.
        p = subprocess.run(args, capture_output=True, text=True, timeout=120, preexec_fn=limit_nofile(256, 4096))
        self.assertEqual(p.returncode, 0, p.stderr)


class SyncErrors(TmpDirCase):
    """A failed fsync is a failed run, as in fio, with the same bytes written before it."""

    def test_failed_fsync_is_the_jobs_error(self):
        for opt, what, written in (("--end_fsync=1", "end_fsync", 1 << 20), ("--fsync=16", "fsync", 64 << 10),
                                   ("--fdatasync=4", "fdatasync", 16 << 10)):
            # fsync() of /dev/null is EINVAL: a real, repeatable failure of the call itself.
            args = ["--name=j", "--filename=/dev/null", "--rw=write", "--size=1m", opt, "--output-format=json"]
            p = run([*args, "--allow_device_write=/dev/null"])
            self.assertEqual(p.returncode, 1, p.stderr)
            self.assertIn(f"error: job 'j': /dev/null: {what}: Invalid argument (errno 22)", p.stderr)
            job = json.loads(p.stdout)["jobs"][0]
            self.assertEqual((job["error"], job["write"]["io_bytes"]), (22, written), opt)
            if FIO:
                out = self.tmp / "fio.json"
                f = run_fio([*args, f"--output={out}"])
                fjob = json.loads(out.read_text())["jobs"][0]
                self.assertEqual((f.returncode, fjob["error"], fjob["write"]["io_bytes"]), (1, 22, written), opt)


class FillDevice(TmpDirCase):
    """fill_device=1 writes until the file system is full, and that is the job's end, not its error."""

    def fill(self, runner, mnt, *extra):
        for f in mnt.glob("j.*"):
            f.unlink()
        sv = os.statvfs(mnt)
        p = runner(["--name=j", f"--directory={mnt}", "--rw=write", "--bs=64k", "--fill_device=1", *extra,
                    "--output-format=json"])
        self.assertEqual(p.returncode, 0, p.stderr)
        job = json.loads(p.stdout[p.stdout.index("{"):])["jobs"][0]
        return job, sv.f_bfree * sv.f_frsize, os.statvfs(mnt)

    def test_the_writes_end_at_enospc_with_or_without_size(self):
        # fio fills the file system and exits 0; ioplan ignored fill_device: without
        # size= it refused the job, with size= over the free space it refused the layout.
        mnt = ext4_loop(self)
        got = {}
        for extra in ((), ("--size=256m",), ("--ioengine=libaio", "--iodepth=8")):
            for who, runner in (("ioplan", run),) + ((("fio", run_fio),) if FIO else ()):
                with self.subTest(who=who, extra=extra):
                    job, free, after = self.fill(runner, mnt, *extra)
                    w = job["write"]
                    self.assertEqual(job["error"], 0)
                    self.assertGreater(w["io_bytes"], free * 0.9)
                    # ext4 keeps ~1.3 MiB it gives no 64 KiB write (fio leaves the same).
                    self.assertLess(after.f_bfree * after.f_frsize, free * 0.05)
                    # The write that found no room is counted, without bytes, as fio counts it.
                    self.assertGreater(w["total_ios"], w["io_bytes"] // 65536)
                    got[who, extra] = w["io_bytes"]
        if FIO:
            for extra in ((), ("--size=256m",)):
                self.assertAlmostEqual(got["ioplan", extra], got["fio", extra], delta=1 << 20)
        # Without fill_device, a job larger than the free space is refused before it runs.
        for f in mnt.glob("j.*"):
            f.unlink()
        p = run(["--name=j", f"--directory={mnt}", "--rw=write", "--bs=64k", "--size=256m"])
        self.assertEqual(p.returncode, 2)
        self.assertIn("not enough free space", p.stderr)

    def test_verify_reads_back_what_the_fill_wrote(self):
        # The full file system ends the writes, not the job: what they wrote is
        # read back and checked (fio 3.33 ends the job there and checks nothing).
        mnt = ext4_loop(self)
        job, free, _ = self.fill(run, mnt, "--verify=crc32c")
        self.assertEqual(job["error"], 0)  # a mismatch would be 84
        self.assertGreater(job["write"]["io_bytes"], free * 0.9)
        self.assertEqual(job["read"]["io_bytes"], job["write"]["io_bytes"])


PIDS_CGROUP = pathlib.Path("/sys/fs/cgroup/pids")


@unittest.skipUnless(os.geteuid() == 0 and (PIDS_CGROUP / "cgroup.procs").exists(),
                     "needs root and the cgroup (v1) pids controller")
class LayoutOutOfRoom(TmpDirCase):
    def test_the_layout_ends_at_the_first_file_the_disk_has_no_room_for(self):
        # A tmpfs with inodes for ten files and nrfiles=50: each of the 40 files after the
        # tenth had its own "No space left on device" line, and any files after them
        # were written, for a run that then ran no job.  fio stops at the first too.
        mnt = tmpfs(self, "size=8m,nr_inodes=12")
        p = run(["--name=w", f"--directory={mnt}", "--rw=read", "--bs=4k", "--size=400k", "--nrfiles=50",
                 "--output-format=json"])
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertEqual(p.stderr.count("No space left on device"), 1, p.stderr)
        made = len(list(mnt.iterdir()))
        msgs = {m["code"]: m["text"] for m in json.loads(p.stdout)["ioplan"]["messages"]}
        self.assertRegex(msgs["layout-stopped"], rf"^the layout stopped at {mnt}/w\.0\.[0-9]+, with no room left: "
                                                 rf"{50 - made - 1} more files were not laid out")


class ThreadsRefused(TmpDirCase):
    """More clones than the system lets the process start threads for (a cgroup's pids.max)."""

    def test_the_refused_clone_is_its_jobs_error_and_the_others_stop(self):
        cg = PIDS_CGROUP / f"ioplan-e2e-{os.getpid()}-{time.monotonic_ns()}"
        cg.mkdir()
        try:
            (cg / "pids.max").write_text("12\n")
            script = 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"'
            # Before, the run exited 1 with no word of why and every job's error 0; the
            # clones already waiting at the start gate were woken only by a 100 ms poll.
            p = subprocess.run(["sh", "-c", script, "sh", str(cg), BIN, "--name=a", "--ioengine=null",
                                "--size=1m", "--numjobs=30", "--output-format=json"],
                               capture_output=True, text=True, timeout=60)
        finally:
            wait_until(lambda: not (cg / "cgroup.procs").read_text().split(), 30, "the cgroup to empty")
            cg.rmdir()
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertRegex(p.stderr, r"ioplan: error: job 'a': cannot start clone \d+ of 30: Resource temporarily "
                                   r"unavailable \(threads or processes at a limit: ulimit -u, a cgroup's pids\.max\)")
        errors = [j["error"] for j in json.loads(p.stdout)["jobs"]]
        self.assertEqual((len(errors), errors.count(11), errors.count(0)), (30, 1, 29), errors)


class OutputFifo(TmpDirCase):
    """--output naming a FIFO whose reader is there from the start gets the whole report
    (one whose reader comes late, or never: test_report_output_faults)."""

    def test_a_reader_gets_the_whole_report(self):
        fifo = self.tmp / "out"
        os.mkfifo(fifo)
        reader = subprocess.Popen(["cat", str(fifo)], stdout=subprocess.PIPE, text=True)
        self.addCleanup(lambda: reader.poll() is None and (reader.kill(), reader.communicate()))
        wait_until(lambda: waits_in(reader.pid, "wait_for_partner"), 30, "cat to open the FIFO")
        p = run(["--name=n", "--ioengine=null", "--size=1m", f"--output={fifo}", "--output-format=json"],
                timeout=30)
        out, _ = reader.communicate(timeout=10)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(json.loads(out)["jobs"][0]["read"]["io_bytes"], 1 << 20)


if __name__ == "__main__":
    unittest.main()


class StopDuringLayout(TmpDirCase):
    def test_a_stop_while_laying_out_is_an_interruption_not_a_failure(self):
        # Ctrl-C during the layout printed "ioplan: error: the run failed: Interrupted
        # system call (errno 4)" and the JSON carried error 4 with no message saying why.
        out = self.tmp / "r.json"
        proc = subprocess.Popen([BIN, "--name=j", f"--filename={self.tmp / 'big'}", "--size=1g", "--bs=1m",
                                 "--rw=read", "--output-format=json", f"--output={out}", "--eta=always",
                                 "--eta-interval=100ms"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.addCleanup(lambda: proc.poll() is None and (proc.kill(), proc.wait()))
        # under half-way, so the stop lands in the layout however fast the machine fills the file
        wait_for_stderr(proc, until=lambda seen: re.search(r"\[layout [1-4]?[0-9]\.[0-9]%\]", seen))
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
        self.assertEqual(proc.returncode, 1, err)
        self.assertNotIn("error", err)
        doc = json.loads(out.read_text())
        self.assertTrue(doc["ioplan"]["interrupted"])
        self.assertEqual(doc["ioplan"]["error"], 0)
        [m] = [m for m in doc["ioplan"]["messages"] if m["code"] == "layout-interrupted"]
        self.assertIn("before any job ran: nothing was measured", m["text"])
        self.assertEqual(sum(j["read"]["io_bytes"] for j in doc["jobs"]), 0)
        # The next run finishes the file and reads it.
        p = run(["--name=j", f"--filename={self.tmp / 'big'}", "--size=1g", "--bs=1m", "--rw=read",
                 "--io_size=8m", "--output-format=json"])
        self.assertEqual(p.returncode, 0, p.stderr)
