"""GOST R 34.10-2012 key files from Python (issue 28): PKCS#8 and
SubjectPublicKeyInfo in DER and PEM written and read on every curve, their
layout checked by a small DER reader here (gost-engine's little-endian
numbers, the curve's OID), malformed files refused; encrypted PKCS#8 (PBES2
with Kuznyechik or Magma CTR-ACPKM) written and read on several curves, its
layout, gost-engine's files, the refusals (cryptography's TypeErrors, a wrong
password, schemes gostx does not read) and no copy of the key left in the
scratch; and the package against the gostx command (genpkey, pkey, sign,
verify, vko, KEG) and openssl with gost-engine, both ways."""
import base64
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

import gostx
from gostx import Curve, PrivateKey, PublicKey

# the test scripts' DER reader and OID writer (tests/support/der.py)
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "tests" / "support"))
from der import header as der_header, oid as der_oid  # noqa: E402

CURVES = list(Curve)  # the nine sets; iteration skips the CryptoPro aliases
ALG_OID = {256: "1.2.643.7.1.1.1.1", 512: "1.2.643.7.1.1.1.2"}  # id-tc26-gost3410-12-256/-512


def _tlv(b, i=0):
    """(tag, content, index after) of the DER element at b[i]."""
    tag, hl, n = der_header(b, i)
    return tag, b[i + hl:i + hl + n], i + hl + n


def _children(b):
    out, i = [], 0
    while i < len(b):
        tag, content, i = _tlv(b, i)
        out.append((tag, content))
    return out


def _oid(dotted):
    """DER content of an OBJECT IDENTIFIER (its element's, after the two
    header bytes: an OID here is short)."""
    return der_oid(dotted)[2:]


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


# The OID aliases of one parameter set (include/gostx/gost3410.h): gost-engine
# derives (VKO) only between keys of the same OID, so a key read and written
# again keeps the OID its file named (issue 48 item 12; before, the package
# wrote the default one).
OID_ALIASES = [(Curve.GOST3410_256_B, "1.2.643.7.1.2.1.1.2"), (Curve.GOST3410_256_B, "1.2.643.2.2.36.0"),
               (Curve.GOST3410_256_C, "1.2.643.7.1.2.1.1.3"), (Curve.GOST3410_256_D, "1.2.643.7.1.2.1.1.4"),
               (Curve.GOST3410_256_D, "1.2.643.2.2.36.1")]


def _paramset_oid(der, private):
    """The parameter-set OID (dotted) of a PKCS#8 (private) or SPKI DER file."""
    alg = _children(_tlv(der)[1])[1 if private else 0][1]
    return _oid_text(_check_algorithm(alg, Curve.from_name(_oid_text(_children(
        _children(alg)[1][1])[0][1]))))


@pytest.mark.parametrize("curve,oid", OID_ALIASES, ids=lambda v: getattr(v, "name", v))
def test_key_files_keep_their_parameter_set_oid(curve, oid):
    from gostx._native import ffi, lib
    d = PrivateKey.generate(curve).private_bytes_raw()
    buf, n = ffi.new("uint8_t[]", lib.GOSTX_GOST3410_DER_MAX), ffi.new("size_t *")
    k = ffi.new("gostx_gost3410_key[1]")
    assert lib.gostx_gost3410_key_set_private(k, curve, d, len(d), oid.encode()) == 0
    assert lib.gostx_gost3410_key_write(k, lib.GOSTX_GOST3410_KEY_PRIVATE, lib.GOSTX_GOST3410_DER,
                                        ffi.NULL, buf, len(buf), n) == 0
    der = bytes(ffi.buffer(buf, n[0]))
    assert _paramset_oid(der, True) == oid
    key = gostx.load_der_private_key(der)
    assert key.private_bytes("DER") == der
    assert _paramset_oid(_pem_body(key.private_bytes("PEM"), "PRIVATE KEY"), True) == oid
    enc = gostx.load_der_private_key(key.private_bytes("DER", b"pw", iterations=1), b"pw")
    assert enc.private_bytes("DER") == der
    enc = gostx.load_pem_private_key(key.private_bytes("PEM", b"pw", iterations=1), b"pw")
    assert enc.private_bytes("DER") == der
    pub = key.public_key().public_bytes("DER")
    assert _paramset_oid(pub, False) == oid
    assert gostx.load_pem_public_key(key.public_key().public_bytes("PEM")).public_bytes("DER") == pub
    assert gostx.load_der_public_key(pub) == key.public_key()


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
    # (text after the END line is ignored, as openssl ignores it; on the line, not)
    for bad in (b"", pem[:40] + b"*" + pem[41:], pem[:-1] + b"junk\n", der):
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


