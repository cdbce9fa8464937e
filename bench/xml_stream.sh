#!/usr/bin/env bash
# Enveloping XML signatures of big documents in bounded memory (issue 71:
# "a 100 MiB enveloping signature in bounded memory"; docs/XMLDSIG.md, "Big
# documents"): `gostx xml sign -enveloping` and `gostx xml verify` of a
# generated document of SIZE bytes (default 100 MiB: over the in-memory
# cap, so both stream), two kinds: small records (many nodes) and 4 KiB
# text paragraphs. For each: the document's size, peak resident memory
# (/usr/bin/time -v's "Maximum resident set size"), wall and CPU seconds,
# and a check that what verify says was signed is the size it must be.
# Usage: bench/xml_stream.sh [--size BYTES|NM] [--build DIR] [--stream]
#   --stream: pass -stream (the streaming path for sizes under 64 MiB too)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
size=100M build="$root/build" force=
. "$root/bench/bench_opts.sh"
bench_opt() { [ "$1" = --stream ] && force=-stream; }
bench_opts "size build" "$@"
XML_TARGETS="gostx gostx_cli"
. "$root/bench/xml_common.sh"
xml_pki

# time -v's report: peak RSS in KiB, wall seconds (h:mm:ss or m:ss.cc), CPU seconds
report() {
  awk -F': ' '/Maximum resident/ { rss = $2 } /Elapsed/ { n = split($2, t, ":"); w = 0
      for (i = 1; i <= n; i++) w = w * 60 + t[i] } /User time/ { c += $2 } /System time/ { c += $2 }
    END { printf "%.1f MiB peak RSS, %.2f s wall, %.2f s CPU", rss / 1024, w, c }' "$1"
}
echo "== enveloping signatures of $size documents, $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(nproc) CPUs"
for kind in records text; do
  awk -v n="$bytes" -v kind="$kind" 'BEGIN {
      printf "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<data xmlns=\"urn:bench\">\n"; done = 60
      pad = sprintf("%40s", ""); gsub(/ /, "x", pad)
      for (i = 0; done + 4200 < n; i++) {
        if (kind == "records")
          s = sprintf("<rec n=\"%08d\"><name>record number %08d</name><v>%s</v></rec>\n", i, i, pad)
        else { s = "<p>"; for (k = 0; k < 256; k++) s = s sprintf("paragraph %08d ", i); s = s "</p>\n" }
        printf "%s", s; done += length(s)
      }
      print "</data>" }' >big.xml
  d=$(stat -c %s big.xml)
  /usr/bin/time -v -o sign.t "$G" xml sign -enveloping $force -in big.xml -ref '' -key k.key -cert k.pem -out big-s.xml
  /usr/bin/time -v -o verify.t "$G" xml verify $force -in big-s.xml -CAfile ca.pem -out-signed signed.out 2>verify.err
  grep -q "Verified OK" verify.err || { cat verify.err >&2; exit 1; }
  # what was signed: the Object's c14n, the document's element and what the Object's tag adds
  want=$(( $(tail -n +2 big.xml | head -c -1 | wc -c) + $(printf '<ds:Object xmlns:ds="http://www.w3.org/2000/09/xmldsig#" Id="object"></ds:Object>' | wc -c) ))
  [ "$(stat -c %s signed.out)" = "$want" ] || { echo "xml_stream.sh: signed octets: $(stat -c %s signed.out), want $want" >&2; exit 1; }
  echo "$kind: document $(awk -v b="$d" 'BEGIN { printf "%.1f MiB (%d bytes)", b / 1048576, b }')"
  echo "  sign:   $(report sign.t)"
  echo "  verify: $(report verify.t)"
  rm -f big.xml big-s.xml signed.out
done
