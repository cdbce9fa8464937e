// BouncyCastle (bcprov, bcutil, bcpkix) writes a CAdES-X Long Type 1
// signature on its own, for gostx to verify (tests/test_cades_bc_xl1.sh).
// BouncyCastle has no CAdES-X writer, so it is put together here from its
// pieces, following RFC 5126 (and RFC 5035, 3161, 6960, 5280) only. Its own
// PKI, all GOST R 34.10-2012 256 (tc26 paramSetA) keys made here: a root CA,
// a sub CA under it, a signer under the sub CA, a TSA under the root
// (id-kp-timeStamping, critical). Then:
//  1. a detached CAdES-BES signature over DOC (CMSSignedDataGenerator,
//     GOST3411-2012-256WITHECGOST3410-2012-256; signed attributes
//     contentType, messageDigest, signingTime, signingCertificateV2 with one
//     ESSCertIDv2: Streebog-256 of the signer's certificate, issuerSerial);
//  2. a signature-time-stamp (id-aa-signatureTimeStampToken, RFC 5126
//     6.1.1): its TSA's token over the signature value's octets,
//     Streebog-256 imprint;
//  3. complete-certificate-references (an OtherCertID per CA certificate
//     above the signer: the sub CA, the root), complete-revocation-references
//     (the signer's CrlOcspRef: an OCSP response by the sub CA; the sub CA's:
//     the root's CRL; the root's, the trusted CA: empty), certificate-values,
//     revocation-values, and the CAdES-C-time-stamp (id-aa-ets-escTimeStamp)
//     over RFC 5126 6.3.5's bytes: the signature value's octets, then the
//     signature-time-stamp, complete-certificate-references and
//     complete-revocation-references attributes each as attrType and
//     attrValues with their tags and lengths, the Attribute SEQUENCE's own
//     tag and length left out (6.3.5 NOTE 2).
// Every reference's hash is Streebog-256 (OtherHashAlgAndValue), an OCSP
// reference's over the BasicOCSPResponse that revocation-values carries.
// Times, in whole seconds before now: signingTime 300, signature-time-stamp
// 240, CRL thisUpdate 200, OCSP producedAt 180, CAdES-C-time-stamp 120.
// Writes into DIR: xl1.der (DER ContentInfo), xl1-ber.der (the same as
// CMSSignedData.getEncoded() writes it: BER), root.pem, and the values
// alone for the test's changed copies: ocsp.der (the BasicOCSPResponse),
// crl.der. usage: java -cp bcprov.jar:bcutil.jar:bcpkix.jar BcCadesXl1.java DIR DOC
import java.io.ByteArrayOutputStream;
import java.io.FileWriter;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.Security;
import java.security.spec.ECGenParameterSpec;
import java.util.Date;
import java.util.List;

import org.bouncycastle.asn1.ASN1Encodable;
import org.bouncycastle.asn1.ASN1EncodableVector;
import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.asn1.ASN1UTCTime;
import org.bouncycastle.asn1.DEROctetString;
import org.bouncycastle.asn1.DERSequence;
import org.bouncycastle.asn1.DERSet;
import org.bouncycastle.asn1.cms.Attribute;
import org.bouncycastle.asn1.cms.AttributeTable;
import org.bouncycastle.asn1.cms.CMSAttributes;
import org.bouncycastle.asn1.cms.Time;
import org.bouncycastle.asn1.esf.CompleteRevocationRefs;
import org.bouncycastle.asn1.esf.CrlIdentifier;
import org.bouncycastle.asn1.esf.CrlListID;
import org.bouncycastle.asn1.esf.CrlOcspRef;
import org.bouncycastle.asn1.esf.CrlValidatedID;
import org.bouncycastle.asn1.esf.ESFAttributes;
import org.bouncycastle.asn1.esf.OcspIdentifier;
import org.bouncycastle.asn1.esf.OcspListID;
import org.bouncycastle.asn1.esf.OcspResponsesID;
import org.bouncycastle.asn1.esf.OtherHash;
import org.bouncycastle.asn1.esf.OtherHashAlgAndValue;
import org.bouncycastle.asn1.esf.RevocationValues;
import org.bouncycastle.asn1.ess.ESSCertIDv2;
import org.bouncycastle.asn1.ess.OtherCertID;
import org.bouncycastle.asn1.ess.SigningCertificateV2;
import org.bouncycastle.asn1.ocsp.BasicOCSPResponse;
import org.bouncycastle.asn1.ocsp.ResponseData;
import org.bouncycastle.asn1.pkcs.PKCSObjectIdentifiers;
import org.bouncycastle.asn1.rosstandart.RosstandartObjectIdentifiers;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.AlgorithmIdentifier;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.CRLNumber;
import org.bouncycastle.asn1.x509.CRLReason;
import org.bouncycastle.asn1.x509.CertificateList;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.IssuerSerial;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509CRLHolder;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.X509v2CRLBuilder;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.cert.ocsp.BasicOCSPResp;
import org.bouncycastle.cert.ocsp.BasicOCSPRespBuilder;
import org.bouncycastle.cert.ocsp.CertificateID;
import org.bouncycastle.cert.ocsp.CertificateStatus;
import org.bouncycastle.cert.ocsp.RespID;
import org.bouncycastle.cms.CMSProcessableByteArray;
import org.bouncycastle.cms.CMSSignedData;
import org.bouncycastle.cms.CMSSignedDataGenerator;
import org.bouncycastle.cms.DefaultSignedAttributeTableGenerator;
import org.bouncycastle.cms.SignerInfoGeneratorBuilder;
import org.bouncycastle.cms.SignerInformation;
import org.bouncycastle.cms.SignerInformationStore;
import org.bouncycastle.cms.jcajce.JcaSignerInfoGeneratorBuilder;
import org.bouncycastle.jce.provider.BouncyCastleProvider;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.ContentSigner;
import org.bouncycastle.operator.DigestCalculatorProvider;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.operator.jcajce.JcaDigestCalculatorProviderBuilder;
import org.bouncycastle.tsp.TimeStampRequestGenerator;
import org.bouncycastle.tsp.TimeStampTokenGenerator;
import org.bouncycastle.util.CollectionStore;

