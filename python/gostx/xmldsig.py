"""XML signatures (XMLDSig) with GOST R 34.10-2012 and Streebog: lxml parses
and canonicalizes, gostx hashes, signs and checks the chain; the SMEV 3
transform is gostx's own (_smev.py). The same forms, URIs and refusals as
`gostx xml` (docs/XMLDSIG.md), so either verifies what the other signs.

    signed = gostx.xmldsig.sign(xml, key, cert, ref="SIGNED_BY_CONSUMER", smev=True)
    for part in gostx.xmldsig.verify(signed, cafile="ca.pem"):
        consume(part.element)   # what was signed, after its transforms: nothing else

verify checks every Signature of the document (SMEV 3's responses carry two)
and returns only what their References signed (their octets after the
transforms, and those parsed again): an application that reads those and
never the document it came in cannot be fooled by an element moved, copied
or added elsewhere (signature wrapping). Refusals raise XMLSignatureError
with the status `gostx xml verify` names ("digest mismatch", "duplicate Id",
"certificate chain", ...). Needs lxml (pip install lxml)."""
import base64
import collections
import time

from lxml import etree

from . import _smev
from ._native import GostxError, GostxTypeError, GostxValueError, InvalidSignature, lib
from .gost3410 import PrivateKey
from .hash import gost94, streebog256, streebog512
from .x509 import Certificate, Store, VerificationError

__all__ = ["sign", "verify", "Signed", "XMLSignatureError", "MAX_SIZE"]

DS = "http://www.w3.org/2000/09/xmldsig#"
EXC = "http://www.w3.org/2001/10/xml-exc-c14n#"
C14N = "http://www.w3.org/TR/2001/REC-xml-c14n-20010315"
ENVELOPED = DS + "enveloped-signature"
SMEV = "urn://smev-gov-ru/xmldsig/transform"
WSU = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd"
WSSE = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd"
X509V3 = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-x509-token-profile-1.0#X509v3"
BASE64 = ("http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-soap-message-security-1.0"
          "#Base64Binary")
SOAP = ("http://schemas.xmlsoap.org/soap/envelope/", "http://www.w3.org/2003/05/soap-envelope")
_XML_NS = "http://www.w3.org/XML/1998/namespace"
_CP = "urn:ietf:params:xml:ns:cpxmlsec:algorithms:"
_MORE = "http://www.w3.org/2001/04/xmldsig-more#"
MAX_SIZE = 64 << 20  # as GOSTX_XMLDSIG_MAX_SIZE
# as GOSTX_XMLDSIG_MAX_ATTRS, _NS, _DEPTH, _NAME, _NODES (integrations/xmldsig/xmldsig.h)
_MAX_ATTRS = _MAX_NS = _MAX_DEPTH = 256
_MAX_NAME = 1024
_MAX_NODES = 8 << 20
_MAX_REFS, _MAX_TRANSFORMS, _MAX_SIGS = 16, 4, 8  # as GOSTX_XMLDSIG_MAX_REFS, ...
_C14N_ALGS = {EXC: (True, False), EXC + "WithComments": (True, True),
              C14N: (False, False), C14N + "#WithComments": (False, True)}
_DIGESTS = {_CP + "gostr34112012-256": 32, _CP + "gostr34112012-512": 64,
            _CP + "gostr3411": 94, _MORE + "gostr3411": 94}
_SIGS = {_CP + "gostr34102012-gostr34112012-256": (32, False),
         _CP + "gostr34102012-gostr34112012-512": (64, False),
         _CP + "gostr34102001-gostr3411": (94, True), _MORE + "gostr34102001-gostr3411": (94, True)}
_REFUSED = {"http://www.w3.org/TR/1999/REC-xpath-19991116": "XPath",
            "http://www.w3.org/2002/06/xmldsig-filter2": "XPath Filter 2.0",
            "http://www.w3.org/TR/1999/REC-xslt-19991116": "XSLT", DS + "base64": "base64"}
