"""MGM tamper and into-calls, buffer types without copies, length errors,
key lifetime."""
import mmap
import os

import numpy as np
import pytest

import gostx

AEADS = [(gostx.KuznyechikMGM, 16), (gostx.MagmaMGM, 8)]


def nonce_of(n):
    b = bytearray(os.urandom(n))
    b[0] &= 0x7F
    return bytes(b)


@pytest.mark.parametrize("cls,n", AEADS)
def test_mgm_tamper_every_part(cls, n):
    aead, nonce = cls(os.urandom(32)), nonce_of(n)
    data, aad = os.urandom(100), os.urandom(20)
    ct = aead.encrypt(nonce, data, aad)
    assert len(ct) == len(data) + n
    for i in (0, 50, len(data), len(ct) - 1):  # ciphertext and tag bytes
        bad = bytearray(ct)
        bad[i] ^= 0x01
        with pytest.raises(gostx.InvalidTag):
            aead.decrypt(nonce, bytes(bad), aad)
    with pytest.raises(gostx.InvalidTag):
        aead.decrypt(nonce, ct, aad[:-1])
    with pytest.raises(gostx.InvalidTag):
        aead.decrypt(nonce_of(n), ct, aad)
    with pytest.raises(gostx.InvalidTag):
        aead.decrypt(nonce, ct[:n - 1], aad)
    out = bytearray(b"\xaa" * len(data))
    bad = bytearray(ct)
    bad[0] ^= 1
    with pytest.raises(gostx.InvalidTag):
        aead.decrypt_into(nonce, bad, aad, out)
    assert out == b"\xaa" * len(data)  # nothing released on a wrong tag


@pytest.mark.parametrize("cls,n", AEADS)
def test_mgm_into_in_place_and_short_tag(cls, n):
    aead, nonce = cls(os.urandom(32)), nonce_of(n)
    data = os.urandom(1000)
    buf = bytearray(data) + bytearray(n)
    assert aead.encrypt_into(nonce, memoryview(buf)[:1000], None, buf) == 1000 + n
    assert bytes(buf) == aead.encrypt(nonce, data)
    assert aead.decrypt_into(nonce, buf, None, buf) == 1000
    assert bytes(buf[:1000]) == data
    short = cls(bytes(32), tag_length=4)
    assert len(short.encrypt(nonce, data)) == 1004
    assert short.decrypt(nonce, short.encrypt(nonce, data)) == data


def test_lengths_raise_value_error_naming_the_length():
    with pytest.raises(ValueError, match="32 bytes"):
        gostx.KuznyechikMGM(b"short")
    aead = gostx.KuznyechikMGM(bytes(32))
    with pytest.raises(ValueError, match="16 bytes"):
        aead.encrypt(bytes(8), b"x")
    with pytest.raises(ValueError, match="most significant bit"):
        aead.encrypt(b"\x80" + bytes(15), b"x")
    with pytest.raises(ValueError, match="8 bytes"):
        gostx.Kuznyechik(bytes(32)).ctr(bytes(16), b"x")
    with pytest.raises(ValueError, match="4 bytes"):
        gostx.Magma(bytes(32)).ctr(bytes(8), b"x")
    with pytest.raises(ValueError, match="64 bytes"):
        gostx.KuznyechikXTS(bytes(32))
    with pytest.raises(ValueError, match="8 bytes"):
        gostx.Gost89(bytes(32)).cnt(bytes(4), b"x")
    with pytest.raises(ValueError, match="multiple of 16 bytes"):
        gostx.Kuznyechik(bytes(32)).ecb_encrypt(bytes(15))
    with pytest.raises(ValueError, match=r"16\.\.64 bytes \(a multiple of 16\), got 15"):
        gostx.Kuznyechik(bytes(32)).cbc_encrypt(bytes(15), bytes(16))
    with pytest.raises(ValueError, match=r"8\.\.64 bytes \(any length\), got 7"):
        gostx.Magma(bytes(32)).cfb_encrypt(bytes(7), bytes(16))
    with pytest.raises(ValueError, match=r"1\.\.8 bytes, got 9"):
        gostx.Magma(bytes(32)).ofb(bytes(8), bytes(16), s=9)
    with pytest.raises(ValueError, match="at least 32"):
        gostx.Kuznyechik(bytes(32)).ctr(bytes(8), bytes(32), out=bytearray(31))


def test_every_buffer_type_in_and_out(tmp_path):
    k = gostx.Kuznyechik(os.urandom(32))
    iv, data = os.urandom(8), os.urandom(4096)
    want = k.ctr(iv, data)
    arr = np.frombuffer(data, dtype=np.uint32).copy()
    path = tmp_path / "m"
    path.write_bytes(data)
    with open(path, "r+b") as f, mmap.mmap(f.fileno(), 0) as mm:
        for src in (bytearray(data), memoryview(data), arr, mm, memoryview(data).cast("Q")):
            assert k.ctr(iv, src) == want
        k.ctr(iv, mm, out=mm)  # in place in a mapped file
        assert mm[:] == want
    out = np.zeros(4096, dtype=np.uint8)
    assert k.ctr(iv, arr, out=out) is out
    assert out.tobytes() == want
    k.ctr(iv, arr, out=arr)  # in place
    assert arr.tobytes() == want
    with pytest.raises(BufferError):
        k.ctr(iv, data, out=b"\x00" * 4096)  # bytes are read-only
    with pytest.raises((TypeError, ValueError, BufferError)):
        k.ctr(iv, np.zeros((64, 64), dtype=np.uint8)[:, ::2])  # not contiguous


