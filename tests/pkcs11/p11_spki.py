#!/usr/bin/env python3
"""A PKCS#11 GOST public key (CKA_VALUE: x || y, each little-endian, and the
DER OID of CKA_GOSTR3410_PARAMS) as a SubjectPublicKeyInfo PEM (RFC 9215:
the same bytes in an OCTET STRING), so openssl and gostx can check the
token's signatures. usage: p11_spki.py VALUE_HEX PARAMS_DER_HEX OUT.pem"""
import base64
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from pfx_craft import tlv  # noqa: E402  (the DER writer the tests share)


def main():
    value = bytes.fromhex(sys.argv[1])
    params = bytes.fromhex(sys.argv[2])
    big = len(value) == 128
    # id-tc26-gost3410-12-256 1.2.643.7.1.1.1.1 / -512 1.2.643.7.1.1.1.2
    alg = tlv(0x06, bytes.fromhex("2a85030701010102" if big else "2a85030701010101"))
    # 256-bit keys on the CryptoPro sets name their hash, Streebog-256
    # (1.2.643.7.1.1.2.2); 512-bit keys and 256 paramSetA leave it out.
    tc26_256a = bytes.fromhex("06092a8503070102010101")
    digest = b"" if big or params == tc26_256a else tlv(0x06, bytes.fromhex("2a850307010102" "02"))
    ident = tlv(0x30, alg + tlv(0x30, params + digest))
    spki = tlv(0x30, ident + tlv(0x03, b"\x00" + tlv(0x04, value)))
    text = base64.encodebytes(spki).decode().replace("\n", "")
    lines = [text[i:i + 64] for i in range(0, len(text), 64)]
    with open(sys.argv[3], "w") as f:
        f.write("-----BEGIN PUBLIC KEY-----\n" + "\n".join(lines) + "\n-----END PUBLIC KEY-----\n")


if __name__ == "__main__":
    main()