_KEY_ALGS = {(32, False): "GOSTX_X509_KEY_2012_256", (64, False): "GOSTX_X509_KEY_2012_512",
             (94, True): "GOSTX_X509_KEY_2001"}

Signed = collections.namedtuple("Signed", "uri octets element signature signer")
Signed.__doc__ = """One Reference verified: its URI, the octets it signed (after
its transforms: what was digested), those parsed (an lxml element), the
number of its Signature in the document (1-based, document order) and that
Signature's signer (a gostx.x509.Certificate)."""


class XMLSignatureError(GostxError, ValueError):
    """A document or signature refused: status (the name `gostx xml` prints:
    "malformed", "DTD refused", "duplicate Id", "a second signature", "bad
    reference", "unsupported algorithm", "digest mismatch", "bad signature",
    "no certificate", "key mismatch", "certificate chain", ...) and why; for
    "certificate chain", x509 the VerificationError of the chain (its
    status, why and depth as `gostx x509 verify` names them). In a document
    of more than one Signature, signature is the number of the one refused
    (1-based, document order; else None) and the message names it and where
    it is, as `gostx xml verify` does."""

    def __init__(self, status, why, x509=None, signature=None, where=""):
        self.status, self.why, self.x509, self.signature = status, why, x509, signature
        super().__init__(f"{where}{status}: {why}")


def _parser():
    # no network, no entity substituted, no DTD loaded; libxml2's depth
    # limit kept (no huge_tree); CDATA as text, as the C library reads it
    return etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False,
                           huge_tree=False, strip_cdata=True, remove_blank_text=False)


def _parse(xml):
    data = bytes(memoryview(xml))
    if len(data) > MAX_SIZE:
        raise XMLSignatureError("too large", f"document over {MAX_SIZE} bytes")
    try:
        root = etree.fromstring(data, _parser())
    except etree.XMLSyntaxError as e:
        raise XMLSignatureError("malformed", f"not well-formed XML ({e})") from None
    info = root.getroottree().docinfo
    if info.doctype or info.internalDTD is not None or info.externalDTD is not None:
        raise XMLSignatureError("DTD refused", "a DOCTYPE (DTDs and entities are refused)")
    _limits(root)
    return root


def _limits(root):
    """The C library's limits (its scan.c, before libxml2 parses), on the
    tree before any canonicalization: libxml2's C14N, lxml's too, spends
    time quadratic in one element's attributes. The same texts as C's."""
    def big(why):
        return XMLSignatureError("too large", why)
    nodes, todo = 0, [(root, 1, {})]  # an element, its depth, its parent's namespaces
    while todo:
        el, depth, outer = todo.pop()
        nodes += 1 + (el.tail is not None)
        if not isinstance(el.tag, str):  # a comment or PI
            continue
        if depth > _MAX_DEPTH:
            raise big(f"elements nested over {_MAX_DEPTH} deep")
        local = etree.QName(el).localname
        name = f"{el.prefix}:{local}" if el.prefix else local
        ns = el.nsmap
        if len(ns) > _MAX_NS:
            raise big(f"over {_MAX_NS} namespace declarations in scope at <{name[:64]}>")
        declared = sum(outer.get(p) != uri for p, uri in ns.items())
        if len(el.attrib) + declared > _MAX_ATTRS:
            raise big(f"<{name[:64]}> has over {_MAX_ATTRS} attributes (namespace declarations "
                      "included)")
        if max([len(name.encode())] + [len(etree.QName(k).localname.encode()) for k in el.attrib]) \
                > _MAX_NAME:
            raise big(f"a name over {_MAX_NAME} bytes")
        nodes += len(el.attrib) + (el.text is not None)
        if nodes > _MAX_NODES:
            raise big(f"over {_MAX_NODES} nodes (elements, attributes, text, comments, PIs) in one "
                      "document")
        todo.extend((child, depth + 1, ns) for child in el)


def _ids(el):
    a = el.attrib
    return [a[k] for k in ("Id", "ID", "id", "{%s}Id" % WSU) if k in a]


