"""What the ctypes PKCS#11 helpers of the tests share (p11_value.py,
p11_keygen.py): the module's exported C_* functions called directly, as
any application could."""
import ctypes as C
import sys


class Attr(C.Structure):
    """CK_ATTRIBUTE"""
    _fields_ = [("type", C.c_ulong), ("p", C.c_void_p), ("len", C.c_ulong)]


def user_session(path, token, pin, flags):
    """The module at path initialised, a session (CKF_ flags) on the token
    labelled token (bytes), the user logged in with pin (bytes): (lib,
    call, session handle). call(name, *args) exits naming a failed call."""
    lib = C.CDLL(path)

    def call(name, *a):
        rv = getattr(lib, name)(*a)
        if rv:
            sys.exit(f"{name}: 0x{rv:x}")

    call("C_Initialize", None)
    n = C.c_ulong(0)
    call("C_GetSlotList", C.c_ubyte(1), None, C.byref(n))
    slots = (C.c_ulong * n.value)()
    call("C_GetSlotList", C.c_ubyte(1), slots, C.byref(n))
    info = C.create_string_buffer(512)  # CK_TOKEN_INFO: the label comes first
    slot = next((s for s in slots if not lib.C_GetTokenInfo(C.c_ulong(s), info) and
                 info.raw[:32].rstrip(b" ") == token), None)
    if slot is None:
        sys.exit(f"no token labelled {token.decode()}")
    h = C.c_ulong(0)
    call("C_OpenSession", C.c_ulong(slot), C.c_ulong(flags), None, None, C.byref(h))
    call("C_Login", h, C.c_ulong(1), pin, C.c_ulong(len(pin)))
    return lib, call, h
