"""GOST R 34.10-2012 from Python (issue 28): the standard's examples, RFC
7836's VKO examples and gost-engine's KEG answers (tests/vectors), round
trips on every curve, tampered signatures refused, VKO and KEG from both
sides, KEG against its definition by VKO and KDF_TREE, the library's answers re-computed
in plain Python integers and against gostcrypto (an independent pure-Python
implementation), the refusals, threads, copies and pickling."""
import copy
import gc
import os
import pickle
import random
import threading

import pytest

import gostx
from gostx import Curve, InvalidSignature, PrivateKey, PublicKey

from conftest import load_vectors

SIGN = load_vectors("sign-3410.json")
VKO = load_vectors("vko-3410.json")
KEG = load_vectors("keg-9189.json")
CURVES = list(Curve)  # the nine sets; iteration skips the CryptoPro aliases


def _int(h):
    return int(h, 16)


def _be(x, n):
    return x.to_bytes(n, "big")


def _test_curve(case):
    """The example's curve (256- or 512-bit test set), its size, and its numbers."""
    n = len(case["d"]) // 2
    curve = Curve.GOST3410_256_TEST if n == 32 else Curve.GOST3410_512_TEST
    return curve, n, {k: _int(v) for k, v in case["curve"].items()}


def _flip(b, i, bit=1):
    b = bytearray(b)
    b[i] ^= bit
    return bytes(b)


# ---- plain-integer arithmetic on the test curves, to check the library ----

def _ec_add(P, Q, a, p):
    if P is None:
        return Q
    if Q is None:
        return P
    if P[0] == Q[0] and (P[1] + Q[1]) % p == 0:
        return None
    if P == Q:
        lam = (3 * P[0] * P[0] + a) * pow(2 * P[1], -1, p) % p
    else:
        lam = (Q[1] - P[1]) * pow(Q[0] - P[0], -1, p) % p
    x = (lam * lam - P[0] - Q[0]) % p
    return x, (lam * (P[0] - x) - P[1]) % p


def _ec_mul(k, P, a, p):
    R = None
    for bit in bin(k)[2:]:
        R = _ec_add(R, R, a, p)
        if bit == "1":
            R = _ec_add(R, P, a, p)
    return R


def _py_verify(c, Q, digest, sig):
    """GOST R 34.10-2012 verification, section 6.2, with Python integers; e is
    the digest read little-endian mod q (1 if 0)."""
    n = len(sig) // 2
    r, s = int.from_bytes(sig[:n], "big"), int.from_bytes(sig[n:], "big")
    q = c["q"]
    if not (0 < r < q and 0 < s < q):
        return False
    e = int.from_bytes(digest, "little") % q or 1
    v = pow(e, -1, q)
    z1, z2 = s * v % q, -r * v % q
    C = _ec_add(_ec_mul(z1, (c["xP"], c["yP"]), c["a"], c["p"]), _ec_mul(z2, Q, c["a"], c["p"]),
                c["a"], c["p"])
    return C is not None and C[0] % q == r


# ---- the standard's examples ----

@pytest.mark.parametrize("case", SIGN, ids=lambda c: c["name"][:40])
def test_standard_example(case):
    curve, n, c = _test_curve(case)
    key = PrivateKey.from_bytes(curve, bytes.fromhex(case["d"]))
    pub = key.public_key()
    assert pub.public_bytes_raw() == bytes.fromhex(case["xQ"] + case["yQ"])
    assert pub == PublicKey.from_bytes(curve.param_set, bytes.fromhex(case["xQ"] + case["yQ"]))
    # The standard gives e; a digest whose little-endian value is e (< q) gives that e.
    digest = _be(_int(case["e"]), n)[::-1]
    sig = bytes.fromhex(case["r"] + case["s"])
    pub.verify(sig, digest, prehashed=True)
    for i in (0, n - 1, n, 2 * n - 1):
        with pytest.raises(InvalidSignature):
            pub.verify(_flip(sig, i), digest, prehashed=True)
    with pytest.raises(InvalidSignature):
        pub.verify(sig, _flip(digest, 0), prehashed=True)
    with pytest.raises(InvalidSignature):  # X.509's order s || r is not this API's
        pub.verify(sig[n:] + sig[:n], digest, prehashed=True)
    # Our own signature of the same digest (a fresh nonce, not the example's k).
    mine = key.sign(digest, prehashed=True)
    assert len(mine) == 2 * n and mine != sig
    pub.verify(mine, digest, prehashed=True)
    assert _py_verify(c, (_int(case["xQ"]), _int(case["yQ"])), digest, mine)