def test_results_are_fresh_objects():
    k = gostx.Kuznyechik(bytes(32))
    a = k.ctr(bytes(8), b"\x00\x01")
    b = k.ctr(bytes(8), b"\x00\x01")
    assert a == b and a is not b
    assert k.ctr(bytes(8), b"") == b""


def test_keys_closed_and_wiped():
    k = gostx.Kuznyechik(bytes(range(32)))
    h = k._h
    with k:
        assert k.ctr(bytes(8), b"abc")
    assert k._h is None
    assert bytes(gostx.ffi.buffer(h)) == bytes(gostx.ffi.sizeof(h[0]))  # all zero
    with pytest.raises(ValueError, match="closed"):
        k.ctr(bytes(8), b"abc")
    m = gostx.MagmaMGM(bytes(range(32)))
    h = m._h
    del m
    assert bytes(gostx.ffi.buffer(h)) == bytes(gostx.ffi.sizeof(h[0]))
    mac = gostx.HMAC(b"key", b"data")
    h = mac._h
    mac.close()
    assert bytes(gostx.ffi.buffer(h)) == bytes(gostx.ffi.sizeof(h[0]))


def test_stream_context_after_finalize():
    k = gostx.Magma(bytes(32))
    ctx = k.encryptor("ctr", bytes(4))
    ctx.update(b"abc")
    ctx.finalize()
    with pytest.raises(ValueError):
        ctx.update(b"abc")


def test_xts_roundtrip_and_equal_halves():
    key = os.urandom(64)
    x = gostx.KuznyechikXTS(key)
    data = os.urandom(1000)
    tweak = os.urandom(16)
    assert x.decrypt(tweak, x.encrypt(tweak, data)) == data
    with pytest.raises(ValueError):
        gostx.KuznyechikXTS(key[:32] * 2)
    with pytest.raises(ValueError):
        x.encrypt(tweak, bytes(15))


def test_new_rejects_unknown():
    assert gostx.new("Streebog-512").name == "streebog512"
    with pytest.raises(ValueError):
        gostx.new("sha256")


def test_stubs_name_every_public_name():
    import ast
    import pathlib
    stub = pathlib.Path(gostx.__file__).with_name("__init__.pyi")
    tree = ast.parse(stub.read_text())
    names = {n.name for n in tree.body if isinstance(n, (ast.ClassDef, ast.FunctionDef))}
    names |= {t.id for n in tree.body if isinstance(n, (ast.AnnAssign, ast.Assign))
              for t in ([n.target] if isinstance(n, ast.AnnAssign) else n.targets)
              if isinstance(t, ast.Name)}
    assert set(gostx.__all__) <= names


def _calls():
    """name -> f(conv): every call with its buffers passed through conv."""
    key, key64 = bytes(range(32)), bytes(range(64))
    k, m = gostx.Kuznyechik(key), gostx.Magma(key)
    g, x = gostx.Gost89(key), gostx.KuznyechikXTS(key64)
    aead = gostx.KuznyechikMGM(key)
    d, iv8, iv16 = bytes(range(256)) * 4, bytes(range(8)), bytes(range(16))
    ct = aead.encrypt(iv16, d, d[:7])
    return {
        "ecb": lambda c: k.ecb_decrypt(c(d), threads=2),
        "cbc": lambda c: m.cbc_encrypt(c(iv16), c(d)),
        "cfb": lambda c: k.cfb_decrypt(c(iv16), c(d), 3),
        "ofb": lambda c: m.ofb(c(iv16), c(d)),
        "ctr": lambda c: m.ctr(c(iv8[:4]), c(d), threads=2),
        "ctr-acpkm": lambda c: k.ctr_acpkm(c(iv8), c(d)),
        "omac": lambda c: k.omac(c(d)),
        "omac-acpkm": lambda c: m.omac_acpkm(c(d), 16, 48),
        "mgm": lambda c: aead.encrypt(c(iv16), c(d), c(d[:7])),
        "mgm-dec": lambda c: aead.decrypt(c(iv16), c(ct), c(d[:7])),
        "xts": lambda c: x.encrypt(c(iv16), c(d)),
        "xts-sectors": lambda c: x.decrypt_sectors(c(d), 512, 3, threads=2),
        "gost89-cnt": lambda c: g.cnt(c(iv8), c(d), True),
        "gost89-imit": lambda c: g.imit(c(d)),
        "streebog": lambda c: gostx.streebog512(c(d)).digest(),
        "hmac": lambda c: gostx.HMAC(c(key), c(d), 64).digest(),
        "kdf": lambda c: gostx.kdf_tree(c(key), c(d[:4]), c(d[:8]), 64),
        "pbkdf2": lambda c: gostx.pbkdf2(c(d[:8]), c(d[:16]), 2),
        "kexp15": lambda c: gostx.kexp15(c(key), c(key), c(key[::-1]), c(iv8)),
        "stream-cbc": lambda c: k.decryptor("cbc", c(iv16)).update(c(d)),
        "batch-ctr": lambda c: gostx.batch_ctr(k, c(iv8 * 4), c(d), sector_len=256),
    }


@pytest.mark.parametrize("name", sorted(_calls()))
def test_every_call_takes_every_buffer_type(name):
    fn = _calls()[name]
    want = fn(bytes)
    for conv in (bytearray, memoryview, lambda b: np.frombuffer(b, dtype=np.uint8)):
        assert fn(conv) == want
