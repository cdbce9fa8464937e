#!/usr/bin/env bash
# XML signatures (issue 71's speed targets), gostx and Apache Santuario +
# BouncyCastle in one run:
#  1. a ~4 KiB SMEV 3 envelope (SendRequestRequest) signed detached by Id
#     (exc-c14n + the SMEV transform, into CallerInformationSystemSignature)
#     and verified (References, SignatureValue, chain) per CPU-second, one
#     thread: bench/xml/xml_docs.c over libgostx-xmldsig; then the same through
#     Python's gostx.xmldsig (the same library) when $PYTHON imports it; then Santuario
#     2.1.7 + BouncyCastle (Debian's jars, bench/xml/XmlDsigGostBench.java over
#     tests/support/XmlDsigGost.java: the same form and transforms, key and
#     certificate) after WARM CPU-seconds of JIT warm-up, the median of 3
#     rounds, and the ratio C / Santuario; each side first verifies the
#     other's signature (skipped without javac or the jars);
#  2. memory: an enveloping signature of a big document (SIZE, default
#     60 MiB, under the library's 64 MiB cap; two kinds: small records, the
#     DOM's worst case, and 4 KiB text paragraphs) by `gostx xml sign
#     -enveloping` and its `verify`: peak resident memory (/usr/bin/time's
#     maximum RSS) and wall time, with the ratio RSS / document size (the
#     in-memory path; bench/xml_stream.sh measures the streaming one that
#     documents over 64 MiB take).
# Usage: bench/xml_speed.sh [--quick] [--seconds S] [--warm S] [--size BYTES|NM] [--build DIR]
#   --quick: 1 CPU-second, 2 s of warm-up and a 16 MiB document. PYTHON: a python with gostx
#   and lxml installed (python/README.md), else that part is skipped.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=5 warm=10 size=60M build="$root/build"
. "$root/bench/bench_opts.sh"
bench_opt() { [ "$1" = --quick ] && seconds=1 warm=2 size=16M; }
bench_opts "warm seconds size build" "$@"
XML_TARGETS="gostx gostx_cli gostx_xmldsig"
. "$root/bench/xml_common.sh"
gcc -O2 -Wall -Wextra -I"$root/include" -I"$root/integrations/xmldsig" -o "$T/xml_docs" \
  "$root/bench/xml/xml_docs.c" "$build/libgostx-xmldsig.a" "$build/libgostx.a" \
  $(pkg-config --cflags --libs libxml-2.0) -lpthread
xml_pki

# a SendRequestRequest of about 4 KiB: 40 records in MessagePrimaryContent
{ printf '<?xml version="1.0" encoding="UTF-8"?>\n<S:Envelope xmlns:S="http://schemas.xmlsoap.org/soap/envelope/"><S:Body>'
  printf '<ns2:SendRequestRequest xmlns:ns2="urn://x-artefacts-smev-gov-ru/services/message-exchange/types/1.2" xmlns:ns3="urn://x-artefacts-smev-gov-ru/services/message-exchange/types/basic/1.2">'
  printf '<ns2:SenderProvidedRequestData Id="SIGNED_BY_CONSUMER"><ns2:MessageID>db0486d0-3c08-11e5-95e2-d4c9eff07b77</ns2:MessageID>'
  printf '<ns3:MessagePrimaryContent><r:Request xmlns:r="urn://example/request/1.0">'
  for i in $(seq 40); do printf '\n  <r:Person id="%d" kind="a"><r:Name>Name %d</r:Name><r:Doc>%08d</r:Doc></r:Person>' "$i" "$i" "$i"; done
  printf '</r:Request></ns3:MessagePrimaryContent><ns2:TestMessage/></ns2:SenderProvidedRequestData>'
  printf '<ns2:CallerInformationSystemSignature/></ns2:SendRequestRequest></S:Body></S:Envelope>\n'; } >env.xml
echo "== 1. SMEV 3 envelope ($(wc -c <env.xml) bytes), sign + verify, one thread, $seconds CPU-s, on $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')"
"$T/xml_docs" k.key k.pem ca.pem env.xml SIGNED_BY_CONSUMER "$seconds" | sed 's/^/C (libgostx-xmldsig): /' | tee c.txt
PYTHON=${PYTHON:-python3}
if "$PYTHON" -c 'import gostx.xmldsig' 2>/dev/null; then
  "$PYTHON" - "$seconds" <<'PY'
import sys, time
import gostx
from gostx import x509, xmldsig
key = gostx.load_pem_private_key(open("k.key", "rb").read())
cert = x509.load_pem_x509_certificate(open("k.pem", "rb").read())
store = x509.Store()
store.load_verify_locations(cafile="ca.pem")
doc = open("env.xml", "rb").read()
limit, n, t0 = float(sys.argv[1]), 0, time.process_time()
while True:
    signed = xmldsig.sign(doc, key, cert, ref="SIGNED_BY_CONSUMER", smev=True, form="detached")
    xmldsig.verify(signed, store=store)
    n += 1
    t = time.process_time() - t0
    if t >= limit:
        break
print(f"Python (gostx.xmldsig): {n} signed + verified in {t:.2f} CPU-s: "
      f"{n / t:.1f} per CPU-second")
PY
else
  echo "Python (gostx.xmldsig): skipped ($PYTHON cannot import gostx.xmldsig; set PYTHON)"
fi
. "$root/bench/xml/santuario_row.sh"

# documents up to SIZE bytes enveloped by the Signature: small records (many
# nodes: the DOM's worst case) and 4 KiB text paragraphs (few nodes)
mb() { awk -v k="$1" 'BEGIN { printf "%.0f", k / 1024 }'; }
for kind in records text; do
  "$PYTHON" - "$bytes" "$kind" >big.xml <<'PY'
import sys
n, kind = int(sys.argv[1]), sys.argv[2]
out = sys.stdout
out.write('<?xml version="1.0" encoding="UTF-8"?>\n<data xmlns="urn:bench">\n')
done, i = 60, 0
while done + 4200 < n:
    if kind == "records":
        s = '<rec n="%08d"><name>record number %08d</name><v>%s</v></rec>\n' % (i, i, "x" * 40)
    else:
        s = "<p>%s</p>\n" % ("paragraph %08d " % i * 256)
    out.write(s)
    done += len(s)
    i += 1
out.write("</data>\n")
PY
  echo "== 2. an enveloping signature of $size of $kind: peak memory"
  /usr/bin/time -f '%M %e' -o sign.t "$G" xml sign -enveloping -in big.xml -ref '' -key k.key -cert k.pem -out big-s.xml
  /usr/bin/time -f '%M %e' -o verify.t "$G" xml verify -in big-s.xml -CAfile ca.pem -out-signed /dev/null 2>/dev/null
  read -r srss stime <sign.t
  read -r vrss vtime <verify.t
  d=$(wc -c <big.xml)
  echo "document $(awk -v b="$d" 'BEGIN { printf "%.1f", b / 1048576 }') MiB: sign $(mb "$srss") MiB peak RSS, ${stime} s; verify $(mb "$vrss") MiB peak RSS, ${vtime} s"
  awk -v s="$srss" -v v="$vrss" -v d="$d" \
    'BEGIN { printf "peak RSS / document: sign %.1fx, verify %.1fx\n", s * 1024 / d, v * 1024 / d }'
done
