"""GOST R 34.10-2012 key files from Python (issue 28): PKCS#8 and
SubjectPublicKeyInfo in DER and PEM written and read on every curve, their
layout checked by a small DER reader here (gost-engine's little-endian
numbers, the curve's OID), malformed files refused, and the package against
the gostx command (genpkey, pkey, sign, verify, vko) both ways."""
import base64
import os
import subprocess

import pytest

import gostx
from gostx import Curve, PrivateKey, PublicKey

CURVES = list(Curve)  # the nine sets; iteration skips the CryptoPro aliases
ALG_OID = {256: "1.2.643.7.1.1.1.1", 512: "1.2.643.7.1.1.1.2"}  # id-tc26-gost3410-12-256/-512


def _tlv(b, i=0):
    """(tag, content, index after) of the DER element at b[i]."""
    tag, n = b[i], b[i + 1]
    i += 2
    if n & 0x80:
        k = n & 0x7F
        n = int.from_bytes(b[i:i + k], "big")
        i += k
    return tag, b[i:i + n], i + n


def _children(b):
    out, i = [], 0
    while i < len(b):
        tag, content, i = _tlv(b, i)
        out.append((tag, content))
    return out


def _oid(dotted):
    """DER content of an OBJECT IDENTIFIER."""
    arcs = [int(a) for a in dotted.split(".")]
    out = bytearray([40 * arcs[0] + arcs[1]])
    for a in arcs[2:]:
        chunk = [a & 0x7F]
        while a > 0x7F:
            a >>= 7
            chunk.append(0x80 | (a & 0x7F))
        out += bytes(reversed(chunk))
    return bytes(out)


