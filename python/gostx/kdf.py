"""Key derivation (RFC 7836 KDF_256 and KDF_TREE, PBKDF2-HMAC-Streebog-512)
and KExp15/KImp15 key export (R 1323565.1.017-2018)."""
from ._native import GostxValueError, check, detached, ffi, lib, nbytes, need_len, rbuf, take
from .cipher import Kuznyechik, Magma

__all__ = ["kdf_256", "kdf_tree", "pbkdf2", "kexp15", "kimp15"]

_CIPHERS = {"kuznyechik": Kuznyechik, "magma": Magma}


def kdf_256(key, label, seed):
    """KDF_GOSTR3411_2012_256(K, label, seed): 32 bytes."""
    out = ffi.new("uint8_t[32]")
    check(lib.gostx_kdf256(rbuf(key), nbytes(key), rbuf(label), nbytes(label), rbuf(seed),
                           nbytes(seed), out))
    return take(out)


def kdf_tree(key, label, seed, length, r=1):
    """KDF_TREE_GOSTR3411_2012_256 producing length bytes, counter width r (1..4 bytes)."""
    out = ffi.new("uint8_t[]", length)
    check(lib.gostx_kdf_tree256(rbuf(key), nbytes(key), rbuf(label), nbytes(label), rbuf(seed),
                                nbytes(seed), r, out, length), "r must be 1..4, length >= 1")
    return take(out)


def pbkdf2(password, salt, iterations, length=64):
    """PBKDF2-HMAC-Streebog-512 (R 50.1.111-2016). Many iterations run as one
    C call on a thread of its own, so Ctrl-C stops the caller at once (the
    call finishes alone and its output is wiped)."""
    if isinstance(password, str):
        password = password.encode()
    out = ffi.new("uint8_t[]", length)
    p, p_len, s, s_len = rbuf(password), nbytes(password), rbuf(salt), nbytes(salt)
    if iterations * ((length + 63) // 64) <= _PBKDF2_INLINE:
        rc = lib.gostx_pbkdf2_streebog512(p, p_len, s, s_len, iterations, out, length)
    else:  # on copies of the inputs: the call may outlive this one
        pw = ffi.new("uint8_t[]", max(1, p_len))
        ffi.memmove(pw, p, p_len)
        rc = detached(_pbkdf2_wiping, pw, p_len, bytes(salt), s_len, iterations, out, length,
                      abandon=lambda: lib.gostx_memzero(out, length))
    check(rc, "iterations and length must be >= 1")
    return take(out)


# Up to this many HMAC iterations (about 15 ms) PBKDF2 runs on the calling thread.
_PBKDF2_INLINE = 10000


def _pbkdf2_wiping(pw, pw_len, *rest):
    """gostx_pbkdf2_streebog512 on a copy of the password, wiped afterwards."""
    try:
        return lib.gostx_pbkdf2_streebog512(pw, pw_len, *rest)
    finally:
        lib.gostx_memzero(pw, pw_len)


def _keys(cipher, key_enc, key_mac, iv):
    """The two export keys as key objects of one cipher (wiped by the caller's
    with-block), and the half-block IV length."""
    try:
        cls = _CIPHERS[cipher]
    except KeyError:
        raise GostxValueError(f"cipher must be 'kuznyechik' or 'magma', got {cipher!r}") from None
    need_len("iv", iv, cls.block_size // 2)
    try:
        enc = cls(key_enc)
    except ValueError as e:
        raise GostxValueError(f"key_enc: {e}") from None
    try:
        mac = cls(key_mac)
    except ValueError as e:
        enc.close()
        raise GostxValueError(f"key_mac: {e}") from None
    return enc, mac, cls.block_size


def kexp15(key, key_enc, key_mac, iv, cipher="kuznyechik"):
    """Export key: CTR(key_enc, key || OMAC(key_mac, iv || key)); iv: half a block."""
    enc, mac, n = _keys(cipher, key_enc, key_mac, iv)
    with enc, mac:
        out = ffi.new("uint8_t[]", nbytes(key) + n)
        olen = ffi.new("size_t *")
        check(lib.gostx_kexp15(enc._h, mac._h, rbuf(iv), n // 2, rbuf(key), nbytes(key), out,
                               olen), "key must not be empty")
        return bytes(ffi.buffer(out, olen[0]))


def kimp15(wrapped, key_enc, key_mac, iv, cipher="kuznyechik"):
    """Inverse of kexp15; InvalidTag when the MAC does not verify."""
    enc, mac, n = _keys(cipher, key_enc, key_mac, iv)
    with enc, mac:
        if nbytes(wrapped) <= n:
            raise GostxValueError(f"wrapped key must be longer than {n} bytes")
        out = ffi.new("uint8_t[]", nbytes(wrapped))
        klen = ffi.new("size_t *")
        try:
            check(lib.gostx_kimp15(enc._h, mac._h, rbuf(iv), n // 2, rbuf(wrapped),
                                   nbytes(wrapped), out, klen))
            return take(out, klen[0])
        finally:
            lib.gostx_memzero(out, nbytes(wrapped))
