"""The package against gostcrypto (pure Python, PyPI) on random inputs for
what gostcrypto implements: Streebog, HMAC, PBKDF2, Kuznyechik/Magma ECB, CBC,
CFB, OFB, CTR and MAC. (pygost's PyPI name now holds a placeholder that does
not install, so it cannot be a reference here.)"""
import random

import pytest

import gostx

gostcrypto = pytest.importorskip("gostcrypto")
from gostcrypto import gostcipher, gosthash, gosthmac, gostpbkdf  # noqa: E402

NAMES = {gostx.Kuznyechik: "kuznechik", gostx.Magma: "magma"}


@pytest.mark.parametrize("seed", range(4))
def test_streebog_and_hmac(seed):
    rnd = random.Random(seed)
    data = rnd.randbytes(rnd.randrange(0, 700))
    for bits in (256, 512):
        assert gostx.new(f"streebog{bits}", data).digest() == bytes(
            gosthash.new(f"streebog{bits}", data=data).digest())
        key = rnd.randbytes(32)
        ref = gosthmac.new(f"HMAC_GOSTR3411_2012_{bits}", bytearray(key), data=bytearray(data))
        assert gostx.hmac_streebog(key, data, bits // 8) == bytes(ref.digest())


def test_pbkdf2():
    ref = gostpbkdf.new(bytearray(b"pass"), salt=bytearray(b"saltsalt"), counter=10)
    assert gostx.pbkdf2(b"pass", b"saltsalt", 10, 100) == bytes(ref.derive(100))


@pytest.mark.parametrize("cls", [gostx.Kuznyechik, gostx.Magma])
@pytest.mark.parametrize("mode", ["ecb", "cbc", "cfb", "ofb", "ctr", "mac"])
def test_modes(cls, mode):
    rnd = random.Random(f"{cls.__name__}{mode}")
    key = rnd.randbytes(32)
    k = cls(key)
    n = k.block_size
    data = rnd.randbytes(n * rnd.randrange(1, 40))
    iv = rnd.randbytes(n // 2 if mode == "ctr" else 2 * n)
    kw = {} if mode in ("ecb", "mac") else {"init_vect": bytearray(iv)}
    if mode in ("ecb", "cbc"):
        kw["pad_mode"] = gostcipher.PAD_MODE_1
    ref = gostcipher.new(NAMES[cls], bytearray(key), getattr(gostcipher, f"MODE_{mode.upper()}"),
                         **kw)
    if mode == "mac":
        ref.update(bytearray(data))
        assert k.omac(data) == bytes(ref.digest(n))
        return
    mine = {"ecb": lambda: k.ecb_encrypt(data), "cbc": lambda: k.cbc_encrypt(iv, data),
            "cfb": lambda: k.cfb_encrypt(iv, data), "ofb": lambda: k.ofb(iv, data),
            "ctr": lambda: k.ctr(iv, data)}[mode]()
    assert mine == bytes(ref.encrypt(bytearray(data)))
