#!/usr/bin/env python3
"""Full-duplex transfers through a TCP relay to an echo (tests/net/test_tls_duplex.sh).

`duplex.py echo` listens on 127.0.0.1 (port 0), prints its port, and echoes
each connection back (a thread each) until killed.

`duplex.py send PORT RUNS SIZE STALL` makes RUNS connections to PORT one
after the other; on each, a thread sends SIZE bytes of a pattern while the
main thread reads the echo and compares it. It stops at the first run whose
echo stalls (no byte for STALL seconds), ends early or differs, prints what
happened and exits 1; 0 when every run came back whole."""
import socket
import sys
import threading

PERIOD = 65521  # prime: a lost or repeated 64 KiB piece shows as a difference
PATTERN = bytes((i * 131 + (i >> 8)) & 0xFF for i in range(PERIOD)) * 2


def echo():
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(16)
    print(srv.getsockname()[1], flush=True)

    def serve(c):
        with c:
            for b in iter(lambda: c.recv(1 << 16), b""):
                c.sendall(b)

    while True:
        threading.Thread(target=serve, args=(srv.accept()[0],), daemon=True).start()


def send_all(s, size):
    try:
        at = 0
        while at < size:
            off = at % PERIOD
            at += s.send(PATTERN[off : off + min(size - at, PERIOD)])
        s.shutdown(socket.SHUT_WR)
    except OSError:
        pass  # the reader says what went wrong


def transfer(port, size, stall):
    """None when the SIZE bytes came back equal, else what went wrong."""
    with socket.create_connection(("127.0.0.1", port), stall) as s:
        s.settimeout(stall)
        threading.Thread(target=send_all, args=(s, size), daemon=True).start()
        got = 0
        while got < size:
            try:
                b = s.recv(PERIOD)
            except socket.timeout:
                return f"stalled: {got} of {size} bytes echoed, none for {stall:g} s"
            except OSError as e:
                return f"{e} after {got} of {size} bytes"
            if not b:
                return f"the echo ended after {got} of {size} bytes"
            off = got % PERIOD
            if b != PATTERN[off : off + len(b)]:
                return f"wrong bytes at {got}"
            got += len(b)
    return None


def main():
    if sys.argv[1:] == ["echo"]:
        return echo()
    port, runs, size, stall = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5])
    for run in range(1, runs + 1):
        why = transfer(port, size, stall)
        if why:
            print(f"run {run} of {runs}: {why}")
            return 1
    print(f"{runs} runs of {size} bytes each way came back whole")
    return 0


if __name__ == "__main__":
    sys.exit(main())
