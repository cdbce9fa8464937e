"""Many independent streams in one call (the bulk engine's sector batches):
each stream's result equals the one-stream call on it alone. Streams are
given as one buffer of equal-length sectors back to back (no copy), or as a
list of equal-length buffers (joined into one buffer first; the results come
back as a list)."""
from ._native import GostxValueError, output, check, ffi, lib, nbytes, param, pool_for, rbuf

__all__ = ["batch_ctr", "batch_cbc_encrypt", "batch_cbc_decrypt", "batch_omac",
           "batch_xts_encrypt", "batch_xts_decrypt"]


def _streams(data, sector_len):
    """(buffer, sector_len, nsectors, is_list)."""
    if isinstance(data, (list, tuple)):
        lens = {nbytes(d) for d in data}
        if len(lens) > 1:
            raise GostxValueError(f"all buffers must have the same length, got {sorted(lens)}")
        n = lens.pop() if lens else 0
        if sector_len is not None and sector_len != n:
            raise GostxValueError(f"sector_len {sector_len} is not the buffers' length {n}")
        return b"".join(data), n, len(data), True
    if not sector_len:
        raise GostxValueError("sector_len is needed when data is one buffer")
    total = nbytes(data)
    if total % sector_len:
        raise GostxValueError(f"data ({total} bytes) is not a whole number of {sector_len}-byte sectors")
    return data, sector_len, total // sector_len, False


def _split(res, n, k, is_list):
    if not is_list:
        return res
    return [res[i * n:(i + 1) * n] for i in range(k)]


def _keys(keys, ctype, nsectors):
    """A C array of key pointers: one key for every sector, or one per sector."""
    if not isinstance(keys, (list, tuple)):
        keys = [keys]
    if len(keys) not in (1, nsectors):
        raise GostxValueError(f"give 1 key or {nsectors} keys (one per sector), got {len(keys)}")
    return ffi.new(ctype, [k._live() for k in keys]), len(keys)


def _ivs(ivs, nsectors):
    if isinstance(ivs, (list, tuple)):
        if len(ivs) != nsectors:
            raise GostxValueError(f"give {nsectors} ivs, got {len(ivs)}")
        ivs = b"".join(ivs)
    if nsectors == 0:
        return ivs, 0
    return ivs, nbytes(ivs) // nsectors


def _cipher_batch(fn, keys, ivs, data, sector_len, out, threads):
    buf, n, k, is_list = _streams(data, sector_len)
    kp, nk = _keys(keys, "gostx_cipher *[]", k)
    ivs, iv_len = _ivs(ivs, k)
    res, p = output(None if is_list else out, n * k)
    check(fn(pool_for(threads), kp, nk, rbuf(ivs), iv_len, rbuf(buf), n, k, p), "batch")
    return _split(res, n, k, is_list)


def batch_ctr(keys, ivs, data, sector_len=None, out=None, threads=None):
    """CTR per sector; ivs: half a block per sector (a list, or one buffer)."""
    return _cipher_batch(lib.gostx_batch_ctr_crypt, keys, ivs, data, sector_len, out, threads)


def batch_cbc_encrypt(keys, ivs, data, sector_len=None, out=None, threads=None):
    """CBC per sector (sector_len a multiple of the block size)."""
    return _cipher_batch(lib.gostx_batch_cbc_encrypt, keys, ivs, data, sector_len, out, threads)


def batch_cbc_decrypt(keys, ivs, data, sector_len=None, out=None, threads=None):
    """Inverse of batch_cbc_encrypt."""
    return _cipher_batch(lib.gostx_batch_cbc_decrypt, keys, ivs, data, sector_len, out, threads)


def batch_omac(keys, data, sector_len=None, mac_len=None, threads=None):
    """OMAC of every sector; a list of MACs."""
    buf, n, k, _ = _streams(data, sector_len)
    kp, nk = _keys(keys, "gostx_cipher *[]", k)
    mac_len = param("mac_len", mac_len, kp[0].block_len, 1, kp[0].block_len)
    tags = ffi.new("uint8_t[]", max(1, k * mac_len))
    check(lib.gostx_batch_omac(pool_for(threads), kp, nk, rbuf(buf), n, k, tags, mac_len),
          "batch omac")
    return [bytes(ffi.buffer(tags + i * mac_len, mac_len)) for i in range(k)]


def _xts_batch(fn, keys, data, sector_len, sector_nums, first_sector, out, threads):
    buf, n, k, is_list = _streams(data, sector_len)
    kp, nk = _keys(keys, "gostx_xts_key *[]", k)
    nums = ffi.NULL
    if sector_nums is not None:
        if len(sector_nums) != k:
            raise GostxValueError(f"give {k} sector numbers, got {len(sector_nums)}")
        nums = ffi.new("uint64_t[]", list(sector_nums))
    res, p = output(None if is_list else out, n * k)
    check(fn(pool_for(threads), kp, nk, nums, first_sector, n, rbuf(buf), k, p),
          "sector_len must be >= 16")
    return _split(res, n, k, is_list)


def batch_xts_encrypt(keys, data, sector_len=None, sector_nums=None, first_sector=0, out=None,
                      threads=None):
    """XTS per sector (one data unit each) with plain64 tweak sector_nums[i]
    or first_sector + i; keys: KuznyechikXTS object(s)."""
    return _xts_batch(lib.gostx_batch_xts_encrypt, keys, data, sector_len, sector_nums,
                      first_sector, out, threads)


def batch_xts_decrypt(keys, data, sector_len=None, sector_nums=None, first_sector=0, out=None,
                      threads=None):
    """Inverse of batch_xts_encrypt."""
    return _xts_batch(lib.gostx_batch_xts_decrypt, keys, data, sector_len, sector_nums,
                      first_sector, out, threads)
