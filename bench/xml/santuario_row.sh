# Sourced by bench/xml_speed.sh in its work folder (k.key, k.pem, ca.pem,
# env.xml, c.txt: the C row's line; $G, $root, $seconds, $warm): the
# Santuario + BouncyCastle row and the ratio C / Santuario. gostx signs the
# envelope as xml_docs.c does and Santuario must verify it; Santuario's
# first signature must verify under gostx: both sides do the same work.
J=/usr/share/java jars=
for jar in xmlsec slf4j-api bcprov bcutil slf4j-nop; do
  [ -f $J/$jar.jar ] && jars=$jars$J/$jar.jar:
done
if ! command -v javac >/dev/null || [ ! -f $J/xmlsec.jar ] || [ ! -f $J/bcprov.jar ] || [ ! -f $J/bcutil.jar ]; then
  echo "Santuario + BouncyCastle: skipped (needs javac and $J/{xmlsec,bcprov,bcutil}.jar: openjdk-17-jdk-headless libxml-security-java libbcprov-java)"
else
  "$G" xml sign -detached -smev -in env.xml -ref SIGNED_BY_CONSUMER -key k.key -cert k.pem -out g-env.xml
  javac -nowarn -cp "$jars" -d jclasses "$root/tests/support/XmlDsigGost.java" \
    "$root/bench/xml/XmlDsigGostBench.java" 2>javac.err || { cat javac.err >&2; exit 1; }
  java -cp "jclasses:$jars" XmlDsigGostBench k.key k.pem ca.pem env.xml SIGNED_BY_CONSUMER \
    "$warm" 3 "$seconds" j-env.xml g-env.xml | sed 's/^/Santuario 2.1.7 + BouncyCastle 1.72: /' | tee j.txt
  "$G" xml verify -in j-env.xml -CAfile ca.pem >/dev/null 2>verify.err ||
    { echo "gostx does not verify Santuario's signature: $(cat verify.err)" >&2; exit 1; }
  awk '{ for (i = 2; i <= NF; i++) {
           if ($i == "per" && $(i + 1) ~ /^CPU-second/) v[FILENAME] = $(i - 1)
           if ($i == "(process") p = $(i - 1) } }
       END { printf "ratio C / Santuario per CPU-second: %.1fx (Santuario'"'"'s main thread), %.1fx (its process: JIT, GC)\n",
                    v["c.txt"] / v["j.txt"], v["c.txt"] / p }' c.txt j.txt
fi