def _find_id(root, ident):
    """The element of Id ident (None when none; ident None: just the check
    that every Id is unique)."""
    seen, found = set(), None
    for el in root.iter(tag=etree.Element):
        for i in _ids(el):
            if i in seen:
                raise XMLSignatureError("duplicate Id",
                                        f'the Id "{i[:100]}" is on two elements '
                                        "(signature wrapping?)")
            seen.add(i)
            if i == ident:
                found = el
    return found


def _is(el, ns, name):
    return isinstance(el.tag, str) and el.tag == "{%s}%s" % (ns, name)


def _child(el, name):
    return next((c for c in el if _is(c, DS, name)), None)


def _digest(alg, data):
    h = {32: streebog256, 64: streebog512, 94: gost94}[alg]()
    h.update(data)
    return h.digest()


def _detached(sig):
    """sig out of the tree for a while (the enveloped-signature transform),
    its tail text left where it was: a restore function."""
    parent, tail = sig.getparent(), sig.tail
    prev, idx = sig.getprevious(), parent.index(sig)
    old = prev.tail if prev is not None else parent.text
    if tail:
        if prev is not None:
            prev.tail = (prev.tail or "") + tail
        else:
            parent.text = (parent.text or "") + tail
    parent.remove(sig)

    def restore():
        if prev is not None:
            prev.tail = old
        else:
            parent.text = old
        parent.insert(idx, sig)
        sig.tail = tail
    return restore


def _inherited_xml_attrs(el):
    """el given, for a while, its ancestors' xml:* attributes (the nearest of
    each name) that it lacks: Canonical XML 1.0 writes them on the apex of a
    subtree (its section 2.4, as libxml2 does for gostx xml), lxml's c14n of
    an element leaves them out. A restore function."""
    added = []
    for a in el.iterancestors():
        for k, v in a.attrib.items():
            if k.startswith("{%s}" % _XML_NS) and k not in el.attrib:
                el.set(k, v)
                added.append(k)

    def restore():
        for k in added:
            del el.attrib[k]
    return restore


def _canonical(target, sig, t):
    """target's octets as the transforms t say (dict: enveloped, exclusive,
    comments, prefixes, smev)."""
    whole = isinstance(target, etree._ElementTree)  # URI="": every node is inside
    inside = sig is not None and (whole or any(a is target for a in sig.iterancestors()))
    restore = _detached(sig) if t["enveloped"] and inside else None
    inherit = None if whole or t["exclusive"] else _inherited_xml_attrs(target)
    try:
        octets = etree.tostring(target, method="c14n", exclusive=t["exclusive"],
                                with_comments=t["comments"],
                                inclusive_ns_prefixes=t["prefixes"] if t["exclusive"] else None)
    except etree.C14NError as e:  # a relative namespace URI, say: as gostx xml names it
        raise XMLSignatureError("malformed", f"canonicalization failed ({e})") from None
    finally:
        if inherit:
            inherit()
        if restore:
            restore()
    try:
        return _smev.transform(octets, _parser()) if t["smev"] else octets
    except (ValueError, etree.XMLSyntaxError) as e:
        raise XMLSignatureError("malformed", f"the SMEV transform: {e}") from None


def _c14n_of(el, t):
    """Transform or CanonicalizationMethod el (Algorithm known) into t."""
    if t["c14n"]:
        raise XMLSignatureError("unsupported algorithm", "two canonicalizations in one Reference")
    t["c14n"] = True
    t["exclusive"], t["comments"] = _C14N_ALGS[el.get("Algorithm")]
    inc = [c for c in el if _is(c, EXC, "InclusiveNamespaces")]
    if inc and t["exclusive"]:
        plist = inc[-1].get("PrefixList")
        if plist is None:
            raise XMLSignatureError("malformed", "a bad InclusiveNamespaces")
        t["prefixes"] = plist.split()


def _new_transforms():
    return {"enveloped": False, "c14n": False, "exclusive": False, "comments": False,
            "prefixes": None, "smev": False}


