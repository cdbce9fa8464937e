#!/usr/bin/env python3
"""Writes tests/vectors/tls12-rfc9189.json from the text of RFC 9189: every
value its Appendix A prints, read from the RFC's hex dumps and 0x numbers as
they stand; nothing is computed here.

  A.1.1  TLSTREE: root key, seqnum, the three levels (both CTR_OMAC suites);
  A.1.2  CTR_OMAC records, A.2.1 CNT_IMIT records: the connection keys, then
         per seqnum the data, TLSPlaintext, record keys, MAC, IV, TLSCiphertext;
  A.1.3  CTR_OMAC handshakes (MAGMA with GC256B, KUZNYECHIK with GC512C and a
         client certificate), A.2.2 the CNT_IMIT handshake (GC512A): the keys,
         every message as sent and every derived value, in the RFC's order.

The record examples elide the middles of long dumps (". . ." / "...."): such
a dump is kept as "head" (the bytes before the first gap) and "tail" (the
bytes after the last gap, which end the value). Offsets within a part
must follow on: A.2.1 prints two last lines at a wrong offset (listed under
"misprints"), whose bytes end the value all the same.

Run: python3 tests/vectors/gen/tls12-rfc9189/rfc9189.py rfc9189.txt > tests/vectors/tls12-rfc9189.json
(rfc9189.txt: https://www.rfc-editor.org/rfc/rfc9189.txt)"""
import json
import re
import sys

HEX = re.compile(r"^   ([0-9A-Fa-f]{5}):\s+((?:[0-9A-Fa-f]{2} ?)+)\s*$")
GAP = re.compile(r"^\s+(\. \. \.|\.\.\.\.)\s*$")
NUM = re.compile(r"^   (?:([xy]) = )?0x([0-9A-F]+)\s*$")
MORE = re.compile(r"^\s{5,}([0-9A-F]{8,})\s*$")
SECTION = re.compile(r"^(A\.[0-9.]+)\s+(.*)$")
SIDE = re.compile(r"^ +-+(Client|Server)-+$")
SUITES = {"KUZNYECHIK_CTR_OMAC": "0xc100", "MAGMA_CTR_OMAC": "0xc101",
          "28147_CNT_IMIT": "0xc102"}
MISPRINTS = []
# gost-engine's own TLS 1.2 value (github.com/gost-engine/engine,
# test_tls12additional.c, "Gost TLSTREE_MODE_NONE - grasshopper": its name
# for the KUZNYECHIK_CTR_OMAC constants): not in the RFC, copied as a fact.
GOST_ENGINE = {
    "source": "gost-engine test_tls12additional.c (TLSTREE of the KUZNYECHIK_CTR_OMAC suite)",
    "tlstree": [{"suite": "0xc100", "root": "ff" * 32, "seq": 63,
                 "key": "507642d958c520c6d7eef5ca8a5316d4f34b855d2dd4bcbf4e5bf0ff641a19ff"}]}


def page_break(line):
    return line.startswith("RFC 9189 ") or line.startswith("Smyshlyaev, et al.") or "\f" in line


