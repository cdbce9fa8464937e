"""gostx.xmldsig (lxml + gostx) against `gostx xml` (libxml2 + libgostx-xmldsig):
each signs, the other verifies, and both say the same octets were signed,
for every form (enveloped, enveloping, detached, WS-Security), 256 and 512
bits, exclusive and inclusive c14n, the SMEV transform (written twice: C and
Python); the public CryptoPro SMEV 3 sample (GOST 2001, s || r); and the
refusals: wrapping (moved, duplicated Id, a copy of the Signature, the Reference
to another element), DOCTYPEs, XPath, a chain to no anchor; SMEV 3's response
of two signatures, each verified and named; #WithComments after "" and "#Id"
(no comment signed)."""
import base64
import pathlib
import re
import subprocess
import time

import pytest

lxml = pytest.importorskip("lxml")  # noqa: F841 (scripts/ci_python.sh installs it)
import gostx  # noqa: E402
xmldsig = pytest.importorskip("gostx.xmldsig", reason="gostx built without libxml2")
from gostx import x509  # noqa: E402
from gostx.hash import streebog256  # noqa: E402
from gostx.xmldsig import XMLSignatureError  # noqa: E402
from lxml import etree  # noqa: E402

REPO = pathlib.Path(__file__).resolve().parents[2]
SAMPLE = REPO / "tests" / "vectors" / "xmldsig" / "smev3-ack-cryptopro-2001.xml"
DOC = (b'<?xml version="1.0" encoding="UTF-8"?>\n<root xmlns="urn:a" xmlns:b="urn:b"><!-- c -->'
       b'<b:data Id="d1">hello <x a="1"/></b:data><other>unsigned</other></root>\n')
SOAP = (b'<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>'
        b'<m:Req xmlns:m="urn:m" b="2" a="1">hello</m:Req></soap:Body></soap:Envelope>')
SMEV = (b'<?pi x?><S:Envelope xmlns:S="urn:env" xmlns:unused="urn:u">\n  <S:Body>\n'
        b'    <m:Req xmlns:m="urn:m" xmlns="urn:d" Id="req" b="2" a="1" m:z="3" S:y="4">\n'
        b'      <Empty/>\n      <m:Text>a &amp; b &lt; c &gt; d</m:Text>\n    </m:Req>\n'
        b'  </S:Body>\n</S:Envelope>')
SMEV_OCTETS = (b'<ns1:Req xmlns:ns1="urn:m" xmlns:ns2="urn:env" ns2:y="4" ns1:z="3" Id="req" a="1" '
               b'b="2"><ns3:Empty xmlns:ns3="urn:d"></ns3:Empty><ns1:Text>a &amp; b &lt; c > d'
               b'</ns1:Text></ns1:Req>')

# the SMEV transform's rules where a wrong one shows: attributes whose order
# by namespace URI is not their order by local name, a namespace first needed
# by an attribute, escapes in text and attributes, a CR, text split by a comment
SMEV2 = (b'<e:Env xmlns:e="urn:e"><m:Req xmlns:m="urn:m" xmlns:a="urn:z-last" xmlns:z="urn:a-first" '
         b'Id="r" z:b="1" a:a="x&gt;y&quot;&#9;" c="3" m:d="4"><m:x z:q="1" a:p="2"/>\n\t'
         b'<m:y>t&#13;\n"q" &gt;<!-- c --> more</m:y><m:w xmlns:m="urn:other"/></m:Req>'
         b'<e:CallerSignature/></e:Env>')

