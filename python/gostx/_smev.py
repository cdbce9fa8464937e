"""The SMEV 3 transform (urn://smev-gov-ru/xmldsig/transform) in Python over
lxml, for gostx.xmldsig: the rules integrations/xmldsig/smev.c follows (from
SMEV 3's methodological recommendations), so that both give the same octets.
The canonical octets are parsed again and written with no declaration,
processing instruction or comment; no text of only characters <= U+0020; no
empty-element tag; every namespace prefix replaced by ns1, ns2, ... in the
order first needed, declared where first needed in its scope; attributes
sorted (the qualified by namespace URI then local name, then the others by
local name); the element's declaration, then those its attributes need,
before the attributes. Characters escaped as the reference transform's
writer (Woodstox; the recommendations' step 9) escapes them: _text, _ATTR."""
from lxml import etree

_ALWAYS = {"&": "&amp;", "<": "&lt;", "\r": "&#xd;",
           **{chr(c): f"&#x{c:x};" for c in range(0x7F, 0xA0)}}
_ATTR = {"&": "&amp;", "<": "&lt;", '"': "&quot;", "\r": "&#xd;", "\t": "&#x9;", "\n": "&#xa;"}
_MAX_DEPTH = 256
_XML = "http://www.w3.org/XML/1998/namespace"


def _escape(s, table):
    return "".join(table.get(c, c) for c in s)


def _text(s):
    """A text block as Woodstox writes a StAX Characters event: &, <, CR and
    U+007F..U+009F always escaped, > only where it could close "]]>": under
    12 UTF-16 units, when first or after ]; longer (written in 512-unit
    chunks), when first in a chunk, right after an escaped character or
    after ] (integrations/xmldsig/smev.c says the same)."""
    longer = sum(2 if ord(c) > 0xFFFF else 1 for c in s) >= 12
    out, unit, prev, after_escape = [], 0, "", False
    for c in s:
        e = _ALWAYS.get(c)
        if c == ">" and (prev == "]" or (unit % 512 == 0 or after_escape if longer else unit == 0)):
            e = "&gt;"
        out.append(e or c)
        after_escape, prev = e is not None, c
        unit += 2 if ord(c) > 0xFFFF else 1
    return "".join(out)


def _split(clark):
    """(namespace or None, local name) of an lxml tag or attribute key."""
    if clark[0] == "{":
        uri, _, local = clark[1:].partition("}")
        return (uri or None), local
    return None, clark


def _whitespace(s):
    return all(c <= " " for c in s)


class _Writer:
    def __init__(self):
        self.out = []
        self.scope = []  # (uri, number), innermost last
        self.next = 0

    def lookup(self, uri):
        for u, n in reversed(self.scope):
            if u == uri:
                return n
        return 0

    def declare(self, uri):
        self.next += 1
        self.scope.append((uri, self.next))
        self.out.append(f' xmlns:ns{self.next}="{_escape(uri, _ATTR)}"')
        return self.next

    @staticmethod
    def name(n, local):
        return f"ns{n}:{local}" if n else local

    def text(self, s):
        if s and not _whitespace(s):
            self.out.append(_text(s))

    def element(self, e, depth):
        if depth > _MAX_DEPTH:
            raise ValueError("SMEV transform: nesting past 256 elements")
        mark = len(self.scope)
        uri, local = _split(e.tag)
        attrs = sorted((_split(k) + (v,) for k, v in e.attrib.items()),
                       key=lambda a: (a[0] is None, a[0] or "", a[1]))
        n = self.lookup(uri) if uri else 0
        fresh = uri and not n
        if fresh:
            n = self.next + 1
        self.out.append("<" + self.name(n, local))
        if fresh:
            self.declare(uri)
        for auri, _, _ in attrs:
            if auri and auri != _XML and not self.lookup(auri):
                self.declare(auri)
        for auri, alocal, v in attrs:
            # xml:lang, xml:space keep their prefix: binding another to the
            # xml namespace is forbidden (as smev.c)
            qname = "xml:" + alocal if auri == _XML else \
                self.name(self.lookup(auri) if auri else 0, alocal)
            self.out.append(f' {qname}="{_escape(v, _ATTR)}"')
        self.out.append(">")
        self.text(e.text)
        for c in e:
            if isinstance(c.tag, str):
                self.element(c, depth + 1)
            self.text(c.tail)  # a comment's or PI's tail is text of e too
        self.out.append(f"</{self.name(n, local)}>")
        del self.scope[mark:]


def transform(octets, parser):
    """The SMEV transform of octets (XML, UTF-8) parsed with parser: bytes."""
    w = _Writer()
    w.element(etree.fromstring(octets, parser), 0)
    return "".join(w.out).encode()