def items(lines):
    """(section, side, seq, label, kind, value) in the RFC's order: kind 'hex'
    (value {"hex"} or {"head", "tail"}) or 'int' (value the hex digits)."""
    sec, side, seq, label, i, out = None, None, None, None, 0, []
    while i < len(lines):
        line = lines[i]
        m = SECTION.match(line)
        if m:
            sec, side, seq, label = m.group(1).rstrip("."), None, None, None
            i += 1
            continue
        m = SIDE.match(line)
        if m:
            side = m.group(1).lower()
        m = re.match(r"^   seqnum = (\d+)\s*$", line)
        if m:
            seq = int(m.group(1))
        if HEX.match(line):
            parts, gaps, offs = [[]], 0, []
            while i < len(lines) and (HEX.match(lines[i]) or GAP.match(lines[i]) or
                                      not lines[i].strip() or page_break(lines[i])):
                h = HEX.match(lines[i])
                if h:
                    data, off = h.group(2).replace(" ", "").lower(), int(h.group(1), 16)
                    if parts[-1] and off != offs[-1][1] + len(parts[-1][-1]) // 2:
                        MISPRINTS.append("%s seqnum %s %s: a line's offset printed as %05x, "
                                         "its bytes follow on" % (sec, seq, label, off))
                        off = offs[-1][1] + len(parts[-1][-1]) // 2
                    parts[-1].append(data)
                    offs.append((len(parts) - 1, off))
                elif GAP.match(lines[i]):
                    parts.append([])
                    gaps += 1
                elif not lines[i].strip() and i + 1 < len(lines) and not (
                        HEX.match(lines[i + 1]) or GAP.match(lines[i + 1])):
                    break
                i += 1
            if gaps:
                value = {"head": "".join(parts[0]), "tail": "".join(parts[-1])}
            else:
                value = {"hex": "".join(parts[0])}
            out.append((sec, side, seq, label, "hex", value))
            continue
        m = NUM.match(line)
        if m:
            digits = m.group(2)
            i += 1
            while i < len(lines) and MORE.match(lines[i]):
                digits += MORE.match(lines[i]).group(1)
                i += 1
            name = label + (" " + m.group(1) if m.group(1) else "")
            out.append((sec, side, seq, name, "int", digits.lower()))
            continue
        # A value's name: a line of the outer indent that ends with ":"
        # ("PMS:", "ClientHello message:", "- MAC key:"), not a field of a
        # printed structure.
        t = line.strip()
        if re.match(r"^   \S", line) and t.endswith(":") and t not in ("body:", "version:", "Alert:"):
            label = t.rstrip(":").lstrip("- ").strip()
        i += 1
    return out


def tree_items(lines):
    """A.1.1's dumps, printed without offsets: (section, seqnum, label, hex)."""
    sec, seq, label, out, i = None, None, None, [], 0
    bare = re.compile(r"^\s+((?:[0-9A-F]{2} ){15}[0-9A-F]{2})\s*$")
    while i < len(lines):
        line = lines[i]
        m = SECTION.match(line)
        if m:
            sec = m.group(1).rstrip(".")
        m = re.match(r"^\s+seqnum = (\d+)\s*$", line)
        if m:
            seq = int(m.group(1))
        if sec and sec.startswith("A.1.1.") and bare.match(line):
            data = ""
            while i < len(lines) and bare.match(lines[i]):
                data += bare.match(lines[i]).group(1).replace(" ", "").lower()
                i += 1
            out.append((sec, seq, label, data))
            continue
        if line.strip().endswith(":"):
            label = line.strip().rstrip(":")
        i += 1
    return out


def of_section(its, sec):
    return [it[1:] for it in its if it[0] == sec]


def suite_of(title):
    for k, v in SUITES.items():
        if k in title:
            return v
    return None


