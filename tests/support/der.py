"""DER by hand for the test scripts that build or take apart ASN.1 the
library would refuse to write (pfx_craft.py, vipnet_build.py,
fuzz/make_seeds.py, limbo/make_gost_limbo.py, test_keycont_cli.sh): one
element writer, one OBJECT IDENTIFIER writer, one header reader."""


def tlv(tag, *parts):
    """The element TAG around the parts joined, its length in the shortest
    definite form (X.690 8.1.3)."""
    body = b"".join(parts)
    n = len(body)
    if n < 0x80:
        return bytes([tag, n]) + body
    size = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([tag, 0x80 | len(size)]) + size + body


def seq(*parts):
    """A SEQUENCE of the parts."""
    return tlv(0x30, *parts)


def oid(dotted):
    """The OBJECT IDENTIFIER element of a dotted text (X.690 8.19)."""
    arcs = [int(a) for a in dotted.split(".")]
    body = bytearray([40 * arcs[0] + arcs[1]])
    for a in arcs[2:]:
        chunk = [a & 0x7F]
        while a > 0x7F:
            a >>= 7
            chunk.append(0x80 | (a & 0x7F))
        body += bytes(reversed(chunk))
    return tlv(0x06, bytes(body))


def header(data, pos):
    """(tag, header length, content length) of the element at data[pos]."""
    n = data[pos + 1]
    if n < 0x80:
        return data[pos], 2, n
    k = n & 0x7F
    return data[pos], 2 + k, int.from_bytes(data[pos + 2:pos + 2 + k], "big")
