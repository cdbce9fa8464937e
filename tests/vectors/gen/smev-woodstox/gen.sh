#!/bin/bash
# Makes tests/vectors/xmldsig/smev-transform/escape.{xml,out}: text blocks and
# an attribute whose escaping SMEV's reference transform leaves to its StAX
# writer, Woodstox (the ru.voskhod SmevTransformSpi instantiates
# WstxOutputFactory; docs/XMLDSIG.md). escape.xml is already in the
# transform's form (ns1 prefix, one attribute), so the transform's output is
# Woodstox's event writer echoing it, white-space-only text dropped, as
# WoodstoxEcho.java does. Needs a JDK and Debian's libwoodstox-java
# (woodstox-core 6.2.1, stax2-api). Run once; the output is committed.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=$(cd "$here/../../xmldsig/smev-transform" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 - "$out/escape.xml" <<'PY'
import sys
E = "\U0001F600"  # 2 UTF-16 units
texts = [
    ">a > b]>",                       # short: > first and after ]
    "a &amp; b &lt; c &gt; d",         # long: > after a space, not escaped
    "&lt;&gt;&amp;&gt;a&gt;b&gt;c&gt;d",  # 11 units: > after an escape kept
    "&amp;&gt;xxxxxxxx",               # 10 units: short, > after & kept
    "&amp;&gt;xxxxxxxxxx",             # 12 units: long, > after & escaped
    "&amp;&gt;" + E * 5,               # 12 UTF-16 units, 7 code points: long
    "x&#xD;\ny&gt;&gt;\u0085&gt;z",   # short: CR, U+0085, > after it kept
    "x&#xD;\ny&gt;&gt;\u0085&gt;zzzzz",  # long: > after U+0085 escaped
    "\u007f\u009f\u00a0 &gt;",         # DEL and C1 escaped, U+00A0 not
    E + "x" * 509 + "a&gt;b" + "y" * 600 + "&gt;",  # > at unit 512: a chunk's first
    "x" * 511 + "&gt;" + "z" * 20,     # > at unit 511: kept
    "  \t\n ",                         # white space only: dropped
]
attr = 'x&#xD;&#xA;y&#x9;&quot;&gt;&lt;&amp;\u0085\u007f'
body = "".join(f"<ns1:t>{t}</ns1:t>" for t in texts)
doc = f'<ns1:a xmlns:ns1="urn:x" b="{attr}">{body}</ns1:a>'
open(sys.argv[1], "w", encoding="utf-8", newline="").write(doc)
PY
cp=/usr/share/java/woodstox-core-6.2.1.jar:/usr/share/java/stax2-api.jar
javac -cp "$cp" -d "$tmp" "$here/WoodstoxEcho.java"
java -cp "$cp:$tmp" WoodstoxEcho "$out/escape.xml" "$out/escape.out"