public class BcCadesXl1 {
  static final String SIG_ALG = "GOST3411-2012-256WITHECGOST3410-2012-256";
  static final AlgorithmIdentifier STREEBOG_256 =
      new AlgorithmIdentifier(RosstandartObjectIdentifiers.id_tc26_gost_3411_12_256);
  static final long NOW = System.currentTimeMillis() / 1000 * 1000;
  static final JcaX509ExtensionUtils EXT = utils();
  static long serial = 0x1000;

  static JcaX509ExtensionUtils utils() {
    try {
      return new JcaX509ExtensionUtils();
    } catch (Exception e) {
      throw new RuntimeException(e);
    }
  }

  static Date at(long secondsBeforeNow) {
    return new Date(NOW - secondsBeforeNow * 1000);
  }

  static byte[] streebog256(byte[] in) throws Exception {
    return MessageDigest.getInstance("GOST3411-2012-256", "BC").digest(in);
  }

  static OtherHash otherHash(byte[] der) throws Exception {
    return new OtherHash(new OtherHashAlgAndValue(STREEBOG_256, new DEROctetString(streebog256(der))));
  }

  static ContentSigner signer(PrivateKey k) throws Exception {
    return new JcaContentSignerBuilder(SIG_ALG).setProvider("BC").build(k);
  }

  static KeyPair keys() throws Exception {
    KeyPairGenerator g = KeyPairGenerator.getInstance("ECGOST3410-2012", "BC");
    g.initialize(new ECGenParameterSpec("Tc26-Gost-3410-12-256-paramSetA"));
    return g.generateKeyPair();
  }

  // A certificate for k's public key, issued by issuer (null: self-signed)
  // with issuerKey; ca: basicConstraints CA, keyCertSign and cRLSign.
  static X509CertificateHolder cert(String cn, KeyPair k, X509CertificateHolder issuer, PrivateKey issuerKey,
      boolean ca, KeyPurposeId eku) throws Exception {
    X500Name subject = new X500Name("CN=" + cn + ",O=BouncyCastle CAdES-X test");
    X509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(issuer == null ? subject : issuer.getSubject(),
        BigInteger.valueOf(serial++), at(86_400), at(-365 * 86_400L), subject, k.getPublic());
    b.addExtension(Extension.basicConstraints, true, new BasicConstraints(ca));
    b.addExtension(Extension.keyUsage, true, new KeyUsage(ca
        ? KeyUsage.keyCertSign | KeyUsage.cRLSign | KeyUsage.digitalSignature
        : KeyUsage.digitalSignature | KeyUsage.nonRepudiation));
    b.addExtension(Extension.subjectKeyIdentifier, false, EXT.createSubjectKeyIdentifier(k.getPublic()));
    if (issuer != null)
      b.addExtension(Extension.authorityKeyIdentifier, false, EXT.createAuthorityKeyIdentifier(issuer));
    if (eku != null) b.addExtension(Extension.extendedKeyUsage, true, new ExtendedKeyUsage(eku));
    return b.build(signer(issuerKey == null ? k.getPrivate() : issuerKey));
  }

