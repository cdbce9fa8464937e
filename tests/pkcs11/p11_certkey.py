#!/usr/bin/env python3
"""The subject public key of an X.509 certificate (DER): its
SubjectPublicKeyInfo written out unchanged as a PEM, and printed as a
PKCS#11 CKA_VALUE (x || y, each little-endian: RFC 9215's OCTET STRING
inside the BIT STRING), so a token's key can be compared with the
certificate's and a signature checked against it by `gostx verify`.
usage: p11_certkey.py CERT.der OUT.pem"""
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [here, os.path.join(here, "..", "support")]
from p11_spki import write_pem  # noqa: E402
from der import header  # noqa: E402


def element(d, i):
    """(tag, start of content, end) of the DER element at d[i]."""
    tag, hl, n = header(d, i)
    return tag, i + hl, i + hl + n


def main():
    d = open(sys.argv[1], "rb").read()
    _, c, _ = element(d, 0)  # Certificate
    _, i, _ = element(d, c)  # tbsCertificate
    if d[i] == 0xA0:  # [0] version
        i = element(d, i)[2]
    for _ in range(5):  # serial, signature, issuer, validity, subject
        i = element(d, i)[2]
    tag, s, e = element(d, i)
    assert tag == 0x30, "no SubjectPublicKeyInfo"
    spki = d[i:e]
    _, b, _ = element(d, element(d, s)[2])  # the BIT STRING after the AlgorithmIdentifier
    _, v, ve = element(d, b + 1)  # the OCTET STRING after the unused-bits byte
    print(d[v:ve].hex())
    write_pem(spki, sys.argv[2])


if __name__ == "__main__":
    main()
