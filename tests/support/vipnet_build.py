"""ViPNet CSP file containers built from the public description that
lib/keycont/vipnet.c names (no container ViPNet CSP wrote is public): for
tests/test_keycont_cli.sh and the fuzz_vipnet seeds (tests/fuzz/make_seeds.py).
The primitives come from openssl + gost-engine (ossl=True: md_gost94, the
gost89 cipher under CryptoPro-A, gost-mac), else from the gostx command.
    build(gostx, ossl, d, x, y, L, q, alg, ps, dg, pin, cert, pub, tag) -> bytes"""
import os, subprocess

from der import oid, tlv

Q256B = 0xffffffffffffffffffffffffffffffff6c611070995ad10045841b09b761b893  # 256 paramSetB's
Q512A = int("ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"
            "27e69532f48d89116ff22b8d4e0560609b4b38abfad2b85dcacdb1411f10b275", 16)

def _run(a, data, env=None):
    return subprocess.run(a, input=data, capture_output=True, check=True, env=env).stdout

def _hash(G, ossl, m):
    if ossl:
        return _run(["openssl", "dgst", "-md_gost94", "-binary"], m)
    return bytes.fromhex(_run([G, "hash", "-a", "gost94"], m).split()[0].decode())

def _cfb(G, ossl, k, iv, m):
    if ossl:
        env = dict(os.environ, CRYPT_PARAMS="id-Gost28147-89-CryptoPro-A-ParamSet")
        return _run(["openssl", "enc", "-gost89", "-K", k.hex(), "-iv", iv.hex()], m, env)
    return _run([G, "cipher", "gost89-cfb", "--sbox", "cryptopro-a", "-k", k.hex(), "--iv", iv.hex()], m)

def _imit(G, ossl, k, m):
    if ossl:
        out = _run(["openssl", "dgst", "-mac", "gost-mac", "-macopt", "hexkey:" + k.hex(),
                    "-macopt", "size:4"], m)
        return bytes.fromhex(out.split()[-1].decode())
    return bytes.fromhex(_run([G, "mac", "gost89-imit", "--sbox", "cryptopro-a", "-k", k.hex()],
                              m).decode().strip())

def build(G, ossl, d, x, y, L, q, alg, ps, dg, pin, cert=None, pub=True, tag=b"ITCS"):
    """The file: one entry, key class 1 (d = a * b mod q), [0] cert, [1] (x, y) when pub."""
    ki = tlv(0x30, tlv(2, b"\x01") + tlv(2, b"\x00") +
             tlv(0xa0, tlv(0x30, oid(alg) + tlv(0x30, oid(ps) + oid(dg)))))
    b = int.from_bytes(os.urandom(L), "little") % q or 1
    ab = (d * pow(b, -1, q) % q).to_bytes(L, "little") + b.to_bytes(L, "little")
    h1 = _hash(G, ossl, pin)
    h2 = _hash(G, ossl, pin + h1)
    w = lambda h, i: int.from_bytes(h[i:i + 4], "little")
    K = b"".join(((w(h1, i) - w(h2, i)) % 2**32).to_bytes(4, "little") for i in range(0, 32, 4))
    iv = os.urandom(8)
    cek = _cfb(G, ossl, K, iv, ab)
    block = cek + _imit(G, ossl, K, cek + ki) + iv
    body = tlv(2, b"\x01") + ki + tlv(0x30, tlv(2, b"\x00"))
    if cert:
        body += tlv(0xa0, cert)
    if pub:
        body += tlv(0xa1, tlv(4, x.to_bytes(L, "little") + y.to_bytes(L, "little")))
    entry = tlv(0x30, body)
    entry += len(block).to_bytes(4, "little") + block
    le = lambda v: v.to_bytes(4, "little")
    return tag + le(0x10000) + le(0) + le(len(entry)) + entry