def _transforms(ref):
    t = _new_transforms()
    ts = _child(ref, "Transforms")
    els = [c for c in ts if isinstance(c.tag, str)] if ts is not None else []
    if len(els) > _MAX_TRANSFORMS or any(not _is(c, DS, "Transform") for c in els):
        raise XMLSignatureError("malformed", f"Transforms: not a Transform, or more than "
                                f"{_MAX_TRANSFORMS}")
    for c in els:
        alg = c.get("Algorithm")
        if alg is None:
            raise XMLSignatureError("malformed", "a Transform without Algorithm")
        if t["smev"]:
            raise XMLSignatureError("unsupported algorithm",
                                    f"a transform after the SMEV transform: {alg[:200]}")
        if alg == SMEV:
            t["smev"] = True
        elif alg == ENVELOPED and not t["c14n"] and not t["enveloped"]:
            t["enveloped"] = True
        elif alg in _C14N_ALGS:
            _c14n_of(c, t)
        else:
            name = _REFUSED.get(alg, "unknown")
            raise XMLSignatureError("unsupported algorithm",
                                    f"the {name} transform is refused: {alg[:200]}")
    return t


def _reference(root, ref):
    uri = ref.get("URI")
    if uri is None:
        raise XMLSignatureError("bad reference", "a Reference without URI")
    if uri == "":  # the whole document, its PIs outside the root too (XMLDSig 4.3.3.3)
        target = root.getroottree()
    elif uri.startswith("#") and not uri.startswith("#xpointer("):
        target = _find_id(root, uri[1:])
        if target is None:
            raise XMLSignatureError("bad reference",
                                    f'Reference URI="{uri[:200]}" names no element')
    else:  # #xpointer(/), #xpointer(id('x')) would keep comments: not taken either
        xp = uri.startswith("#")
        raise XMLSignatureError("unsupported algorithm" if xp else "bad reference",
                                f'Reference URI="{uri[:200]}": {"XPointer is refused, " if xp else ""}'
                                'only "" and "#Id" are taken')
    t = _transforms(ref)
    # "" and "#Id" dereference to a node set without comments (XMLDSig 1.1,
    # 4.3.3.3): a #WithComments canonicalization after them has none to keep
    t["comments"] = False
    dm, dv = _child(ref, "DigestMethod"), _child(ref, "DigestValue")
    alg = _DIGESTS.get(dm.get("Algorithm") if dm is not None else None)
    if not alg:
        raise XMLSignatureError("unsupported algorithm" if dm is not None else "malformed",
                                f'Reference "{uri}": digest not taken')
    digest = _b64(_text(dv))
    if digest is None or len(digest) != (64 if alg == 64 else 32):
        raise XMLSignatureError("malformed", f'Reference "{uri}": a DigestValue of the wrong '
                                "length or not base64")
    return uri, target, t, alg, digest


def _text(el):
    """el's text as gostx xml reads it: every text node below it, a comment
    or PI between them left out (lxml's .text stops at the first)."""
    return el.xpath("string()") if el is not None else None


def _b64(text):
    try:
        return base64.b64decode("".join((text or "").split()), validate=True) if text else None
    except ValueError:
        return None


def _signed_info(root, sig):
    els = [c for c in sig if isinstance(c.tag, str)]
    if not els or not _is(els[0], DS, "SignedInfo"):
        raise XMLSignatureError("malformed", "Signature's first element is not SignedInfo")
    si, refs = els[0], []
    kids = [c for c in si if isinstance(c.tag, str)]
    if len(kids) < 3 or not _is(kids[0], DS, "CanonicalizationMethod") or \
            not _is(kids[1], DS, "SignatureMethod"):
        raise XMLSignatureError("malformed", "SignedInfo: not CanonicalizationMethod, "
                                "SignatureMethod, Reference...")
    if kids[0].get("Algorithm") not in _C14N_ALGS:
        raise XMLSignatureError("unsupported algorithm",
                                f"CanonicalizationMethod {kids[0].get('Algorithm')} not taken")
    c14n = _new_transforms()
    _c14n_of(kids[0], c14n)
    method = _SIGS.get(kids[1].get("Algorithm"))
    if not method:
        raise XMLSignatureError("unsupported algorithm",
                                f"SignatureMethod {kids[1].get('Algorithm')} not taken")
    for r in kids[2:]:
        if not _is(r, DS, "Reference"):
            raise XMLSignatureError("malformed",
                                    f"SignedInfo: unexpected <{etree.QName(r).localname}>")
        if len(refs) == _MAX_REFS:
            raise XMLSignatureError("malformed", f"more than {_MAX_REFS} References")
        refs.append(_reference(root, r))
    return si, c14n, method, refs


