"""Prints a document already in the SMEV transform's form (one ns1 prefix,
attributes in order) whose text blocks and attribute values are random runs
of what the transform's escaping treats apart: > ] & < CR LF tab, DEL, a C1
character, a quote, a character outside the BMP (2 UTF-16 units), blocks
short (under 12 units) and long (past 512). test_xml_vectors.sh echoes it
through Woodstox (WoodstoxEcho.java) and through gostx's transform and
compares. Usage: random_blocks.py SEED"""
import random
import sys

rnd = random.Random(int(sys.argv[1]))
PIECES = ["a", "]", "&gt;", "&lt;", "&amp;", "&#xD;", "&#xA;", "&#x9;", "\n", "\t", " ",
          "\u0085", "\u007f", "\U0001F600", "\u044f", "&quot;", "'"]


def run(longest):
    n = rnd.choice([rnd.randint(0, 14), rnd.randint(min(500, longest), longest)])
    return "".join(rnd.choice(PIECES) for _ in range(n))


attrs = " ".join(f'c{i}="{run(40)}"' for i in range(4))
body = "".join(f"<ns1:t>{run(1100)}</ns1:t>" for _ in range(200))
sys.stdout.write(f'<ns1:a xmlns:ns1="urn:x" {attrs}>{body}</ns1:a>')
