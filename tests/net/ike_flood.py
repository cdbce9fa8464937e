#!/usr/bin/env python3
"""An IKE_SA_INIT flood from many source addresses, for the gateway's
hostile test (test_tunnel_gateway_flood.sh):
`ike_flood.py MSG DST PORT ADDR...` sends MSG (a real IKE_SA_INIT request
behind the non-ESP marker, as captured on the data port) once from each
ADDR (port PORT) to DST:PORT, each under a new SPIi, 2 ms apart, then
listens for the answers and prints `answers N cookies M other K`: N
responses that took the request (an IKE_SA_INIT response with its SA), M
that asked for a COOKIE (RFC 7296 2.6: notify 16390), K anything else.
Nothing is ever sent again: each request taken is an SA left half open."""
import os
import select
import socket
import struct
import sys
import time

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from gostx_test_time import bound  # noqa: E402

MARKER = bytes(4)  # RFC 3948 2.2: IKE on the ESP port
IKE_SA_INIT, RESPONSE, NOTIFY, COOKIE = 34, 0x20, 41, 16390


def kind(m):
    m = m[4:] if m[:4] == MARKER else m
    if len(m) < 28 or m[18] != IKE_SA_INIT or not m[19] & RESPONSE:
        return "other"
    if m[16] == NOTIFY and len(m) >= 36 and struct.unpack("!H", m[34:36])[0] == COOKIE:
        return "cookies"
    return "answers"


def main():
    msg, dst, port = open(sys.argv[1], "rb").read(), sys.argv[2], int(sys.argv[3])
    assert msg[:4] == MARKER and len(msg) > 32, "not an IKE message behind the marker"
    socks = []
    for a in sys.argv[4:]:
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.bind((a, port))
        socks.append(s)
    for s in socks:
        s.sendto(MARKER + os.urandom(8) + msg[12:], (dst, port))
        time.sleep(0.002)
    got = {"answers": 0, "cookies": 0, "other": 0}
    # Listen while answers keep coming: each taken request costs the gateway
    # two scalar multiplications, slow under ASAN or beside other tests, so
    # a fixed window cut off answers still on their way (CI, stop 91: 127
    # answers + 149 COOKIEs of 300). Given up after bound(3) s of silence.
    left = len(socks)
    while left:
        r, _, _ = select.select(socks, [], [], bound(3))
        if not r:
            break
        for s in r:
            got[kind(s.recv(65535))] += 1
            left -= 1
    print("answers %(answers)d cookies %(cookies)d other %(other)d" % got)


main()