# ---- encrypted private keys: PKCS#8 EncryptedPrivateKeyInfo, PBES2 ----

PBES2, PBKDF2 = "1.2.840.113549.1.5.13", "1.2.840.113549.1.5.12"
HMAC_STREEBOG512 = "1.2.643.7.1.1.4.2"
PBE_OID = {"kuznyechik": "1.2.643.7.1.1.5.2.1", "magma": "1.2.643.7.1.1.5.1.1"}
ENC_CURVES = [Curve.GOST3410_256_A, Curve.GOST3410_256_D, Curve.GOST3410_512_B,
              Curve.GOST3410_512_C]


def _pem_body(pem, label):
    lines = pem.decode().splitlines()
    assert lines[0] == f"-----BEGIN {label}-----" and lines[-1] == f"-----END {label}-----"
    return base64.b64decode("".join(lines[1:-1]))


def _pbes2(der):
    """(salt, iterations, prf OID, cipher OID, IV ukm, ciphertext) of an
    EncryptedPrivateKeyInfo (RFC 8018 PBES2, RFC 9337's GOST parameters)."""
    tag, body, end = _tlv(der)
    assert tag == 0x30 and end == len(der)
    (ta, alg), (tc, ct) = _children(body)
    (_, oid), (_, params) = _children(alg)
    assert _oid_text(oid) == PBES2 and tc == 0x04
    (_, kdf), (_, enc) = _children(params)
    (_, kdf_oid), (_, kdf_params) = _children(kdf)
    assert _oid_text(kdf_oid) == PBKDF2
    (ts, salt), (ti, it), (_, prf) = _children(kdf_params)
    assert (ts, ti) == (0x04, 0x02)
    (_, enc_oid), (_, enc_params) = _children(enc)
    (tu, ukm), = _children(enc_params)
    assert tu == 0x04
    return (salt, int.from_bytes(it, "big"), _oid_text(_children(prf)[0][1]), _oid_text(enc_oid),
            ukm, ct)


@pytest.mark.parametrize("cipher", ["kuznyechik", "magma"])
@pytest.mark.parametrize("curve", ENC_CURVES, ids=lambda c: c.name)
def test_encrypted_keys_round_trip_and_layout(curve, cipher):
    key = PrivateKey.generate(curve)
    d, pub = key.private_bytes_raw(), key.public_key()
    pw = os.urandom(12)
    der = key.private_bytes("DER", pw, cipher=cipher, iterations=100)
    salt, iterations, prf, enc, ukm, ct = _pbes2(der)
    assert (len(salt), iterations, prf, enc) == (16, 100, HMAC_STREEBOG512, PBE_OID[cipher])
    n = 16 if cipher == "kuznyechik" else 8
    assert len(ukm) == n // 2 + 8  # the IV (n/2 bytes), then 8 bytes gost-engine reads as 0
    assert len(ct) == len(key.private_bytes("DER"))  # CTR: as long as the PrivateKeyInfo
    assert key.private_bytes("DER") not in der and d[::-1] not in der

    pem = key.private_bytes("PEM", pw, cipher=cipher, iterations=100)
    assert _pbes2(_pem_body(pem, "ENCRYPTED PRIVATE KEY"))[1:4] == (100, prf, enc)
    again = key.private_bytes("DER", pw, cipher=cipher, iterations=100)
    assert _pbes2(again)[0] != salt and again != der  # a fresh salt and IV each time

    for loaded in (gostx.load_der_private_key(der, pw),
                   gostx.load_der_private_key(memoryview(der), password=bytearray(pw)),
                   gostx.load_pem_private_key(pem, pw),
                   gostx.load_pem_private_key(bytearray(pem), memoryview(pw))):
        assert loaded.curve is curve and loaded.private_bytes_raw() == d
        assert loaded.public_key() == pub
    pub.verify(gostx.load_pem_private_key(pem, pw).sign(b"data"), b"data")

    # The long names and any case; an empty password reads (files may have one).
    long = key.private_bytes("pem", pw, cipher=f"{cipher.upper()}-CTR-ACPKM", iterations=1)
    assert _pbes2(_pem_body(long, "ENCRYPTED PRIVATE KEY"))[1:4] == (1, prf, enc)
    assert gostx.load_pem_private_key(long, pw).private_bytes_raw() == d


