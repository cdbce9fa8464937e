#!/usr/bin/env python3
"""Writes tests/vectors/tls13-gost.json: the GOST TLS 1.3 key schedule and
TLSTREE computed with an implementation other than gostx's, OpenSSL 3 with
gost-engine (Debian libengine-gost-openssl): every HMAC-Streebog-256 below
is `openssl dgst -engine gost -md_gost12_256 -mac hmac`. The framing around
it (HKDF, HkdfLabel, KDF_256, TLSTREE, the record nonce) is written here from
the RFC text, independently of lib/tls.

Checks before it writes: the HMAC reproduces RFC 7836's KDF_256 example, and
TLSTREE with RFC 9189's CTR_OMAC constants reproduces RFC 9189 Appendix A's
TLSTREE values (so the tree function is pinned to a published known answer;
the MGM suites' constants then only change the masks).

Run: python3 tests/vectors/gen/tls13-gost/gen.py > tests/vectors/tls13-gost.json"""
import json
import subprocess
import sys


def hmac(key, data):
    out = subprocess.run(
        ["openssl", "dgst", "-engine", "gost", "-md_gost12_256", "-mac", "hmac",
         "-macopt", "hexkey:" + key.hex(), "-r"],
        input=data, capture_output=True, check=True).stdout.split()[0]
    return bytes.fromhex(out.decode())


def streebog256(data):
    out = subprocess.run(["openssl", "dgst", "-engine", "gost", "-md_gost12_256", "-r"],
                         input=data, capture_output=True, check=True).stdout.split()[0]
    return bytes.fromhex(out.decode())


def kdf256(key, label, seed):  # RFC 7836 4.5
    return hmac(key, b"\x01" + label + b"\x00" + seed + b"\x01\x00")


def tlstree(root, seq, c):  # RFC 9189 8.1 / RFC 9367 4.1.2
    k1 = kdf256(root, b"level1", (seq & c[0]).to_bytes(8, "big"))
    k2 = kdf256(k1, b"level2", (seq & c[1]).to_bytes(8, "big"))
    return k1, k2, kdf256(k2, b"level3", (seq & c[2]).to_bytes(8, "big"))


def extract(salt, ikm):
    return hmac(salt, ikm)


def expand(prk, info, n):
    out, t, i = b"", b"", 1
    while len(out) < n:
        t = hmac(prk, t + info + bytes([i]))
        out += t
        i += 1
    return out[:n]


def expand_label(secret, label, context, n):
    full = b"tls13 " + label.encode()
    info = n.to_bytes(2, "big") + bytes([len(full)]) + full + bytes([len(context)]) + context
    return expand(secret, info, n)


# RFC 7836 Appendix B: KDF_256 example.
assert kdf256(bytes(range(32)), bytes.fromhex("26bdb878"), bytes.fromhex("af21434145656378")).hex() \
    == "a1aa5f7de402d7b3d323f2991c8d4534013137010a83754fd0af6d7cd4922ed9"

