#!/usr/bin/env python3
"""tamper.py IN OUT WHAT: OUT = IN (a DER SignedData, one signer) with the
last byte of a signature flipped, WHAT one of
  ocsp: the first OCSP response of revocation-values (its BasicOCSPResponse
        signature: the response's own bytes, not a certificate it carries)
  esc:  the CAdES-C-time-stamp (its token's SignerInfo signature, the
        attribute's last bytes)
  sigts: the signature-time-stamp (the same, in its token)
  signer: the signer's own signature (its SignerInfo's signature value)"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests",
                                "support"))
from der import header  # noqa: E402  (the DER header reader the test scripts share)

AA = bytes.fromhex("060b2a864886f70d01091002")  # id-aa 1.2.840.113549.1.9.16.2.


def tlv(d, i):
    """(tag, content start, end) of the element at i"""
    tag, h, n = header(d, i)
    return tag, i + h, i + h + n


def children(d, start, end):
    i = start
    while i < end:
        yield i
        i = tlv(d, i)[2]


def signer_signature(d):
    """(start, end) of the first SignerInfo's signature OCTET STRING's content"""
    _, s, e = tlv(d, 0)  # ContentInfo
    _, s, e = tlv(d, [i for i in children(d, s, e)][1])  # [0] content
    _, s, e = tlv(d, s)  # SignedData
    _, s, e = tlv(d, [i for i in children(d, s, e) if d[i] == 0x31][-1])  # signerInfos SET
    _, s, e = tlv(d, s)  # the first SignerInfo
    sig = next(i for i in children(d, s, e) if d[i] == 0x04)  # signature OCTET STRING
    return tlv(d, sig)[1:]


d = bytearray(open(sys.argv[1], "rb").read())
what = sys.argv[3]
if what == "signer":
    s, e = signer_signature(d)
else:
    attr = d.index(AA + bytes([{"ocsp": 24, "esc": 25, "sigts": 14}[what]])) + len(AA) + 1  # attrValues SET
    _, s, e = tlv(d, attr)
if what == "ocsp":
    _, s, e = tlv(d, s)  # RevocationValues SEQUENCE
    ocsp = next(i for i in children(d, s, e) if d[i] == 0xA1)  # [1] ocspVals
    _, s, e = tlv(d, tlv(d, ocsp)[1])  # SEQUENCE OF BasicOCSPResponse
    _, s, e = tlv(d, s)  # the first one
    sig = [i for i in children(d, s, e)][2]  # tbsResponseData, signatureAlgorithm, signature
    e = tlv(d, sig)[2]
d[e - 1] ^= 0x55
open(sys.argv[2], "wb").write(d)
