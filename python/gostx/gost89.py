"""GOST 28147-89 and its 1989 modes: simple replacement (ECB), counter
gamma (CNT), gamma with feedback (CFB) and IMIT, with optional CryptoPro key
meshing. Little-endian conventions of RFC 5830.

Calls on more than 1 MiB run in pieces, so Ctrl-C stops them within about
20 ms; an interrupted call writes nothing to out and leaves a context as it
was."""
import threading

from ._native import (LONG, GostxValueError, SharedKey, Wiped, check, context_copy, ffi, holding, lib, nbytes,
                      need_len, output, rbuf, rptr, staged, update_on_copy)

__all__ = ["Gost89", "Gost89Context"]

_MODES = {"ecb": lib.GOSTX_GOST89_ECB, "cnt": lib.GOSTX_GOST89_CNT, "cfb": lib.GOSTX_GOST89_CFB}


def _sbox_id(sbox):
    i = lib.gostx_sbox_by_name(sbox.encode())
    if i < 0:
        raise GostxValueError(f"unknown S-box {sbox!r} (tc26-z, cryptopro-a..d, test-3411-94, test-28147, cryptopro-3411-94, or an OID)")
    return i


class Gost89(SharedKey):
    """A GOST 28147-89 key (32 bytes) with an S-box parameter set by name."""

    _clear = lib.gostx_magma_clear
    block_size = 8

    def __init__(self, key, sbox="cryptopro-a"):
        need_len("key", key, 32)
        self._h = ffi.new("gostx_gost89_key *")
        check(lib.gostx_gost89_set_key(self._h, rbuf(key), _sbox_id(sbox)))

    def ecb_encrypt(self, data, out=None):
        """Simple replacement (ECB) of whole 8-byte blocks."""
        return self._ecb(lib.gostx_gost89_ecb_encrypt, data, out)

    def ecb_decrypt(self, data, out=None):
        """Inverse of ecb_encrypt."""
        return self._ecb(lib.gostx_gost89_ecb_decrypt, data, out)

    @holding
    def _ecb(self, fn, data, out):
        n = nbytes(data)
        if n <= LONG or n % 8:
            res, p = output(out, n)
            check(fn(self._live(), rbuf(data), n, p), "data must be a multiple of 8 bytes")
            return res
        key, d = self._live(), rptr(data)
        with staged(out, n) as st:
            for off, m in st.pieces(n, 8):
                check(fn(key, d + off, m, st.p + off))
        return st.done()

    def cnt(self, iv, data, meshing=False, out=None):
        """Counter gamma (encryption = decryption); iv 8 bytes."""
        with self.encryptor("cnt", iv, meshing) as ctx:
            return ctx.update(data, out)

    def cfb_encrypt(self, iv, data, meshing=False, out=None):
        """Gamma with feedback (CFB); iv 8 bytes; any length."""
        with self.encryptor("cfb", iv, meshing) as ctx:
            return ctx.update(data, out)

    def cfb_decrypt(self, iv, data, meshing=False, out=None):
        """Inverse of cfb_encrypt (same iv and meshing)."""
        with self.decryptor("cfb", iv, meshing) as ctx:
            return ctx.update(data, out)

    def imit(self, data, mac_len=4, iv=None, meshing=False):
        """IMIT MAC (mac_len 1..8, 4 classic), as CryptoPro and gost-engine compute it."""
        with self.imit_context(iv, meshing) as ctx:
            ctx.imit_update(data)
            return ctx.finalize(mac_len)

    @holding
    def encryptor(self, mode, iv=None, meshing=False):
        """Streaming "cnt", "cfb" or "ecb" (whole blocks per update)."""
        return Gost89Context(self._live(), mode, False, iv, meshing)

    @holding
    def decryptor(self, mode, iv=None, meshing=False):
        """As encryptor, decrypting."""
        return Gost89Context(self._live(), mode, True, iv, meshing)

    @holding
    def imit_context(self, iv=None, meshing=False):
        """Streaming IMIT: imit_update(data) ..., then finalize(mac_len)."""
        return Gost89Context(self._live(), "imit", False, iv, meshing)


class Gost89Context(Wiped):
    """Streaming 1989 mode: update(data) -> bytes; for IMIT imit_update() then
    finalize(). Meshes its own copy of the key (wiped with the context).
    Safe to share between threads (a lock around every C call on it)."""

    _clear = lib.gostx_gost89_ctx_clear

    def __init__(self, key, mode, decrypt, iv, meshing):
        if iv is not None:
            need_len("iv", iv, 8)
        self._lock = threading.Lock()
        self._h = ffi.new("gostx_gost89_ctx *")
        ivp = rbuf(iv) if iv is not None else ffi.NULL
        if mode == "imit":
            check(lib.gostx_gost89_imit_init(self._h, key, ivp, int(meshing)))
            return
        if mode not in _MODES:
            raise GostxValueError(f"mode must be one of {sorted(_MODES)} or 'imit', got {mode!r}")
        if mode != "ecb" and iv is None:
            raise GostxValueError("iv must be 8 bytes, got None")
        check(lib.gostx_gost89_init(self._h, key, _MODES[mode], int(decrypt), ivp, int(meshing)))

    def copy(self):
        """An independent context with the state of this one."""
        return self._duplicate()

    def update(self, data, out=None):
        """Encrypt or decrypt data (ECB: whole blocks); returns as many bytes."""
        d = rbuf(data)
        n = len(d)
        if n > LONG:
            return self._update_pieces(d, n, out)
        res, p = output(out, n)
        with self._lock:
            check(lib.gostx_gost89_update(self._live(), d, n, p), "gost89 update")
        return res

    def _update_pieces(self, d, n, out):
        """update in pieces on a copy of the context, which replaces it at the end."""
        d = rptr(d)
        with self._lock, staged(out, n) as st, context_copy(self._live()) as tmp:
            for off, m in st.pieces(n, 8):
                check(lib.gostx_gost89_update(tmp, d + off, m, st.p + off), "gost89 update")
        return st.done()

    def imit_update(self, data):
        """IMIT: MAC the bytes of data after what came before."""
        d = rbuf(data)
        with self._lock:
            update_on_copy(self._live(), lib.gostx_gost89_imit_update, d, len(d), 8)

    def finalize(self, mac_len=4):
        """IMIT: the MAC (mac_len 1..8 bytes); ends the context."""
        mac = ffi.new("uint8_t[]", mac_len)
        with self._lock:
            check(lib.gostx_gost89_imit_final(self._live(), mac, mac_len), "mac_len must be 1..8")
            self._close()
        return bytes(ffi.buffer(mac))
