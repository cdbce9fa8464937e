#!/usr/bin/env python3
"""CLI tests for gostx (driven by tests/test_cli.sh).

Runs every official vector the CLI can express through the `gostx` binary,
round trips for every ALG-MODE with random keys and lengths, error
behaviour (exit codes, messages, output files), --help, and hash -c.

Environment: GOSTX = path to the gostx binary, GOSTX_VECTORS = tests/vectors.
Prints one line per failure and a final "N passed, N failed".
Standard library only.
"""
import json
import os
import random
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "support"))
from tally import check, finish  # noqa: E402

GOSTX = os.environ.get("GOSTX", "build/gostx")
VECTORS = os.environ.get("GOSTX_VECTORS",
                         os.path.join(os.path.dirname(os.path.abspath(__file__)), "vectors"))

rng = random.Random(int(os.environ.get("GOSTX_TEST_SEED", "20260101")))


def run(args, data=b""):
    """Runs gostx with args, feeding data on stdin. Returns (rc, out, err)."""
    p = subprocess.run([GOSTX] + [str(a) for a in args], input=data,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")


def rand_bytes(n):
    return bytes(rng.getrandbits(8) for _ in range(n))


def hx(b):
    return b.hex()


def load(name):
    with open(os.path.join(VECTORS, name)) as f:
        return json.load(f)


def expect_bytes(what, args, data, want):
    rc, out, err = run(args, data)
    check(rc == 0 and out == want, what,
          "rc=%d err=%r got=%s want=%s" % (rc, err.strip(), out.hex()[:96], want.hex()[:96]))


def expect_hex_line(what, args, want_hex, data=b""):
    rc, out, err = run(args, data)
    got = out.decode().strip()
    check(rc == 0 and got == want_hex, what,
          "rc=%d err=%r got=%s want=%s" % (rc, err.strip(), got, want_hex))


# ---------------------------------------------------------------- vectors

def test_modes_3413():
    mode_names = {"ECB": "ecb", "CTR": "ctr", "OFB": "ofb", "CBC": "cbc", "CFB": "cfb"}
    for c in load("modes-3413.json")["cases"]:
        alg = c["cipher"]
        key = c["key"]
        pt = bytes.fromhex(c["plaintext"])
        name = c["name"]
        if c["mode"] == "MAC":
            mac = c["mac"]
            expect_hex_line(name + " (truncated --len)",
                            ["mac", alg + "-omac", "-k", key, "--len", len(mac) // 2], mac, pt)
            expect_hex_line(name + " (full block)",
                            ["mac", alg + "-omac", "-k", key], c["mac_full_block"], pt)
            # The same through a file.
            with tempfile.NamedTemporaryFile(delete=False) as f:
                f.write(pt)
            try:
                expect_hex_line(name + " (-i file)",
                                ["mac", alg + "-omac", "-k", key, "-i", f.name,
                                 "--len", len(mac) // 2], mac)
            finally:
                os.unlink(f.name)
            continue
        ct = bytes.fromhex(c["ciphertext"])
        args = ["cipher", "%s-%s" % (alg, mode_names[c["mode"]]), "-k", key]
        if "iv" in c:
            args += ["--iv", c["iv"]]
        s_bits = c.get("params", {}).get("s_bits")
        if s_bits:
            args += ["--segment", s_bits // 8]
        expect_bytes(name + " encrypt", args, pt, ct)
        expect_bytes(name + " decrypt", args + ["-d"], ct, pt)


def test_acpkm():
    for c in load("acpkm.json")["cases"]:
        alg = c["cipher"]
        kind = c["kind"]
        name = c["name"]
        if kind == "ctr_acpkm":
            pt = bytes.fromhex(c["plaintext"])
            ct = bytes.fromhex(c["ciphertext"])
            args = ["cipher", alg + "-ctr-acpkm", "-k", c["key"], "--iv", c["iv"],
                    "--section", c["section_size_bits"] // 8]
            expect_bytes(name + " encrypt", args, pt, ct)
            expect_bytes(name + " decrypt", args + ["-d"], ct, pt)
        elif kind == "omac_acpkm":
            pt = bytes.fromhex(c["plaintext"])
            expect_hex_line(name, ["mac", alg + "-omac-acpkm", "-k", c["key"],
                                   "--section", c["section_size_bits"] // 8,
                                   "--master-section", c["master_section_size_bits"] // 8],
                            c["mac"], pt)
        # acpkm_key_sequence: internal key schedule, not expressible in the CLI.


def test_mgm():
    for c in load("mgm.json")["cases"]:
        alg = c["cipher"]
        name = c["name"]
        pt = bytes.fromhex(c["plaintext"])
        ct = bytes.fromhex(c["ciphertext"])
        tag = bytes.fromhex(c["tag"])
        args = ["cipher", alg + "-mgm", "-k", c["key"], "--iv", c["nonce"]]
        if c["associated_data"]:
            args += ["--aad", c["associated_data"]]
        expect_bytes(name + " encrypt", args, pt, ct + tag)
        expect_bytes(name + " decrypt", args + ["-d"], ct + tag, pt)
        # Truncated tag: the leftmost bytes of the full tag.
        expect_bytes(name + " encrypt --tag-len 8", args + ["--tag-len", 8], pt, ct + tag[:8])
        expect_bytes(name + " decrypt --tag-len 8", args + ["--tag-len", 8, "-d"],
                     ct + tag[:8], pt)
        bad = bytearray(ct + tag)
        bad[-1] ^= 1
        rc, out, err = run(args + ["-d"], bytes(bad))
        check(rc != 0 and out == b"" and "authentication failed" in err,
              name + " wrong tag rejected", "rc=%d out=%r err=%r" % (rc, out[:16], err))
        if c["associated_data"]:
            aad = bytearray(bytes.fromhex(c["associated_data"]))
            aad[0] ^= 0x40
            a2 = ["cipher", alg + "-mgm", "-k", c["key"], "--iv", c["nonce"],
                  "--aad", bytes(aad).hex(), "-d"]
            rc, out, err = run(a2, ct + tag)
            check(rc != 0 and out == b"" and "authentication failed" in err,
                  name + " changed AAD rejected", "rc=%d err=%r" % (rc, err))


def test_streebog():
    for c in load("streebog.json")["cases"]:
        msg = bytes.fromhex(c["message_bytes"])
        alg = "streebog%d" % c["hash_bits"]
        want = c["digest_bytes"] + "  -\n"
        rc, out, err = run(["hash", "-a", alg], msg)
        check(rc == 0 and out.decode() == want, c["name"],
              "rc=%d err=%r got=%r" % (rc, err, out))
        if c["hash_bits"] == 256:  # the default algorithm
            rc, out, err = run(["hash"], msg)
            check(rc == 0 and out.decode() == want, c["name"] + " (default -a)",
                  "got=%r" % out)


def test_hmac_kdf():
    for c in load("hmac-kdf.json")["cases"]:
        kind = c["kind"]
        if kind == "hmac":
            alg = "hmac-" + c["hash"]
            expect_hex_line(c["name"], ["mac", alg, "-k", c["key"]], c["output"],
                            bytes.fromhex(c["data"]))
        elif kind == "kdf_256":
            expect_hex_line(c["name"], ["kdf", "kdf256", "-k", c["key"], "--label", c["label"],
                                        "--seed", c["seed"]], c["output"])
        elif kind == "kdf_tree_256":
            expect_hex_line(c["name"], ["kdf", "kdftree", "-k", c["key"], "--label", c["label"],
                                        "--seed", c["seed"], "--len", c["L_bits"] // 8,
                                        "--r", c["R_bytes"]], c["output"])


def test_pbkdf2():
    for c in load("pbkdf2.json")["cases"]:
        if c.get("slow"):
            continue
        expect_hex_line(c["name"], ["kdf", "pbkdf2", "--pass-hex", c["P"], "--salt", c["S"],
                                    "--iter", c["c"], "--len", c["dkLen"]], c["DK"])
    # --pass takes the argument's bytes: case #1 is 'password' / 'salt'.
    c = load("pbkdf2.json")["cases"][0]
    expect_hex_line("pbkdf2 --pass STR", ["kdf", "pbkdf2", "--pass", "password", "--salt",
                                          c["S"], "--iter", c["c"]], c["DK"])


# ---------------------------------------------------------------- round trips

# ALG-MODE -> (block length n, kind)
MODES = {}
for alg, n in (("kuznyechik", 16), ("magma", 8)):
    for m in ("ecb", "cbc", "cfb", "ofb", "ctr", "ctr-acpkm", "mgm"):
        MODES["%s-%s" % (alg, m)] = (n, m)
MODES["kuznyechik-xts"] = (16, "xts")
MODES["gost89-ecb"] = (8, "g89-ecb")
MODES["gost89-cnt"] = (8, "g89-cnt")
MODES["gost89-cfb"] = (8, "g89-cfb")

LENGTHS = [0, 1, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 100, 255, 1000, 1024, 1025, 4095, 4096]


def random_args(name, minimal=False):
    """Random key and IV (and options) for one ALG-MODE. minimal: m = n
    (the shortest IV), s = n and default options, as openssl uses them."""
    n, kind = MODES[name]
    if minimal and kind not in ("xts", "mgm", "g89-cnt", "g89-cfb"):
        args = ["-k", hx(rand_bytes(32))]
        if kind in ("cbc", "ofb", "cfb"):
            args += ["--iv", hx(rand_bytes(n))]
        elif kind in ("ctr", "ctr-acpkm"):
            args += ["--iv", hx(rand_bytes(n // 2))]
        return args
    if kind == "xts":
        args = ["-k", hx(rand_bytes(64))]
        if rng.random() < 0.5:
            args += ["--iv", hx(rand_bytes(16))]
        else:
            args += ["--sector", rng.randrange(0, 2 ** 64)]
        return args
    args = ["-k", hx(rand_bytes(32))]
    if kind in ("cbc", "ofb"):
        args += ["--iv", hx(rand_bytes(n * rng.randint(1, 3)))]
    elif kind == "cfb":
        args += ["--iv", hx(rand_bytes(rng.randint(n, 3 * n)))]
    elif kind in ("ctr", "ctr-acpkm"):
        args += ["--iv", hx(rand_bytes(n // 2))]
    elif kind == "mgm":
        nonce = bytearray(rand_bytes(n))
        nonce[0] &= 0x7F
        args += ["--iv", hx(bytes(nonce)), "--aad", hx(rand_bytes(rng.randint(0, 40)))]
    elif kind in ("g89-cnt", "g89-cfb"):
        args += ["--iv", hx(rand_bytes(8))]
        if rng.random() < 0.5:
            args += ["--mesh"]
        args += ["--sbox", rng.choice(["cryptopro-a", "cryptopro-b", "tc26-z"])]
    if kind in ("cfb", "ofb", "ctr") and rng.random() < 0.5:
        args += ["--segment", rng.randint(1, n)]
    if kind == "ctr-acpkm" and rng.random() < 0.5:
        args += ["--section", n * rng.randint(1, 8)]
    return args


def roundtrip(name, args, data, what):
    rc, enc, err = run(["cipher", name] + args, data)
    if rc != 0:
        check(False, what + " encrypt", "rc=%d err=%r" % (rc, err))
        return None
    rc, dec, err = run(["cipher", name, "-d"] + args, enc)
    check(rc == 0 and dec == data, what,
          "rc=%d err=%r len=%d declen=%d" % (rc, err, len(data), len(dec)))
    return enc


def test_roundtrips():
    for name, (n, kind) in sorted(MODES.items()):
        block_only = kind in ("ecb", "cbc", "g89-ecb")
        for length in LENGTHS + [rng.randint(0, 4096)]:
            if block_only and length % n:
                continue
            if kind == "xts" and length < 16:
                continue
            data = rand_bytes(length)
            roundtrip(name, random_args(name, minimal=True), data,
                      "%s round trip (m = n, s = n) len=%d" % (name, length))
            args = random_args(name)
            enc = roundtrip(name, args, data, "%s round trip len=%d %s" % (name, length, args[2:]))
            if enc is None:
                continue
            if kind in ("ctr", "ofb", "cfb", "ctr-acpkm", "g89-cnt", "g89-cfb", "xts",
                        "ecb", "cbc", "g89-ecb"):
                check(len(enc) == length, "%s ciphertext length len=%d" % (name, length),
                      "got %d" % len(enc))
            if kind == "mgm":
                check(len(enc) == length + n, "%s ciphertext||tag length len=%d"
                      % (name, length), "got %d" % len(enc))
        if block_only:
            # Padding procedure 2 round-trips any length; 1 and 3 leave the padding.
            for length in (0, 1, n - 1, n, n + 1, 3 * n + 5):
                data = rand_bytes(length)
                args = random_args(name) + ["--pad", "2"]
                enc = roundtrip(name, args, data, "%s --pad 2 round trip len=%d" % (name, length))
                if enc is not None:
                    want = (length // n + 1) * n
                    check(len(enc) == want, "%s --pad 2 length len=%d" % (name, length),
                          "got %d want %d" % (len(enc), want))
            for pad in ("1", "3"):
                for length in (1, n + 3):
                    data = rand_bytes(length)
                    args = random_args(name) + ["--pad", pad]
                    rc, enc, err = run(["cipher", name] + args, data)
                    rc2, dec, err2 = run(["cipher", name, "-d"] + args, enc)
                    check(rc == 0 and rc2 == 0 and len(enc) % n == 0 and dec[:length] == data
                          and len(dec) == len(enc),
                          "%s --pad %s round trip keeps padding len=%d" % (name, pad, length),
                          "rc=%d/%d err=%r" % (rc, rc2, err + err2))
        if kind == "xts":
            # Sectors: --sector-size splits into units numbered N, N+1, ...
            ss = 512
            data = rand_bytes(ss * 3 + 100)
            key = hx(rand_bytes(64))
            base = ["-k", key, "--sector", 7, "--sector-size", ss]
            enc = roundtrip(name, base, data, "xts --sector-size round trip")
            if enc is not None:
                ok = True
                for i in range(4):
                    unit = data[i * ss:(i + 1) * ss]
                    rc, one, _ = run(["cipher", name, "-k", key, "--sector", 7 + i], unit)
                    ok = ok and rc == 0 and one == enc[i * ss:i * ss + len(unit)]
                check(ok, "xts --sector-size equals per-sector --sector")
                # --sector N equals --iv with N as a 16-byte little-endian number.
                tweak = (7).to_bytes(16, "little").hex()
                rc, a, _ = run(["cipher", name, "-k", key, "--iv", tweak], data[:ss])
                check(rc == 0 and a == enc[:ss], "xts --sector equals little-endian --iv")

    # Inputs larger than the CLI's 64 KiB chunk: streaming must equal one piece.
    big = rand_bytes(200000 + 3)
    for name in ("kuznyechik-ctr", "magma-cfb", "kuznyechik-ofb", "kuznyechik-ctr-acpkm",
                 "gost89-cnt", "kuznyechik-mgm", "kuznyechik-xts"):
        roundtrip(name, random_args(name), big, "%s round trip 200003 bytes" % name)
    for name in ("kuznyechik-cbc", "magma-ecb", "gost89-ecb"):
        roundtrip(name, random_args(name), big[:200000], "%s round trip 200000 bytes" % name)
        roundtrip(name, random_args(name) + ["--pad", "2"], big,
                  "%s --pad 2 round trip 200003 bytes" % name)
    # Chunk-boundary consistency: CTR of a prefix is a prefix of CTR of the whole.
    args = random_args("kuznyechik-ctr")
    rc1, whole, _ = run(["cipher", "kuznyechik-ctr"] + args, big)
    rc2, part, _ = run(["cipher", "kuznyechik-ctr"] + args, big[:70001])
    check(rc1 == 0 and rc2 == 0 and whole[:70001] == part, "CTR prefix consistency over 64 KiB")


# ---------------------------------------------------------------- errors

def expect_usage_error(what, args, data=b"", code=2):
    rc, out, err = run(args, data)
    lines = [l for l in err.splitlines() if l.strip()]
    check(rc == code and len(lines) >= 1 and lines[0].startswith("gostx: "), what,
          "rc=%d err=%r" % (rc, err))


def test_errors(tmp):
    K = "00" * 32
    expect_usage_error("bad hex key (non-hex char)", ["cipher", "kuznyechik-ctr", "-k",
                                                      "zz" + "00" * 31, "--iv", "00" * 8])
    expect_usage_error("odd-length key", ["cipher", "kuznyechik-ctr", "-k", "0" * 63,
                                          "--iv", "00" * 8])
    expect_usage_error("short key", ["cipher", "kuznyechik-ctr", "-k", "00" * 16,
                                     "--iv", "00" * 8])
    expect_usage_error("missing -k", ["cipher", "kuznyechik-ctr", "--iv", "00" * 8])
    expect_usage_error("unknown mode", ["cipher", "kuznyechik-gcm", "-k", K])
    expect_usage_error("missing ALG-MODE", ["cipher", "-k", K])
    expect_usage_error("unknown option", ["cipher", "kuznyechik-ecb", "-k", K, "--bogus"])
    expect_usage_error("option without value", ["cipher", "kuznyechik-ecb", "-k"])
    expect_usage_error("bad IV hex", ["cipher", "kuznyechik-cbc", "-k", K, "--iv", "0g" * 16])
    expect_usage_error("wrong CTR IV length", ["cipher", "kuznyechik-ctr", "-k", K,
                                               "--iv", "00" * 16])
    expect_usage_error("wrong CBC IV length", ["cipher", "magma-cbc", "-k", K, "--iv", "00" * 12])
    expect_usage_error("CFB IV shorter than n", ["cipher", "kuznyechik-cfb", "-k", K,
                                                 "--iv", "00" * 8])
    expect_usage_error("missing IV", ["cipher", "kuznyechik-cbc", "-k", K])
    expect_usage_error("ECB with IV", ["cipher", "kuznyechik-ecb", "-k", K, "--iv", "00" * 16])
    expect_usage_error("MGM nonce top bit", ["cipher", "kuznyechik-mgm", "-k", K,
                                             "--iv", "80" + "00" * 15])
    expect_usage_error("MGM tag too short", ["cipher", "magma-mgm", "-k", K, "--iv", "00" * 8,
                                             "--tag-len", "3"])
    expect_usage_error("segment too large", ["cipher", "magma-ctr", "-k", K, "--iv", "00" * 4,
                                             "--segment", "9"])
    expect_usage_error("bad --pad", ["cipher", "kuznyechik-ecb", "-k", K, "--pad", "4"])
    expect_usage_error("--pad on CTR", ["cipher", "kuznyechik-ctr", "-k", K, "--iv", "00" * 8,
                                        "--pad", "2"])
    expect_usage_error("section not a multiple of n", ["cipher", "kuznyechik-ctr-acpkm", "-k", K,
                                                       "--iv", "00" * 8, "--section", "100"])
    expect_usage_error("XTS short key", ["cipher", "kuznyechik-xts", "-k", K, "--sector", "0"])
    expect_usage_error("XTS without tweak", ["cipher", "kuznyechik-xts", "-k", "01" * 64])
    expect_usage_error("unknown sbox", ["cipher", "gost89-cnt", "-k", K, "--iv", "00" * 8,
                                        "--sbox", "nope"])
    expect_usage_error("ECB input not a block multiple",
                       ["cipher", "kuznyechik-ecb", "-k", K], b"x" * 17)
    expect_usage_error("mac unknown alg", ["mac", "aes-cmac", "-k", K])
    expect_usage_error("mac bad --len", ["mac", "magma-omac", "-k", K, "--len", "9"])
    expect_usage_error("mac missing key", ["mac", "hmac-streebog256"])
    expect_usage_error("mac odd key", ["mac", "hmac-streebog256", "-k", "abc"])
    expect_usage_error("kdf missing --salt", ["kdf", "pbkdf2", "--pass", "x", "--iter", "1"])
    expect_usage_error("kdf --iter 0", ["kdf", "pbkdf2", "--pass", "x", "--salt", "00",
                                        "--iter", "0"])
    expect_usage_error("kdf --iter not a number", ["kdf", "pbkdf2", "--pass", "x", "--salt", "00",
                                                   "--iter", "12x"])
    expect_usage_error("kdftree missing --len", ["kdf", "kdftree", "-k", K, "--label", "",
                                                 "--seed", ""])
    expect_usage_error("kdf unknown function", ["kdf", "hkdf"])
    expect_usage_error("hash unknown alg", ["hash", "-a", "sha256"])
    expect_usage_error("unknown command", ["frobnicate"])

    # I/O errors: exit 1, message names the file.
    missing = os.path.join(tmp, "does-not-exist")
    rc, out, err = run(["cipher", "kuznyechik-ecb", "-k", K, "-i", missing])
    check(rc == 1 and missing in err and err.startswith("gostx: "), "missing input file",
          "rc=%d err=%r" % (rc, err))
    rc, out, err = run(["hash", missing])
    check(rc == 1 and missing in err, "hash missing file", "rc=%d err=%r" % (rc, err))
    rc, out, err = run(["cipher", "kuznyechik-ecb", "-k", K, "-o",
                        os.path.join(tmp, "no-such-dir", "out")], b"x" * 16)
    check(rc == 1 and "no-such-dir" in err, "unwritable output dir", "rc=%d err=%r" % (rc, err))

    # Failures never create or change the output file.
    out_path = os.path.join(tmp, "out.bin")
    rc, _, _ = run(["cipher", "kuznyechik-ecb", "-k", K, "-o", out_path], b"x" * 17)
    check(rc != 0 and not os.path.exists(out_path), "ECB non-multiple: no output file created")
    with open(out_path, "wb") as f:
        f.write(b"precious")
    rc, _, _ = run(["cipher", "kuznyechik-ecb", "-k", K, "-o", out_path], b"x" * 17)
    check(rc != 0 and open(out_path, "rb").read() == b"precious",
          "ECB non-multiple: existing output untouched")

    nonce = "00" * 16
    rc, sealed, _ = run(["cipher", "kuznyechik-mgm", "-k", K, "--iv", nonce], b"secret data")
    check(rc == 0 and len(sealed) == len(b"secret data") + 16, "MGM seal for error tests")
    bad = bytearray(sealed or bytes(27))
    bad[0] ^= 1
    os.unlink(out_path)
    rc, out, err = run(["cipher", "kuznyechik-mgm", "-k", K, "--iv", nonce, "-d",
                        "-o", out_path], bytes(bad))
    check(rc != 0 and "authentication failed" in err and not os.path.exists(out_path),
          "MGM wrong tag: no output file created", "rc=%d err=%r" % (rc, err))
    with open(out_path, "wb") as f:
        f.write(b"precious")
    rc, out, err = run(["cipher", "kuznyechik-mgm", "-k", K, "--iv", nonce, "-d",
                        "-o", out_path], bytes(bad))
    check(rc != 0 and "authentication failed" in err
          and open(out_path, "rb").read() == b"precious",
          "MGM wrong tag: existing output untouched")
    rc, out, err = run(["cipher", "kuznyechik-mgm", "-k", K, "--iv", nonce, "-d"], b"short")
    check(rc != 0 and out == b"" and "authentication failed" in err,
          "MGM input shorter than the tag", "rc=%d err=%r" % (rc, err))
    rc, out, err = run(["cipher", "kuznyechik-mgm", "-k", K, "--iv", nonce, "-d",
                        "-o", out_path], sealed)
    check(rc == 0 and out == b"" and open(out_path, "rb").read() == b"secret data",
          "MGM good tag: output replaced", "rc=%d err=%r" % (rc, err))
    leftovers = [f for f in os.listdir(tmp) if ".gostx-" in f]
    check(not leftovers, "no temporary files left behind", repr(leftovers))

    # Wrong --pad 2 data fails with exit 1.
    rc, out, err = run(["cipher", "kuznyechik-ecb", "-k", K, "--pad", "2", "-d"], b"\0" * 16)
    check(rc == 1 and "padding" in err, "bad padding detected", "rc=%d err=%r" % (rc, err))

    # -i and -o naming the same file (or a hard link to it) are refused
    # before any work, as in enc and dec: exit 2, the file untouched.
    same = os.path.join(tmp, "same.bin")
    data = rand_bytes(5000)
    with open(same, "wb") as f:
        f.write(data)
    os.link(same, same + ".hard")
    args = ["cipher", "magma-ctr", "-k", K, "--iv", "01020304"]
    rc1, _, err1 = run(args + ["-i", same, "-o", same])
    rc2, _, err2 = run(args + ["-d", "-i", same, "-o", same + ".hard"])
    check(rc1 == 2 and rc2 == 2 and "same file as the input" in err1 + err2
          and open(same, "rb").read() == data, "-i X -o X refused", err1 + err2)
    os.unlink(same + ".hard")
    # A new output file gets the usual permissions, not mkstemp's 0600.
    newf = os.path.join(tmp, "new.bin")
    old_mask = os.umask(0o022)
    try:
        rc, _, _ = run(args + ["-o", newf], b"abc")
    finally:
        os.umask(old_mask)
    check(rc == 0 and (os.stat(newf).st_mode & 0o777) == 0o644, "new output file mode 0644",
          oct(os.stat(newf).st_mode & 0o777) if os.path.exists(newf) else "missing")
    # XTS sectors: a last sector shorter than 16 bytes is an error, no output file.
    xo = os.path.join(tmp, "xts.bin")
    rc, out, err = run(["cipher", "kuznyechik-xts", "-k", "01" * 32 + "02" * 32, "--sector", "0",
                        "--sector-size", "512", "-o", xo], bytes(512 + 15))
    check(rc == 2 and "16 bytes" in err and not os.path.exists(xo),
          "XTS short last sector rejected, no output", "rc=%d err=%r" % (rc, err))
    rc, out, err = run(["cipher", "kuznyechik-xts", "-k", "01" * 64, "--sector", "0"], bytes(32))
    check(rc == 2 and "differ" in err, "XTS equal key halves rejected", "rc=%d err=%r" % (rc, err))
    # Option spellings: -kHEX, --key=HEX, --key HEX and "--" all mean the same.
    data = rand_bytes(100)
    outs = set()
    for form in (["-k" + K], ["--key=" + K], ["--key", K], ["-k", K, "--"]):
        rc, out, err = run(["cipher", "magma-ctr", "--iv=01020304"] + form, data)
        outs.add((rc, out))
    check(len(outs) == 1 and list(outs)[0][0] == 0, "option spellings agree")
    # An output that is a symbolic link: the file it points to is replaced.
    tgt = os.path.join(tmp, "target.bin")
    lnk = os.path.join(tmp, "link.bin")
    with open(tgt, "wb") as f:
        f.write(b"old")
    os.symlink("target.bin", lnk)
    rc, _, err = run(args + ["-o", lnk], b"new data")
    check(rc == 0 and os.path.islink(lnk) and os.path.getsize(tgt) == 8,
          "output through a symbolic link keeps the link", err)
    # Non-regular output (/dev/null) is written directly.
    rc, _, err = run(args + ["-o", "/dev/null"], b"abc")
    check(rc == 0, "output to /dev/null", err)


def test_help():
    for sub in ("hash", "cipher", "mac", "kdf", "info"):
        for flag in ("--help", "-h"):
            rc, out, err = run([sub, flag])
            check(rc == 0 and b"Usage" in out and err == "", "%s %s" % (sub, flag),
                  "rc=%d err=%r" % (rc, err))
    rc, out, _ = run(["--help"])
    check(rc == 0 and b"Usage" in out, "gostx --help")
    rc, out, _ = run(["--version"])
    check(rc == 0 and out.startswith(b"gostx "), "gostx --version")
    rc, out, err = run([])
    check(rc == 2, "gostx without arguments exits 2")
    rc, out, err = run(["info"])
    text = out.decode()
    check(rc == 0 and "kuznyechik" in text and "magma" in text and "streebog" in text,
          "gostx info", text)
    p = subprocess.run([GOSTX, "info"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       env=dict(os.environ, GOSTX_IMPL="portable"))
    text = p.stdout.decode()
    impl_lines = [l for l in text.splitlines() if l.split()[:1] in (["kuznyechik"], ["magma"],
                                                                   ["streebog"])]
    check(p.returncode == 0 and "GOSTX_IMPL: portable" in text and len(impl_lines) == 3
          and all(l.split()[-1] == "portable" for l in impl_lines),
          "gostx info with GOSTX_IMPL=portable", text)


def test_hash_files(tmp):
    files = []
    for i, size in enumerate((0, 1, 64, 65537, 200000)):
        p = os.path.join(tmp, "file%d.bin" % i)
        with open(p, "wb") as f:
            f.write(rand_bytes(size))
        files.append(p)
    for alg in ("streebog256", "streebog512"):
        rc, out, err = run(["hash", "-a", alg] + files)
        lines = out.decode().splitlines()
        check(rc == 0 and len(lines) == len(files), "hash %s of %d files" % (alg, len(files)), err)
        # Each line equals hashing the same bytes through stdin.
        ok = True
        for p, line in zip(files, lines):
            rc2, o2, _ = run(["hash", "-a", alg], open(p, "rb").read())
            ok = ok and line == o2.decode().replace("  -\n", "  " + p)
        check(ok, "hash %s: file equals stdin" % alg)
        lst = os.path.join(tmp, "list-%s.txt" % alg)
        with open(lst, "wb") as f:
            f.write(out)
        rc, out2, err = run(["hash", "-c", lst])
        text = out2.decode()
        check(rc == 0 and text.count(": OK") == len(files) and "FAILED" not in text,
              "hash -c good list (%s)" % alg, "rc=%d %r %r" % (rc, text, err))
        # Tamper with one file's digest.
        bad = bytearray(out)
        bad[3] = ord("0") if bad[3] != ord("0") else ord("1")
        with open(lst, "wb") as f:
            f.write(bytes(bad))
        rc, out2, err = run(["hash", "-c", lst])
        text = out2.decode()
        check(rc == 1 and text.count(": FAILED") == 1 and text.count(": OK") == len(files) - 1,
              "hash -c tampered list (%s)" % alg, "rc=%d %r" % (rc, text))
    # Tampered file content (list from stdin).
    rc, out, _ = run(["hash", files[1]])
    with open(files[1], "wb") as f:
        f.write(b"changed")
    rc, out2, err = run(["hash", "-c"], out)
    check(rc == 1 and b"FAILED" in out2, "hash -c detects a changed file", err)
    rc, out2, err = run(["hash", "-c"], b"not a checksum line\n")
    check(rc == 1 and "no properly formatted" in err, "hash -c with no valid lines", err)


def main():
    if not os.access(GOSTX, os.X_OK):
        print("gostx binary not found at %s" % GOSTX)
        return 77
    test_modes_3413()
    test_acpkm()
    test_mgm()
    test_streebog()
    test_hmac_kdf()
    test_pbkdf2()
    test_roundtrips()
    with tempfile.TemporaryDirectory() as tmp:
        test_errors(tmp)
    test_help()
    with tempfile.TemporaryDirectory() as tmp:
        test_hash_files(tmp)
    return finish()


if __name__ == "__main__":
    sys.exit(main())
