"""A second reference for gostx's XML signatures that shares no code with
gostx and runs no openssl: lxml parses and canonicalizes (exclusive c14n),
gostcrypto (PyPI, pure Python) hashes (Streebog) and signs (GOST R
34.10-2012), the certificate's key is read by a DER walk here, and the SMEV
transform is written here again. It verifies the SMEV test node's
CryptoPro-made signature and a gostx-made SMEV one, and signs one (SMEV
transform included) that `gostx xml verify` accepts; each tampered copy is
refused. The byte orders are found against known vectors first, not assumed.
gostcrypto multiplies in affine coordinates: a few signatures only."""
import base64
import json
import pathlib
import re

import pytest

gostcrypto = pytest.importorskip("gostcrypto")  # scripts/ci_python.sh installs it
pytest.importorskip("lxml")
from gostcrypto import gosthash, gostsignature  # noqa: E402
from lxml import etree  # noqa: E402
from lxml.builder import ElementMaker  # noqa: E402

from test_gost3410_keys import _children, _oid_text, _tlv  # noqa: E402 (plain DER reading)
from test_xmldsig import Pki  # noqa: E402 (the gostx side: keys, certificates, CLI)

REPO = pathlib.Path(__file__).resolve().parents[2]
VECTORS = REPO / "tests" / "vectors"
NODE_SAMPLE = VECTORS / "xmldsig" / "smev3-sendrequestresponse-smev-2012.xml"
DS = "http://www.w3.org/2000/09/xmldsig#"
EXC = "http://www.w3.org/2001/10/xml-exc-c14n#"
ENVELOPED = DS + "enveloped-signature"
SMEV = "urn://smev-gov-ru/xmldsig/transform"
SIG256 = "urn:ietf:params:xml:ns:cpxmlsec:algorithms:gostr34102012-gostr34112012-256"
DIG256 = "urn:ietf:params:xml:ns:cpxmlsec:algorithms:gostr34112012-256"
PARSER = etree.XMLParser(resolve_entities=False, no_network=True, remove_comments=False)
# the SPKI's parameter set OID -> gostcrypto's curve (R 1323565.1.024: the
# CryptoPro sets are the tc26 sets B, C, D; XchA = CryptoPro A, XchB = C)
CURVES = {"1.2.643.7.1.2.1.1.1": "id-tc26-gost-3410-2012-256-paramSetA",
          "1.2.643.7.1.2.1.1.2": "id-tc26-gost-3410-2012-256-paramSetB",
          "1.2.643.7.1.2.1.1.3": "id-tc26-gost-3410-2012-256-paramSetC",
          "1.2.643.7.1.2.1.1.4": "id-tc26-gost-3410-2012-256-paramSetD",
          "1.2.643.2.2.35.1": "id-tc26-gost-3410-2012-256-paramSetB",
          "1.2.643.2.2.35.2": "id-tc26-gost-3410-2012-256-paramSetC",
          "1.2.643.2.2.35.3": "id-tc26-gost-3410-2012-256-paramSetD",
          "1.2.643.2.2.36.0": "id-tc26-gost-3410-2012-256-paramSetB",
          "1.2.643.2.2.36.1": "id-tc26-gost-3410-2012-256-paramSetD"}

# ---- the conventions, each fixed against a known vector ----

# gostcrypto's own: integers big-endian, a signature r || s, e read from the
# "digest" bytes big-endian. GOST R 34.10-2012 example 1 (tests/vectors).
STD = json.loads((VECTORS / "sign-3410.json").read_text())["cases"][0]
_c = STD["curve"]
_test_curve = {k: int(_c[k], 16) for k in ("p", "a", "b", "m", "q")}
_test_curve.update(x=int(_c["xP"], 16), y=int(_c["yP"], 16))
_std = gostsignature.new(gostsignature.MODE_256, _test_curve)
assert bytes(_std.public_key_generate(bytearray.fromhex(STD["d"]))) == \
    bytes.fromhex(STD["xQ"] + STD["yQ"]), "gostcrypto: public key not x || y big-endian"
assert bytes(_std.sign(bytearray.fromhex(STD["d"]), bytearray.fromhex(STD["e"]),
                       bytearray.fromhex(STD["k"]))) == bytes.fromhex(STD["r"] + STD["s"]), \
    "gostcrypto: signature not r || s, or e not read big-endian"


def streebog256(data):
    return bytes(gosthash.new("streebog256", data=bytearray(data)).digest())