def _cert(text, where):
    der = _b64(text)
    try:
        return Certificate._parse(der or b"")
    except VerificationError as e:
        raise XMLSignatureError("malformed", f"{where}: a certificate that does not parse "
                                f"({e.status.text})") from None


def _key_info(root, sig):
    """KeyInfo's certificates, the signer's first: X509Data, or a
    WS-Security SecurityTokenReference to a BinarySecurityToken by Id."""
    certs, ki = [], _child(sig, "KeyInfo")
    for c in (ki if ki is not None else []):
        if _is(c, DS, "X509Data"):
            certs += [_cert(_text(x), "KeyInfo") for x in c if _is(x, DS, "X509Certificate")]
        elif _is(c, WSSE, "SecurityTokenReference"):
            for r in (r for r in c if _is(r, WSSE, "Reference")):
                uri = r.get("URI") or ""
                tok = _find_id(root, uri[1:]) if uri.startswith("#") else None
                if tok is None or not _is(tok, WSSE, "BinarySecurityToken"):
                    raise XMLSignatureError("no certificate",
                                            "SecurityTokenReference names no BinarySecurityToken")
                for name, want in (("ValueType", X509V3), ("EncodingType", BASE64)):
                    if tok.get(name) not in (None, want):
                        raise XMLSignatureError("no certificate", f"BinarySecurityToken of {name} "
                                                f"{tok.get(name)[:200]}: an X.509v3 certificate "
                                                "in base64 is taken")
                certs.append(_cert(_text(tok), "BinarySecurityToken"))
        if len(certs) > 8:
            raise XMLSignatureError("malformed", "KeyInfo: more than 8 certificates")
    if not certs:
        raise XMLSignatureError("no certificate", "KeyInfo gives no certificate")
    return certs


def _check_value(sig, si, c14n, method, leaf):
    alg, legacy = method
    size = 64 if alg == 64 else 32
    if leaf._c.key_alg != getattr(lib, _KEY_ALGS[method]) or leaf._c.pub_len != 2 * size:
        raise XMLSignatureError("key mismatch",
                                "the certificate's key is not of SignatureMethod's algorithm")
    sv = _child(sig, "SignatureValue")
    value = _b64(_text(sv))
    if value is None or len(value) != 2 * size:
        raise XMLSignatureError("malformed",
                                f"SignatureValue missing, not base64 or not {2 * size} bytes")
    h = _digest(alg, _canonical(si, None, c14n))
    # SignatureValue is s || r, each half big-endian; gostx takes r || s
    try:
        leaf.public_key().verify(value[size:] + value[:size], h, prehashed=True)
    except InvalidSignature:
        raise XMLSignatureError("bad signature", "SignatureValue does not verify under the "
                                "certificate's key") from None


def _store(cafile, cadata, store):
    if store is not None:
        return store
    if cafile is None and cadata is None:
        raise GostxTypeError("verify needs trust anchors: cafile, cadata or store (KeyInfo's "
                             "certificate is never trusted by itself)")
    s = Store()
    s.load_verify_locations(cafile=cafile, cadata=cadata)
    return s


def _qname(el):
    q = etree.QName(el)
    return f"{el.prefix}:{q.localname}" if el.prefix else q.localname