def test_encrypted_key_defaults():
    key = PrivateKey.generate(Curve.GOST3410_256_B)
    pem = key.private_bytes("PEM", b"pw")
    assert _pbes2(_pem_body(pem, "ENCRYPTED PRIVATE KEY"))[1:4] == (
        2048, HMAC_STREEBOG512, PBE_OID["kuznyechik"])
    assert key.private_bytes(password=b"pw").startswith(b"-----BEGIN ENCRYPTED PRIVATE KEY")
    assert gostx.load_pem_private_key(pem, b"pw").private_bytes_raw() == key.private_bytes_raw()
    # password=None (the default, or given) is the unencrypted file, as before.
    assert key.private_bytes("PEM", None) == key.private_bytes() == key.private_bytes("PEM")


# gost-engine 3.0.1 with OpenSSL 3.0.19 (as tests/test_gost3410_keys.c has them):
# `openssl pkcs8 -engine gost -topk8 -v2 kuznyechik-ctr-acpkm (magma-ctr-acpkm)
# -v2prf id-tc26-hmac-gost-3411-2012-512 -passout pass:pw` of one 512 paramSetB
# key; `... -v2 gost89 -passout pass:x` of a 256 paramSetA key (GOST 28147-89
# CFB, read only); and `openssl genpkey -algorithm EC -pkeyopt
# ec_paramgen_curve:P-256 -aes-256-cbc -pass pass:pw` (OpenSSL's default scheme).
ENGINE_ENC_D = ("444a6d6f189f2fa862106251214ae2cfd8571585eb624eda079804504bca7f3b"
                "49bbb9cf9c07913bb0fc05356fdc890f888b439196eace78a8104c8d771814f7")
