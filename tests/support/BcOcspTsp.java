// BouncyCastle (bcpkix) against gostx's OCSP responses and time stamps,
// both ways, in one JVM (it is slow to start). In DIR, made by
// tests/test_ocsp_tsp_bc.sh with gostx: ca.pem, rsp.pem/.key (OCSPSigning),
// tsa.pem/.key (timeStamping), leaf1.pem, leaf2.pem, doc.txt, req.der (an
// OCSP request for leaf1 and leaf2, with a nonce), resp.der (gostx's
// response to it), resp-bad.der (one byte of its signature changed),
// q.tsq (a time-stamp query for doc.txt with a nonce, certReq), r.tsr
// (gostx's reply), r-bad.tsr (one byte of its signature changed).
// BouncyCastle checks gostx's files: the OCSP response's signature with
// the responder's certificate (BasicOCSPResp.isSignatureValid), each
// CertificateID against one it computes from ca.pem and the serial, the
// statuses and the nonce; the token with TimeStampResponse.validate
// against the query and TimeStampToken.validate (the signature, the
// ESSCertIDv2 of signingCertificateV2 against tsa.pem, the EKU), the
// ESSCertIDv2's Streebog-256 and the imprint computed here. The changed
// copies must fail. Then it answers with the same GOST keys (read from
// gostx's PKCS#8 files): bc-resp.der (req.der answered: leaf1 good, leaf2
// revoked keyCompromise, the nonce echoed) and bc.tsr (q.tsq answered,
// ESSCertIDv2 with Streebog-256), for gostx to verify.
// Prints one line per check; the exit status is how many failed.
// usage: java -cp bcprov.jar:bcutil.jar:bcpkix.jar BcOcspTsp.java DIR
import java.io.FileReader;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.Security;
import java.util.Arrays;
import java.util.Date;
import java.util.List;

import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.asn1.ocsp.OCSPObjectIdentifiers;
import org.bouncycastle.asn1.pkcs.PKCSObjectIdentifiers;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.rosstandart.RosstandartObjectIdentifiers;
import org.bouncycastle.asn1.ess.ESSCertIDv2;
import org.bouncycastle.asn1.ess.SigningCertificateV2;
import org.bouncycastle.asn1.x509.AlgorithmIdentifier;
import org.bouncycastle.asn1.x509.CRLReason;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.Extensions;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.ocsp.BasicOCSPResp;
import org.bouncycastle.cert.ocsp.BasicOCSPRespBuilder;
import org.bouncycastle.cert.ocsp.CertificateID;
import org.bouncycastle.cert.ocsp.CertificateStatus;
import org.bouncycastle.cert.ocsp.OCSPReq;
import org.bouncycastle.cert.ocsp.OCSPResp;
import org.bouncycastle.cert.ocsp.OCSPRespBuilder;
import org.bouncycastle.cert.ocsp.Req;
import org.bouncycastle.cert.ocsp.RespID;
import org.bouncycastle.cert.ocsp.RevokedStatus;
import org.bouncycastle.cert.ocsp.SingleResp;
import org.bouncycastle.cms.SignerInfoGeneratorBuilder;
import org.bouncycastle.cms.SignerInformationVerifier;
import org.bouncycastle.cms.jcajce.JcaSimpleSignerInfoVerifierBuilder;
import org.bouncycastle.jce.provider.BouncyCastleProvider;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.operator.ContentSigner;
import org.bouncycastle.operator.DigestCalculatorProvider;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.operator.jcajce.JcaContentVerifierProviderBuilder;
import org.bouncycastle.operator.jcajce.JcaDigestCalculatorProviderBuilder;
import org.bouncycastle.tsp.TSPAlgorithms;
import org.bouncycastle.tsp.TimeStampRequest;
import org.bouncycastle.tsp.TimeStampResponse;
import org.bouncycastle.tsp.TimeStampResponseGenerator;
import org.bouncycastle.tsp.TimeStampToken;
import org.bouncycastle.tsp.TimeStampTokenGenerator;
import org.bouncycastle.util.CollectionStore;

public class BcOcspTsp {
  static final String SIG_ALG = "GOST3411-2012-256WITHECGOST3410-2012-256";
  static Path dir;
  static int failed = 0;

