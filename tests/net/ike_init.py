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
            not on the curve (RFC 9385 6.1)"""
import os
import socket, struct, sys

SA, KE, NONCE, NOTIFY = 33, 34, 40, 41
IKE_SA_INIT, INITIATOR, RESPONSE = 34, 0x08, 0x20
ENCR, PRF, DH = 1, 2, 4
KEY_LENGTH = 0x800E  # attribute type 14, TV format


def transform(last, ttype, tid, attrs=b""):
    return struct.pack("!BBHBBH", 0 if last else 3, 0, 8 + len(attrs), ttype, 0, tid) + attrs


def payload(next_type, body):
    return struct.pack("!BBH", next_type, 0, 4 + len(body)) + body


def offer(kind):
    """(transforms, KE group, KE data)"""
    if kind == "aes":
        ts = [(ENCR, 20, struct.pack("!HH", KEY_LENGTH, 256)), (PRF, 5, b""), (DH, 19, b"")]
        return ts, 19, os.urandom(64)
    # x = 1, y = 2 (little-endian, RFC 9385 4): not a point of paramSetC
    ts = [(ENCR, 32, b""), (PRF, 9, b""), (DH, 34, b"")]
    return ts, 34, (1).to_bytes(64, "little") + (2).to_bytes(64, "little")


def request(kind):
    ts, group, ke = offer(kind)
    body = b"".join(transform(i == len(ts) - 1, *t) for i, t in enumerate(ts))
    prop = struct.pack("!BBHBBBB", 0, 0, 8 + len(body), 1, 1, 0, len(ts)) + body
    payloads = (payload(KE, prop) + payload(NONCE, struct.pack("!HH", group, 0) + ke)
                + payload(0, os.urandom(32)))
    hdr = os.urandom(8) + bytes(8) + struct.pack("!BBBBII", SA, 0x20, IKE_SA_INIT, INITIATOR, 0,
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
    s.settimeout(3)
    s.sendto(request(kind), (dst, 500))
    try:
        print(verdict(s.recvfrom(65535)[0]))
    except socket.timeout:
        print("no answer")


main()
