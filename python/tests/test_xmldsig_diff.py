"""gostx.xmldsig and `gostx xml` hold one policy: for every document of an
attack corpus (the fuzzer's seeds, tests/fuzz/corpus/fuzz_xmldsig, and the
wrapping and refusal cases of tests/test_xml_cli.sh made again here) and of
a bounded number of random documents (seeded; namespaces, prefixes,
xml:lang/xml:space, escapes, comments, PIs, CDATA, C1 controls), both give
the same verdict: the same octets signed, or the same status and reason.
Signatures are randomized, so what is compared is what verify says of them:
each verifies what the other signed, and both sign a document to the same
canonical octets (c14n, the SMEV transform)."""
import pathlib
import random
import re

import pytest

pytest.importorskip("lxml")  # scripts/ci_python.sh installs it
xmldsig = pytest.importorskip("gostx.xmldsig", reason="gostx built without libxml2")
from gostx.xmldsig import XMLSignatureError  # noqa: E402

from test_xmldsig import DOC, SMEV, SOAP, Pki  # noqa: E402 (the gostx side: keys, CLI)

REPO = pathlib.Path(__file__).resolve().parents[2]
CORPUS = REPO / "tests" / "fuzz" / "corpus" / "fuzz_xmldsig"
RANDOM_DOCS = 16  # each: 2 signatures, 4 verifications, a tampered copy


@pytest.fixture(scope="module")
def gx(cli, tmp_path_factory):
    p = Pki(cli, tmp_path_factory.mktemp("xmldiff"))
    if p.run("xml", "--help")[0] != 0:
        pytest.skip("gostx built without libxml2 (no gostx xml)")
    p.key, p.cert, p.ca = p.make("a", "256A")
    return p


def verdicts(gx, xml, ca=None):
    """(Python's, the command's) verdict on xml: ("ok", octets) or
    ("refused", "status: why")."""
    ca = ca or gx.ca
    try:
        py = ("ok", b"".join(s.octets for s in xmldsig.verify(xml, cafile=ca)))
    except XMLSignatureError as e:
        why = e.why
        if e.status == "certificate chain":  # the command names the depth, as x509 verify
            why = f"error at depth {e.x509.depth}: {why}"
        py = ("refused", str(e).replace(e.why, why) if e.why else str(e))
    rc, out, err = gx.cli_verify(xml, ca)
    if rc == 0:
        return py, ("ok", out)
    return py, ("refused", _refusal(err, "verify"))


def _refusal(err, what):
    """ "status: why" of the command's "gostx: xml WHAT: FILE: status: why"."""
    lines = [m.group(1) for m in re.finditer(rf"xml {what}: [^:]*: (.*)", err)]
    assert lines, err
    return lines[-1]


def agree(gx, xml, ca=None):
    py, cmd = verdicts(gx, xml, ca)
    assert py == cmd
    return py


def cli_sign(gx, xml, ref, form="enveloped", inclusive=False, smev=False, wsse=False):
    """The command's signature of xml, or its refusal ("status: why")."""
    (gx.d / "in.xml").write_bytes(xml)
    args = ["-ref", ref, "-key", "a.key", "-cert", "a.pem",
            *({"enveloping": ["-enveloping"], "detached": ["-detached"]}.get(form, [])),
            *(["-c14n"] if inclusive else []), *(["-smev"] if smev else []),
            *(["-wsse"] if wsse else [])]
    rc, _, err = gx.run("xml", "sign", "-in", "in.xml", "-out", "out.xml", *args)
    if rc:
        return "refused", _refusal(err, "sign")
    return "ok", (gx.d / "out.xml").read_bytes()


def py_sign(gx, xml, ref, **opts):
    try:
        return "ok", xmldsig.sign(xml, gx.key, gx.cert, ref=ref, **opts)
    except XMLSignatureError as e:
        return "refused", str(e)


def both_sign(gx, xml, ref, **opts):
    """Each signs; each signature verified by both; both sign to the same
    canonical octets. What was signed (octets), or the refusal both made."""
    by_py, by_cli = py_sign(gx, xml, ref, **opts), cli_sign(gx, xml, ref, **opts)
    assert by_py[0] == by_cli[0] and (by_py[0] == "ok" or by_py == by_cli), (by_py, by_cli)
    if by_py[0] != "ok":
        return None
    a, b = agree(gx, by_py[1]), agree(gx, by_cli[1])
    assert a == b and a[0] == "ok", (a, b)
    return a[1]


# ---- the attack corpus ----

def test_fuzz_corpus(gx):
    seeds = sorted(CORPUS.glob("*.xml"))
    assert len(seeds) >= 10
    for path in seeds:
        agree(gx, path.read_bytes())


def _moved(signed):
    m = re.search(rb'<b:data Id="d1">.*</b:data>', signed, re.S)
    out = signed[:m.start()] + b"<b:data>forged</b:data>" + signed[m.end():]
    return out.replace(b"<other>unsigned</other>", b"<other>" + m.group(0) + b"</other>")


