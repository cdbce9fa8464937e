#!/usr/bin/env python3
"""Connections kept moving data across an event: `inflight.py PORT N READY
GO` opens N connections to 127.0.0.1:PORT (an echo behind it), sends each
64 KiB of random bytes and reads them back, creates the file READY, then
goes on sending 1 KiB a connection every 20 ms until the file GO exists,
sends 64 KiB more, ends each with a half-close and reads to its end. With
--churn=K, each of those 20 ms rounds also opens K new connections (so
handshakes are under way whenever the event comes), each then treated as
the first N. Every connection must get back exactly what it sent. Prints
`complete K of M` (M: all it opened; for each one that failed, why);
exits 0 when K == M. Gives up after --timeout seconds (default 60), times the load scale."""
import os
import selectors
import socket
import sys
import time
sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from gostx_test_time import bound  # noqa: E402 (the waits' scale, also when run by hand)


class Conn:
    def __init__(self, port):
        self.s = socket.create_connection(("127.0.0.1", port), timeout=bound(10))
        self.s.setblocking(False)
        self.sent = bytearray()
        self.out = bytearray()  # queued, not yet sent
        self.got = bytearray()
        self.eof = False
        self.why = None

    def queue(self, n):
        b = os.urandom(n)
        self.sent += b
        self.out += b


def pump(sel, conns, until, deadline):
    """Moves data until until() holds (or the deadline passes)."""
    while not until():
        if time.monotonic() > deadline:
            raise TimeoutError
        for c in conns:
            ev = selectors.EVENT_READ | (selectors.EVENT_WRITE if c.out else 0)
            if not c.eof and not c.why:
                sel.modify(c.s, ev, c)
        for key, mask in sel.select(0.05):
            c = key.data
            try:
                if mask & selectors.EVENT_WRITE and c.out:
                    n = c.s.send(c.out)
                    del c.out[:n]
                if mask & selectors.EVENT_READ:
                    b = c.s.recv(65536)
                    if b:
                        c.got += b
                    else:
                        c.eof = True
                        sel.unregister(c.s)
            except BlockingIOError:
                pass
            except OSError as e:
                c.why = str(e)
                sel.unregister(c.s)


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    opt = lambda name, default: float(next((a[len(name) + 3:] for a in sys.argv[1:]
                                            if a.startswith(f"--{name}=")), default))
    timeout, churn = bound(opt("timeout", 60)), int(opt("churn", 0))
    port, n, ready, go = int(args[0]), int(args[1]), args[2], args[3]
    deadline = time.monotonic() + timeout
    conns = [Conn(port) for _ in range(n)]
    sel = selectors.DefaultSelector()
    for c in conns:
        sel.register(c.s, selectors.EVENT_READ, c)
        c.queue(65536)
    live = lambda: [c for c in conns if not c.why and not c.eof]
    echoed = lambda: all(len(c.got) == len(c.sent) for c in live())
    try:
        pump(sel, conns, echoed, deadline)
        open(ready, "w").close()
        while not os.path.exists(go):
            for c in live():
                c.queue(1024)
            for _ in range(churn):
                c = Conn(port)
                sel.register(c.s, selectors.EVENT_READ, c)
                c.queue(1024)
                conns.append(c)
            pump(sel, conns, lambda: all(not c.out for c in live()), deadline)
            time.sleep(0.02)
        for c in live():
            c.queue(65536)
        pump(sel, conns, lambda: all(not c.out for c in live()), deadline)
        for c in live():
            c.s.shutdown(socket.SHUT_WR)
        pump(sel, conns, lambda: not live(), deadline)
    except TimeoutError:
        print("timed out")
    done = 0
    for i, c in enumerate(conns):
        if c.why or not c.eof or c.got != c.sent:
            print(f"connection {i}: {c.why or ''} sent {len(c.sent)} got {len(c.got)}"
                  f"{'' if c.eof else ', no end'}{', bytes differ' if c.eof and c.got != c.sent and len(c.got) == len(c.sent) else ''}")
        else:
            done += 1
        c.s.close()
    print(f"complete {done} of {len(conns)}")
    return 0 if done == len(conns) else 1


sys.exit(main())
