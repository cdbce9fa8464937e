#!/usr/bin/env python3
"""Re-sign x509-limbo's test cases with GOST R 34.10-2012 keys.

x509-limbo (C2SP, Apache-2.0) is a suite of path validation cases whose
chains are RSA, ECDSA and Ed25519. gostx verifies GOST chains only, so each
case is rewritten here: every certificate's SubjectPublicKeyInfo becomes a
GOST R 34.10-2012 256-bit key and its signature a GOST one by its issuer's
GOST key; everything else in the certificate (version, serial, names,
validity, extensions, AKI/SKI bytes) stays byte for byte. The result,
limbo-gost.json.gz beside this script, is what tests/limbo/run.py runs.

This is an independent signer: gostcrypto (PyPI, pure Python) signs and
hashes, pyca cryptography finds who signed what in the original chains,
and the DER is taken apart and put together here. Nothing of gostx is used.

Usage (see README.md):
    python3 make_gost_limbo.py --limbo-checkout DIR [-o limbo-gost.json.gz]
(the bettertls:: cases go to limbo-gost-bettertls.json.gz beside -o)
    python3 make_gost_limbo.py --limbo-json limbo.json [-o ...]
"""
import argparse
import base64
import gzip
import hashlib
import json
import sys
from pathlib import Path

from cryptography import x509
from cryptography.exceptions import InvalidSignature, UnsupportedAlgorithm
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import dsa, ec, ed448, ed25519, padding, rsa
from gostcrypto import gosthash, gostsignature

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "support"))
from der import header, oid, seq, tlv  # noqa: E402  (tests/support/der.py: writer and reader)

# The families and cases left out, and why (the README repeats this).
SKIP_FAMILIES = {
    "webpki::": "the CA/Browser Forum web-PKI profile (key sizes, curves, EKU and SAN rules "
    "of the Baseline Requirements), not RFC 5280's: gostx checks RFC 5280 + GOST",
}
SKIP_FEATURES = {}

# OIDs as DER contents (RFC 9215, R 1323565.1.023).
OID_KEY_256 = "1.2.643.7.1.1.1.1"  # id-tc26-gost3410-12-256
OID_PARAMSET = "1.2.643.2.2.35.1"  # id-GostR3410-2001-CryptoPro-A-ParamSet (tc26 256 B)
OID_DIGEST_256 = "1.2.643.7.1.1.2.2"  # id-tc26-gost3411-12-256
OID_SIG_256 = "1.2.643.7.1.1.3.2"  # id-tc26-signwithdigest-gost3410-12-256
OID_SIG_512 = "1.2.643.7.1.1.3.3"  # ...-512: the outer algorithm where the original mismatched
CURVE_NAME = "id-tc26-gost-3410-2012-256-paramSetB"  # = CryptoPro A in gostcrypto's table


# ---- DER: splitting a certificate (der.py puts it back together) ----

def children(data):
    """The raw elements (header and content) of a constructed element's content."""
    out, pos = [], 0
    while pos < len(data):
        _, h, n = header(data, pos)
        out.append(data[pos:pos + h + n])
        pos += h + n
    return out


def content(elem):
    _, h, n = header(elem, 0)
    return elem[h:h + n]


# ---- GOST keys and signatures (gostcrypto) ----

CURVE = gostsignature.CURVES_R_1323565_1_024_2019[CURVE_NAME]
P, A, Q = (int(CURVE[k]) for k in ("p", "a", "q"))
SIGNER = gostsignature.new(gostsignature.MODE_256, CURVE)


def streebog256(data):
    return bytes(gosthash.new("streebog256", data=bytearray(data)).digest())


# gostcrypto multiplies in affine coordinates (an inversion per step: 56 ms a
# signature), too slow for bettertls's 30000 certificates. So k*G is done here
# from a table of 2^i*G in Jacobian coordinates, checked against gostcrypto
# at start, and every 97th signature is verified by gostcrypto.
def _double(x, y, z):
    if not y or not z:
        return 0, 1, 0
    yy = y * y % P
    s = 4 * x * yy % P
    m = (3 * x * x + A * pow(z, 4, P)) % P
    x3 = (m * m - 2 * s) % P
    return x3, (m * (s - x3) - 8 * yy * yy) % P, 2 * y * z % P


def _add_affine(x1, y1, z1, x2, y2):
    if not z1:
        return x2, y2, 1
    zz = z1 * z1 % P
    h, r = (x2 * zz - x1) % P, (y2 * z1 * zz - y1) % P
    if not h:
        return _double(x1, y1, z1) if not r else (0, 1, 0)
    hh = h * h % P
    hhh, v = h * hh % P, x1 * hh % P
    x3 = (r * r - hhh - 2 * v) % P
    return x3, (r * (v - x3) - y1 * hhh) % P, z1 * h % P