# RFC 9189 Appendix A.1.1 (TLSTREE of the CTR_OMAC suites): root and values as printed there.
RFC9189_ROOT = bytes.fromhex("00112233445566778899aabbcceeff0a112233445566778899aabbcceeff0a00")
MAGMA_CTR_OMAC = (0xFFFFFFC000000000, 0xFFFFFFFFFE000000, 0xFFFFFFFFFFFFF000)
KUZ_CTR_OMAC = (0xFFFFFFFF00000000, 0xFFFFFFFFFFF80000, 0xFFFFFFFFFFFFFFC0)
rfc9189 = [
    ("magma_ctr_omac", MAGMA_CTR_OMAC, 0, "19a76ed30f4d6d1f5b7263ec491ad83817c0b57d8a0356127140fb4f7425494d"),
    ("magma_ctr_omac", MAGMA_CTR_OMAC, 4096, "fb30ee53cfcf89d748fc0c72ef160b8b53cbbbfd031282b026214ab2e07758ff"),
    ("magma_ctr_omac", MAGMA_CTR_OMAC, 33554431, "b85b36dc2282326bc035c572dc93f18d83aa0174f394209a513bb374dc0935ae"),
    ("kuznyechik_ctr_omac", KUZ_CTR_OMAC, 64, "aebe1ef418713bf044b9fcd9e572d437fb38b5d829567a6f7918396d9f4e096b"),
    ("kuznyechik_ctr_omac", KUZ_CTR_OMAC, 524287, "6f18d4003ea2cb30f5fec193a234f07d7c4394987f50758de22b220d8a105106"),
    ("kuznyechik_ctr_omac", KUZ_CTR_OMAC, 524288, "e54b16415b3b663e780b062d24f736c4495463c3a891e1fa46f7ae99fff9f378"),
    ("kuznyechik_ctr_omac", KUZ_CTR_OMAC, 4294967295, "cf600904c71e7b88a49ac8e245774b3dbeedfb81de9a0e2f4e46c35607bc2f04"),
]
tree_cases = []
for name, c, seq, want in rfc9189:
    k1, k2, k3 = tlstree(RFC9189_ROOT, seq, c)
    assert k3.hex() == want, (name, seq, k3.hex())
    tree_cases.append({"suite": name, "origin": "RFC 9189 Appendix A.1.1 (checked here with gost-engine)",
                       "c1": "%016x" % c[0], "c2": "%016x" % c[1], "c3": "%016x" % c[2],
                       "root": RFC9189_ROOT.hex(), "seq": seq,
                       "level1": k1.hex(), "level2": k2.hex(), "key": k3.hex()})

# The RFC 9367 suites: id, IV/tag length n/8, C1..C3 (section 4.1.2), SNMAX
# (section 4.1.3). The constants agree with gost-engine's gost_tls12_additional_tlstree.c
# and GoGOST's gost34112012256/tlstree.go.
SUITES = [
    (0xC103, "KUZNYECHIK_MGM_L", 16, (0xF800000000000000, 0xFFFFFFF000000000, 0xFFFFFFFFFFFFE000), 2**64 - 1),
    (0xC104, "MAGMA_MGM_L", 8, (0xFFE0000000000000, 0xFFFFFFFFC0000000, 0xFFFFFFFFFFFFFF80), 2**64 - 1),
    (0xC105, "KUZNYECHIK_MGM_S", 16, (0xFFFFFFFFE0000000, 0xFFFFFFFFFFFF0000, 0xFFFFFFFFFFFFFFF8), 2**42 - 1),
    (0xC106, "MAGMA_MGM_S", 8, (0xFFFFFFFFFC000000, 0xFFFFFFFFFFFFE000, 0xFFFFFFFFFFFFFFFF), 2**39 - 1),
]


def boundaries(c):
    """Either side of each TLSTREE level's boundary, and the ends."""
    seqs = {0, 1}
    for m in c:
        low = (~m) & 0xFFFFFFFFFFFFFFFF
        seqs |= {low, (low + 1) & 0xFFFFFFFFFFFFFFFF}
    return seqs
root = bytes.fromhex("8a1b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f809")
for sid, name, n, c, snmax in SUITES:
    for seq in sorted(boundaries(c) | {0xFFFFFFFFFFFFFFFF}):
        k1, k2, k3 = tlstree(root, seq, c)
        tree_cases.append({"suite": "0x%04x" % sid, "c1": "%016x" % c[0], "c2": "%016x" % c[1],
                           "c3": "%016x" % c[2], "root": root.hex(), "seq": seq,
                           "level1": k1.hex(), "level2": k2.hex(), "key": k3.hex()})

# The key schedule (RFC 8446 7.1) with a GOST shared secret and transcript hashes
# of stand-in messages (the hashes are inputs here; the handshake computes them).
shared = bytes.fromhex("b1f44c9ba2c1b8c02e5e7a8bfb4cd1e3a9f0c8d7e6b5a4938271605f4e3d2c1b")
h_sh = streebog256(b"ClientHello..ServerHello")
h_sf = streebog256(b"ClientHello..server Finished")
h_cf = streebog256(b"ClientHello..client Finished")
empty = streebog256(b"")
zeros = bytes(32)
early = extract(zeros, zeros)
derived1 = expand_label(early, "derived", empty, 32)
hs = extract(derived1, shared)
derived2 = expand_label(hs, "derived", empty, 32)
master = extract(derived2, zeros)
sched = {"shared_secret": shared.hex(), "hash_server_hello": h_sh.hex(),
         "hash_server_finished": h_sf.hex(), "hash_client_finished": h_cf.hex(),
         "hash_empty": empty.hex(), "early_secret": early.hex(), "derived_early": derived1.hex(),
         "handshake_secret": hs.hex(), "derived_handshake": derived2.hex(),
         "master_secret": master.hex()}
