"""Many independent streams in one call (gostx_batch_streams): each
stream's result equals the one-stream call on it alone. Streams are given as
one buffer of equal-length sectors back to back (no copy), or as a list of
equal-length buffers (joined into one buffer first; the results come back as
a list). Streams of one length run on the library's sector engine. More
than 1 MiB in all runs in pieces of whole streams, so Ctrl-C stops it within
about 20 ms (one stream is never split); an interrupted call writes nothing
to out."""
from ._native import LONG, GostxValueError, check, ffi, held, lib, nbytes, param, pieces, pool_for, rptr, staged

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


def _keys(keys, nsectors):
    """The keys' C structs, one key for every sector or one per sector, held
    for a with-block (closing a key object meanwhile wipes it after the call)."""
    if not isinstance(keys, (list, tuple)):
        keys = [keys]
    if len(keys) not in (1, nsectors):
        raise GostxValueError(f"give 1 key or {nsectors} keys (one per sector), got {len(keys)}")
    return held(*keys)


def _ivs(ivs, nsectors):
    if isinstance(ivs, (list, tuple)):
        if len(ivs) != nsectors:
            raise GostxValueError(f"give {nsectors} ivs, got {len(ivs)}")
        ivs = b"".join(ivs)
    if nsectors == 0:
        return ivs, 0
    return ivs, nbytes(ivs) // nsectors


def _run(op, kp, buf, n, k, threads, ivs=None, iv_len=0, dst=None, tags=None, tag_len=0,
         params_iv_len=0):
    """gostx_batch_streams: stream i is sector i of buf (length n), key kp[0]
    or kp[i], IV ivs + i * iv_len, output dst.p + i * n (dst: staged), tag
    tags + i * tag_len; in pieces of whole streams."""
    out = None if dst is None else dst.p
    st = ffi.new("gostx_stream[]", max(1, k))
    inp = rptr(buf) if k and n else ffi.NULL
    ivp = rptr(ivs) if ivs is not None and k and iv_len else ffi.NULL
    for i in range(k):
        s = st[i]
        s.key = kp[i if len(kp) > 1 else 0]
        s.len = n
        if inp != ffi.NULL:
            setattr(s, "in", inp + i * n)  # "in" is a Python keyword
        if ivp != ffi.NULL:
            s.iv = ivp + i * iv_len
        if out is not None and n:
            s.out = out + i * n
        if tags is not None:
            s.tag = tags + i * tag_len
    p = ffi.new("gostx_batch_params *", {"iv_len": params_iv_len, "tag_len": tag_len})
    pool = pool_for(threads)
    if n * k <= LONG or n == 0:
        return lib.gostx_batch_streams(pool, op, p, st, k)
    for off, m in (pieces if dst is None else dst.pieces)(n * k, n):
        rc = lib.gostx_batch_streams(pool, op, p, st + off // n, m // n)
        if rc:
            return rc
    return 0


def _cipher_batch(op, keys, ivs, data, sector_len, out, threads):
    buf, n, k, is_list = _streams(data, sector_len)
    with _keys(keys, k) as kp:
        ivs, iv_len = _ivs(ivs, k)
        if k and op == lib.GOSTX_BATCH_CTR and any(iv_len != c.block_len // 2 for c in kp):
            raise GostxValueError(f"CTR takes half a block of IV per sector, got {iv_len} bytes")
        if k and op != lib.GOSTX_BATCH_CTR and iv_len == 0:
            raise GostxValueError("CBC takes at least a block of IV per sector, got none")
        dst = staged(None if is_list else out, n * k)
        with dst:
            check(_run(op, kp, buf, n, k, threads, ivs, iv_len, dst=dst,
                       params_iv_len=0 if op == lib.GOSTX_BATCH_CTR else iv_len), "batch")
        return _split(dst.done(), n, k, is_list)


def batch_ctr(keys, ivs, data, sector_len=None, out=None, threads=None):
    """CTR per sector; ivs: half a block per sector (a list, or one buffer)."""
    return _cipher_batch(lib.GOSTX_BATCH_CTR, keys, ivs, data, sector_len, out, threads)


def batch_cbc_encrypt(keys, ivs, data, sector_len=None, out=None, threads=None):
    """CBC per sector (sector_len a multiple of the block size)."""
    return _cipher_batch(lib.GOSTX_BATCH_CBC_ENCRYPT, keys, ivs, data, sector_len, out, threads)


def batch_cbc_decrypt(keys, ivs, data, sector_len=None, out=None, threads=None):
    """Inverse of batch_cbc_encrypt."""
    return _cipher_batch(lib.GOSTX_BATCH_CBC_DECRYPT, keys, ivs, data, sector_len, out, threads)


def batch_omac(keys, data, sector_len=None, mac_len=None, threads=None):
    """OMAC of every sector; a list of MACs."""
    buf, n, k, _ = _streams(data, sector_len)
    with _keys(keys, k) as kp:
        mac_len = param("mac_len", mac_len, kp[0].block_len, 1, kp[0].block_len)
        tags = ffi.new("uint8_t[]", max(1, k * mac_len))
        check(_run(lib.GOSTX_BATCH_OMAC, kp, buf, n, k, threads, tags=tags, tag_len=mac_len),
              "batch omac")
        return [bytes(ffi.buffer(tags + i * mac_len, mac_len)) for i in range(k)]


def _xts_batch(op, keys, data, sector_len, sector_nums, first_sector, out, threads):
    buf, n, k, is_list = _streams(data, sector_len)
    with _keys(keys, k) as kp:
        if sector_nums is not None:
            if len(sector_nums) != k:
                raise GostxValueError(f"give {k} sector numbers, got {len(sector_nums)}")
            nums = list(ffi.new("uint64_t[]", list(sector_nums)))  # 64-bit numbers, as before
        else:
            nums = [(first_sector + i) & (2 ** 64 - 1) for i in range(k)]
            ffi.new("uint64_t *", first_sector)  # first_sector itself must be a 64-bit number
        tweaks = b"".join(x.to_bytes(16, "little") for x in nums)
        dst = staged(None if is_list else out, n * k)
        with dst:
            check(_run(op, kp, buf, n, k, threads, tweaks, 16, dst=dst), "sector_len must be >= 16")
        return _split(dst.done(), n, k, is_list)


def batch_xts_encrypt(keys, data, sector_len=None, sector_nums=None, first_sector=0, out=None,
                      threads=None):
    """XTS per sector (one data unit each) with plain64 tweak sector_nums[i]
    or first_sector + i; keys: KuznyechikXTS object(s)."""
    return _xts_batch(lib.GOSTX_BATCH_XTS_ENCRYPT, keys, data, sector_len, sector_nums,
                      first_sector, out, threads)


def batch_xts_decrypt(keys, data, sector_len=None, sector_nums=None, first_sector=0, out=None,
                      threads=None):
    """Inverse of batch_xts_encrypt."""
    return _xts_batch(lib.GOSTX_BATCH_XTS_DECRYPT, keys, data, sector_len, sector_nums,
                      first_sector, out, threads)
