"""MGM authenticated encryption (RFC 9058) in the style of the
``cryptography`` package's AEAD classes: encrypt returns ciphertext || tag,
decrypt raises InvalidTag and releases nothing on a wrong tag.

RFC 9058 wants the nonce's most significant bit 0: generate_nonce() makes a
random one that has it; a nonce with the bit set is refused, never masked.
Either the plaintext or the associated data may be empty, not both (RFC
9058 asks for |A| + |P| > 0).

Calls on more than 1 MiB (data and associated data together) run in pieces
on one thread (the streaming MGM context), or with threads= as one call on a
thread of its own (_native.detached), so Ctrl-C stops the caller within
about 20 ms; an interrupted call returns nothing and writes nothing to out."""
import os

from ._native import (LONG, GostxValueError, InvalidTag, SharedKey, check, detached, ffi, lib, nbytes,
                      need_len, new_output, output, own_copy, param, pieces, pool_for, rbuf, rptr, staged)

__all__ = ["KuznyechikMGM", "MagmaMGM"]

_EMPTY = b""
_EMPTY_MSG = "mgm (data and associated data must not both be empty, RFC 9058)"


def _long(data, aad):
    return nbytes(data) + (0 if aad is None else nbytes(aad)) > LONG


def _mt(fn, pool, c, v, a, tag_length, *rest):
    """fn (gostx_mgm_encrypt_mt or _decrypt_mt) with its gostx_mgm_params:
    nonce v, associated data a, the tag length; the pointers live in this
    frame for the call."""
    vp, ap = rptr(v), rptr(a)
    prm = ffi.new("gostx_mgm_params *", {"nonce": vp, "aad": ap, "aad_len": len(a),
                                         "tag_len": tag_length})
    return fn(pool, c, prm, *rest)


