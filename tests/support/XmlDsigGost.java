// Apache Santuario (Debian's libxml-security-java) with BouncyCastle's GOST
// algorithms registered under the CryptoPro cpxmlsec URIs, and the SMEV 3
// transform as a Santuario Transform written here from the rules of SMEV 3's
// methodological recommendations: an XMLDSig implementation that shares
// nothing with gostx, for tests/test_xml_santuario.sh.
//
// Operations, as many as given, in order:
//   sign KEY CERT IN OUT REF MODE
//     KEY: PKCS#8 PEM (gostx genpkey), CERT: its certificate (PEM); REF ""
//     for the whole document, else an Id; MODE: enveloped (enveloped-signature
//     + exc-c14n), comments (the same with exc-c14n#WithComments), smev
//     (enveloped + the SMEV transform) or smev-detached (exc-c14n + the SMEV
//     transform, the Signature in an element after the signed one, as SMEV 3
//     messages carry it); OUT.signed: what it signed.
//   verify CA FILE
//     the one ds:Signature of FILE under the certificate of its KeyInfo,
//     which must be signed by CA's key (PEM); writes what each Reference
//     signed (its octets after the transforms) to FILE.signed.
//   verify-each CA,CA... FILE
//     every ds:Signature of FILE, in document order, each under the
//     certificate of its KeyInfo, signed by one of the CAs; FILE.signed what
//     each Reference of each signed, one after another.
// One line per operation, "ok ..." or "FAIL ...": the exit status is how
// many failed (one JVM for all: it is slow to start).
// usage: java -cp xmlsec.jar:slf4j-api.jar:bcprov.jar:bcutil.jar XmlDsigGost.java ...
import java.io.ByteArrayInputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.security.Key;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Security;
import java.security.Signature;
import java.security.spec.AlgorithmParameterSpec;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.X509EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;

import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;

import org.apache.xml.security.Init;
import org.apache.xml.security.algorithms.JCEMapper;
import org.apache.xml.security.algorithms.SignatureAlgorithm;
import org.apache.xml.security.algorithms.SignatureAlgorithmSpi;
import org.apache.xml.security.c14n.Canonicalizer;
import org.apache.xml.security.keys.content.X509Data;
import org.apache.xml.security.signature.SignedInfo;
import org.apache.xml.security.signature.XMLSignature;
import org.apache.xml.security.signature.XMLSignatureException;
import org.apache.xml.security.signature.XMLSignatureInput;
import org.apache.xml.security.transforms.Transform;
import org.apache.xml.security.transforms.TransformSpi;
import org.apache.xml.security.transforms.Transforms;
import org.apache.xml.security.utils.XMLUtils;
import org.bouncycastle.asn1.ASN1Encodable;
import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.asn1.ASN1Sequence;
import org.bouncycastle.asn1.DEROctetString;
import org.bouncycastle.asn1.DERSequence;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.x509.AlgorithmIdentifier;
import org.bouncycastle.asn1.x509.Certificate;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
import org.bouncycastle.jce.provider.BouncyCastleProvider;
import org.w3c.dom.Attr;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NamedNodeMap;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

public class XmlDsigGost {
  static final String DS = "http://www.w3.org/2000/09/xmldsig#";
  static final String CP = "urn:ietf:params:xml:ns:cpxmlsec:algorithms:";
  static final String SIG_256 = CP + "gostr34102012-gostr34112012-256";
  static final String SIG_512 = CP + "gostr34102012-gostr34112012-512";
  static final String DIGEST_256 = CP + "gostr34112012-256";
  static final String DIGEST_512 = CP + "gostr34112012-512";
  // GOST R 34.10-2001 / R 34.11-94 as CryptoPro's SMEV 3 documents name them
  static final String SIG_2001 = "http://www.w3.org/2001/04/xmldsig-more#gostr34102001-gostr3411";
  static final String DIGEST_94 = "http://www.w3.org/2001/04/xmldsig-more#gostr3411";
  static final String SMEV = "urn://smev-gov-ru/xmldsig/transform";
  // BouncyCastle's names of the signatures
  static final String JCE_256 = "GOST3411-2012-256WITHECGOST3410-2012-256";
  static final String JCE_512 = "GOST3411-2012-512WITHECGOST3410-2012-512";
  static final String JCE_2001 = "GOST3411WITHECGOST3410";
  static final String WSU =
      "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd";

