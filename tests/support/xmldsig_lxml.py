#!/usr/bin/env python3
"""A second XMLDSig implementation for tests/test_xml_interop.sh: lxml's
parser and exclusive C14N, openssl + gost-engine's Streebog and GOST R
34.10-2012 (`openssl dgst -sign/-verify`, s || r big-endian as it writes
them). Nothing of gostx.

  xmldsig_lxml.py verify IN.xml      (prints the referenced element's octets)
  xmldsig_lxml.py sign IN.xml ID KEY.pem CERT.pem BITS OUT.xml [PREFIXES [comments]]
Enveloped signatures by Id with exc-c14n only (PREFIXES: the Reference's
InclusiveNamespaces PrefixList, space-separated; "comments": exc-c14n
#WithComments, which after URI="#Id" keeps none: XMLDSig 1.1 4.3.3.3 dereferences
a same-document URI without them): what the test needs."""
import base64
import os
import subprocess
import sys
import tempfile

from lxml import etree

DS = "http://www.w3.org/2000/09/xmldsig#"
EXC = "http://www.w3.org/2001/10/xml-exc-c14n#"
ENV = DS + "enveloped-signature"
CP = "urn:ietf:params:xml:ns:cpxmlsec:algorithms:"


def parse(path):
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)
    return etree.parse(path, parser)


def c14n(el, prefixes=None):
    return etree.tostring(el, method="c14n", exclusive=True, with_comments=False,
                          inclusive_ns_prefixes=prefixes)


def by_id(doc, ident):
    found = doc.xpath("//*[@Id=$i]", i=ident)
    if len(found) != 1:
        sys.exit("xmldsig_lxml: Id %r on %d elements" % (ident, len(found)))
    return found[0]


def ossl(args, data):
    env = dict(os.environ, OPENSSL_CONF=os.environ["GOST_ENGINE_CNF"])
    r = subprocess.run(["openssl"] + args, input=data, capture_output=True, env=env)
    return r.returncode, r.stdout


def digest(bits, data):
    rc, out = ossl(["dgst", "-md_gost12_%d" % bits, "-binary"], data)
    if rc:
        sys.exit("xmldsig_lxml: openssl dgst failed")
    return out


def referenced_octets(doc, sig, ref):
    """The octets of an enveloped Reference to #Id: the element, less the
    Signature, in exclusive C14N."""
    target = by_id(doc, ref.get("URI")[1:])
    algs = [t.get("Algorithm") for t in ref.iterfind("{%s}Transforms/{%s}Transform" % (DS, DS))]
    if algs not in ([ENV, EXC], [ENV, EXC + "WithComments"]):  # no comments either way
        sys.exit("xmldsig_lxml: transforms %r not taken" % algs)
    parent = sig.getparent()
    pos = parent.index(sig)
    parent.remove(sig)
    try:
        return c14n(target)
    finally:
        parent.insert(pos, sig)


def verify(path):
    doc = parse(path)
    sig = doc.find(".//{%s}Signature" % DS)
    si = sig.find("{%s}SignedInfo" % DS)
    method = si.find("{%s}SignatureMethod" % DS).get("Algorithm")
    bits = {CP + "gostr34102012-gostr34112012-256": 256,
            CP + "gostr34102012-gostr34112012-512": 512}[method]
    ref = si.find("{%s}Reference" % DS)
    octets = referenced_octets(doc, sig, ref)
    want = base64.b64decode(ref.findtext("{%s}DigestValue" % DS))
    if digest(bits, octets) != want:
        sys.exit("xmldsig_lxml: digest mismatch")
    cert = base64.b64decode(sig.findtext(".//{%s}X509Certificate" % DS))
    value = base64.b64decode(sig.findtext("{%s}SignatureValue" % DS))
    with tempfile.TemporaryDirectory() as d:
        open(d + "/c.der", "wb").write(cert)
        open(d + "/s.bin", "wb").write(value)
        rc, pub = ossl(["x509", "-inform", "DER", "-in", d + "/c.der", "-pubkey", "-noout"], b"")
        open(d + "/p.pem", "wb").write(pub)
        rc, _ = ossl(["dgst", "-md_gost12_%d" % bits, "-verify", d + "/p.pem", "-signature",
                      d + "/s.bin"], c14n(si))
    if rc:
        sys.exit("xmldsig_lxml: SignatureValue does not verify")
    sys.stdout.buffer.write(octets)


def sign(path, ident, key, cert_pem, bits, out, prefixes="", comments=""):
    bits = int(bits)
    exc_uri = EXC + "WithComments" if comments == "comments" else EXC
    plist = prefixes.split() or None
    doc = parse(path)
    target = by_id(doc, ident)
    E = lambda tag, parent, **a: etree.SubElement(parent, "{%s}%s" % (DS, tag), **a)
    octets = c14n(target, plist)  # before the Signature is added: what enveloped removes
    sig = etree.SubElement(target, "{%s}Signature" % DS, nsmap={"ds": DS})
    si = E("SignedInfo", sig)
    E("CanonicalizationMethod", si, Algorithm=exc_uri)
    E("SignatureMethod", si, Algorithm=CP + "gostr34102012-gostr34112012-%d" % bits)
    ref = E("Reference", si, URI="#" + ident)
    ts = E("Transforms", ref)
    E("Transform", ts, Algorithm=ENV)
    exc = E("Transform", ts, Algorithm=exc_uri)
    if plist:
        etree.SubElement(exc, "{%s}InclusiveNamespaces" % EXC, nsmap={"ec": EXC},
                         PrefixList=" ".join(plist))
    E("DigestMethod", ref, Algorithm=CP + "gostr34112012-%d" % bits)
    E("DigestValue", ref).text = base64.b64encode(digest(bits, octets)).decode()
    rc, value = ossl(["dgst", "-md_gost12_%d" % bits, "-sign", key], c14n(si))
    if rc:
        sys.exit("xmldsig_lxml: openssl dgst -sign failed")
    E("SignatureValue", sig).text = base64.b64encode(value).decode()
    rc, der = ossl(["x509", "-in", cert_pem, "-outform", "DER"], b"")
    E("X509Certificate", E("X509Data", E("KeyInfo", sig))).text = base64.b64encode(der).decode()
    doc.write(out, xml_declaration=True, encoding="UTF-8")


if __name__ == "__main__":
    {"verify": verify, "sign": sign}[sys.argv[1]](*sys.argv[2:])