def test_streebog_writes_the_digest_as_gost_does():
    for case in json.loads((VECTORS / "streebog.json").read_text())["cases"]:
        if case["hash_bits"] == 256:
            assert streebog256(bytes.fromhex(case["message_bytes"])).hex() == case["digest_bytes"]


# ---- a DER walk to the certificate's key (the DER helpers: test_gost3410_keys) ----

def cert_key(der):
    """(curve OID, the 64 key octets as the SPKI carries them)."""
    tbs = _children(_children(_children(der)[0][1])[0][1])
    if tbs[0][0] == 0xA0:  # version
        tbs = tbs[1:]
    alg, bits = _children(tbs[5][1])
    paramset = _oid_text(_children(_children(alg[1])[1][1])[0][1])
    tag, point, _ = _tlv(bits[1], 1)  # after the unused-bits octet, an OCTET STRING
    assert tag == 0x04 and len(point) == 64
    return paramset, point


def verifier(der):
    paramset, point = cert_key(der)
    return gostsignature.new(gostsignature.MODE_256,
                             gostsignature.CURVES_R_1323565_1_024_2019[CURVES[paramset]]), point


# The XML conventions: SignatureValue s || r, the SPKI's point X || Y each
# little-endian, e the Streebog digest read little-endian. Fixed by the SMEV
# test node's signature (CryptoPro CSP): of the 8 readings only this one
# verifies; the reference below uses it.
def key_be(point):
    return bytearray(point[:32][::-1] + point[32:][::-1])


def xml_verifies(ref, point, digest, sig_value):
    return ref.verify(key_be(point), bytearray(digest[::-1]),
                      bytearray(sig_value[32:] + sig_value[:32]))


def test_the_byte_orders_on_the_smev_node_sample():
    doc = etree.fromstring(NODE_SAMPLE.read_bytes(), PARSER)
    sig = doc.find(f".//{{{DS}}}Signature")
    digest = streebog256(etree.tostring(sig.find(f"{{{DS}}}SignedInfo"), method="c14n",
                                        exclusive=True))
    value = base64.b64decode(sig.findtext(f"{{{DS}}}SignatureValue"))
    ref, point = verifier(base64.b64decode(sig.findtext(f".//{{{DS}}}X509Certificate")))
    found = [(key, dig, order) for key in ("le", "be") for dig in ("le", "be")
             for order in ("s||r", "r||s")
             if ref.verify(key_be(point) if key == "le" else bytearray(point),
                           bytearray(digest[::-1] if dig == "le" else digest),
                           bytearray(value[32:] + value[:32] if order == "s||r" else value))]
    assert found == [("le", "le", "s||r")]


def test_reference_verifies_the_smev_node_sample():
    # the whole check: the Reference through exc-c14n and the SMEV transform
    # written here, then the signature; a changed status is refused
    sample = NODE_SAMPLE.read_bytes()
    assert reference_verify(sample)
    changed = sample.replace(b">requestIsQueued<", b">requestIsRejected<", 1)
    assert changed != sample and not reference_verify(changed)


# ---- the SMEV 3 transform, from the recommendations' rules ----

def _text(s):
    """Woodstox's text escaping (docs/XMLDSIG.md): &, <, CR, U+007F..U+009F
    always; > first or after ] (under 12 UTF-16 units), else first in a
    512-unit chunk, after ] or right after an escaped character."""
    units = [2 if ord(ch) > 0xFFFF else 1 for ch in s]
    short, out, at, escaped = sum(units) < 12, "", 0, False
    for i, ch in enumerate(s):
        if ch in "&<\r" or "\x7f" <= ch <= "\x9f":
            rep = {"&": "&amp;", "<": "&lt;"}.get(ch, "&#x%x;" % ord(ch))
        elif ch == ">" and ((i and s[i - 1] == "]") or at == 0 if short else
                            (i and s[i - 1] == "]") or at % 512 == 0 or escaped):
            rep = "&gt;"
        else:
            rep = None
        out, escaped, at = out + (rep or ch), rep is not None, at + units[i]
    return out


def _attr(v):
    return "".join({"&": "&amp;", "<": "&lt;", '"': "&quot;", "\r": "&#xd;", "\n": "&#xa;",
                    "\t": "&#x9;"}.get(ch, ch) for ch in v)


