// BouncyCastle (org.bouncycastle.asn1.esf, .ess, .tsp) reads a CAdES-X Long
// Type 1 signature's unsigned attributes and checks them on its own:
// every reference's Streebog-256 hash against the value it names (CRL and
// OCSP references by position among the values of their kind, certificate
// references in order), and the CAdES-C-time-stamp's imprint against the
// bytes RFC 5126 6.3.5 lists, concatenated here. Prints "== FILE", then
// one line per check, a file's checks ending at its first failure; the
// exit status is how many files failed (one JVM for all: it is slow to
// start). For tests/test_cades_bc.sh.
// usage: java -cp bcprov.jar:bcutil.jar CadesEsf.java FILE.der...
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.Arrays;

import org.bouncycastle.asn1.ASN1Encodable;
import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.asn1.ASN1OctetString;
import org.bouncycastle.asn1.ASN1Primitive;
import org.bouncycastle.asn1.ASN1Sequence;
import org.bouncycastle.asn1.ASN1Set;
import org.bouncycastle.asn1.cms.Attribute;
import org.bouncycastle.asn1.cms.ContentInfo;
import org.bouncycastle.asn1.cms.SignedData;
import org.bouncycastle.asn1.cms.SignerInfo;
import org.bouncycastle.asn1.esf.CompleteRevocationRefs;
import org.bouncycastle.asn1.esf.CrlOcspRef;
import org.bouncycastle.asn1.esf.CrlValidatedID;
import org.bouncycastle.asn1.esf.ESFAttributes;
import org.bouncycastle.asn1.esf.OcspResponsesID;
import org.bouncycastle.asn1.esf.OtherHash;
import org.bouncycastle.asn1.esf.RevocationValues;
import org.bouncycastle.asn1.ess.OtherCertID;
import org.bouncycastle.asn1.ocsp.BasicOCSPResponse;
import org.bouncycastle.asn1.pkcs.PKCSObjectIdentifiers;
import org.bouncycastle.asn1.tsp.TSTInfo;
import org.bouncycastle.asn1.x509.Certificate;
import org.bouncycastle.asn1.x509.CertificateList;
import org.bouncycastle.crypto.digests.GOST3411_2012_256Digest;

public class CadesEsf {
  static final String STREEBOG_256 = "1.2.643.7.1.1.2.2";

  static byte[] streebog(byte[] in) {
    GOST3411_2012_256Digest d = new GOST3411_2012_256Digest();
    d.update(in, 0, in.length);
    byte[] out = new byte[32];
    d.doFinal(out, 0);
    return out;
  }

  static class Failed extends Exception {}

  static void check(boolean ok, String what) throws Failed {
    System.out.println((ok ? "ok   " : "FAIL ") + what);
    if (!ok) throw new Failed();
  }

  static void hashOf(OtherHash h, byte[] der, String what) throws Exception {
    check(h.getHashAlgorithm().getAlgorithm().getId().equals(STREEBOG_256)
        && Arrays.equals(h.getHashValue(), streebog(der)), what);
  }

  // an Attribute's encoding without its SEQUENCE's tag and length
  static byte[] content(Attribute a) throws Exception {
    byte[] e = a.getEncoded("DER");
    int h = (e[1] & 0x80) == 0 ? 2 : 2 + (e[1] & 0x7f);
    return Arrays.copyOfRange(e, h, e.length);
  }

  public static void main(String[] args) throws Exception {
    int failed = 0;
    for (String file : args) {
      System.out.println("== " + file);
      try {
        checkFile(file);
      } catch (Failed e) {
        failed++;
      }
    }
    System.exit(failed);
  }

