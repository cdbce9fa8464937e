#!/usr/bin/env python3
"""Writes the "rfc9227" part of tests/vectors/esp9227.json from the text of
RFC 9227: the eight ESP examples of its Appendix A (two for each of the
four transforms), read from the RFC's hex dumps as they stand. Nothing is
computed: the generator checks that the printed values agree with each
other (lengths in brackets, transform key = K | salt, nonce = 0 | pnum |
salt, IV = i1 | i2 | i3 | pnum, the packet = an IPv4 header | SPI | SN | IV |
body | ICV with the printed ciphertext or clear body and ICV, the AAD laid
out as section 4.7.1 says) and stops otherwise; spi, seq, esp, payload and
next_header are slices of the printed packet, named for the test.

Run: python3 tests/vectors/gen/esp9227-rfc/rfc9227.py rfc9227.txt tests/vectors/esp9227.json
(rfc9227.txt: https://www.rfc-editor.org/rfc/rfc9227.txt); the file's
other parts are kept as they are."""
import json
import re
import sys

TRANSFORMS = {"ENCR_KUZNYECHIK_MGM_KTREE": 32, "ENCR_MAGMA_MGM_KTREE": 33,
              "ENCR_KUZNYECHIK_MGM_MAC_KTREE": 34, "ENCR_MAGMA_MGM_MAC_KTREE": 35}
HEAD = re.compile(r"^   (\d)\.  (ENCR_\w+) \(Example (\d)\):$")
FIELD = re.compile(r"^      ([\w ]+?) \[(\d+)\]:$")
HEX = re.compile(r"^          ((?:[0-9a-f]{2} ?)+)$")
TREE = re.compile(r"^      i1 = ([0-9a-f]{2}), i2 = ([0-9a-f]{4}), i3 = ([0-9a-f]{4}), "
                  r"pnum = ([0-9a-f]{6})$")


def examples(lines):
    """{number: {"title", "transform", fields by their printed names}}."""
    out, ex, field = {}, None, None
    for line in lines:
        m = HEAD.match(line)
        if m:
            ex = out.setdefault(int(m.group(1)), {
                "title": "%s (Example %s)" % (m.group(2), m.group(3)), "transform": m.group(2),
                "fields": {}, "sizes": {}})
            continue
        if ex is None:
            continue
        m = FIELD.match(line)
        if m:
            field = m.group(1)
            ex["fields"][field] = ""
            ex["sizes"][field] = int(m.group(2))
            continue
        m = HEX.match(line)
        if m and field:
            ex["fields"][field] += m.group(1).replace(" ", "")
            continue
        m = TREE.match(line)
        if m:
            ex["tree"] = [int(x, 16) for x in m.groups()]
        field = None
    return out


def check(cond, what, ex):
    if not cond:
        sys.exit("RFC 9227 Appendix A example %s: %s" % (ex["title"], what))


