"""tests/e2e/test_engines_remote.py - the net, netsplice and nbd engines against real peers.

net: a receiver job (listen, rw=read) and a sender job (rw=write) in one job
file, over loopback TCP, UDP, a unix socket and IPv6, with pingpong and
netsplice; each side must report the bytes that crossed.  fio 3.33 runs the
same job files: the sender's io_bytes and every error must be equal (fio's TCP
receiver counts a short read as a whole I/O and stops a few KiB early, so its
receive figure is only checked to be at most size=; ioplan's is exactly size=).

nbd: a real NBD server (nbdkit's memory plugin on a unix socket, no kernel
module) is written and read back with verify=crc32c, against fio 3.33's
figures for the same job; a block changed on the server behind the job's back
is found by the read-back, which proves the data went to the server and back.
"""
import json
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import time
import unittest

from common import BIN, FIO, ROOT, TmpDirCase, communicate_after, port_listening, run, run_fio_session, wait_until

MIB = 1 << 20
NBDKIT = shutil.which("nbdkit")
FIO_EXAMPLES = ROOT / "build" / "fio-src" / "examples"


def free_port(family=socket.AF_INET):
    """A port nothing listens on now (tests run side by side: never a fixed number)."""
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.bind(("::1" if family == socket.AF_INET6 else "127.0.0.1", 0))
        return s.getsockname()[1]


def free_ports(n):
    """A first port of n consecutive ones nothing listens on now (numjobs clones take port + k):
    the kernel's pick for the first, checked for the others, drawn again when one is taken."""
    for _ in range(50):
        socks = [socket.socket(socket.AF_INET, socket.SOCK_STREAM) for _ in range(n)]
        try:
            socks[0].bind(("127.0.0.1", 0))
            base = socks[0].getsockname()[1]
            for k, s in enumerate(socks[1:], 1):
                s.bind(("127.0.0.1", base + k))
            return base
        except OSError:
            continue
        finally:
            for s in socks:
                s.close()
    raise AssertionError(f"no {n} consecutive free ports in 50 draws")


def has_ipv6_loopback():
    try:
        free_port(socket.AF_INET6)
        return True
    except OSError:
        return False


def fio_has_nbd():
    if FIO is None:
        return False
    return "nbd" in subprocess.run([FIO, "--enghelp"], capture_output=True, text=True).stdout.split()


def figures(path):
    """{job: (error, read io_bytes, write io_bytes)} of a JSON report file; {} if it holds none."""
    try:
        doc = json.loads(path.read_text())
    except ValueError:
        return {}
    return {j["jobname"]: (j["error"], j["read"]["io_bytes"], j["write"]["io_bytes"]) for j in doc["jobs"]}


def pair(engine, common, receiver="listen", sender="hostname=localhost", size="8m", bs="4k"):
    """A receiver and a sender in one job file, as fio's examples/netio.fio."""
    return (f"[global]\nioengine={engine}\nbs={bs}\nsize={size}\n{common}\n"
            f"[receiver]\n{receiver}\nrw=read\n"
            f"[sender]\nstartdelay=1\nrw=write\n{sender}\n")


class NetCase(TmpDirCase):
    def run_job(self, who, text, env=None, timeout=120):
        """Runs the job file with ioplan or fio; (exit code, figures, stderr)."""
        self.write(f"{who}.fio", text)
        out = self.tmp / f"{who}.json"
        args = [f"{who}.fio", "--output-format=json", f"--output={out}"]
        if who == "fio":
            p = run_fio_session(args, self.tmp, env, timeout)
        else:
            p = run(args, cwd=self.tmp, env=env, timeout=timeout)
        return p.returncode, figures(out) if out.exists() and out.stat().st_size else {}, p.stderr