def main(path):
    lines = open(path, encoding="utf-8-sig").read().split("\n")
    start = max(i for i, l in enumerate(lines) if l.startswith("Appendix A.  Test Examples"))
    end = next(i for i, l in enumerate(lines) if i > start and l.startswith("Contributors"))
    lines = lines[start:end]
    titles = {m.group(1).rstrip("."): m.group(2) for m in map(SECTION.match, lines) if m}
    its = items(lines)

    tlstree = []
    for sec, seq, label, v in tree_items(lines):
        s = suite_of(titles[sec])
        if label == "Root Key K_root":
            root = v
            continue
        key = {"First-level key from Divers_1": "level1",
               "Second-level key from Divers_2": "level2",
               "The resulting key from Divers_3": "key"}[label]
        if key == "level1":
            tlstree.append({"suite": s, "root": root, "seq": seq})
        tlstree[-1][key] = v

    records = []
    for sec in ("A.1.2.1", "A.1.2.2", "A.2.1"):
        s = suite_of(titles[sec]) or "0xc102"
        r = {"section": sec, "suite": s, "cases": []}
        for side, seq, label, kind, v in of_section(its, sec):
            if seq is None:
                r[{"MAC key": "mac_key", "Encryption key": "enc_key", "IV": "iv"}[label]] = v["hex"]
                continue
            if not r["cases"] or r["cases"][-1]["seq"] != seq:
                r["cases"].append({"seq": seq})
            name = re.sub(r"_\d+$", "", label)
            name = {"Application data": "data", "TLSPlaintext": "plaintext",
                    "Plaintext": "plaintext", "K_MAC": "k_mac", "K_ENC": "k_enc",
                    "MAC value": "mac", "MAC": "mac", "IV": "iv_seq",
                    "TLSCiphertext": "ciphertext", "Ciphertext": "ciphertext"}[name]
            # Keys and MACs are never gapped: plain hex; the data and the
            # records keep their {"hex"} / {"head", "tail"} form.
            r["cases"][-1][name] = v["hex"] if name in ("k_mac", "k_enc", "mac", "iv_seq") else v
        records.append(r)
    handshakes = []
    for sec in ("A.1.3.1", "A.1.3.2", "A.2.2"):
        s = suite_of(titles[sec]) or "0xc102"
        h = {"section": sec, "suite": s, "values": []}
        for side, seq, label, kind, v in of_section(its, sec):
            if kind == "int":
                h["values"].append({"side": side, "name": label, "int": v})
            else:
                if "head" in v:
                    raise SystemExit("a gap in a handshake dump: " + label)
                h["values"].append({"side": side, "name": label, "hex": v["hex"]})
        handshakes.append(h)
    # The certificates' curves, as the RFC names them before each example.
    text = "\n".join(lines)
    for h in handshakes:
        body = text.split(h["section"] + ".", 1)[1]
        h["server_curve_oid"] = re.search(r'Server certificate curve OID:\s*\n\s*\S+, "([0-9.]+)"',
                                          body).group(1)
        m = re.search(r'Client certificate curve OID:\s*\n\s*\S+, "([0-9.]+)"',
                      body.split("---Client---", 1)[0])
        if m:
            h["client_curve_oid"] = m.group(1)
        # The handshake examples' preamble names the extensions the hellos
        # carry: extended_main_secret (RFC 7627) in A.1.3, not in A.2.2.
        at = text.index("\n" + h["section"] + ".  ")
        intro = text[text.rindex("Handshake Examples", 0, at + 40):]
        intro = intro[:intro.index("Server certificate curve OID")]
        h["extended_master_secret"] = "extended_main_secret" in intro

    json.dump({
        "name": "RFC 9189 Appendix A: TLSTREE, record and handshake examples of the GOST TLS 1.2 suites",
        "source": "RFC 9189 (March 2022) Appendix A (A.1.1 TLSTREE, A.1.2 CTR_OMAC records, A.1.3 "
                  "CTR_OMAC handshakes, A.2.1 CNT_IMIT records, A.2.2 the CNT_IMIT handshake), "
                  "https://www.rfc-editor.org/rfc/rfc9189.txt, read by "
                  "tests/vectors/gen/tls12-rfc9189/rfc9189.py; nothing computed.",
        "convention": "Bytes as printed (wire order); 'int' values are the RFC's 0x numbers "
                      "(big-endian hex digits; 'x'/'y' suffixes name a point's coordinates). "
                      "Gapped record dumps: 'head' from offset 0, 'tail' ending the value. "
                      "handshakes[].values: every dump in order, 'side' the part it is printed "
                      "in, 'name' the RFC's label before it.",
        "misprints": MISPRINTS,
        "tlstree": tlstree,
        "records": records,
        "handshakes": handshakes,
        "gost_engine": GOST_ENGINE,
    }, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