@pytest.mark.parametrize("case", VKO, ids=lambda c: c["name"])
def test_rfc7836_vko_example(case):
    curve = Curve.from_name(case["curve"])
    key = PrivateKey.from_bytes(curve, bytes.fromhex(case["d"]))
    peer = PublicKey.from_bytes(curve, bytes.fromhex(case["x"] + case["y"]))
    ukm = bytes.fromhex(case["ukm"])
    assert key.exchange(peer, ukm, size=32) == bytes.fromhex(case["kek256"])
    assert key.exchange(peer, ukm, size=64) == bytes.fromhex(case["kek512"])
    assert key.exchange(peer, ukm) == bytes.fromhex(case["kek512"])  # a 512-bit curve's size
    # Each side's public key is the other side's peer key.
    other = next(o for o in VKO if o is not case)
    assert key.public_key() == PublicKey.from_bytes(curve, bytes.fromhex(other["x"] + other["y"]))


# ---- every curve ----

@pytest.mark.parametrize("curve", CURVES, ids=lambda c: c.name)
def test_round_trip_every_curve(curve):
    n = curve.key_size // 8
    key = PrivateKey.generate(curve)
    pub = key.public_key()
    assert key.curve is curve and pub.curve is curve and key.key_size == pub.key_size
    assert len(key.private_bytes_raw()) == n and len(pub.public_bytes_raw()) == 2 * n
    assert PrivateKey.from_bytes(curve, key.private_bytes_raw()).public_key() == pub
    data = os.urandom(1000)
    s1, s2 = key.sign(data), key.sign(bytearray(data))
    assert len(s1) == 2 * n and s1 != s2  # a fresh nonce each time
    for s in (s1, s2):
        pub.verify(s, data)
        pub.verify(s, memoryview(data))
    digest = gostx.new(f"streebog{curve.key_size}", data).digest()
    pub.verify(s1, digest, prehashed=True)  # sign hashes with the curve's Streebog
    pub.verify(key.sign(digest, prehashed=True), data)
    pub.verify(key.sign(b""), b"")
    # Tampered signatures, data and keys are refused.
    rnd = random.Random(int(curve))
    for _ in range(8):
        i = rnd.randrange(2 * n)
        with pytest.raises(InvalidSignature):
            pub.verify(_flip(s1, i, 1 << rnd.randrange(8)), data)
    with pytest.raises(InvalidSignature):
        pub.verify(s1, data + b"\0")
    with pytest.raises(InvalidSignature):
        PrivateKey.generate(curve).public_key().verify(s1, data)
    with pytest.raises(InvalidSignature):
        pub.verify(s1[:-1], data)
    for bad in (bytes(2 * n), bytes(n) + s1[n:], s1[:n] + bytes(n), b"\xff" * (2 * n)):
        with pytest.raises(InvalidSignature):  # r or s = 0, or >= q
            pub.verify(bad, data)


@pytest.mark.parametrize("curve", CURVES, ids=lambda c: c.name)
def test_vko_agrees_both_ways(curve):
    n = curve.key_size // 8
    a, b = PrivateKey.generate(curve), PrivateKey.generate(curve)
    for ukm in (b"\x01", os.urandom(8), os.urandom(n)):
        for size in (32, 64):
            k = a.exchange(b.public_key(), ukm, size=size)
            assert len(k) == size and k == b.exchange(a.public_key(), ukm, size=size)
    assert a.exchange(b.public_key(), b"\x01") != a.exchange(b.public_key(), b"\x02")
    assert len(a.exchange(b.public_key(), b"\x01")) == n
    # UKM 0 counts as 1 (R 50.1.113-2016)
    assert a.exchange(b.public_key(), bytes(8)) == a.exchange(b.public_key(), b"\x01")


@pytest.mark.parametrize("case", KEG, ids=lambda c: c["name"])
def test_keg_vectors_both_ways(case):
    """RFC 9189's KEG as gost-engine 3.0.1 computed it (tests/vectors/keg-9189.json)."""
    curve = Curve.from_name(case["curve"])
    a = PrivateKey.from_bytes(curve, bytes.fromhex(case["d_a"]))
    b = PrivateKey.from_bytes(curve, bytes.fromhex(case["d_b"]))
    assert a.public_key().public_bytes_raw().hex() == case["x_a"] + case["y_a"]
    assert b.public_key().public_bytes_raw().hex() == case["x_b"] + case["y_b"]
    h, k = bytes.fromhex(case["h"]), bytes.fromhex(case["k"])
    assert a.keg(b.public_key(), h) == k
    assert b.keg(a.public_key(), bytearray(h)) == k
    assert a.keg(b.public_key(), memoryview(h)) == k


