#!/usr/bin/env python3
"""Writes the seed corpora tests/fuzz/corpus/<fuzzer>/ (committed; rerun only
to change them). MGM seeds hold genuine ciphertexts made with the gostx
command, so the decrypt harness starts from an accepting input.
usage: tests/fuzz/make_seeds.py PATH/TO/gostx
       tests/fuzz/make_seeds.py --only fuzz_esp_open fuzz_ike_payloads fuzz_ike_engine fuzz_tls_record fuzz_tls12_record
         fuzz_tls_handshake fuzz_tunnel_gso fuzz_x509 fuzz_cms fuzz_cms_cli fuzz_p11_object fuzz_keycont
         (those that need no gostx; fuzz_x509 and fuzz_cms need openssl with gost-engine)
       tests/fuzz/make_seeds.py PATH/TO/gostx --only fuzz_pkcs12 fuzz_cms fuzz_vipnet
         (fuzz_cms: the EnvelopedData shapes only gostx writes, beside the ones above;
         fuzz_vipnet: containers built with gostx's primitives)"""
import os, subprocess, sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "support"))
from der import header  # noqa: E402  (the DER header reader the test scripts share)
gostx = sys.argv[1]
KEY = bytes.fromhex("8899aabbccddeeff0011223344556677fedcba98765432100123456789abcdef")

def put(name, idx, data):
    d = os.path.join(here, "corpus", name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "seed-%02d" % idx), "wb") as f:
        f.write(data)

def pattern(n, s=1):
    return bytes((s * 37 + i * 11) & 0xff for i in range(n))

# fuzz_esp_open: flags, the window's starting top (8), then records: kind,
# length (2), bytes. Kind 1 (+ next header << 1): sequence number (8),
# mutation count, mutations (position 2, value 1), payload; the harness
# seals these with its SA, so every seed below starts from genuine packets.
def esp_rec(kind, data):
    return bytes([kind]) + len(data).to_bytes(2, "big") + data

def esp_sealed(seq, payload, nh=4, muts=()):
    m = b"".join(pos.to_bytes(2, "big") + bytes([v]) for pos, v in muts)
    return esp_rec(1 | nh << 1, seq.to_bytes(8, "big") + bytes([len(muts)]) + m + payload)

def esp_seeds():
    seeds = []
    for flags in (0, 1, 2, 3):  # Kuznyechik / Magma, with and without a key cache
        seeds.append(bytes([flags]) + (0).to_bytes(8, "big") +
                     esp_sealed(1, pattern(20)) + esp_sealed(2, pattern(100, 2), 41) +
                     esp_sealed(1, pattern(20)))  # the third: a replay of the first
    # Across a message key (2^24) and a 2^32 span, out of order, one flipped
    # byte, one cut short, one lengthened, a dummy (next header 59).
    seeds.append(bytes([0]) + ((1 << 24) - 3).to_bytes(8, "big") +
                 esp_sealed((1 << 24) - 1, pattern(64)) + esp_sealed(1 << 24, pattern(1400, 3)) +
                 esp_sealed((1 << 24) - 2, pattern(5)) + esp_sealed((1 << 24) + 1, pattern(9), 4, [(20, 1)]))
    seeds.append(bytes([1]) + ((1 << 32) - 10).to_bytes(8, "big") +
                 esp_sealed((1 << 32) + 2, pattern(33)) + esp_sealed((1 << 32) - 5, pattern(1, 4), 59) +
                 esp_sealed((1 << 32) + 3, pattern(30), 4, [(0xffff, 0)]) +
                 esp_sealed((1 << 32) + 4, pattern(30), 4, [(0xfffe, 7)]))
    # Left of the window; and raw records (kind 0): short, unknown SPI, junk.
    seeds.append(bytes([0]) + (5000).to_bytes(8, "big") + esp_sealed(100, pattern(40)) +
                 esp_rec(0, b"") + esp_rec(0, bytes.fromhex("12345678") + pattern(40)) +
                 esp_rec(0, bytes.fromhex("00000001") + pattern(60)))
    # The packet vector of tests/vectors/esp9227.json (the harness's SA is
    # its SA): ESN off (flags bit 2), raw, then again (a replay).
    vec = bytes.fromhex("5146536b" "00000001" "0000000000000000"
                        "189d1288b718f9eabe554b239bee6596c6d4eafd316496ef901cac316005aa07"
                        "6297b224bf6d2be35fd6f67e7b9deb3185ffe9179ca9bf0bdbafc23eae4da56f"
                        "50b070a15a2bd9738689f8ed")
    seeds.append(bytes([4]) + (0).to_bytes(8, "big") + esp_rec(0, vec) + esp_rec(0, vec) +
                 esp_sealed(2, pattern(60, 5)))
    for i, s in enumerate(seeds):
        put("fuzz_esp_open", i, s)

# fuzz_tls_record: suite (0xC103 + byte 0), the first sequence number (8),
# then records: kind, length (2), bytes. Kind 1: type, padding, mutation
# count, mutations (position 2, value 1), content, sealed by the harness.
def tls_seeds():
    def sealed(typ, pad, content, muts=()):
        m = b"".join(pos.to_bytes(2, "big") + bytes([v]) for pos, v in muts)
        return esp_rec(1, bytes([typ, pad, len(muts)]) + m + content)
    seeds = []
    for suite in range(4):  # each suite: a run of records, a flipped one, a cut one
        seeds.append(bytes([suite]) + (0).to_bytes(8, "big") + sealed(0x17, 0, pattern(20)) +
                     sealed(0x16, 7, pattern(100, 2)) + sealed(0x15, 0, pattern(2, 3), [(6, 1)]) +
                     sealed(0x17, 3, pattern(30), [(0xffff, 0)]) + sealed(0x17, 0, b"", []))
    # TLSTREE boundaries and SNMAX: KUZNYECHIK_MGM_S at 2^42 - 2, MAGMA_MGM_S
    # at 8190, MAGMA_MGM_L at 126.
    seeds.append(bytes([2]) + ((1 << 42) - 2).to_bytes(8, "big") + sealed(0x17, 0, pattern(9)) +
                 sealed(0x17, 1, pattern(9)) + sealed(0x17, 2, pattern(9)))
    seeds.append(bytes([3]) + (8190).to_bytes(8, "big") + sealed(0x17, 0, pattern(40)) * 4)
    seeds.append(bytes([1]) + (126).to_bytes(8, "big") + sealed(0x17, 0, pattern(40)) * 4)
    # Raw records: RFC 9367 A.1's first (KUZNYECHIK_MGM_S, sequence number 0,
    # the harness's secret is that example's SHTS), then it again (a replay),
    # a short header, and an oversized length.
    a1 = bytes.fromhex("1703030017940e5d2c753ae5febd20012cc9e3eb24a379841e02abbe")
    seeds.append(bytes([2]) + (0).to_bytes(8, "big") + esp_rec(0, a1) + esp_rec(0, a1) +
                 esp_rec(0, b"\x17\x03") + esp_rec(0, bytes.fromhex("1703034112") + pattern(40)))
    for i, s in enumerate(seeds):
        put("fuzz_tls_record", i, s)

