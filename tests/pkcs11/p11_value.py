#!/usr/bin/env python3
"""Asks a PKCS#11 module for a private key's CKA_VALUE, as any application
could: the module's exported C_* functions through ctypes. Exits 0 when the
key (class private key, CKA_ID ID_HEX, on the token labelled LABEL) is
CKA_SENSITIVE, not CKA_EXTRACTABLE, and its value is refused
(CKR_ATTRIBUTE_SENSITIVE, length unavailable); 1 otherwise, saying what.
usage: p11_value.py MODULE LABEL PIN ID_HEX"""
import ctypes as C
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from p11_ctypes import Attr, user_session  # noqa: E402

CKR_ATTRIBUTE_SENSITIVE = 0x11
CKA_CLASS, CKA_VALUE, CKA_ID = 0x0, 0x11, 0x102
CKA_SENSITIVE, CKA_EXTRACTABLE = 0x103, 0x162
CKO_PRIVATE_KEY = 3
UNAVAILABLE = C.c_ulong(-1).value


def main():
    label, pin, kid = sys.argv[2].encode(), sys.argv[3].encode(), bytes.fromhex(sys.argv[4])
    lib, call, h = user_session(sys.argv[1], label, pin, 4)  # CKF_SERIAL_SESSION
    cls = C.c_ulong(CKO_PRIVATE_KEY)
    idb = C.create_string_buffer(kid, len(kid))
    t = (Attr * 2)(Attr(CKA_CLASS, C.cast(C.byref(cls), C.c_void_p), C.sizeof(cls)),
                   Attr(CKA_ID, C.cast(idb, C.c_void_p), len(kid)))
    call("C_FindObjectsInit", h, t, C.c_ulong(2))
    o, cnt = C.c_ulong(0), C.c_ulong(0)
    call("C_FindObjects", h, C.byref(o), C.c_ulong(1), C.byref(cnt))
    call("C_FindObjectsFinal", h)
    if cnt.value != 1:
        sys.exit(f"no private key with CKA_ID {sys.argv[4]}")
    sens, ext = C.c_ubyte(0), C.c_ubyte(1)
    q = (Attr * 3)(Attr(CKA_VALUE, None, 0),
                   Attr(CKA_SENSITIVE, C.cast(C.byref(sens), C.c_void_p), 1),
                   Attr(CKA_EXTRACTABLE, C.cast(C.byref(ext), C.c_void_p), 1))
    rv = lib.C_GetAttributeValue(h, o, q, C.c_ulong(3))
    lib.C_Finalize(None)
    if rv != CKR_ATTRIBUTE_SENSITIVE or q[0].len != UNAVAILABLE:
        sys.exit(f"CKA_VALUE answered: 0x{rv:x}, length {q[0].len}")
    if sens.value != 1 or ext.value != 0:
        sys.exit(f"CKA_SENSITIVE {sens.value}, CKA_EXTRACTABLE {ext.value}")
    print("CKA_VALUE refused: sensitive, not extractable")


if __name__ == "__main__":
    main()
