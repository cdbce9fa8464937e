#!/usr/bin/env python3
"""Writes tests/vectors/tls13-rfc9367.json from the text of RFC 9367: the
values its Appendix A prints (A.1: KUZNYECHIK_MGM_S with GC512C; A.2:
MAGMA_MGM_L with an external PSK and GC256B), read from the RFC's hex dumps
as they stand. Long records are printed with "[...]" gaps: each dump is kept
as its fragments, [offset, hex], and the elided bytes are left out (the
test fills an inner plaintext's gaps with the zeros the RFC's "Pad" and
all-zero application data stand for, and compares a ciphertext only where
it is printed).

Run: python3 tests/vectors/gen/tls13-gost/rfc9367.py rfc9367.txt > tests/vectors/tls13-rfc9367.json
(rfc9367.txt: https://www.rfc-editor.org/rfc/rfc9367.txt)"""
import json
import re
import sys

HEX = re.compile(r"^\s+([0-9A-F]{4,5}|[0-9A-F]{8}):\s+((?:[0-9A-F]{2} ?)+)\s*$")
GAP = re.compile(r"^\s+\[\.\.\.\]\s*$")
TYPOS = []
SUITES = {"TLS_GOSTR341112_256_WITH_KUZNYECHIK_MGM_L": 0xC103,
          "TLS_GOSTR341112_256_WITH_MAGMA_MGM_L": 0xC104,
          "TLS_GOSTR341112_256_WITH_KUZNYECHIK_MGM_S": 0xC105,
          "TLS_GOSTR341112_256_WITH_MAGMA_MGM_S": 0xC106}


def dumps(lines):
    """(example number, the side whose part it is in, label text,
    [[offset, hex], ...]) for every hex dump."""
    ex, side, i, out, pending = None, None, 0, [], None
    while i < len(lines):
        m = re.match(r"^ +(\w+(?: layer)?) message:$", lines[i])
        if m:
            pending = m.group(1)  # its hex dump follows the structure, after a blank line
        m = re.match(r"^A\.(\d)\.  Example", lines[i])
        if m:
            ex = int(m.group(1))
        m = re.match(r"^ +-+(Client|Server)-+$", lines[i])
        if m:
            side = m.group(1).lower()
        if ex and HEX.match(lines[i]):
            j, label = i - 1, []
            while lines[j].strip() and not HEX.match(lines[j]):
                label.insert(0, lines[j].strip())
                j -= 1
            if not label and pending:
                label, pending = [pending + " message:"], None
            frags, gap = [], False
            while i < len(lines) and (HEX.match(lines[i]) or GAP.match(lines[i])):
                m = HEX.match(lines[i])
                gap = gap or bool(GAP.match(lines[i]))
                if m:
                    off, data = int(m.group(1), 16), m.group(2).replace(" ", "").lower()
                    end = frags[-1][0] + len(frags[-1][1]) // 2 if frags else 0
                    if frags and off > end and not gap:
                        # A skipped offset without a "[...]" line (A.1's
                        # ClientHello record: 000B0 then 000D0): the bytes
                        # follow on.
                        TYPOS.append("A.%d %s a line's offset printed as %05X" % (ex, " ".join(label), off))
                        off = end
                    gap = False
                    if frags and off < end:
                        # A misprinted offset (the RFC repeats "00000" on some
                        # second lines): the bytes follow on.
                        TYPOS.append("A.%d %s a line's offset printed as %05X" % (ex, " ".join(label), off))
                        off = end
                    if frags and end == off:
                        frags[-1][1] += data
                    else:
                        frags.append([off, data])
                i += 1
            out.append((ex, side, " ".join(label), frags))
            continue
        i += 1
    return out


def name_of(label):
    m = re.search(r"\((\w+)\): (\w+) =", label)
    if m:
        return m.group(2)
    label = label.replace("Record payload protection: ", "")
    m = re.match(r"^(.+?) ?=", label)
    return (m.group(1) if m else label.rstrip(":")).strip()


def length_misprints(ex, m):
    """A message dump longer or shorter than its own length field says (A.2's
    ClientHello1 and its record: 16 bytes more, a line spliced in after
    supported_versions; the test rebuilds them from Truncate(ClientHello1)
    and the binder)."""
    b = bytes.fromhex(m["hex"])
    if m["name"] == "Record layer":
        said = 5 + (b[3] << 8 | b[4])
    elif m["name"] == "Alert":
        said = 2
    else:
        said = 4 + (b[1] << 16 | b[2] << 8 | b[3])
    if said == len(b):
        return []
    return ["%s %s message: %d bytes printed, its length field says %d" % (ex, m["name"], len(b), said)]