def _affine(x, y, z):
    zi = pow(z, P - 2, P)
    return x * zi * zi % P, y * zi * zi * zi % P


_TABLE = [(int(CURVE["x"]), int(CURVE["y"]))]
for _ in range(255):
    _TABLE.append(_affine(*_double(*_TABLE[-1], 1)))


def base_mul(k):
    acc = (0, 1, 0)
    for i in range(k.bit_length()):
        if k >> i & 1:
            acc = _add_affine(*acc, *_TABLE[i])
    return _affine(*acc)


_CHECK = 0x1234567890ABCDEF1234567890ABCDEF % Q
assert b"".join(v.to_bytes(32, "big") for v in base_mul(_CHECK)) == bytes(
    SIGNER.public_key_generate(bytearray(_CHECK.to_bytes(32, "big")))), "base_mul disagrees"


class GostKey:
    """A deterministic key made from a seed (the original key's SPKI)."""

    signed = 0

    def __init__(self, seed, on_curve=True):
        self.d = int.from_bytes(streebog256(b"x509-limbo GOST key\0" + seed), "big") % (Q - 1) + 1
        if on_curve:
            x, y = base_mul(self.d)
            self.xy = x.to_bytes(32, "big") + y.to_bytes(32, "big")
            self.point = self.xy[:32][::-1] + self.xy[32:][::-1]  # each little-endian in the SPKI
        else:
            # A malformed key stays malformed: the point (1, 1) is on no GOST curve.
            self.point = (1).to_bytes(32, "little") * 2

    def spki(self):
        alg = seq(oid(OID_KEY_256), seq(oid(OID_PARAMSET), oid(OID_DIGEST_256)))
        return seq(alg, tlv(0x03, b"\0" + tlv(0x04, self.point)))

    def sign(self, tbs):
        # GOST R 34.10-2012 section 6.1; the hash is read as a little-endian number
        # (RFC 7091, RFC 4491), k deterministic so a rerun writes the same bytes.
        h = streebog256(tbs)
        e = int.from_bytes(h, "little") % Q or 1
        k = int.from_bytes(streebog256(self.d.to_bytes(32, "big") + tbs), "big") % (Q - 1) + 1
        r = base_mul(k)[0] % Q
        s = (r * self.d + k * e) % Q
        assert r and s
        rs = r.to_bytes(32, "big") + s.to_bytes(32, "big")
        GostKey.signed += 1
        if GostKey.signed % 97 == 1:  # gostcrypto reads its digest big-endian
            assert SIGNER.verify(bytearray(self.xy), bytearray(h[::-1]), bytearray(rs)), "bad signature"
        return rs[32:] + rs[:32]  # certificates carry s || r (RFC 9215 section 2)


# ---- who signed what, in the original chains (pyca cryptography) ----

HASHES = [hashes.SHA256(), hashes.SHA384(), hashes.SHA512(), hashes.SHA1(), hashes.SHA224()]


def original_verifies(pub, cert):
    """True when pub verifies cert's signature, under the algorithm the certificate
    names or any usual hash (a case may name a wrong algorithm on purpose)."""
    sig, tbs = cert.signature, cert.tbs_certificate_bytes
    try:
        named = cert.signature_hash_algorithm
    except UnsupportedAlgorithm:
        named = None
    for h in ([named] if named else []) + HASHES:
        try:
            if isinstance(pub, rsa.RSAPublicKey):
                try:
                    pad = cert.signature_algorithm_parameters
                except Exception:
                    pad = None
                for p in [pad, padding.PKCS1v15()] if isinstance(pad, padding.PSS) else [padding.PKCS1v15()]:
                    try:
                        pub.verify(sig, tbs, p, h)
                        return True
                    except InvalidSignature:
                        pass
                continue
            if isinstance(pub, ec.EllipticCurvePublicKey):
                pub.verify(sig, tbs, ec.ECDSA(h))
            elif isinstance(pub, dsa.DSAPublicKey):
                pub.verify(sig, tbs, h)
            elif isinstance(pub, (ed25519.Ed25519PublicKey, ed448.Ed448PublicKey)):
                pub.verify(sig, tbs)
            else:
                return False
            return True
        except (InvalidSignature, ValueError, TypeError, UnsupportedAlgorithm):
            continue
    return False


