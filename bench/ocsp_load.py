#!/usr/bin/env python3
"""OCSP load for bench/ocsp_speed.sh: POSTs the request files given, round
robin, COUNT times over THREADS connections at once, one connection per
request (HTTP/1.0), and prints how many came back 200 with an
OCSPResponse that says successful. With --keep-alive first, HTTP/1.1 asking
for persistent connections: a connection is used again while the server
keeps it open (Content-Length framing), opened anew when it closes it.
usage: ocsp_load.py [--keep-alive] PORT COUNT THREADS REQ.der..."""
import socket
import sys
import threading

args = sys.argv[1:]
keep_alive = args[:1] == ["--keep-alive"]
if keep_alive:
    args = args[1:]
port, count, threads = int(args[0]), int(args[1]), int(args[2])
reqs = [open(p, "rb").read() for p in args[3:]]
version = b"HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive" if keep_alive else b"HTTP/1.0"
msgs = [b"POST / " + version + b"\r\nContent-Type: application/ocsp-request\r\n"
        b"Content-Length: %d\r\n\r\n" % len(r) + r for r in reqs]
lock = threading.Lock()
state = {"next": 0, "ok": 0}


def successful(head, body):
    # 200, and an OCSPResponse SEQUENCE (2- or 4-byte header) whose
    # responseStatus ENUMERATED is 0
    return head.split(b" ")[1:2] == [b"200"] and b"\x0a\x01\x00" in (body[2:5], body[4:7])


def exchange(s, msg):
    """One request on s: (head, body, whether s stays open)."""
    s.sendall(msg)
    data = b""
    while b"\r\n\r\n" not in data:
        b = s.recv(65536)
        if not b:
            return data, b"", False
        data += b
    head, _, body = data.partition(b"\r\n\r\n")
    fields = {k.strip().lower(): v.strip().lower() for k, _, v in
              (line.partition(b":") for line in head.split(b"\r\n")[1:])}
    if keep_alive and b"content-length" in fields:
        n = int(fields[b"content-length"])
        while len(body) < n:
            b = s.recv(65536)
            if not b:
                return head, body, False
            body += b
        return head, body, fields.get(b"connection") != b"close"
    while True:
        b = s.recv(65536)
        if not b:
            return head, body, False
        body += b


def worker():
    s = None
    while True:
        with lock:
            i = state["next"]
            if i >= count:
                break
            state["next"] = i + 1
        for attempt in (1, 2):
            if s is None:
                s = socket.create_connection(("127.0.0.1", port), timeout=30)
            try:
                head, body, still_open = exchange(s, msgs[i % len(msgs)])
            except (ConnectionResetError, BrokenPipeError):
                head, body, still_open = b"", b"", False
            if head or attempt == 2 or not keep_alive:
                break
            s.close()  # a kept connection the server had closed: once more on a new one
            s = None
        if not still_open:
            s.close()
            s = None
        if successful(head, body):
            with lock:
                state["ok"] += 1
    if s is not None:
        s.close()


ts = [threading.Thread(target=worker) for _ in range(threads)]
for t in ts:
    t.start()
for t in ts:
    t.join()
print(state["ok"])