def case(n, ex):
    f = {k: bytes.fromhex(v) for k, v in ex["fields"].items()}
    for k, size in ex["sizes"].items():
        check(len(f[k]) == size, "%s: %d bytes printed, [%d] said" % (k, len(f[k]), size), ex)
    t = TRANSFORMS[ex["transform"]]
    mac_only = t in (34, 35)
    salt, key = f["salt"], f["K"]
    check(f["transform key"] == key + salt, "transform key = K | salt", ex)
    i1, i2, i3, pnum = ex["tree"]
    iv = bytes([i1]) + i2.to_bytes(2, "big") + i3.to_bytes(2, "big") + pnum.to_bytes(3, "big")
    check(f["IV"] == iv, "IV = i1 | i2 | i3 | pnum", ex)
    check(f["nonce"] == b"\0" + pnum.to_bytes(3, "big") + salt, "nonce = 0 | pnum | salt", ex)
    ip = f["ESP packet"]
    ihl = (ip[0] & 15) * 4
    check(ip[0] >> 4 == 4 and ip[9] == 50 and int.from_bytes(ip[2:4], "big") == len(ip),
          "an IPv4 packet of protocol 50 (ESP), its total length the printed length", ex)
    esp = ip[ihl:]
    spi, sn, body_icv = esp[:4], esp[4:8], esp[16:]
    check(esp[8:16] == iv, "the packet's IV", ex)
    icv = f["ESP ICV"]
    body = body_icv[:-len(icv)]
    check(body_icv[-len(icv):] == icv, "the packet ends with the ICV", ex)
    if mac_only:
        check(f["AAD"] == spi + sn + iv + body, "AAD = SPI | SN | IV | body (4.7.1)", ex)
        check(not f["plaintext"] and not f["ciphertext"], "nothing encrypted", ex)
        clear = body
    else:
        check(f["AAD"] == spi + sn, "AAD = SPI | SN (4.7.1, without ESN)", ex)
        check(body == f["ciphertext"], "the packet's body is the ciphertext", ex)
        clear = f["plaintext"]
    pad, nh = clear[-2], clear[-1]
    check(clear[-2 - pad:-2] == bytes(range(1, pad + 1)), "padding 1, 2, ... (RFC 4303)", ex)
    return {
        "example": "RFC 9227 Appendix A, example %d: %s" % (n, ex["title"]),
        "transform": ex["transform"], "transform_id": t,
        "keymat": ex["fields"]["transform key"], "i1": i1, "i2": i2, "i3": i3, "pnum": pnum,
        "message_key": ex["fields"]["K_msg"], "nonce": ex["fields"]["nonce"],
        "iv": iv.hex(), "aad": ex["fields"]["AAD"], "plaintext": ex["fields"]["plaintext"],
        "ciphertext": ex["fields"]["ciphertext"], "icv": icv.hex(),
        "ip_packet": ip.hex(), "esp": esp.hex(), "spi": spi.hex(),
        "seq": int.from_bytes(sn, "big"), "esn": False,
        "payload": clear[:-2 - pad].hex(), "next_header": nh}


def main(rfc, out):
    lines = open(rfc, encoding="utf-8").read().split("\n")
    start = max(i for i, l in enumerate(lines) if l.startswith("Appendix A.  Test Vectors"))
    exs = examples(lines[start:])
    if sorted(exs) != list(range(1, 9)):
        sys.exit("RFC 9227 Appendix A: examples %s found, 1 to 8 expected" % sorted(exs))
    d = json.load(open(out))
    d["rfc9227"] = {
        "source": "RFC 9227 (March 2022) Appendix A, examples 1 to 8 (two of each transform: "
                  "ENCR_KUZNYECHIK_MGM_KTREE, ENCR_MAGMA_MGM_KTREE, "
                  "ENCR_KUZNYECHIK_MGM_MAC_KTREE, ENCR_MAGMA_MGM_MAC_KTREE), read from the RFC's "
                  "text by tests/vectors/gen/esp9227-rfc/rfc9227.py; nothing computed.",
        "convention": "Bytes as printed. keymat: the 'transform key' (K | salt); i1, i2, i3, "
                      "pnum: numbers; message_key: K_msg; ip_packet: the 'ESP packet' as "
                      "printed (an IPv4 header, then ESP); esp: its ESP part (SPI | SN | IV | "
                      "body | ICV); spi, seq: the packet's; esn false (the AAD holds the 32-bit "
                      "SN); payload and next_header: the cleartext body (the 'plaintext', or the "
                      "body as sent for the integrity-only transforms) less its RFC 4303 "
                      "trailer. The generator checks that the printed values agree (see its "
                      "docstring).",
        "cases": [case(n, exs[n]) for n in sorted(exs)]}
    with open(out, "w") as f:
        json.dump(d, f, indent=2)
        f.write("\n")


main(sys.argv[1], sys.argv[2])