class Cert:
    def __init__(self, der):
        self.der = der
        tbs, self.outer_alg, _ = children(content(der))
        self.tbs_items = children(content(tbs))
        self.off = 1 if self.tbs_items[0][0] == 0xA0 else 0  # [0] version present
        self.inner_alg = self.tbs_items[self.off + 1]
        self.issuer = self.tbs_items[self.off + 2]
        self.subject = self.tbs_items[self.off + 4]
        self.spki = self.tbs_items[self.off + 5]
        self.py = x509.load_der_x509_certificate(der)
        try:
            self.pub = serialization.load_der_public_key(self.spki)
        except (ValueError, UnsupportedAlgorithm):
            self.pub = None  # a malformed or unsupported key on purpose

    def resign(self, key, issuer_key):
        """The certificate with key's SPKI, signed by issuer_key."""
        alg = seq(oid(OID_SIG_256))
        items = list(self.tbs_items)
        items[self.off + 1] = alg
        items[self.off + 5] = key.spki()
        tbs = seq(*items)
        outer = alg if self.inner_alg == self.outer_alg else seq(oid(OID_SIG_512))
        return seq(tbs, outer, tlv(0x03, b"\0" + issuer_key.sign(tbs)))


def pem_ders(pem, kind="CERTIFICATE"):
    blocks = pem.split("-----BEGIN %s-----" % kind)[1:]
    return [base64.b64decode("".join(b.split("-----END")[0].split())) for b in blocks]


def resign_crl(der, key):
    """The CRL's TBSCertList with GOST's signature algorithm, signed by key."""
    tbs, _, _ = children(content(der))
    items = children(content(tbs))
    at = 1 if items[0][0] == 0x02 else 0  # version present (v2)
    alg = seq(oid(OID_SIG_256))
    items[at] = alg
    tbs = seq(*items)
    return seq(tbs, alg, tlv(0x03, b"\0" + key.sign(tbs)))


def skip_reason(tc):
    for prefix, why in SKIP_FAMILIES.items():
        if tc["id"].startswith(prefix):
            return why
    for f in tc.get("features") or []:
        if f in SKIP_FEATURES:
            return SKIP_FEATURES[f]
    return None


WEAK_HASHES = ("sha1", "md5")


def algorithm_point(tc):
    """Why the case is about its original algorithms, or None. A SHA-1 or MD5
    signature on a certificate that is not self-signed is such a point
    (bettertls's INVALID_REASON_DEPRECATED_CRYPTO): re-signed with Streebog it
    would be gone."""
    for pem in tc["trusted_certs"] + tc["untrusted_intermediates"] + [tc["peer_certificate"]]:
        for der in pem_ders(pem):
            c = x509.load_der_x509_certificate(der)
            try:
                h = c.signature_hash_algorithm
            except UnsupportedAlgorithm:
                h = None
            if h is not None and h.name in WEAK_HASHES and c.issuer != c.subject:
                return "a %s signature (deprecated crypto): re-signing with Streebog removes it" % h.name
    return None


def convert(tc, keys):
    """The case with its certificates re-signed, and notes on what had no signer."""
    groups = {
        "trusted": [d for p in tc["trusted_certs"] for d in pem_ders(p)],
        "untrusted": [d for p in tc["untrusted_intermediates"] for d in pem_ders(p)],
        "peer": pem_ders(tc["peer_certificate"]),
    }
    certs = {d: Cert(d) for g in groups.values() for d in g}

    def key_of(c):
        if c.spki not in keys:
            keys[c.spki] = GostKey(c.spki, on_curve=c.pub is not None)
        return keys[c.spki]

    notes = []

    def issuer_key(c):
        named = [o for o in certs.values() if o.subject == c.issuer]
        others = [o for o in certs.values() if o.subject != c.issuer]
        for o in named + others:  # a key that verifies the original signature
            if o.pub is not None and original_verifies(o.pub, c.py):
                return key_of(o)
        # Nobody in the case signed it (a broken signature, an issuer left out):
        # a key nobody in the case holds keeps it so.
        notes.append("no signer in the case for " + c.py.subject.rfc4514_string())
        return GostKey(b"phantom\0" + c.issuer + c.der)

    new = {d: c.resign(key_of(c), issuer_key(c)) for d, c in certs.items()}
    crls = []
    for der in (d for p in tc.get("crls") or [] for d in pem_ders(p, "X509 CRL")):
        crl = x509.load_der_x509_crl(der)
        signer = [o for o in certs.values() if o.pub is not None and crl.is_signature_valid(o.pub)]
        if not signer:
            notes.append("no signer in the case for a CRL")
        crls.append(resign_crl(der, key_of(signer[0]) if signer else GostKey(b"phantom\0" + der)))
    b64 = lambda d: base64.b64encode(new[d]).decode()
    names = list(tc.get("expected_peer_names") or [])
    if tc.get("expected_peer_name") and tc["expected_peer_name"] not in names:
        names.insert(0, tc["expected_peer_name"])
    out = {
        "id": tc["id"],
        "expected_result": tc["expected_result"],
        "validation_kind": tc["validation_kind"],
        "validation_time": tc.get("validation_time"),
        "extended_key_usage": tc.get("extended_key_usage") or [],
        "key_usage": tc.get("key_usage") or [],
        "peer_names": names,
        "max_chain_depth": tc.get("max_chain_depth"),
        "features": tc.get("features") or [],
        "trusted": [b64(d) for d in groups["trusted"]],
        "untrusted": [b64(d) for d in groups["untrusted"]],
        "peer": b64(groups["peer"][0]),
    }
    if crls:
        out["crls"] = [base64.b64encode(d).decode() for d in crls]
    if notes:
        out["notes"] = sorted(set(notes))
    return out


