#!/usr/bin/env python3
"""Writes tests/vectors/tls13-rfc9367-sigkey.json: the server's signing key
of RFC 9367 Appendix A.1, which the RFC does not print but its values fix.
The example prints the signature nonce k, the CertificateVerify signature
sgn = str_32(r) | str_32(s) (little-endian) and the transcript hash the
signature covers, so with e = Streebog-256(M) read little-endian (mod q),
M = 64 spaces | "TLS 1.3, server CertificateVerify" | 0 | that hash
(RFC 8446 section 4.4.3), the key is d = (s - k e) / r mod q on the curve of
the scheme used (gostr34102012_256b: CryptoPro-A, RFC 4357). Checks before
it writes: r = x(k P) mod q, and d P is the certificate's public key (its
SubjectPublicKeyInfo's 64 bytes, x | y little-endian). Streebog-256 is
`openssl dgst -engine gost -md_gost12_256` (gost-engine), not gostx.

Run: python3 tests/vectors/gen/tls13-gost/rfc9367_sigkey.py \\
       tests/vectors/tls13-rfc9367.json > tests/vectors/tls13-rfc9367-sigkey.json"""
import json
import subprocess
import sys

# id-GostR3410-2001-CryptoPro-A-ParamSet (RFC 4357 section 11.4)
P = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFD97
A = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFD94
Q = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF6C611070995AD10045841B09B761B893
G = (1, 0x8D91E471E0989CDA27DF505A453F2B7635294F2DDF23E3B122ACC99C9E9F1E14)


def add(p1, p2):
    if p1 is None:
        return p2
    if p2 is None:
        return p1
    if p1[0] == p2[0] and (p1[1] + p2[1]) % P == 0:
        return None
    if p1 == p2:
        lam = (3 * p1[0] * p1[0] + A) * pow(2 * p1[1], -1, P) % P
    else:
        lam = (p2[1] - p1[1]) * pow(p2[0] - p1[0], -1, P) % P
    x = (lam * lam - p1[0] - p2[0]) % P
    return (x, (lam * (p1[0] - x) - p1[1]) % P)


def mul(k, pt):
    r = None
    while k:
        if k & 1:
            r = add(r, pt)
        pt = add(pt, pt)
        k >>= 1
    return r


def streebog256(data):
    out = subprocess.run(["openssl", "dgst", "-engine", "gost", "-md_gost12_256", "-r"],
                         input=data, capture_output=True, check=True).stdout.split()[0]
    return bytes.fromhex(out.decode())


def main(path):
    ex = json.load(open(path))["examples"][0]
    val = {v["name"]: bytes.fromhex(v["hex"]) for v in ex["values"]}
    cert_msg = next(bytes.fromhex(m["hex"]) for m in ex["messages"] if m["name"] == "Certificate")
    th = val["Transcript-Hash(HMCertificateVerify)"]
    k = int.from_bytes(val["k (random for signature algorithm)"], "little")
    sgn = val["sgn"]
    r, s = int.from_bytes(sgn[:32], "little"), int.from_bytes(sgn[32:], "little")
    m = b" " * 64 + b"TLS 1.3, server CertificateVerify\x00" + th
    e = int.from_bytes(streebog256(m), "little") % Q or 1
    assert mul(k, G)[0] % Q == r, "r is not x(k P): not the curve of the scheme"
    d = (s - k * e) * pow(r, -1, Q) % Q
    # The certificate's key: the 64 bytes after "04 40" in its SubjectPublicKeyInfo.
    at = cert_msg.index(bytes.fromhex("03430004 40".replace(" ", ""))) + 5
    pub = cert_msg[at:at + 64]
    x, y = int.from_bytes(pub[:32], "little"), int.from_bytes(pub[32:], "little")
    assert mul(d, G) == (x, y), "d P is not the certificate's key"
    json.dump({
        "name": "RFC 9367 Appendix A.1: the server's signing key",
        "source": "derived by tests/vectors/gen/tls13-gost/rfc9367_sigkey.py from A.1's printed k, "
                  "sgn and Transcript-Hash(HMCertificateVerify): d = (s - k e) / r mod q on "
                  "CryptoPro-A (the scheme gostr34102012_256b); checked: r = x(k P) mod q and "
                  "d P = the certificate's public key. Streebog-256 by gost-engine.",
        "curve": "256B",
        "d_be": "%064x" % d,
        "pub_be": "%064x%064x" % (x, y)}, sys.stdout, indent=1)
    print()


main(sys.argv[1])