# fuzz_tls12_record: suite (byte 0: 0xC100 + n, 3 the key transport readers),
# the first sequence number (8), then records: kind, length (2), bytes. Kind
# 1: type, mutation count, mutations (position 2, value 1), content, sealed
# by the harness.
def tls12_seeds():
    def sealed(typ, content, muts=()):
        m = b"".join(pos.to_bytes(2, "big") + bytes([v]) for pos, v in muts)
        return esp_rec(1, bytes([typ, len(muts)]) + m + content)
    seeds = []
    for suite in range(3):  # a run of records across ACPKM sections, a flipped one, a cut one
        seeds.append(bytes([suite]) + (0).to_bytes(8, "big") + sealed(0x17, pattern(20)) +
                     sealed(0x16, pattern(1100, 2)) + sealed(0x15, pattern(2, 3), [(6, 1)]) +
                     sealed(0x17, pattern(30), [(0xffff, 0)]) + sealed(0x17, b"") +
                     sealed(0x17, pattern(9)))
    # TLSTREE's C3 boundaries and MAGMA's SNMAX (2^32 - 1).
    seeds.append(bytes([0]) + (62).to_bytes(8, "big") + sealed(0x17, pattern(9)) * 3)
    seeds.append(bytes([1]) + ((1 << 32) - 2).to_bytes(8, "big") + sealed(0x17, pattern(9)) * 3)
    # Raw records: RFC 9189 A.1.2.1's first (MAGMA_CTR_OMAC, seqnum 0) and
    # A.2.1's (CNT_IMIT), each twice (a replay), a short header, an oversized length.
    a12 = bytes.fromhex("170303000f9b420da86faf367f051443ce9c1072")
    a21 = bytes.fromhex("170303000b8671cdbf3c1aae0f624b04")
    for suite, r in ((1, a12), (2, a21)):
        seeds.append(bytes([suite]) + (0).to_bytes(8, "big") + esp_rec(0, r) + esp_rec(0, r) +
                     esp_rec(0, b"\x17\x03") + esp_rec(0, bytes.fromhex("1703034112") + pattern(40)))
    # The key transport bodies of RFC 9189 A.1.3.1 and A.2.2's ClientKeyExchange.
    gkt = bytes.fromhex(
        "3081920428d7f0f0422367867b25fa4233a954f58bde92e9c9bbfb8816c99f15e6398722a0b2b7bfe8493e9a5c"
        "3066301f06082a85030701010101301306072a85030202230106082a8503070101020203430004409307e098c1"
        "7188f1f1477fefb87faef1bbcd95673b1b8f9703a262d2636df3a887f8141feac25a17ccb5960461ed16b0f8b1"
        "be93594395a10e6485446b5dca34")
    blob = bytes.fromhex(
        "3081f23081ef30280420d622d167a5642e29525a295cb9f28f96f28b0efaa7d3a2bee149b01178c2dfd50404"
        "4c933657a081c206092a8503070102050101a081aa302106082a85030701010102301506092a850307010201"
        "020106082a8503070101020303818400048180fb4bf8ab9f71a7a662570c77c33961dd60fc3c159501b5d223"
        "b3b3a1b315a849dc7081a0ad59e5e5824822f6e86bef2afe5bd97f2d3be493e437c7bc81b39c4bd0fb94012e"
        "af7a0d64c422f7f5682dcf72683da527548aeb2a5df67349d0dd426cabc51300dabf6120d2eb850d7db7770a"
        "96e4841cb5fceea546c89283f2ce950408fbf39d10e800af70")
    seeds.append(bytes([3]) + gkt)
    seeds.append(bytes([7]) + blob)
    for i, s in enumerate(seeds):
        put("fuzz_tls12_record", i, s)

# fuzz_tunnel_gso: the MTU byte (68 + 16 * it), a virtio header (flags,
# gso_type, then hdr_len, gso_size, csum_start, csum_offset in the host's
# order: little-endian here), a packet: TCP and UDP super-packets over IPv4
# and IPv6 (one with a destination options header), each with a shorter
# last segment, a checksum-partial datagram and a plain packet. Their
# checksums need not be right: the tunnel computes them. Each within
# check_fuzz.sh's -max_len (4096).
def tunnel_gso_seeds():
    import struct
    def vnet(flags, typ, hdr, gso, cs, co):
        return bytes([flags, typ]) + struct.pack("<HHHH", hdr, gso, cs, co)
    def ip(v6, proto, l4, ext=b""):
        if v6:
            nh = proto if not ext else 60
            e = bytes([proto]) + ext[1:] if ext else b""
            return (bytes([0x60, 0, 0, 0]) + struct.pack("!H", len(e) + len(l4)) + bytes([nh, 64]) +
                    bytes((0xfd + i * 7) & 0xff for i in range(32)) + e + l4)
        return (bytes([0x45, 0]) + struct.pack("!H", 20 + len(l4)) + bytes([0, 1, 0x40, 0, 64, proto, 0, 0]) +
                bytes([10, 232, 0, 1, 10, 232, 0, 2]) + l4)
    def tcp(payload, flags=0x18):
        return struct.pack("!HHIIBBHHH", 50001, 5001, 1000, 77, 0x50, flags, 500, 0, 0) + payload
    def udp(payload):
        return struct.pack("!HHHH", 50001, 5002, 8 + len(payload), 0) + payload
    dst = bytes([0, 0, 1, 4, 0, 0, 0, 0])
    seeds = [
        bytes([70]) + vnet(1, 1, 40, 1000, 20, 16) + ip(0, 6, tcp(pattern(3123))),
        bytes([70]) + vnet(1, 4, 60, 1000, 40, 16) + ip(1, 6, tcp(pattern(2500, 2))),
        bytes([70]) + vnet(1, 4, 68, 1000, 48, 16) + ip(1, 6, tcp(pattern(2001, 3)), dst),
        bytes([70]) + vnet(1, 5, 28, 1000, 20, 6) + ip(0, 17, udp(pattern(3123, 4))),
        bytes([70]) + vnet(1, 5, 48, 1000, 40, 6) + ip(1, 17, udp(pattern(3017, 5))),
        bytes([70]) + vnet(1, 0, 0, 0, 20, 6) + ip(0, 17, udp(pattern(99, 6))),
        bytes([70]) + vnet(0, 0, 0, 0, 0, 0) + ip(0, 6, tcp(pattern(500, 7), 0x10)),
    ]
    for i, s in enumerate(seeds):
        put("fuzz_tunnel_gso", i, s)

