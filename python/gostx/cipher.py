"""Kuznyechik and Magma (GOST R 34.12-2015) with the GOST R 34.13-2015 modes:
one-shot methods on a key object and streaming encryptor/decryptor contexts.

Every one-shot method takes any buffer (bytes, bytearray, memoryview, numpy,
mmap) without copying it, returns a new bytes object, or writes into ``out=``
(a writable buffer, which may be the input itself) and returns ``out``.
Calls on more than 1 MiB run in pieces (_native.pieces), so Ctrl-C stops them
within about 20 ms, and an interrupted call writes nothing: out= is filled
from a scratch buffer only when the whole call is done.
"""
import threading

from ._native import (LONG, GostxValueError, SharedKey, Wiped, check, context_copy, detached, ffi, held,
                      holding, lib, nbytes, need_len, new_output, output, own_copy, param, pool_for, rbuf,
                      rptr, staged, take, update_on_copy)

__all__ = ["Kuznyechik", "Magma", "ModeContext", "OMACContext",
           "ECB", "CBC", "CFB", "OFB", "CTR", "CTR_ACPKM", "PAD_NONE", "PAD_1", "PAD_2", "PAD_3"]

ECB, CBC, CFB, OFB, CTR, CTR_ACPKM = "ecb", "cbc", "cfb", "ofb", "ctr", "ctr-acpkm"
_MODE_IDS = {ECB: lib.GOSTX_MODE_ECB, CBC: lib.GOSTX_MODE_CBC, CFB: lib.GOSTX_MODE_CFB,
             OFB: lib.GOSTX_MODE_OFB, CTR: lib.GOSTX_MODE_CTR, CTR_ACPKM: lib.GOSTX_MODE_CTR_ACPKM}
PAD_NONE, PAD_1, PAD_2, PAD_3 = lib.GOSTX_PAD_NONE, lib.GOSTX_PAD_1, lib.GOSTX_PAD_2, lib.GOSTX_PAD_3
KEY_LEN = 32


