"""Objects shared between threads and copied (issue 32 items 2 and 3).

Item 2: one object with C state used from many threads at once must behave
as if the calls had taken turns. Every thread feeds the same chunk, so the
result does not depend on the order the calls ran in: a hash or MAC equals
the one of the chunk repeated, and the outputs of a streaming cipher are, as
a multiset, the outputs of one thread making the same calls.

Item 3: copy.copy / copy.deepcopy give independent objects: the copy works
after the original is closed or collected.
"""
import copy
import gc
import io
import os
import pickle
import threading

import pytest

import gostx

THREADS = 8
ROUNDS = 150
CHUNK = 4096 + 40  # not a multiple of any block: partial blocks cross calls


def _hammer(fn, threads=THREADS, rounds=ROUNDS):
    """Run fn() rounds times in each of threads threads, started together;
    returns every result; re-raises the first exception of any thread."""
    start = threading.Barrier(threads)
    results, errors = [], []

    def work():
        try:
            start.wait()
            for _ in range(rounds):
                results.append(fn())
        except BaseException as e:  # noqa: B902 - handed to the main thread
            errors.append(e)

    ts = [threading.Thread(target=work) for _ in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    if errors:
        raise errors[0]
    return results


CHUNK_DATA = bytes(range(256)) * (CHUNK // 256) + bytes(CHUNK % 256)
TOTAL = THREADS * ROUNDS


@pytest.mark.parametrize("make", [
    lambda: gostx.streebog256(), lambda: gostx.streebog512(), lambda: gostx.gost94(),
    lambda: gostx.HMAC(b"k" * 32, digest_size=64),
], ids=["streebog256", "streebog512", "gost94", "hmac"])
def test_shared_hash_equals_sequential(make):
    h = make()
    _hammer(lambda: h.update(CHUNK_DATA))
    want = make()
    want.update(CHUNK_DATA * TOTAL)
    assert h.digest() == want.digest()


def test_shared_omac_and_imit_equal_sequential():
    k = gostx.Kuznyechik(os.urandom(32))
    ctx = k.omac_context()
    _hammer(lambda: ctx.update(CHUNK_DATA))
    assert ctx.finalize() == k.omac(CHUNK_DATA * TOTAL)
    g = gostx.Gost89(os.urandom(32))
    im = g.imit_context(meshing=True)
    _hammer(lambda: im.imit_update(CHUNK_DATA))
    assert im.finalize(4) == g.imit(CHUNK_DATA * TOTAL, 4, meshing=True)


MODES = [("ecb", None, gostx.PAD_NONE), ("cbc", 32, gostx.PAD_NONE), ("cbc", 16, gostx.PAD_2),
         ("cfb", 16, gostx.PAD_NONE), ("ofb", 32, gostx.PAD_NONE), ("ctr", 8, gostx.PAD_NONE),
         ("ctr-acpkm", 8, gostx.PAD_NONE)]


@pytest.mark.parametrize("decrypt", [False, True])
@pytest.mark.parametrize("mode,iv_len,padding", MODES)
def test_shared_streaming_cipher_equals_sequential(mode, iv_len, padding, decrypt):
    k = gostx.Kuznyechik(os.urandom(32))
    iv = os.urandom(iv_len) if iv_len else None
    make = k.decryptor if decrypt else k.encryptor
    chunk = CHUNK_DATA if mode not in ("ecb", "cbc") else CHUNK_DATA[:4096]
    ctx = make(mode, iv, padding=padding)
    got = _hammer(lambda: ctx.update(chunk))
    seq = make(mode, iv, padding=padding)
    want = [seq.update(chunk) for _ in range(TOTAL)]
    assert sorted(got) == sorted(want)
    assert _outcome(ctx.finalize) == _outcome(seq.finalize)


def _outcome(fn):
    """fn()'s result, or its exception's type and text (random data seldom
    ends in valid padding)."""
    try:
        return fn()
    except ValueError as e:
        return type(e), str(e)


def test_shared_gost89_stream_equals_sequential():
    g, iv = gostx.Gost89(os.urandom(32)), os.urandom(8)
    ctx = g.encryptor("cfb", iv, meshing=True)
    got = _hammer(lambda: ctx.update(CHUNK_DATA))
    seq = g.encryptor("cfb", iv, meshing=True)
    assert sorted(got) == sorted(seq.update(CHUNK_DATA) for _ in range(TOTAL))


def test_shared_update_into_and_close_do_not_crash():
    k = gostx.Magma(os.urandom(32))
    ctx = k.encryptor("cbc", os.urandom(8))
    chunk = CHUNK_DATA[:4096]

    def step():
        out = bytearray(len(chunk) + 8)
        try:
            return ctx.update_into(chunk, out)
        except ValueError:  # closed by the other thread meanwhile: refused, not a crash
            return -1

    def closer():
        ctx.close()
        return 0

    results = _hammer(step, threads=4, rounds=50)
    assert set(results) <= {4096, -1}
    _hammer(closer, threads=2, rounds=5)
    with pytest.raises(ValueError, match="closed"):
        ctx.update(chunk)


def test_shared_writer_and_reader(tmp_path):
    key = os.urandom(32)
    p = tmp_path / "shared.gostx"
    with gostx.open_file(p, "wb", key=key, chunk_size=1024) as w:
        _hammer(lambda: w.write(CHUNK_DATA), threads=4, rounds=40)
    with gostx.open_file(p, "rb", key=key) as r:
        assert r.read() == CHUNK_DATA * 160
    # read(1024) of 1024-byte chunks: each call returns one whole chunk (or b"" at the end)
    with gostx.open_file(p, "rb", key=key) as r:
        parts = _hammer(lambda: r.read(1024), threads=4, rounds=170)
    with gostx.open_file(p, "rb", key=key) as r:
        want = [r.read(1024) for _ in range(4 * 170)]
    assert sorted(parts) == sorted(want)
    assert b"".join(want) == CHUNK_DATA * 160


# ---- item 3: copies ----

def _dropped(obj):
    """Close obj (its C object is wiped) and collect it."""
    obj.close()
    gc.collect()


@pytest.mark.parametrize("copier", [copy.copy, copy.deepcopy, lambda o: o.copy()],
                         ids=["copy", "deepcopy", "method"])
@pytest.mark.parametrize("cls", [gostx.streebog256, gostx.streebog512, gostx.gost94,
                                 gostx.gost94_test])
def test_hash_copy_outlives_original(cls, copier):
    h = cls(b"abc")
    c = copier(h)
    del h  # the last reference: the original's context is wiped and freed now
    gc.collect()
    c.update(b"def")
    assert c.digest() == cls(b"abcdef").digest()


@pytest.mark.parametrize("copier", [copy.copy, copy.deepcopy])
def test_hmac_and_contexts_copy_outlive_original(copier):
    key, iv, data = os.urandom(32), os.urandom(16), os.urandom(1000)
    h = gostx.HMAC(key, data[:10])
    c = copier(h)
    _dropped(h)
    c.update(data[10:])
    assert c.digest() == gostx.hmac_streebog(key, data)

    k = gostx.Kuznyechik(key)
    ref = k.encryptor("cbc", iv, padding=gostx.PAD_2)
    want = ref.update(data) + ref.finalize()
    enc = k.encryptor("cbc", iv, padding=gostx.PAD_2)
    head = enc.update(data[:100])
    c = copier(enc)
    _dropped(enc)
    assert head + c.update(data[100:]) + c.finalize() == want

    om = k.omac_context()
    om.update(data[:33])
    c = copier(om)
    _dropped(om)
    c.update(data[33:])
    assert c.finalize() == k.omac(data)

    g = gostx.Gost89(key)
    im = g.imit_context(meshing=True)
    im.imit_update(data[:20])
    c = copier(im)
    _dropped(im)
    c.imit_update(data[20:])
    assert c.finalize(4) == g.imit(data, 4, meshing=True)


@pytest.mark.parametrize("copier", [copy.copy, copy.deepcopy])
def test_key_objects_copy_outlive_original(copier):
    key, iv, data, nonce = os.urandom(32), os.urandom(8), os.urandom(300), bytes(16)
    want = gostx.Kuznyechik(key).ctr(iv, data)
    k = gostx.Kuznyechik(key)
    c = copier(k)
    _dropped(k)
    assert c.ctr(iv, data) == want

    want = gostx.KuznyechikMGM(key).encrypt(nonce, data, b"a")
    a = gostx.KuznyechikMGM(key)
    c = copier(a)
    _dropped(a)
    assert c.encrypt(nonce, data, b"a") == want

    key64, tweak = os.urandom(64), os.urandom(16)
    want = gostx.KuznyechikXTS(key64).encrypt(tweak, data)
    x = gostx.KuznyechikXTS(key64)
    c = copier(x)
    _dropped(x)
    assert c.encrypt(tweak, data) == want

    want = gostx.Gost89(key).cnt(iv, data)
    g = gostx.Gost89(key)
    c = copier(g)
    _dropped(g)
    assert c.cnt(iv, data) == want


def test_streams_refuse_copies_and_pickling(tmp_path):
    key = os.urandom(32)
    buf = io.BytesIO()
    w = gostx.open_file(buf, "wb", key=key)
    for copier in (copy.copy, copy.deepcopy, pickle.dumps):
        with pytest.raises(TypeError, match="Writer"):
            copier(w)
    w.write(b"x")
    w.close()
    r = gostx.open_file(io.BytesIO(buf.getvalue()), "rb", key=key)
    for copier in (copy.copy, copy.deepcopy, pickle.dumps):
        with pytest.raises(TypeError, match="Reader"):
            copier(r)
    assert r.read() == b"x"
    for obj in (gostx.streebog256(), gostx.HMAC(key), gostx.Kuznyechik(key)):
        with pytest.raises(TypeError, match="pickle"):
            pickle.dumps(obj)
