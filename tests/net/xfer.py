#!/usr/bin/env python3
"""A bounded TCP file transfer: `xfer.py recv ADDR PORT OUT` accepts one
connection and writes what it reads to OUT; `xfer.py send ADDR PORT IN`
sends IN. Both give up after --timeout seconds.

Small UDP datagrams: `xfer.py udprecv ADDR PORT COUNT SIZE` counts the
datagrams it receives (until COUNT, or 3 s without one, times the load scale) and prints
`received N distinct D bad B`, then, where D < COUNT, `missing I,J,...`
(the numbers of those that did not come); with a sixth argument READY it creates that
file once its socket is bound (a loaded host may start Python late).
`xfer.py udpsend ADDR PORT COUNT SIZE` sends
COUNT numbered datagrams of SIZE bytes, paced (20 per millisecond at most),
so that a queue overflow is not what the count measures; XFER_GAP=SECONDS in
the environment sends one every SECONDS instead (a steady stream: datagram i
at i * SECONDS from the first). SIZE may be a
list (`1372,700,64`): datagram i then has size SIZE[i mod its length].
`xfer.py udpgso ADDR PORT COUNT SIZE` sends the same datagrams, each run
of len(SIZE) of them in one send with UDP_SEGMENT = SIZE[0] (the kernel
cuts it, or hands it to a device with USO whole): SIZE is then its first
size repeated, then the last (shorter) one, e.g. `1000,1000,1000,123`.
An ADDR with a colon is IPv6; with XFER_DSTOPTS=1 in the environment the
TCP sender's IPv6 packets carry a destination options header (8 bytes,
PadN: an extension header in front of every segment, root only)."""
import os
import socket, struct, sys, time
sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from gostx_test_time import bound  # noqa: E402 (the waits' scale, also when run by hand)


def body(i, size):
    head = struct.pack("!I", i)
    return head + bytes((i + k) & 0xFF for k in range(size - len(head)))


def family(addr):
    return socket.AF_INET6 if ":" in addr else socket.AF_INET


def udp(mode, addr, port, count, sizes, ready=None):
    sizes = [int(x) for x in sizes.split(",")]
    s = socket.socket(family(addr), socket.SOCK_DGRAM)
    if mode == "udpgso":
        s.setsockopt(socket.SOL_UDP, 103, sizes[0])  # UDP_SEGMENT
        for i in range(0, count, len(sizes)):
            run = range(i, min(count, i + len(sizes)))
            s.sendto(b"".join(body(k, sizes[k % len(sizes)]) for k in run), (addr, port))
            time.sleep(0.001)
        return 0
    if mode == "udpsend":
        gap = float(os.environ.get("XFER_GAP", "0"))
        t0 = time.monotonic()
        for i in range(count):
            s.sendto(body(i, sizes[i % len(sizes)]), (addr, port))
            if gap:  # on a schedule: COUNT * GAP seconds, however slow each send
                time.sleep(max(0.0, t0 + (i + 1) * gap - time.monotonic()))
            elif i % 20 == 19:
                time.sleep(0.001)
        return 0
    try:  # past net.core.rmem_max when root: a stall of the test's own
        s.setsockopt(socket.SOL_SOCKET, 33, 1 << 22)  # SO_RCVBUFFORCE
    except OSError:  # reader on a loaded host is not a tunnel loss
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
    s.bind((addr, port))
    if ready:
        open(ready, "w").close()
    s.settimeout(bound(10))  # the first one
    seen, n, bad = set(), 0, 0
    try:
        while n < count:
            d = s.recv(65535)
            s.settimeout(bound(3))
            n += 1
            i = struct.unpack("!I", d[:4])[0] if len(d) >= 4 else -1
            if i < 0 or i >= count or d != body(i, sizes[i % len(sizes)]):
                bad += 1
            else:
                seen.add(i)
    except socket.timeout:
        pass
    print(f"received {n} distinct {len(seen)} bad {bad}")
    if len(seen) < count:
        print("missing " + ",".join(str(i) for i in range(count) if i not in seen))
    return 0


def pump(read, write):
    while True:
        b = read(1 << 16)
        if not b:
            return
        write(b)


def main():
    mode, addr, port, path = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    if mode in ("udpsend", "udprecv", "udpgso"):
        return udp(mode, addr, port, int(path), sys.argv[5],
                   sys.argv[6] if len(sys.argv) > 6 else None)
    timeout = float(sys.argv[5]) if len(sys.argv) > 5 else 60
    if mode == "recv":
        srv = socket.socket(family(addr), socket.SOCK_STREAM)
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
        end = time.time() + bound(10)
        while True:  # the receiver may still be starting
            c = socket.socket(family(addr), socket.SOCK_STREAM)
            try:
                if os.environ.get("XFER_DSTOPTS") == "1":
                    # next header (the kernel's), length 0 (8 bytes), PadN of 4
                    c.setsockopt(socket.IPPROTO_IPV6, 59, bytes([0, 0, 1, 4, 0, 0, 0, 0]))  # IPV6_DSTOPTS
                c.settimeout(timeout)
                c.connect((addr, port))
                break
            except (ConnectionRefusedError, OSError):
                c.close()
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