  static void check(boolean ok, String what) {
    System.out.println((ok ? "ok   " : "FAIL ") + what);
    if (!ok) failed++;
  }

  static byte[] file(String name) throws Exception {
    return Files.readAllBytes(dir.resolve(name));
  }

  static X509CertificateHolder cert(String name) throws Exception {
    try (PEMParser p = new PEMParser(new FileReader(dir.resolve(name).toFile()))) {
      return (X509CertificateHolder) p.readObject();
    }
  }

  static PrivateKey key(String name) throws Exception {
    try (PEMParser p = new PEMParser(new FileReader(dir.resolve(name).toFile()))) {
      return new JcaPEMKeyConverter().setProvider("BC").getPrivateKey((PrivateKeyInfo) p.readObject());
    }
  }

  static byte[] streebog256(byte[] in) throws Exception {
    return MessageDigest.getInstance("GOST3411-2012-256", "BC").digest(in);
  }

  static boolean sigValid(BasicOCSPResp r, X509CertificateHolder by) {
    try {
      return r.isSignatureValid(new JcaContentVerifierProviderBuilder().setProvider("BC").build(by));
    } catch (Exception e) {
      return false;
    }
  }

  interface Step {
    void run() throws Exception;
  }

  static void step(String what, Step s) {
    try {
      s.run();
    } catch (Exception e) {
      check(false, what + ": " + e);
    }
  }

