"""XML signatures (XMLDSig) with GOST R 34.10-2012 and Streebog through
libgostx-xmldsig, the C library under `gostx xml` (integrations/xmldsig/,
docs/XMLDSIG.md): it parses, canonicalizes, applies the SMEV 3 transform,
signs and verifies, so the two cannot disagree on a document. lxml only
parses what was signed into the elements handed back.

    signed = gostx.xmldsig.sign(xml, key, cert, ref="SIGNED_BY_CONSUMER", smev=True)
    for part in gostx.xmldsig.verify(signed, cafile="ca.pem"):
        consume(part.element)   # what was signed, after its transforms: nothing else

verify checks every Signature of the document (SMEV 3's responses carry two)
and returns only what their References signed (their octets after the
transforms, and those parsed again): an application that reads those and
never the document it came in cannot be fooled by an element moved, copied
or added elsewhere (signature wrapping). Refusals raise XMLSignatureError
with the status `gostx xml verify` names ("digest mismatch", "duplicate Id",
"certificate chain", ...). Needs lxml (pip install lxml) and a gostx built
with libxml2 (python/CMakeLists.txt: GOSTX_XMLDSIG)."""
import collections
import time

from lxml import etree

from ._native import GostxError, GostxTypeError, GostxValueError, ffi, held, lib, rbuf
from .gost3410 import PrivateKey
from .x509 import Certificate, Store, VerificationError

if not hasattr(lib, "gostx_xmldsig_sign"):
    raise ImportError("gostx.xmldsig: this gostx was built without libgostx-xmldsig (libxml2's "
                      "headers were not found: apt-get install libxml2-dev, then reinstall)")

lib.gxpy_xmldsig_init()  # under the GIL, before any thread signs or verifies

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
MAX_SIZE = lib.GOSTX_XMLDSIG_MAX_SIZE

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


def _text(chars):
    return ffi.string(chars).decode(errors="replace")


def _status(st):
    return _text(lib.gostx_xmldsig_status_name(st))


def _certs(certs, what):
    """certs (Certificates) as a gostx_x509_cert[] (NULL when none)."""
    for c in certs:
        if not isinstance(c, Certificate):
            raise GostxTypeError(f"{what}: a gostx.x509.Certificate, not {type(c).__name__!r}")
    arr = ffi.new("gostx_x509_cert[]", max(len(certs), 1))
    for i, c in enumerate(certs):
        arr[i] = c._c[0]
    return arr if certs else ffi.NULL


def _store(cafile, cadata, store):
    if store is not None:
        return store
    if cafile is None and cadata is None:
        raise GostxTypeError("verify needs trust anchors: cafile, cadata or store (KeyInfo's "
                             "certificate is never trusted by itself)")
    s = Store()
    s.load_verify_locations(cafile=cafile, cadata=cadata)
    return s


def _refused(st, r):
    """The XMLSignatureError of verify's status st and result r."""
    x509 = VerificationError(r.x509, _text(r.why), r.depth) if st == lib.GOSTX_XMLDSIG_CHAIN \
        else None
    n, where = r.failed, ""
    if n and r.nsig > 1:
        parent = _text(r.sig[n - 1].where)
        where = f"Signature {n} of {r.nsig}{' in ' + parent if parent else ''}: "
    return XMLSignatureError(_status(st), _text(r.why), x509, signature=n if where else None,
                             where=where)


def _parser():
    # what was signed is canonical XML: no DTD, nothing fetched, CDATA as text
    return etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False,
                           huge_tree=False, strip_cdata=True, remove_blank_text=False)


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
    untrusted = list(untrusted)
    more = _certs(untrusted, "untrusted")
    now = int(time.time()) if at is None else int(at.timestamp() if hasattr(at, "timestamp")
                                                  else at)
    opts, r = ffi.new("gostx_x509_verify_opts *"), ffi.new("gostx_xmldsig_result *")
    lib.gostx_x509_verify_opts_init(opts, now)
    if lax:
        opts.flags |= lib.GOSTX_X509_VERIFY_LAX
    data = rbuf(xml)
    st = lib.gostx_xmldsig_verify_untrusted(data, len(data), anchors._h, opts, more,
                                            len(untrusted), r)
    if st != lib.GOSTX_XMLDSIG_OK:
        raise _refused(st, r)
    try:
        signers = [Certificate._parse(bytes(ffi.buffer(s.cert, s.cert_len)))
                   for s in r.sig[0:r.nsig]]
        out = []
        for ref in r.ref[0:r.refs]:
            octets = bytes(ffi.buffer(r.signed_data + ref.offset, ref.len))
            out.append(Signed(_text(ref.uri), octets, etree.fromstring(octets, _parser()),
                              ref.signature, signers[ref.signature - 1]))
        return out
    finally:
        lib.gostx_xmldsig_result_free(r)


_FORMS = {"enveloped": lib.GOSTX_XMLDSIG_ENVELOPED, "enveloping": lib.GOSTX_XMLDSIG_ENVELOPING,
          "detached": lib.GOSTX_XMLDSIG_DETACHED}


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
    ident = ref.encode()
    if b"\0" in ident:  # C would read the Id up to it: another element's, perhaps
        raise XMLSignatureError("bad reference", "an Id with a NUL character")
    chain = list(chain)
    extra = _certs(chain, "chain")
    der = ffi.from_buffer(cert._der)
    opts = ffi.new("gostx_xmldsig_sign_opts *")
    ref_c = ffi.new("char[]", ident)
    opts.ref, opts.form, opts.inclusive, opts.smev = ref_c, _FORMS[form], inclusive, smev
    opts.wsse, opts.cert_der, opts.cert_len = wsse, der, len(cert._der)
    opts.chain, opts.chain_n = extra, len(chain)
    out, n, err = ffi.new("uint8_t **"), ffi.new("size_t *"), ffi.new("char[]", 512)
    data = rbuf(xml)
    with held(key), key._token_calls():  # a token's failure named by its own error
        k = key._c_key()
        try:
            st = lib.gostx_xmldsig_sign(data, len(data), opts, k, out, n, err, len(err))
        finally:
            lib.gostx_gost3410_key_clear(k)
        if st != lib.GOSTX_XMLDSIG_OK:
            raise XMLSignatureError(_status(st), _text(err))
    try:
        return bytes(ffi.buffer(out[0], n[0]))
    finally:
        lib.free(out[0])