class _MGM(SharedKey):
    """An MGM key (RFC 9058); C only reads it, so one object serves any
    number of threads at once."""

    _id = 0
    block_size = 0
    _clear = lib.gostx_cipher_clear

    def __init__(self, key, tag_length=None):
        need_len("key", key, 32)
        self.tag_length = param("tag_length", tag_length, self.block_size, 4, self.block_size)
        self._h = ffi.new("gostx_cipher *")
        check(lib.gostx_cipher_init(self._h, self._id, rbuf(key)))

    @classmethod
    def generate_key(cls):
        """A random 32-byte key (os.urandom)."""
        return os.urandom(32)

    @classmethod
    def generate_nonce(cls):
        """A random nonce of the block size with its most significant bit 0,
        as RFC 9058 requires (n - 1 random bits: never reuse one under a key)."""
        n = bytearray(os.urandom(cls.block_size))
        n[0] &= 0x7F
        return bytes(n)

    _key = SharedKey._live

    def _nonce(self, nonce):
        v = rbuf(nonce)
        if len(v) != self.block_size:
            raise GostxValueError(f"nonce must be {self.block_size} bytes, got {len(v)}")
        if v[0] & 0x80:
            raise GostxValueError("nonce: its most significant bit must be 0 (RFC 9058); "
                                  "generate_nonce() makes a random valid one")
        return v

    def encrypt(self, nonce, data, associated_data=None, threads=None):
        """ciphertext || tag (tag_length bytes)."""
        ident = self._hold()  # as @holding would, without its frame (small calls)
        try:
            if _long(data, associated_data):
                return self._long_call(False, nonce, data, associated_data, None, threads)
            d = rbuf(data)
            res, p = new_output(len(d) + self.tag_length)
            self._encrypt(nonce, d, associated_data, p, threads)
            return res
        finally:
            self._release(ident)

    def encrypt_into(self, nonce, data, associated_data, out, threads=None):
        """Write ciphertext || tag into out (len(data) + tag_length bytes; out
        may be the input buffer if it has room). Returns the bytes written."""
        ident = self._hold()  # as @holding would, without its frame (small calls)
        try:
            if _long(data, associated_data):
                self._long_call(False, nonce, data, associated_data, out, threads)
                return nbytes(data) + self.tag_length
            d = rbuf(data)
            _, p = output(out, len(d) + self.tag_length)
            self._encrypt(nonce, d, associated_data, p, threads)
            return len(d) + self.tag_length
        finally:
            self._release(ident)

    def _encrypt(self, nonce, d, aad, p, threads):
        v, c, n = self._nonce(nonce), self._key(), len(d)
        a = rbuf(_EMPTY if aad is None else aad)
        if threads is None or threads == 1:
            rc = lib.gostx_mgm_encrypt(c, v, a, len(a), d, n, p, p + n, self.tag_length)
        else:
            rc = _mt(lib.gostx_mgm_encrypt_mt, pool_for(threads), c, v, a, self.tag_length, d, n,
                     p, p + n)
        if rc:
            check(rc, _EMPTY_MSG)

    def decrypt(self, nonce, data, associated_data=None, threads=None):
        """Plaintext of ciphertext || tag; InvalidTag when it does not verify."""
        ident = self._hold()  # as @holding would, without its frame (small calls)
        try:
            if _long(data, associated_data):
                return self._long_call(True, nonce, data, associated_data, None, threads)
            d = rbuf(data)
            res, p = new_output(self._ct_len(d))
            self._decrypt(nonce, d, associated_data, p, threads)
            return res
        finally:
            self._release(ident)

    def decrypt_into(self, nonce, data, associated_data, out, threads=None):
        """Write the plaintext into out (len(data) - tag_length bytes); nothing is
        written when the tag is wrong. Returns the bytes written."""
        ident = self._hold()  # as @holding would, without its frame (small calls)
        try:
            if _long(data, associated_data):
                self._long_call(True, nonce, data, associated_data, out, threads)
                return nbytes(data) - self.tag_length
            d = rbuf(data)
            n = self._ct_len(d)
            _, p = output(out, n)
            self._decrypt(nonce, d, associated_data, p, threads)
            return n
        finally:
            self._release(ident)

    def _ct_len(self, d):
        n = len(d) - self.tag_length
        if n < 0:
            raise InvalidTag(f"data shorter than the {self.tag_length}-byte tag")
        return n

    def _decrypt(self, nonce, d, aad, p, threads):
        v, c, n = self._nonce(nonce), self._key(), self._ct_len(d)
        if type(d) is bytes:
            d = rptr(d)  # d + n below addresses the tag
        a = rbuf(_EMPTY if aad is None else aad)
        if threads is None or threads == 1:
            rc = lib.gostx_mgm_decrypt(c, v, a, len(a), d, n, d + n, self.tag_length, p)
        else:
            rc = _mt(lib.gostx_mgm_decrypt_mt, pool_for(threads), c, v, a, self.tag_length, d, n,
                     d + n, p)
        if rc:
            check(rc, "mgm")


    def _long_call(self, decrypt, nonce, data, aad, out, threads):
        """encrypt or decrypt of more than LONG bytes: the result is written to
        a scratch buffer (staged) and released only when the call completes
        (decrypting: when the tag verified)."""
        v, c, t = self._nonce(nonce), self._key(), self.tag_length
        d, a = rptr(data), rptr(_EMPTY if aad is None else aad)
        n = self._ct_len(d) if decrypt else len(d)
        st = staged(out, n if decrypt else n + t, scratch=True)
        tag = d + n if decrypt else st.p + n
        with st:
            if threads is None or threads == 1:
                self._pieces(decrypt, c, v, a, d, n, st, tag)
            elif decrypt:
                st.hi = 0  # an interrupted detached call: its thread wipes (abandon)
                check(detached(_mt, lib.gostx_mgm_decrypt_mt, pool_for(threads), own_copy(c), v, a,
                               t, d, n, tag, st.p, abandon=st.drop_all), "mgm")
            else:
                st.hi = 0
                check(detached(_mt, lib.gostx_mgm_encrypt_mt, pool_for(threads), own_copy(c), v, a,
                               t, d, n, st.p, tag, abandon=st.drop_all), _EMPTY_MSG)
        return st.done()

    def _pieces(self, decrypt, c, v, a, d, n, st, tag):
        """MGM through the streaming context, associated data and data in pieces."""
        ctx = ffi.new("gostx_mgm_ctx *")
        st.hi = 0
        bs = self.block_size
        try:
            check(lib.gostx_mgm_init(ctx, c, int(decrypt), v, len(v)), "mgm")
            for off, m in pieces(len(a), bs):
                check(lib.gostx_mgm_aad(ctx, a + off, m), "mgm")
            for off, m in st.pieces(n, bs):
                check(lib.gostx_mgm_update(ctx, d + off, m, st.p + off), "mgm")
            if decrypt:
                check(lib.gostx_mgm_final_decrypt(ctx, tag, self.tag_length), "mgm")
            else:
                check(lib.gostx_mgm_final_encrypt(ctx, tag, self.tag_length), _EMPTY_MSG)
        finally:
            lib.gostx_mgm_clear(ctx)


class KuznyechikMGM(_MGM):
    """Kuznyechik-MGM: 32-byte key, 16-byte nonce (MSB 0), 16-byte tag by default."""

    _id = lib.GOSTX_ALG_KUZNYECHIK
    block_size = 16


class MagmaMGM(_MGM):
    """Magma-MGM: 32-byte key, 8-byte nonce (MSB 0), 8-byte tag by default."""

    _id = lib.GOSTX_ALG_MAGMA
    block_size = 8