def limbo_from_checkout(checkout, families=None):
    """Run limbo's generator (its `compile` step, in this process) from a checkout;
    with families, bettertls:: and online:: only when named (their modules need
    more packages)."""
    sys.path.insert(0, str(checkout))
    from limbo import testcases  # noqa: E402
    from limbo.models import Limbo  # noqa: E402

    wanted = lambda fam: not families or fam in families
    if wanted("bettertls::"):
        from limbo.testcases import bettertls  # noqa: E402
        if (Path(checkout) / "limbo/_assets/bettertls.json").is_file():
            bettertls.register_testcases()
        else:
            print("note: limbo/_assets/bettertls.json absent: no bettertls:: cases", file=sys.stderr)
    if wanted("online::"):
        from limbo.testcases import online  # noqa: E402
        online.register_testcases()
    cases = [make() for cid, make in testcases.registry.items()
             if not families or any(cid.startswith(f) for f in families)]
    return json.loads(Limbo(version=1, testcases=cases).model_dump_json())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--limbo-checkout", type=Path, help="an x509-limbo checkout to run")
    src.add_argument("--limbo-json", type=Path, help="a limbo.json made by `limbo compile`")
    ap.add_argument("--source", default="", help="what the cases came from (a commit), recorded")
    ap.add_argument("-o", "--output", type=Path, default=HERE / "limbo-gost.json.gz")
    ap.add_argument("--family", action="append",
                    help="only the cases of this family (crl::, ...; repeatable): the others' "
                    "files are left as they are")
    args = ap.parse_args()
    if args.limbo_checkout:
        limbo = limbo_from_checkout(args.limbo_checkout, args.family)
    else:
        limbo = json.loads(args.limbo_json.read_text())

    keys, cases, skipped = {}, [], []
    for tc in sorted(limbo["testcases"], key=lambda t: t["id"]):
        if args.family and not any(tc["id"].startswith(f) for f in args.family):
            continue
        why = skip_reason(tc) or algorithm_point(tc)
        if why:
            skipped.append({"id": tc["id"], "reason": why})
            continue
        cases.append(convert(tc, keys))
        print("re-signed", tc["id"], file=sys.stderr)
    # bettertls's thousands in a file of their own: its bytes change only when
    # bettertls.json does (keys and k are derived, so the output is reproducible);
    # the CRL cases too (added later, from a newer limbo than the others)
    apart = ("bettertls::", "crl::")
    parts = {args.output: lambda c: not c.startswith(apart)}
    for fam in apart:
        name = args.output.name.replace(".json", "-%s.json" % fam.rstrip(":"))
        parts[args.output.with_name(name)] = lambda c, fam=fam: c.startswith(fam)
    for path, mine in parts.items():
        if not any(mine(c["id"]) for c in cases):
            print(f"no such cases: {path} left as it is", file=sys.stderr)
            continue
        doc = {
            "about": "x509-limbo (C2SP, Apache-2.0) cases re-signed with GOST R 34.10-2012 "
            "256-bit keys by tests/limbo/make_gost_limbo.py",
            "source": args.source,
            "cases": [c for c in cases if mine(c["id"])],
            "skipped": [s for s in skipped if mine(s["id"])],
        }
        raw = json.dumps(doc, separators=(",", ":"), sort_keys=True).encode()
        with open(path, "wb") as f, gzip.GzipFile(fileobj=f, mode="wb", mtime=0, filename="") as z:
            z.write(raw)
        print(f"{len(doc['cases'])} cases, {len(doc['skipped'])} skipped -> {path} "
              f"(sha256 {hashlib.sha256(raw).hexdigest()[:16]})", file=sys.stderr)


if __name__ == "__main__":
    main()