@pytest.mark.parametrize("curve", CURVES, ids=lambda c: c.name)
def test_keg_is_vko_and_kdf_tree(curve):
    """RFC 9189: UKM = H[1..16] big-endian (1 when 0; exchange reads its ukm
    little-endian), then on 256-bit curves KDF_TREE_256(VKO_256, "kdf tree",
    H[17..24], R = 1) and on 512-bit curves VKO_512 itself."""
    a, b = PrivateKey.generate(curve), PrivateKey.generate(curve)
    for h in (os.urandom(32), bytes(16) + os.urandom(16)):
        ukm = h[:16][::-1] if any(h[:16]) else b"\x01"
        k = a.keg(b.public_key(), h)
        assert len(k) == 64 and k == b.keg(a.public_key(), h)
        if curve.key_size == 256:
            want = gostx.kdf_tree(a.exchange(b.public_key(), ukm, size=32), b"kdf tree",
                                  h[16:24], 64, 1)
        else:
            want = a.exchange(b.public_key(), ukm, size=64)
        assert k == want


def test_keg_refusals():
    a = PrivateKey.generate(Curve.GOST3410_256_B)
    b = PrivateKey.generate(Curve.GOST3410_256_B)
    other = PrivateKey.generate(Curve.GOST3410_256_A).public_key()
    with pytest.raises(gostx.GostxTypeError, match="PublicKey"):
        a.keg(b.public_key().public_bytes_raw(), bytes(32))
    with pytest.raises(gostx.GostxValueError, match="peer key is on .*paramSetA"):
        a.keg(other, bytes(32))
    for h in (b"", bytes(8), bytes(31), bytes(33), bytes(64)):
        with pytest.raises(gostx.GostxValueError, match="h must be 32 bytes"):
            a.keg(b.public_key(), h)
    with pytest.raises(gostx.GostxTypeError, match="bytes-like|Strings"):
        a.keg(b.public_key(), "h" * 32)
    a.close()
    with pytest.raises(gostx.GostxValueError, match="closed"):
        a.keg(b.public_key(), bytes(32))


def test_curve_names_and_aliases():
    for c in CURVES:
        assert Curve.from_name(c.param_set) is c and Curve.from_name(c.oid) is c
        assert Curve.from_name(c.name) is c and int(c) == c.value
        assert c.key_size in (256, 512) and c.param_set.startswith("id-")
    assert Curve.GOST3410_256_A.param_set == "id-tc26-gost-3410-2012-256-paramSetA"
    assert Curve.GOST3410_512_C.oid == "1.2.643.7.1.2.1.2.3"
    for alias, same in [("CRYPTOPRO_A", "B"), ("CRYPTOPRO_XCHA", "B"), ("CRYPTOPRO_B", "C"),
                        ("CRYPTOPRO_C", "D"), ("CRYPTOPRO_XCHB", "D")]:
        assert Curve[alias] is Curve[f"GOST3410_256_{same}"]
    assert Curve.from_name("id-GostR3410-2001-CryptoPro-A-ParamSet") is Curve.CRYPTOPRO_A
    assert Curve.from_name("1.2.643.2.2.36.1") is Curve.GOST3410_256_D
    # Anything that takes a curve takes its name, OID or C id as well.
    for spec in ("id-tc26-gost-3410-2012-512-paramSetB", "1.2.643.7.1.2.1.2.2",
                 "GOST3410_512_B", int(Curve.GOST3410_512_B)):
        assert PrivateKey.generate(spec).curve is Curve.GOST3410_512_B


# ---- the library against independent arithmetic ----

