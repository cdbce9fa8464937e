#!/usr/bin/env python3
"""A bounded TCP file transfer: `xfer.py recv ADDR PORT OUT` accepts one
connection and writes what it reads to OUT; `xfer.py send ADDR PORT IN`
sends IN. Both give up after --timeout seconds."""
import socket, sys


def pump(read, write):
    while True:
        b = read(1 << 16)
        if not b:
            return
        write(b)


def main():
    mode, addr, port, path = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    timeout = float(sys.argv[5]) if len(sys.argv) > 5 else 60
    if mode == "recv":
        srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        srv.bind((addr, port))
        srv.listen(1)
        srv.settimeout(timeout)
        conn, _ = srv.accept()
        conn.settimeout(timeout)
        with open(path, "wb") as f:
            pump(conn.recv, f.write)
        conn.close()
    else:
        import time
        end = time.time() + 10
        while True:  # the receiver may still be starting
            try:
                c = socket.create_connection((addr, port), timeout=timeout)
                break
            except (ConnectionRefusedError, OSError):
                if time.time() > end:
                    raise
                time.sleep(0.2)
        with open(path, "rb") as f:
            pump(f.read, c.sendall)
        c.shutdown(socket.SHUT_WR)
        c.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
