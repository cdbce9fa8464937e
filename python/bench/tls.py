"""gostx.tls against the C paths (issue 60's speed targets), in one run:

1. Bulk, 16 KiB records: a Python server process seals MIB MiB in 16 KiB
   sendall calls (one full record each) to a receiver, which opens every
   record into a 16 KiB buffer and checks it: a Python gostx.tls client
   process, or `gostx tls client` (the C path; its output to /dev/null).
   The library to library figures of build/bench/tls_bulk (16 KiB writes,
   the same suite) stand beside them. Each side counts its own CPU time
   (user + system) from the end of the handshake (Python) or over its
   whole life (`gostx tls client`, from wait4: its start and handshake
   included, ~1 % of a 128 MiB run, against it), and MB per CPU-second is
   the figure: what one busy core does, however loaded the machine.
   Server on CPU 0, receiver on CPU 1.
2. Handshakes: full TLS 1.3 handshakes (connect, handshake without
   verifying the server, close_notify, close) against `gostx tls serve
   --threads 1` (CPU 0), one after another for SECONDS, from a Python
   process and from build/bench/tls_hs_load with one thread (CPU 1), each
   counted per second of the client's own CPU time.

Rounds alternate the Python and C sides; medians of ROUNDS. Needs build/
(gostx, bench/tls_bulk, bench/tls_hs_load) and openssl with gost-engine
for the test PKI (tests/support/gost_pki.sh, kept beside build/gostx as
the tests keep it).
    usage: python python/bench/tls.py [--mib 128] [--rounds 5] [--seconds 3]
           [--suite KUZNYECHIK_MGM_L]"""
import argparse
import json
import os
import platform
import resource
import socket
import statistics
import subprocess
import sys
import threading
import time

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = os.environ.get("BUILD", os.path.join(REPO, "build"))
GOSTX = os.path.join(BUILD, "gostx")
PKI = os.path.join(BUILD, "test-pki-tls") + "/"
RECORD = 16384


def _pin(cpu):
    if cpu < os.cpu_count():
        os.sched_setaffinity(0, {cpu})


def _pattern():
    """Two records' worth of a fixed pattern: any record-sized slice at an
    offset modulo RECORD is contiguous in it."""
    one = bytes((i * 131 + 7) & 0xFF for i in range(RECORD))
    return one, memoryview(one + one)


# ---- the roles, each run in its own process (python tls.py --role ...) ----

