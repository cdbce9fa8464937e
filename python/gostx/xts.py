"""Kuznyechik-XTS (IEEE 1619 over Kuznyechik, ciphertext stealing), as
dm-crypt's kuznyechik-xts-plain64 and VeraCrypt use it."""
from ._native import GostxValueError, output, Wiped, check, ffi, lib, nbytes, need_len, pool_for, rbuf

__all__ = ["KuznyechikXTS"]


class KuznyechikXTS(Wiped):
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

    def _unit(self, fn, tweak, data, out):
        need_len("tweak", tweak, 16)
        n = nbytes(data)
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

    def _sectors(self, fn, data, sector_size, first_sector, out, threads):
        n = nbytes(data)
        res, p = output(out, n)
        check(fn(pool_for(threads), self._live(), first_sector, sector_size, rbuf(data), n, p),
              "sector_size and data must be >= 16 bytes")
        return res