  // ---- GOST R 34.10 as a Santuario SignatureMethod -------------------------

  // BouncyCastle's "ECGOST3410-2012-256" family hashes what Santuario feeds
  // it, reads the digest as gost-engine and CryptoPro do, and writes and
  // reads the signature as s || r, each half big-endian: the order X.509 and
  // CMS carry (RFC 4491) and the one CryptoPro and gostx write in
  // SignatureValue. So the value passes through unchanged: the CryptoPro
  // sample verifying here and gostx's signatures verifying both ways, with
  // halves swapped refused, show it (tests/test_xml_santuario.sh).
  public abstract static class GostSignature extends SignatureAlgorithmSpi {
    private final Signature jca;
    private final String uri;

    GostSignature(String uri, String jceName) {
      this.uri = uri;
      try {
        jca = Signature.getInstance(jceName, "BC");
      } catch (Exception e) {
        throw new IllegalStateException(jceName + ": " + e);
      }
    }

    protected String engineGetURI() { return uri; }
    protected String engineGetJCEAlgorithmString() { return jca.getAlgorithm(); }
    protected String engineGetJCEProviderName() { return "BC"; }

    protected void engineUpdate(byte[] b) throws XMLSignatureException {
      engineUpdate(b, 0, b.length);
    }

    protected void engineUpdate(byte b) throws XMLSignatureException {
      engineUpdate(new byte[] {b}, 0, 1);
    }

    protected void engineUpdate(byte[] b, int off, int len) throws XMLSignatureException {
      try {
        jca.update(b, off, len);
      } catch (Exception e) {
        throw new XMLSignatureException(e);
      }
    }

    protected void engineInitSign(Key k) throws XMLSignatureException {
      engineInitSign(k, new SecureRandom());
    }

    protected void engineInitSign(Key k, SecureRandom r) throws XMLSignatureException {
      try {
        jca.initSign((PrivateKey) k, r);
      } catch (Exception e) {
        throw new XMLSignatureException(e);
      }
    }

    protected void engineInitSign(Key k, AlgorithmParameterSpec p) throws XMLSignatureException {
      engineInitSign(k);
    }

    protected byte[] engineSign() throws XMLSignatureException {
      try {
        return jca.sign();
      } catch (Exception e) {
        throw new XMLSignatureException(e);
      }
    }

    protected void engineInitVerify(Key k) throws XMLSignatureException {
      try {
        jca.initVerify((PublicKey) k);
      } catch (Exception e) {
        throw new XMLSignatureException(e);
      }
    }

    protected boolean engineVerify(byte[] v) throws XMLSignatureException {
      try {
        return jca.verify(v);
      } catch (Exception e) {
        throw new XMLSignatureException(e);
      }
    }

    protected void engineSetParameter(AlgorithmParameterSpec p) throws XMLSignatureException {
      throw new XMLSignatureException("empty", new Object[] {"no parameters for GOST R 34.10"});
    }

    protected void engineSetHMACOutputLength(int n) throws XMLSignatureException {
      throw new XMLSignatureException("empty", new Object[] {"not an HMAC"});
    }
  }

  public static final class Gost2012_256 extends GostSignature {
    public Gost2012_256() { super(SIG_256, JCE_256); }
  }

  public static final class Gost2012_512 extends GostSignature {
    public Gost2012_512() { super(SIG_512, JCE_512); }
  }

  public static final class Gost2001 extends GostSignature {
    public Gost2001() { super(SIG_2001, JCE_2001); }
  }

  // ---- the SMEV 3 transform -------------------------------------------------

