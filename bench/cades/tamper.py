#!/usr/bin/env python3
"""tamper.py IN OUT N [mid]: OUT = IN (a DER SignedData) with one byte of
the first unsigned attribute id-aa N (1.2.840.113549.1.9.16.2.N: 24
revocation-values, 25 CAdES-C-time-stamp, 14 signature-time-stamp) flipped:
its last byte (a signature's, or the last value's), or with "mid" the one in
the middle of its attrValues."""
import sys

d = bytearray(open(sys.argv[1], "rb").read())
oid = bytes.fromhex("060b2a864886f70d01091002") + bytes([int(sys.argv[3])])
i = d.index(oid) + len(oid)  # the attrValues SET
n = d[i + 1]
if n < 0x80:
    end = i + 2 + n
else:
    k = n & 0x7F
    end = i + 2 + k + int.from_bytes(d[i + 2:i + 2 + k], "big")
d[(i + end) // 2 if sys.argv[4:] == ["mid"] else end - 1] ^= 0x55
open(sys.argv[2], "wb").write(d)
