"""gostx.cms.enhance on the gostx command's PKI (esign_pki.py): BES to T
to X Long Type 1 with `gostx ts -reply` (a callable), a TSA reply given as
bytes, and `gostx ts serve` by URL; the validation data from `gostx ocsp`
(the responder) and `gostx ca -gencrl`; verify() reports the level reached
and `gostx cms -verify` still verifies the result. Refusals named: a
reply over other bytes, a CRL or OCSP response that is none, a changed
value in the result, two timestamps asked of one reply."""
import subprocess

import pytest

import gostx
from gostx import cms, ocsp

from conftest import read_port

DOC = b"a document signed for the long term\n" * 100


@pytest.fixture(scope="module")
def signed(esign):
    """A CAdES-BES of DOC by the signer, and its OCSP response."""
    signer, ca = esign.cert("signer"), esign.cert("ca")
    bes = cms.sign(DOC, signer, esign.key("signer"), cades=True)
    req = ocsp.request(signer, ca, nonce=False)
    return bes, esign.ocsp_respond(req, "signer_status")


def tsa(esign):
    return lambda query: esign.ts_reply(query, "enh")


def test_bes_to_t_to_x_long_type1(esign, signed):
    bes, resp = signed
    store = esign.store()
    assert cms.verify(bes, DOC, store=store).signers[0].level == cms.Level.BES
    t = cms.enhance(bes, DOC, to="T", tsa_reply=tsa(esign), store=store)
    got = cms.verify(t, DOC, store=store).signers[0]
    assert got.level == cms.Level.T and len(got.timestamps) == 1
    assert str(cms.Level.T) == "CAdES-T"
    xl1 = cms.enhance(t, DOC, to="XL1", tsa_reply=tsa(esign), store=store, ocsp_responses=[resp],
                      crls=[(esign.d / "ca.crl").read_bytes()])
    got = cms.verify(xl1, DOC, store=store).signers[0]
    assert got.level == cms.Level.X_LONG_TYPE1 and str(got.level) == "CAdES-X Long Type 1"
    assert got.timestamps == cms.verify(t, DOC, store=store).signers[0].timestamps
    # the chain, the CRL and the response are inside
    assert esign.cert("ca").public_bytes("DER") in xl1 and _crl_der(esign) in xl1
    assert resp[-64:] in xl1  # the BasicOCSPResponse (its signature) in revocation-values
    # BES straight to X Long Type 1 (two timestamps), PEM out; the command verifies it
    pem = cms.enhance(bes, DOC, tsa_reply=tsa(esign), store=store, ocsp_responses=[resp],
                      encoding="PEM")
    assert pem.startswith(b"-----BEGIN CMS-----")
    assert cms.verify(pem, DOC, store=store).signers[0].level == cms.Level.X_LONG_TYPE1
    (esign.d / "xl1.sig").write_bytes(xl1)
    (esign.d / "doc.txt").write_bytes(DOC)
    r = subprocess.run([esign.cli, "cms", "-verify", "-in", "xl1.sig", "-inform", "DER", "-content",
                        "doc.txt", "-CAfile", "ca.pem", "-out", "/dev/null"], cwd=esign.d,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    # enhancing again leaves it as it is
    assert cms.enhance(xl1, DOC, tsa_reply=tsa(esign), store=store) == xl1


def test_reply_as_bytes_and_by_url(esign, signed):
    bes, _ = signed
    store = esign.store()
    (esign.d / "bes.sig").write_bytes(bes)
    esign.run("cms", "-tsa-query", "q_bytes.tsq", "-in", "bes.sig", "-inform", "DER")
    reply = esign.ts_reply((esign.d / "q_bytes.tsq").read_bytes(), "bytes")
    t = cms.enhance(bes, DOC, to="T", tsa_reply=reply, store=store)
    assert cms.verify(t, DOC, store=store).signers[0].level == cms.Level.T
    with pytest.raises(gostx.GostxValueError):
        cms.enhance(bes, DOC, to="XL1", tsa_reply=reply, store=store, crls=[esign.path("ca.crl")])
    srv = subprocess.Popen([esign.cli, "ts", "serve", "-port", "0", "-signer", "tsa.pem", "-inkey",
                            "tsa.key", "-chain", "ca.pem", "-serial", "tsa.serial", "-threads", "1"],
                           cwd=esign.d, stderr=subprocess.PIPE, text=True)
    try:
        port = read_port(srv, r"listening on 127\.0\.0\.1:(\d+)")
        xl1 = cms.enhance(t, DOC, tsa_reply=f"http://127.0.0.1:{port}/", store=store,
                          crls=[esign.path("ca.crl")])
    finally:
        srv.terminate()
        srv.wait(timeout=20)
    assert cms.verify(xl1, DOC, store=store).signers[0].level == cms.Level.X_LONG_TYPE1


@pytest.mark.parametrize("curve", ["256A", "512A"])
def test_the_command_and_the_package_agree(esign, curve):
    """`gostx cms -enhance` and enhance() run one policy (libgostx's
    gostx_cades_enhance): fed the same TSA replies and revocation data,
    they ask the same queries (Streebog-512 ones for a 512-bit signer) and
    write the same bytes (the X Long, the TSAs' data in both tokens, the
    CAdES-C-time-stamp)."""
    n = f"agree{curve}"
    _issue(esign, n, "leaf.ext", curve)
    bes = cms.sign(DOC, esign.cert(n), esign.key(n), cades=True)
    resp = esign.ocsp_respond(ocsp.request(esign.cert(n), esign.cert("ca"), nonce=False), n)
    d = esign.d
    (d / f"{n}.bes").write_bytes(bes)
    (d / f"{n}.ocsp").write_bytes(resp)
    esign.run("cms", "-tsa-query", f"{n}.q1", "-in", f"{n}.bes", "-inform", "DER")
    esign.ts_reply((d / f"{n}.q1").read_bytes(), f"{n}_1")
    data = ["-to", "XL1", "-ocsp-resp", f"{n}.ocsp", "-CRLfile", "ca.crl", "-CAfile", "ca.pem",
            "-outform", "DER", "-out", f"{n}.xl1"]
    esign.run("cms", "-enhance", "-in", f"{n}.bes", "-inform", "DER", "-tsa-reply", f"{n}_1.tsr",
              "-tsa-query", f"{n}.q2", *data)
    esign.ts_reply((d / f"{n}.q2").read_bytes(), f"{n}_2")
    esign.run("cms", "-enhance", "-in", f"{n}.xl1", "-inform", "DER", "-tsa-reply", f"{n}_2.tsr",
              *data)
    replies, queries = [(d / f"{n}_{k}.tsr").read_bytes() for k in (1, 2)], []

    def tsa_reply(query):
        queries.append(query)
        return replies[len(queries) - 1]
    xl1 = cms.enhance(bes, DOC, tsa_reply=tsa_reply, store=esign.store(), ocsp_responses=[resp],
                      crls=[esign.path("ca.crl")])
    assert queries == [(d / f"{n}.q{k}").read_bytes() for k in (1, 2)]
    assert xl1 == (d / f"{n}.xl1").read_bytes()
    assert cms.verify(xl1, DOC, store=esign.store()).signers[0].level == cms.Level.X_LONG_TYPE1


def test_refusals_are_named(esign, signed):
    bes, resp = signed
    store = esign.store()
    esign.run("ts", "-query", "-digest", "00" * 32, "-cert", "-no_nonce", "-out", "other.tsq")
    other = esign.ts_reply((esign.d / "other.tsq").read_bytes(), "other")  # for other bytes
    with pytest.raises(cms.VerificationError) as e:
        cms.enhance(bes, DOC, to="T", tsa_reply=other, store=store)
    assert e.value.status == cms.Status.TS_IMPRINT_MISMATCH
    t = cms.enhance(bes, DOC, to="T", tsa_reply=tsa(esign), store=store)
    for kw, status in (({"crls": [b"\x30\x03\x02\x01\x01"]}, cms.Status.CADES_BAD_CRL),
                       ({"ocsp_responses": [esign.cert("ca").public_bytes("DER")]},
                        cms.Status.CADES_BAD_OCSP)):
        with pytest.raises(cms.VerificationError) as e:
            cms.enhance(t, DOC, tsa_reply=tsa(esign), store=store, **kw)
        assert e.value.status == status, e.value
    crl_pem = (esign.d / "ca.crl").read_bytes()
    xl1 = cms.enhance(t, DOC, tsa_reply=tsa(esign), store=store, crls=[crl_pem],
                      ocsp_responses=[resp])
    # the CRL's value changed inside the signature: its reference no longer matches
    bad = bytearray(xl1)
    crl_der = _crl_der(esign)
    at = bad.find(crl_der, bad.find(crl_der) + 1)  # the signer's (the first: in the token)
    assert at > 0
    bad[at + len(crl_der) - 5] ^= 1
    with pytest.raises(cms.VerificationError) as e:
        cms.verify(bytes(bad), DOC, store=store)
    assert e.value.status == cms.Status.CADES_REV_HASH_MISMATCH and isinstance(e.value, gostx.GostxError)
    with pytest.raises(gostx.GostxValueError):
        cms.enhance(t, DOC, to="X", tsa_reply=tsa(esign), store=store)
    with pytest.raises(gostx.GostxTypeError):
        cms.enhance(t, DOC, tsa_reply=42, store=store)
    with pytest.raises(cms.VerificationError) as e:
        cms.enhance(t, DOC + b"changed", tsa_reply=tsa(esign), store=store)
    assert e.value.status == cms.Status.DIGEST_MISMATCH


def _crl_der(esign):
    import base64
    text = (esign.d / "ca.crl").read_text()
    body = text.split("-----BEGIN X509 CRL-----")[1].split("-----END X509 CRL-----")[0]
    return base64.b64decode("".join(body.split()))


def _issue_revoked(esign, name, when, ext="leaf.ext"):
    """A certificate from `gostx ca` (a signer's by default), then marked
    revoked at when (openssl's index time YYMMDDHHMMSSZ) in the index the
    responder reads."""
    _issue(esign, name, ext)
    index = esign.d / "index.txt"
    lines = index.read_text().splitlines()
    hexserial = format(esign.cert(name).serial_number, "X")
    for k, line in enumerate(lines):
        f = line.split("\t")
        if f[3].lstrip("0").upper() == hexserial.lstrip("0"):
            f[0], f[2] = "R", f"{when},keyCompromise"
            lines[k] = "\t".join(f)
    index.write_text("\n".join(lines) + "\n")


@pytest.mark.parametrize("revoked_before", [True, False])
def test_revocation_judged_at_the_timestamps_time(esign, revoked_before):
    """An X Long Type 1 whose signer the OCSP value calls revoked: before
    the signature-time-stamp it fails verification (REVOKED, named), after
    it (a revocation dated a day later) it verifies."""
    import datetime
    name = "early" if revoked_before else "late"
    when = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(
        days=-1 if revoked_before else 1)
    _issue_revoked(esign, name, when.strftime("%y%m%d%H%M%SZ"))
    cert, ca, store = esign.cert(name), esign.cert("ca"), esign.store()
    sig = cms.sign(DOC, cert, esign.key(name), cades=True)
    resp = esign.ocsp_respond(ocsp.request(cert, ca, nonce=False), f"{name}_status")
    assert ocsp.check(resp, cert, ca).status == "revoked"
    if not revoked_before:
        xl1 = cms.enhance(sig, DOC, tsa_reply=tsa(esign), store=store, ocsp_responses=[resp])
        assert cms.verify(xl1, DOC, store=store).signers[0].level == cms.Level.X_LONG_TYPE1
        return
    with pytest.raises(cms.VerificationError) as e:  # enhance judges it too, as the command does
        cms.enhance(sig, DOC, tsa_reply=tsa(esign), store=store, ocsp_responses=[resp])
    assert e.value.x509_status == gostx.x509.Status.REVOKED and e.value.depth == 0
    with pytest.warns(UserWarning, match="keyCompromise"):
        xl1 = cms.enhance(sig, DOC, tsa_reply=tsa(esign), store=store, ocsp_responses=[resp],
                          noverify=True)
    with pytest.raises(cms.VerificationError) as e:
        cms.verify(xl1, DOC, store=store)
    assert e.value.status == cms.Status.CHAIN and e.value.x509_status == gostx.x509.Status.REVOKED
    assert "keyCompromise" in e.value.why


def test_x_long_without_revocation_data_is_refused(esign, signed):
    bes, _ = signed
    store = esign.store()
    with pytest.raises(cms.VerificationError) as e:  # no CRL, no OCSP response
        cms.enhance(bes, DOC, tsa_reply=tsa(esign), store=store)
    assert e.value.x509_status == gostx.x509.Status.CRL_UNAVAILABLE
    with pytest.warns(UserWarning):
        xl1 = cms.enhance(bes, DOC, tsa_reply=tsa(esign), store=store, noverify=True)
    with pytest.raises(cms.VerificationError) as e:
        cms.verify(xl1, DOC, store=store)
    assert e.value.x509_status == gostx.x509.Status.CRL_UNAVAILABLE


def test_revoked_by_the_crl_value(esign):
    """The certificate `gostx ca -revoke` revoked before it signed, its CRL
    (`gostx ca -gencrl`) the only revocation value: refused, by name."""
    cert, store = esign.cert("revoked"), esign.store()
    sig = cms.sign(DOC, cert, esign.key("revoked"), cades=True)
    with pytest.raises(cms.VerificationError) as e:
        cms.enhance(sig, DOC, tsa_reply=tsa(esign), store=store, crls=[esign.path("ca.crl")])
    assert e.value.x509_status == gostx.x509.Status.REVOKED
    with pytest.warns(UserWarning):
        xl1 = cms.enhance(sig, DOC, tsa_reply=tsa(esign), store=store, crls=[esign.path("ca.crl")],
                          noverify=True)
    with pytest.raises(cms.VerificationError) as e:
        cms.verify(xl1, DOC, store=store)
    assert e.value.x509_status == gostx.x509.Status.REVOKED and "keyCompromise" in e.value.why


def test_intermediate_revoked_before_the_timestamp(esign):
    """root -> sub CA -> signer; the root's CRL revokes the sub CA before
    the signature-time-stamp, the sub CA's CRL says the signer is good:
    the whole path is judged, so verify refuses it at depth 1 (the signer's
    own status alone passed). The same data given by the caller to a
    CAdES-T is judged the same way, and the root's OCSP responder's word
    as its CRL's."""
    d = esign.d
    (d / "subca.ext").write_text("basicConstraints = critical,CA:TRUE\n"
                                 "keyUsage = critical,keyCertSign,cRLSign\n")
    for name, ca, index, ext in (("subca", "ca", "index.txt", "subca.ext"),
                                 ("subleaf", "subca", "sub_index.txt", "leaf.ext")):
        esign.run("genpkey", "-c", "256A", "-o", f"{name}.key")
        esign.run("req", "-new", "-key", f"{name}.key", "-subj", f"/CN={name}", "-out", f"{name}.csr")
        esign.run("ca", "-in", f"{name}.csr", "-cert", f"{ca}.pem", "-keyfile", f"{ca}.key",
                  "-index", index, "-extfile", ext, "-out", f"{name}.pem")
    esign.run("ca", "-gencrl", "-cert", "subca.pem", "-keyfile", "subca.key", "-index",
              "sub_index.txt", "-out", "subca.crl")
    cert, sub, store = esign.cert("subleaf"), esign.cert("subca"), esign.store()
    sig = cms.sign(DOC, cert, esign.key("subleaf"), cades=True, chain=[sub])
    esign.run("ca", "-revoke", "subca.pem", "-index", "index.txt", "-cert", "ca.pem",
              "-crl_reason", "cACompromise")
    esign.run("ca", "-gencrl", "-cert", "ca.pem", "-keyfile", "ca.key", "-index", "index.txt",
              "-out", "root2.crl")
    t = cms.enhance(sig, DOC, to="T", tsa_reply=tsa(esign), store=store)
    crls = [esign.path("root2.crl"), esign.path("subca.crl")]
    # enhance judges the whole path with the data before it adds it (the
    # sub CA's own CRL says the signer is good)
    with pytest.raises(cms.VerificationError) as e:
        cms.enhance(t, DOC, tsa_reply=tsa(esign), store=store, crls=crls)
    assert e.value.status == cms.Status.CHAIN and e.value.depth == 1, e.value
    assert e.value.x509_status == gostx.x509.Status.REVOKED and "CACompromise" in e.value.why
    with pytest.warns(UserWarning, match="CACompromise"):
        xl1 = cms.enhance(t, DOC, tsa_reply=tsa(esign), store=store, crls=crls, noverify=True)
    for got, kw in ((xl1, {}), (t, {"crls": crls})):
        with pytest.raises(cms.VerificationError) as e:
            cms.verify(got, DOC, store=store, **kw)
        assert e.value.status == cms.Status.CHAIN and e.value.depth == 1, e.value
        assert e.value.x509_status == gostx.x509.Status.REVOKED and "CACompromise" in e.value.why
        assert "at the signature timestamp's time" in e.value.why
    # the root's responder says so instead of its CRL
    resp = esign.ocsp_respond(ocsp.request(sub, esign.cert("ca"), nonce=False), "subca_status")
    with pytest.raises(cms.VerificationError) as e:
        cms.enhance(t, DOC, tsa_reply=tsa(esign), store=store, ocsp_responses=[resp],
                    crls=[esign.path("subca.crl")])
    assert e.value.x509_status == gostx.x509.Status.REVOKED and e.value.depth == 1
    with pytest.warns(UserWarning):
        xl1 = cms.enhance(t, DOC, tsa_reply=tsa(esign), store=store, ocsp_responses=[resp],
                          crls=[esign.path("subca.crl")], noverify=True)
    with pytest.raises(cms.VerificationError) as e:
        cms.verify(xl1, DOC, store=store)
    assert e.value.x509_status == gostx.x509.Status.REVOKED and e.value.depth == 1
    assert "by OCSP" in e.value.why
    # the sub CA's status alone missing: no revocation data for it, by name
    with pytest.raises(cms.VerificationError) as e:
        cms.verify(t, DOC, store=store, crls=[esign.path("subca.crl")])
    assert e.value.x509_status == gostx.x509.Status.CRL_UNAVAILABLE and e.value.depth == 1


@pytest.mark.parametrize("revoked", ["before", "after", None])
def test_the_tsas_own_data(esign, signed, revoked):
    """A TSA's CRL goes into its tokens (RFC 5126 Annex B.2) and verify
    judges the TSA with it: a TSA revoked a day before is refused by
    enhance and, made with noverify, by verify (by name); revoked a day
    after, or good, it verifies."""
    import datetime
    bes, resp = signed
    store = esign.store()
    name = f"tsa_{revoked}"
    if revoked is None:
        name = "tsa_good"
        _issue(esign, name, "tsa.ext")
    else:
        days = -1 if revoked == "before" else 1
        when = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(days=days)
        _issue_revoked(esign, name, when.strftime("%y%m%d%H%M%SZ"), "tsa.ext")
    esign.run("ca", "-gencrl", "-cert", "ca.pem", "-keyfile", "ca.key", "-index", "index.txt",
              "-crldays", "1", "-out", f"{name}.crl")
    crl = (esign.d / f"{name}.crl").read_bytes()

    def by(query):  # the signature-time-stamp by this TSA, the CAdES-C one by the usual
        (esign.d / f"{name}.tsq").write_bytes(query)
        first = not (esign.d / f"{name}.tsr").exists()
        who = name if first else "tsa"
        esign.run("ts", "-reply", "-queryfile", f"{name}.tsq", "-signer", f"{who}.pem", "-inkey",
                  f"{who}.key", "-serial", "tsa.serial", "-out", f"{name}.tsr")
        out = (esign.d / f"{name}.tsr").read_bytes()
        if not first:
            (esign.d / f"{name}.tsr").unlink()
        return out

    kw = dict(tsa_reply=by, store=store, ocsp_responses=[resp], crls=[crl])
    if revoked == "before":
        with pytest.raises(cms.VerificationError) as e:
            cms.enhance(bes, DOC, **kw)
        assert e.value.x509_status == gostx.x509.Status.REVOKED
        assert "signature timestamp 1: the TSA's certificate" in e.value.why
        (esign.d / f"{name}.tsr").unlink()
        with pytest.warns(UserWarning, match="signature timestamp 1"):
            xl1 = cms.enhance(bes, DOC, noverify=True, **kw)
        with pytest.raises(cms.VerificationError) as e:
            cms.verify(xl1, DOC, store=store)
        assert e.value.status == cms.Status.CHAIN and e.value.x509_status == gostx.x509.Status.REVOKED
        assert e.value.why.startswith("signature timestamp 1: the TSA's certificate at")
        assert "keyCompromise" in e.value.why
        return
    xl1 = cms.enhance(bes, DOC, **kw)
    der = _der_of(crl)
    # the signer's revocation-values, the signature-time-stamp's token, the CAdES-C one's
    assert xl1.count(der) == 3
    assert cms.verify(xl1, DOC, store=store).signers[0].level == cms.Level.X_LONG_TYPE1
    # two days on, past the CRL's nextUpdate: the CAdES-C-time-stamp's TSA,
    # judged then, is judged at its token's time instead
    later = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(days=2)
    assert cms.verify(xl1, DOC, store=store, at=later).signers[0].level == cms.Level.X_LONG_TYPE1


def _der_of(pem):
    import base64
    body = pem.split(b"-----BEGIN X509 CRL-----")[1].split(b"-----END X509 CRL-----")[0]
    return base64.b64decode(b"".join(body.split()))


def _issue(esign, name, ext, curve="256A"):
    esign.run("genpkey", "-c", curve, "-o", f"{name}.key")
    esign.run("req", "-new", "-key", f"{name}.key", "-subj", f"/CN={name}", "-out", f"{name}.csr")
    esign.run("ca", "-in", f"{name}.csr", "-cert", "ca.pem", "-keyfile", "ca.key", "-index",
              "index.txt", "-extfile", ext, "-out", f"{name}.pem")


def test_openssl_ts_as_the_tsa(esign, signed):
    """`openssl ts -reply` (gost-engine, the TSA's GOST key) answers both
    timestamps of an X Long Type 1."""
    from esign_pki import ENGINE_CNF, openssl_gost
    env = openssl_gost()
    if env is None:
        pytest.skip("openssl with gost-engine is needed")
    cnf = esign.d / "ts.cnf"
    cnf.write_text(f".include {ENGINE_CNF}\n[tsa]\ndefault_tsa = gost_tsa\n[gost_tsa]\n"
                   "serial = ./ossl.serial\nsigner_cert = ./tsa.pem\nsigner_key = ./tsa.key\n"
                   "certs = ./ca.pem\nsigner_digest = md_gost12_256\n"
                   "default_policy = 1.2.643.100.1\ndigests = md_gost12_256, md_gost12_512\n"
                   "accuracy = secs:1\ness_cert_id_alg = md_gost12_256\n")
    env = dict(env, OPENSSL_CONF=str(cnf))

    def openssl_tsa(query):
        (esign.d / "o.tsq").write_bytes(query)
        subprocess.run(["openssl", "ts", "-reply", "-queryfile", "o.tsq", "-out", "o.tsr"],
                       cwd=esign.d, env=env, check=True, capture_output=True, timeout=60)
        return (esign.d / "o.tsr").read_bytes()

    bes, resp = signed
    store = esign.store()
    xl1 = cms.enhance(bes, DOC, tsa_reply=openssl_tsa, store=store, ocsp_responses=[resp])
    assert cms.verify(xl1, DOC, store=store).signers[0].level == cms.Level.X_LONG_TYPE1


def test_x_long_type1_after_its_certificates_expire(cli, tmp_path):
    """RFC 5126 6.3.2 note 2 (tests/test_cades_expiry.sh's PKI): a root, a
    4-day signers' CA, a 2-day signer, a 3-day and a 1-year TSA. Ten days on
    the signer's path is judged at the signature-time-stamp's time and the
    first TSA at the CAdES-C-time-stamp's: it verifies. The CAdES-C
    timestamp's own TSA expired by then (the 3-day one for both) is refused."""
    import time

    from esign_pki import Pki
    from gostx import x509

    p = Pki(cli, tmp_path)
    p.run("genpkey", "-c", "256A", "-o", "root.key")
    p.run("req", "-x509", "-ca", "-key", "root.key", "-subj", "/CN=Root", "-days", "3650", "-out", "root.pem")
    exts = {"ca": "basicConstraints = critical,CA:TRUE\nkeyUsage = critical,keyCertSign,cRLSign\n",
            "leaf": "keyUsage = critical,digitalSignature,nonRepudiation\n",
            "tsa": "basicConstraints = CA:FALSE\nkeyUsage = critical,digitalSignature\n"
                   "extendedKeyUsage = critical,timeStamping\n"}
    for kind, text in exts.items():
        (tmp_path / f"{kind}.ext").write_text(text)
    for name, ca, kind, days in (("subca", "root", "ca", 4), ("signer", "subca", "leaf", 2),
                                 ("tsa_short", "root", "tsa", 3), ("tsa_long", "root", "tsa", 365)):
        p.run("genpkey", "-c", "256A", "-o", f"{name}.key")
        p.run("req", "-new", "-key", f"{name}.key", "-subj", f"/CN={name}", "-out", f"{name}.csr")
        p.run("ca", "-in", f"{name}.csr", "-cert", f"{ca}.pem", "-keyfile", f"{ca}.key", "-index",
              f"{ca}.index", "-days", str(days), "-extfile", f"{kind}.ext", "-out", f"{name}.pem")
    for ca in ("root", "subca"):
        p.run("ca", "-gencrl", "-cert", f"{ca}.pem", "-keyfile", f"{ca}.key", "-index", f"{ca}.index",
              "-crldays", "30", "-out", f"{ca}.crl")
    store = x509.Store()
    store.load_verify_locations(cafile=p.path("root.pem"))

    def by(*tsas):  # the TSA of each timestamp asked, in turn
        names = list(tsas)

        def reply(query):
            name = names.pop(0)
            (tmp_path / "q.tsq").write_bytes(query)
            p.run("ts", "-reply", "-queryfile", "q.tsq", "-signer", f"{name}.pem", "-inkey", f"{name}.key",
                  "-serial", f"{name}.serial", "-out", "r.tsr")
            return (tmp_path / "r.tsr").read_bytes()
        return reply

    bes = cms.sign(DOC, p.cert("signer"), p.key("signer"), cades=True, chain=[p.cert("subca")])
    crls = [p.path("subca.crl"), p.path("root.crl")]
    good = cms.enhance(bes, DOC, tsa_reply=by("tsa_short", "tsa_long"), store=store, crls=crls)
    short = cms.enhance(bes, DOC, tsa_reply=by("tsa_short", "tsa_short"), store=store, crls=crls)
    later = time.time() + 10 * 86400
    assert cms.verify(good, DOC, store=store).signers[0].level == cms.Level.X_LONG_TYPE1
    assert cms.verify(good, DOC, store=store, at=later).signers[0].level == cms.Level.X_LONG_TYPE1
    assert cms.verify(short, DOC, store=store).signers[0].level == cms.Level.X_LONG_TYPE1
    with pytest.raises(cms.VerificationError) as e:
        cms.verify(short, DOC, store=store, at=later)
    assert e.value.status == cms.Status.CADES_ESC_TIMESTAMP and "expired" in str(e.value)
    # a CAdES-T of the same signer has no values: judged at `at`, expired
    t = cms.enhance(bes, DOC, to="T", tsa_reply=by("tsa_long"), store=store)
    with pytest.raises(cms.VerificationError) as e:
        cms.verify(t, DOC, store=store, at=later)
    assert e.value.status == cms.Status.CHAIN and "expired" in str(e.value)