# fuzz_tls_handshake: mode and choices (3 bytes), then operations of 5 bytes
# (message index, kind, position (2), value) on one side's messages, or
# (mode bit 0) the raw stream a fresh server or client reads.
def tls_handshake_seeds():
    seeds = []
    for suite in range(4):
        for side in range(2):
            for auth in range(2):
                seeds.append(bytes([side << 1 | auth << 2 | suite << 3, suite * 2 + side, suite + auth]))
    op = lambda idx, kind, pos, val: bytes([idx, kind]) + pos.to_bytes(2, "big") + bytes([val])
    seeds.append(bytes([0, 0, 0]) + op(0, 0, 40, 1))           # ServerHello's random
    seeds.append(bytes([0, 4, 4]) + op(1, 0, 9, 0x40))          # EncryptedExtensions
    seeds.append(bytes([4, 1, 1]) + op(2, 2, 7, 0))             # CertificateRequest
    seeds.append(bytes([0, 6, 6]) + op(3, 1, 30, 0))            # CertificateVerify cut
    seeds.append(bytes([2, 0, 0]) + op(0, 3, 43, 8) + bytes(8))  # ClientHello's extensions
    seeds.append(bytes([2, 3, 2]) + op(0, 0, 60, 0x22))         # the client's key share
    # Raw: RFC 9367 A.1's ClientHello record to a server, a short ServerHello to a client.
    import json
    vec = json.load(open(os.path.join(here, "..", "vectors", "tls13-rfc9367.json")))
    ch = bytes.fromhex(vec["examples"][0]["messages"][1]["hex"])
    seeds.append(bytes([1, 0, 0]) + ch)
    seeds.append(bytes([3, 0, 0]) + bytes.fromhex("1603030006020000020303"))
    # Mode bit 5, an external PSK: each suite, each side's messages
    # changed; a ClientHello byte changed; raw, A.2's second
    # ClientHello (identity "ePSK": not the server's).
    for suite in range(4):
        for side in range(2):
            seeds.append(bytes([32 | side << 1 | suite << 3, suite * 2 + side, suite]))
    seeds.append(bytes([34, 1, 0]) + op(0, 0, 0xFFFF, 1))
    seeds.append(bytes([33, 0, 0]) + bytes.fromhex(vec["examples"][1]["messages"][5]["hex"]))
    # Mode bit 6, TLS 1.2: each suite, each side's messages changed, with
    # and without client certificates; the ClientKeyExchange (the client's
    # message 1, or 2 with a certificate) and the server's Certificate
    # changed; raw, RFC 9189 A.1.3.1's ClientHello to a server.
    for suite in range(3):
        for side in range(2):
            for auth in range(2):
                seeds.append(bytes([64 | side << 1 | auth << 2 | suite << 3, 0, suite + auth]))
    seeds.append(bytes([66, 0, 0]) + op(1, 0, 60, 0x04))
    seeds.append(bytes([70 | 16, 0, 4]) + op(2, 1, 40, 0))
    seeds.append(bytes([64, 0, 0]) + op(1, 0, 9, 0x80))
    seeds.append(bytes([65, 0, 0]) + bytes.fromhex(
        "16030300440100004003039 33EA21EC3802A561550EC78D6ED51AC2439D7E749C31BC3A3456165889684CA"
        "000004C100C10101000013000D0006000408400841FF0100010000170000".replace(" ", "")))
    # Mode bit 7, resumption (a first handshake, then one offering its
    # ticket): each suite, each side's messages changed; client
    # certificates on both handshakes with the second server requiring
    # them (resumed), required by the second server alone (a full
    # handshake), an external PSK on the server beside the ticket. The
    # client's ClientHello (353 bytes with group 0) changed in its binder's
    # last byte (decrypt_error) and in its ticket (a full handshake); the
    # resumed server's messages (ServerHello, EncryptedExtensions,
    # Finished, then 2 NewSessionTickets): a ServerHello byte, the first
    # ticket's lifetime over 7 days, the second cut short, a ticket byte.
    for suite in range(4):
        for side in range(2):
            seeds.append(bytes([128 | side << 1 | suite << 3, suite * 2 + side, suite]))
    seeds.append(bytes([128 | 64 | 4, 1, 2]))
    seeds.append(bytes([128 | 64, 0, 0]))
    seeds.append(bytes([128 | 32 | 2, 0, 0]))
    seeds.append(bytes([130, 0, 0]) + op(0, 0, 352, 1))
    seeds.append(bytes([130, 0, 0]) + op(0, 0, 260, 1))
    seeds.append(bytes([128, 0, 0]) + op(0, 0, 100, 4))
    seeds.append(bytes([128, 0, 0]) + op(3, 0, 4, 0xff) + op(4, 1, 10, 0))
    seeds.append(bytes([128, 0, 0]) + op(3, 0, 40, 1))
    # Raw with bit 7, session bytes (gostx_tls_set_session's format, at
    # the harness's clock, for its server name): a genuine session (the
    # resumption mode's first handshake exported it: its ticket opens under
    # the harness's ticket key, so it resumes), it with a PSK byte changed
    # (the binder does not verify); made-up tickets: of the right size, of
    # the largest (1024 bytes), of 1 byte; another server name, past its
    # lifetime, received in the future (not offered); lifetime 0 and a bad
    # magic (refused).
    genuine = bytes.fromhex(
        "47585331c10300001c20cdb3e637000001ba60d3380078f5c3dad60153a39e55436480ea7d87e2312d3c41"
        "12eaf0d0c300f63b8c82e509612e6578616d706c65005e5d188468ad8c589285800cd821f541530aa52a1b"
        "588013bd1d501931e9c5594c8b8f0889cc5b0b9b3d1de7b785f09b9f8422834e916388053f6b4bff92e2b9"
        "d894d62378b85817ad47557eb6b13cc9c9a7d1f2e2ca194c6f081d1be57290")
    now_ms = 1900000000 * 1000
    def session(ticket, suite=0xC103, life=7200, ms=now_ms, name=b"a.example", magic=b"GXS1"):
        return (magic + suite.to_bytes(2, "big") + life.to_bytes(4, "big") + pattern(4, 9) +
                ms.to_bytes(8, "big") + pattern(32, 5) + bytes([len(name)]) + name +
                len(ticket).to_bytes(2, "big") + ticket)
    t94 = bytes(b & 0x7f for b in pattern(94, 6))
    for body in (genuine, genuine[:30] + bytes([genuine[30] ^ 1]) + genuine[31:],
                 session(t94), session(t94, 0xC106), session(pattern(1024, 7)),
                 session(b"\x01"), session(t94, name=b"b.example"),
                 session(t94, ms=now_ms - 7200 * 1000 - 1), session(t94, ms=now_ms + 1),
                 session(t94, life=0), session(t94, magic=b"GXS2")):
        seeds.append(bytes([129, 0, 0]) + body)
    for i, s in enumerate(seeds):
        put("fuzz_tls_handshake", i, s)

# fuzz_x509: flags (bit 0 PEM; bits 1-2 purpose), name length, name, then
# gost_pki.sh's certificates: DER one after another (leaf, issuers, the
# anchor last), or the PEM files as they are.
def x509_seeds():
    import tempfile
    with tempfile.TemporaryDirectory() as t:
        subprocess.run(["bash", os.path.join(here, "..", "support", "gost_pki.sh"), t, "--paths"], check=True)
        def der(name):
            return subprocess.run(["openssl", "x509", "-in", os.path.join(t, name), "-outform", "DER"],
                                  check=True, capture_output=True).stdout
        def pem(name):
            with open(os.path.join(t, name), "rb") as f:
                return f.read()
        seeds = [
            (2, b"localhost", der("leaf-256A.pem") + der("int.pem") + der("ca.pem")),
            (4, b"127.0.0.1", der("leaf-512C.pem") + der("int.pem") + der("ca.pem")),
            (2, b"a.wild.test", der("leaf-wild.pem") + der("int.pem") + der("ca.pem")),
            (2, b"::1", der("leaf-wild.pem") + der("int.pem") + der("ca.pem")),
            (0, b"localhost", der("old-leaf.pem") + der("old-ca.pem")),
            (2, b"", der("bad-pathlen.pem") + der("int2.pem") + der("int.pem") + der("ca.pem")),
            (2, b"localhost", der("bad-critical.pem") + der("int.pem") + der("ca.pem")),
            (0, b"", der("bad-notyet.pem") + der("int.pem") + der("ca.pem")),
            (3, b"localhost", pem("chain-256B.pem") + pem("ca.pem")),
            (1, b"", pem("chain-old.pem")),
            # RFC 5280 path processing: name constraints, policies, names
            (0, b"", der("nc-dns.pem") + der("nc-int.pem") + der("ca.pem")),
            (0, b"", der("nc-ok.pem") + der("nc-int-crit.pem") + der("ca.pem")),
            (0, b"", der("nc-dir-si-ok.pem") + der("nc-dir-si.pem") + der("nc-dir-int.pem") + der("ca.pem")),
            (0, b"", der("nc-dir-prep.pem") + der("nc-dir-int.pem") + der("ca.pem")),
            (0, b"", der("nc-subjemail.pem") + der("nc-int.pem") + der("ca.pem")),
            (0, b"", der("pol-map-ok.pem") + der("pol-map-int.pem") + der("ca.pem")),
            (0, b"", der("pol-mapinh.pem") + der("pol-map2-int.pem") + der("pol-mapinh-int.pem") + der("ca.pem")),
            (0, b"", der("pol-inh-ok.pem") + der("pol-inh-int.pem") + der("ca.pem")),
            (0, b"", der("roll-leaf.pem") + der("roll-int2.pem") + der("roll-int.pem") + der("ca.pem")),
            (0, b"", der("enc-leaf.pem") + der("enc-ca-p.pem") + der("ca.pem")),
        ]
    for i, (flags, name, body) in enumerate(seeds):
        put("fuzz_x509", i, bytes([flags, len(name)]) + name + body)

# fuzz_ike_payloads: byte 0 = 0 and a whole message (every message RFC 9385
# Appendix A prints, from tests/vectors/ike9385.json; A.1.1's IKE_AUTH request
# opens under the harness's SK_ei), or byte 0 = 1, the first payload's type
# and the inside of an Encrypted payload (every printed plaintext, less its
# Pad Length); or byte 0 = 2 and A.2.1's fragment messages, each after its
# 2-octet length (the initiator's rejoin under the harness's SK_ei).
def ike_seeds():
    import json
    v = json.load(open(os.path.join(here, "..", "vectors", "ike9385.json")))
    i = 0
    for sc in v["scenarios"]:
        for sub in sc["subscenarios"]:
            steps = sub["steps"]
            for n, st in enumerate(steps):
                data = bytes.fromhex("".join(d["hex"] for d in st["dumps"]))
                if st["what"].startswith("Sends message") and "4500" in " ".join(st["text"]):
                    data = data[4:]  # the non-ESP marker
                if st["what"].startswith("Sends message"):
                    put("fuzz_ike_payloads", i, b"\0" + data)
                    i += 1
                if st["what"].startswith("Sends message fragment (1)"):
                    # byte 0 = 2: the fragments that follow, each after its
                    # length, in the order 3, 1, 4, 2, 1 (a retransmission)
                    fr = []
                    for s in steps[n:n + 4]:
                        f = bytes.fromhex("".join(d["hex"] for d in s["dumps"]))
                        fr.append(f[4:] if "4500" in " ".join(s["text"]) else f)
                    body = b"".join(len(fr[k]).to_bytes(2, "big") + fr[k] for k in (2, 0, 3, 1, 0))
                    put("fuzz_ike_payloads", i, b"\2" + body)
                    i += 1
                if st["what"].startswith("Composes plaintext") and "fragment" not in st["what"]:
                    msg = next(s for s in steps[n:] if s["what"].startswith("Sends message"))
                    first = bytes.fromhex(msg["dumps"][0]["hex"])
                    first = first[4:] if "4500" in " ".join(msg["text"]) else first
                    put("fuzz_ike_payloads", i, bytes([1, first[28]]) + data[:-1])
                    i += 1