class Pki:
    """A CA and a leaf per curve, made with the gostx command."""

    def __init__(self, cli, d):
        self.cli, self.d = cli, d
        (d / "leaf.ext").write_text("basicConstraints = CA:FALSE\nkeyUsage = digitalSignature\n")

    def run(self, *args):
        r = subprocess.run([self.cli, *map(str, args)], capture_output=True, cwd=self.d)
        return r.returncode, r.stdout, r.stderr.decode(errors="replace")

    def make(self, name, curve):
        d = self.d
        for args in (("genpkey", "-c", curve, "-o", f"{name}-ca.key"),
                     ("req", "-x509", "-ca", "-key", f"{name}-ca.key", "-subj", f"/CN={name} CA",
                      "-days", "30", "-out", f"{name}-ca.pem"),
                     ("genpkey", "-c", curve, "-o", f"{name}.key"),
                     ("req", "-new", "-key", f"{name}.key", "-subj", f"/CN={name}", "-out",
                      f"{name}.csr"),
                     ("x509", "-req", "-in", f"{name}.csr", "-CA", f"{name}-ca.pem", "-CAkey",
                      f"{name}-ca.key", "-days", "10", "-extfile", "leaf.ext", "-out",
                      f"{name}.pem")):
            rc, _, err = self.run(*args)
            assert rc == 0, err
        key = gostx.load_pem_private_key((d / f"{name}.key").read_bytes())
        cert = x509.load_pem_x509_certificate((d / f"{name}.pem").read_bytes())
        return key, cert, str(d / f"{name}-ca.pem")

    def cli_sign(self, xml, *args):
        (self.d / "in.xml").write_bytes(xml)
        rc, _, err = self.run("xml", "sign", "-in", "in.xml", "-out", "out.xml", *args)
        assert rc == 0, err
        return (self.d / "out.xml").read_bytes()

    def cli_verify(self, xml, ca):
        (self.d / "v.xml").write_bytes(xml)
        rc, out, err = self.run("xml", "verify", "-in", "v.xml", "-CAfile", ca)
        return rc, out, err


@pytest.fixture(scope="module")
def pki(cli, tmp_path_factory):
    p = Pki(cli, tmp_path_factory.mktemp("xmldsig"))
    if p.run("xml", "--help")[0] != 0:
        pytest.skip("gostx built without libxml2 (no gostx xml)")
    p.a = p.make("a", "256A")
    p.b = p.make("b", "512A")
    return p


CASES = [dict(ref="d1"), dict(ref="", form="enveloping"), dict(ref="d1", form="detached"),
         dict(ref="d1", inclusive=True), dict(ref="", inclusive=True, form="enveloped")]
CLI_FLAGS = {"enveloping": ["-enveloping"], "detached": ["-detached"], "enveloped": []}


