"""Calls on more than 1 MiB run in pieces (issue 48 item 15, test_interrupt.py):
each must give what the same work gives through a streaming context fed in
64 KiB slices (one C call per slice, the path small calls take), with and
without threads=, into new bytes, into out= and in place."""
import os

import pytest

import gostx

N = (3 << 20) + 48  # over LONG (1 MiB), not a whole number of anything large
DATA = os.urandom(N)
K = gostx.Kuznyechik(b"k" * 32)
G = gostx.Gost89(b"g" * 32)
IV8, IV32 = b"i" * 8, b"j" * 32
SLICE = 1 << 16


def streamed(ctx, data=DATA):
    return b"".join(ctx.update(data[i:i + SLICE]) for i in range(0, len(data), SLICE))


def fed(ctx, update="update", data=DATA):
    for i in range(0, len(data), SLICE):
        getattr(ctx, update)(data[i:i + SLICE])
    return ctx


CIPHER = {
    "ctr": (lambda d, **kw: K.ctr(IV8, d, **kw), lambda: K.encryptor("ctr", IV8)),
    "ctr_s5": (lambda d, **kw: K.ctr(IV8, d, s=5, **kw), lambda: K.encryptor("ctr", IV8, s=5)),
    "cbc_enc": (lambda d, **kw: K.cbc_encrypt(IV32, d, **kw), lambda: K.encryptor("cbc", IV32)),
    "cbc_dec": (lambda d, **kw: K.cbc_decrypt(IV32, d, **kw), lambda: K.decryptor("cbc", IV32)),
    "cfb_s3": (lambda d, **kw: K.cfb_encrypt(IV32, d, s=3, **kw),
               lambda: K.encryptor("cfb", IV32, s=3)),
    "cfb_dec": (lambda d, **kw: K.cfb_decrypt(IV32, d, **kw), lambda: K.decryptor("cfb", IV32)),
    "ofb": (lambda d, **kw: K.ofb(IV32, d, **kw), lambda: K.encryptor("ofb", IV32)),
    "acpkm": (lambda d, **kw: K.ctr_acpkm(IV8, d, **kw), lambda: K.encryptor("ctr-acpkm", IV8)),
    "ecb": (lambda d, **kw: K.ecb_encrypt(d, **kw), lambda: K.encryptor("ecb")),
    "blocks": (lambda d, **kw: K.decrypt_blocks(d, **kw), lambda: K.decryptor("ecb")),
    "gost89_cnt": (lambda d, **kw: G.cnt(IV8, d, meshing=True, **kw),
                   lambda: G.encryptor("cnt", IV8, True)),
    "gost89_ecb": (lambda d, **kw: G.ecb_encrypt(d, **kw), lambda: G.encryptor("ecb")),
}
THREADED = {"ctr", "acpkm", "ecb"}


@pytest.mark.parametrize("name", sorted(CIPHER))
def test_one_shot_in_pieces_equals_the_stream(name):
    call, ctx = CIPHER[name]
    data = DATA[:N - N % 16]  # whole blocks for ECB/CBC
    want = streamed(ctx(), data)
    assert call(data) == want
    out = bytearray(len(data))
    assert call(data, out=out) is out and out == want
    buf = bytearray(data)
    call(buf, out=buf)
    assert buf == want
    if name in THREADED:
        assert call(data, threads=0) == want
        out = bytearray(len(data))
        call(data, out=out, threads=2)
        assert out == want


def test_streaming_update_in_pieces():
    e = K.encryptor("cbc", IV32, padding=gostx.PAD_2)
    got = e.update(DATA[:7]) + e.update(DATA[7:]) + e.finalize()  # the second in pieces
    ref = K.encryptor("cbc", IV32, padding=gostx.PAD_2)
    assert got == streamed(ref) + ref.finalize()
    e = K.encryptor("ecb")
    out = bytearray(N + 16)
    n = e.update_into(DATA[:N - 3], out)
    assert bytes(out[:n]) == K.ecb_encrypt(DATA[:n])
    c = G.encryptor("cfb", IV8)
    assert c.update(DATA) == streamed(G.encryptor("cfb", IV8))


@pytest.mark.parametrize("name", ["streebog256", "streebog512", "gost94"])
def test_hash_update_in_pieces(name):
    assert gostx.new(name, DATA).digest() == fed(gostx.new(name)).digest()


def test_macs_in_pieces():
    assert gostx.hmac_streebog(b"k" * 32, DATA, 64) == fed(gostx.HMAC(b"k" * 32, digest_size=64)).digest()
    assert gostx.HMAC(b"k" * 32, DATA).digest() == fed(gostx.HMAC(b"k" * 32)).digest()
    assert K.omac(DATA) == fed(K.omac_context()).finalize()
    assert K.omac_acpkm(DATA, 4096, 8192) == \
        fed(K.omac_context(section_len=4096, master_section_len=8192)).finalize()
    assert G.imit(DATA, 8) == fed(G.imit_context(), "imit_update").finalize(8)


