#!/usr/bin/env python3
"""pfx_craft.py GOSTX OUT PASSWORD BAG...: a PKCS#12 file no writer would
make, for the tests of what a reader does with it. Each BAG is
key=FILE[@ID] (a PKCS#8 private key, PEM or DER, in a plain keyBag),
skey=FILE[@ID] (an encrypted one, in a pkcs8ShroudedKeyBag as it is) or
cert=FILE[@ID] (a certBag holding FILE's bytes as the X.509 certificate:
a PEM CERTIFICATE block is decoded, anything else taken as it is); ID, hex,
is the bag's localKeyId. The bags go in one data part, in the order given;
MacData HMAC-Streebog-512 the R 50.1.112-2016 way (1 iteration), made with
GOSTX's kdf and mac commands."""
import base64
import re
import subprocess
import sys

from der import oid, seq, tlv


def pem_or_der(path, label):
    data = open(path, "rb").read()
    m = re.search(rb"-----BEGIN " + label + rb"-----(.*?)-----END", data, re.S)
    return base64.b64decode(m.group(1)) if m else data


def bag(spec):
    kind, _, rest = spec.partition("=")
    path, _, key_id = rest.partition("@")
    attrs = b""
    if key_id:  # localKeyId
        attrs = tlv(0x31, seq(oid("1.2.840.113549.1.9.21"), tlv(0x31, tlv(0x04, bytes.fromhex(key_id)))))
    if kind == "key":
        value = pem_or_der(path, b"PRIVATE KEY")
        return seq(oid("1.2.840.113549.1.12.10.1.1"), tlv(0xA0, value), attrs)
    if kind == "skey":  # an EncryptedPrivateKeyInfo as it is
        value = pem_or_der(path, b"ENCRYPTED PRIVATE KEY")
        return seq(oid("1.2.840.113549.1.12.10.1.2"), tlv(0xA0, value), attrs)
    cert = pem_or_der(path, b"CERTIFICATE")
    value = seq(oid("1.2.840.113549.1.9.22.1"), tlv(0xA0, tlv(0x04, cert)))
    return seq(oid("1.2.840.113549.1.12.10.1.3"), tlv(0xA0, value), attrs)


def main():
    gostx, out, password = sys.argv[1:4]
    contents = seq(*[bag(b) for b in sys.argv[4:]])
    auth_safe = seq(seq(oid("1.2.840.113549.1.7.1"), tlv(0xA0, tlv(0x04, contents))))
    salt = bytes(range(8))
    k = subprocess.run([gostx, "kdf", "pbkdf2", "--pass", password, "--salt", salt.hex(),
                        "--iter", "1", "--len", "96"], check=True, capture_output=True, text=True)
    mac = subprocess.run([gostx, "mac", "hmac-streebog512", "-k", k.stdout.strip()[128:]],
                         input=auth_safe, check=True, capture_output=True)
    digest = bytes.fromhex(mac.stdout.decode().strip())
    mac_data = seq(seq(seq(oid("1.2.643.7.1.1.2.3")), tlv(0x04, digest)), tlv(0x04, salt),
                   tlv(0x02, b"\x01"))
    pfx = seq(tlv(0x02, b"\x03"), seq(oid("1.2.840.113549.1.7.1"), tlv(0xA0, tlv(0x04, auth_safe))),
              mac_data)
    open(out, "wb").write(pfx)


if __name__ == "__main__":
    main()
