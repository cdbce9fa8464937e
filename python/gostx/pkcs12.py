"""PKCS#12 (.pfx, .p12) files with GOST keys (include/gostx/pkcs12.h,
docs/PKCS12.md): load(data, password) -> (key, cert, chain) and
dump(key, cert, chain, password) -> bytes, in the shape of cryptography's
pkcs12.load_key_and_certificates / serialize_key_and_certificates.

Read: TC26 R 50.1.112-2016 (GOST 28147-89 CFB, what gost-engine and
certtool write) and RFC 9337 / RFC 9548 (Kuznyechik- or Magma-CTR-ACPKM, with
or without OMAC), MacData HMAC-Streebog-512 checked under the password before
anything is decrypted. Certificates are DER bytes; a certificate bag the
library's X.509 parser refuses is left out with a UserWarning naming it.
"""
import warnings

from ._native import GostxTypeError, GostxValueError, check, ffi, held, lib, rbuf, rptr
from .gost3410 import Curve, PrivateKey, _iterations, _password, _secret_copy

__all__ = ["load", "dump"]

_PBES = {"gost89": lib.GOSTX_PKCS12_PBE_GOST89, "kuznyechik": lib.GOSTX_PKCS12_PBE_KUZNYECHIK,
         "magma": lib.GOSTX_PKCS12_PBE_MAGMA,
         "kuznyechik-omac": lib.GOSTX_PKCS12_PBE_KUZNYECHIK_OMAC,
         "magma-omac": lib.GOSTX_PKCS12_PBE_MAGMA_OMAC, "none": lib.GOSTX_PKCS12_PBE_NONE}
_NO_BAG = ffi.cast("size_t", -1)


def _pass_copy(password):
    if password is None:
        raise GostxTypeError("password must be bytes-like (b'' for the empty password)")
    return _secret_copy(_password(password))


def _read(data, pw, max_work):
    """The C object of data opened with pw (freed by the caller)."""
    if max_work is None:
        max_work = 0
    elif isinstance(max_work, bool) or not isinstance(max_work, int) or max_work < 1:
        raise GostxValueError(f"max_work must be a positive int or None, got {max_work!r}")
    src = rbuf(data)
    out, why = ffi.new("gostx_pkcs12 **"), ffi.new("char[256]")
    rc = lib.gostx_pkcs12_read(src, len(src), pw, len(pw), max_work, out, why, len(why))
    if rc == lib.GOSTX_EAUTH:
        raise GostxValueError("Invalid password or PKCS12 data: "
                              f"{ffi.string(why).decode(errors='replace')}")
    if rc:
        reason = ffi.string(why).decode(errors="replace") or ffi.string(lib.gostx_strerror(rc)).decode()
        raise GostxValueError(f"PKCS#12 data gostx does not read: {reason}")
    return out[0]


def _key(p):
    """The key of the first key bag (None without one) and its certificate's bag."""
    k, cert_bag = ffi.new("gostx_gost3410_key *"), ffi.new("size_t *")
    try:
        rc = lib.gostx_pkcs12_key(p, k, cert_bag)
        if rc == lib.GOSTX_EINVAL:
            return None, _NO_BAG
        if rc:
            raise GostxValueError("the PKCS#12 key is not a GOST R 34.10-2012 key gostx reads")
        size = k.len
        key_d = ffi.new("uint8_t[]", size)
        ffi.memmove(key_d, k.d, size)
        key = PrivateKey._new(Curve(k.curve), key_d, bytes(ffi.buffer(k.q, 2 * size)),
                              ffi.string(k.oid))
        return key, cert_bag[0]
    finally:
        lib.gostx_gost3410_key_clear(k)


