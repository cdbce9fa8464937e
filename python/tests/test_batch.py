"""Batch (many-stream) calls equal the one-stream calls, for one key and for
a key per stream, given as one buffer or as a list."""
import os

import pytest

import gostx


@pytest.mark.parametrize("cls", [gostx.Kuznyechik, gostx.Magma])
@pytest.mark.parametrize("key_per_stream", [False, True])
def test_batch_equals_single(cls, key_per_stream):
    nstreams, sector = 37, 4096
    keys = [cls(os.urandom(32)) for _ in range(nstreams if key_per_stream else 1)]
    key_of = (lambda i: keys[i]) if key_per_stream else (lambda i: keys[0])
    bs = cls.block_size
    data = [os.urandom(sector) for _ in range(nstreams)]
    ivs_ctr = [os.urandom(bs // 2) for _ in range(nstreams)]
    ivs_cbc = [os.urandom(bs) for _ in range(nstreams)]
    ctr = gostx.batch_ctr(keys, ivs_ctr, data, threads=2)
    assert ctr == [key_of(i).ctr(ivs_ctr[i], d) for i, d in enumerate(data)]
    joined = gostx.batch_ctr(keys, b"".join(ivs_ctr), b"".join(data), sector_len=sector)
    assert joined == b"".join(ctr)
    cbc = gostx.batch_cbc_encrypt(keys, ivs_cbc, data)
    assert cbc == [key_of(i).cbc_encrypt(ivs_cbc[i], d) for i, d in enumerate(data)]
    assert gostx.batch_cbc_decrypt(keys, ivs_cbc, cbc, threads=2) == data
    macs = gostx.batch_omac(keys, data, mac_len=bs // 2)
    assert macs == [key_of(i).omac(d, bs // 2) for i, d in enumerate(data)]


def test_batch_xts():
    keys = [gostx.KuznyechikXTS(os.urandom(64)) for _ in range(5)]
    data = [os.urandom(520) for _ in range(5)]
    nums = [9, 1, 7, 3, 2 ** 40]
    ct = gostx.batch_xts_encrypt(keys, data, sector_nums=nums)
    assert ct == [keys[i].encrypt(nums[i].to_bytes(16, "little"), d) for i, d in enumerate(data)]
    assert gostx.batch_xts_decrypt(keys, ct, sector_nums=nums, threads=2) == data


def test_batch_argument_errors():
    k = gostx.Kuznyechik(bytes(32))
    with pytest.raises(ValueError, match="same length"):
        gostx.batch_ctr(k, [bytes(8)] * 2, [b"a", b"bb"])
    with pytest.raises(ValueError, match="1 key or 3"):
        gostx.batch_ctr([k, k], [bytes(8)] * 3, [b"a"] * 3)
    with pytest.raises(ValueError, match="sector_len"):
        gostx.batch_ctr(k, bytes(8), b"abc")