def _attacks(signed):
    """(name, document) of what tests/test_xml_cli.sh refuses or takes."""
    sig = re.search(rb"<ds:Signature .*</ds:Signature>", signed, re.S).group(0)
    sv = re.search(rb"<ds:SignatureValue>([^<]*)<", signed)
    dv = re.search(rb"<ds:DigestValue>([^<]*)<", signed)
    env = b"http://www.w3.org/2000/09/xmldsig#enveloped-signature"
    yield "as signed", signed
    yield "content changed", signed.replace(b"hello", b"hellO")
    yield "SignatureValue changed", signed.replace(sv.group(1), sv.group(1)[::-1])
    yield "a comment in SignatureValue", signed.replace(
        sv.group(1), sv.group(1)[:8] + b"<!-- x -->" + sv.group(1)[8:])
    yield "a comment in DigestValue", signed.replace(
        dv.group(1), dv.group(1)[:8] + b"<!-- x -->" + dv.group(1)[8:])
    yield "duplicated Id", signed.replace(b"<other>unsigned", b'<other Id="d1">forged')
    yield "a copy of the Signature", signed.replace(b"<other>", b"<other>" + sig)
    yield "moved element", _moved(signed)
    yield "Reference to another element", signed.replace(
        b"<other>unsigned", b'<other Id="o">unsigned').replace(b'URI="#d1"', b'URI="#o"')
    for uri in (b"#xpointer(/)", b"#xpointer(id('d1'))", b"http://example.com/x", b"#absent"):
        yield f"URI={uri}", signed.replace(b'URI="#d1"', b'URI="' + uri + b'"')
    for alg in (b"http://www.w3.org/TR/1999/REC-xpath-19991116",
                b"http://www.w3.org/TR/1999/REC-xslt-19991116",
                b"http://www.w3.org/2000/09/xmldsig#base64", b"urn:unknown"):
        yield f"transform {alg}", signed.replace(env, alg)
    yield "a transform after SMEV's", signed.replace(
        env, b"urn://smev-gov-ru/xmldsig/transform").replace(
        b'<ds:Transform Algorithm="http://www.w3.org/2001/10/xml-exc-c14n#"/>',
        b'<ds:Transform Algorithm="http://www.w3.org/2001/10/xml-exc-c14n#"/>'
        b'<ds:Transform Algorithm="http://www.w3.org/2001/10/xml-exc-c14n#"/>')
    yield "relative namespace", signed.replace(b'<b:data Id="d1">',
                                               b'<b:data xmlns:r="relative" Id="d1">')
    yield "no KeyInfo", re.sub(rb"<ds:KeyInfo>.*</ds:KeyInfo>", b"", signed, flags=re.S)
    yield "a DOCTYPE", b'<!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]>\n' + \
        signed.split(b"\n", 1)[1]
    yield "not well-formed", signed.replace(b"</root>", b"</rooT>")
    yield "no Signature", DOC
    yield "nested 300 deep", b"<a>" * 300 + b"</a>" * 300
    yield "300 attributes", b'<r ' + b" ".join(b'a%d="x"' % i for i in range(300)) + b"/>"


@pytest.mark.parametrize("form", ["enveloped", "detached", "enveloping"])
def test_attack_corpus(gx, form):
    doc = DOC.replace(b'<root xmlns="urn:a"', b'<root xmlns="urn:a" xml:lang="ru"')
    ref = "d1" if form != "enveloping" else ""
    # the command's signature too for one form (the CI's time: each case is 2 processes)
    signers = (py_sign, cli_sign) if form == "enveloped" else (py_sign,)
    for signed in (sign(gx, doc, ref, form=form)[1] for sign in signers):
        for name, xml in _attacks(signed):
            try:
                agree(gx, xml)
            except AssertionError as e:
                raise AssertionError(f"{form}, {name}: {e}") from None
    agree(gx, signed, ca=str(gx.d / "a.pem"))  # an anchor that is not the signer's CA


def test_forms_and_refusals_when_signing(gx):
    """The documents and options signing refuses or takes, the same way."""
    cases = [(DOC, "d1", {}), (DOC, "", {"inclusive": True}), (DOC, "absent", {}),
             (DOC, "", {"form": "detached"}), (DOC, "d1", {"form": "enveloping"}),
             (DOC, "", {"wsse": True}), (SOAP, "", {"wsse": True}),
             (SOAP, "", {"wsse": True, "smev": True}), (SMEV, "req", {"smev": True}),
             (SMEV, "req", {"smev": True, "form": "detached"}),
             (DOC.replace(b'<b:data ', b'<b:data xmlns:r="relative" '), "d1", {}),
             (b'<!DOCTYPE r [<!ENTITY x "y">]><r Id="a">&x;</r>', "a", {}),
             (DOC, "x" * 201, {})]
    for xml, ref, opts in cases:
        both_sign(gx, xml, ref, **opts)