@pytest.mark.parametrize("bits", ["a", "b"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: "-".join(f"{k}={v}" for k, v in c.items()))
def test_python_signs_cli_verifies(pki, bits, case):
    key, cert, ca = getattr(pki, bits)
    signed = xmldsig.sign(DOC, key, cert, **case)
    rc, out, err = pki.cli_verify(signed, ca)
    assert rc == 0, err
    assert [s.octets for s in xmldsig.verify(signed, cafile=ca)] == [out]


@pytest.mark.parametrize("bits", ["a", "b"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: "-".join(f"{k}={v}" for k, v in c.items()))
def test_cli_signs_python_verifies(pki, bits, case):
    key, cert, ca = getattr(pki, bits)
    args = ["-ref", case["ref"], "-key", f"{bits}.key", "-cert", f"{bits}.pem",
            *CLI_FLAGS[case.get("form", "enveloped")],
            *(["-c14n"] if case.get("inclusive") else [])]
    signed = pki.cli_sign(DOC, *args)
    rc, out, err = pki.cli_verify(signed, ca)
    assert rc == 0, err
    got = xmldsig.verify(signed, cafile=ca)
    assert [s.octets for s in got] == [out]
    assert b"hello" in got[0].octets and got[0].element.tag in ("{urn:b}data", "{urn:a}root",
                                                               "{%s}Object" % xmldsig.DS)


def test_smev_transform_both_ways(pki):
    key, cert, ca = pki.a
    by_cli = pki.cli_sign(SMEV, "-smev", "-ref", "req", "-key", "a.key", "-cert", "a.pem")
    assert xmldsig.verify(by_cli, cafile=ca)[0].octets == SMEV_OCTETS
    by_py = xmldsig.sign(SMEV, key, cert, ref="req", smev=True, form="detached")
    rc, out, err = pki.cli_verify(by_py, ca)
    assert rc == 0 and out == SMEV_OCTETS, err
    by_cli = pki.cli_sign(SMEV2, "-smev", "-detached", "-ref", "r", "-key", "a.key", "-cert",
                          "a.pem")
    rc, out, err = pki.cli_verify(by_cli, ca)
    assert rc == 0 and xmldsig.verify(by_cli, cafile=ca)[0].octets == out, err
    by_py = xmldsig.sign(SMEV2, key, cert, ref="r", smev=True, form="detached")
    assert b"<e:CallerSignature><ds:Signature" in by_py  # SMEV 3's place
    rc, out2, err = pki.cli_verify(by_py, ca)
    assert rc == 0 and out2 == out, err


def test_smev_escaping_as_woodstox(pki):
    # the escaping of SMEV's reference transform (its writer, Woodstox), as
    # Woodstox 6.2.1 wrote it (tests/vectors/gen/smev-woodstox/gen.sh): what
    # a whole-document signature with the SMEV transform signed
    key, cert, ca = pki.a
    v = REPO / "tests" / "vectors" / "xmldsig" / "smev-transform"
    signed = xmldsig.sign((v / "escape.xml").read_bytes(), key, cert, smev=True)
    assert xmldsig.verify(signed, cafile=ca)[0].octets == (v / "escape.out").read_bytes()


def test_wsse_both_ways(pki):
    key, cert, ca = pki.a
    for smev in (False, True):
        by_py = xmldsig.sign(SOAP, key, cert, wsse=True, smev=smev)
        assert b"<wsse:BinarySecurityToken" in by_py and b"X509Data" not in by_py
        rc, out, err = pki.cli_verify(by_py, ca)
        assert rc == 0, err
        assert xmldsig.verify(by_py, cafile=ca)[0].octets == out
        by_cli = pki.cli_sign(SOAP, "-wsse", *(["-smev"] if smev else []), "-ref", "",
                              "-key", "a.key", "-cert", "a.pem")
        rc, out, err = pki.cli_verify(by_cli, ca)
        assert rc == 0 and xmldsig.verify(by_cli, cafile=ca)[0].octets == out, err
    tok = by_cli.replace(b"#X509v3\" wsu:Id", b"#X509PKIPathv1\" wsu:Id", 1)
    with pytest.raises(XMLSignatureError, match="no certificate"):
        xmldsig.verify(tok, cafile=ca)


def test_cryptopro_sample():
    """A public SMEV 3 AckRequest signed by CryptoPro (GOST R 34.10-2001,
    R 34.11-94; tests/vectors/README.md names its source): s || r."""
    doc = SAMPLE.read_bytes()
    cert = re.search(rb"<ds:X509Certificate>([^<]*)", doc).group(1)
    pem = b"-----BEGIN CERTIFICATE-----\n" + cert + b"\n-----END CERTIFICATE-----\n"
    got = xmldsig.verify(doc, cadata=pem, at=1540000000, lax=True)
    assert got[0].octets == (
        b'<ns1:AckTargetMessage xmlns:ns1="urn://x-artefacts-smev-gov-ru/services/message-exchange/'
        b'types/basic/1.2" Id="SIGNED_BY_CALLER" accepted="true">91686b40-af89-11e8-b8b3-'
        b'005056857a87</ns1:AckTargetMessage>')
    with pytest.raises(XMLSignatureError, match="certificate chain") as e:
        xmldsig.verify(doc, cadata=pem, at=1540000000)  # its CA has no subjectKeyIdentifier
    assert e.value.x509.status == x509.Status.PROFILE
    sv = re.search(rb"<ds:SignatureValue>([^<]*)", doc).group(1)
    raw = base64.b64decode(sv)
    swapped = doc.replace(sv, base64.b64encode(raw[32:] + raw[:32]))
    with pytest.raises(XMLSignatureError, match="bad signature"):
        xmldsig.verify(swapped, cadata=pem, at=1540000000, lax=True)


def _moved(signed):
    """The element of Id d1 moved under <other>, a forged one in its place."""
    m = re.search(rb'<b:data Id="d1">.*</b:data>', signed, re.S)
    d = m.group(0)
    out = signed[:m.start()] + b"<b:data>forged</b:data>" + signed[m.end():]
    return out.replace(b"<other>unsigned</other>", b"<other>" + d + b"</other>")


@pytest.mark.parametrize("form", ["enveloped", "detached"])
def test_wrapping(pki, form):
    key, cert, ca = pki.a
    signed = xmldsig.sign(DOC, key, cert, ref="d1", form=form)
    moved = _moved(signed)
    got = xmldsig.verify(moved, cafile=ca)  # verifies: what was signed is still there
    assert b"forged" in moved and all(b"forged" not in s.octets for s in got)
    assert pki.cli_verify(moved, ca)[0] == 0
    dup = signed.replace(b"<other>unsigned", b'<other Id="d1">forged')
    with pytest.raises(XMLSignatureError, match="duplicate Id"):
        xmldsig.verify(dup, cafile=ca)
    sig = re.search(rb"<ds:Signature .*</ds:Signature>", signed, re.S).group(0)
    with pytest.raises(XMLSignatureError, match="a second signature"):
        xmldsig.verify(signed.replace(b"<other>", b"<other>" + sig), cafile=ca)
    other = signed.replace(b"<other>unsigned", b'<other Id="o">unsigned').replace(b'URI="#d1"',
                                                                              b'URI="#o"')
    with pytest.raises(XMLSignatureError, match="digest mismatch|bad signature"):
        xmldsig.verify(other, cafile=ca)
    with pytest.raises(XMLSignatureError, match="digest mismatch"):
        xmldsig.verify(signed.replace(b"hello", b"hellO"), cafile=ca)


def test_enveloping_wrapping(pki):
    key, cert, ca = pki.a
    signed = xmldsig.sign(DOC, key, cert, form="enveloping")
    forged = signed.replace(b'<ds:Object Id="object">',
                            b'<ds:Object><root xmlns="urn:a">forged</root></ds:Object>'
                            b'<ds:Object Id="object">')
    got = xmldsig.verify(forged, cafile=ca)
    assert b"forged" not in got[0].octets
    two = signed.replace(b'<ds:Object Id="object">',
                         b'<ds:Object Id="object">x</ds:Object><ds:Object Id="object">')
    with pytest.raises(XMLSignatureError, match="duplicate Id"):
        xmldsig.verify(two, cafile=ca)
    with pytest.raises(XMLSignatureError, match="duplicate Id"):
        xmldsig.sign(DOC, key, cert, ref="d1", form="enveloping")


def test_refusals(pki):
    key, cert, ca = pki.a
    signed = xmldsig.sign(DOC, key, cert, ref="d1")
    xpath = signed.replace(b"http://www.w3.org/2000/09/xmldsig#enveloped-signature",
                           b"http://www.w3.org/TR/1999/REC-xpath-19991116")
    with pytest.raises(XMLSignatureError, match="XPath transform is refused"):
        xmldsig.verify(xpath, cafile=ca)
    xxe = (b'<?xml version="1.0"?>\n<!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]>\n'
           b"<r>&x;</r>\n")
    with pytest.raises(XMLSignatureError, match="DTD refused"):
        xmldsig.verify(xxe, cafile=ca)
    with pytest.raises(XMLSignatureError, match="DTD refused"):
        xmldsig.sign(xxe, key, cert)
    with pytest.raises(XMLSignatureError, match="certificate chain") as e:
        xmldsig.verify(signed, cafile=pki.b[2])
    assert e.value.x509.status == x509.Status.UNKNOWN_CA
    with pytest.raises(TypeError):
        xmldsig.verify(signed)  # KeyInfo's certificate is never trusted alone
    with pytest.raises(XMLSignatureError, match="key mismatch"):
        xmldsig.sign(DOC, pki.b[0], cert, ref="d1")
    with pytest.raises(XMLSignatureError, match="bad reference"):
        xmldsig.sign(DOC, key, cert, ref="d1-absent")
    with pytest.raises(XMLSignatureError, match="bad reference"):
        xmldsig.sign(DOC, key, cert, form="detached")
    with pytest.raises(XMLSignatureError, match="malformed"):
        xmldsig.sign(DOC, key, cert, wsse=True)
    with pytest.raises(XMLSignatureError, match="no signature"):
        xmldsig.verify(DOC, cafile=ca)


def test_whole_document_keeps_its_pis(pki):
    """URI="": the whole document, a PI before the root included (XMLDSig
    4.3.3.3), the same in both; a changed PI breaks the digest."""
    key, cert, ca = pki.a
    doc = b'<?xml version="1.0"?>\n<?app mode="a"?>\n' + DOC.split(b"\n", 1)[1]
    for signed in (xmldsig.sign(doc, key, cert), pki.cli_sign(doc, "-ref", "", "-key", "a.key",
                                                               "-cert", "a.pem")):
        rc, out, err = pki.cli_verify(signed, ca)
        assert rc == 0, err
        got = xmldsig.verify(signed, cafile=ca)[0].octets
        assert got == out and got.startswith(b'<?app mode="a"?>\n<root')
        with pytest.raises(XMLSignatureError, match="digest mismatch"):
            xmldsig.verify(signed.replace(b'mode="a"', b'mode="b"'), cafile=ca)


# SMEV 3's GetResponseResponse (tests/support/smev_response.sh): the sender's
# SendResponseRequest signed into CallerInformationSystemSignature, then its
# data and Signature moved into the Response SMEV signs into SMEVSignature
SMEV_NS = (b'xmlns:ns2="urn://x-artefacts-smev-gov-ru/services/message-exchange/types/1.1" '
           b'xmlns="urn://x-artefacts-smev-gov-ru/services/message-exchange/types/basic/1.1"')
SEND = (b'<S:Envelope xmlns:S="http://schemas.xmlsoap.org/soap/envelope/"><S:Body>'
        b'<ns2:SendResponseRequest ' + SMEV_NS + b'><ns2:SenderProvidedResponseData '
        b'Id="SIGNED_BY_CALLER"><ns2:MessageID>6b3e3d8a-3c08-11e5-95e2-d4c9eff07b77'
        b'</ns2:MessageID><MessagePrimaryContent><r:Answer xmlns:r="urn://example/answer">'
        b'granted</r:Answer></MessagePrimaryContent></ns2:SenderProvidedResponseData>'
        b'<ns2:CallerInformationSystemSignature/></ns2:SendResponseRequest></S:Body></S:Envelope>')


def _response(sent):
    data = re.search(rb"<ns2:SenderProvidedResponseData .*</ns2:SenderProvidedResponseData>",
                     sent, re.S).group(0)
    sig = re.search(rb"<ds:Signature .*</ds:Signature>", sent, re.S).group(0)
    return (b'<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>'
            b'<ns2:GetResponseResponse ' + SMEV_NS + b'><ns2:ResponseMessage><ns2:Response '
            b'Id="SIGNED_BY_SMEV"><ns2:OriginalMessageId>db0486d0-3c08-11e5-95e2-d4c9eff07b77'
            b'</ns2:OriginalMessageId>' + data + b'<ns2:MessageMetadata><ns2:Status>'
            b'responseIsDelivered</ns2:Status></ns2:MessageMetadata>'
            b'<ns2:SenderInformationSystemSignature>' + sig +
            b'</ns2:SenderInformationSystemSignature></ns2:Response><ns2:SMEVSignature/>'
            b'</ns2:ResponseMessage></ns2:GetResponseResponse></soap:Body></soap:Envelope>')


@pytest.mark.parametrize("signer", ["python", "cli"])
def test_two_signatures(pki, signer):
    """Every Signature verified, each over its own element, as `gostx xml
    verify` does; each changed in turn is the one named."""
    (ka, ca_cert, ca), (kb, cb_cert, cb) = pki.a, pki.b
    ab = pki.d / "ab-ca.pem"
    ab.write_bytes(pathlib.Path(ca).read_bytes() + pathlib.Path(cb).read_bytes())
    if signer == "python":
        sent = xmldsig.sign(SEND, ka, ca_cert, ref="SIGNED_BY_CALLER", smev=True, form="detached")
        both = xmldsig.sign(_response(sent), kb, cb_cert, ref="SIGNED_BY_SMEV", smev=True,
                            form="detached")
    else:
        sent = pki.cli_sign(SEND, "-detached", "-smev", "-ref", "SIGNED_BY_CALLER", "-key",
                            "a.key", "-cert", "a.pem")
        both = pki.cli_sign(_response(sent), "-detached", "-smev", "-ref", "SIGNED_BY_SMEV",
                            "-key", "b.key", "-cert", "b.pem")
    assert b"<ns2:SMEVSignature><ds:Signature" in both
    got = xmldsig.verify(both, cafile=str(ab))
    assert [(s.uri, s.signature) for s in got] == [("#SIGNED_BY_CALLER", 1), ("#SIGNED_BY_SMEV", 2)]
    assert got[0].signer == ca_cert and got[1].signer == cb_cert
    rc, out, err = pki.cli_verify(both, str(ab))
    assert rc == 0 and out == b"".join(s.octets for s in got), err
    assert "Verified OK (2 signatures, 2 references)" in err
    for old, new, n, where, status in (
            (b"granted", b"refused", 1, "ns2:SenderInformationSystemSignature", "digest mismatch"),
            (b"responseIsDelivered", b"responseIsRejected", 2, "ns2:SMEVSignature",
             "digest mismatch")):
        with pytest.raises(XMLSignatureError, match=f"^Signature {n} of 2 in {where}: {status}") as e:
            xmldsig.verify(both.replace(old, new), cafile=str(ab))
        assert e.value.signature == n and e.value.status == status
        rc, _, err = pki.cli_verify(both.replace(old, new), str(ab))
        assert rc == 1 and f"Signature {n} of 2 in {where}: {status}" in err
    with pytest.raises(XMLSignatureError, match="Signature 2 of 2 in ns2:SMEVSignature: "
                       "certificate chain"):
        xmldsig.verify(both, cafile=ca)
    copy = re.search(rb"<ns2:SenderInformationSystemSignature>.*"
                     rb"</ns2:SenderInformationSystemSignature>", both, re.S).group(0)
    with pytest.raises(XMLSignatureError, match="a second signature: Signature 2 is a copy of "
                       "Signature 1"):
        xmldsig.verify(both.replace(b"<ns2:SMEVSignature>", copy + b"<ns2:SMEVSignature>"),
                       cafile=str(ab))
    # a Reference to another Signature's own nodes (its KeyInfo, given an Id)
    k1 = xmldsig.sign(sent.replace(b"<ds:KeyInfo>", b'<ds:KeyInfo Id="k1">'), kb, cb_cert, ref="k1")
    with pytest.raises(XMLSignatureError, match='a second signature: Reference "#k1" names a '
                       "part of Signature 1"):
        xmldsig.verify(k1, cafile=str(ab))


def _with_comments(signed, key):
    """signed (exc-c14n, no comments) with its Reference's c14n made
    #WithComments and SignedInfo signed again: the DigestValue stays right, as
    "" and "#Id" are dereferenced without comments (XMLDSig 1.1 4.3.3.3)."""
    root = etree.fromstring(signed)
    tree = root.getroottree()
    for t in root.iter("{%s}Transform" % xmldsig.DS):
        if t.get("Algorithm") == xmldsig.EXC:
            t.set("Algorithm", xmldsig.EXC + "WithComments")
    si = next(root.iter("{%s}SignedInfo" % xmldsig.DS))
    h = streebog256()
    h.update(etree.tostring(si, method="c14n", exclusive=True))
    rs = key.sign(h.digest(), prehashed=True)
    sv = next(root.iter("{%s}SignatureValue" % xmldsig.DS))
    sv.text = base64.b64encode(rs[32:] + rs[:32]).decode()  # s || r
    return etree.tostring(tree, xml_declaration=True, encoding="UTF-8")


@pytest.mark.parametrize("case", [dict(ref="d1"), dict(ref=""), dict(ref="", form="enveloping")],
                         ids=["by-id", "whole", "enveloping"])
def test_with_comments_by_id_or_whole(pki, case):
    """#WithComments after URI="#d1" or "": the comments are not signed, in C
    (streamed too) and Python alike; XPointer URIs, which keep them, are
    refused by both."""
    key, cert, ca = pki.a
    ref = case["ref"] if case.get("form") != "enveloping" else ""
    doc = DOC.replace(b"hello ", b"hello <!-- inside --> ")
    signed = _with_comments(xmldsig.sign(doc, key, cert, **case), key)
    assert b"xml-exc-c14n#WithComments" in signed and b"<!-- inside -->" in signed
    rc, out, err = pki.cli_verify(signed, ca)
    assert rc == 0, err
    got = xmldsig.verify(signed, cafile=ca)[0].octets
    assert got == out and b"inside" not in got and b"hello" in got
    changed = signed.replace(b"<!-- inside -->", b"<!-- changed -->")
    assert xmldsig.verify(changed, cafile=ca)[0].octets == got
    if case.get("form") == "enveloping":  # URI="#object": the streaming verifier's rule too
        (pki.d / "v.xml").write_bytes(signed)
        rc, streamed, err = pki.run("xml", "verify", "-stream", "-in", "v.xml", "-CAfile", ca)
        assert rc == 0 and streamed == out, err
    if ref:
        for uri in (b"#xpointer(/)", b"#xpointer(id('d1'))"):
            xp = signed.replace(b'URI="#d1"', b'URI="' + uri + b'"')
            with pytest.raises(XMLSignatureError, match="unsupported algorithm: Reference URI=.*"
                               "XPointer is refused"):
                xmldsig.verify(xp, cafile=ca)
            rc, _, err = pki.cli_verify(xp, ca)
            assert rc == 1 and "XPointer is refused" in err


def test_inclusive_c14n_inherits_xml_attrs(pki):
    """Canonical XML 1.0 of an element writes its ancestors' xml:lang (and
    the other xml:* attributes) on it, as libxml2 does (C14N 1.0, 2.4): the
    Reference's octets and SignedInfo's, under a root carrying xml:lang."""
    key, cert, ca = pki.a
    doc = DOC.replace(b'<root xmlns="urn:a"', b'<root xmlns="urn:a" xml:lang="ru" xml:space="keep"')
    doc = doc.replace(b'<b:data Id="d1">', b'<b:data Id="d1" xml:space="default">')
    by_cli = pki.cli_sign(doc, "-c14n", "-ref", "d1", "-key", "a.key", "-cert", "a.pem")
    rc, out, err = pki.cli_verify(by_cli, ca)
    assert rc == 0, err
    assert b'xml:lang="ru" xml:space="default"' in out  # the nearest xml:space
    assert xmldsig.verify(by_cli, cafile=ca)[0].octets == out
    by_py = xmldsig.sign(doc, key, cert, ref="d1", inclusive=True)
    rc, out2, err = pki.cli_verify(by_py, ca)
    assert rc == 0 and out2 == out, err
    assert b'xml:lang' not in by_py.split(b"<b:data", 1)[1].split(b">", 1)[0]  # put back


def test_comment_inside_base64(pki):
    """A comment inside SignatureValue or DigestValue splits the text, as
    gostx xml reads it (every text node), not its end."""
    key, cert, ca = pki.a
    signed = xmldsig.sign(DOC, key, cert, ref="d1")
    for tag in (b"SignatureValue", b"DigestValue"):
        m = re.search(b"<ds:" + tag + b">([^<]*)<", signed)
        v = m.group(1)
        split = signed[:m.start(1)] + v[:8] + b"<!-- x -->" + v[8:] + signed[m.end(1):]
        assert pki.cli_verify(split, ca)[0] == 0
        assert xmldsig.verify(split, cafile=ca)[0].octets == pki.cli_verify(split, ca)[1]


def test_c14n_error_is_named(pki):
    """libxml2's C14N refuses a relative namespace URI: an XMLSignatureError
    ("malformed"), as gostx xml refuses it, never lxml's C14NError."""
    key, cert, ca = pki.a
    signed = xmldsig.sign(DOC, key, cert, ref="d1")
    rel = signed.replace(b'<b:data Id="d1">', b'<b:data xmlns:r="relative" Id="d1">')
    rc, _, err = pki.cli_verify(rel, ca)
    assert rc == 1 and "malformed" in err, err
    with pytest.raises(XMLSignatureError, match='malformed: Reference "#d1": canonicalization '
                       "failed"):
        xmldsig.verify(rel, cafile=ca)
    with pytest.raises(XMLSignatureError, match="malformed: signing failed"):
        xmldsig.sign(DOC.replace(b'<b:data ', b'<b:data xmlns:r="relative" '), key, cert, ref="d1")


def test_smev_transform_keeps_xml_prefix(pki):
    """xml:lang under the SMEV transform keeps its prefix (binding ns2 to the
    xml namespace is forbidden): the same octets from C and Python."""
    key, cert, ca = pki.a
    doc = SMEV.replace(b'Id="req"', b'Id="req" xml:lang="ru"')
    by_py = xmldsig.sign(doc, key, cert, ref="req", smev=True)
    rc, out, err = pki.cli_verify(by_py, ca)
    assert rc == 0, err
    assert b' xml:lang="ru"' in out and b"XML/1998/namespace" not in out
    assert xmldsig.verify(by_py, cafile=ca)[0].octets == out


def test_limits_as_the_command(pki):
    """The C library's limits (docs/XMLDSIG.md), checked on the tree before
    any canonicalization, with the command's texts: an element of 100,000
    attributes (1.3 MB; lxml's C14N spends time quadratic in them) refused
    at once, signing and verifying; 256 attributes and 256 namespaces in
    scope still sign and verify."""
    from conftest import time_scale
    key, cert, ca = pki.a
    attrs = b" ".join(b'a%d="x"' % i for i in range(100000))
    bomb = b'<root xmlns="urn:a"><e Id="d1" ' + attrs + b'/></root>'
    why = r"too large: <e> has over 256 attributes \(namespace declarations included\)"
    started = time.monotonic()
    with pytest.raises(XMLSignatureError, match=why):
        xmldsig.sign(bomb, key, cert, ref="d1")
    with pytest.raises(XMLSignatureError, match=why):
        xmldsig.verify(bomb, cafile=ca)
    assert time.monotonic() - started < 5 * time_scale()
    rc, _, err = pki.cli_verify(bomb, ca)
    assert rc == 1 and "<e> has over 256 attributes (namespace declarations included)" in err, err
    ns = b" ".join(b'xmlns:p%d="urn:p%d"' % (i, i) for i in range(129))
    nested = b'<root ' + ns + b'><e ' + ns.replace(b'="urn:p', b'="urn:q') + b'/></root>'
    with pytest.raises(XMLSignatureError, match="too large: over 256 namespace declarations in "
                       "scope at <e>"):
        xmldsig.verify(nested, cafile=ca)
    at = b" ".join(b'a%d="x"' % i for i in range(255))  # and Id: 256
    doc = b'<root xmlns="urn:a"><e Id="d1" ' + at + b'/></root>'
    signed = xmldsig.sign(doc, key, cert, ref="d1")
    assert xmldsig.verify(signed, cafile=ca)[0].octets == pki.cli_verify(signed, ca)[1]