@pytest.mark.parametrize("case", SIGN, ids=lambda c: c["name"][:40])
def test_library_agrees_with_plain_integers(case):
    curve, n, c = _test_curve(case)
    P, a, p = (c["xP"], c["yP"]), c["a"], c["p"]
    rnd = random.Random(n)
    for _ in range(3):
        d = rnd.randrange(1, c["q"])
        key = PrivateKey.from_bytes(curve, _be(d, n))
        x, y = _ec_mul(d, P, a, p)
        assert key.public_key().public_bytes_raw() == _be(x, n) + _be(y, n)
        data = rnd.randbytes(100)
        digest = gostx.new(f"streebog{8 * n}", data).digest()
        assert _py_verify(c, (x, y), digest, key.sign(data))
        assert not _py_verify(c, (x, y), _flip(digest, 0), key.sign(data))
    # d = q - 1 is the largest key: Q = -P
    q1 = PrivateKey.from_bytes(curve, _be(c["q"] - 1, n))
    assert q1.public_key().public_bytes_raw() == _be(P[0], n) + _be(p - P[1], n)


def _gostcrypto_curves():
    gc_mod = pytest.importorskip("gostcrypto.gostsignature")
    for name, params in gc_mod.CURVES_R_1323565_1_024_2019.items():
        yield Curve.from_name(name.replace("-3410-12-", "-3410-2012-")), params, gc_mod


def test_library_agrees_with_gostcrypto():
    seen = set()
    for curve, params, g in _gostcrypto_curves():
        seen.add(curve)
        n = curve.key_size // 8
        ref = g.new(g.MODE_256 if n == 32 else g.MODE_512, params)
        key = PrivateKey.generate(curve)
        d, pub = key.private_bytes_raw(), key.public_key()
        assert bytes(ref.public_key_generate(bytearray(d))) == pub.public_bytes_raw()
        data = os.urandom(200)
        digest = gostx.new(f"streebog{8 * n}", data).digest()
        # gostcrypto reads the digest big-endian, the standard (and gostx) little-endian.
        le_digest = bytearray(digest[::-1])
        assert ref.verify(bytearray(pub.public_bytes_raw()), le_digest, bytearray(key.sign(data)))
        pub.verify(bytes(ref.sign(bytearray(d), le_digest)), data)
    assert len(seen) == 7  # every tc26 set but the two test sets


def _forge_under_order4(c, T, digest, key):
    """A signature (r || s) of digest that verifies under T of order 4 with no
    private key: with (k, R = k G) from key and its multiples, r = x(R) mod q
    and s = k e, verify's z1 G + z2 T is k G once 4 divides z2 = -r / e."""
    p, a, q, n = c["p"], c["a"], c["q"], len(digest)
    e = int.from_bytes(digest, "little") % q or 1
    k0 = int.from_bytes(key.private_bytes_raw(), "big")
    raw = key.public_key().public_bytes_raw()
    R0 = (int.from_bytes(raw[:n], "big"), int.from_bytes(raw[n:], "big"))
    k, R = k0, R0
    while True:
        r, s = R[0] % q, k * e % q
        sig = _be(r, n) + _be(s, n)
        if r and s and -r * pow(e, -1, q) % q % 4 == 0:
            z1, z2 = s * pow(e, -1, q) % q, -r * pow(e, -1, q) % q
            V = _ec_add(_ec_mul(z1, (c["x"], c["y"]), a, p), _ec_mul(z2, T, a, p), a, p)
            assert V[0] % q == r  # what verify computes: it verifies under T
            return sig
        k, R = (k + k0) % q, _ec_add(R, R0, a, p)


def test_points_outside_the_subgroup_are_refused_on_the_cofactor_curves():
    # The twisted Edwards sets (R 50.1.114-2016, e u^2 + v^2 = 1 + d u^2 v^2): (+-1, 0)
    # has order 4 (e = 1), and the map x = s (1 + v) / (1 - v) + t, y = s (1 + v) /
    # ((1 - v) u), s = (e - d) / 4, t = (e + d) / 6, takes it to (s + t, +-s); twice it
    # is (t, 0), of order 2. e, d and the curve from gostcrypto.
    curves = dict((c, params) for c, params, _ in _gostcrypto_curves())
    for curve in (Curve.GOST3410_256_A, Curve.GOST3410_512_C):
        c, n = curves[curve], curve.key_size // 8
        p, a, b = c["p"], c["a"], c["b"]
        assert c["e"] == 1
        s = (c["e"] - c["d"]) * pow(4, -1, p) % p
        t = (c["e"] + c["d"]) * pow(6, -1, p) % p
        T = ((s + t) % p, s)
        assert _ec_add(T, T, a, p) == (t, 0)
        G = (c["x"], c["y"])
        points = {"order 4": T, "order 4 (-T)": (T[0], p - T[1]), "order 2": (t, 0),
                  "order 2q": _ec_add(G, (t, 0), a, p), "order 4q": _ec_add(G, T, a, p)}
        for what, (x, y) in points.items():
            assert (y * y - x ** 3 - a * x - b) % p == 0, what  # on the curve
            with pytest.raises(gostx.GostxValueError, match="not a point of order q"):
                PublicKey.from_bytes(curve, _be(x, n) + _be(y, n))
        # A signature forged under T, which a PublicKey of T would have accepted.
        key = PrivateKey.generate(curve)
        digest = gostx.new(f"streebog{8 * n}", b"signed by nobody").digest()
        _forge_under_order4(c, T, digest, key)


