#!/usr/bin/env python3
"""Writes tests/vectors/ike9385.json from the text of RFC 9385: the two
worked scenarios of its Appendix A (A.1: PSK, Kuznyechik-MGM-KTREE,
GOST3410_2012_512; A.2: certificates, Magma-MGM-KTREE, GOST3410_2012_256,
IKE fragmentation), each sub-scenario as the RFC numbers its steps: the
step's number, whose action it is, its title, the hex dumps under it and any
other lines (the message summaries, the addresses). Each scenario's
prerequisites (the PSK, the IDs, keys and certificates) are kept as printed,
with the sentence that introduces them.

Nothing is computed. The generator checks that the listing agrees with
itself and stops otherwise: the offsets of every dump run on by 16; a sent
message's length is the one in brackets on its address line and in its IKE
header; an encrypted message is its printed AAD | IV | ciphertext | ICV (after the
four zero octets of RFC 3948's non-ESP marker on port 4500).

Run: python3 tests/vectors/gen/ike9385-rfc/rfc9385.py rfc9385.txt tests/vectors/ike9385.json
(rfc9385.txt: https://www.rfc-editor.org/rfc/rfc9385.txt)."""
import json
import re
import sys

SCENARIO = re.compile(r"^A\.(\d)\.  Scenario \d$")
SUB = re.compile(r"^A\.(\d)\.(\d)\.  Sub-Scenario \d: (.*)$")
STEP = re.compile(r"^   \((\d+)\)\s+(.*)$")
ACTOR = re.compile(r"^   (Initiator|Responder)'s actions:$")
# (the signing keys and the public keys of A.2.1 are printed in upper case)
HEX = re.compile(r"^\s+([0-9A-F]{8,10}): ((?:[0-9a-fA-F]{2} ?)+)\s*$")
ADDR = re.compile(r"^\s+([\d.]+):(\d+)(->|<-)([\d.]+):(\d+) \[(\d+)\]$")
PAGE = re.compile(r"^(Smyslov .*\[Page \d+\]|RFC 9385 .*)$")


def fail(where, what):
    sys.exit("RFC 9385 Appendix A, %s: %s" % (where, what))


class Dumps:
    """Hex dumps: runs of offset-prefixed lines whose offsets run on by 16."""

    def __init__(self, where):
        self.where, self.out, self.next = where, [], None

    def line(self, off, hexes):
        data = bytes.fromhex(hexes.replace(" ", ""))
        if self.next is None or off != self.next:
            if self.next is not None and off != 0:
                fail(self.where, "dump offset %X after %X" % (off, self.next - 16))
            self.out.append({"offset": off, "hex": ""})
        self.out[-1]["hex"] += data.hex()
        self.next = off + 16 if len(data) == 16 else -1

    def end(self):
        self.next = None


def parse(lines):
    scenarios, sc, sub, step, prose, para_end, dumps = [], None, None, None, [], False, None
    for raw in lines:
        line = raw.rstrip()
        if PAGE.match(line) or line == "\f":
            continue
        m = SCENARIO.match(line)
        if m:
            sc = {"id": "A.%s" % m.group(1), "preamble": [], "subscenarios": []}
            scenarios.append(sc)
            sub = step = None
            dumps = Dumps(sc["id"])
            continue
        if sc is None:
            continue
        m = SUB.match(line)
        if m:
            sub = {"id": "A.%s.%s" % m.groups()[:2], "title": m.group(3), "steps": []}
            sc["subscenarios"].append(sub)
            step, actor = None, None
            continue
        m = ACTOR.match(line)
        if m and sub:
            actor, step = m.group(1).lower(), None
            continue
        m = STEP.match(line)
        if m and sub:
            step = {"n": int(m.group(1)), "actor": actor, "what": m.group(2), "dumps": [],
                    "text": []}
            sub["steps"].append(step)
            dumps = Dumps("%s (%s)" % (sub["id"], step["n"]))
            continue
        m = HEX.match(line)
        if m:
            target = step if step else None
            if target is None:  # a prerequisite of the scenario
                if not sc["preamble"] or sc["preamble"][-1].get("closed"):
                    sc["preamble"].append({"text": " ".join(prose), "dumps": []})
                    dumps = Dumps("%s prerequisites" % sc["id"])
                target = sc["preamble"][-1]
            dumps.out = target["dumps"]
            dumps.line(int(m.group(1), 16), m.group(2))
            continue
        dumps and dumps.end()
        if not line.strip():
            if step is None and sc["preamble"]:
                sc["preamble"][-1]["closed"] = True
            para_end = True
            continue
        if step is not None:
            if not step["dumps"] and not step["text"] and re.match(r"^ {8,9}\S", line) \
                    and not ADDR.match(line):
                step["what"] += " " + line.strip()  # the title's second line
            else:
                step["text"].append(line.strip())
        else:
            if para_end:  # keep the last paragraph: it introduces the next dump
                prose, para_end = [], False
            prose.append(line.strip())
    for sc in scenarios:
        for p in sc["preamble"]:
            p.pop("closed", None)
    return scenarios