ENGINE_ENC = {
    "kuznyechik": b"""-----BEGIN ENCRYPTED PRIVATE KEY-----
MIHHMFkGCSqGSIb3DQEFDTBMMCkGCSqGSIb3DQEFDDAcBAjpxTfQk7NfFgICCAAw
DAYIKoUDBwEBBAIFADAfBgkqhQMHAQEFAgEwEgQQccV4YbPkIM0AAAAAAAAAAARq
qCNVSrmzQModUSgU6KvmhJO8d0+DgrVgt/nZn3V7KBB1BjPBH/iDwGDHwH9NFy8h
HuyBtG0wh5gtiPWzEJmw7H7xB30j8OsGeOV/CBPUKEvDeSiF+kreqLKhIo5LEkJm
HMNAgDpAEmoHeQ==
-----END ENCRYPTED PRIVATE KEY-----
""",
    "magma": b"""-----BEGIN ENCRYPTED PRIVATE KEY-----
MIHDMFUGCSqGSIb3DQEFDTBIMCkGCSqGSIb3DQEFDDAcBAimsGfoQFeIYAICCAAw
DAYIKoUDBwEBBAIFADAbBgkqhQMHAQEFAQEwDgQM6BA+1wAAAAAAAAAABGqVikVs
MoGKc5B31F/6XWTw6KHcgnMMd91p212J/wus/JFpfPAc5w/EwKW2dH/cxUwa8j4H
BnnRjdv8BvMmwxJ/pzrvM/FhzPgBCoUCPZYBAoaiL1f8cV56UnHDl2Ln58JQ+kH6
WwrWOaTx
-----END ENCRYPTED PRIVATE KEY-----
""",
}
ENGINE_ENC_GOST89_D = "10273c75b3c79f4703bee86afb2516347e11d3f9ff65a150451a8dcb9d0aba86"
ENGINE_ENC_GOST89 = b"""-----BEGIN ENCRYPTED PRIVATE KEY-----
MIGdMFkGCSqGSIb3DQEFDTBMMCkGCSqGSIb3DQEFDDAcBAi8QsCbLX/biAICCAAw
DAYIKoUDBwEBBAIFADAfBgYqhQMCAhUwFQQIfI/Da6isPVEGCSqFAwcBAgUBAQRA
9+cbiv+ajkTbcdaj4wUc+G10TrpI67IqhqpMpF9YdQCDGr+1dI5L4QHtDFWS46AS
qOUcDBwRRt1f7oEC18ARQg==
-----END ENCRYPTED PRIVATE KEY-----
"""
OPENSSL_AES = b"""-----BEGIN ENCRYPTED PRIVATE KEY-----
MIHsMFcGCSqGSIb3DQEFDTBKMCkGCSqGSIb3DQEFDDAcBAh24WpV6f4SgQICCAAw
DAYIKoZIhvcNAgkFADAdBglghkgBZQMEASoEEIOR8ouz0KM5G5DLfvwjh/gEgZAk
KqZtqX0RaGqcoft64/f8woMtktqNGKB6wIQLhWqFV/knJiS+bl/BX+M2MCO6OBUe
BWsgkf8Y2TmeJ7RrxFqsTNgqlOLBeZ4a2awIchgPc2J3FbPfqVNElGEnCM2CYe4+
FJUNDAWKBbB6TheLV9IL5oR9cxwbQoARulTpQdfxXURSu1w+gAxh3GYjsh3fdxs=
-----END ENCRYPTED PRIVATE KEY-----
"""


def test_gost_engine_encrypted_files_are_read():
    for cipher, pem in ENGINE_ENC.items():
        key = gostx.load_pem_private_key(pem, b"pw")
        assert key.curve is Curve.GOST3410_512_B and key.private_bytes_raw().hex() == ENGINE_ENC_D
        der = _pem_body(pem, "ENCRYPTED PRIVATE KEY")
        assert _pbes2(der)[3] == PBE_OID[cipher]
        assert gostx.load_der_private_key(der, b"pw").private_bytes_raw() == key.private_bytes_raw()
        with pytest.raises(gostx.GostxValueError, match="Bad decrypt"):
            gostx.load_pem_private_key(pem, b"pW")
    key = gostx.load_pem_private_key(ENGINE_ENC_GOST89, b"x")
    assert key.curve is Curve.GOST3410_256_A
    assert key.private_bytes_raw().hex() == ENGINE_ENC_GOST89_D


def _with_oid(der, old, new):
    """der with one OID swapped for another of the same encoded length."""
    a, b = _oid(old), _oid(new)
    assert len(a) == len(b) and der.count(a) == 1
    return der.replace(a, b)