class Net(NetCase):
    def both_full(self, text, size):
        rc, fig, err = self.run_job("ioplan", text)
        self.assertEqual(rc, 0, err)
        self.assertEqual(fig, {"receiver": (0, size, 0), "sender": (0, 0, size)})
        return fig

    def against_fio(self, text, size, receiver_whole=False):
        """fio 3.33 on the same file: errors and the sender's bytes equal; fio's receiver at most size."""
        if FIO is None:
            self.skipTest("fio not installed")
        # fio's TCP receiver stops a few blocks early and closes; its sender, still sending,
        # may then die of SIGPIPE or ECONNRESET (no report at all).  That run says nothing
        # about fio's figures: up to three runs, on fresh ports.  So does a fio run that hangs
        # (once in a loaded run: 120 s without an end, its sender blocked on a closed peer).
        for _ in range(3):
            port = re.search(r"port=(\d+)", text).group(1)
            text = text.replace(f"port={port}", f"port={free_port()}")
            try:
                rc, fig, err = self.run_job("fio", text, timeout=90)
            except subprocess.TimeoutExpired:
                rc, fig, err = -1, {}, "fio did not end within 90 s"
            if rc == 0 and fig:
                break
        else:
            self.skipTest(f"fio 3.33 failed its own run three times: {err[-200:]}")
        self.assertEqual(fig["sender"], (0, 0, size))
        self.assertEqual(fig["receiver"][0], 0)
        self.assertLessEqual(fig["receiver"][1], size)
        if receiver_whole:
            self.assertEqual(fig["receiver"][1], size)

    def test_tcp_moves_32_mib_from_sender_to_listener(self):
        text = pair("net", f"port={free_port()}\nprotocol=tcp", size="32m")
        self.both_full(text, 32 * MIB)
        self.against_fio(pair("net", f"port={free_port()}\nprotocol=tcp", size="32m"), 32 * MIB)

    def test_normal_output_gives_net_bandwidth_in_bits_as_fio(self):
        # fio's net engine is bit-based (netsplice is not): BW=...bit/s and bw=...bit/s, io= in bytes.
        bits = re.compile(r"BW=[\d.]+[KMGT]?ibit/s \([\d.]+[KMGT]?bit/s\)\([\d.]+[KMGT]?iB/")
        group = re.compile(r"READ: bw=[\d.]+[KMGT]?ibit/s \([\d.]+[KMGT]?bit/s\), .*io=[\d.]+[KMGT]?iB ")
        for who in ("ioplan", "fio"):
            if who == "fio" and FIO is None:
                continue
            for engine, want in (("net", True), ("netsplice", False)):
                with self.subTest(who=who, engine=engine):
                    # fio's sender may connect before its own listener is up and fail
                    # (exit 1, seen under load), or its pair may hang (120 s, once in a
                    # loaded run): fio gets three tries on fresh ports, ioplan one.
                    for _ in range(3 if who == "fio" else 1):
                        self.write("n.fio", pair(engine, f"port={free_port()}", size="4m"))
                        if who == "ioplan":
                            p = run(["n.fio"], cwd=self.tmp, timeout=120)
                            break
                        try:
                            p = run_fio_session(["n.fio"], self.tmp, timeout=90)
                        except subprocess.TimeoutExpired:
                            p = subprocess.CompletedProcess([FIO], -1, "", "fio did not end within 90 s")
                        if p.returncode == 0:
                            break
                    self.assertEqual(p.returncode, 0, p.stderr)
                    self.assertEqual(len(bits.findall(p.stdout)), 2 if want else 0, p.stdout)
                    self.assertEqual(bool(group.search(p.stdout)), want, p.stdout)
                    # Bytes otherwise, in whatever unit the rate needs (KiB/s under load with ASan).
                    self.assertEqual(bool(re.search(r"\bBW=[\d.]+[KMGT]?iB/s", p.stdout)), not want, p.stdout)

    def test_udp_sender_sends_all_and_receiver_ends_at_fios_close_message(self):
        # runtime= ends a receiver whose close message was lost too (its socket full), counted as such.
        text = pair("net", f"port={free_port()}\nprotocol=udp", receiver="runtime=60", sender="hostname=127.0.0.1")
        rc, fig, err = self.run_job("ioplan", text)
        self.assertEqual(rc, 0, err)
        self.assertEqual(fig["sender"], (0, 0, 8 * MIB))
        # Datagrams may be dropped on a loaded loopback; whole ones arrive, and the close message ends the job.
        got = fig["receiver"][1]
        self.assertEqual(fig["receiver"][0], 0)
        self.assertTrue(0 < got <= 8 * MIB and got % 4096 == 0, got)
        # fio's sequence trailer counts the datagrams lost on the way (dropped= / drop_ios).
        drops = json.loads((self.tmp / "ioplan.json").read_text())["jobs"][0]["read"]["drop_ios"]
        self.assertLessEqual(got // 4096 + drops, 2048)
        if got < 8 * MIB:
            self.assertGreater(drops, 0)
        self.against_fio(pair("net", f"port={free_port()}\nprotocol=udp", receiver="", sender="hostname=127.0.0.1"),
                         8 * MIB)

    def test_udp_datagrams_lost_after_the_last_one_received_are_counted(self):
        # A receiver slower than its sender (rate=, a 16 KiB socket buffer) loses most of
        # a 512-datagram burst, the tail too: no later sequence number shows that loss, and
        # the receiver ended with 3 received and 0 dropped of 512 sent (fio 3.33 alike).
        text = pair("net", f"port={free_port()}\nprotocol=udp", receiver="rate=4m\nwindow_size=16k\nruntime=60",
                    sender="hostname=127.0.0.1", size="2m")
        rc, fig, err = self.run_job("ioplan", text)
        self.assertEqual(rc, 0, err)
        self.assertEqual(fig["sender"], (0, 0, 2 * MIB))
        read = json.loads((self.tmp / "ioplan.json").read_text())["jobs"][0]["read"]
        self.assertEqual(read["io_bytes"] // 4096 + read["drop_ios"], 512, read)

    def udp_receiver(self, port, *opts):
        """An ioplan UDP receiver of 64 KiB in 64-byte blocks on port, its JSON to r.json;
        returns the process once the port is bound."""
        recv = subprocess.Popen([BIN, "--name=r", "--ioengine=net", "--protocol=udp", f"--port={port}",
                                 "--bs=64", "--size=64k", "--rw=read", *opts, "--output-format=json",
                                 "--output=r.json"],
                                cwd=self.tmp, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        self.addCleanup(lambda: recv.poll() is None and (recv.kill(), recv.wait()))
        wait_until(lambda: recv.poll() is not None or port_listening(port, "udp"), 30, f"udp port {port}")
        return recv

    def test_a_udp_receiver_that_missed_the_close_ends_at_runtime_counting_the_tail(self):
        # A receiver held stopped while its sender runs has room for a few datagrams
        # (window_size=4k): the rest is lost, and the close message, as small as they
        # are (bs=64, as fio's multicast example), is lost with them.  It then ends
        # at runtime with what came, and the tail the socket dropped counts as lost less
        # that close message (CI saw this in the multicast example as EIO, "short read
        # (0 of 64 bytes)"; fio 3.33's main process gives up after 300 s, its job process
        # waits on).  runtime=10 leaves the sender, slow to start on a loaded machine,
        # time to end before it passes.
        port = free_port()
        recv = self.udp_receiver(port, "--window_size=4k", "--runtime=10")
        recv.send_signal(signal.SIGSTOP)
        try:
            p = run(["--name=s", "--ioengine=net", "--protocol=udp", f"--port={port}", "--hostname=127.0.0.1",
                     "--bs=64", "--size=64k", "--rw=write"], cwd=self.tmp)
        finally:
            recv.send_signal(signal.SIGCONT)
        self.assertEqual(p.returncode, 0, p.stderr)
        _, err = recv.communicate(timeout=60)
        self.assertEqual(recv.returncode, 0, err)
        read = json.loads((self.tmp / "r.json").read_text())["jobs"][0]["read"]
        self.assertGreater(read["drop_ios"], 0, read)
        self.assertEqual(read["io_bytes"] // 64 + read["drop_ios"], 1024, read)

    def test_an_empty_datagram_is_no_block_and_no_failure(self):
        # A stray sender's empty datagram among fio's (open, two blocks, close): fio 3.33
        # waits for the next datagram; ioplan failed the job, "short read (0 of 64 bytes)".
        port = free_port()
        recv = self.udp_receiver(port, "--runtime=60")
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            for d in (struct.pack("!II", 0x6C696E6B, 0x98), b"x" * 64, b"", b"y" * 64,
                      struct.pack("<II", 0x6C696E6B, 0x89)):
                s.sendto(d, ("127.0.0.1", port))
        _, err = recv.communicate(timeout=60)
        self.assertEqual(recv.returncode, 0, err)
        read = json.loads((self.tmp / "r.json").read_text())["jobs"][0]["read"]
        self.assertEqual((read["io_bytes"], read["total_ios"]), (128, 2), read)

    def test_unix_socket(self):
        sock = self.tmp / "net.sock"
        self.both_full(pair("net", f"protocol=unix\nhostname={sock}", receiver="", sender=""), 8 * MIB)
        # fio 3.33 fails this job: its sender's closing datagram on a connected stream is EISCONN (106).
        if FIO is not None:
            _, fig, _ = self.run_job("fio", pair("net", f"protocol=unix\nhostname={self.tmp / 'f.sock'}",
                                                 receiver="", sender=""))
            self.assertEqual(fig["sender"], (106, 0, 8 * MIB))

    def test_unix_listener_never_removes_a_file_that_is_not_a_socket(self):
        keep = self.tmp / "precious"
        keep.write_text("data")
        rc, fig, err = self.run_job("ioplan", f"[r]\nioengine=net\nprotocol=unix\nhostname={keep}\n"
                                               "rw=read\nsize=1m\nruntime=2\n")
        self.assertEqual(rc, 1)
        self.assertEqual(fig["r"][0], 17)  # EEXIST
        self.assertEqual(keep.read_text(), "data")

    @unittest.skipUnless(has_ipv6_loopback(), "no IPv6 loopback")
    def test_tcpv6(self):
        text = pair("net", f"port={free_port(socket.AF_INET6)}\nprotocol=tcpv6", sender="hostname=::1")
        self.both_full(text, 8 * MIB)
        self.against_fio(pair("net", f"port={free_port(socket.AF_INET6)}\nprotocol=tcpv6", sender="hostname=::1"),
                         8 * MIB)

    def test_pingpong_each_block_makes_a_round_trip(self):
        text = pair("net", f"port={free_port()}\npingpong\nnodelay=1\nwindow_size=256k\nmss=1400", size="1m")
        self.both_full(text, MIB)
        self.against_fio(pair("net", f"port={free_port()}\npingpong", size="1m"), MIB, receiver_whole=True)

    def test_the_receiver_verifies_each_block_the_sender_stamped(self):
        self.both_full(pair("net", f"port={free_port()}\nverify=crc32c", size="4m"), 4 * MIB)
        # Unstamped (random) data fails the receiver's check: the check is real, and as
        # fio's it ends the receiver at its first block (how much the sender wrote before
        # the connection closed is the sockets' buffers': fio 3.33's sender dies of SIGPIPE).
        rc, fig, err = self.run_job("ioplan", pair("net", f"port={free_port()}", size="4m",
                                                   receiver="listen\nverify=crc32c"))
        self.assertEqual((rc, fig["receiver"]), (1, (84, 4096, 0)), err)
        self.assertIn("offset 0: verify crc32c", err)

    def test_netsplice_with_blocks_larger_than_a_pipe(self):
        # 256k blocks through a 64k pipe: fio 3.33 hangs here (its splice waits on a full pipe).
        self.both_full(pair("netsplice", f"port={free_port()}", size="8m", bs="256k"), 8 * MIB)

    def test_a_netsplice_sender_whose_receiver_stops_reading_ends_with_runtime(self):
        # A peer that never reads (a listener nobody accepts from: the kernel takes the
        # connection and fills its buffers).  netsplice's splice into the blocking socket
        # waited for ever: runtime=1 and SIGINT alike left ioplan running (killed after
        # 30 s).  net's sends, which never block, already ended there.
        with socket.socket() as peer:
            peer.bind(("127.0.0.1", 0))
            peer.listen(1)
            port = peer.getsockname()[1]
            for engine in ("netsplice", "net"):
                with self.subTest(engine):
                    rc, fig, err = self.run_job("ioplan", f"[s]\nioengine={engine}\nhostname=127.0.0.1\n"
                                                          f"port={port}\nrw=write\nbs=64k\nsize=1g\n"
                                                          "runtime=1\ntime_based\n", timeout=60)
                    self.assertEqual((rc, fig["s"][0]), (0, 0), err)
                    self.assertGreater(fig["s"][2], 0)

    def test_numjobs_clones_use_consecutive_ports(self):
        # Both ports free: a test beside it took port + 1 once (EADDRINUSE in a make test run).
        port = free_ports(2)
        text = (f"[global]\nioengine=net\nbs=4k\nsize=1m\nport={port}\nnumjobs=2\ngroup_reporting\n"
                f"[receiver]\nlisten\nrw=read\n[sender]\nnew_group\nstartdelay=1\nhostname=localhost\nrw=write\n")
        rc, fig, err = self.run_job("ioplan", text)
        self.assertEqual(rc, 0, err)
        self.assertEqual(fig, {"receiver": (0, 2 * MIB, 0), "sender": (0, 0, 2 * MIB)})

    def test_connection_failures_are_fios_errors(self):
        # Nobody listening: ECONNREFUSED at run time, as fio.
        text = f"[s]\nioengine=net\nfilename=127.0.0.1\nport={free_port()}\nrw=write\nsize=1m\n"
        rc, fig, err = self.run_job("ioplan", text)
        self.assertEqual((rc, fig["s"][0]), (1, 111), err)
        if FIO is not None:
            self.assertEqual(self.run_job("fio", text)[1]["s"][0], 111)

    def test_a_name_that_does_not_resolve_is_refused_before_the_run(self):
        # fio 3.33 fails the job at run time with EINVAL; ioplan refuses it up front with the resolver's words.
        text = f"[s]\nioengine=net\nfilename=127.0.0.1,1,tcp\nport={free_port()}\nrw=write\nsize=1m\n"
        rc, fig, err = self.run_job("ioplan", text)
        self.assertEqual((rc, fig), (2, {}), err)
        self.assertIn("job 's': hostname=127.0.0.1,1,tcp: ", err)
        self.assertNotIn("Invalid argument", err)

    def test_a_receiver_nobody_connects_to_ends_with_runtime(self):
        t0 = time.monotonic()
        rc, fig, err = self.run_job("ioplan", f"[r]\nioengine=net\nport={free_port()}\nlisten\nrw=read\n"
                                               "size=1m\nruntime=1\n")
        self.assertLess(time.monotonic() - t0, 30)
        self.assertEqual((rc, fig["r"][0]), (1, 110))  # ETIMEDOUT
        self.assertIn("net: no peer within runtime", err)

    @unittest.skipUnless((FIO_EXAMPLES / "netio.fio").is_file(), "run `make fio-examples` first")
    def test_fio_example_netio_shrunk(self):
        text = (FIO_EXAMPLES / "netio.fio").read_text()
        text = text.replace("size=100g", "size=4m").replace("port=8888", f"port={free_port()}")
        self.both_full(text, 4 * MIB)

    def test_fio_receives_what_ioplan_sends(self):
        # The wire is fio's: fio 3.33 as the receiver, ioplan as the sender, over TCP and UDP.
        if FIO is None:
            self.skipTest("fio not installed")
        for proto in ("tcp", "udp"):
            with self.subTest(proto):
                port = free_port()
                recv = f"[r]\nioengine=net\nprotocol={proto}\nport={port}\nbs=4k\nsize=2m\nrw=read\n"
                recv += "listen\n" if proto == "tcp" else ""
                self.write("r.fio", recv)
                out = self.tmp / "r.json"
                fio = subprocess.Popen([FIO, "r.fio", "--output-format=json", f"--output={out}"], cwd=self.tmp,
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                # A sender that never comes (ioplan failed to start) leaves fio waiting.
                self.addCleanup(lambda f=fio: f.poll() is None and (f.kill(), f.wait()))
                wait_until(lambda: fio.poll() is not None or port_listening(port, proto), 30,
                           f"fio to listen on {proto} port {port}")
                p = run(["--name=s", "--ioengine=net", f"--protocol={proto}", f"--port={port}",
                         "--hostname=127.0.0.1", "--bs=4k", "--size=2m", "--rw=write"], cwd=self.tmp)
                self.assertEqual(fio.wait(timeout=60), 0)
                # fio's TCP receiver stops a few short reads early and closes with
                # the sender's last blocks unread: the kernel then resets the
                # connection under the sender, whose send fails (fio's sender too:
                # its net engine passes the failed send on as the I/O's error).  Which
                # error depends on when the reset arrives: ECONNRESET, or EPIPE when the
                # connection is already gone (seen at load 6).
                if p.returncode and proto == "tcp":
                    self.assertRegex(p.stderr, r"write: (Connection reset by peer \(errno 104\)|Broken pipe \(errno 32\))")
                else:
                    self.assertEqual(p.returncode, 0, p.stderr)
                err, got, _ = figures(out)["r"]
                self.assertEqual(err, 0)
                self.assertTrue(0 < got <= 2 * MIB, got)
                if proto == "tcp":
                    self.assertGreater(got, 2 * MIB - 64 * 4096)  # fio stops a few short reads early

    def net_side(self, who, name, proto, port, *opts):
        """The argv of one side of a 10 KiB pair of 4 KiB blocks, run by fio or ioplan."""
        return [FIO if who == "fio" else BIN, f"--name={name}", "--ioengine=net", f"--protocol={proto}",
                f"--port={port}", "--bs=4k", "--size=10k", *opts, "--output-format=json", f"--output={name}.json"]

    def test_a_pass_moves_its_last_block_past_size_as_fios(self):
        # A socket has no size: fio's setup leaves the target's real_file_size unknown (-1), so
        # the sequential pass issues a block while its offset is under size=, and a block
        # begun at 8k goes whole: size=10k bs=4k moves 12 KiB in 3 blocks each way, over TCP
        # and UDP, whichever tool is at either end.  ioplan moved 8 KiB, a region's whole blocks.
        if FIO is None:
            self.skipTest("fio not installed")
        for proto in ("tcp", "udp"):
            for recv_who, send_who in (("fio", "fio"), ("ioplan", "ioplan"), ("fio", "ioplan"), ("ioplan", "fio")):
                with self.subTest(proto=proto, receiver=recv_who, sender=send_who):
                    port = free_port()
                    recv = subprocess.Popen(self.net_side(recv_who, "r", proto, port, "--rw=read",
                                                          *(["--listen"] if proto == "tcp" else [])),
                                            cwd=self.tmp, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
                    # A sender that never comes leaves the receiver waiting.
                    self.addCleanup(lambda r=recv: r.poll() is None and (r.kill(), r.wait()))
                    wait_until(lambda: recv.poll() is not None or port_listening(port, proto), 30,
                               f"{recv_who} to listen on {proto} port {port}")
                    send = subprocess.run(self.net_side(send_who, "s", proto, port, "--rw=write",
                                                        "--hostname=127.0.0.1"),
                                          cwd=self.tmp, capture_output=True, text=True, timeout=60)
                    self.assertEqual(send.returncode, 0, send.stderr)
                    self.assertEqual(recv.wait(timeout=60), 0, recv.stderr.read())
                    got = {**figures(self.tmp / "r.json"), **figures(self.tmp / "s.json")}
                    self.assertEqual(got, {"r": (0, 12288, 0), "s": (0, 0, 12288)})

    @unittest.skipUnless((FIO_EXAMPLES / "netio_multicast.fio").is_file(), "run `make fio-examples` first")
    def test_fio_example_netio_multicast_shrunk(self):
        # UDP multicast on loopback: two readers join the group, one echoes each datagram back.
        text = (FIO_EXAMPLES / "netio_multicast.fio").read_text()
        text = text.replace("size=100m", "size=64k\nruntime=30").replace("port=10000", f"port={free_port()}")
        rc, fig, err = self.run_job("ioplan", text)
        self.assertEqual(rc, 0, err)
        # The writer waits for each echo of the pingpong reader, so those two move every
        # byte.  Nothing paces it to the normal reader: on a busy machine (the sanitizer
        # build under the test pool) that one can miss datagrams its socket had no room
        # for, and each one missed is counted (fio's dropped=), never lost from the sum.  When
        # the close message is among them it ends at runtime=30 with the same sum (CI, once).
        normal = self.normal_reader(self.tmp / "ioplan.json")
        self.assertEqual({k: v for k, v in fig.items() if k != "normal_reader"},
                         {"pingpong_reader": (0, 65536, 0), "pingpong_writer": (0, 0, 65536)})
        self.assertEqual(normal["error"], 0)
        self.assertGreater(normal["read"]["io_bytes"], 0)
        self.assertEqual(normal["read"]["io_bytes"] + 64 * normal["read"]["drop_ios"], 65536, normal["read"])

    @staticmethod
    def normal_reader(path):
        return next(j for j in json.loads(path.read_text())["jobs"] if j["jobname"] == "normal_reader")


class NetRefusals(TmpDirCase):
    CASES = {
        "random": ("[j]\nioengine=net\nport=9\nhostname=h\nrw=randwrite\nsize=1m\n",
                   "j.fio:5:4: error: job 'j': network I/O cannot be random (rw=randwrite)"),
        "udp_listen": ("[j]\nioengine=net\nport=9\nprotocol=udp\nlisten\nrw=read\nsize=1m\n",
                       "j.fio:5:1: error: job 'j': listen is for TCP only; a udp or unix job with rw=read receives"),
        "no_port": ("[j]\nioengine=net\nhostname=h\nrw=write\nsize=1m\n",
                    "j.fio:1:2: error: job 'j': the net engine needs port= for tcp or udp"),
        "no_host": ("[j]\nioengine=net\nport=9\nrw=write\nsize=1m\n",
                    "j.fio:1:2: error: job 'j': a sender needs hostname= (or filename=) to send to"),
        "listener_host": ("[j]\nioengine=net\nport=9\nlisten\nhostname=h\nrw=read\nsize=1m\n",
                          "j.fio:5:10: error: job 'j': a receiver takes no hostname (h)"),
        "port_elsewhere": ("[j]\nport=9\nrw=write\nsize=1m\n",
                           "j.fio:2:6: error: job 'j': port is an option of ioengine=net or netsplice, "
                           "not of ioengine=psync"),
        # fio 3.33: "Bad option <listen>"; the net engine's own options are its alone.
        "listen_elsewhere": ("[j]\nlisten\nrw=read\nsize=1m\n",
                             "j.fio:2:1: error: job 'j': listen is an option of ioengine=net,netsplice, "
                             "not of ioengine=psync"),
        "nbd_no_uri": ("[j]\nioengine=nbd\nrw=write\nsize=1m\n",
                       "j.fio:1:2: error: job 'j': ioengine=nbd needs uri= (the NBD server and export it writes to)"),
    }

    def test_fio_refusals_come_before_the_run_with_a_position(self):
        for name, (text, want) in self.CASES.items():
            with self.subTest(name):
                self.write("j.fio", text)
                p = run(["j.fio"], cwd=self.tmp)
                self.assertEqual(p.returncode, 2, p.stderr)
                self.assertTrue(p.stderr.startswith(want), p.stderr)

    def test_enghelp_lists_the_engines_and_their_options(self):
        p = run(["--enghelp"])
        for e in ("net", "netsplice", "nbd"):
            self.assertRegex(p.stdout, rf"(?m)^\t{e}(\t\(options: .*\))?$")
        net = run(["--enghelp=netsplice"]).stdout
        for o in ("hostname", "port", "protocol", "listen", "pingpong", "nodelay", "window_size", "mss"):
            self.assertRegex(net, rf"(?m)^{o} +: ")
        self.assertRegex(run(["--enghelp=nbd"]).stdout, r"(?m)^uri +: ")


@unittest.skipUnless(NBDKIT, "nbdkit not installed")
class Nbd(NetCase):
    def setUp(self):
        super().setUp()
        self.sock = self.tmp / "nbd.sock"
        self.server = subprocess.Popen([NBDKIT, "-U", str(self.sock), "-f", "memory", "256M"],
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_until(lambda: self.server.poll() is not None or self.sock.exists(), 30, "nbdkit's socket")
        self.env = {"unixsocket": str(self.sock)}

    def tearDown(self):
        self.server.terminate()
        self.server.wait(timeout=10)
        super().tearDown()

    JOB = ("[global]\nioengine=nbd\nuri=nbd+unix:///?socket=${unixsocket}\nbs=64k\nsize=8m\niodepth=16\n"
           "[write-verify]\nrw=randwrite\nverify=crc32c\n")

    def test_writes_and_reads_back_8_mib_verified_as_fio(self):
        rc, fig, err = self.run_job("ioplan", self.JOB, env=self.env)
        self.assertEqual(rc, 0, err)
        self.assertEqual(fig, {"write-verify": (0, 8 * MIB, 8 * MIB)})
        if not fio_has_nbd():
            self.skipTest("fio 3.33 without its nbd engine")
        self.assertEqual(self.run_job("fio", self.JOB, env=self.env)[1], fig)

    def test_the_read_back_finds_a_block_changed_on_the_server(self):
        text = ("[global]\nioengine=nbd\nuri=nbd+unix:///?socket=${unixsocket}\nbs=64k\nsize=8m\nrw=write\n"
                "[stamp]\nverify=crc32c\ndo_verify=0\n"
                "[clobber]\nstonewall\noffset=4m\nsize=64k\nzero_buffers\n"
                "[check]\nstonewall\nverify=crc32c\nverify_only=1\n")
        rc, fig, err = self.run_job("ioplan", text, env=self.env)
        self.assertEqual(rc, 1)
        self.assertEqual((fig["stamp"], fig["clobber"], fig["check"][0]), ((0, 0, 8 * MIB), (0, 0, 65536), 84))
        self.assertIn("offset 4194304: verify crc32c", err)

    def test_a_check_that_finds_a_mismatch_ends_the_job_before_another_write(self):
        # A server that loses its writes (nbdkit's null plugin reads zeroes back).
        # As fio's, the first check that fails ends the job: no later round or
        # write goes over what it found.  ioplan wrote all three rounds (768 KiB),
        # never read a round back through the engine, and at iodepth=8 made no
        # verify_backlog check before the end (256 KiB written).  Its read ends at
        # the first block, as fio's (it read the whole check back: 256 KiB).
        sock = self.tmp / "lossy.sock"
        server = subprocess.Popen([NBDKIT, "-U", str(sock), "-f", "null", "16M"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.addCleanup(lambda: (server.terminate(), server.wait(timeout=10)))
        wait_until(lambda: server.poll() is not None or sock.exists(), 30, "nbdkit's socket")
        base = "[v]\nioengine=nbd\nuri=nbd+unix:///?socket=${lossy}\nrw=write\nbs=4k\nsize=256k\nverify=crc32c\n"
        cases = [("loops=3\n", 256 << 10), ("verify_backlog=16\niodepth=8\n", 64 << 10),
                 ("verify_backlog=16\nloops=2\n", 64 << 10)]
        for who in ("ioplan",) + (("fio",) if fio_has_nbd() else ()):
            for extra, written in cases:
                with self.subTest(who=who, job=extra):
                    rc, fig, err = self.run_job(who, base + extra, env={"lossy": str(sock)})
                    self.assertEqual((rc, fig["v"][0]), (1, 84), err)
                    if who == "ioplan":
                        self.assertEqual((fig["v"][2], fig["v"][1]), (written, 4096))
                    elif "iodepth" in extra:
                        # fio's writes still in flight when the count is reached complete
                        # first: up to iodepth more, as many as the moment allows.
                        self.assertTrue(written <= fig["v"][2] <= written + 8 * 4096, fig)
                    else:
                        self.assertEqual(fig["v"][2], written)

    def test_a_verify_read_that_fails_ends_the_job_before_another_write(self):
        # Every read of this export fails (nbdkit's error filter).  As fio's, the
        # first verify read that fails ends the job, unless continue_on_error=read.
        # ioplan recorded the error and wrote on: 768 KiB and 256 KiB.
        sock = self.tmp / "eio.sock"
        server = subprocess.Popen([NBDKIT, "-U", str(sock), "-f", "--filter=error", "memory", "16M",
                                   "error-pread=EIO", "error-pread-rate=100%"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.addCleanup(lambda: (server.terminate(), server.wait(timeout=10)))
        wait_until(lambda: server.poll() is not None or sock.exists(), 30, "nbdkit's socket")
        base = "[v]\nioengine=nbd\nuri=nbd+unix:///?socket=${eio}\nrw=write\nbs=4k\nsize=256k\nverify=crc32c\n"
        cases = [("loops=3\n", 256 << 10), ("verify_backlog=16\n", 64 << 10)]
        for who in ("ioplan",) + (("fio",) if fio_has_nbd() else ()):
            for extra, written in cases:
                with self.subTest(who=who, job=extra):
                    rc, fig, err = self.run_job(who, base + extra, env={"eio": str(sock)})
                    self.assertEqual((rc, fig["v"][0], fig["v"][2]), (1, 5, written), err)
        rc, fig, err = self.run_job("ioplan", base + "loops=3\ncontinue_on_error=read\n", env={"eio": str(sock)})
        self.assertEqual((rc, fig["v"][2]), (1, 768 << 10), err)

    def test_trims_as_fio(self):
        job = "[t]\nioengine=nbd\nuri=nbd+unix:///?socket=${unixsocket}\nrw=randtrim\nbs=64k\nsize=8m\niodepth=8\n"
        rc, fig, err = self.run_job("ioplan", job, env=self.env)
        self.assertEqual(rc, 0, err)
        doc = json.loads((self.tmp / "ioplan.json").read_text())["jobs"][0]["trim"]
        self.assertEqual((doc["io_bytes"], doc["total_ios"]), (8 * MIB, 128))
        if fio_has_nbd():
            self.run_job("fio", job, env=self.env)
            ref = json.loads((self.tmp / "fio.json").read_text())["jobs"][0]["trim"]
            self.assertEqual((ref["io_bytes"], ref["total_ios"]), (doc["io_bytes"], doc["total_ios"]))

    def test_a_sync_is_the_exports_flush(self):
        # fio's nbd engine sends each sync as the export's flush: fsync=16 over 256
        # writes makes 15, end_fsync one more.  ioplan counted the 15 syncs and sent
        # no flush: the data was reported synced and never was.
        sock, log = self.tmp / "logged.sock", self.tmp / "nbd.log"
        server = subprocess.Popen([NBDKIT, "-U", str(sock), "-f", "--filter=log", "memory", "16M", f"logfile={log}"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.addCleanup(lambda: (server.terminate(), server.wait(timeout=10)))
        wait_until(lambda: server.poll() is not None or sock.exists(), 30, "nbdkit's socket")
        flushes = lambda: len(re.findall(r"\.\.\.Flush id=\d+ return=0", log.read_text()))  # noqa: E731
        job = ("[s]\nioengine=nbd\nuri=nbd+unix:///?socket=${logsock}\nrw=write\nbs=4k\nsize=1m\n"
               "fsync=16\nend_fsync=1\n")
        for who in ("ioplan",) + (("fio",) if fio_has_nbd() else ()):
            with self.subTest(who):
                before = flushes()
                rc, fig, err = self.run_job(who, job, env={"logsock": str(sock)})
                self.assertEqual((rc, fig), (0, {"s": (0, 0, MIB)}), err)
                doc = json.loads((self.tmp / f"{who}.json").read_text())["jobs"][0]
                self.assertEqual(doc["sync"]["total_ios"], 15)
                wait_until(lambda: flushes() - before >= 16, 10, "the flushes in nbdkit's log")
                self.assertEqual(flushes() - before, 16)

    def silent_server(self, op):
        """An nbdkit sh plugin export (1 MiB of zeroes, writes forgotten) whose `op`
        (flush, pread) never answers: it creates the file `hanging` and waits for
        nbdkit to end, which the cleanup's SIGKILL does (nbdkit would wait for it)."""
        plugin, sock = self.tmp / "silent.sh", self.tmp / "silent.sock"
        hang = f'touch {self.tmp}/hanging; while kill -0 $PPID 2>/dev/null; do sleep 0.05; done'
        plugin.write_text("#!/bin/sh\ncase \"$1\" in\n"
                          "get_size) echo 1048576 ;;\ncan_write|can_flush) exit 0 ;;\n"
                          f"pread) {hang if op == 'pread' else ':'}; head -c \"$3\" /dev/zero ;;\n"
                          "pwrite) cat >/dev/null ;;\n"
                          f"flush) {hang if op == 'flush' else ':'} ;;\n*) exit 2 ;;\nesac\n")
        plugin.chmod(0o755)
        server = subprocess.Popen([NBDKIT, "-U", str(sock), "-f", "sh", str(plugin)],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.addCleanup(lambda: (server.kill(), server.wait(timeout=10)))
        wait_until(lambda: server.poll() is not None or sock.exists(), 30, "nbdkit's socket")
        return {"silent": str(sock)}

    def test_a_flush_the_server_never_answers_ends_after_runtime(self):
        # libnbd's nbd_flush waits for ever: ioplan outlived runtime=1 by as long
        # as the server stayed silent (killed after 40 s), and a SIGINT did not end
        # it either.  Now the flush gets what I/Os in flight get after runtime,
        # 10 s, and the job ends with ETIMEDOUT and the writes it made.  (fio 3.33
        # waits for ever, SIGINT or not.)
        job = ("[w]\nioengine=nbd\nuri=nbd+unix:///?socket=${silent}\nrw=write\nbs=4k\nsize=64k\n"
               "fsync=4\nruntime=1\ntime_based\nrate_iops=100\n")
        rc, fig, err = self.run_job("ioplan", job, env=self.silent_server("flush"), timeout=60)
        self.assertEqual((rc, fig), (1, {"w": (110, 0, 16384)}), err)
        self.assertIn("fsync: the target did not answer the flush", err)

    def test_sigint_ends_a_verify_read_the_server_never_answers(self):
        # libnbd's nbd_pread waits for ever: a verify read-back the server never
        # answered held ioplan past SIGINT (killed after 30 s).  Now a stop gives
        # it 1 s, as the I/Os in flight, and the writes are reported.
        self.write("v.fio", "[v]\nioengine=nbd\nuri=nbd+unix:///?socket=${silent}\nrw=write\nbs=4k\n"
                            "size=64k\nverify=crc32c\n")
        out = self.tmp / "v.json"
        proc = subprocess.Popen([BIN, "v.fio", "--output-format=json", f"--output={out}"], cwd=self.tmp,
                                env={**os.environ, **self.silent_server("pread")},
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        _, err = communicate_after(proc, lambda: wait_until(lambda: (self.tmp / "hanging").exists() or
                                                            proc.poll() is not None, 30,
                                                            "the verify read to reach the server"),
                                   lambda: proc.send_signal(signal.SIGINT), timeout=30)
        self.assertEqual((proc.returncode, figures(out)), (1, {"v": (110, 0, 65536)}), err)
        self.assertIn("verify read: the target did not answer", err)

    def test_without_size_the_export_bounds_the_job(self):
        rc, fig, err = self.run_job("ioplan", "[r]\nioengine=nbd\nuri=nbd+unix:///?socket=${unixsocket}\n"
                                               "rw=read\nbs=1m\noffset=200m\n", env=self.env)
        self.assertEqual((rc, fig), (0, {"r": (0, 56 * MIB, 0)}), err)

    def test_a_pass_reads_on_into_the_export_past_size_as_fios(self):
        # fio's real_file_size of an export is the export's size, so a sequential block begun
        # under size= goes whole as in a larger file: size=10k bs=4k moves 12 KiB in 3 blocks
        # (ioplan moved 8 KiB), and rw=read:4k reads 0 and 8k (8 KiB; ioplan read 4 KiB).
        job = "[global]\nioengine=nbd\nuri=nbd+unix:///?socket=${unixsocket}\nbs=4k\nsize=10k\n"
        job += "[w]\nrw=write\n[r]\nrw=read\nstonewall\n[h]\nrw=read:4k\nstonewall\n"
        rc, fig, err = self.run_job("ioplan", job, env=self.env)
        self.assertEqual(rc, 0, err)
        self.assertEqual(fig, {"w": (0, 0, 12288), "r": (0, 12288, 0), "h": (0, 8192, 0)})
        if not fio_has_nbd():
            self.skipTest("fio 3.33 without its nbd engine")
        self.assertEqual(self.run_job("fio", job, env=self.env)[1], fig)

    @unittest.skipUnless((FIO_EXAMPLES / "nbd.fio").is_file(), "run `make fio-examples` first")
    def test_fio_example_nbd_shrunk(self):
        text = (FIO_EXAMPLES / "nbd.fio").read_text().replace("runtime=60", "runtime=1")
        rc, fig, err = self.run_job("ioplan", text, env=self.env)
        self.assertEqual(rc, 0, err)
        self.assertEqual(list(fig), ["job0"])  # group_reporting: one merged job
        self.assertEqual(fig["job0"][0], 0)
        self.assertGreater(fig["job0"][1] + fig["job0"][2], 0)


def libnbd_path():
    """The file the loader opens for libnbd.so.0, or None."""
    p = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True)
    m = re.search(r"^\s*libnbd\.so\.0 \(.*x86-64.*\) => (\S+)$", p.stdout, re.M)
    return os.path.realpath(m.group(1)) if m else None


class NbdLibrary(TmpDirCase):
    """libnbd is opened when a run asks for the nbd engine, not at every start."""

    def test_start_up_does_not_load_libnbd_and_an_nbd_job_does(self):
        loaded = lambda p: [ln for ln in p.stderr.splitlines() if "calling init:" in ln]  # noqa: E731
        p = run(["--version"], env={"LD_DEBUG": "files"})
        self.assertEqual(p.returncode, 0, p.stderr[-2000:])
        inits = loaded(p)
        self.assertTrue(any("libc.so" in ln for ln in inits), inits)  # LD_DEBUG was read
        self.assertFalse([ln for ln in inits if "libnbd" in ln or "gnutls" in ln], inits)
        # A job of the engine opens it: an unreachable export is refused after that.
        if "unavailable" in next(ln for ln in run(["--enghelp"]).stdout.splitlines() if ln.split()[:1] == ["nbd"]):
            self.skipTest("this build or machine has no libnbd")
        self.write("j.fio", f"[n]\nioengine=nbd\nuri=nbd+unix:///?socket={self.tmp}/none.sock\nsize=1m\n")
        p = run(["j.fio"], cwd=self.tmp, env={"LD_DEBUG": "files"})
        self.assertNotEqual(p.returncode, 0)
        self.assertTrue([ln for ln in loaded(p) if "libnbd.so.0" in ln], p.stderr[-3000:])

    def replaced(self, by, *args):
        """ioplan in a mount namespace of its own where libnbd.so.0 is the file `by`."""
        if not (os.geteuid() == 0 and shutil.which("unshare")):
            self.skipTest("needs root and unshare(1)")
        lib = libnbd_path()
        if not lib:
            self.skipTest("no libnbd.so.0 on this machine")
        script = 'mount --bind "$1" "$2" && shift 2 && exec "$@"'
        return subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c", script, "sh",
                               str(by), lib, BIN, *args], cwd=self.tmp, capture_output=True, text=True, timeout=120)

    def test_without_libnbd_the_engine_is_unavailable_and_the_others_run(self):
        def hidden(*args):
            return self.replaced("/dev/null", *args)

        p = hidden("--enghelp")
        self.assertEqual(p.returncode, 0, p.stderr)
        line = next(ln for ln in p.stdout.splitlines() if ln.split() and ln.split()[0] == "nbd")
        self.assertIn("unavailable", line)
        self.assertIn("libnbd.so.0", line)
        self.write("n.fio", f"[n]\nioengine=nbd\nuri=nbd+unix:///?socket={self.tmp}/none.sock\nsize=1m\n")
        p = hidden("n.fio")
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertRegex(p.stderr, r"job 'n': ioengine=nbd is unavailable: .*libnbd\.so\.0")
        p = hidden("--name=z", "--ioengine=null", "--size=1m", "--output-format=terse")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertTrue(p.stdout.startswith("3;"), p.stdout)

    @unittest.skipUnless(shutil.which("cc"), "no C compiler to build a stand-in library")
    def test_a_libnbd_without_its_calls_is_named_and_refused(self):
        # A library of that name that loads but is not libnbd (another build, a stray file).
        (self.tmp / "empty.c").write_text("int not_libnbd;\n")
        fake = self.tmp / "fake.so"
        subprocess.run(["cc", "-shared", "-fPIC", "-o", str(fake), str(self.tmp / "empty.c")], check=True)
        self.write("n.fio", f"[n]\nioengine=nbd\nuri=nbd+unix:///?socket={self.tmp}/none.sock\nsize=1m\n")
        p = self.replaced(fake, "n.fio")
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("job 'n': ioengine=nbd is unavailable: libnbd.so.0 has no nbd_create (see --enghelp)", p.stderr)


if __name__ == "__main__":
    unittest.main()