  static IssuerSerial issuerSerial(X509CertificateHolder c) {
    return new IssuerSerial(new GeneralNames(new GeneralName(c.getIssuer())), c.getSerialNumber());
  }

  // the TSA's TimeStampToken (a ContentInfo) over data's Streebog-256
  static ASN1Encodable timeStamp(TimeStampTokenGenerator tsa, byte[] data, long serial, Date when) throws Exception {
    TimeStampRequestGenerator q = new TimeStampRequestGenerator();
    q.setCertReq(true);
    return tsa.generate(q.generate(STREEBOG_256.getAlgorithm(), streebog256(data)), BigInteger.valueOf(serial), when)
        .toCMSSignedData().toASN1Structure();
  }

  static Attribute attr(ASN1ObjectIdentifier type, ASN1Encodable value) {
    return new Attribute(type, new DERSet(value));
  }

  public static void main(String[] args) throws Exception {
    Security.addProvider(new BouncyCastleProvider());
    Path dir = Paths.get(args[0]);
    byte[] doc = Files.readAllBytes(Paths.get(args[1]));
    DigestCalculatorProvider digests = new JcaDigestCalculatorProviderBuilder().setProvider("BC").build();

    // the PKI
    KeyPair rootK = keys(), subK = keys(), signK = keys(), tsaK = keys();
    X509CertificateHolder root = cert("BC Root CA", rootK, null, null, true, null);
    X509CertificateHolder sub = cert("BC Sub CA", subK, root, rootK.getPrivate(), true, null);
    X509CertificateHolder signerCert = cert("BC Signer", signK, sub, subK.getPrivate(), false, null);
    X509CertificateHolder tsaCert =
        cert("BC TSA", tsaK, root, rootK.getPrivate(), false, KeyPurposeId.id_kp_timeStamping);

    // 1. CAdES-BES: signingCertificateV2 { ESSCertIDv2 { Streebog-256, hash, issuerSerial } }
    ESSCertIDv2 essId = new ESSCertIDv2(STREEBOG_256, streebog256(signerCert.getEncoded()), issuerSerial(signerCert));
    ASN1EncodableVector signed = new ASN1EncodableVector();
    signed.add(attr(PKCSObjectIdentifiers.id_aa_signingCertificateV2, new SigningCertificateV2(new ESSCertIDv2[] {essId})));
    signed.add(attr(CMSAttributes.signingTime, new Time(at(300))));
    CMSSignedDataGenerator gen = new CMSSignedDataGenerator();
    gen.addSignerInfoGenerator(new JcaSignerInfoGeneratorBuilder(digests)
        .setSignedAttributeGenerator(new DefaultSignedAttributeTableGenerator(new AttributeTable(signed)))
        .build(signer(signK.getPrivate()), signerCert));
    gen.addCertificates(new CollectionStore<>(List.of(signerCert)));
    CMSSignedData bes = gen.generate(new CMSProcessableByteArray(doc), false);
    SignerInformation si = bes.getSignerInfos().getSigners().iterator().next();
    byte[] sigValue = si.getSignature();

    // 2. the signature-time-stamp over the signature value's octets
    TimeStampTokenGenerator tsa = new TimeStampTokenGenerator(
        new SignerInfoGeneratorBuilder(digests).build(signer(tsaK.getPrivate()), tsaCert),
        digests.get(STREEBOG_256), new ASN1ObjectIdentifier("1.2.643.100.1"));
    tsa.addCertificates(new CollectionStore<>(List.of(tsaCert)));
    Attribute sigTs = attr(PKCSObjectIdentifiers.id_aa_signatureTimeStampToken, timeStamp(tsa, sigValue, 1, at(240)));

    // the revocation data: the root's CRL (another serial revoked), the sub CA's OCSP response on the signer
    X509v2CRLBuilder cb = new X509v2CRLBuilder(root.getSubject(), at(200));
    cb.setNextUpdate(at(-7 * 86_400L));
    cb.addCRLEntry(BigInteger.valueOf(0x0bad), at(3_600), CRLReason.keyCompromise);
    cb.addExtension(Extension.cRLNumber, false, new CRLNumber(BigInteger.valueOf(42)));
    cb.addExtension(Extension.authorityKeyIdentifier, false, EXT.createAuthorityKeyIdentifier(root));
    X509CRLHolder crl = cb.build(signer(rootK.getPrivate()));
    BasicOCSPRespBuilder ob = new BasicOCSPRespBuilder(new RespID(sub.getSubject()));
    ob.addResponse(new CertificateID(digests.get(CertificateID.HASH_SHA1), sub, signerCert.getSerialNumber()),
        CertificateStatus.GOOD, at(180), at(-7 * 86_400L));
    BasicOCSPResp ocsp = ob.build(signer(subK.getPrivate()), null, at(180));
    BasicOCSPResponse ocspAsn1 = BasicOCSPResponse.getInstance(ocsp.getEncoded());
    CertificateList crlAsn1 = crl.toASN1Structure();

    // 3. complete-certificate-references: the CA certificates above the signer, each with issuerSerial
    X509CertificateHolder[] cas = {sub, root};
    ASN1EncodableVector ids = new ASN1EncodableVector();
    for (X509CertificateHolder c : cas)
      ids.add(new OtherCertID(STREEBOG_256, streebog256(c.getEncoded()), issuerSerial(c)));
    Attribute certRefs = attr(ESFAttributes.certificateRefs, new DERSequence(ids));
    // complete-revocation-references: the signer's, then one per OtherCertID in the same order
    ResponseData rd = ocspAsn1.getTbsResponseData();
    OcspResponsesID ocspId = new OcspResponsesID(new OcspIdentifier(rd.getResponderID(), rd.getProducedAt()),
        otherHash(ocspAsn1.getEncoded("DER")));
    CrlValidatedID crlId = new CrlValidatedID(otherHash(crlAsn1.getEncoded("DER")),
        new CrlIdentifier(crl.getIssuer(), new ASN1UTCTime(at(200)), BigInteger.valueOf(42)));
    Attribute revRefs = attr(ESFAttributes.revocationRefs, new CompleteRevocationRefs(new CrlOcspRef[] {
        new CrlOcspRef(null, new OcspListID(new OcspResponsesID[] {ocspId}), null),
        new CrlOcspRef(new CrlListID(new CrlValidatedID[] {crlId}), null, null),
        new CrlOcspRef(null, null, null)}));
    ASN1EncodableVector certVals = new ASN1EncodableVector();
    for (X509CertificateHolder c : cas) certVals.add(c.toASN1Structure());
    Attribute certValues = attr(ESFAttributes.certValues, new DERSequence(certVals));
    Attribute revValues = attr(ESFAttributes.revocationValues,
        new RevocationValues(new CertificateList[] {crlAsn1}, new BasicOCSPResponse[] {ocspAsn1}, null));

    // the CAdES-C-time-stamp over RFC 5126 6.3.5's concatenation
    ByteArrayOutputStream esc = new ByteArrayOutputStream();
    esc.write(sigValue);
    for (Attribute a : new Attribute[] {sigTs, certRefs, revRefs}) {
      esc.write(a.getAttrType().getEncoded("DER"));
      esc.write(a.getAttrValues().getEncoded("DER"));
    }
    Attribute escTs = attr(ESFAttributes.escTimeStamp, timeStamp(tsa, esc.toByteArray(), 2, at(120)));

    ASN1EncodableVector unsigned = new ASN1EncodableVector();
    for (Attribute a : new Attribute[] {sigTs, certRefs, revRefs, certValues, revValues, escTs}) unsigned.add(a);
    si = SignerInformation.replaceUnsignedAttributes(si, new AttributeTable(unsigned));
    CMSSignedData xl1 = CMSSignedData.replaceSigners(bes, new SignerInformationStore(si));
    Files.write(dir.resolve("xl1.der"), xl1.toASN1Structure().getEncoded("DER"));
    // what BouncyCastle writes by default: BER, indefinite lengths outside the SignerInfos
    Files.write(dir.resolve("xl1-ber.der"), xl1.getEncoded());
    Files.write(dir.resolve("ocsp.der"), ocspAsn1.getEncoded("DER"));
    Files.write(dir.resolve("crl.der"), crlAsn1.getEncoded("DER"));
    try (JcaPEMWriter w = new JcaPEMWriter(new FileWriter(dir.resolve("root.pem").toFile()))) {
      w.writeObject(root);
    }
    System.out.println("BouncyCastle wrote xl1.der: CAdES-X Long Type 1, " + Files.size(dir.resolve("xl1.der"))
        + " bytes");
  }
}