def test_encrypted_key_refusals():
    key = PrivateKey.generate(Curve.GOST3410_256_C)
    pem = key.private_bytes("PEM", b"right", iterations=10)
    der = key.private_bytes("DER", b"right", iterations=10)
    loads = ((gostx.load_pem_private_key, pem), (gostx.load_der_private_key, der))
    for load, data in loads:
        # cryptography's TypeError for an encrypted key without a password
        with pytest.raises(gostx.GostxTypeError,
                           match="Password was not given but private key is encrypted"):
            load(data)
        # (not b"right\0": HMAC pads its key with zeros, so PBKDF2 takes it as b"right")
        for wrong in (b"wrong", b"", b"righ", b"Right", b"right "):
            with pytest.raises(gostx.GostxValueError, match="Bad decrypt. Incorrect password"):
                load(data, wrong)
        for bad in ("right", 1234, ["r"]):
            with pytest.raises(gostx.GostxTypeError, match="password must be bytes-like"):
                load(data, bad)
    # cryptography's TypeError for a password with an unencrypted key
    for load, data in ((gostx.load_pem_private_key, key.private_bytes()),
                       (gostx.load_der_private_key, key.private_bytes("DER"))):
        with pytest.raises(gostx.GostxTypeError,
                           match="Password was given but private key is not encrypted"):
            load(data, b"right")

    # Damaged: CTR has no integrity check, so a flipped ciphertext bit shows as a
    # decryption that is no key (here the PrivateKeyInfo's SEQUENCE tag).
    ct = _pbes2(der)[5]
    at = len(der) - len(ct)
    flipped = der[:at] + bytes([der[at] ^ 0x40]) + der[at + 1:]
    with pytest.raises(gostx.GostxValueError, match="Bad decrypt"):
        gostx.load_der_private_key(flipped, b"right")
    for bad in (der[:-1], der + b"\0"):
        with pytest.raises(gostx.GostxValueError, match="malformed"):
            gostx.load_der_private_key(bad, b"right")
    with pytest.raises(gostx.GostxValueError, match="malformed"):
        gostx.load_pem_private_key(pem[:60] + b"*" + pem[61:], b"right")

    # The -omac variant is read (RFC 9337: its tag ends the ciphertext): the
    # same bytes under its OID have no valid tag, as a wrong password.
    omac = _with_oid(der, PBE_OID["kuznyechik"], "1.2.643.7.1.1.5.2.2")
    with pytest.raises(gostx.GostxValueError, match="Bad decrypt"):
        gostx.load_der_private_key(omac, b"right")
    # Schemes gostx does not read: named, with or without a password.
    prf256 = _with_oid(der, HMAC_STREEBOG512, "1.2.643.7.1.1.4.1")
    aes = _pem_body(OPENSSL_AES, "ENCRYPTED PRIVATE KEY")
    for data, name in ((prf256, "HMAC-Streebog-256"),
                       (aes, "PBKDF2 with hmacWithSHA256, aes-256-cbc")):
        for password in (None, b"right", b"pw"):
            with pytest.raises(gostx.GostxValueError, match=f"does not read: PBES2: .*{name}"):
                gostx.load_der_private_key(data, password)
    with pytest.raises(gostx.GostxValueError, match="aes-256-cbc"):
        gostx.load_pem_private_key(OPENSSL_AES, b"pw")


def test_encrypted_key_writing_refusals():
    key = PrivateKey.generate(Curve.GOST3410_512_A)
    with pytest.raises(gostx.GostxValueError, match="password must not be empty"):
        key.private_bytes("PEM", b"")
    for bad in ("secret", 7, object()):
        with pytest.raises(gostx.GostxTypeError, match="password must be bytes-like"):
            key.private_bytes("PEM", bad)
    for cipher in ("aes", "", "kuznyechik-ctr", "gost89"):
        with pytest.raises(gostx.GostxValueError, match="cipher must be 'kuznyechik'"):
            key.private_bytes("DER", b"pw", cipher=cipher)
    with pytest.raises(gostx.GostxTypeError, match="cipher must be"):
        key.private_bytes("DER", b"pw", cipher=1)
    for n in (0, -1, 10_000_001):
        with pytest.raises(gostx.GostxValueError, match="iterations must be 1..10000000"):
            key.private_bytes("DER", b"pw", iterations=n)
    for n in ("2048", 2048.0, True, None):
        with pytest.raises(gostx.GostxTypeError, match="iterations must be an int"):
            key.private_bytes("DER", b"pw", iterations=n)
    with pytest.raises(gostx.GostxValueError, match="encoding must be"):
        key.private_bytes("XML", b"pw")
    with pytest.raises(TypeError):
        key.private_bytes("PEM", b"pw", "magma")  # cipher and iterations are keyword-only
    key.close()
    with pytest.raises(gostx.GostxValueError, match="closed"):
        key.private_bytes("PEM", b"pw")


