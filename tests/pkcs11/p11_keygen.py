#!/usr/bin/env python3
"""A GOST key pair made on a PKCS#11 token with the template PKCS#11 2.40
(section 2.4) allows: CKA_GOSTR3410_PARAMS and CKA_GOSTR3411_PARAMS in the
public key's template only (the private key's "must not be specified when
generated": SoftHSMv2 refuses them there with CKR_ATTRIBUTE_READ_ONLY, and
OpenSC 0.23's pkcs11-tool --keypairgen puts them there, so it cannot make a
GOST key on SoftHSM). The module called through ctypes (p11_ctypes.py).
usage: p11_keygen.py MODULE TOKEN_LABEL PIN KEY_LABEL ID_HEX PARAMS_DER_HEX HASH_PARAMS_DER_HEX
  prints the public key's CKA_VALUE in hex"""
import ctypes as C
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from p11_ctypes import Attr, user_session  # noqa: E402

CKA_CLASS, CKA_TOKEN, CKA_PRIVATE, CKA_LABEL, CKA_VALUE = 0x0, 0x1, 0x2, 0x3, 0x11
CKA_ID, CKA_SENSITIVE, CKA_SIGN, CKA_VERIFY = 0x102, 0x103, 0x108, 0x10A
CKA_GOSTR3410_PARAMS, CKA_GOSTR3411_PARAMS = 0x250, 0x251
CKM_GOSTR3410_KEY_PAIR_GEN = 0x1200
CKF_RW_SERIAL = 0x6


class Mech(C.Structure):
    _fields_ = [("type", C.c_ulong), ("p", C.c_void_p), ("len", C.c_ulong)]


def template(pairs, keep):
    """CK_ATTRIBUTE array of (type, bytes); the buffers go on keep."""
    t = (Attr * len(pairs))()
    for i, (typ, val) in enumerate(pairs):
        b = C.create_string_buffer(val, len(val))
        keep.append(b)
        t[i] = Attr(typ, C.cast(b, C.c_void_p), len(val))
    return t


def main():
    token, pin, label = (a.encode() for a in sys.argv[2:5])
    kid, params, hparams = (bytes.fromhex(a) for a in sys.argv[5:8])
    lib, call, h = user_session(sys.argv[1], token, pin, CKF_RW_SERIAL)
    yes, keep = b"\x01", []
    pub = template([(CKA_TOKEN, yes), (CKA_VERIFY, yes), (CKA_LABEL, label), (CKA_ID, kid),
                    (CKA_GOSTR3410_PARAMS, params), (CKA_GOSTR3411_PARAMS, hparams)], keep)
    priv = template([(CKA_TOKEN, yes), (CKA_PRIVATE, yes), (CKA_SENSITIVE, yes), (CKA_SIGN, yes),
                     (CKA_LABEL, label), (CKA_ID, kid)], keep)
    m = Mech(CKM_GOSTR3410_KEY_PAIR_GEN, None, 0)
    hpub, hpriv = C.c_ulong(0), C.c_ulong(0)
    call("C_GenerateKeyPair", h, C.byref(m), pub, C.c_ulong(len(pub)), priv,
         C.c_ulong(len(priv)), C.byref(hpub), C.byref(hpriv))
    q = C.create_string_buffer(256)
    a = (Attr * 1)(Attr(CKA_VALUE, C.cast(q, C.c_void_p), 256))
    call("C_GetAttributeValue", h, hpub, a, C.c_ulong(1))
    print(q.raw[:a[0].len].hex())
    lib.C_Finalize(None)


if __name__ == "__main__":
    main()