# ---- refusals ----

@pytest.mark.parametrize("bad", ["nope", "", "id-tc26-gost-3410-2012-256-paramSetA\0", 0, 99, -1])
def test_unknown_curve_is_a_value_error(bad):
    with pytest.raises(gostx.GostxValueError, match="unknown curve"):
        PrivateKey.generate(bad)
    with pytest.raises(gostx.GostxValueError, match="unknown curve"):
        PublicKey.from_bytes(bad, bytes(64))


@pytest.mark.parametrize("bad", [None, 1.5, True, b"id-tc26-gost-3410-2012-256-paramSetA"])
def test_curve_of_the_wrong_type_is_a_type_error(bad):
    with pytest.raises(gostx.GostxTypeError, match="curve must be"):
        PrivateKey.generate(bad)
    if not isinstance(bad, str):
        with pytest.raises(gostx.GostxTypeError, match="name must be a str"):
            Curve.from_name(bad)


@pytest.mark.parametrize("case", SIGN, ids=lambda c: c["name"][:40])
def test_bad_keys_are_refused(case):
    curve, n, c = _test_curve(case)
    for length in (n - 1, n + 1, 0):
        with pytest.raises(gostx.GostxValueError, match=f"private key .* must be {n} bytes"):
            PrivateKey.from_bytes(curve, bytes(length))
        with pytest.raises(gostx.GostxValueError, match=f"public key .* must be {2 * n} bytes"):
            PublicKey.from_bytes(curve, bytes(2 * length))
    for d in (0, c["q"], c["q"] + 1, 2 ** (8 * n) - 1):
        with pytest.raises(gostx.GostxValueError, match="1..q-1"):
            PrivateKey.from_bytes(curve, _be(d, n))
    Q = bytes.fromhex(case["xQ"] + case["yQ"])
    x, y = c["xP"], c["yP"]
    for bad in (_flip(Q, 2 * n - 1), bytes(2 * n), _be(x + c["p"], n) + _be(y, n),
                _be(x, n) + _be(y + c["p"], n)):
        with pytest.raises(gostx.GostxValueError, match="not a point"):
            PublicKey.from_bytes(curve, bad)
    key = PrivateKey.from_bytes(curve, bytes.fromhex(case["d"]))
    with pytest.raises(gostx.GostxValueError, match=f"digest .* must be {n} bytes"):
        key.sign(bytes(n + 1), prehashed=True)
    with pytest.raises(gostx.GostxValueError, match=f"digest .* must be {n} bytes"):
        key.public_key().verify(bytes(2 * n), bytes(n - 1), prehashed=True)


def test_str_is_refused_where_bytes_are_needed():
    key = PrivateKey.generate(Curve.GOST3410_256_B)
    pub = key.public_key()
    sig = key.sign(b"data")
    for call in (lambda: PrivateKey.from_bytes(key.curve, "a" * 32),
                 lambda: PublicKey.from_bytes(key.curve, "a" * 64),
                 lambda: key.sign("data"), lambda: key.sign("d" * 32, prehashed=True),
                 lambda: pub.verify(sig, "data"), lambda: pub.verify(sig.hex(), b"data"),
                 lambda: key.exchange(pub, "ukm")):
        with pytest.raises(gostx.GostxTypeError, match="bytes-like|Strings"):
            call()


def test_exchange_refusals():
    a = PrivateKey.generate(Curve.GOST3410_256_A)
    b = PrivateKey.generate(Curve.GOST3410_256_A)
    other = PrivateKey.generate(Curve.GOST3410_512_A).public_key()
    with pytest.raises(gostx.GostxTypeError, match="PublicKey"):
        a.exchange(b.public_key().public_bytes_raw(), b"\x01")
    with pytest.raises(gostx.GostxValueError, match="paramSetA"):
        a.exchange(other, b"\x01")
    for size in (0, 16, 48, 128):
        with pytest.raises(gostx.GostxValueError, match="size must be 32"):
            a.exchange(b.public_key(), b"\x01", size=size)
    for ukm in (b"", bytes(33)):
        with pytest.raises(gostx.GostxValueError, match="ukm must be 1..32 bytes"):
            a.exchange(b.public_key(), ukm)