def _copies(sigs):
    """A copy of a Signature adds nothing signed, only a place an application
    may look at (wrapping): two with one SignatureValue are refused."""
    seen = {}
    for i, sig in enumerate(sigs):
        sv = _child(sig, "SignatureValue")
        value = _b64(sv.text if sv is not None else None)
        if value and value in seen:
            raise XMLSignatureError("a second signature", f"Signature {i + 1} is a copy of "
                                    f"Signature {seen[value] + 1} (the same SignatureValue)",
                                    signature=i + 1)
        seen.setdefault(value, i)


def _into_other(sigs, own, target):
    """The index of the other Signature whose own nodes hold target (the
    Signature, its SignedInfo, KeyInfo...: its ds:Objects' content is
    another document's), or None."""
    below = None
    for a in [target, *target.iterancestors()]:
        if a is not own and _is(a, DS, "Signature") and (below is None or
                                                          not _is(below, DS, "Object")):
            return next(k for k, s in enumerate(sigs) if s is a)
        below = a
    return None


def _verify_one(root, sigs, i, anchors, untrusted, at, lax):
    """Signature i on its own: its References, SignatureValue and chain; what
    it signed as (uri, octets, signer)."""
    sig = sigs[i]
    si, c14n, method, refs = _signed_info(root, sig)
    for uri, target, *_ in refs:
        k = None if isinstance(target, etree._ElementTree) else _into_other(sigs, sig, target)
        if k is not None:
            raise XMLSignatureError("a second signature",
                                    f'Reference "{uri}" names a part of Signature {k + 1}')
    certs = _key_info(root, sig)
    out = []
    for uri, target, t, alg, digest in refs:
        octets = _canonical(target, sig, t)
        if _digest(alg, octets) != digest:
            raise XMLSignatureError("digest mismatch",
                                    f'Reference "{uri}": the digest differs (content changed)')
        out.append((uri, octets, certs[0]))
    _check_value(sig, si, c14n, method, certs[0])
    try:
        anchors.verify(certs[0], untrusted=[*certs[1:], *untrusted],
                       at=int(time.time()) if at is None else at, lax=lax)
    except VerificationError as e:
        raise XMLSignatureError("certificate chain", e.why, x509=e) from None
    return out


def verify(xml, cafile=None, *, cadata=None, store=None, untrusted=(), at=None, lax=False):
    """Verify every Signature of xml (bytes), in document order, each on its
    own: every Reference's digest, the SignatureValue under its KeyInfo's
    certificate, and that certificate's chain to an anchor (cafile / cadata,
    or a gostx.x509.Store) through KeyInfo's other certificates and
    untrusted (Certificates), at the time at (default now; lax: RFC 5280's
    profile rules not enforced, as -x509_lax). A Signature may lie inside
    what another signs (SMEV 3's sender signature in the Response SMEV
    signs); one that copies another, or a Reference to another Signature's
    own nodes, is "a second signature". Returns a list of Signed, one per
    Reference of each Signature: what was signed, the only data to consume.
    Raises XMLSignatureError (naming the Signature refused)."""
    anchors = _store(cafile, cadata, store)
    root = _parse(xml)
    sigs = list(root.iter("{%s}Signature" % DS))
    if not sigs:
        raise XMLSignatureError("no signature", "no Signature")
    if len(sigs) > _MAX_SIGS:
        raise XMLSignatureError("too large", f"more than {_MAX_SIGS} Signature elements")
    _find_id(root, None)
    out, n = [], None
    try:
        _copies(sigs)
        for n in range(1, len(sigs) + 1):
            out += [(uri, o, c, n) for uri, o, c in
                    _verify_one(root, sigs, n - 1, anchors, untrusted, at, lax)]
    except XMLSignatureError as e:
        n = e.signature or n
        if n is None or len(sigs) == 1:
            raise
        parent = sigs[n - 1].getparent()
        where = f" in {_qname(parent)}" if parent is not None else ""
        raise XMLSignatureError(e.status, e.why, e.x509, signature=n,
                                where=f"Signature {n} of {len(sigs)}{where}: ") from None
    return [Signed(uri, o, etree.fromstring(o, _parser()), n, c) for uri, o, c, n in out]


_FORMS = ("enveloped", "enveloping", "detached")


