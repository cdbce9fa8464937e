#!/usr/bin/env python3
"""The driver of bench/tls_mem.sh: memory per connection of `gostx tls serve`
and `gostx tls connect`, measured from outside.

One chain on loopback, each proxy with one worker:
  plain client -> gostx tls connect -> (TLS 1.3) -> gostx tls serve -> plain backend
both ends in this process. N connections are opened (each pair found by an
8-byte id the client sends), then each moves SIZE bytes both ways, BATCH
connections at a time, and all stay open, idle. The resident memory of both
proxies (VmRSS in /proc/PID/status) is read at start, once all N are open
(idle after the handshake) and after the traffic (idle again); per connection
is (that - start) / N.
  usage: tls_mem.py GOSTX PKI N [SIZE [BATCH]]
Prints one line per proxy: "serve idle B traffic B" (bytes per connection).
"""
import os
import resource
import selectors
import socket
import subprocess
import sys
import tempfile
import time

G, PKI, N = sys.argv[1], sys.argv[2], int(sys.argv[3])
SIZE = int(sys.argv[4]) if len(sys.argv) > 4 else 256 * 1024
BATCH = int(sys.argv[5]) if len(sys.argv) > 5 else 8
TIMEOUT = 60


def rss(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmRSS")


def start(args, log):
    """A proxy started, its listening port read from its log."""
    err = open(log, "w")
    p = subprocess.Popen([G, "tls"] + args + ["--threads", "1", "--listen", "127.0.0.1:0"],
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err)
    for _ in range(400):
        text = open(log).read()
        if "listening on" in text:
            port = int(text.split("listening on", 1)[1].split(",")[0].rsplit(":", 1)[1])
            return p, port
        if p.poll() is not None:
            break
        time.sleep(0.025)
    p.kill()
    sys.exit(f"tls_mem: {args[0]} did not start: {open(log).read()}")


def recv_exact(s, n):
    got = b""
    while len(got) < n:
        chunk = s.recv(n - len(got))
        if not chunk:
            raise RuntimeError("closed early")
        got += chunk
    return got


def open_all(cport, backend):
    """N pairs (client, backend side), paired by id."""
    pairs = []
    for at in range(0, N, 64):
        clients = []
        for i in range(at, min(N, at + 64)):
            c = socket.create_connection(("127.0.0.1", cport), timeout=TIMEOUT)
            c.sendall(i.to_bytes(8, "big"))
            clients.append(c)
        byid = {}
        for _ in clients:
            b, _addr = backend.accept()
            b.settimeout(TIMEOUT)
            byid[int.from_bytes(recv_exact(b, 8), "big")] = b
        for i, c in enumerate(clients, at):
            byid[i].sendall(b"ok")
            if recv_exact(c, 2) != b"ok":
                raise RuntimeError("pairing")
            pairs.append((c, byid[i]))
    return pairs


def move(batch):
    """SIZE bytes each way through each pair of batch, at once."""
    sel = selectors.DefaultSelector()
    data = b"\x5a" * 65536
    state = {}
    for c, b in batch:
        for s in (c, b):
            s.setblocking(False)
            state[s] = [SIZE, SIZE]  # to send, to receive
            sel.register(s, selectors.EVENT_READ | selectors.EVENT_WRITE)
    live = len(state)
    deadline = time.time() + TIMEOUT
    while live:
        if time.time() > deadline:
            raise RuntimeError("traffic timed out")
        for key, ev in sel.select(1):
            s, st = key.fileobj, state[key.fileobj]
            if ev & selectors.EVENT_WRITE and st[0]:
                try:
                    st[0] -= s.send(data[: min(len(data), st[0])])
                except BlockingIOError:
                    pass
            if ev & selectors.EVENT_READ and st[1]:
                try:
                    got = s.recv(65536)
                except BlockingIOError:
                    got = None
                if got == b"":
                    raise RuntimeError("closed in the traffic")
                if got:
                    st[1] -= len(got)
            want = (selectors.EVENT_WRITE if st[0] else 0) | (selectors.EVENT_READ if st[1] else 0)
            if not want:
                sel.unregister(s)
                live -= 1
            elif want != key.events:
                sel.modify(s, want)
    sel.close()


def main():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    if hard < 2 * N + 64:
        sys.exit(f"tls_mem: {2 * N + 64} descriptors needed, {hard} allowed (ulimit -n)")
    tmp = tempfile.mkdtemp()
    backend = socket.socket()
    backend.bind(("127.0.0.1", 0))
    backend.listen(4096)
    backend.settimeout(TIMEOUT)
    serve, sport = start(["serve", "--backend", f"127.0.0.1:{backend.getsockname()[1]}",
                          "--cert", f"{PKI}/chain-256A.pem", "--key", f"{PKI}/leaf-256A.key"],
                         f"{tmp}/serve.log")
    connect, cport = start(["connect", "--upstream", f"127.0.0.1:{sport}", "--ca",
                            f"{PKI}/ca.pem", "--servername", "localhost"], f"{tmp}/connect.log")
    try:
        procs = {"serve": serve.pid, "connect": connect.pid}
        base = {k: rss(p) for k, p in procs.items()}
        pairs = open_all(cport, backend)
        time.sleep(0.5)
        idle = {k: rss(p) for k, p in procs.items()}
        for at in range(0, N, BATCH):
            move(pairs[at:at + BATCH])
        time.sleep(0.5)
        after = {k: rss(p) for k, p in procs.items()}
        for k in procs:
            print(f"{k} idle {(idle[k] - base[k]) // N} traffic {(after[k] - base[k]) // N}")
        for c, b in pairs:
            c.close()
            b.close()
    finally:
        serve.terminate()
        connect.terminate()
        serve.wait()
        connect.wait()


main()