  public static void main(String[] args) throws Exception {
    Security.addProvider(new BouncyCastleProvider());
    dir = Paths.get(args[0]);
    X509CertificateHolder ca = cert("ca.pem"), rsp = cert("rsp.pem"), tsa = cert("tsa.pem");
    BigInteger[] serial = {cert("leaf1.pem").getSerialNumber(), cert("leaf2.pem").getSerialNumber()};
    DigestCalculatorProvider digests = new JcaDigestCalculatorProviderBuilder().setProvider("BC").build();
    OCSPReq req = new OCSPReq(file("req.der"));
    TimeStampRequest query = new TimeStampRequest(file("q.tsq"));

    step("gostx's OCSP response", () -> {
      OCSPResp r = new OCSPResp(file("resp.der"));
      check(r.getStatus() == OCSPResp.SUCCESSFUL, "gostx OCSP: responseStatus successful");
      BasicOCSPResp b = (BasicOCSPResp) r.getResponseObject();
      check(sigValid(b, rsp), "gostx OCSP: isSignatureValid with the responder's certificate");
      check(rsp.isSignatureValid(new JcaContentVerifierProviderBuilder().setProvider("BC").build(ca)),
          "gostx OCSP: the responder's certificate signed by the CA");
      check(b.getCerts().length == 1 && b.getCerts()[0].equals(rsp), "gostx OCSP: carries the responder's certificate");
      check(b.getResponderId().equals(new RespID(rsp.getSubject())), "gostx OCSP: responderID byName");
      SingleResp[] s = b.getResponses();
      check(s.length == 2, "gostx OCSP: two SingleResponses");
      for (int i = 0; i < 2; i++) {
        CertificateID want = new CertificateID(digests.get(CertificateID.HASH_SHA1), ca, serial[i]);
        check(s[i].getCertID().equals(want), "gostx OCSP: CertificateID " + i + " matches BouncyCastle's");
        check(s[i].getCertID().matchesIssuer(ca, digests), "gostx OCSP: CertificateID " + i + " matchesIssuer");
      }
      check(s[0].getCertStatus() == CertificateStatus.GOOD, "gostx OCSP: leaf1 good");
      check(s[1].getCertStatus() instanceof RevokedStatus
          && ((RevokedStatus) s[1].getCertStatus()).getRevocationReason() == CRLReason.keyCompromise,
          "gostx OCSP: leaf2 revoked, keyCompromise");
      Extension n = b.getExtension(OCSPObjectIdentifiers.id_pkix_ocsp_nonce);
      check(n != null && n.equals(req.getExtension(OCSPObjectIdentifiers.id_pkix_ocsp_nonce)),
          "gostx OCSP: the request's nonce echoed");
      BasicOCSPResp bad = (BasicOCSPResp) new OCSPResp(file("resp-bad.der")).getResponseObject();
      check(!sigValid(bad, rsp), "gostx OCSP: a changed signature is refused");
    });

    step("gostx's time stamp", () -> {
      TimeStampResponse r = new TimeStampResponse(file("r.tsr"));
      r.validate(query); // the imprint, nonce and policy asked; throws when not
      check(true, "gostx TSP: TimeStampResponse.validate against the query");
      TimeStampToken t = r.getTimeStampToken();
      SignerInformationVerifier v = new JcaSimpleSignerInfoVerifierBuilder().setProvider("BC").build(tsa);
      check(t.isSignatureValid(v), "gostx TSP: isSignatureValid with the TSA's certificate");
      t.validate(v); // the signature, signingCertificateV2 against tsa.pem, the EKU
      check(true, "gostx TSP: TimeStampToken.validate (ESSCertIDv2, timeStamping)");
      SigningCertificateV2 sc = SigningCertificateV2.getInstance(
          t.getSignedAttributes().get(PKCSObjectIdentifiers.id_aa_signingCertificateV2).getAttrValues().getObjectAt(0));
      ESSCertIDv2 id = sc.getCerts()[0];
      check(id.getHashAlgorithm().getAlgorithm().equals(RosstandartObjectIdentifiers.id_tc26_gost_3411_12_256)
          && Arrays.equals(id.getCertHash(), streebog256(tsa.getEncoded())),
          "gostx TSP: ESSCertIDv2 is the TSA certificate's Streebog-256");
      check(Arrays.equals(t.getTimeStampInfo().getMessageImprintDigest(), streebog256(file("doc.txt"))),
          "gostx TSP: the imprint is doc.txt's Streebog-256");
      boolean refused = false;
      try {
        new TimeStampResponse(file("r-bad.tsr")).getTimeStampToken().validate(v);
      } catch (Exception e) {
        refused = true;
      }
      check(refused, "gostx TSP: a changed signature is refused");
    });

    step("BouncyCastle's OCSP response", () -> {
      BasicOCSPRespBuilder bb = new BasicOCSPRespBuilder(new RespID(rsp.getSubject()));
      Date now = new Date(), next = new Date(now.getTime() + 300_000);
      Req[] asked = req.getRequestList();
      for (int i = 0; i < asked.length; i++) {
        boolean one = asked[i].getCertID().getSerialNumber().equals(serial[0]);
        bb.addResponse(asked[i].getCertID(),
            one ? CertificateStatus.GOOD : new RevokedStatus(new Date(now.getTime() - 86_400_000L), CRLReason.keyCompromise),
            now, next);
      }
      bb.setResponseExtensions(new Extensions(req.getExtension(OCSPObjectIdentifiers.id_pkix_ocsp_nonce)));
      ContentSigner s = new JcaContentSignerBuilder(SIG_ALG).setProvider("BC").build(key("rsp.key"));
      BasicOCSPResp b = bb.build(s, new X509CertificateHolder[] {rsp}, now);
      Files.write(dir.resolve("bc-resp.der"), new OCSPRespBuilder().build(OCSPRespBuilder.SUCCESSFUL, b).getEncoded());
      check(sigValid(b, rsp), "BouncyCastle OCSP: made, signed with rsp.key");
    });

    step("BouncyCastle's time stamp", () -> {
      ContentSigner s = new JcaContentSignerBuilder(SIG_ALG).setProvider("BC").build(key("tsa.key"));
      TimeStampTokenGenerator g = new TimeStampTokenGenerator(
          new SignerInfoGeneratorBuilder(digests).build(s, tsa),
          digests.get(new AlgorithmIdentifier(RosstandartObjectIdentifiers.id_tc26_gost_3411_12_256)),
          new ASN1ObjectIdentifier("1.2.643.100.1"));
      g.addCertificates(new CollectionStore<>(List.of(tsa)));
      TimeStampResponse r = new TimeStampResponseGenerator(g, TSPAlgorithms.ALLOWED)
          .generate(query, BigInteger.valueOf(7001), new Date());
      Files.write(dir.resolve("bc.tsr"), r.getEncoded());
      check(r.getTimeStampToken() != null, "BouncyCastle TSP: a token granted, signed with tsa.key");
    });
    System.exit(failed);
  }
}
