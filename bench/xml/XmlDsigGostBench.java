// bench/xml_speed.sh's Java row: the SMEV 3 envelope xml_docs.c signs,
// signed and verified the same way by Apache Santuario + BouncyCastle
// (tests/support/XmlDsigGost.java's GOST registration and SMEV transform,
// its "smev-detached" form: exc-c14n + the SMEV transform, the Signature in
// CallerInformationSystemSignature), per CPU-second, one thread, after JIT
// warm-up. Each operation as xml_docs.c does it: the document's octets
// parsed, signed, written out; those octets parsed, the chain and the
// Reference and SignatureValue verified (a failure stops the run).
//   XmlDsigGostBench KEY CERT CA DOC ID WARMUP_S ROUNDS ROUND_S OUT [GOSTX_SIGNED...]
// OUT: one signed document, for gostx to verify; each GOSTX_SIGNED must
// verify here first. Rates by the main thread's CPU time (ThreadMXBean),
// the process's (JIT and GC threads too) and wall time: the median round.
// Compiled with XmlDsigGost.java (javac, one class path).
import java.io.ByteArrayOutputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.security.PrivateKey;
import java.util.Arrays;

import org.apache.xml.security.signature.SignedInfo;
import org.apache.xml.security.utils.XMLUtils;
import org.bouncycastle.asn1.x509.Certificate;
import org.w3c.dom.Document;

public class XmlDsigGostBench {
  static PrivateKey key;
  static byte[] cert;
  static Certificate ca;
  static String caName, ref;

  static byte[] sign(byte[] doc) throws Exception {
    Document d = XmlDsigGost.parse(doc);
    XmlDsigGost.sign(key, cert, d, ref, "smev-detached");
    ByteArrayOutputStream os = new ByteArrayOutputStream(doc.length * 2);
    XMLUtils.outputDOM(d, os);
    return os.toByteArray();
  }

  static void verify(byte[] signed, String what) throws Exception {
    String why = XmlDsigGost.verify(ca, caName, XmlDsigGost.parse(signed), new SignedInfo[1]);
    if (why != null) throw new IllegalStateException(what + " does not verify: " + why);
  }

  static double processCpu() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory
                .getOperatingSystemMXBean()).getProcessCpuTime() * 1e-9;
  }

  public static void main(String[] a) throws Exception {
    if (a.length < 9)
      throw new IllegalArgumentException(
          "usage: KEY CERT CA DOC ID WARMUP_S ROUNDS ROUND_S OUT [GOSTX_SIGNED...]");
    XmlDsigGost.register();
    key = XmlDsigGost.privateKey(a[0]);
    cert = XmlDsigGost.pem(a[1]);
    ca = Certificate.getInstance(XmlDsigGost.pem(a[2]));
    caName = a[2];
    byte[] doc = Files.readAllBytes(Paths.get(a[3]));
    ref = a[4];
    double warm = Double.parseDouble(a[5]), roundS = Double.parseDouble(a[7]);
    int rounds = Integer.parseInt(a[6]);
    for (int i = 9; i < a.length; i++) verify(Files.readAllBytes(Paths.get(a[i])), a[i]);
    byte[] first = sign(doc);
    verify(first, "Santuario's own signature");
    Files.write(Paths.get(a[8]), first);

    ThreadMXBean tm = ManagementFactory.getThreadMXBean();
    double t0 = tm.getCurrentThreadCpuTime() * 1e-9;
    long warmN = 0;
    while (tm.getCurrentThreadCpuTime() * 1e-9 - t0 < warm) {
      verify(sign(doc), "a warm-up signature");
      warmN++;
    }
    double[] cpu = new double[rounds], proc = new double[rounds], wall = new double[rounds];
    long total = 0;
    for (int r = 0; r < rounds; r++) {
      long n = 0;
      double c0 = tm.getCurrentThreadCpuTime() * 1e-9, p0 = processCpu(), w0 = System.nanoTime() * 1e-9;
      double c;
      do {
        verify(sign(doc), "round " + r + "'s signature");
        n++;
        c = tm.getCurrentThreadCpuTime() * 1e-9 - c0;
      } while (c < roundS);
      cpu[r] = n / c;
      proc[r] = n / (processCpu() - p0);
      wall[r] = n / (System.nanoTime() * 1e-9 - w0);
      total += n;
    }
    System.out.printf("%d-byte envelope: %d warm-up, %d timed in %d rounds: median %.1f per "
                          + "CPU-second (thread), %.1f (process CPU), %.1f per wall-second%n",
                      doc.length, warmN, total, rounds, median(cpu), median(proc), median(wall));
  }

  static double median(double[] v) {
    double[] s = v.clone();
    Arrays.sort(s);
    return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  }
}