def check_message(sub, step, prev):
    """A sent message: its length in brackets and in its header; an encrypted
    one is the AAD, IV, ciphertext and ICV printed before it."""
    where = "%s (%d)" % (sub["id"], step["n"])
    addr = [ADDR.match(" " + t) for t in step["text"]]
    addr = [a for a in addr if a]
    if len(addr) != 1:
        fail(where, "one address line expected")
    msg = bytes.fromhex("".join(d["hex"] for d in step["dumps"]))
    if len(msg) != int(addr[0].group(6)):
        fail(where, "%d bytes printed, [%s] said" % (len(msg), addr[0].group(6)))
    if "4500" in (addr[0].group(2), addr[0].group(5)):  # RFC 3948: the non-ESP marker
        if msg[:4] != bytes(4):
            fail(where, "a message on port 4500 without the non-ESP marker")
        msg = msg[4:]
    if int.from_bytes(msg[24:28], "big") != len(msg):
        fail(where, "the IKE header's length is not the message's")
    if msg[16] not in (46, 53):  # SK / SKF: the message is encrypted
        return
    parts = {}
    for s in prev:
        for key in ("AAD", "IV", "ICV"):
            if s["what"].startswith("Composes " + key) or s["what"].startswith("Computes " + key):
                parts[key] = bytes.fromhex(s["dumps"][0]["hex"])
        if s["what"].startswith("Encrypts plaintext"):
            parts["ciphertext"] = bytes.fromhex("".join(d["hex"] for d in s["dumps"]))
    if sorted(parts) != ["AAD", "ICV", "IV", "ciphertext"]:
        fail(where, "AAD, IV, ciphertext and ICV before an encrypted message")
    if msg != parts["AAD"] + parts["IV"] + parts["ciphertext"] + parts["ICV"]:
        fail(where, "the message is not AAD | IV | ciphertext | ICV")


def check(scenarios):
    if [s["id"] for s in scenarios] != ["A.1", "A.2"]:
        fail("scenarios", "A.1 and A.2 expected")
    for sc in scenarios:
        if [s["id"] for s in sc["subscenarios"]] != ["%s.%d" % (sc["id"], i) for i in (1, 2, 3, 4)]:
            fail(sc["id"], "sub-scenarios 1 to 4 expected")
        for sub in sc["subscenarios"]:
            if [s["n"] for s in sub["steps"]] != list(range(1, len(sub["steps"]) + 1)):
                fail(sub["id"], "steps not numbered 1, 2, ...")
            start = 0
            for i, step in enumerate(sub["steps"]):
                if step["what"].startswith("Sends message"):
                    if "fragment" not in step["what"]:
                        check_message(sub, step, sub["steps"][start:i])
                    start = i + 1


def misprints(lines, scenarios):
    """What the listing gets wrong, found here (not typed in): dumps that
    start past offset 0, a key-tree index called I rather than i3, and
    address lines that disagree with the appendix's stated addresses."""
    out = []
    for sc in scenarios:
        for p in sc["preamble"]:
            for d in p["dumps"]:
                if d["offset"]:
                    out.append("%s prerequisites: \"%s\": the dump starts at offset %X, not 0"
                               % (sc["id"], p["text"][:60], d["offset"]))
        for sub in sc["subscenarios"]:
            for st in sub["steps"]:
                for d in st["dumps"]:
                    if d["offset"]:
                        out.append("%s (%d) \"%s\": the dump starts at offset %X, not 0"
                                   % (sub["id"], st["n"], st["what"], d["offset"]))
                if re.search(r"\(I = \d\)", st["what"]):
                    out.append("%s (%d) \"%s\": the index is i3" % (sub["id"], st["n"], st["what"]))
    text = " ".join(l.strip() for l in lines)
    stated = re.findall(r"(initiator|responder)'s IP address is ([\d.]+)", text)
    stated = {who: ip for who, ip in stated}
    seen = set()
    for sc in scenarios:
        for sub in sc["subscenarios"]:
            for st in sub["steps"]:
                for t in st["text"]:
                    m = ADDR.match(" " + t)
                    if not m:
                        continue
                    ini, res = m.group(1), m.group(4)  # the arrow gives the direction
                    for who, ip in (("initiator", ini), ("responder", res)):
                        if stated.get(who) not in (None, ip) and (who, ip) not in seen:
                            seen.add((who, ip))
                            out.append("the address lines give the %s as %s; Appendix A states %s "
                                       "(first at %s (%d))" % (who, ip, stated[who], sub["id"], st["n"]))
    return out


def main(rfc, out):
    lines = open(rfc, encoding="utf-8").read().split("\n")
    start = max(i for i, l in enumerate(lines) if l.startswith("Appendix A.  Test Vectors"))
    scenarios = parse(lines[start:])
    check(scenarios)
    d = {
        "source": "RFC 9385 (May 2023) Appendix A, scenarios A.1 and A.2 with their four "
                  "sub-scenarios each, read from the RFC's text by "
                  "tests/vectors/gen/ike9385-rfc/rfc9385.py; nothing computed.",
        "convention": "Each step as the RFC numbers it: n, actor (initiator or responder, "
                      "whose actions the RFC lists it under), what (its title), dumps (each "
                      "run of hex lines: the offset it starts at and its bytes, in the order "
                      "printed; a sent message's dumps joined are the message) and text (the "
                      "other lines: message summaries, the address line). preamble: the "
                      "scenario's prerequisites, each with the sentence that introduces it.",
        "misprints": misprints(lines[start:], scenarios),
        "scenarios": scenarios}
    with open(out, "w") as f:
        json.dump(d, f, indent=1)
        f.write("\n")
    for m in d["misprints"]:
        print("misprint:", m)


main(sys.argv[1], sys.argv[2])