class _RecordingFFI:
    """gostx.gost3410's ffi, keeping every buffer the module allocates."""

    def __init__(self, ffi):
        self._ffi, self.made = ffi, []

    def new(self, *args):
        buf = self._ffi.new(*args)
        self.made.append(buf)
        return buf

    def __getattr__(self, name):
        return getattr(self._ffi, name)


def test_encrypted_keys_leave_no_secret_behind(monkeypatch):
    """The key's own buffer holds d; the module's scratch (the decrypted d, the
    files written, unencrypted ones included) is wiped, and the password is
    neither copied nor kept (a bytearray still exported could not be
    resized)."""
    import gostx.gost3410 as mod
    key = PrivateKey.generate(Curve.GOST3410_512_A)
    d, plain, plain_pem = key.private_bytes_raw(), key.private_bytes("DER"), key.private_bytes()
    pw = bytearray(b"correct horse battery staple")
    pw_read = bytearray(pw)
    rec = _RecordingFFI(mod.ffi)
    monkeypatch.setattr(mod, "ffi", rec)
    with pytest.raises(ValueError, match="Bad decrypt"):
        gostx.load_pem_private_key(key.private_bytes("PEM", b"other", iterations=10), pw_read)
    files = [key.private_bytes(enc, pw, cipher=c, iterations=10)
             for enc in ("PEM", "DER") for c in ("kuznyechik", "magma")]
    loaded = [gostx.load_pem_private_key(files[0], pw_read),
              gostx.load_der_private_key(files[3], pw_read)]
    assert key.private_bytes("DER") == plain and key.private_bytes("PEM") == plain_pem
    monkeypatch.undo()
    assert all(k.private_bytes_raw() == d for k in loaded)
    owned = [k._h for k in loaded]
    scratch = [b for b in rec.made if not any(b is h for h in owned)]
    assert len(scratch) >= 10
    for buf in scratch:
        raw = bytes(gostx.ffi.buffer(buf))
        assert d not in raw and d[::-1] not in raw and plain[:40] not in raw
        assert plain_pem[30:90] not in raw
    for f in files:
        assert bytes(pw) not in f
    for p in (pw, pw_read):
        p[:] = b""  # BufferError if the package still held an export of it
        assert p == bytearray()


# ---- encrypted keys and KEG against the gostx command ----

@pytest.mark.parametrize("curve,cipher", [(Curve.GOST3410_256_A, "kuznyechik"),
                                          (Curve.GOST3410_256_C, "magma"),
                                          (Curve.GOST3410_512_B, "magma"),
                                          (Curve.GOST3410_512_C, "kuznyechik")],
                         ids=lambda v: getattr(v, "name", v))
def test_encrypted_keys_and_keg_with_the_command(cli, tmp_path, curve, cipher):
    pw = "pass word"
    # The command writes an encrypted key, the package reads it.
    _run(cli, "genpkey", "-c", curve.param_set, "-pass", f"pass:{pw}", f"-{cipher}-ctr-acpkm",
         "--iter", 100, "-o", tmp_path / "c.pem")
    cpem = (tmp_path / "c.pem").read_bytes()
    assert _pbes2(_pem_body(cpem, "ENCRYPTED PRIVATE KEY"))[1:4] == (100, HMAC_STREEBOG512,
                                                                     PBE_OID[cipher])
    ckey = gostx.load_pem_private_key(cpem, pw.encode())
    assert ckey.curve is curve
    with pytest.raises(gostx.GostxValueError, match="Bad decrypt"):
        gostx.load_pem_private_key(cpem, b"pass-word")
    _run(cli, "pkey", "-i", tmp_path / "c.pem", "-passin", f"pass:{pw}", "--outform", "DER",
         "-o", tmp_path / "c.der")
    assert (tmp_path / "c.der").read_bytes() == ckey.private_bytes("DER")

    # The package writes one, the command reads it (and refuses a wrong password).
    key = PrivateKey.generate(curve)
    (tmp_path / "p.der").write_bytes(key.private_bytes("DER", pw.encode(), cipher=cipher,
                                                       iterations=100))
    _run(cli, "pkey", "-i", tmp_path / "p.der", "-passin", f"pass:{pw}", "-o", tmp_path / "p.pem")
    assert (tmp_path / "p.pem").read_bytes() == key.private_bytes()
    assert _run(cli, "pkey", "-i", tmp_path / "p.der", "-passin", "pass:wrong", "-o",
                tmp_path / "x.pem", ok=False).returncode != 0

    # KEG: the command's vko with a 32-byte UKM, from each encrypted key.
    (tmp_path / "c.pub").write_bytes(ckey.public_key().public_bytes())
    (tmp_path / "p.pub").write_bytes(key.public_key().public_bytes())
    h = os.urandom(32)
    kek = ckey.keg(key.public_key(), h)
    assert kek == key.keg(ckey.public_key(), h) and len(kek) == 64
    for k, peer in (("c.pem", "p.pub"), ("p.der", "c.pub")):
        _run(cli, "vko", "-k", tmp_path / k, "-passin", f"pass:{pw}", "--peer", tmp_path / peer,
             "--ukm", h.hex(), "-o", tmp_path / "kek")
        assert (tmp_path / "kek").read_bytes() == kek