def smev_transform(octets):
    out, bound, n = [], [], [0]

    def prefix(uri, decls):  # the generated prefix of uri, declared here when new
        for u, p in reversed(bound):
            if u == uri:
                return p
        n[0] += 1
        bound.append((uri, f"ns{n[0]}"))
        decls.append(f' xmlns:ns{n[0]}="{_attr(uri)}"')
        return f"ns{n[0]}"

    def element(e):
        depth, decls, q = len(bound), [], etree.QName(e)
        name = f"{prefix(q.namespace, decls)}:{q.localname}" if q.namespace else q.localname
        attrs = sorted((etree.QName(k).namespace or "", etree.QName(k).localname, v)
                       for k, v in e.attrib.items())
        attrs = [a for a in attrs if a[0]] + [a for a in attrs if not a[0]]
        written = [f' {prefix(u, decls) + ":" if u else ""}{local}="{_attr(v)}"'
                   for u, local, v in attrs]
        out.append(f"<{name}{''.join(decls)}{''.join(written)}>")
        for piece in [e.text] + [x for child in e for x in (child, child.tail)]:
            if isinstance(piece, str) and piece.strip(" \t\r\n"):
                out.append(_text(piece))
            elif piece is not None and not isinstance(piece, str) and isinstance(piece.tag, str):
                element(piece)
        out.append(f"</{name}>")
        del bound[depth:]

    element(etree.fromstring(octets, PARSER))
    return "".join(out).encode()


def test_smev_transform_here_gives_the_published_cases():
    v = VECTORS / "xmldsig" / "smev-transform"
    for case in ("case1", "case2", "case3", "escape"):
        assert smev_transform((v / f"{case}.xml").read_bytes()) == (v / f"{case}.out").read_bytes()


# ---- verify and sign ----

def _by_id(doc, ident):
    found = doc.xpath("//*[@Id=$i or @ID=$i or @id=$i]", i=ident)
    assert len(found) == 1, f"Id {ident}: {len(found)} elements"
    return found[0]


def _cut(e):
    """e out of its tree, its tail kept (the enveloped-signature transform)."""
    parent, prev = e.getparent(), e.getprevious()
    if e.tail:
        if prev is not None:
            prev.tail = (prev.tail or "") + e.tail
        else:
            parent.text = (parent.text or "") + e.tail
    parent.remove(e)


def reference_octets(xml, ref):
    doc = etree.fromstring(xml, PARSER)  # a fresh tree for each Reference
    target = _by_id(doc, ref.get("URI")[1:])
    octets = None
    for t in ref.iterfind(f"{{{DS}}}Transforms/{{{DS}}}Transform"):
        alg = t.get("Algorithm")
        if alg == ENVELOPED:
            for s in target.iter(f"{{{DS}}}Signature"):
                _cut(s)
                break
        elif alg == EXC and len(t) == 0:
            octets = etree.tostring(target, method="c14n", exclusive=True)
        elif alg == SMEV and octets is not None:
            octets = smev_transform(octets)
        else:
            raise AssertionError(f"transform not taken here: {alg}")
    return octets


def reference_verify(xml):
    """True when every Reference's Streebog digest and the SignatureValue
    (under the certificate in KeyInfo) check; no chain (not the point here)."""
    sig = etree.fromstring(xml, PARSER).find(f".//{{{DS}}}Signature")
    si = sig.find(f"{{{DS}}}SignedInfo")
    assert si.find(f"{{{DS}}}CanonicalizationMethod").get("Algorithm") == EXC
    assert si.find(f"{{{DS}}}SignatureMethod").get("Algorithm") == SIG256
    for ref in si.iterfind(f"{{{DS}}}Reference"):
        assert ref.find(f"{{{DS}}}DigestMethod").get("Algorithm") == DIG256
        got = streebog256(reference_octets(xml, ref))
        if got != base64.b64decode(ref.findtext(f"{{{DS}}}DigestValue")):
            return False
    der = base64.b64decode(re.sub(r"\s", "", sig.findtext(f".//{{{DS}}}X509Certificate")))
    ref, point = verifier(der)
    value = base64.b64decode(re.sub(r"\s", "", sig.findtext(f"{{{DS}}}SignatureValue")))
    digest = streebog256(etree.tostring(si, method="c14n", exclusive=True))
    return xml_verifies(ref, point, digest, value)


