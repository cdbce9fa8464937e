"""The package against the gostx command on random inputs: every mode the
CLI's `cipher` subcommand has, both directions."""
import os
import random
import subprocess

import pytest

import gostx


def run_cli(cli, args, data):
    return subprocess.run([cli, *args], input=data, capture_output=True, check=True).stdout


def _case(alg_mode, make, iv_len, data_len, *extra):
    return pytest.param(alg_mode, make, iv_len, data_len, list(extra), id=f"{alg_mode}{extra}")


K, M = gostx.Kuznyechik, gostx.Magma
CASES = [
    _case("kuznyechik-ecb", lambda k, iv: (K(k).ecb_encrypt, K(k).ecb_decrypt), 0, 4096),
    _case("magma-ecb", lambda k, iv: (M(k).ecb_encrypt, M(k).ecb_decrypt), 0, 4096),
    _case("kuznyechik-cbc", lambda k, iv: (lambda d: K(k).cbc_encrypt(iv, d),
                                           lambda d: K(k).cbc_decrypt(iv, d)), 48, 4096),
    _case("magma-cbc", lambda k, iv: (lambda d: M(k).cbc_encrypt(iv, d),
                                      lambda d: M(k).cbc_decrypt(iv, d)), 8, 1000),
    _case("kuznyechik-cfb", lambda k, iv: (lambda d: K(k).cfb_encrypt(iv, d, 5),
                                           lambda d: K(k).cfb_decrypt(iv, d, 5)), 24, 999,
          "--segment", "5"),
    _case("magma-ofb", lambda k, iv: (lambda d: M(k).ofb(iv, d, 3),) * 2, 16, 999,
          "--segment", "3"),
    _case("kuznyechik-ctr", lambda k, iv: (lambda d: K(k).ctr(iv, d),) * 2, 8, 100001),
    _case("magma-ctr", lambda k, iv: (lambda d: M(k).ctr(iv, d, threads=2),) * 2, 4, 300001),
    _case("kuznyechik-ctr-acpkm",
          lambda k, iv: (lambda d: K(k).ctr_acpkm(iv, d, threads=2),) * 2, 8, 200003),
    _case("magma-ctr-acpkm", lambda k, iv: (lambda d: M(k).ctr_acpkm(iv, d),) * 2, 4, 5000),
    _case("kuznyechik-mgm",
          lambda k, iv: (lambda d: gostx.KuznyechikMGM(k).encrypt(iv, d, b"\x01\x02"),
                         lambda d: gostx.KuznyechikMGM(k).decrypt(iv, d, b"\x01\x02")),
          16, 3333, "--aad", "0102"),
    _case("magma-mgm", lambda k, iv: (lambda d: gostx.MagmaMGM(k).encrypt(iv, d, threads=2),
                                      lambda d: gostx.MagmaMGM(k).decrypt(iv, d, threads=2)),
          8, 200000),
    _case("gost89-cnt", lambda k, iv: (lambda d: gostx.Gost89(k).cnt(iv, d),) * 2, 8, 3001),
    _case("gost89-cfb", lambda k, iv: (lambda d: gostx.Gost89(k, "cryptopro-b").cfb_encrypt(iv, d),
                                       lambda d: gostx.Gost89(k, "cryptopro-b").cfb_decrypt(iv, d)),
          8, 3001, "--sbox", "cryptopro-b"),
    _case("gost89-ecb", lambda k, iv: (gostx.Gost89(k).ecb_encrypt, gostx.Gost89(k).ecb_decrypt),
          0, 800),
]


@pytest.mark.parametrize("alg_mode,make,iv_len,data_len,extra", CASES)
def test_cipher_matches_cli(cli, alg_mode, make, iv_len, data_len, extra):
    rnd = random.Random(alg_mode)
    key = rnd.randbytes(32)
    iv = bytearray(rnd.randbytes(iv_len))
    if alg_mode.endswith("mgm"):
        iv[0] &= 0x7F  # MGM nonces have their top bit clear
    iv = bytes(iv)
    data = os.urandom(data_len)
    args = ["cipher", alg_mode, "-k", key.hex(), *extra] + (["--iv", iv.hex()] if iv else [])
    encrypt, decrypt = make(key, iv)
    ct = encrypt(data)
    assert ct == run_cli(cli, args, data)
    assert decrypt(ct) == data
    assert run_cli(cli, [*args, "-d"], ct) == data


def test_xts_matches_cli(cli):
    key, data = os.urandom(64), os.urandom(4096 * 3 + 100)
    x = gostx.KuznyechikXTS(key)
    ct = x.encrypt_sectors(data, 4096, first_sector=7, threads=2)
    args = ["cipher", "kuznyechik-xts", "-k", key.hex(), "--sector", "7", "--sector-size", "4096"]
    assert ct == run_cli(cli, args, data)
    assert x.decrypt_sectors(ct, 4096, first_sector=7) == data
    assert x.encrypt((7).to_bytes(16, "little"), data[:4096]) == ct[:4096]


def test_hash_and_mac_match_cli(cli, tmp_path):
    data = os.urandom(70000)
    f = tmp_path / "data"
    f.write_bytes(data)
    for bits in (256, 512):
        out = subprocess.run([cli, "hash", "-a", f"streebog{bits}", str(f)], capture_output=True,
                             check=True, text=True).stdout
        assert out.split()[0] == gostx.new(f"streebog{bits}", data).hexdigest()
    key = os.urandom(32)
    out = subprocess.run([cli, "mac", "kuznyechik-omac", "-k", key.hex(), "-i", str(f)],
                         capture_output=True, check=True, text=True).stdout
    assert out.split()[0] == gostx.Kuznyechik(key).omac(data).hex()
