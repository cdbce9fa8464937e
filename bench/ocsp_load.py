#!/usr/bin/env python3
"""OCSP load for bench/ocsp_speed.sh: POSTs the request files given, round
robin, COUNT times over THREADS connections at once, one connection per
request (HTTP/1.0, what `openssl ocsp -port` serves), and prints how many
came back 200 with an OCSPResponse that says successful.
usage: ocsp_load.py PORT COUNT THREADS REQ.der..."""
import socket
import sys
import threading

port, count, threads = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
reqs = [open(p, "rb").read() for p in sys.argv[4:]]
msgs = [b"POST / HTTP/1.0\r\nContent-Type: application/ocsp-request\r\n"
        b"Content-Length: %d\r\n\r\n" % len(r) + r for r in reqs]
lock = threading.Lock()
state = {"next": 0, "ok": 0}


def successful(head, body):
    # 200, and an OCSPResponse SEQUENCE (2- or 4-byte header) whose
    # responseStatus ENUMERATED is 0
    return head.split(b" ")[1:2] == [b"200"] and b"\x0a\x01\x00" in (body[2:5], body[4:7])


def worker():
    while True:
        with lock:
            i = state["next"]
            if i >= count:
                break
            state["next"] = i + 1
        s = socket.create_connection(("127.0.0.1", port), timeout=30)
        s.sendall(msgs[i % len(msgs)])
        data = b""
        while True:
            b = s.recv(65536)
            if not b:
                break
            data += b
        s.close()
        head, _, body = data.partition(b"\r\n\r\n")
        if successful(head, body):
            with lock:
                state["ok"] += 1


ts = [threading.Thread(target=worker) for _ in range(threads)]
for t in ts:
    t.start()
for t in ts:
    t.join()
print(state["ok"])