def load(data, password, *, max_work=None):
    """(key, cert, chain) from PKCS#12 DER: key a PrivateKey (None when the
    file holds none), cert the DER of the certificate whose subject key is
    key's (None when none is), chain the DER of the other certificates in
    file order. password: bytes-like (b'' for the empty one; UTF-8, as
    gost-engine and certtool use it). max_work: the most PBKDF2 iterations
    the file may cost in all (None: 4,000,000, a few seconds), refused before
    any is spent. A wrong password (the MAC does not verify) is a
    GostxValueError "Invalid password or PKCS12 data"; a malformed file or an
    algorithm gostx does not read a GostxValueError naming it. A certificate
    bag that is no certificate gostx reads is skipped with a UserWarning
    ("certificate bag N skipped: ...")."""
    pw = _pass_copy(password)
    try:
        p = _read(data, pw, max_work)
    finally:
        lib.gostx_memzero(pw, len(pw))
    try:
        key, cert_bag = _key(p)
        cert, chain = None, []
        bag = ffi.new("gostx_pkcs12_bag *")
        for i in range(lib.gostx_pkcs12_bag_count(p)):
            check(lib.gostx_pkcs12_bag_get(p, i, bag), "pkcs12 bag")
            if bag.type == lib.GOSTX_PKCS12_BAG_BAD_CERT:
                warnings.warn(f"PKCS#12 certificate bag {i + 1} skipped: "
                              f"{ffi.string(bag.problem).decode(errors='replace')}", UserWarning,
                              stacklevel=2)
            if bag.type != lib.GOSTX_PKCS12_BAG_CERT:
                continue
            der = bytes(ffi.buffer(bag.der, bag.der_len))
            if i == cert_bag:
                cert = der
            else:
                chain.append(der)
        return key, cert, chain
    finally:
        lib.gostx_pkcs12_free(p)


def _pbe(value, what):
    if not isinstance(value, str) or value.lower() not in _PBES or (
            what == "key_pbe" and value.lower() == "none"):
        raise GostxValueError(f"{what} must be one of gost89, kuznyechik, magma, kuznyechik-omac, "
                              f"magma-omac{', none' if what == 'cert_pbe' else ''}; got {value!r}")
    return _PBES[value.lower()]


def dump(key, cert, chain=(), password=b"", *, name=None, key_pbe="gost89", cert_pbe=None,
         iterations=2048):
    """PKCS#12 DER of key (a PrivateKey), cert (DER bytes: key's certificate,
    whose subject key must be key's public key) and chain (DER bytes each),
    under password (bytes-like): the key in a shrouded key bag, the
    certificates in an encrypted part, both tagged with localKeyId and
    friendlyName name (a str), MacData HMAC-Streebog-512, as
    `openssl pkcs12 -export -engine gost` writes it. key_pbe and cert_pbe
    (default: key_pbe; "none" leaves the certificates unencrypted): "gost89"
    (GOST 28147-89 CFB, parameter set Z; read by gost-engine and certtool),
    "kuznyechik", "magma" (CTR-ACPKM), "kuznyechik-omac", "magma-omac".
    iterations: PBKDF2 rounds, 1..10,000,000."""
    if not isinstance(key, PrivateKey):
        raise GostxTypeError(f"key must be a gostx PrivateKey, not {type(key).__name__!r}")
    key._exportable()
    kp = _pbe(key_pbe, "key_pbe")
    cp = _pbe(key_pbe if cert_pbe is None else cert_pbe, "cert_pbe")
    iterations = _iterations(iterations)
    if name is not None and not isinstance(name, str):
        raise GostxTypeError(f"name must be a str or None, not {type(name).__name__!r}")
    ders = [rptr(c) for c in ([cert] if cert is not None else []) + list(chain)]
    certs = ffi.new("uint8_t *[]", ders or [ffi.NULL])
    lens = ffi.new("size_t[]", [len(c) for c in ders] or [0])
    name_c = ffi.new("char[]", name.encode()) if name is not None else ffi.NULL
    pw = _pass_copy(password)
    params = ffi.new("gostx_pkcs12_params *", {"key_pbe": kp, "cert_pbe": cp,
                                                "iterations": iterations, "name": name_c,
                                                "pass": pw, "pass_len": len(pw)})
    k = None
    try:
        with held(key):  # close() on another thread waits for this copy of d
            k = key._c_key()
        need = ffi.new("size_t *")
        args = (k, certs, lens, len(ders), params)
        rc = lib.gostx_pkcs12_write(*args, ffi.NULL, 0, need)
        if rc == lib.GOSTX_EINVAL:
            raise GostxValueError("cert is not key's certificate (its subject key is another), "
                                  "or it or a chain certificate is no GOST certificate")
        check(rc, "pkcs12 length")
        out = ffi.new("uint8_t[]", need[0])
        check(lib.gostx_pkcs12_write(*args, out, len(out), need), "pkcs12")
        return bytes(ffi.buffer(out, need[0]))
    finally:
        if k is not None:
            lib.gostx_gost3410_key_clear(k)
        lib.gostx_memzero(pw, len(pw))
