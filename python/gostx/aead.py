"""MGM authenticated encryption (RFC 9058) in the style of the
``cryptography`` package's AEAD classes: encrypt returns ciphertext || tag,
decrypt raises InvalidTag and releases nothing on a wrong tag.

RFC 9058 wants the nonce's most significant bit 0: generate_nonce() makes a
random one that has it; a nonce with the bit set is refused, never masked.
Either the plaintext or the associated data may be empty, not both (RFC
9058 asks for |A| + |P| > 0)."""
import os

from ._native import (GostxValueError, InvalidTag, Wiped, check, ffi, lib, need_len, new_output, output, param,
                      pool_for, rbuf, rptr)

__all__ = ["KuznyechikMGM", "MagmaMGM"]

_EMPTY = b""


class _MGM(Wiped):
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

    _key = Wiped._live

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
        d = rbuf(data)
        res, p = new_output(len(d) + self.tag_length)
        self._encrypt(nonce, d, associated_data, p, threads)
        return res

    def encrypt_into(self, nonce, data, associated_data, out, threads=None):
        """Write ciphertext || tag into out (len(data) + tag_length bytes; out
        may be the input buffer if it has room). Returns the bytes written."""
        d = rbuf(data)
        _, p = output(out, len(d) + self.tag_length)
        self._encrypt(nonce, d, associated_data, p, threads)
        return len(d) + self.tag_length

    def _encrypt(self, nonce, d, aad, p, threads):
        v, c, n = self._nonce(nonce), self._key(), len(d)
        a = rbuf(_EMPTY if aad is None else aad)
        if threads is None or threads == 1:
            rc = lib.gostx_mgm_encrypt(c, v, len(v), a, len(a), d, n, p, p + n, self.tag_length)
        else:
            rc = lib.gostx_mgm_encrypt_mt(pool_for(threads), c, v, len(v), a, len(a), d, n, p,
                                          p + n, self.tag_length)
        if rc:
            check(rc, "mgm (data and associated data must not both be empty, RFC 9058)")

    def decrypt(self, nonce, data, associated_data=None, threads=None):
        """Plaintext of ciphertext || tag; InvalidTag when it does not verify."""
        d = rbuf(data)
        res, p = new_output(self._ct_len(d))
        self._decrypt(nonce, d, associated_data, p, threads)
        return res

    def decrypt_into(self, nonce, data, associated_data, out, threads=None):
        """Write the plaintext into out (len(data) - tag_length bytes); nothing is
        written when the tag is wrong. Returns the bytes written."""
        d = rbuf(data)
        n = self._ct_len(d)
        _, p = output(out, n)
        self._decrypt(nonce, d, associated_data, p, threads)
        return n

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
            rc = lib.gostx_mgm_decrypt(c, v, len(v), a, len(a), d, n, d + n, self.tag_length, p)
        else:
            rc = lib.gostx_mgm_decrypt_mt(pool_for(threads), c, v, len(v), a, len(a), d, n, d + n,
                                          self.tag_length, p)
        if rc:
            check(rc, "mgm")


class KuznyechikMGM(_MGM):
    """Kuznyechik-MGM: 32-byte key, 16-byte nonce (MSB 0), 16-byte tag by default."""

    _id = lib.GOSTX_ALG_KUZNYECHIK
    block_size = 16


class MagmaMGM(_MGM):
    """Magma-MGM: 32-byte key, 8-byte nonce (MSB 0), 8-byte tag by default."""

    _id = lib.GOSTX_ALG_MAGMA
    block_size = 8