  static void checkFile(String file) throws Exception {
    ContentInfo ci = ContentInfo.getInstance(ASN1Primitive.fromByteArray(Files.readAllBytes(Paths.get(file))));
    SignedData sd = SignedData.getInstance(ci.getContent());
    SignerInfo si = SignerInfo.getInstance(sd.getSignerInfos().getObjectAt(0));
    ASN1Set attrs = si.getUnauthenticatedAttributes();
    Attribute sigTs = null, certRefs = null, revRefs = null, certVals = null, revVals = null, esc = null;
    for (int i = 0; i < attrs.size(); i++) {
      Attribute a = Attribute.getInstance(attrs.getObjectAt(i));
      ASN1ObjectIdentifier t = a.getAttrType();
      if (t.equals(PKCSObjectIdentifiers.id_aa_signatureTimeStampToken)) sigTs = a;
      else if (t.equals(ESFAttributes.certificateRefs)) certRefs = a;
      else if (t.equals(ESFAttributes.revocationRefs)) revRefs = a;
      else if (t.equals(ESFAttributes.certValues)) certVals = a;
      else if (t.equals(ESFAttributes.revocationValues)) revVals = a;
      else if (t.equals(ESFAttributes.escTimeStamp)) esc = a;
    }
    check(sigTs != null && certRefs != null && revRefs != null && certVals != null && revVals != null
        && esc != null, "the six attributes of X Long Type 1 found");

    ASN1Sequence refs = ASN1Sequence.getInstance(certRefs.getAttrValues().getObjectAt(0));
    ASN1Sequence certs = ASN1Sequence.getInstance(certVals.getAttrValues().getObjectAt(0));
    check(refs.size() == certs.size() && refs.size() > 0, "certificate refs and values: " + refs.size());
    for (int i = 0; i < refs.size(); i++) {
      OtherCertID id = OtherCertID.getInstance(refs.getObjectAt(i));
      Certificate c = Certificate.getInstance(certs.getObjectAt(i));
      check(id.getAlgorithmHash().getAlgorithm().getId().equals(STREEBOG_256)
          && Arrays.equals(id.getCertHash(), streebog(c.getEncoded("DER")))
          && id.getIssuerSerial().getSerial().getValue().equals(c.getSerialNumber().getValue()),
          "OtherCertID " + i + ": Streebog-256 and issuerSerial of " + c.getSubject());
    }

    RevocationValues rv = RevocationValues.getInstance(revVals.getAttrValues().getObjectAt(0));
    CertificateList[] crls = rv.getCrlVals();
    BasicOCSPResponse[] ocsps = rv.getOcspVals();
    CrlOcspRef[] rr = CompleteRevocationRefs.getInstance(revRefs.getAttrValues().getObjectAt(0)).getCrlOcspRefs();
    check(rr.length == refs.size() + 1, "CrlOcspRefs: one for the signer and one per OtherCertID");
    int nCrl = 0, nOcsp = 0;
    for (CrlOcspRef r : rr) {
      if (r.getCrlids() != null)
        for (CrlValidatedID id : r.getCrlids().getCrls()) {
          boolean met = false;
          for (CertificateList crl : crls)
            if (Arrays.equals(id.getCrlHash().getHashValue(), streebog(crl.getEncoded("DER")))) {
              hashOf(id.getCrlHash(), crl.getEncoded("DER"), "CrlValidatedID: " + crl.getIssuer()
                  + " crlNumber " + id.getCrlIdentifier().getCrlNumber());
              check(id.getCrlIdentifier().getCrlIssuer().equals(crl.getIssuer())
                  && id.getCrlIdentifier().getCrlIssuedTime().getAdjustedDate().equals(crl.getThisUpdate().getDate()),
                  "CrlIdentifier: issuer and thisUpdate as the CRL's");
              met = true;
            }
          check(met, "a CRL reference met by a crlVals entry");
          nCrl++;
        }
      if (r.getOcspids() != null)
        for (OcspResponsesID id : r.getOcspids().getOcspResponses()) {
          boolean met = false;
          for (BasicOCSPResponse o : ocsps)
            if (Arrays.equals(id.getOcspRepHash().getHashValue(), streebog(o.getEncoded("DER")))) {
              check(id.getOcspIdentifier().getOcspResponderID().equals(o.getTbsResponseData().getResponderID())
                  && id.getOcspIdentifier().getProducedAt().equals(o.getTbsResponseData().getProducedAt()),
                  "OcspIdentifier: responderID and producedAt as the response's");
              met = true;
            }
          check(met, "an OCSP reference met by an ocspVals entry");
          nOcsp++;
        }
    }
    check(nCrl > 0 && nOcsp > 0, "references: " + nCrl + " CRL, " + nOcsp + " OCSP");

    ByteArrayOutputStream data = new ByteArrayOutputStream();
    data.write(si.getEncryptedDigest().getOctets());
    data.write(content(sigTs));
    data.write(content(certRefs));
    data.write(content(revRefs));
    ContentInfo tok = ContentInfo.getInstance(esc.getAttrValues().getObjectAt(0));
    SignedData tsd = SignedData.getInstance(tok.getContent());
    TSTInfo tst = TSTInfo.getInstance(ASN1OctetString.getInstance(tsd.getEncapContentInfo().getContent()).getOctets());
    check(Arrays.equals(tst.getMessageImprint().getHashedMessage(), streebog(data.toByteArray())),
        "CAdES-C-time-stamp: imprint = Streebog-256(signature || signature-time-stamp || refs), genTime "
            + tst.getGenTime().getTimeString());
  }
}