# ---- encrypted keys and KEG against openssl with gost-engine ----

@pytest.fixture(scope="session")
def openssl_gost():
    """The openssl command with gost-engine loaded; tests that need it skip
    when either is absent."""
    exe = shutil.which("openssl")
    if not exe:
        pytest.skip("openssl not installed")
    r = subprocess.run([exe, "engine", "gost"], capture_output=True)
    if r.returncode != 0:
        pytest.skip("openssl has no gost engine (Debian: libengine-gost-openssl)")
    return exe


@pytest.mark.parametrize("curve,cipher", [(Curve.GOST3410_256_A, "kuznyechik"),
                                          (Curve.GOST3410_256_B, "magma"),
                                          (Curve.GOST3410_512_A, "magma"),
                                          (Curve.GOST3410_512_C, "kuznyechik")],
                         ids=lambda v: getattr(v, "name", v))
def test_encrypted_keys_and_keg_with_openssl(openssl_gost, tmp_path, curve, cipher):
    def openssl(*args):
        _run(openssl_gost, *args[:1], "-engine", "gost", *args[1:])

    key = PrivateKey.generate(curve)
    d = key.private_bytes_raw()
    # The package encrypts, openssl decrypts.
    (tmp_path / "p.pem").write_bytes(key.private_bytes("PEM", b"pw", cipher=cipher,
                                                       iterations=100))
    openssl("pkey", "-in", tmp_path / "p.pem", "-passin", "pass:pw", "-out", tmp_path / "plain.pem")
    plain = gostx.load_pem_private_key((tmp_path / "plain.pem").read_bytes())
    assert plain.private_bytes_raw() == d
    # openssl encrypts (the same cipher, and GOST 28147-89 CFB), the package decrypts.
    for v2 in (f"{cipher}-ctr-acpkm", "gost89"):
        openssl("pkcs8", "-topk8", "-in", tmp_path / "plain.pem", "-v2", v2, "-v2prf",
                "id-tc26-hmac-gost-3411-2012-512", "-passout", "pass:pw", "-out",
                tmp_path / "o.pem")
        opem = (tmp_path / "o.pem").read_bytes()
        assert gostx.load_pem_private_key(opem, b"pw").private_bytes_raw() == d
        with pytest.raises(gostx.GostxValueError, match="Bad decrypt"):
            gostx.load_pem_private_key(opem, b"wp")
    # KEG: pkeyutl -derive with a 32-byte UKM, the key read from our encrypted file.
    peer = PrivateKey.generate(curve)
    (tmp_path / "peer.pub").write_bytes(peer.public_key().public_bytes())
    h = os.urandom(32)
    openssl("pkeyutl", "-derive", "-inkey", tmp_path / "p.pem", "-passin", "pass:pw", "-peerkey",
            tmp_path / "peer.pub", "-pkeyopt", f"ukmhex:{h.hex()}", "-out", tmp_path / "kek")
    assert (tmp_path / "kek").read_bytes() == key.keg(peer.public_key(), h)