def _oid_text(content):
    """The dotted form of an OBJECT IDENTIFIER's DER content."""
    arcs, a = [content[0] // 40, content[0] % 40], 0
    for byte in content[1:]:
        a = a << 7 | byte & 0x7F
        if not byte & 0x80:
            arcs.append(a)
            a = 0
    return ".".join(map(str, arcs))


def _check_algorithm(alg, curve):
    """The key's algorithm OID and a parameter-set OID that names its curve (the
    tc26 one, or for 256-bit B, C, D the CryptoPro one gost-engine writes)."""
    (t1, oid), (t2, params) = _children(alg)[:2]
    assert (t1, oid) == (0x06, _oid(ALG_OID[curve.key_size]))
    assert _oid_text(oid) == ALG_OID[curve.key_size]
    tag, paramset = _children(params)[0]
    assert t2 == 0x30 and tag == 0x06
    assert Curve.from_name(_oid_text(paramset)) is curve
    return paramset


@pytest.mark.parametrize("curve", CURVES, ids=lambda c: c.name)
def test_key_files_round_trip_and_layout(curve):
    n = curve.key_size // 8
    key = PrivateKey.generate(curve)
    pub = key.public_key()
    d, xy = key.private_bytes_raw(), pub.public_bytes_raw()

    der = key.private_bytes("DER")
    tag, body, end = _tlv(der)
    assert tag == 0x30 and end == len(der)
    (tv, version), (ta, alg), (tk, dle) = _children(body)[:3]
    assert (tv, version) == (0x02, b"\x00")
    _check_algorithm(alg, curve)
    assert tk == 0x04 and dle == d[::-1]  # d little-endian, as gost-engine writes it

    spki = pub.public_bytes("DER")
    tag, body, end = _tlv(spki)
    assert tag == 0x30 and end == len(spki)
    (ta, alg), (tb, bits) = _children(body)
    _check_algorithm(alg, curve)
    assert tb == 0x03 and bits[0] == 0
    assert _tlv(bits[1:]) == (0x04, xy[:n][::-1] + xy[n:][::-1], len(bits) - 1)

    pem = key.private_bytes()
    assert pem == key.private_bytes("pem")
    lines = pem.decode().splitlines()
    assert lines[0] == "-----BEGIN PRIVATE KEY-----" and lines[-1] == "-----END PRIVATE KEY-----"
    assert base64.b64decode("".join(lines[1:-1])) == der
    pub_pem = pub.public_bytes("PEM")
    assert pub_pem.startswith(b"-----BEGIN PUBLIC KEY-----\n") and pub.public_bytes() == pub_pem

    for loaded in (gostx.load_der_private_key(der), gostx.load_pem_private_key(pem),
                   gostx.load_pem_private_key(bytearray(pem), None),
                   gostx.load_der_private_key(memoryview(der), password=None)):
        assert loaded.curve is curve and loaded.private_bytes_raw() == d
        assert loaded.public_key() == pub
    for loaded in (gostx.load_der_public_key(spki), gostx.load_pem_public_key(pub_pem)):
        assert loaded == pub and loaded.curve is curve
    # A loaded key works: it signs, and the original key verifies it.
    pub.verify(gostx.load_pem_private_key(pem).sign(b"data"), b"data")


# `openssl genpkey -engine gost -algorithm gost2012_256 -pkeyopt paramset:TCA` and
# `... gost2012_512 -pkeyopt paramset:A` (gost-engine 3.0.1; tests/test_gost3410_keys.c).
ENGINE_FILES = {
    Curve.GOST3410_256_A: b"""-----BEGIN PRIVATE KEY-----
MD4CAQAwFwYIKoUDBwEBAQEwCwYJKoUDBwECAQEBBCDiakQBu72EG76IHSlgQ4e5
07UJTEhnC/qx4I4n2kiNLw==
-----END PRIVATE KEY-----
""",
    Curve.GOST3410_512_A: b"""-----BEGIN PRIVATE KEY-----
MGgCAQAwIQYIKoUDBwEBAQIwFQYJKoUDBwECAQIBBggqhQMHAQECAwRAeeYM9SgZ
MmJq/JBD4J4j82PqeWFpijDsPxLCOj0oLFfmY+tR2qm3eXqI2Jm/S267tVg009ii
cjIQSpvrAbWC0Q==
-----END PRIVATE KEY-----
""",
}


@pytest.mark.parametrize("curve", list(ENGINE_FILES), ids=lambda c: c.name)
def test_gost_engine_files_read_and_written_back(curve):
    pem = ENGINE_FILES[curve]
    key = gostx.load_pem_private_key(pem)
    assert key.curve is curve and key.private_bytes() == pem
    der = base64.b64decode(b"".join(pem.splitlines()[1:-1]))
    assert _children(_tlv(der)[1])[2] == (0x04, key.private_bytes_raw()[::-1])
    key.public_key().verify(key.sign(b"engine"), b"engine")


def test_malformed_key_files_are_refused():
    key = PrivateKey.generate(Curve.GOST3410_256_B)
    der, pem = key.private_bytes("DER"), key.private_bytes("PEM")
    spki = key.public_key().public_bytes("DER")
    for bad in (b"", der[:-1], der + b"\0", der[:1] + bytes([der[1] + 1]) + der[2:]):
        with pytest.raises(gostx.GostxValueError, match="DER key: malformed"):
            gostx.load_der_private_key(bad)
    with pytest.raises(gostx.GostxValueError, match="DER key: malformed"):
        gostx.load_der_public_key(spki[:-3])
    # Well-formed, but a parameter set gostx does not know (same length: 1.2.643.7.1.2.1.1.9
    # for a tc26 OID, 1.2.643.2.2.35.9 for a CryptoPro one).
    paramset = _check_algorithm(_children(_tlv(der)[1])[1][1], key.curve)
    unknown = der.replace(paramset, paramset[:-1] + b"\x09")
    with pytest.raises(gostx.GostxValueError, match="unknown parameter set"):
        gostx.load_der_private_key(unknown)
    for bad in (b"", pem[:40] + b"*" + pem[41:], pem + b"junk", der):
        with pytest.raises(gostx.GostxValueError, match="not a GOST R 34.10-2012 PEM key"):
            gostx.load_pem_private_key(bad)
    # d = 0 in a well-formed file: the key is refused, not the form.
    zero = der.replace(key.private_bytes_raw()[::-1], bytes(32))
    with pytest.raises(gostx.GostxValueError, match="invalid"):
        gostx.load_der_private_key(zero)


def test_key_file_kind_password_and_type_refusals():
    key = PrivateKey.generate(Curve.GOST3410_512_A)
    pub = key.public_key()
    with pytest.raises(gostx.GostxValueError, match="holds a public key"):
        gostx.load_pem_private_key(pub.public_bytes())
    with pytest.raises(gostx.GostxValueError, match="holds a private key"):
        gostx.load_der_public_key(key.private_bytes("DER"))
    with pytest.raises(gostx.GostxTypeError, match="password"):
        gostx.load_pem_private_key(key.private_bytes(), b"secret")
    for call in (lambda: gostx.load_pem_private_key(key.private_bytes().decode()),
                 lambda: gostx.load_der_public_key("30")):
        with pytest.raises(gostx.GostxTypeError, match="bytes-like|Strings"):
            call()
    for enc in ("XML", "", "PEM "):
        with pytest.raises(gostx.GostxValueError, match="encoding must be"):
            key.private_bytes(enc)
        with pytest.raises(gostx.GostxValueError, match="encoding must be"):
            pub.public_bytes(enc)
    with pytest.raises(gostx.GostxTypeError, match="encoding must be"):
        pub.public_bytes(1)
    key.close()
    with pytest.raises(gostx.GostxValueError, match="closed"):
        key.private_bytes()


# ---- against the gostx command ----

def _run(cli, *args, ok=True):
    r = subprocess.run([cli, *map(str, args)], capture_output=True)
    if ok:
        assert r.returncode == 0, r.stderr.decode()
    return r


def _swap(sig):
    """r || s (this package) <-> s || r (the command, openssl dgst, X.509)."""
    n = len(sig) // 2
    return sig[n:] + sig[:n]


@pytest.mark.parametrize("curve", [Curve.GOST3410_256_A, Curve.GOST3410_256_B,
                                   Curve.GOST3410_512_C], ids=lambda c: c.name)
def test_package_and_command_agree(cli, tmp_path, curve):
    data = os.urandom(5000)
    msg = tmp_path / "msg"
    msg.write_bytes(data)

    # A key the command generated, read here; its public key written by both.
    _run(cli, "genpkey", "-c", curve.param_set, "-o", tmp_path / "c.pem")
    ckey = gostx.load_pem_private_key((tmp_path / "c.pem").read_bytes())
    assert ckey.curve is curve
    _run(cli, "pkey", "-i", tmp_path / "c.pem", "--pubout", "-o", tmp_path / "c.pub")
    assert (tmp_path / "c.pub").read_bytes() == ckey.public_key().public_bytes()
    _run(cli, "pkey", "-i", tmp_path / "c.pem", "--outform", "DER", "-o", tmp_path / "c.der")
    assert (tmp_path / "c.der").read_bytes() == ckey.private_bytes("DER")

    # The command signs, the package verifies (s || r there, r || s here).
    _run(cli, "sign", "-k", tmp_path / "c.pem", "-o", tmp_path / "c.sig", msg)
    ckey.public_key().verify(_swap((tmp_path / "c.sig").read_bytes()), data)

    # The package signs with a key it wrote, the command verifies.
    key = PrivateKey.generate(curve)
    (tmp_path / "p.der").write_bytes(key.private_bytes("DER"))
    (tmp_path / "p.pub").write_bytes(key.public_key().public_bytes())
    (tmp_path / "p.sig").write_bytes(_swap(key.sign(data)))
    _run(cli, "verify", "-p", tmp_path / "p.pub", "-s", tmp_path / "p.sig", msg)
    (tmp_path / "bad.sig").write_bytes(_swap(key.sign(data + b"x")))
    assert _run(cli, "verify", "-p", tmp_path / "p.pub", "-s", tmp_path / "bad.sig", msg,
                ok=False).returncode == 1

    # VKO: the command with our key and its peer, the package with the other two.
    ukm = os.urandom(8)
    for flag, size in (("--256", 32), ("--512", 64)):
        _run(cli, "vko", "-k", tmp_path / "p.der", "--peer", tmp_path / "c.pub", "--ukm",
             ukm.hex(), flag, "-o", tmp_path / f"kek{size}")
        kek = (tmp_path / f"kek{size}").read_bytes()
        assert kek == ckey.exchange(key.public_key(), ukm, size=size)
        assert kek == key.exchange(ckey.public_key(), ukm, size=size)
