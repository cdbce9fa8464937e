#!/usr/bin/env python3
"""A crafted IKE_SA_INIT request (RFC 7296 3.1-3.4, 3.9) that gostx never
sends, for the tunnel's refusal tests:
`ike_init.py SRC DST OFFER` sends it from SRC port 500 to DST port 500 and
prints what came back within 3 s: `notify N` (an unencrypted response of
notifies: the first one's type), `answer` (another response) or `no answer`.
OFFER:
  aes       no GOST transform: ENCR_AES_GCM_16 (256-bit key),
            PRF_HMAC_SHA2_256, group 19 (ECP 256) with a 64-byte KE
  offcurve  the GOST offer (ENCR_KUZNYECHIK_MGM_KTREE, PRF_HMAC_STREEBOG_512,
            GOST3410_2012_512) with a KE of the right length whose point is
            not on the curve (RFC 9385 6.1)
  order2    the same with the curve's point of order 2 (paramSetC has
            cofactor 4): on the curve, but 4 d Q is the identity
  critical  the offcurve request with a payload of unknown type 99 after
            the nonce, its critical bit set (RFC 7296 2.5)
  zerospi   the offcurve request with SPIi zero (3.1: it MUST NOT be)
WAIT (a fourth argument): seconds to wait for the answer instead of 3"""
import os
import socket, struct, sys
sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from gostx_test_time import bound  # noqa: E402 (the waits' scale, also when run by hand)

SA, KE, NONCE, NOTIFY = 33, 34, 40, 41
IKE_SA_INIT, INITIATOR, RESPONSE = 34, 0x08, 0x20
ENCR, PRF, DH = 1, 2, 4
KEY_LENGTH = 0x800E  # attribute type 14, TV format


def transform(last, ttype, tid, attrs=b""):
    return struct.pack("!BBHBBH", 0 if last else 3, 0, 8 + len(attrs), ttype, 0, tid) + attrs


def payload(next_type, body):
    return struct.pack("!BBH", next_type, 0, 4 + len(body)) + body


# id-tc26-gost-3410-2012-512-paramSetC (RFC 7836): p, a, b and the twisted
# Edwards d (e = 1) of the same curve
P = int("ff" * 62 + "fdc7", 16)
A = int("dc9203e514a721875485a529d2c722fb187bc8980eb866644de41c68e1430645"
        "46e861c0e2c9edd92ade71f46fcf50ff2ad97f951fda9f2a2eb6546f39689bd3", 16)
B = int("b4c4ee28cebc6c2c8ac12952cf37f16ac7efb6a9f69f4b57ffda2e4f0de5ade0"
        "38cbc2fff719d2c18de0284b8bfef3b52b8cc7a5f5bf0a3c8d2319a5312557e1", 16)
D = int("9e4f5d8c017d8d9f13a5cf3cdf5bfe4dab402d54198e31ebde28a0621050439c"
        "a6b39e0a515c06b304e2ce43e79e369e91a0cfc2bc2a22b4ca302dbb33ee7550", 16)


def order2_x():
    """The Edwards point (0, -1) has order 2; the map to the Weierstrass
    form (RFC 7836 A.2) takes it to (t, 0), t = (e + d) / 6."""
    t = (1 + D) * pow(6, -1, P) % P
    assert (t ** 3 + A * t + B) % P == 0, "(t, 0) not on the curve"
    return t


def offer(kind):
    """(transforms, KE group, KE data: x | y, each little-endian, RFC 9385 4)"""
    if kind == "aes":
        ts = [(ENCR, 20, struct.pack("!HH", KEY_LENGTH, 256)), (PRF, 5, b""), (DH, 19, b"")]
        return ts, 19, os.urandom(64)
    ts = [(ENCR, 32, b""), (PRF, 9, b""), (DH, 34, b"")]
    x, y = (order2_x(), 0) if kind == "order2" else (1, 2)  # (1, 2): not on the curve
    return ts, 34, x.to_bytes(64, "little") + y.to_bytes(64, "little")


UNKNOWN, CRITICAL = 99, 0x80


def request(kind):
    ts, group, ke = offer("offcurve" if kind in ("critical", "zerospi") else kind)
    body = b"".join(transform(i == len(ts) - 1, *t) for i, t in enumerate(ts))
    prop = struct.pack("!BBHBBBB", 0, 0, 8 + len(body), 1, 1, 0, len(ts)) + body
    last = UNKNOWN if kind == "critical" else 0
    payloads = (payload(KE, prop) + payload(NONCE, struct.pack("!HH", group, 0) + ke)
                + payload(last, os.urandom(32)))
    if last:
        payloads += struct.pack("!BBH", 0, CRITICAL, 8) + bytes(4)
    spi_i = bytes(8) if kind == "zerospi" else os.urandom(8)
    hdr = spi_i + bytes(8) + struct.pack("!BBBBII", SA, 0x20, IKE_SA_INIT, INITIATOR, 0,
                                         28 + len(payloads))
    return hdr + payloads


def verdict(msg):
    if len(msg) < 28 or msg[18] != IKE_SA_INIT or not msg[19] & RESPONSE:
        return "answer"
    if msg[16] == NOTIFY and len(msg) >= 28 + 8:
        return "notify %d" % struct.unpack("!H", msg[28 + 6:28 + 8])[0]
    return "answer"


def main():
    src, dst, kind = sys.argv[1:4]
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind((src, 500))
    s.settimeout(bound(float(sys.argv[4]) if len(sys.argv) > 4 else 3))
    s.sendto(request(kind), (dst, 500))
    try:
        print(verdict(s.recvfrom(65535)[0]))
    except socket.timeout:
        print("no answer")


main()