# fuzz_ike_engine: from RFC 9385 Appendix A (tests/vectors/ike9385.json):
# byte 0 = 0 and an initiator's IKE_SA_INIT requests, each after its 2-octet
# length (A.1.1's; A.2.1's 512-bit one and its retry); byte 0 = 1, the
# first payload's type and A.1.1's IKE_AUTH request inside (less its Pad
# Length); byte 0 = 2 and a responder's IKE_SA_INIT answers (A.1.1's
# response, A.2.1's INVALID_KE_PAYLOAD); byte 0 = 3 (19: each fragment
# twice), a fragment size / 8, the fragment to start from, then as byte 0 =
# 1: A.1.1's inside cut into fragments (80 and 128 octets, from 1 and 3);
# byte 0 = 4, the selector, the first payload's type and an inside after
# IKE_AUTH: A.1.3's Child SA rekey
# request and answer (the answer to a PFS rekey out), A.2.3's request, A.1.2's
# IKE SA rekey request and answer, A.1.4's Delete, an empty INFORMATIONAL.
def ike_engine_seeds():
    import json
    v = json.load(open(os.path.join(here, "..", "vectors", "ike9385.json")))
    subs = {sub["id"]: sub["steps"] for sc in v["scenarios"] for sub in sc["subscenarios"]}
    def msg(sub, n):
        st = subs[sub][n - 1]
        assert st["what"].startswith("Sends message"), (sub, n, st["what"])
        return bytes.fromhex("".join(d["hex"] for d in st["dumps"]))
    def dgrams(*ms):
        return b"".join(len(m).to_bytes(2, "big") + m for m in ms)
    a11 = subs["A.1.1"]
    n_plain = next(n for n, st in enumerate(a11) if st["what"].startswith("Composes plaintext"))
    plain = bytes.fromhex("".join(d["hex"] for d in a11[n_plain]["dumps"]))
    first = msg("A.1.1", 37)[28]
    seeds = [b"\0" + dgrams(msg("A.1.1", 6)), b"\0" + dgrams(msg("A.2.1", 6), msg("A.2.1", 14)),
             bytes([1, first]) + plain[:-1],
             b"\2" + dgrams(msg("A.1.1", 13)), b"\2" + dgrams(msg("A.2.1", 9)),
             bytes([3, 10, 0, first]) + plain[:-1], bytes([19, 16, 2, first]) + plain[:-1]]
    def inside(sub, n_plain, n_msg):
        st = subs[sub][n_plain - 1]
        assert st["what"].startswith("Composes plaintext"), (sub, n_plain, st["what"])
        m = msg(sub, n_msg)
        m = m[4:] if m[:4] == b"\0\0\0\0" else m  # the non-ESP marker on 4500
        return bytes([m[28]]) + bytes.fromhex("".join(d["hex"] for d in st["dumps"]))[:-1]
    # selector: bit 0 to the initiator, bit 1 CREATE_CHILD_SA, bits 2-3 what
    # is out first (1 Child SA rekey, 2 IKE SA rekey, 3 DPD), bit 4 PFS, bit 5 an answer
    seeds += [b"\4\2" + inside("A.1.3", 11, 15), b"\4" + bytes([1 | 2 | 4 | 16 | 32]) + inside("A.1.3", 37, 41),
              b"\4\2" + inside("A.2.3", 9, 13), b"\4\2" + inside("A.1.2", 9, 13),
              b"\4" + bytes([1 | 2 | 8 | 32]) + inside("A.1.2", 35, 39), b"\4\0" + inside("A.1.4", 5, 9),
              b"\4\1\0", b"\4" + bytes([12 | 32]) + b"\0"]
    for i, data in enumerate(seeds):
        put("fuzz_ike_engine", i, data)

# fuzz_cms: flags (bit 0 PEM, bit 1 the content detached, bits 2-3 the
# type: SignedData, EnvelopedData, EncryptedData, DigestedData), then a
# SignedData: openssl cms -engine gost's over gost_pki.sh's PKI (detached,
# -cades with a chain, -keyid with two signers attached, -noattr), and
# R 1323565.1.025-2019's two examples (tests/vectors/tc26_cms) as PEM;
# then its EnvelopedData (KTRI 256, 512; KARI), EncryptedData and DigestedData
# examples as PEM; then GOST 28147-89 EnvelopedData (RFC 4490 KTRI): TK26's
# two examples (PEM) and openssl cms -gost89's to leaf-256A and leaf-512A
# (DER; the harness's keys' curves, so its VKO and unwrap run). Bit 4
# streams (gostx_cms_decrypt_stream; bits 5-7 the read size): the examples
# again, and openssl cms -stream's BER EnvelopedData and EncryptedData
# (under the harness's key, so the whole content path runs; openssl writes
# no MAC attribute in an EncryptedData) and SignedData (-sign -nodetach).
CMS_SEEDS = 28  # cms_seeds' count; cms_gostx_seeds' numbers follow


def cms_seeds():
    import tempfile
    with tempfile.TemporaryDirectory() as t:
        subprocess.run(["bash", os.path.join(here, "..", "support", "gost_pki.sh"), t], check=True)
        with open(os.path.join(t, "doc"), "wb") as f:
            f.write(pattern(300))
        env = dict(os.environ, OPENSSL_CONF="/dev/null")
        def osign(*args):
            out = os.path.join(t, "out")
            subprocess.run(["openssl", "cms", "-engine", "gost", "-sign", "-binary", "-in",
                            os.path.join(t, "doc"), "-outform", "DER", "-out", out] +
                           [a if a.startswith("-") else os.path.join(t, a) for a in args],
                           check=True, capture_output=True, env=env)
            with open(out, "rb") as f:
                return f.read()
        def oenc89(leaf):
            out = os.path.join(t, "out")
            subprocess.run(["openssl", "cms", "-engine", "gost", "-encrypt", "-binary", "-gost89",
                            "-in", os.path.join(t, "doc"), "-outform", "DER", "-out", out,
                            os.path.join(t, leaf)], check=True, capture_output=True, env=env)
            with open(out, "rb") as f:
                return f.read()
        def tc26(name):
            with open(os.path.join(here, "..", "vectors", "tc26_cms", name), "rb") as f:
                return f.read()
        seeds = [
            (2, osign("-signer", "leaf-256A.pem", "-inkey", "leaf-256A.key")),
            (2, osign("-cades", "-signer", "leaf-512A.pem", "-inkey", "leaf-512A.key",
                      "-certfile", "int.pem")),
            (0, osign("-nodetach", "-keyid", "-signer", "leaf-256B.pem", "-inkey", "leaf-256B.key",
                      "-signer", "leaf-512C.pem", "-inkey", "leaf-512C.key")),
            (2, osign("-noattr", "-signer", "leaf-256D.pem", "-inkey", "leaf-256D.key")),
            (1, tc26("signed_a111.pem")),
            (1, tc26("signed_a121.pem")),
            (1 | 1 << 2, tc26("encrypted_keytrans_a231.pem")),
            (1 | 1 << 2, tc26("encrypted_keytrans_a241.pem")),
            (1 | 1 << 2, tc26("encrypted_keyagree_a211.pem")),
            (1 | 1 << 2, tc26("encrypted_keyagree_a221.pem")),
            (1 | 2 << 2, tc26("encrypted_magma_a411.pem")),
            (1 | 2 << 2, tc26("encrypted_kuznyechik_a421.pem")),
            (1 | 3 << 2, tc26("hashed_a311.pem")),
            (1 | 3 << 2, tc26("hashed_a321.pem")),
            (1 | 1 << 2, tc26("tk26cms_ktri256_gost89.pem")),
            (1 | 1 << 2, tc26("tk26cms_ktri512_gost89.pem")),
            (1 << 2, oenc89("leaf-256A.pem")),
            (1 << 2, oenc89("leaf-512A.pem")),
            (1 | 1 << 2 | 1 << 4, tc26("tk26cms_ktri256_gost89.pem")),
            (1 << 2 | 1 << 4 | 1 << 5, oenc89("leaf-256A.pem")),
            (1 | 1 << 2 | 1 << 4, tc26("encrypted_keytrans_a231.pem")),
            (1 | 1 << 2 | 1 << 4 | 3 << 5, tc26("encrypted_keyagree_a211.pem")),
            (1 | 2 << 2 | 1 << 4 | 1 << 5, tc26("encrypted_kuznyechik_a421.pem")),
        ]
        def ostream(*args):
            out = os.path.join(t, "out")
            subprocess.run(["openssl", "cms", "-engine", "gost", "-stream", "-binary", "-in",
                            os.path.join(t, "doc"), "-outform", "DER", "-out", out] + list(args),
                           check=True, capture_output=True, env=env)
            with open(out, "rb") as f:
                return f.read()
        key = "010203" + "00" * 29  # fuzz_cms's EncryptedData key
        seeds += [
            (1 << 2 | 1 << 4 | 2 << 5, ostream("-encrypt", "-kuznyechik-ctr-acpkm-omac",
                                                os.path.join(t, "leaf-256A.pem"))),
            (2 << 2 | 1 << 4, ostream("-EncryptedData_encrypt", "-kuznyechik-ctr-acpkm",
                                       "-secretkey", key)),
            (2 << 2 | 1 << 4 | 4 << 5, ostream("-EncryptedData_encrypt", "-magma-ctr-acpkm",
                                                "-secretkey", key)),
            (1 << 4 | 3 << 5, ostream("-sign", "-nodetach", "-signer", os.path.join(t, "leaf-256A.pem"),
                                      "-inkey", os.path.join(t, "leaf-256A.key"))),
            (1 | 1 << 4, tc26("signed_a111.pem")),
        ]
    assert len(seeds) == CMS_SEEDS
    for i, (flags, body) in enumerate(seeds):
        put("fuzz_cms", i, bytes([flags]) + body)