# ---- random documents ----

NAMESPACES = ["urn:a", "urn:b", "http://example.com/ns", "urn:x-artefacts:1.2"]
CHARS = ["a", "Z", "0", " ", "\t", "\n", "&", "<", ">", "]]>", '"', "'", "\r", "\u0085", "\u00a0",
         "\u0416", "\u20ac", "\U0001f600", "\x7f"]


def _text(rng):
    return "".join(rng.choice(CHARS) for _ in range(rng.randrange(0, 14)))


def _escaped(s, attr=False):
    s = s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\r", "&#13;")
    return s.replace('"', "&quot;").replace("\t", "&#9;").replace("\n", "&#10;") if attr else s


def _element(rng, depth, ids, scope):
    """One random element (its subtree), as text."""
    prefix = rng.choice(["", "p", "q", "ns1"])
    decls = {}
    if rng.random() < 0.5 or (prefix and prefix not in scope):
        decls[prefix] = rng.choice(NAMESPACES)
    inner = dict(scope, **decls)
    name = f"{prefix}:e{depth}" if prefix else f"e{depth}"
    attrs = [f'xmlns{":" + p if p else ""}="{u}"' for p, u in decls.items()]
    if rng.random() < 0.5:
        ids.append(f"id{len(ids)}")
        attrs.append(f'{rng.choice(["Id", "ID", "id"])}="{ids[-1]}"')
    for k in rng.sample(["b", "a", "c", "z"], rng.randrange(0, 4)):
        attrs.append(f'{k}="{_escaped(_text(rng), True)}"')
    bound = [p for p in inner if p]
    if bound and rng.random() < 0.4:
        attrs.append(f'{rng.choice(bound)}:at="{_escaped(_text(rng), True)}"')
    if rng.random() < 0.3:
        attrs.append(f'xml:{rng.choice(["lang", "space"])}="{rng.choice(["ru", "en", "default"])}"')
    rng.shuffle(attrs)
    parts = []
    for _ in range(rng.randrange(0, 4) if depth < 5 else 0):
        kind = rng.random()
        if kind < 0.45:
            parts.append(_element(rng, depth + 1, ids, inner))
        elif kind < 0.7:
            parts.append(_escaped(_text(rng)))
        elif kind < 0.8:
            parts.append(f"<!--{_text(rng).replace('-', '').replace('>', '')}-->")
        elif kind < 0.9:
            parts.append(f"<![CDATA[{_text(rng).replace(']]>', '')}]]>")
        else:
            parts.append(f"<?pi {_text(rng).replace('?>', '').replace(chr(13), '')}?>")
    head = " ".join([name, *attrs])
    return f"<{head}>{''.join(parts)}</{name}>" if parts or rng.random() < 0.5 else f"<{head}/>"


def random_doc(rng):
    ids = []
    body = _element(rng, 0, ids, {})
    pre = rng.choice(["", '<?xml version="1.0" encoding="UTF-8"?>\n', "<!-- lead -->",
                      "<?app x?>\n"])
    return (pre + body + rng.choice(["", "\n", "<!-- tail -->"])).encode(), ids


def test_random_documents(gx):
    rng = random.Random(82)
    signed_some = 0
    for i in range(RANDOM_DOCS):
        xml, ids = random_doc(rng)
        form = rng.choice(["enveloped", "enveloped", "detached", "enveloping"])
        ref = rng.choice(ids) if ids and (form == "detached" or rng.random() < 0.6) else ""
        opts = dict(form=form, inclusive=rng.random() < 0.4, smev=rng.random() < 0.4)
        try:
            octets = both_sign(gx, xml, ref, **opts)
        except AssertionError as e:
            raise AssertionError(f"document {i} ({opts}, ref {ref!r}): {xml!r}: {e}") from None
        if octets is None:
            continue
        signed_some += 1
        signed = py_sign(gx, xml, ref, **opts)[1]
        agree(gx, re.sub(rb"</(\w+:)?e\d", lambda m: b"X" + m.group(0), signed, count=1))
    assert signed_some >= RANDOM_DOCS // 2  # the generator makes mostly signable documents


def test_threads_share_the_library(gx):
    """The calls run without the GIL: threads signing and verifying at once
    get what one thread gets (libxml2 set up once, at import)."""
    from concurrent.futures import ThreadPoolExecutor
    signed = xmldsig.sign(SMEV, gx.key, gx.cert, ref="req", smev=True)
    want = [s.octets for s in xmldsig.verify(signed, cafile=gx.ca)]

    def work(_):
        again = xmldsig.sign(SMEV, gx.key, gx.cert, ref="req", smev=True)
        return [s.octets for s in xmldsig.verify(again, cafile=gx.ca)]
    with ThreadPoolExecutor(4) as pool:
        assert list(pool.map(work, range(16))) == [want] * 16