def reference_sign(xml, ident, d_be, cert_der):
    """An enveloped signature of the element of Id ident: enveloped-signature,
    exc-c14n and the SMEV transform, GOST 2012-256 with d (big-endian)."""
    doc = etree.fromstring(xml, PARSER)
    target = _by_id(doc, ident)
    E = ElementMaker(namespace=DS, nsmap={"ds": DS})
    ref = E.Reference(E.Transforms(*(E.Transform(Algorithm=a) for a in (ENVELOPED, EXC, SMEV))),
                      E.DigestMethod(Algorithm=DIG256), E.DigestValue(), URI="#" + ident)
    digest = streebog256(smev_transform(etree.tostring(target, method="c14n", exclusive=True)))
    ref.find(f"{{{DS}}}DigestValue").text = base64.b64encode(digest).decode()
    si = E.SignedInfo(E.CanonicalizationMethod(Algorithm=EXC), E.SignatureMethod(Algorithm=SIG256),
                      ref)
    sig = E.Signature(si, E.SignatureValue(),
                      E.KeyInfo(E.X509Data(E.X509Certificate(base64.b64encode(cert_der).decode()))))
    target.append(sig)
    h = streebog256(etree.tostring(si, method="c14n", exclusive=True))
    curve, _ = cert_key(cert_der)
    signer = gostsignature.new(gostsignature.MODE_256,
                               gostsignature.CURVES_R_1323565_1_024_2019[CURVES[curve]])
    rs = bytes(signer.sign(bytearray(d_be), bytearray(h[::-1])))
    sig.find(f"{{{DS}}}SignatureValue").text = base64.b64encode(rs[32:] + rs[:32]).decode()
    return etree.tostring(doc, xml_declaration=True, encoding="UTF-8")


DOC = (b'<env:Env xmlns:env="urn:env"><m:Req xmlns:m="urn:m" xmlns:z="urn:a" Id="req" b="2"'
       b' z:a="1"><m:Text>a &amp; b &lt; c &gt; d]&gt; &#xD;</m:Text>\n  <m:Empty/></m:Req>'
       b'</env:Env>')


def _pem_der(path):
    return base64.b64decode("".join(l for l in path.read_text().splitlines() if "-----" not in l))


def _private_d(key_pem, cert_der, curve):
    """d from gostx's PKCS#8 file, big-endian: the octets' order found by the
    public key each reading gives (the certificate's is the one)."""
    info = _children(_children(_pem_der(key_pem))[0][1])
    raw = info[2][1]
    if raw[0] == 0x04:  # the key wrapped in an OCTET STRING
        raw = _tlv(raw, 0)[1]
    _, point = cert_key(cert_der)
    found = [d for d in (raw[::-1], raw) if bytes(curve.public_key_generate(bytearray(d))) ==
             bytes(key_be(point))]
    assert len(found) == 1
    return found[0]


@pytest.fixture(scope="module")
def gx(cli, tmp_path_factory):
    p = Pki(cli, tmp_path_factory.mktemp("xmlref"))
    if p.run("xml", "--help")[0] != 0:
        pytest.skip("gostx built without libxml2 (no gostx xml)")
    p.make("a", "256A")
    return p


def _tamper(xml):
    out = xml.replace(b"a &amp; b", b"A &amp; b", 1)
    assert out != xml
    return out


def _swap_halves(xml):
    m = re.search(rb"(<ds:SignatureValue>)([^<]*)", xml)
    v = base64.b64decode(re.sub(rb"&#xD;|\s", b"", m.group(2)))
    return xml[:m.start(2)] + base64.b64encode(v[32:] + v[:32]) + xml[m.end(2):]


def test_reference_verifies_gostx_smev_signature(gx):
    signed = gx.cli_sign(DOC, "-smev", "-ref", "req", "-key", "a.key", "-cert", "a.pem")
    assert reference_verify(signed)
    assert not reference_verify(_tamper(signed))  # the digest
    assert not reference_verify(_swap_halves(signed))  # the signature (r || s)


def test_gostx_verifies_reference_smev_signature(gx):
    cert_der = _pem_der(gx.d / "a.pem")
    curve, _ = cert_key(cert_der)
    signer = gostsignature.new(gostsignature.MODE_256,
                               gostsignature.CURVES_R_1323565_1_024_2019[CURVES[curve]])
    d = _private_d(gx.d / "a.key", cert_der, signer)
    signed = reference_sign(DOC, "req", d, cert_der)
    assert reference_verify(signed)
    rc, out, err = gx.cli_verify(signed, str(gx.d / "a-ca.pem"))
    assert rc == 0 and "Verified OK" in err, err
    assert out == smev_transform(etree.tostring(_by_id(etree.fromstring(DOC), "req"),
                                                method="c14n", exclusive=True))
    for bad, why in ((_tamper(signed), "digest mismatch"), (_swap_halves(signed), "bad signature")):
        rc, _, err = gx.cli_verify(bad, str(gx.d / "a-ca.pem"))
        assert rc == 1 and why in err, err
        assert not reference_verify(bad)