# fuzz_cms, more EnvelopedData (after cms_seeds' CMS_SEEDS): the shapes the
# gostx command writes and gost-engine does not, DER, to R
# 1323565.1.025-2019's recipients: a KARI with an ephemeral originator
# (Kuznyechik-OMAC, 256), a KARI by subjectKeyIdentifier (Magma, 512), a KTRI
# by subjectKeyIdentifier (Magma-OMAC, 256) and a KARI and a KTRI to both;
# the last three again streamed (bit 4), the read sizes odd.
def cms_gostx_seeds():
    import tempfile
    vec = os.path.join(here, "..", "vectors", "tc26_cms")
    r256, r512 = os.path.join(vec, "recipient256_cert.pem"), os.path.join(vec, "recipient512_cert.pem")
    shapes = [(0, ["-kari", "-kuznyechik", "-omac", "-recip", r256]),
              (0, ["-kari", "-keyid", "-magma", "-recip", r512]),
              (0, ["-keyid", "-magma", "-omac", "-recip", r256]),
              (0, ["-kari", "-recip", r512, "-recip", r256]),
              (0, ["-recip", r256, "-recip", r512]),
              (1 << 4 | 2 << 5, ["-keyid", "-magma", "-omac", "-recip", r256]),
              (1 << 4 | 5 << 5, ["-kari", "-recip", r512, "-recip", r256]),
              (1 << 4 | 3 << 5, ["-recip", r256, "-recip", r512])]
    with tempfile.TemporaryDirectory() as t:
        with open(os.path.join(t, "doc"), "wb") as f:
            f.write(pattern(100))
        for i, (flags, args) in enumerate(shapes):
            out = os.path.join(t, "out")
            subprocess.run([gostx, "cms", "-encrypt"] + args + ["-in", os.path.join(t, "doc"),
                            "-outform", "DER", "-out", out], check=True)
            with open(out, "rb") as f:
                put("fuzz_cms", CMS_SEEDS + i, bytes([1 << 2 | flags]) + f.read())

# fuzz_pkcs12: byte 0 bit 0 clear, a PFX as it is; set, the AuthenticatedSafe
# the harness wraps and MACs. PFX files the gostx command writes with one
# PBKDF2 iteration (every cipher, certificates encrypted and not), as they
# are and their AuthenticatedSafe.
def authenticated_safe(pfx):
    def tlv(b, i):  # (content start, content end) of the element at i
        _, h, n = header(b, i)
        return i + h, i + h + n
    s, _ = tlv(pfx, 0)          # PFX
    _, v = tlv(pfx, s)          # version
    ci, _ = tlv(pfx, v)         # authSafe ContentInfo
    _, oid = tlv(pfx, ci)       # contentType
    c0, _ = tlv(pfx, oid)       # [0]
    a, b = tlv(pfx, c0)         # OCTET STRING
    return pfx[a:b]

def pkcs12_seeds():
    vec = os.path.join(here, "..", "vectors", "pkcs12")
    i = 0
    for key, certs in (("key256.pem", "cert256.pem"), ("key512.pem", "chain512.pem")):
        for pbe in ("gost89", "kuznyechik", "magma", "kuznyechik-omac", "magma-omac"):
            for certpbe in (pbe, "NONE"):
                pfx = subprocess.run([gostx, "pkcs12", "-export", "-inkey", os.path.join(vec, key), "-in",
                                      os.path.join(vec, certs), "-name", "ключ", "-iter", "1",
                                      "-keypbe", pbe, "-certpbe", certpbe, "-passout", "pass:pw",
                                      "-out", "-"], check=True, capture_output=True).stdout
                put("fuzz_pkcs12", i, b"\0" + pfx)
                put("fuzz_pkcs12", i + 1, b"\1" + authenticated_safe(pfx))
                i += 2
    with open(os.path.join(vec, "engine-gost89-256.pfx"), "rb") as f:
        put("fuzz_pkcs12", i, b"\0" + f.read())  # 2048 iterations: over the harness's limit
    pfx = cryptopro_pfx(vec)
    put("fuzz_pkcs12", i + 1, b"\0" + pfx)
    put("fuzz_pkcs12", i + 2, b"\1" + authenticated_safe(pfx))
    for j, name in enumerate(("cryptopro-2012-256.pfx", "cryptopro-2001.pfx")):
        with open(os.path.join(vec, name), "rb") as f:  # 2000 rounds, the empty password: up to the MAC
            put("fuzz_pkcs12", i + 3 + j, b"\0" + f.read())
    put("fuzz_pkcs12", i + 5, b"\1" + authenticated_safe(cryptopro_pfx(vec, rc2=True)))
    pkcs12_openssl_seeds(vec, i + 6)

# What openssl with gost-engine writes that gostx only reads (issue 67 9c),
# one iteration, password "pw": the MAC over Streebog-256, PBES2
# des-ede3-cbc; a key under PBES2 with PRF HMAC-GOST R 34.11-94 and
# certificate bags that are no certificate beside a key that is not theirs
# (tests/support/pfx_craft.py: 9a, 9b), as AuthenticatedSafes.
def pkcs12_openssl_seeds(vec, i):
    import tempfile
    def o(*args):
        return subprocess.run(["openssl", args[0], "-engine", "gost"] + list(args[1:]), check=True,
                              capture_output=True).stdout
    key, cert = os.path.join(vec, "key256.pem"), os.path.join(vec, "cert256.pem")
    common = ["-export", "-inkey", key, "-in", cert, "-iter", "1", "-passout", "pass:pw"]
    put("fuzz_pkcs12", i, b"\0" + o("pkcs12", *common, "-keypbe", "gost89", "-certpbe", "gost89",
                                    "-macalg", "md_gost12_256"))
    pfx = o("pkcs12", *common, "-keypbe", "DES-EDE3-CBC", "-certpbe", "DES-EDE3-CBC",
            "-macalg", "md_gost12_512")
    put("fuzz_pkcs12", i + 1, b"\0" + pfx)
    put("fuzz_pkcs12", i + 2, b"\1" + authenticated_safe(pfx))
    with tempfile.TemporaryDirectory() as t:
        k94, tiny, out = (os.path.join(t, n) for n in ("k94.pem", "tiny.der", "out.pfx"))
        with open(k94, "wb") as f:
            f.write(o("pkcs8", "-topk8", "-in", key, "-v2", "gost89", "-v2prf", "id-HMACGostR3411-94",
                      "-iter", "1", "-passout", "pass:pw"))
        with open(tiny, "wb") as f:
            f.write(bytes.fromhex("3003020100"))
        subprocess.run([sys.executable, os.path.join(here, "..", "support", "pfx_craft.py"), gostx, out,
                        "pw", "skey=" + k94 + "@01", "cert=" + tiny, "cert=" +
                        os.path.join(vec, "chain512.pem") + "@01"], check=True)
        with open(out, "rb") as f:
            put("fuzz_pkcs12", i + 3, b"\1" + authenticated_safe(f.read()))