def test_objects_come_from_the_factories():
    with pytest.raises(gostx.GostxTypeError, match="generate"):
        PrivateKey()
    with pytest.raises(gostx.GostxTypeError, match="from_bytes"):
        PublicKey()
    pub = PrivateKey.generate(Curve.GOST3410_256_B).public_key()
    with pytest.raises(AttributeError):
        pub._raw = bytes(64)


def test_closed_key_refuses_use():
    key = PrivateKey.generate(Curve.GOST3410_256_C)
    with key:
        key.sign(b"x")
    for call in (lambda: key.sign(b"x"), key.private_bytes_raw, key.public_key,
                 lambda: key.exchange(PrivateKey.generate(key.curve).public_key(), b"\x01")):
        with pytest.raises(gostx.GostxValueError, match="closed"):
            call()
    key.close()  # twice is fine
    assert "closed" in repr(key)


def test_private_key_is_wiped_on_close_and_collection():
    key = PrivateKey.generate(Curve.GOST3410_512_B)
    h = key._h
    assert any(bytes(gostx.ffi.buffer(h)))
    key.close()
    assert key._h is None and bytes(gostx.ffi.buffer(h)) == bytes(64)
    key = PrivateKey.from_bytes(Curve.GOST3410_256_B, b"\x01" * 32)
    h = key._h
    del key
    gc.collect()
    assert bytes(gostx.ffi.buffer(h)) == bytes(32)


# ---- equality, copies, pickling ----

def test_public_key_equality_hash_and_pickle():
    key = PrivateKey.generate(Curve.GOST3410_512_A)
    pub = key.public_key()
    same = PublicKey.from_bytes("id-tc26-gost-3410-2012-512-paramSetA", pub.public_bytes_raw())
    assert pub == same and hash(pub) == hash(same) and len({pub, same}) == 1
    assert pub != PrivateKey.generate(Curve.GOST3410_512_A).public_key()
    assert pub != pub.public_bytes_raw()
    back = pickle.loads(pickle.dumps(pub))
    assert back == pub and back.curve is Curve.GOST3410_512_A
    assert copy.copy(pub) == pub and copy.deepcopy(pub) == pub
    assert pub.public_bytes_raw()[:8].hex() in repr(pub)


def test_private_key_refuses_pickling_and_copies_are_independent():
    key = PrivateKey.generate(Curve.GOST3410_256_D)
    for proto in range(pickle.HIGHEST_PROTOCOL + 1):
        with pytest.raises(TypeError, match="pickle") as e:
            pickle.dumps(key, protocol=proto)
        assert isinstance(e.value, gostx.GostxError)
    raw, pub = key.private_bytes_raw(), key.public_key()
    assert raw.hex() not in repr(key)
    for copier in (copy.copy, copy.deepcopy):
        k = PrivateKey.from_bytes(key.curve, raw)
        c = copier(k)
        assert c is not k and c.curve is k.curve
        k.close()
        del k
        gc.collect()
        assert c.private_bytes_raw() == raw and c.public_key() == pub
        pub.verify(c.sign(b"after"), b"after")


# ---- threads ----

def test_shared_keys_in_threads_equal_sequential_use():
    curve = Curve.GOST3410_256_A
    key, peer = PrivateKey.generate(curve), PrivateKey.generate(curve)
    pub, ukm = key.public_key(), os.urandom(8)
    want_kek = key.exchange(peer.public_key(), ukm)
    msgs = [os.urandom(64) for _ in range(8)]
    start = threading.Barrier(8)
    results, errors = [], []

    def work(i):
        try:
            start.wait()
            for _ in range(20):
                sig = key.sign(msgs[i])
                pub.verify(sig, msgs[i])
                try:
                    pub.verify(sig, msgs[(i + 1) % 8])
                    results.append("forged")
                except InvalidSignature:
                    pass
                results.append(key.exchange(peer.public_key(), ukm))
        except BaseException as e:  # noqa: B902 - handed to the main thread
            errors.append(e)

    ts = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errors, errors[0]
    assert results == [want_kek] * 160