  // The recommendations' steps over the octets the canonicalization before
  // it gave: no XML declaration, processing instruction or comment; text of
  // XML white space only dropped; every element written with a start and an
  // end tag; each namespace bound to a generated prefix ns1, ns2, ... (a
  // counter over the whole fragment) declared on the element that first uses
  // it where no ancestor in the output declares it, unused declarations
  // gone; the element's declaration first, then those its attributes need,
  // in the attributes' order; attributes sorted, the namespaced ones first
  // (by namespace URI, then local name), then the others by local name.
  // Characters are escaped as the reference transform's writer (Woodstox,
  // the recommendations' step 9) escapes them: see text() and attr().
  public static final class SmevTransform extends TransformSpi {
    public SmevTransform() {}

    protected String engineGetURI() { return SMEV; }

    protected XMLSignatureInput enginePerformTransform(XMLSignatureInput in, OutputStream os,
                                                       Transform t) throws java.io.IOException {
      try {
        byte[] octets = in.getBytes();
        Document d = parse(octets);
        SmevWriter w = new SmevWriter();
        w.element(d.getDocumentElement());
        return new XMLSignatureInput(w.out.toString().getBytes(StandardCharsets.UTF_8));
      } catch (java.io.IOException e) {
        throw e;
      } catch (Exception e) {
        throw new java.io.IOException("SMEV transform: " + e, e);
      }
    }
  }

  static final class SmevWriter {
    final StringBuilder out = new StringBuilder();
    final List<String> boundUri = new ArrayList<>(); // in scope, innermost last
    final List<Integer> boundNo = new ArrayList<>();
    int counter;

    int prefixOf(String uri) {
      for (int i = boundUri.size() - 1; i >= 0; i--)
        if (boundUri.get(i).equals(uri)) return boundNo.get(i);
      return 0;
    }

    // binds uri to the next generated prefix and writes its declaration
    int bind(String uri) {
      boundUri.add(uri);
      boundNo.add(++counter);
      out.append(" xmlns:ns").append(counter).append("=\"");
      attr(uri);
      out.append('"');
      return counter;
    }

    void name(int prefix, String local) {
      if (prefix != 0) out.append("ns").append(prefix).append(':');
      out.append(local);
    }

    static String ns(Node n) {
      String u = n.getNamespaceURI();
      return u == null || u.isEmpty() ? null : u;
    }

