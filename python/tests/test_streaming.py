"""Streaming contexts give the one-shot result for every way of splitting
the input (random split points, empty pieces included)."""
import hmac
import os
import random

import pytest

import gostx


def splits(data, rnd):
    i = 0
    while i < len(data):
        n = rnd.choice([0, 1, 7, 16, 33, 100, 1000])
        yield data[i:i + n]
        i += n


def streamed(ctx, data, rnd):
    # pieces as bytes, bytearray and memoryview in turn: every buffer type streams
    kinds = [bytes, bytearray, memoryview]
    out = b"".join(ctx.update(kinds[i % 3](piece))
                   for i, piece in enumerate(splits(data, rnd)))
    return out + ctx.finalize()


MODES = [
    ("ecb", None, None, 0), ("ecb", None, None, 2), ("cbc", 32, None, 2), ("cbc", 16, None, 0),
    ("cfb", 24, 3, 0), ("cfb", 16, None, 0), ("ofb", 32, 5, 0), ("ctr", "half", 7, 0),
    ("ctr", "half", None, 0), ("ctr-acpkm", "half", None, 0),
]


@pytest.mark.parametrize("cls", [gostx.Kuznyechik, gostx.Magma])
@pytest.mark.parametrize("mode,iv_len,s,padding", MODES)
def test_mode_stream_equals_one_shot(cls, mode, iv_len, s, padding):
    rnd = random.Random(f"{cls.__name__}{mode}{iv_len}{s}{padding}")
    k = cls(os.urandom(32))
    if iv_len == "half":
        iv_len = k.block_size // 2
    elif iv_len:
        iv_len = iv_len // 16 * k.block_size if mode != "cfb" else iv_len
    iv = os.urandom(iv_len) if iv_len else None
    length = 5000 if padding else 5000 // k.block_size * k.block_size
    data = os.urandom(length)
    enc = streamed(k.encryptor(mode, iv, s, padding), data, rnd)
    one_shot = {
        "ecb": lambda: k.ecb_encrypt(data),
        "cbc": lambda: k.cbc_encrypt(iv, data),
        "cfb": lambda: k.cfb_encrypt(iv, data, s),
        "ofb": lambda: k.ofb(iv, data, s),
        "ctr": lambda: k.ctr(iv, data, s),
        "ctr-acpkm": lambda: k.ctr_acpkm(iv, data),
    }[mode]
    if padding == 0:
        assert enc == one_shot()
    assert streamed(k.decryptor(mode, iv, s, padding), enc, rnd) == data


# Plaintexts that are not procedure-2 padded. Random bytes would be (their last
# nonzero byte is 0x80) once in about 255 runs, so the cases are fixed.
BAD_PAD_2 = [
    bytes(32),                                         # no marker at all
    bytes(range(31)) + b"\x01",                        # last nonzero byte is not 0x80
    bytes(range(16)) + b"\x80\x00\x01" + bytes(13),   # a nonzero byte after the marker
]


@pytest.mark.parametrize("pt", BAD_PAD_2, ids=["no-marker", "not-0x80", "junk-after-marker"])
def test_padding_2_bad_is_value_error(pt):
    k = gostx.Kuznyechik(os.urandom(32))
    ct = k.ecb_encrypt(pt)
    dec = k.decryptor("ecb", padding=gostx.PAD_2)
    dec.update(ct)
    with pytest.raises(ValueError):
        dec.finalize()


@pytest.mark.parametrize("cls", [gostx.Kuznyechik, gostx.Magma])
def test_omac_stream(cls):
    rnd = random.Random(1)
    k, data = cls(os.urandom(32)), os.urandom(3000)
    ctx = k.omac_context()
    for piece in splits(data, rnd):
        ctx.update(piece)
    assert ctx.finalize() == k.omac(data)
    ctx = k.omac_context(section_len=4 * k.block_size, master_section_len=12 * k.block_size)
    for piece in splits(data, rnd):
        ctx.update(piece)
    assert ctx.finalize(4) == k.omac_acpkm(data, 4 * k.block_size, 12 * k.block_size, 4)


@pytest.mark.parametrize("name", ["streebog256", "streebog512"])
def test_hash_stream_copy_and_stdlib_hmac(name):
    rnd = random.Random(2)
    data = os.urandom(5000)
    h = gostx.new(name)
    for piece in splits(data, rnd):
        h.update(piece)
    snapshot = h.copy()
    assert h.digest() == gostx.new(name, data).digest()
    assert h.digest() == h.digest()  # digest() does not end the object
    h.update(b"more")
    assert snapshot.digest() == gostx.new(name, data).digest()
    assert h.digest() == gostx.new(name, data + b"more").digest()
    assert (h.name, h.block_size, h.digest_size) == (name, 64, int(name[-3:]) // 8)
    key = os.urandom(40)
    size = h.digest_size
    std = hmac.new(key, data, getattr(gostx, name)).digest()
    assert std == gostx.hmac_streebog(key, data, size)
    mac = gostx.HMAC(key, digest_size=size)
    for piece in splits(data, rnd):
        mac.update(piece)
    assert mac.digest() == std
    assert hmac.digest(key, data, getattr(gostx, name)) == std


def test_gost89_stream_and_imit():
    rnd = random.Random(3)
    key, iv, data = os.urandom(32), os.urandom(8), os.urandom(5000)
    g = gostx.Gost89(key, "cryptopro-a")
    for meshing in (False, True):
        one = g.cnt(iv, data, meshing)
        ctx = g.encryptor("cnt", iv, meshing)
        assert b"".join(ctx.update(p) for p in splits(data, rnd)) == one
        cfb = g.cfb_encrypt(iv, data, meshing)
        assert g.cfb_decrypt(iv, cfb, meshing) == data
        ctx = g.imit_context(None, meshing)
        for p in splits(data, rnd):
            ctx.imit_update(p)
        assert ctx.finalize(4) == g.imit(data, 4, meshing=meshing)