class _BlockCipher(SharedKey):
    """A keyed cipher: the expanded key lives in C memory owned by this object
    and is wiped by close(), context exit or garbage collection."""

    _id = 0
    block_size = 0
    name = ""
    _clear = lib.gostx_cipher_clear

    def __init__(self, key):
        need_len("key", key, KEY_LEN)
        self._h = ffi.new("gostx_cipher *")
        check(lib.gostx_cipher_init(self._h, self._id, rbuf(key)))

    _key = SharedKey._live

    def _whole_blocks(self, n):
        if n % self.block_size:
            raise GostxValueError(f"data must be a multiple of {self.block_size} bytes "
                             f"(pad it, or use a streaming context with padding), got {n}")

    def _check_iv(self, m, multiple):
        """GOST R 34.13's m: block size..64 bytes (CBC, OFB: a multiple of the block)."""
        bs = self.block_size
        if not bs <= m <= 64 or (multiple and m % bs):
            kind = f"a multiple of {bs}" if multiple else "any length"
            raise GostxValueError(f"iv must be {bs}..64 bytes ({kind}), got {m}")

    def _check_half(self, v):
        self._key()
        if len(v) != self._half:
            raise GostxValueError(f"iv must be {self._half} bytes, got {len(v)}")

    # ---- raw blocks ----
    def encrypt_blocks(self, data, out=None):
        """Encrypt whole blocks (len a multiple of the block size)."""
        return self._blocks(lib.gostx_cipher_encrypt_blocks, data, out)

    def decrypt_blocks(self, data, out=None):
        """Decrypt whole blocks (len a multiple of the block size)."""
        return self._blocks(lib.gostx_cipher_decrypt_blocks, data, out)

    @holding
    def _blocks(self, fn, data, out):
        d = rbuf(data)
        n = len(d)
        if n % self.block_size:
            raise GostxValueError(f"data must be a multiple of {self.block_size} bytes, got {n}")
        c, bs = self._key(), self.block_size
        if n <= LONG:
            res, p = output(out, n)
            fn(c, d, n // bs, p)
            return res
        st, d = staged(out, n), rptr(data)
        with st:
            for off, m in st.pieces(n, bs):
                fn(c, d + off, m // bs, st.p + off)
        return st.done()

    # ---- one-shot modes ----
    def ecb_encrypt(self, data, out=None, threads=None):
        """ECB; len a multiple of the block size. threads: bulk-engine workers
        (None/1 = this thread, 0 = one per CPU)."""
        return self._ecb(lib.gostx_ecb_encrypt, lib.gostx_ecb_encrypt_mt, data, out, threads)

    def ecb_decrypt(self, data, out=None, threads=None):
        """Inverse of ecb_encrypt."""
        return self._ecb(lib.gostx_ecb_decrypt, lib.gostx_ecb_decrypt_mt, data, out, threads)

    @holding
    def _ecb(self, fn, fn_mt, data, out, threads):
        d = rbuf(data)
        n = len(d)
        self._whole_blocks(n)
        c = self._key()
        if threads is None or threads == 1:
            call = fn
        else:
            pool = pool_for(threads)
            call = lambda c, d, n, p: fn_mt(pool, c, d, n, p)  # noqa: E731
        if n <= LONG:
            res, p = output(out, n)
            check(call(c, d, n, p), "ecb")
            return res
        st, d = staged(out, n), rptr(data)
        with st:
            for off, m in st.pieces(n, self.block_size):
                check(call(c, d + off, m, st.p + off), "ecb")
        return st.done()

    def cbc_encrypt(self, iv, data, out=None):
        """CBC; iv: m bytes, a positive multiple of the block size (<= 64)."""
        return self._reg(lib.gostx_cbc_encrypt, iv, data, out)

    def cbc_decrypt(self, iv, data, out=None):
        """Inverse of cbc_encrypt (same iv)."""
        return self._reg(lib.gostx_cbc_decrypt, iv, data, out)

    @holding
    def _reg(self, fn, iv, data, out):
        d, v = rbuf(data), rbuf(iv)
        m, n, c = len(v), len(d), self._key()
        self._check_iv(m, True)
        self._whole_blocks(n)
        if n <= LONG:
            res, p = output(out, n)
            check(fn(c, v, m, d, n, p), "iv length or data length")
            return res
        # In pieces of whole m-byte registers: the register after a piece is
        # its last m bytes of ciphertext (the output when encrypting, the
        # input when decrypting).
        st, d = staged(out, n), rptr(data)
        chain = st.p if fn is lib.gostx_cbc_encrypt else d
        with st:
            for off, k in st.pieces(n, m):
                check(fn(c, v, m, d + off, k, st.p + off), "iv length or data length")
                v = chain + (off + k - m)
        return st.done()

    def cfb_encrypt(self, iv, data, s=None, out=None):
        """CFB; iv: m bytes (block size..64); s: segment bytes (default block size)."""
        return self._seg(lib.gostx_cfb_encrypt, iv, data, s, out)

    def cfb_decrypt(self, iv, data, s=None, out=None):
        """Inverse of cfb_encrypt (same iv and s)."""
        return self._seg(lib.gostx_cfb_decrypt, iv, data, s, out)

    def ofb(self, iv, data, s=None, out=None):
        """OFB (encryption = decryption); iv: m bytes, a multiple of the block size."""
        return self._seg(lib.gostx_ofb_crypt, iv, data, s, out)

    @holding
    def _seg(self, fn, iv, data, s, out):
        d, v = rbuf(data), rbuf(iv)
        self._check_iv(len(v), fn is lib.gostx_ofb_crypt)
        s = param("segment s", s, self.block_size, 1, self.block_size)
        n = len(d)
        if n > LONG:
            mode = {lib.gostx_cfb_encrypt: CFB, lib.gostx_cfb_decrypt: CFB, lib.gostx_ofb_crypt: OFB}[fn]
            return self._in_pieces(mode, fn is lib.gostx_cfb_decrypt, v, s, 0, data, n, out)
        res, p = output(out, n)
        check(fn(self._key(), v, len(v), s, d, n, p),
              "iv length or segment")
        return res

    def _in_pieces(self, mode, decrypt, v, s, section_len, data, n, out):
        """A one-shot stream mode (output length = input length) on more
        than LONG bytes: a streaming context fed in pieces."""
        ctx = ffi.new("gostx_mode_ctx *")
        olen = ffi.new("size_t *")
        d = rptr(data)
        with staged(out, n) as st:
            try:
                check(lib.gostx_mode_init(ctx, self._key(), _MODE_IDS[mode], int(decrypt), v, len(v),
                                          s, PAD_NONE, section_len), f"{mode} parameters")
                for off, m in st.pieces(n, self.block_size):
                    check(lib.gostx_mode_update(ctx, d + off, m, st.p + off, olen), mode)
            finally:
                lib.gostx_mode_clear(ctx)
        return st.done()

    def ctr(self, iv, data, s=None, out=None, threads=None):
        """CTR (encryption = decryption); iv: half a block."""
        # The hot path of small calls: every step here costs per call (so
        # _hold / _release as @holding would call them, without its frame).
        ident = self._hold()
        try:
            c, v, d = self._h, rbuf(iv), rbuf(data)
            if len(v) != self._half:
                self._check_half(v)
            n = len(d)
            if s is not None:
                s = param("segment s", s, None, 1, self.block_size)
            whole = s is None or s == self.block_size
            if n > LONG:
                if whole:
                    return self._ctr_pieces(c, v, data, n, out, threads)
                return self._in_pieces(CTR, False, v, s, 0, data, n, out)
            res, p = output(out, n)
            if (threads is None or threads == 1) or not whole:
                rc = lib.gostx_ctr_crypt(c, v, len(v), s or self.block_size, d, n, p)
            else:
                rc = lib.gostx_ctr_crypt_mt(pool_for(threads), c, v, len(v), d, n, p)
            if rc:
                check(rc, "ctr")
            return res
        finally:
            self._release(ident)

    def _ctr_pieces(self, c, v, data, n, out, threads):
        """CTR with whole-block segments in pieces: each piece starts at its
        own block's counter (one thread when the pool is NULL)."""
        pool = ffi.NULL if threads is None or threads == 1 else pool_for(threads)
        bs = self.block_size
        st, d = staged(out, n), rptr(data)
        with st:
            for off, m in st.pieces(n, bs):
                check(lib.gostx_ctr_crypt_mt_at(pool, c, v, len(v), off // bs, d + off, m,
                                                st.p + off), "ctr")
        return st.done()

    @holding
    def ctr_acpkm(self, iv, data, section_len=None, out=None, threads=None):
        """CTR-ACPKM (RFC 8645); section_len: N bytes, a multiple of the block
        size (default 4096 for Kuznyechik, 1024 for Magma, as gost-engine)."""
        v, d = rbuf(iv), rbuf(data)
        self._check_half(v)
        n = len(d)
        section_len = param("section_len", section_len, self._acpkm_default, self.block_size)
        single = threads is None or threads == 1
        if n > LONG and single:
            return self._in_pieces(CTR_ACPKM, False, v, 0, section_len, data, n, out)
        if n > LONG:
            # The threaded key chain cannot start mid-message: one call on a
            # thread of its own, into a scratch buffer (see detached).
            st, d, c, pool = staged(out, n), rptr(data), self._key(), pool_for(threads)
            rc = detached(lib.gostx_ctr_acpkm_crypt_mt, pool, own_copy(c), v, len(v), section_len, d, n, st.p,
                          abandon=st.drop_all)
            if rc:
                st.drop()
                check(rc, "ctr-acpkm")
            return st.done()
        res, p = output(out, n)
        if single:
            check(lib.gostx_ctr_acpkm_crypt(self._key(), v, len(v), section_len, d, n, p),
                  "ctr-acpkm")
        else:
            check(lib.gostx_ctr_acpkm_crypt_mt(pool_for(threads), self._key(), v, len(v),
                                               section_len, d, n, p), "ctr-acpkm")
        return res

    @holding
    def omac(self, data, mac_len=None):
        """OMAC (GOST R 34.13 MAC); mac_len 1..block size (default the block size)."""
        mac_len = param("mac_len", mac_len, self.block_size, 1, self.block_size)
        d = rbuf(data)
        if len(d) > LONG:
            with OMACContext(self) as ctx:  # in pieces
                ctx.update(data)
                return ctx.finalize(mac_len)
        mac = ffi.new("uint8_t[]", mac_len)
        check(lib.gostx_omac(self._key(), d, len(d), mac, mac_len), "omac")
        return bytes(ffi.buffer(mac))

    @holding
    def omac_acpkm(self, data, section_len, master_section_len, mac_len=None):
        """OMAC-ACPKM (RFC 8645 OMAC-ACPKM-Master): section N and T* in bytes."""
        mac_len = param("mac_len", mac_len, self.block_size, 1, self.block_size)
        if nbytes(data) > LONG:
            with OMACContext(self, section_len, master_section_len) as ctx:  # in pieces
                ctx.update(data)
                return ctx.finalize(mac_len)
        mac = ffi.new("uint8_t[]", mac_len)
        check(lib.gostx_omac_acpkm(self._key(), section_len, master_section_len, rbuf(data),
                                   nbytes(data), mac, mac_len), "omac-acpkm")
        return bytes(ffi.buffer(mac))

    # ---- streaming ----
    def encryptor(self, mode, iv=None, s=None, padding=PAD_NONE, section_len=None):
        """A streaming context: update(data) -> bytes, finalize() -> bytes.
        mode: "ecb", "cbc", "cfb", "ofb", "ctr", "ctr-acpkm"; padding (ECB/CBC):
        PAD_NONE or GOST R 34.13 procedure PAD_1/PAD_2/PAD_3."""
        return ModeContext(self, mode, False, iv, s, padding, section_len)

    def decryptor(self, mode, iv=None, s=None, padding=PAD_NONE, section_len=None):
        """As encryptor; PAD_2 padding is removed at finalize (ValueError if malformed)."""
        return ModeContext(self, mode, True, iv, s, padding, section_len)

    def omac_context(self, section_len=None, master_section_len=None):
        """Streaming OMAC (or OMAC-ACPKM when section lengths are given)."""
        return OMACContext(self, section_len, master_section_len)


class Kuznyechik(_BlockCipher):
    """Kuznyechik (GOST R 34.12-2015, 128-bit block, 32-byte key)."""

    _id = lib.GOSTX_ALG_KUZNYECHIK
    block_size = 16
    _half = 8
    name = "kuznyechik"
    _acpkm_default = 4096


class Magma(_BlockCipher):
    """Magma (GOST R 34.12-2015, 64-bit block, 32-byte key)."""

    _id = lib.GOSTX_ALG_MAGMA
    block_size = 8
    _half = 4
    name = "magma"
    _acpkm_default = 1024


class ModeContext(Wiped):
    """Streaming encryption or decryption in one GOST R 34.13 mode. Holds its
    own copy of the key (wiped at finalize, close, context exit or del). Safe
    to share between threads: the calls on it take turns (a lock), so the
    output is that of the updates in the order they got the lock."""

    _clear = lib.gostx_mode_clear

    def __init__(self, cipher, mode, decrypt, iv, s, padding, section_len):
        try:
            mode_id = _MODE_IDS[mode]
        except KeyError:
            raise GostxValueError(f"mode must be one of {sorted(_MODE_IDS)}, got {mode!r}") from None
        bs = cipher.block_size
        if mode == ECB:
            if iv is not None:
                raise GostxValueError("ECB takes no iv")
            iv = b""
        elif iv is None:
            raise GostxValueError(f"{mode} needs an iv")
        elif mode in (CTR, CTR_ACPKM):
            need_len("iv", iv, bs // 2)
        s = param("segment s", s, 0, 1, bs)  # 0 tells C "the block size"
        # C takes 0 for "none" (other modes) and refuses a length given to them.
        section_len = param("section_len", section_len,
                            cipher._acpkm_default if mode == CTR_ACPKM else 0, bs)
        self._bs = bs
        self._exact = mode not in (ECB, CBC)  # output length = input length
        self._lock = threading.Lock()
        self._h = ffi.new("gostx_mode_ctx *")
        self._olen = ffi.new("size_t *")
        with held(cipher) as (key,):
            check(lib.gostx_mode_init(self._h, key, mode_id, int(decrypt),
                                      rbuf(iv) if nbytes(iv) else ffi.NULL, nbytes(iv), s,
                                      padding, section_len), f"{mode} parameters")

    def _copied(self):
        self._olen = ffi.new("size_t *")

    def copy(self):
        """An independent context with the state of this one (its own key copy)."""
        return self._duplicate()

    def update(self, data):
        """Process data; returns the output it completes (ECB/CBC hold back
        a partial block, the other modes return len(data) bytes)."""
        d = rbuf(data)
        n = len(d)
        if n > LONG:
            st = staged(None, n if self._exact else n + self._bs)
            k = self._update_pieces(d, n, st)
            if self._exact:
                return st.res
            res = st.res[:k]
            st.drop()
            return res
        if self._exact:
            res, p = new_output(n)
            self._update(d, n, p)
            return res
        buf = ffi.new("uint8_t[]", n + self._bs)
        return take(buf, self._update(d, n, buf))

    def update_into(self, data, out):
        """Write the output into out (room for len(data) + block size for ECB/CBC,
        len(data) otherwise); returns the number of bytes written."""
        d = rbuf(data)
        n = len(d)
        if n > LONG:
            st = staged(out, n if self._exact else n + self._bs)
            k = self._update_pieces(d, n, st)
            st.done(k)
            return k
        res, p = output(out, n if self._exact else n + self._bs)
        return self._update(d, n, p)

    def _update_pieces(self, d, n, st):
        """update in pieces on a copy of the context, which replaces it at the
        end: an interrupted update leaves the context and out as they were."""
        with self._lock:
            d, q = rptr(d), 0
            with st:
                with context_copy(self._live()) as tmp:
                    for off, m in st.pieces(n, self._bs):
                        check(lib.gostx_mode_update(tmp, d + off, m, st.p + q, self._olen))
                        q += self._olen[0]
            return q

    def _update(self, d, n, p):
        with self._lock:
            check(lib.gostx_mode_update(self._live(), d, n, p, self._olen))
            return self._olen[0]

    def finalize(self):
        """The last output (padding added or removed); ends the context."""
        buf = ffi.new("uint8_t[]", 2 * self._bs)
        with self._lock:
            ctx = self._live()
            self._h = None  # final wipes the context, success or not
            check(lib.gostx_mode_final(ctx, buf, self._olen), "finalize (padding or length)")
            return take(buf, self._olen[0])



class OMACContext(Wiped):
    """Streaming OMAC / OMAC-ACPKM: update(data), finalize(mac_len=None).
    Safe to share between threads (a lock around every C call on it)."""

    _clear = lib.gostx_omac_clear

    def __init__(self, cipher, section_len=None, master_section_len=None):
        self._bs = cipher.block_size
        self._lock = threading.Lock()
        self._h = ffi.new("gostx_omac_ctx *")
        if (section_len is None) != (master_section_len is None):
            raise GostxValueError("OMAC-ACPKM needs both section_len and master_section_len")
        with held(cipher) as (key,):
            if section_len is None:
                check(lib.gostx_omac_init(self._h, key))
            else:
                check(lib.gostx_omac_acpkm_init(self._h, key,
                                                param("section_len", section_len, None, 1),
                                                param("master_section_len", master_section_len, None, 1)),
                      "omac-acpkm sections")

    def copy(self):
        """An independent context with the state of this one."""
        return self._duplicate()

    def update(self, data):
        """MAC the bytes of data after what came before."""
        d = rbuf(data)
        with self._lock:
            update_on_copy(self._live(), lib.gostx_omac_update, d, len(d), self._bs)

    def finalize(self, mac_len=None):
        """The MAC (its first mac_len bytes, default the block size); ends the context."""
        mac_len = param("mac_len", mac_len, self._bs, 1, self._bs)
        mac = ffi.new("uint8_t[]", mac_len)
        with self._lock:
            ctx = self._live()
            self._h = None  # final wipes the context
            check(lib.gostx_omac_final(ctx, mac, mac_len), "mac_len")
        return bytes(ffi.buffer(mac))