    void element(Element e) {
      int scope = boundUri.size();
      List<Attr> attrs = new ArrayList<>();
      NamedNodeMap m = e.getAttributes();
      for (int i = 0; i < m.getLength(); i++) {
        Attr a = (Attr) m.item(i);
        if (!XMLConstants.XMLNS_ATTRIBUTE_NS_URI.equals(a.getNamespaceURI())) attrs.add(a);
      }
      attrs.sort(Comparator.comparing((Attr a) -> ns(a) == null ? 1 : 0)
                     .thenComparing(a -> ns(a) == null ? "" : ns(a))
                     .thenComparing(Attr::getLocalName));
      String uri = ns(e);
      int p = uri == null ? 0 : prefixOf(uri);
      out.append('<');
      if (uri != null && p == 0) {
        name(counter + 1, e.getLocalName());
        p = bind(uri);
      } else {
        name(p, e.getLocalName());
      }
      for (Attr a : attrs)
        if (ns(a) != null && prefixOf(ns(a)) == 0) bind(ns(a));
      for (Attr a : attrs) {
        out.append(' ');
        name(ns(a) == null ? 0 : prefixOf(ns(a)), a.getLocalName());
        out.append("=\"");
        attr(a.getValue());
        out.append('"');
      }
      out.append('>');
      for (Node c = e.getFirstChild(); c != null; c = c.getNextSibling()) {
        if (c.getNodeType() == Node.ELEMENT_NODE) {
          element((Element) c);
        } else if (c.getNodeType() == Node.TEXT_NODE
            || c.getNodeType() == Node.CDATA_SECTION_NODE) {
          String s = c.getNodeValue();
          if (!s.chars().allMatch(ch -> ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r'))
            text(s);
        }
      }
      out.append("</");
      name(p, e.getLocalName());
      out.append('>');
      boundUri.subList(scope, boundUri.size()).clear();
      boundNo.subList(scope, boundNo.size()).clear();
    }

    // &, <, " as entities; tab, LF, CR as &#x9; &#xa; &#xd; (lower case)
    void attr(String s) {
      for (int i = 0; i < s.length(); i++) {
        char c = s.charAt(i);
        switch (c) {
          case '&': out.append("&amp;"); break;
          case '<': out.append("&lt;"); break;
          case '"': out.append("&quot;"); break;
          case '\r': out.append("&#xd;"); break;
          case '\t': out.append("&#x9;"); break;
          case '\n': out.append("&#xa;"); break;
          default: out.append(c);
        }
      }
    }

    // One text block: &, <, CR, U+007F..U+009F always escaped; > when first
    // or after ] (under 12 UTF-16 units), else when first in a 512-unit
    // chunk, right after an escaped character, or after ].
    void text(String s) {
      boolean longer = s.length() >= 12, afterEscape = false;
      for (int i = 0; i < s.length(); i++) {
        char c = s.charAt(i);
        String e = null;
        if (c == '&') e = "&amp;";
        else if (c == '<') e = "&lt;";
        else if (c == '\r') e = "&#xd;";
        else if (c >= 0x7F && c <= 0x9F) e = "&#x" + Integer.toHexString(c) + ";";
        else if (c == '>' && ((i > 0 && s.charAt(i - 1) == ']')
                              || (longer ? i % 512 == 0 || afterEscape : i == 0))) e = "&gt;";
        if (e != null) out.append(e); else out.append(c);
        afterEscape = e != null;
      }
    }
  }

  // ---- keys, certificates, documents -----------------------------------------

  // A namespace-aware DOM with no DOCTYPE taken (so no entities, no DTD fetched).
  static Document parse(byte[] xml) throws Exception {
    DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
    f.setNamespaceAware(true);
    f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
    f.setExpandEntityReferences(false);
    f.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
    return f.newDocumentBuilder().parse(new ByteArrayInputStream(xml));
  }

  static byte[] pem(String file) throws Exception {
    String s = Files.readString(Paths.get(file));
    return Base64.getMimeDecoder().decode(s.replaceAll("-----[A-Z ]+-----", ""));
  }

  static final String GOST_2012_256 = "1.2.643.7.1.1.1.1", GOST_2012_512 = "1.2.643.7.1.1.1.2";

  // GOST key parameters as BouncyCastle 1.72 reads them: the tc26 256-bit
  // curves' keys name no digest (R 1323565.1.024: the digest OID is omitted
  // there, as gostx writes them), which BouncyCastle takes for X9.62
  // parameters and refuses; the Streebog OID of the key's size is added.
  static AlgorithmIdentifier withDigest(AlgorithmIdentifier alg) {
    String oid = alg.getAlgorithm().getId();
    ASN1Encodable p = alg.getParameters();
    if (!(p instanceof ASN1Sequence) || ((ASN1Sequence) p).size() != 1
        || !(oid.equals(GOST_2012_256) || oid.equals(GOST_2012_512)))
      return alg;
    String digest = oid.equals(GOST_2012_256) ? "1.2.643.7.1.1.2.2" : "1.2.643.7.1.1.2.3";
    return new AlgorithmIdentifier(alg.getAlgorithm(), new DERSequence(new ASN1Encodable[] {
        ((ASN1Sequence) p).getObjectAt(0), new ASN1ObjectIdentifier(digest)}));
  }

  static String factory(AlgorithmIdentifier alg) {
    String oid = alg.getAlgorithm().getId();
    boolean y2012 = oid.equals(GOST_2012_256) || oid.equals(GOST_2012_512);
    return y2012 ? "ECGOST3410-2012" : "ECGOST3410";
  }

  // gostx writes the key as gost-engine does, its little-endian octets
  // right in PKCS#8's privateKey (32 or 64 bytes); BouncyCastle parses
  // privateKey's content as DER (an OCTET STRING or INTEGER): wrapped here
  static PrivateKey privateKey(String file) throws Exception {
    PrivateKeyInfo k = PrivateKeyInfo.getInstance(pem(file));
    AlgorithmIdentifier alg = withDigest(k.getPrivateKeyAlgorithm());
    byte[] raw = k.getPrivateKey().getOctets();
    ASN1Encodable d =
        raw.length == 32 || raw.length == 64 ? new DEROctetString(raw) : k.parsePrivateKey();
    byte[] der = new PrivateKeyInfo(alg, d).getEncoded("DER");
    return KeyFactory.getInstance(factory(alg), "BC").generatePrivate(new PKCS8EncodedKeySpec(der));
  }

  static PublicKey publicKey(Certificate c) throws Exception {
    SubjectPublicKeyInfo spki = c.getSubjectPublicKeyInfo();
    AlgorithmIdentifier alg = withDigest(spki.getAlgorithm());
    byte[] der = new SubjectPublicKeyInfo(alg, spki.getPublicKeyData().getBytes()).getEncoded("DER");
    return KeyFactory.getInstance(factory(alg), "BC").generatePublic(new X509EncodedKeySpec(der));
  }

  // c's signature under issuer's key (the certificate signature OIDs of
  // GOST R 34.10-2012 and -2001): KeyInfo's key is taken only through it
  static boolean issuedBy(Certificate c, Certificate issuer) throws Exception {
    String oid = c.getSignatureAlgorithm().getAlgorithm().getId();
    String name = oid.equals("1.2.643.7.1.1.3.2") ? JCE_256
        : oid.equals("1.2.643.7.1.1.3.3") ? JCE_512 : oid.equals("1.2.643.2.2.3") ? JCE_2001 : null;
    if (name == null) return false;
    Signature s = Signature.getInstance(name, "BC");
    try {
      s.initVerify(publicKey(issuer));
    } catch (java.security.InvalidKeyException e) { // a key of another size: not its issuer
      return false;
    }
    s.update(c.getTBSCertificate().getEncoded("DER"));
    return s.verify(c.getSignature().getOctets());
  }

  // Santuario finds "#id" only in attributes marked as IDs: Id, ID, id, wsu:Id
  static void markIds(Element e) {
    NamedNodeMap m = e.getAttributes();
    for (int i = 0; i < m.getLength(); i++) {
      Attr a = (Attr) m.item(i);
      String l = a.getLocalName(), u = a.getNamespaceURI();
      if ((u == null && (l.equals("Id") || l.equals("ID") || l.equals("id")))
          || (WSU.equals(u) && l.equals("Id")))
        e.setIdAttributeNode(a, true);
    }
    for (Node c = e.getFirstChild(); c != null; c = c.getNextSibling())
      if (c.getNodeType() == Node.ELEMENT_NODE) markIds((Element) c);
  }

  static void register() throws Exception {
    Init.init();
    Security.addProvider(new BouncyCastleProvider());
    // DigestMethod: Santuario's MessageDigestAlgorithm asks JCEMapper
    String[][] digests = {{DIGEST_256, "GOST3411-2012-256"}, {DIGEST_512, "GOST3411-2012-512"},
                          {DIGEST_94, "GOST3411"}};
    for (String[] m : digests)
      JCEMapper.register(m[0], new JCEMapper.Algorithm("", m[1], "MessageDigest"));
    // SignatureMethod: the classes above (JCEMapper too, for the key type)
    String[][] sigs = {{SIG_256, JCE_256, "ECGOST3410-2012"}, {SIG_512, JCE_512, "ECGOST3410-2012"},
                       {SIG_2001, JCE_2001, "ECGOST3410"}};
    for (String[] m : sigs) JCEMapper.register(m[0], new JCEMapper.Algorithm(m[2], m[1], "Signature"));
    SignatureAlgorithm.register(SIG_256, Gost2012_256.class);
    SignatureAlgorithm.register(SIG_512, Gost2012_512.class);
    SignatureAlgorithm.register(SIG_2001, Gost2001.class);
    Transform.register(SMEV, SmevTransform.class);
  }

  // ---- sign and verify -------------------------------------------------------

  static void sign(String keyFile, String certFile, String in, String outFile, String ref,
                   String mode) throws Exception {
    Document d = parse(Files.readAllBytes(Paths.get(in)));
    XMLSignature sig = sign(privateKey(keyFile), pem(certFile), d, ref, mode);
    try (OutputStream os = Files.newOutputStream(Paths.get(outFile))) {
      XMLUtils.outputDOM(d, os);
    }
    writeSigned(sig.getSignedInfo(), outFile + ".signed");
  }

  // d signed in place (bench/xml/XmlDsigGostBench.java signs in a loop)
  static XMLSignature sign(PrivateKey key, byte[] cert, Document d, String ref, String mode)
      throws Exception {
    boolean big = ((java.security.interfaces.ECKey) key).getParams().getOrder().bitLength() > 256;
    Element root = d.getDocumentElement();
    markIds(root);
    Element target = ref.isEmpty() ? root : d.getElementById(ref);
    if (target == null) throw new IllegalArgumentException("no element has the Id " + ref);
    XMLSignature sig = new XMLSignature(d, "", big ? SIG_512 : SIG_256,
                                        Canonicalizer.ALGO_ID_C14N_EXCL_OMIT_COMMENTS);
    Transforms ts = new Transforms(d);
    if (mode.equals("smev-detached")) {
      // SMEV 3's layout: the signature in an element after the signed one,
      // the empty *Signature that follows it (CallerInformationSystemSignature)
      // where there is one, as gostx places it
      Element holder = slot(target);
      if (holder == null) {
        holder = d.createElementNS(target.getNamespaceURI(), "CallerSignature");
        holder.setPrefix(target.getPrefix());
        // declared on it: the serializer adds no declaration, and the
        // prefix may be the target's own (a document not namespace-well-formed)
        if (target.getPrefix() != null)
          holder.setAttributeNS("http://www.w3.org/2000/xmlns/", "xmlns:" + target.getPrefix(),
                                target.getNamespaceURI());
        target.getParentNode().insertBefore(holder, target.getNextSibling());
      }
      holder.appendChild(sig.getElement());
    } else {
      target.appendChild(sig.getElement());
      ts.addTransform(Transforms.TRANSFORM_ENVELOPED_SIGNATURE);
    }
    ts.addTransform(mode.equals("comments") ? Transforms.TRANSFORM_C14N_EXCL_WITH_COMMENTS
                                            : Transforms.TRANSFORM_C14N_EXCL_OMIT_COMMENTS);
    if (mode.startsWith("smev")) ts.addTransform(SMEV);
    sig.addDocument(ref.isEmpty() ? "" : "#" + ref, ts, big ? DIGEST_512 : DIGEST_256);
    X509Data xd = new X509Data(d);
    xd.addCertificate(cert);
    sig.getKeyInfo().add(xd);
    sig.sign(key);
    return sig;
  }

  // target's next element sibling when it is an empty *Signature element
  static Element slot(Element target) {
    Node n = target.getNextSibling();
    while (n != null && n.getNodeType() != Node.ELEMENT_NODE) n = n.getNextSibling();
    if (n == null || DS.equals(n.getNamespaceURI()) || !n.getLocalName().endsWith("Signature"))
      return null;
    for (Node c = n.getFirstChild(); c != null; c = c.getNextSibling())
      if (c.getNodeType() == Node.ELEMENT_NODE) return null;
    return (Element) n;
  }

  static String verify(String caFile, String file) throws Exception {
    SignedInfo[] si = new SignedInfo[1];
    String why = verify(Certificate.getInstance(pem(caFile)), caFile,
                        parse(Files.readAllBytes(Paths.get(file))), si);
    if (why == null) writeSigned(si[0], file + ".signed");
    return why;
  }

  // null when d's one Signature verifies under a certificate ca issued
  // (caName names it in the reason); si[0] its SignedInfo
  static String verify(Certificate ca, String caName, Document d, SignedInfo[] si)
      throws Exception {
    markIds(d.getDocumentElement());
    NodeList sigs = d.getElementsByTagNameNS(DS, "Signature");
    if (sigs.getLength() != 1) return sigs.getLength() + " Signature elements";
    return verify((Element) sigs.item(0), new Certificate[] {ca}, caName, si);
  }

  // every Signature of FILE, each under a certificate one of CAS issued
  static String verifyEach(String cas, String file) throws Exception {
    String[] names = cas.split(",");
    Certificate[] ca = new Certificate[names.length];
    for (int i = 0; i < names.length; i++) ca[i] = Certificate.getInstance(pem(names[i]));
    Document d = parse(Files.readAllBytes(Paths.get(file)));
    markIds(d.getDocumentElement());
    NodeList sigs = d.getElementsByTagNameNS(DS, "Signature");
    SignedInfo[] si = new SignedInfo[sigs.getLength()];
    for (int i = 0; i < si.length; i++) {
      SignedInfo[] one = new SignedInfo[1];
      String why = verify((Element) sigs.item(i), ca, cas, one);
      if (why != null) return "Signature " + (i + 1) + " of " + si.length + ": " + why;
      si[i] = one[0];
    }
    writeSigned(si, file + ".signed");
    return si.length == 0 ? "no Signature" : null;
  }

  // null when sigEl verifies under a certificate one of ca issued
  static String verify(Element sigEl, Certificate[] ca, String caName, SignedInfo[] si)
      throws Exception {
    XMLSignature sig = new XMLSignature(sigEl, "", true);
    if (sig.getKeyInfo() == null || sig.getKeyInfo().lengthX509Data() == 0)
      return "no X509Data in KeyInfo";
    byte[] der = sig.getKeyInfo().itemX509Data(0).itemCertificate(0).getCertificateBytes();
    Certificate leaf = Certificate.getInstance(der);
    boolean issued = false;
    for (Certificate c : ca) issued |= issuedBy(leaf, c);
    if (!issued) return "the certificate is not signed by " + caName;
    si[0] = sig.getSignedInfo();
    if (!si[0].verify())
      for (int i = 0; i < si[0].getLength(); i++)
        if (!si[0].getVerificationResult(i)) return "Reference " + i + ": digest mismatch";
    if (!sig.checkSignatureValue(publicKey(leaf))) return "SignatureValue does not verify";
    return null;
  }

  // what each Reference signed: its octets after the transforms, concatenated
  static void writeSigned(SignedInfo si, String file) throws Exception {
    writeSigned(new SignedInfo[] {si}, file);
  }

  static void writeSigned(SignedInfo[] sis, String file) throws Exception {
    try (OutputStream os = Files.newOutputStream(Paths.get(file))) {
      for (SignedInfo si : sis)
        for (int i = 0; i < si.getLength(); i++) os.write(si.item(i).getReferencedBytes());
    }
  }

  public static void main(String[] args) throws Exception {
    register();
    int failed = 0;
    for (int i = 0; i < args.length;) {
      boolean signing = args[i].equals("sign"), each = args[i].equals("verify-each");
      int n = signing ? 6 : 2;
      if (!signing && !each && !args[i].equals("verify") || i + n >= args.length)
        throw new IllegalArgumentException(
            "usage: sign KEY CERT IN OUT REF MODE | verify CA FILE | verify-each CA,... FILE ...");
      String[] a = java.util.Arrays.copyOfRange(args, i + 1, i + 1 + n);
      String why = null, name = signing ? a[3] : a[1];
      try {
        if (signing) sign(a[0], a[1], a[2], a[3], a[4], a[5]);
        else why = each ? verifyEach(a[0], a[1]) : verify(a[0], a[1]);
      } catch (Exception e) {
        why = e.toString();
      }
      if (why != null) failed++;
      System.out.println(why != null ? "FAIL " + name + ": " + why
                         : "ok   " + (signing ? "signed " : "verified ") + name);
      i += n + 1;
    }
    System.exit(failed);
  }
}