@pytest.mark.parametrize("cls", [gostx.KuznyechikMGM, gostx.MagmaMGM])
def test_mgm_in_pieces(cls):
    a = cls(b"a" * 32)
    nonce = a.generate_nonce()
    small = a.encrypt(nonce, DATA[:1000], DATA[:999])  # one C call
    assert a.decrypt(nonce, small, DATA[:999]) == DATA[:1000]
    ct = a.encrypt(nonce, DATA, b"aad")
    assert ct == a.encrypt(nonce, DATA, b"aad", threads=0)
    assert a.decrypt(nonce, ct, b"aad") == DATA == a.decrypt(nonce, ct, b"aad", threads=2)
    out = bytearray(N + a.tag_length)
    assert a.encrypt_into(nonce, DATA, b"aad", out) == len(out) and out == ct
    long_aad = a.encrypt(nonce, b"x", DATA)
    assert a.decrypt(nonce, long_aad, DATA) == b"x"
    # A wrong tag writes nothing, whether the data or the associated data is long.
    for c, aad, n in ((ct, b"aad", N), (long_aad, DATA, 1)):
        bad = bytearray(c)
        bad[0] ^= 1
        for threads in (None, 2):
            out = bytearray(b"\x55" * n)
            with pytest.raises(gostx.InvalidTag):
                a.decrypt_into(nonce, bad, aad, out, threads=threads)
            assert out == b"\x55" * n


def test_xts_in_pieces():
    x = gostx.KuznyechikXTS(bytes(range(64)))
    step = 4096 * 16
    for first in (5, (1 << 64) - 3):  # the tweak numbers wrap as in C
        want = b"".join(x.encrypt_sectors(DATA[i:i + step], 4096, (first + i // 4096) % (1 << 64))
                        for i in range(0, N, step))
        assert x.encrypt_sectors(DATA, 4096, first) == want
        assert x.encrypt_sectors(DATA, 4096, first, threads=0) == want
        assert x.decrypt_sectors(want, 4096, first) == DATA
    assert x.decrypt(b"t" * 16, x.encrypt(b"t" * 16, DATA)) == DATA


def test_batch_in_pieces():
    sectors = DATA[:N - N % 4096]
    k = len(sectors) // 4096
    ivs = [bytes([i % 256]) * 8 for i in range(k)]
    want = b"".join(K.ctr(ivs[i], sectors[i * 4096:(i + 1) * 4096]) for i in range(k))
    assert gostx.batch_ctr(K, b"".join(ivs), sectors, 4096, threads=0) == want
    out = bytearray(len(sectors))
    gostx.batch_ctr(K, b"".join(ivs), sectors, 4096, out=out)
    assert out == want
    x = gostx.KuznyechikXTS(bytes(range(64)))
    assert gostx.batch_xts_decrypt(x, sectors, 4096, first_sector=9) == \
        x.decrypt_sectors(sectors, 4096, 9)


def test_pbkdf2_on_its_thread_equals_inline(monkeypatch):
    import gostx.kdf
    on_thread = gostx.pbkdf2(b"pw", b"salt", 20001, 100)
    monkeypatch.setattr(gostx.kdf, "_PBKDF2_INLINE", 1 << 40)
    assert gostx.pbkdf2(b"pw", b"salt", 20001, 100) == on_thread


@pytest.mark.parametrize("kind", [bytearray, memoryview])
def test_contexts_in_pieces_take_any_buffer(kind):
    data = kind(bytearray(DATA))
    assert gostx.streebog256(data).digest() == gostx.streebog256(DATA).digest()
    assert gostx.HMAC(b"k" * 32, data).digest() == gostx.HMAC(b"k" * 32, DATA).digest()
    assert K.omac(data) == K.omac(DATA)
    assert K.encryptor("ofb", IV32).update(data) == K.ofb(IV32, DATA)
    assert G.cnt(IV8, data) == G.cnt(IV8, DATA)
    assert G.imit(data) == G.imit(DATA)
    assert gostx.hmac_streebog(b"k" * 32, data) == gostx.hmac_streebog(b"k" * 32, DATA)
    a = gostx.KuznyechikMGM(b"a" * 32)
    assert a.decrypt(b"\1" * 16, a.encrypt(b"\1" * 16, data, kind(bytearray(b"aad"))), b"aad") == DATA
    x = gostx.KuznyechikXTS(bytes(range(64)))
    assert x.encrypt_sectors(data, 4096) == x.encrypt_sectors(DATA, 4096)
    assert gostx.batch_omac(K, data[:N - N % 4096], 4096) == gostx.batch_omac(K, DATA[:N - N % 4096], 4096)
