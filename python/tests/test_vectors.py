"""Every standard vector of tests/vectors that the package's API can express."""
import pytest

import gostx
from conftest import load_vectors

h = bytes.fromhex
CIPHERS = {"kuznyechik": gostx.Kuznyechik, "magma": gostx.Magma}


def _cases(name, pred=lambda c: True):
    return [pytest.param(c, id=c["name"]) for c in load_vectors(name) if pred(c)]


@pytest.mark.parametrize("case", _cases("streebog.json"))
def test_streebog(case):
    hasher = gostx.new(f"streebog{case['hash_bits']}")
    hasher.update(h(case["message_bytes"]))
    assert hasher.hexdigest() == case["digest_bytes"]


def _gost94_cases():
    return [pytest.param(c, id=f"{c['paramset']}-{len(c['message_bytes']) // 2}x{c.get('message_repeat', 1)}")
            for c in load_vectors("gost94.json")]


@pytest.mark.parametrize("case", _gost94_cases())
def test_gost94(case):
    name = "gost94" if case["paramset"] == "id-GostR3411-94-CryptoProParamSet" else "gost94-test"
    msg = h(case["message_bytes"]) * case.get("message_repeat", 1)
    hasher = gostx.new(name)
    hasher.update(msg[:33])
    copy = hasher.copy()
    hasher.update(msg[33:])
    assert hasher.hexdigest() == case["digest_bytes"]
    copy.update(msg[33:])  # the copy goes on independently
    assert copy.digest() == hasher.digest()
    cls = gostx.gost94 if name == "gost94" else gostx.gost94_test
    assert cls(msg).hexdigest() == case["digest_bytes"]
    assert (cls.digest_size, cls.block_size) == (32, 32)


@pytest.mark.parametrize("case", _cases("kuznyechik.json", lambda c: c["kind"] == "encrypt")
                         + _cases("magma.json", lambda c: c["kind"] == "encrypt"))
def test_block_encrypt(case):
    cls = gostx.Kuznyechik if len(case["plaintext"]) == 32 else gostx.Magma
    with cls(h(case["key"])) as k:
        assert k.encrypt_blocks(h(case["plaintext"])).hex() == case["ciphertext"]
        assert k.decrypt_blocks(h(case["ciphertext"])).hex() == case["plaintext"]


@pytest.mark.parametrize("case", _cases("modes-3413.json"))
def test_modes_3413(case):
    k = CIPHERS[case["cipher"]](h(case["key"]))
    p = case.get("params", {})
    s = p.get("s_bits", k.block_size * 8) // 8
    pt = h(case["plaintext"])
    mode = case["mode"]
    if mode == "MAC":
        assert k.omac(pt, s).hex() == case["mac"]
        return
    iv = h(case.get("iv", ""))
    enc = {"ECB": lambda d: k.ecb_encrypt(d), "CTR": lambda d: k.ctr(iv, d, s),
           "OFB": lambda d: k.ofb(iv, d, s), "CBC": lambda d: k.cbc_encrypt(iv, d),
           "CFB": lambda d: k.cfb_encrypt(iv, d, s)}[mode]
    dec = {"ECB": k.ecb_decrypt, "CTR": lambda d: k.ctr(iv, d, s), "OFB": lambda d: k.ofb(iv, d, s),
           "CBC": lambda d: k.cbc_decrypt(iv, d), "CFB": lambda d: k.cfb_decrypt(iv, d, s)}[mode]
    assert enc(pt).hex() == case["ciphertext"]
    assert dec(h(case["ciphertext"])) == pt


@pytest.mark.parametrize("case", _cases("acpkm.json", lambda c: c["kind"] != "acpkm_key_sequence"))
def test_acpkm(case):
    k = CIPHERS[case["cipher"]](h(case["key"]))
    pt = h(case["plaintext"])
    if case["kind"] == "ctr_acpkm":
        ct = k.ctr_acpkm(h(case["iv"]), pt, case["section_size_bits"] // 8)
        assert ct.hex() == case["ciphertext"]
        assert k.ctr_acpkm(h(case["iv"]), pt, case["section_size_bits"] // 8, threads=2) == ct
    else:
        mac = k.omac_acpkm(pt, case["section_size_bits"] // 8,
                           case["master_section_size_bits"] // 8)
        assert mac.hex() == case["mac"]


@pytest.mark.parametrize("case", _cases("mgm.json"))
def test_mgm(case):
    cls = gostx.KuznyechikMGM if case["cipher"] == "kuznyechik" else gostx.MagmaMGM
    aead = cls(h(case["key"]))
    out = aead.encrypt(h(case["nonce"]), h(case["plaintext"]), h(case["associated_data"]))
    assert out.hex() == case["ciphertext"] + case["tag"]
    assert aead.decrypt(h(case["nonce"]), out, h(case["associated_data"])).hex() == case["plaintext"]


@pytest.mark.parametrize("case", _cases("hmac-kdf.json"))
def test_hmac_kdf(case):
    key = h(case["key"])
    if case["kind"] == "hmac":
        size = 32 if case["hash"] == "streebog256" else 64
        assert gostx.hmac_streebog(key, h(case["data"]), size).hex() == case["output"]
        assert gostx.HMAC(key, h(case["data"]), size).hexdigest() == case["output"]
    elif case["kind"] == "kdf_256":
        assert gostx.kdf_256(key, h(case["label"]), h(case["seed"])).hex() == case["output"]
    else:
        out = gostx.kdf_tree(key, h(case["label"]), h(case["seed"]), case["L_bits"] // 8,
                             case["R_bytes"])
        assert out.hex() == case["output"]


@pytest.mark.parametrize("case", _cases("pbkdf2.json", lambda c: c["c"] <= 4096))
def test_pbkdf2(case):
    out = gostx.pbkdf2(h(case["P"]), h(case["S"]), case["c"], case["dkLen"])
    assert out.hex() == case["DK"]


@pytest.mark.parametrize("case", _cases("kexp15.json"))
def test_kexp15(case):
    args = (h(case["key_exp_enc"]), h(case["key_exp_mac"]), h(case["iv"]), case["cipher"])
    wrapped = gostx.kexp15(h(case["key"]), *args)
    assert wrapped.hex() == case["kexp15"]
    assert gostx.kimp15(wrapped, *args) == h(case["key"])
    bad = bytearray(wrapped)
    bad[-1] ^= 1
    with pytest.raises(gostx.InvalidTag):
        gostx.kimp15(bytes(bad), *args)