traffic = {
    "c_hs": expand_label(hs, "c hs traffic", h_sh, 32),
    "s_hs": expand_label(hs, "s hs traffic", h_sh, 32),
    "c_ap": expand_label(master, "c ap traffic", h_sf, 32),
    "s_ap": expand_label(master, "s ap traffic", h_sf, 32),
}
for k, v in traffic.items():
    sched[k] = v.hex()
sched["exp_master"] = expand_label(master, "exp master", h_sf, 32).hex()
sched["res_master"] = expand_label(master, "res master", h_cf, 32).hex()
fk = expand_label(traffic["s_hs"], "finished", b"", 32)
sched["s_finished_key"] = fk.hex()
sched["s_verify_data"] = hmac(fk, h_sh).hex()  # over whatever hash: the MAC is what is pinned
sched["c_ap_upd"] = expand_label(traffic["c_ap"], "traffic upd", b"", 32).hex()
keys = []
for sid, name, n, c, snmax in SUITES:
    for k in ("c_hs", "s_ap"):
        key = expand_label(traffic[k], "key", b"", 32)
        iv = expand_label(traffic[k], "iv", b"", n)
        # Records' keys and nonces under this secret (RFC 9367 4.1.1:
        # TLSTREE(write_key, seq); nonce = write_iv XOR STR_n(seq), top bit 0),
        # ascending across every level's boundary up to SNMAX.
        recs = []
        for seq in sorted({s for s in boundaries(c) | {7, 8, 130} if s <= snmax}):
            rk = tlstree(key, seq, c)[2]
            nonce = bytearray(x ^ y for x, y in zip(iv, seq.to_bytes(n, "big")))
            nonce[0] &= 0x7f
            recs.append({"seq": "%016x" % seq if seq >= 2**53 else seq, "record_key": rk.hex(), "nonce": bytes(nonce).hex()})
        keys.append({"suite": "0x%04x" % sid, "secret": k, "write_key": key.hex(),
                     "write_iv": iv.hex(), "records": recs})

json.dump({
    "name": "GOST TLS 1.3 (RFC 8446 + RFC 9367): key schedule, traffic keys, TLSTREE, record keys and nonces",
    "source": "Computed by tests/vectors/gen/tls13-gost/gen.py with OpenSSL 3 + gost-engine's HMAC-Streebog-256 "
              "(an implementation other than gostx's); the framing from RFC 5869, RFC 8446 section 7.1, "
              "RFC 7836 section 4.5 and RFC 9367 sections 4.1-4.1.3: every suite and every TLSTREE boundary, "
              "where RFC 9367 Appendix A (tls13-rfc9367.json) has two suites and sequence numbers to 130. "
              "TLSTREE cases with an 'origin' are RFC 9189 Appendix A.1.1's published values.",
    "convention": "Bytes as on the wire, hex left to right; seq a JSON number (the two 2^64 - 1 cases are written "
                  "as strings: 'ffffffffffffffff'); c1..c3 16 hex digits.",
    "suites": [{"id": "0x%04x" % sid, "name": "TLS_GOSTR341112_256_WITH_" + name, "iv_len": n,
                "c1": "%016x" % c[0], "c2": "%016x" % c[1], "c3": "%016x" % c[2], "snmax": "%016x" % snmax}
               for sid, name, n, c, snmax in SUITES],
    "schedule": sched, "traffic_keys": keys,
    "tlstree": [dict(t, seq=("%016x" % t["seq"]) if t["seq"] >= 2**53 else t["seq"]) for t in tree_cases],
}, sys.stdout, indent=1)
print()
