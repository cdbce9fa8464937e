#!/usr/bin/env python3
"""Reads RFC 9548 Appendix A's examples out of the RFC's text into
tests/vectors/pkcs12/rfc9548-*.der|pfx (A.2.1, A.3.1, the decrypted key of
A.2.3 = A.3.3, the certificate of A.1.1).
usage: rfc9548.py RFC9548.TXT   (git -C MIRROR show HEAD:doc/rfc/rfc9548.txt)"""
import base64, os, re, sys

text = open(sys.argv[1]).read()
out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "pkcs12")

def block(start, end):  # the base64 lines between two headings (page furniture dropped)
    i = text.rindex(start) + len(start)  # the last: the first is the table of contents
    lines = [l.strip() for l in text[i:text.index(end, i)].split("\n")]
    return base64.b64decode("".join(l for l in lines if re.fullmatch(r"[A-Za-z0-9+/=]{4,}", l)))

key = block("A.2.3.  Decrypted Key Value in BASE64 Format", "A.2.4.")
assert key == block("A.3.3.  Decrypted Key Value in BASE64 Format", "A.3.4.")
for name, data in (("rfc9548-a2.pfx", block("A.2.1.  PFX in BASE64 Format", "A.2.2.")),
                   ("rfc9548-a3.pfx", block("A.3.1.  PFX in BASE64 Format", "A.3.2.")),
                   ("rfc9548-key.der", key),
                   ("rfc9548-cert.der", block("in BASE64 format.", "A.1.2."))):
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)