def main(path):
    text = open(path, encoding="utf-8").read()
    lines = text.split("\n")
    start = max(i for i, l in enumerate(lines) if l.startswith("Appendix A.  Test Examples"))
    lines = lines[start:]
    suite_of = {}
    for m in re.finditer(r"A\.(\d)\.1\.  Test Case.*?(TLS_GOSTR341112_256_WITH_\w+) cipher suite",
                         "\n".join(lines), re.S):
        suite_of[int(m.group(1))] = SUITES[m.group(2)]
    examples = {}
    record = None
    for ex, side, label, frags in dumps(lines):
        e = examples.setdefault(ex, {"example": "A.%d" % ex, "suite": "0x%04x" % suite_of[ex],
                                     "values": [], "records": [], "messages": []})
        whole = frags[0][1] if len(frags) == 1 and frags[0][0] == 0 else None
        m = re.match(r"^(server|client)_record_write_key = TLSTREE\((\w+), (\d+)\):$", label)
        if m:
            # The sender is the part the record is printed in; twice the RFC
            # names the other side's key there (its values are the sender's).
            key = side + m.group(2)[len(m.group(1)):]
            if key != m.group(2):
                TYPOS.append("A.%d %s in the %s's part: the %s's key and record" % (ex, label, side, side))
            record = {"key": key, "iv": key.replace("_key_", "_iv_"),
                      "seq": int(m.group(3)), "record_key": whole}
            e["records"].append(record)
            continue
        field = {"seqnum:": "seqnum", "nonce:": "nonce", "additional_data:": "aad",
                 "TLSInnerPlaintext:": "inner", "TLSCiphertext:": "ciphertext"}.get(label)
        if field and record is not None:
            if field in ("inner", "ciphertext"):
                record[field] = frags
            else:
                record[field] = whole
            continue
        if label.endswith(" message:") and whole is not None:
            # The messages as their hex dumps print them, in the RFC's order,
            # with the side whose part they are in: "Record layer" ones are
            # whole records as sent (plaintext or protected).
            e["messages"].append({"name": label[:-len(" message:")], "side": side, "hex": whole})
            continue
        if whole is None or not label or "Application data" in label:
            continue
        name = name_of(label)
        same = [v for v in e["values"] if v["name"] == name]
        if same and any(v["hex"] == whole for v in same):
            continue  # printed again on the other side
        e["values"].append({"name": name if not same else "%s #%d" % (name, len(same) + 1),
                            "label": label, "hex": whole})
    for e in examples.values():
        for m in e["messages"]:
            TYPOS.extend(length_misprints(e["example"], m))
        for r in e["records"]:
            assert int(r["seqnum"], 16) == r["seq"] and all(k in r for k in ("nonce", "aad", "inner",
                                                                               "ciphertext")), r
            del r["seqnum"]
    json.dump({
        "name": "RFC 9367 Appendix A: the two example handshakes' secrets, keys and records",
        "source": "RFC 9367 (February 2023) Appendix A.1 (Example 1) and A.2 (Example 2), read from "
                  "the RFC's text by tests/vectors/gen/tls13-gost/rfc9367.py; nothing computed.",
        "convention": "Bytes as printed (wire order). values: each labelled dump, 'name' the "
                      "RFC's name of the value (a second, different value of the same name gets "
                      "' #2'), 'label' the RFC's text before it. records: 'key'/'iv' name the "
                      "values of the write key and IV, 'seq' the sequence number; 'inner' and "
                      "'ciphertext' are [offset, hex] fragments: the RFC elides the middle of "
                      "long records ('[...]'), where the inner plaintext is zeros (all-zero "
                      "application data and padding). messages: every '<name> message:' dump (the handshake "
                      "messages, alerts, and 'Record layer' for each record as it goes on the wire), in "
                      "the RFC's order, 'side' the part it is printed in.",
        "misprints": TYPOS,
        "examples": [examples[k] for k in sorted(examples)]}, sys.stdout, indent=1)
    print()


main(sys.argv[1])