def role_send(args):
    """Serve one connection: MIB MiB in 16 KiB sendall calls, then close_notify."""
    from gostx import tls
    _pin(0)
    ctx = tls.Context(tls.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(PKI + "chain-256A.pem", PKI + "leaf-256A.key")
    ctx.set_ciphers(args.suite)
    lsock = socket.create_server(("127.0.0.1", 0))
    print(lsock.getsockname()[1], flush=True)
    raw, _ = lsock.accept()
    with ctx.wrap_socket(raw, server_side=True) as conn:
        one, _ = _pattern()
        t0 = time.process_time()
        for _ in range(args.mib * (1 << 20) // RECORD):
            conn.sendall(one)
        conn.shutdown(socket.SHUT_WR)  # close_notify
        conn.recv(1)  # the receiver's close: every record is in
        cpu = time.process_time() - t0
    print(json.dumps({"send_cpu": cpu}), flush=True)


def role_recv(args):
    """Receive to close_notify into a 16 KiB buffer, each record checked."""
    from gostx import tls
    _pin(1)
    ctx = tls.create_default_context(cafile=PKI + "ca.pem")
    raw = socket.create_connection(("127.0.0.1", args.port))
    with ctx.wrap_socket(raw, server_hostname="localhost") as s:
        _, twice = _pattern()
        buf = bytearray(RECORD)
        got = 0
        t0 = time.process_time()
        while True:
            n = s.recv_into(buf)
            if not n:
                break
            at = got % RECORD
            # bytearray against memoryview: one memcmp (memoryview against
            # memoryview compares item by item, 25 us a record)
            if (buf if n == RECORD else buf[:n]) != twice[at:at + n]:
                sys.exit(f"recv: bytes differ at {got}")
            got += n
        cpu = time.process_time() - t0
    print(json.dumps({"recv_cpu": cpu, "bytes": got}), flush=True)


def role_handshakes(args):
    """Full handshakes one after another for SECONDS: count and CPU time."""
    from gostx import tls
    _pin(1)
    ctx = tls.Context(tls.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False  # as tls_hs_load: the server is not verified
    ctx.verify_mode = tls.CERT_NONE
    n = 0
    t0, until = time.process_time(), time.monotonic() + args.seconds
    while time.monotonic() < until:
        raw = socket.create_connection(("127.0.0.1", args.port))
        ctx.wrap_socket(raw).close()  # close sends close_notify
        n += 1
    print(json.dumps({"handshakes": n, "cpu": time.process_time() - t0}), flush=True)


# ---- the driver ----

def _role(name, args, *extra):
    return subprocess.Popen([sys.executable, __file__, "--role", name, "--mib", str(args.mib),
                             "--seconds", str(args.seconds), "--suite", args.suite, *extra],
                            stdout=subprocess.PIPE, text=True)


def _run_cpu(cmd, cpu, **kw):
    """cmd pinned to cpu: (its stdout, its user + system CPU seconds)."""
    p = subprocess.Popen(cmd, preexec_fn=lambda: _pin(cpu), **kw)
    _, status, usage = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    out = p.stdout.read() if p.stdout else ""
    if p.returncode:
        sys.exit(f"{cmd[0]} failed ({p.returncode})")
    return out, usage.ru_utime + usage.ru_stime


def bulk_round(args, receiver):
    """One transfer from a Python server: (sender MB/CPU-s, receiver MB/CPU-s)."""
    server = _role("send", args)
    port = server.stdout.readline().strip()
    mb = args.mib * (1 << 20) / 1e6
    if receiver == "python":
        client = _role("recv", args, "--port", port)
        r = json.loads(client.stdout.readline())
        client.wait()
        assert r["bytes"] == args.mib << 20, r
        recv = mb / r["recv_cpu"]
    else:
        cmd = [GOSTX, "tls", "client", f"127.0.0.1:{port}", "--ca", PKI + "ca.pem",
               "--servername", "localhost", "--suites", args.suite]
        with open(os.devnull, "w") as null:
            _, cpu = _run_cpu(cmd, 1, stdin=subprocess.DEVNULL, stdout=null,
                              stderr=subprocess.DEVNULL)
        recv = mb / cpu
    s = json.loads(server.stdout.readline())
    server.wait()
    return mb / s["send_cpu"], recv


def tls_bulk_round(args):
    """build/bench/tls_bulk, 16 KiB writes: (send, recv) MB/CPU-s."""
    out = subprocess.run([os.path.join(BUILD, "bench", "tls_bulk"), PKI + "chain-256A.pem",
                          PKI + "leaf-256A.key", args.suite, str(args.mib), str(RECORD)],
                         capture_output=True, text=True, check=True).stdout.split()
    return float(out[out.index("send_MB_per_cpu_s") + 1]), float(out[out.index("recv_MB_per_cpu_s") + 1])


def _backend():
    """A backend for serve that takes each connection and closes it."""
    lsock = socket.create_server(("127.0.0.1", 0), backlog=256)

    def run():
        while True:
            try:
                lsock.accept()[0].close()
            except OSError:
                return

    threading.Thread(target=run, daemon=True).start()
    return lsock


def _start_serve(backend_port):
    p = subprocess.Popen([GOSTX, "tls", "serve", "--threads", "1", "--listen", "127.0.0.1:0",
                          "--backend", f"127.0.0.1:{backend_port}", "--cert",
                          PKI + "chain-256A.pem", "--key", PKI + "leaf-256A.key"],
                         preexec_fn=lambda: _pin(0), stdin=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True)
    line = p.stderr.readline()
    # the rest drained: serve logs each connection, and a full pipe stops it
    threading.Thread(target=p.stderr.read, daemon=True).start()
    return p, line.split("listening on ")[1].split(",")[0].rsplit(":", 1)[1]


def handshake_round(args, port, side):
    """Handshakes per client CPU-second (and per wall second)."""
    if side == "python":
        p = _role("handshakes", args, "--port", port)
        r = json.loads(p.stdout.readline())
        p.wait()
        return r["handshakes"] / r["cpu"], r["handshakes"] / args.seconds
    out, cpu = _run_cpu([os.path.join(BUILD, "bench", "tls_hs_load"), "127.0.0.1", port,
                         str(args.seconds), "1"], 1, stdout=subprocess.PIPE, text=True)
    n = int(out.split()[1])
    return n / cpu, n / args.seconds


def _cpu_name():
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor()


def main(args):
    subprocess.run(["flock", PKI.rstrip("/") + ".lock", "bash",
                    os.path.join(REPO, "tests/support/gost_pki.sh"), PKI.rstrip("/")], check=True)
    import gostx
    print(f"CPU: {_cpu_name()}, {os.cpu_count()} CPUs ({gostx.implementations()}); load average "
          f"{os.getloadavg()[0]:.1f}; suite {args.suite}; {args.mib} MiB per transfer; "
          f"medians of {args.rounds} rounds")
    rows = {k: [] for k in ("py_send", "py_recv", "cli_recv", "lib_send", "lib_recv",
                            "py_hs", "c_hs", "py_hs_wall", "c_hs_wall")}
    backend = _backend()
    serve, port = _start_serve(backend.getsockname()[1])
    try:
        for _ in range(args.rounds):
            s, r = bulk_round(args, "python")
            rows["py_send"].append(s)
            rows["py_recv"].append(r)
            _, r = bulk_round(args, "cli")
            rows["cli_recv"].append(r)
            s, r = tls_bulk_round(args)
            rows["lib_send"].append(s)
            rows["lib_recv"].append(r)
            for side, key in (("python", "py_hs"), ("c", "c_hs")):
                cpu_rate, wall_rate = handshake_round(args, port, side)
                rows[key].append(cpu_rate)
                rows[key + "_wall"].append(wall_rate)
    finally:
        serve.kill()
        serve.wait()
        backend.close()
    med = {k: statistics.median(v) for k, v in rows.items()}
    print(f"load average at the end {os.getloadavg()[0]:.1f}")
    print("16 KiB records, MB per CPU-second (median):")
    print(f"  receive: Python {med['py_recv']:.1f}, gostx tls client {med['cli_recv']:.1f} "
          f"-> {med['py_recv'] / med['cli_recv']:.2f}x (target >= 0.8x); "
          f"library (tls_bulk) {med['lib_recv']:.1f} -> {med['py_recv'] / med['lib_recv']:.2f}x")
    print(f"  send:    Python {med['py_send']:.1f}, library (tls_bulk) {med['lib_send']:.1f} "
          f"-> {med['py_send'] / med['lib_send']:.2f}x")
    print("full TLS 1.3 handshakes per second of the client's CPU (median; wall beside):")
    print(f"  Python {med['py_hs']:.0f} ({med['py_hs_wall']:.0f}/s wall), tls_hs_load "
          f"{med['c_hs']:.0f} ({med['c_hs_wall']:.0f}/s wall) -> "
          f"{med['py_hs'] / med['c_hs']:.2f}x (target >= 0.7x)")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mib", type=int, default=128)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--suite", default="KUZNYECHIK_MGM_L")
    ap.add_argument("--role", choices=("send", "recv", "handshakes"), help=argparse.SUPPRESS)
    ap.add_argument("--port", type=int, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.role:
        {"send": role_send, "recv": role_recv, "handshakes": role_handshakes}[a.role](a)
    else:
        main(a)