def _E(parent, tag, ns=DS, **attrib):
    return etree.SubElement(parent, "{%s}%s" % (ns, tag), attrib)


def _skeleton(uri, form, inclusive, smev, size):
    """The Signature, its DigestValue, SignatureValue and KeyInfo empty."""
    c14n = C14N if inclusive else EXC
    sig = etree.Element("{%s}Signature" % DS, nsmap={"ds": DS})
    si = _E(sig, "SignedInfo")
    _E(si, "CanonicalizationMethod", Algorithm=c14n)
    _E(si, "SignatureMethod", Algorithm=_CP + "gostr34102012-gostr34112012-%d" % (8 * size))
    ref = _E(si, "Reference", URI=uri)
    ts = _E(ref, "Transforms")
    if form == "enveloped":
        _E(ts, "Transform", Algorithm=ENVELOPED)
    _E(ts, "Transform", Algorithm=c14n)
    if smev:
        _E(ts, "Transform", Algorithm=SMEV)
    _E(ref, "DigestMethod", Algorithm=_CP + "gostr34112012-%d" % (8 * size))
    dv = _E(ref, "DigestValue")
    sv = _E(sig, "SignatureValue")
    return sig, si, dv, sv, _E(sig, "KeyInfo")


def _slot(target):
    """A detached Signature's parent: the empty *Signature element after
    target (SMEV 3's CallerInformationSystemSignature), else None."""
    nx = next((n for n in target.itersiblings() if isinstance(n.tag, str)), None)
    if nx is None or _is(nx, DS, "Signature") or any(isinstance(c.tag, str) for c in nx):
        return None
    return nx if etree.QName(nx).localname.endswith("Signature") else None


def _wsse_target(root, ref):
    if not any(_is(root, ns, "Envelope") for ns in SOAP):
        raise XMLSignatureError("malformed", f"wsse signs a SOAP Envelope (1.1 or 1.2), not "
                                f"<{etree.QName(root).localname}>")
    if ref:
        return _by_id(root, ref), ref
    body = next((c for c in root if _is(c, etree.QName(root).namespace, "Body")), None)
    if body is None:
        raise XMLSignatureError("malformed", "the Envelope has no Body")
    ids = _ids(body)
    return (body, ids[0]) if ids else (_with_wsu_id(root, body), "body")


def _with_wsu_id(root, body):
    """body given wsu:Id="body", the wsu prefix declared on it (lxml adds
    declarations only to a new element: body's content moves to one)."""
    own = {p: u for p, u in body.nsmap.items() if root.nsmap.get(p) != u}
    if own.get("wsu", WSU) == WSU and body.nsmap.get("wsu", WSU) == WSU:
        own["wsu"] = WSU
    new = etree.SubElement(root, body.tag, nsmap=own)
    body.addprevious(new)
    for k, v in body.attrib.items():
        new.set(k, v)
    new.set("{%s}Id" % WSU, "body")
    new.text, new.tail = body.text, body.tail
    for c in list(body):
        new.append(c)
    root.remove(body)
    return new


def _wsse_place(root, target, sig, ki, cert):
    ns = etree.QName(root).namespace
    hdr = next((c for c in root if _is(c, ns, "Header")), None)
    if hdr is None:
        hdr = etree.Element("{%s}Header" % ns)
        root.insert(0, hdr)  # text before it (whitespace) stays where it was
    if target is root or any(a is target for a in hdr.iterancestors()):
        raise XMLSignatureError("bad reference", "wsse: the element signed holds the SOAP "
                                "Header (sign the Body)")
    nsmap = {"wsse": WSSE} if hdr.nsmap.get("wsu") not in (None, WSU) else \
        {"wsse": WSSE, "wsu": WSU}
    sec = etree.SubElement(hdr, "{%s}Security" % WSSE, nsmap=nsmap)
    tok = _E(sec, "BinarySecurityToken", WSSE, EncodingType=BASE64, ValueType=X509V3)
    tok.set("{%s}Id" % WSU, "X509Token")
    tok.text = base64.b64encode(cert.public_bytes("DER")).decode()
    sec.append(sig)
    _E(_E(ki, "SecurityTokenReference", WSSE), "Reference", WSSE, URI="#X509Token",
       ValueType=X509V3)


