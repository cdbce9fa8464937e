"""Kuznyechik-XTS (IEEE 1619 over Kuznyechik, ciphertext stealing), as
dm-crypt's kuznyechik-xts-plain64 and VeraCrypt use it.

Calls on more than 1 MiB run in pieces of whole sectors, or (one data unit)
as one call on a thread of its own (_native.detached), so Ctrl-C stops the
caller within about 20 ms; an interrupted call writes nothing to out."""
from ._native import (LONG, GostxValueError, SharedKey, check, detached, ffi, holding, lib, nbytes, need_len,
                      output, own_copy, pool_for, rbuf, rptr, staged)

__all__ = ["KuznyechikXTS"]


class KuznyechikXTS(SharedKey):
    """key: 64 bytes (data key || tweak key, the halves must differ)."""

    _clear = lib.gostx_xts_clear

    def __init__(self, key):
        need_len("key", key, 64)
        self._h = ffi.new("gostx_xts_key *")
        check(lib.gostx_xts_set_key(self._h, rbuf(key)), "key halves must differ")

    def encrypt(self, tweak, data, out=None):
        """One data unit (>= 16 bytes) under a 16-byte tweak block."""
        return self._unit(lib.gostx_xts_encrypt, tweak, data, out)

    def decrypt(self, tweak, data, out=None):
        """Inverse of encrypt (same tweak)."""
        return self._unit(lib.gostx_xts_decrypt, tweak, data, out)

    @holding
    def _unit(self, fn, tweak, data, out):
        need_len("tweak", tweak, 16)
        n = nbytes(data)
        if n > LONG:
            # One data unit's tweak chain runs through it: no pieces.
            st = staged(out, n)
            rc = detached(fn, own_copy(self._live()), bytes(tweak), rptr(data), n, st.p,
                          abandon=st.drop_all)
            if rc:
                st.drop()
                check(rc, "data unit must be >= 16 bytes")
            return st.done()
        res, p = output(out, n)
        check(fn(self._live(), rbuf(tweak), rbuf(data), n, p), "data unit must be >= 16 bytes")
        return res

    def encrypt_sectors(self, data, sector_size=512, first_sector=0, out=None, threads=None):
        """Consecutive data units of sector_size bytes, unit i with the plain64
        tweak first_sector + i (the last may be shorter, >= 16 bytes)."""
        return self._sectors(lib.gostx_xts_encrypt_mt, data, sector_size, first_sector, out,
                             threads)

    def decrypt_sectors(self, data, sector_size=512, first_sector=0, out=None, threads=None):
        """Inverse of encrypt_sectors (same sector_size and first_sector)."""
        return self._sectors(lib.gostx_xts_decrypt_mt, data, sector_size, first_sector, out,
                             threads)

    @holding
    def _sectors(self, fn, data, sector_size, first_sector, out, threads):
        n = nbytes(data)
        if n <= LONG or sector_size < 16:
            res, p = output(out, n)
            check(fn(pool_for(threads), self._live(), first_sector, sector_size, rbuf(data), n, p),
                  "sector_size and data must be >= 16 bytes")
            return res
        pool, key, d = pool_for(threads), self._live(), rptr(data)
        with staged(out, n) as st:
            for off, m in st.pieces(n, sector_size):
                # Tweaks count mod 2**64, as the C numbering does.
                first = first_sector if off == 0 else (first_sector + off // sector_size) % (1 << 64)
                check(fn(pool, key, first, sector_size, d + off, m, st.p + off),
                      "sector_size and data must be >= 16 bytes")
        return st.done()