# A PFX as CryptoPro CSP writes it (family 3, lib/pkcs12/cryptopro.c), made
# here under the harness's password "pw" with one round everywhere, so that
# every mutation reaches the key blob and the 3DES part: key256.pem's key in
# a key bag under PBE 1.2.840.113549.1.12.1.80, cert256.pem under
# pbeWithSHAAnd3-KeyTripleDES-CBC (rc2: pbeWithSHAAnd128BitRC2-CBC),
# MacData HMAC-SHA1. The GOST steps call the libgostx.so beside the gostx
# given; 3DES and RC2 are python's cryptography.
def cryptopro_pfx(vec, rc2=False):
    import ctypes, hashlib, hmac
    from cryptography.hazmat.decrepit.ciphers.algorithms import RC2, TripleDES
    from cryptography.hazmat.primitives.ciphers import Cipher, modes
    sys.path.insert(0, os.path.join(here, "..", "support"))
    from der import oid, tlv
    lib = ctypes.CDLL(os.path.join(os.path.dirname(os.path.abspath(gostx)), "libgostx.so"))
    def gost89_key(k):
        key = ctypes.create_string_buffer(512)
        assert lib.gostx_gost89_set_key(key, k, 1) == 0  # CryptoPro-A
        return key
    def pem_der(name):
        b64 = "".join(l for l in open(os.path.join(vec, name)) if not l.startswith("-----"))
        import base64
        return base64.b64decode(b64)
    pw, salt, ukm = b"pw", bytes(range(16)), bytes(range(8, 16))
    cek = pem_der("key256.pem")[-32:]  # the key as it is stored: little-endian
    # the password key: GOST R 34.11-94(UTF-16LE pw | salt | 0001), one round
    k = ctypes.create_string_buffer(32)
    msg = pw.decode().encode("utf-16-le") + salt + b"\0\1"
    assert lib.gostx_gost94(7, msg, len(msg), k) == 0
    kek, enc, mac = ctypes.create_string_buffer(32), ctypes.create_string_buffer(32), ctypes.create_string_buffer(4)
    assert lib.gostx_kdf256(k.raw, 32, b"\x26\xbd\xb8\x78", 4, ukm, 8, kek) == 0
    kk = gost89_key(kek.raw)
    assert lib.gostx_gost89_ecb_encrypt(kk, cek, 32, enc) == 0
    assert lib.gostx_gost89_imit(kk, ukm, 0, cek, 32, mac, 4) == 0
    params = tlv(0x30, oid("1.2.643.2.2.35.1"), oid("1.2.643.7.1.1.2.2"))
    blob = bytes.fromhex("0720000046aa00004d41473120000000") + tlv(0x30, tlv(0x30, tlv(4, ukm),
        tlv(0x30, tlv(4, enc.raw), tlv(4, mac.raw)),
        tlv(0xa0, tlv(3, b"\x05\xa0"), tlv(0xa0, oid("1.2.643.7.1.1.6.1"), params))), tlv(4, bytes(4)))
    plain = tlv(0x30, tlv(2, b"\0"), tlv(0x30, oid("1.2.643.7.1.1.1.1"), tlv(5)), tlv(4, blob))
    ct = ctypes.create_string_buffer(len(plain))
    assert lib.gostx_gost89_cfb(gost89_key(k.raw), salt[:8], 0, 0, plain, len(plain), ct) == 0
    key_id = tlv(0x31, tlv(0x30, oid("1.2.840.113549.1.9.21"), tlv(0x31, tlv(4, b"\1\0\0\0"))))
    key_bag = tlv(0x30, oid("1.2.840.113549.1.12.10.1.2"), tlv(0xa0, tlv(0x30,
        tlv(0x30, oid("1.2.840.113549.1.12.1.80"), tlv(0x30, tlv(4, salt), tlv(2, b"\1"))), tlv(4, ct.raw))), key_id)
    # RFC 7292 appendix B.2 over SHA-1, the password a BMPString with its NUL
    bmp = pw.decode().encode("utf-16-be") + b"\0\0"
    def kdf(s, ident, n):
        def fill(x):
            return (x * (64 // len(x) + 2))[:64 * ((len(x) + 63) // 64)] if x else b""
        a = hashlib.sha1(bytes([ident]) * 64 + fill(s) + fill(bmp)).digest()  # one round
        return (a * 2)[:n] if n <= 20 else a + kdf2(s, ident, a, n)
    def kdf2(s, ident, a, n):  # the second block, after I_j += B + 1
        i = bytearray(s * (64 // len(s)) + (bmp * (64 // len(bmp) + 1))[:64])
        b = int.from_bytes((a * 4)[:64], "big")
        for j in (0, 64):
            i[j:j + 64] = ((int.from_bytes(i[j:j + 64], "big") + b + 1) % (1 << 512)).to_bytes(64, "big")
        return hashlib.sha1(bytes([ident]) * 64 + bytes(i)).digest()[:n - 20]
    csalt = bytes(range(32, 40))
    cert = pem_der("cert256.pem")
    certs = tlv(0x30, tlv(0x30, oid("1.2.840.113549.1.12.10.1.3"),
        tlv(0xa0, tlv(0x30, oid("1.2.840.113549.1.9.22.1"), tlv(0xa0, tlv(4, cert)))), key_id))
    pad = 8 - len(certs) % 8
    algorithm = RC2(kdf(csalt, 1, 16)) if rc2 else TripleDES(kdf(csalt, 1, 24))
    e = Cipher(algorithm, modes.CBC(kdf(csalt, 2, 8))).encryptor()
    cct = e.update(certs + bytes([pad]) * pad) + e.finalize()
    data = oid("1.2.840.113549.1.7.1")
    auth = tlv(0x30, tlv(0x30, data, tlv(0xa0, tlv(4, tlv(0x30, key_bag)))),
        tlv(0x30, oid("1.2.840.113549.1.7.6"), tlv(0xa0, tlv(0x30, tlv(2, b"\0"), tlv(0x30, data,
            tlv(0x30, oid("1.2.840.113549.1.12.1." + ("5" if rc2 else "3")), tlv(0x30, tlv(4, csalt), tlv(2, b"\1"))),
            tlv(0x80, cct))))))
    msalt = bytes(range(64, 72))
    digest = hmac.new(kdf(msalt, 3, 20), auth, hashlib.sha1).digest()
    macdata = tlv(0x30, tlv(0x30, tlv(0x30, oid("1.3.14.3.2.26"), tlv(5)), tlv(4, digest)), tlv(4, msalt), tlv(2, b"\1"))
    return tlv(0x30, tlv(2, b"\3"), tlv(0x30, data, tlv(0xa0, tlv(4, auth))), macdata)

# fuzz_cms_cli: operation (0 -cmsout, 1 -print, 2 -verify streamed, 3
# -verify -content, 4 -digest_verify, 5 -decrypt, 6 -EncryptedData_decrypt,
# 7 -tsa-query, 8 -tsa-reply, 9 -cmsout -outform DER), -inform (0 told
# apart, 1 PEM, 2 DER), the message's length (2), the message, the second
# file. The TC26 examples as PEM and DER, and the damaged inputs that once
# freed the message twice (issue 67).
def cms_cli_seeds():
    import base64
    vec = os.path.join(here, "..", "vectors", "tc26_cms")
    def pem(name):
        with open(os.path.join(vec, name), "rb") as f:
            return f.read()
    def der_of(text):
        body = b"".join(l for l in text.splitlines() if l and not l.startswith(b"-----"))
        return base64.b64decode(body)
    seeds = []
    def add(op, inform, msg, second=b""):
        seeds.append(bytes([op, inform]) + len(msg).to_bytes(2, "big") + msg + second)
    signed, digested = pem("signed_a121.pem"), pem("hashed_a311.pem")
    for op, name in ((0, "signed_a111.pem"), (1, "signed_a111.pem"), (2, "signed_a121.pem"),
                     (4, "hashed_a321.pem"), (5, "encrypted_keytrans_a231.pem"), (5, "tk26cms_kari256_gost89.pem"),
                     (6, "encrypted_kuznyechik_a421.pem"), (6, "encrypted_magma_a411.pem"), (7, "signed_a121.pem"),
                     (9, "signed_a121.pem")):
        add(op, 0, pem(name))
        add(op, 2, der_of(pem(name)))
    add(3, 1, signed, b"content")
    add(8, 0, signed, der_of(signed))  # a reply that is no reply
    bad = b"-----BEGIN CMS-----\nMIIB\n"
    for op in range(10):
        add(op, 1, bad)
        add(op, 0, (signed if op != 4 else digested)[:-5])
    add(1, 1, der_of(signed))  # DER said to be PEM
    for i, s in enumerate(seeds):
        put("fuzz_cms_cli", i, s)

# fuzz_p11_object: object bodies of gostx's PKCS#11 token (integrations/
# pkcs11/p11_store.c): a count, then (type 8, length 4, value) each.
def p11_body(attrs):
    return len(attrs).to_bytes(4, "big") + b"".join(
        t.to_bytes(8, "big") + len(v).to_bytes(4, "big") + v for t, v in attrs)

def p11_object_seeds():
    ul = lambda v: v.to_bytes(8, "little")  # CK_ULONG as the module stores it (x86-64)
    put("fuzz_p11_object", 0, p11_body([]))
    put("fuzz_p11_object", 1, p11_body([(0, ul(2)), (1, b"\1"), (3, b"k256"), (0x102, b"\1"),
                                        (0x250, bytes.fromhex("06072a850302022301")),
                                        (0x11, pattern(64)), (0x110, b""), (0x80000000d4321003, b"")]))
    put("fuzz_p11_object", 2, p11_body([(0, ul(1)), (0x101, pattern(40, 2)), (0x11, pattern(600, 3))]))

# fuzz_keycont: the CryptoPro containers of tests/vectors/cryptopro/, framed as
# the harness reads them (flags, then each present file as a 2-byte length and
# its bytes): whole (accepted), without the reserve copy, with the check
# values left to the harness (flag 0x80), under a PIN (refused: wrong PIN),
# and shaped as a two-key container (check values left to the harness): the
# primary key's parameters and fingerprint again as the secondary key's [4]
# and [11], primary.key's key twice, so that the secondary key's paths run.
def der_len(n):
    return bytes([n]) if n < 0x80 else bytes([0x82]) + n.to_bytes(2, "big")

def der_elems(b):  # (tag, whole element) of the DER elements in b
    i, out = 0, []
    while i < len(b):
        _, h, n = header(b, i)
        out.append((b[i], b[i:i + h + n]))
        i += h + n
    return out

def der_body(e):  # the content of one element
    return e[header(e, 0)[1]:]

def two_keys(files):
    outer = der_elems(der_body(files["header"]))
    content, params = b"", b""
    for t, e in der_elems(der_body(outer[0][1])):
        content += e
        if t == 0x30:
            params = b"\xa4" + der_len(len(der_body(e))) + der_body(e)
        if t == 0x82:  # [4] comes after [2]
            content += params
        if t == 0x8a:
            content += b"\x8b" + e[1:]
    c = b"\x30" + der_len(len(content)) + content
    h = c + outer[1][1]
    key = der_elems(der_body(files["primary"]))[0][1]
    return dict(files, header=b"\x30" + der_len(len(h)) + h,
                primary=b"\x30" + der_len(2 * len(key)) + key + key)

def keycont_seeds():
    names = ["header", "name", "primary", "masks", "primary2", "masks2"]
    vec = os.path.join(here, "..", "vectors", "cryptopro")
    i = 0
    for c in sorted(os.listdir(vec)):
        files = {}
        for n in names:
            path = os.path.join(vec, c, n + ".key")
            if os.path.exists(path):
                files[n] = open(path, "rb").read()
        for drop, extra in (((), 0), (("primary2", "masks2"), 0), ((), 0x80), ((), 1),
                            (("primary2", "masks2"), 0x180)):
            flags, body = extra & 0xff, b""
            fs = two_keys(files) if extra & 0x100 else files
            for k, n in enumerate(names):
                if n in fs and n not in drop:
                    flags |= 1 << (1 + k)
                    body += len(fs[n]).to_bytes(2, "big") + fs[n]
            put("fuzz_keycont", i, bytes([flags]) + body)
            i += 1

# fuzz_vipnet: ViPNet containers built from the public description
# (tests/support/vipnet_build.py, gostx's primitives) around keys and a
# certificate gostx makes: 256-bit with a certificate and [1], no PIN; the
# same with the check value left to the harness (flag 0x80); 512-bit under
# the PIN "1" (flag 1); and two entries.
def vipnet_seeds():
    import tempfile
    sys.path.insert(0, os.path.join(here, "..", "support"))
    from vipnet_build import build, Q256B, Q512A
    run = lambda *a: subprocess.run([gostx, *a], check=True, capture_output=True).stdout
    with tempfile.TemporaryDirectory() as t:
        k256, k512, der = (os.path.join(t, n) for n in ("k256", "k512", "c.der"))
        run("genpkey", "-c", "256B", "-o", k256)
        run("genpkey", "-c", "512A", "-o", k512)
        run("req", "-x509", "-key", k256, "-subj", "/CN=vipnet", "-outform", "DER", "-out", der)
        cert = open(der, "rb").read()
        val = lambda k: {l.split(": ")[0]: int(l.split(": ")[1], 16) for l in
                         run("pkey", "-i", k, "-text").decode().splitlines()
                         if l[:3] in ("d: ", "x: ", "y: ")}
        v256, v512 = val(k256), val(k512)
    a256 = ("1.2.643.7.1.1.1.1", "1.2.643.2.2.35.1", "1.2.643.7.1.1.2.2")
    c256 = build(gostx, False, v256["d"], v256["x"], v256["y"], 32, Q256B, *a256, b"", cert)
    c512 = build(gostx, False, v512["d"], v512["x"], v512["y"], 64, Q512A, "1.2.643.7.1.1.1.2",
                 "1.2.643.7.1.2.1.2.1", "1.2.643.7.1.1.2.3", b"1")
    entry = c256[12:]  # an empty header: the entry follows the first 12 bytes
    put("fuzz_vipnet", 0, b"\0" + c256)
    put("fuzz_vipnet", 1, b"\x80" + c256)
    put("fuzz_vipnet", 2, b"\1" + c512)
    put("fuzz_vipnet", 3, b"\0" + c256 + entry)

NEEDS_GOSTX = {"fuzz_pkcs12": pkcs12_seeds, "fuzz_cms": cms_gostx_seeds, "fuzz_vipnet": vipnet_seeds}
if sys.argv[2:3] == ["--only"]:  # make_seeds.py GOSTX --only fuzz_pkcs12 fuzz_cms
    for n in sys.argv[3:]:
        NEEDS_GOSTX[n]()
    sys.exit(0)

NEEDS_NO_GOSTX = {"fuzz_ike_payloads": ike_seeds, "fuzz_ike_engine": ike_engine_seeds,
                  "fuzz_esp_open": esp_seeds, "fuzz_tls_record": tls_seeds,
                  "fuzz_tls12_record": tls12_seeds, "fuzz_tunnel_gso": tunnel_gso_seeds,
                  "fuzz_tls_handshake": tls_handshake_seeds, "fuzz_x509": x509_seeds,
                  "fuzz_cms": cms_seeds, "fuzz_cms_cli": cms_cli_seeds,
                  "fuzz_p11_object": p11_object_seeds, "fuzz_keycont": keycont_seeds}
if gostx == "--only":
    if not sys.argv[2:] or any(n not in NEEDS_NO_GOSTX for n in sys.argv[2:]):
        sys.exit("make_seeds: --only takes " + " ".join(sorted(NEEDS_NO_GOSTX)))
    for n in sys.argv[2:]:
        NEEDS_NO_GOSTX[n]()
    sys.exit(0)
for make in list(NEEDS_NO_GOSTX.values()) + list(NEEDS_GOSTX.values()):
    make()

# fuzz_cli: byte 0 (even cipher, odd mac), arguments one per line, NUL, data.
k = KEY.hex()
cli = [
    (0, ["kuznyechik-ctr", "-k", k, "--iv", "1234567890abcef0", "-i", "input", "-o", "out"], pattern(100)),
    (0, ["magma-cbc", "-k", k, "--iv", "1234567890abcdef", "--pad", "2"], pattern(37)),
    (0, ["kuznyechik-mgm", "-d", "-k", k, "--iv", "1122334455667700ffeeddccbbaa9988", "--aad", "0102"], pattern(40)),
    (0, ["kuznyechik-xts", "-k", k + k[::-1], "--sector", "7", "--sector-size", "512"], pattern(1024)),
    (0, ["gost89-cnt", "-k", k, "--iv", "0102030405060708", "--sbox", "a", "--mesh"], pattern(1500)),
    (0, ["magma-ctr-acpkm", "-k", k, "--iv", "12345678", "--section", "16", "--segment", "8"], pattern(64)),
    (0, ["kuznyechik-cfb", "-dk", k, "--iv=" + "00" * 32, "--segment=3", "--", "-"], pattern(33)),
    (0, ["magma-ecb", "-k", "zz", "--pad", "9"], b""),
    (0, ["--help"], b""),
    (1, ["kuznyechik-omac", "-k", k, "--len", "8"], pattern(77)),
    (1, ["magma-omac-acpkm", "-k", k, "--section", "16", "--master-section", "40"], pattern(90)),
    (1, ["hmac-streebog512", "-k", k + "00"], pattern(200)),
    (1, ["gost89-imit", "-k", k, "--sbox", "test", "--iv", "0001020304050607", "--mesh"], pattern(2000)),
    (1, ["hmac-streebog256", "-i", "input", "-k"], pattern(3)),
]
for i, (sel, args, data) in enumerate(cli):
    put("fuzz_cli", i, bytes([sel]) + "\n".join(args).encode() + b"\0" + data)

# fuzz_csr: mode byte (0 DER request, 1 PEM, 2 -subj text, 3 extension
# lines), then the body; the requests made by gostx req.
import tempfile
with tempfile.TemporaryDirectory() as t:
    csr = []
    for curve, exts in (("256A", ["subjectAltName=DNS:a.example,IP:127.0.0.1,IP:::1"]),
                        ("512B", ["basicConstraints=critical,CA:TRUE,pathlen:0",
                                  "keyUsage=critical,keyCertSign,cRLSign"]),
                        ("256B", [])):
        key = os.path.join(t, curve + ".key")
        subprocess.run([gostx, "genpkey", "-c", curve, "-o", key], check=True)
        args = [gostx, "req", "-new", "-key", key, "-subj", "/CN=fuzz/O=gostx/C=RU/INN=7700000000"]
        for x in exts:
            args += ["-addext", x]
        csr.append(subprocess.run(args, check=True, capture_output=True).stdout)
    for i, p in enumerate(csr):
        der = subprocess.run(["openssl", "req", "-in", "-", "-outform", "DER"], input=p, check=True,
                             capture_output=True).stdout
        put("fuzz_csr", i, b"\0" + der)
        put("fuzz_csr", 3 + i, b"\1" + p)
texts = [(2, "/CN=host a/O=Org\\/x/C=RU/emailAddress=a@b.ru/SNILS=12345678901/1.2.3.4=x"),
         (2, "/CN=\u0422\u0435\u0441\u0442/OU=u/ST=s/L=l/serialNumber=A-1/"),
         (3, "basicConstraints = critical, CA:TRUE, pathlen:3\nkeyUsage = digitalSignature, keyAgreement\n"
             "extendedKeyUsage = serverAuth, 1.2.643.1\nsubjectAltName = DNS:x, email:a@b, URI:http://u, IP:::1"),
         (3, "subjectKeyIdentifier = none\nauthorityKeyIdentifier = keyid, issuer")]
for i, (mode, text) in enumerate(texts):
    put("fuzz_csr", 6 + i, bytes([mode]) + text.encode())

# fuzz_block_diff: selector, offsets, 32 key bytes, data.
i = 0
for sel in range(0, 21):
    for nb in (1, 4, 14, 65):
        put("fuzz_block_diff", i, bytes([sel, (sel * 5) & 0xff]) + pattern(32, sel) + pattern(16 * nb, nb))
        i += 1

# fuzz_modes_stream: 8 parameter bytes, 32 key bytes, split count, splits, message.
i = 0
for kind in range(14):
    for cipher in (0, 1):
        p = bytes([kind + 14 * cipher, 5 + kind, 3, 2 + kind, 9, 0, 0, 0])
        splits = bytes([3, 0, 17, 1, 64])
        put("fuzz_modes_stream", i, p + pattern(32, kind) + bytes([len(splits)]) + splits +
            pattern(40 + 61 * kind, kind))
        i += 1
# Past 1024 bytes: GOST 28147-89 key meshing, ACPKM sections, long MGM.
for kind in (5, 7, 8, 9, 10, 11):
    p = bytes([kind, 7, 1, 1, 3, 0, 0, 0])
    splits = bytes([200, 1, 0, 255])
    put("fuzz_modes_stream", i, p + pattern(32, kind) + bytes([len(splits)]) + splits +
        pattern(2100, kind))
    i += 1

# fuzz_mgm_decrypt: selector, tag length, AAD length, nonce, AAD || C || tag.
i = 0
for alg, n in (("kuznyechik", 16), ("magma", 8)):
    for alen, plen, tl in ((0, 1, n), (5, 33, n), (16, 0, 4), (3, 70, n - 1)):
        nonce = pattern(n, plen)
        nonce = bytes([nonce[0] & 0x7f]) + nonce[1:]
        aad, pt = pattern(alen, 2), pattern(plen, 3)
        cmd = [gostx, "cipher", alg + "-mgm", "-k", KEY.hex(), "--iv", nonce.hex(), "--tag-len", str(tl)]
        if alen:
            cmd += ["--aad", aad.hex()]
        out = subprocess.run(cmd, input=pt, stdout=subprocess.PIPE, check=True).stdout
        put("fuzz_mgm_decrypt", i, bytes([0 if n == 16 else 1, tl - 4, alen]) + nonce + aad + out)
        i += 1
# KImp15 (selector bit 1): IV || something (rejected; the fuzzer explores from here).
put("fuzz_mgm_decrypt", i, bytes([2, 0, 0]) + pattern(8 + 48, 9))
put("fuzz_mgm_decrypt", i + 1, bytes([3, 0, 0]) + pattern(4 + 40, 9))

# fuzz_container (byte 0 bit 0 = 1: a whole file opened with the fixed key):
# a passphrase header asking for 2^24 PBKDF2 iterations, the most the format
# allows (tens of seconds of work; the harness bounds it with
# gostx_file_init_decrypt_limit). The other fuzz_container seeds were written by hand.
hdr = (b"GOSTX\0" + bytes([1, 1, 2, 0, 0, 0]) + (1024).to_bytes(4, "big") +
       (1 << 24).to_bytes(4, "big") + pattern(32, 5) + pattern(32, 6))
with open(os.path.join(here, "corpus", "fuzz_container", "pbkdf2_2p24"), "wb") as f:
    f.write(b"\1" + hdr + pattern(100, 7))

# fuzz_pkey: key files of every curve from the gostx command (PEM and DER,
# private and public); the gost-engine-written files of tests/test_gost3410_keys.c
# are seeds written by hand (engine-*).
import tempfile
with tempfile.TemporaryDirectory() as t:
    i = 0
    for c in ["256A", "256B", "256C", "256D", "512A", "512B", "512C", "256TEST", "512TEST"]:
        key = os.path.join(t, c + ".pem")
        subprocess.run([gostx, "genpkey", "-c", c, "-o", key], check=True)
        for extra in [[], ["--outform", "DER"], ["--pubout"], ["--pubout", "--outform", "DER"]]:
            out = subprocess.run([gostx, "pkey", "-i", key] + extra, check=True, capture_output=True).stdout
            put("fuzz_pkey", i, out)
            i += 1