def _by_id(root, ident):
    el = _find_id(root, ident)
    if el is None:
        raise XMLSignatureError("bad reference", f'no element has the Id "{ident[:200]}"')
    return el


def sign(xml, key, cert, ref="", smev=False, wsse=False, *, form="enveloped", inclusive=False,
         chain=()):
    """Sign xml (bytes) with key (a gostx.PrivateKey) whose certificate is
    cert (a gostx.x509.Certificate): the signed document, bytes. ref "" the
    whole document, else the element of that Id (Id, ID, id or wsu:Id);
    form "enveloped" (the Signature inside it), "enveloping" (the document
    inside the Signature's ds:Object of Id ref, or "object") or "detached"
    (beside the element, or in the empty *Signature element after it);
    smev: SMEV 3's transform after the c14n; wsse: WS-Security's form (the
    Signature in the SOAP Header beside a BinarySecurityToken of cert, ref
    "" the Body); inclusive: Canonical XML 1.0 instead of exclusive; chain:
    intermediates put in X509Data after cert. As `gostx xml sign`."""
    if not isinstance(key, PrivateKey) or not isinstance(cert, Certificate):
        raise GostxTypeError("sign takes a gostx.PrivateKey and a gostx.x509.Certificate")
    if form not in _FORMS:
        raise GostxValueError(f"form must be one of {', '.join(_FORMS)}, not {form!r}")
    if wsse and (form == "enveloping" or chain):
        raise XMLSignatureError("unsupported algorithm", "WS-Security's form is detached, its "
                                "token the signer's certificate alone")
    if cert.public_key() != key.public_key():
        raise XMLSignatureError("key mismatch", "the key is not the certificate's")
    if len(ref) > 200:
        raise XMLSignatureError("bad reference", "an Id over 200 bytes")
    size = key.key_size // 8
    root = _parse(xml)
    if wsse:
        form = "detached"
        target, ident = _wsse_target(root, ref)
    else:
        _find_id(root, None)
        target = _by_id(root, ref) if ref and form != "enveloping" else root
        ident = "object" if form == "enveloping" and not ref else ref
    sig, si, dv, sv, ki = _skeleton("#" + ident if ident else "", form, inclusive, smev, size)
    if wsse:
        _wsse_place(root, target, sig, ki, cert)
    elif form == "enveloped":
        target.append(sig)
    elif form == "detached":
        if target is root:
            raise XMLSignatureError("bad reference", "a detached signature needs the Id of an "
                                    "element other than the root")
        slot = _slot(target)
        if slot is not None:
            slot.append(sig)
        else:
            target.addnext(sig)
            sig.tail, target.tail = target.tail, None  # the text after target stays after it
    else:
        obj = _E(sig, "Object", Id=ident)
        obj.append(root)
        root = target = sig
    root = root.getroottree().getroot()
    _find_id(root, None)  # an Id the signing added is unique too
    if form == "enveloping":
        target = _by_id(root, ident)
    if not wsse:
        kd = _E(ki, "X509Data")
        for c in (cert, *chain):
            _E(kd, "X509Certificate").text = base64.b64encode(c.public_bytes("DER")).decode()
    t = dict(_new_transforms(), enveloped=form == "enveloped", c14n=True, exclusive=not inclusive,
             smev=smev)
    whole = root.getroottree() if not ident else target  # URI="": the document
    dv.text = base64.b64encode(_digest(size, _canonical(whole, sig, t))).decode()
    t = dict(_new_transforms(), c14n=True, exclusive=not inclusive)
    rs = key.sign(_digest(size, _canonical(si, None, t)), prehashed=True)
    sv.text = base64.b64encode(rs[size:] + rs[:size]).decode()  # s || r
    return etree.tostring(root.getroottree(), xml_declaration=True, encoding="UTF-8")
