/* The scan ahead of libxml2: one linear pass over a document's bytes (the
 * whole buffer before xd_parse parses it, each streamed read before the
 * reader gets it) that refuses what would make the parse's work grow
 * faster than the document: libxml2 2.9 (Debian 12's) checks an element's
 * attributes for duplicates pairwise and appends each to the end of a list
 * it walks, and its C14N inserts each into a sorted list: 20,000
 * attributes on one element cost seconds, 100,000 minutes. So an element's
 * attributes, the nesting, names and (in memory) the nodes are counted
 * here, with a lexer that sees what libxml2 sees: every '<' outside a
 * comment, PI or CDATA section opens markup for both (in an attribute
 * value libxml2 ends the value there, as an error), so a malformed
 * document can only make the counts here higher than libxml2's, never
 * lower. It also refuses what would blind it: a DOCTYPE or another <!
 * declaration, a NUL byte, and encodings that are not ASCII-compatible
 * (UTF-16, UCS-4, EBCDIC by their first bytes, or any encoding the XML
 * declaration names other than UTF-8, US-ASCII and the single-byte
 * ISO-8859, windows-125x, KOI8 and CP866 ones: in UTF-7 or ISO-2022 a '<'
 * need not be the byte '<'). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "internal.h"

enum {
  S_TEXT,    /* character data (or the prolog) */
  S_LT,      /* after '<' */
  S_BANG,    /* after "<!": matching "--" or "[CDATA[" */
  S_COMMENT, /* until "-->" */
  S_PI,      /* until "?>" */
  S_CDATA,   /* until "]]>" */
  S_STAG,    /* a start tag's name */
  S_TAG,     /* between a start tag's attributes */
  S_ATTR,    /* an attribute's name */
  S_VALUE,   /* a quoted value, until s->quote */
  S_SLASH,   /* '/' in a start tag */
  S_ETAG     /* an end tag, until '>' */
};

static int space(int c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

static int refuse(xd_scan *s, gostx_xmldsig_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int refuse(xd_scan *s, gostx_xmldsig_status st, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(s->why, sizeof s->why, fmt, ap);
  va_end(ap);
  s->st = st;
  return -1;
}

void xd_scan_init(xd_scan *s, size_t max_nodes, unsigned scale) {
  memset(s, 0, sizeof *s);
  s->max_nodes = max_nodes;
  s->max_attrs = GOSTX_XMLDSIG_MAX_ATTRS * scale;
  s->max_ns = GOSTX_XMLDSIG_MAX_NS * scale;
}

static int node(xd_scan *s) {
  if (!s->max_nodes || ++s->nodes <= s->max_nodes) return 0;
  return refuse(s, GOSTX_XMLDSIG_TOO_LARGE,
                "over %zu nodes (elements, attributes, text, comments, PIs) in one document",
                s->max_nodes);
}

/* One more byte of a name (an element's or an attribute's). */
static int name_byte(xd_scan *s, int c) {
  if (++s->name_len > GOSTX_XMLDSIG_MAX_NAME)
    return refuse(s, GOSTX_XMLDSIG_TOO_LARGE, "a name over %u bytes", GOSTX_XMLDSIG_MAX_NAME);
  if (s->state == S_STAG && s->name_len < sizeof s->elem) /* printed: control bytes as ? */
    s->elem[s->name_len - 1] = (char)(c < 0x20 || c == 0x7F ? '?' : c);
  if (s->state == S_ATTR && s->name_len <= 6) s->attr[s->name_len - 1] = (char)c;
  return 0;
}

/* The end of an attribute's name: a namespace declaration (xmlns,
 * xmlns:p) counts towards those in scope, which inclusive c14n writes
 * all on the element it starts at. */
static int attr_end(xd_scan *s) {
  s->state = S_TAG;
  if (memcmp(s->attr, "xmlns", 5) || (s->name_len != 5 && s->attr[5] != ':')) return 0;
  s->ns_open[s->depth]++;
  if (++s->ns_scope > s->max_ns)
    return refuse(s, GOSTX_XMLDSIG_TOO_LARGE, "over %u namespace declarations in scope at <%.64s>",
                  s->max_ns, s->elem);
  return 0;
}

/* An element ends ("/>" or its end tag): its declarations go out of scope. */
static void close_element(xd_scan *s) {
  if (!s->depth) return;
  s->ns_scope -= s->ns_open[s->depth];
  s->depth--;
}

/* The encoding the XML declaration names (s->decl, NUL-terminated), if
 * any, is one whose bytes below 0x80 are ASCII's. */
static int declared_encoding(xd_scan *s) {
  static const char *const ok[] = {"UTF-8", "UTF8", "US-ASCII", "ASCII", "KOI8-R", "KOI8-U",
                                   "CP866", "IBM866", "LATIN1"};
  const char *p = strstr(s->decl, "encoding");
  if (!p) return 0;
  p += 8;
  while (space(*p)) p++;
  if (*p++ != '=') return 0; /* libxml2 refuses the declaration */
  while (space(*p)) p++;
  char q = *p++, e[40];
  size_t n = 0;
  while (*p && *p != q && n < sizeof e - 1) /* printed in a one-line reason */
    e[n++] = *p >= 0x21 && *p <= 0x7E ? *p : '?', p++;
  e[n] = 0;
  int known = 0;
  for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) known |= !strcasecmp(e, ok[i]);
  /* ISO-8859-1..16, ISO8859-N, windows-1250..1258, CP1250..1258: the
   * number the whole rest of the name */
  static const struct { const char *prefix; int lo, hi; } nums[] = {
      {"ISO-8859-", 1, 16}, {"ISO8859-", 1, 16}, {"windows-", 1250, 1258}, {"CP", 1250, 1258}};
  for (size_t i = 0; i < sizeof nums / sizeof *nums; i++) {
    size_t k = strlen(nums[i].prefix);
    int num = 0, end = 0;
    if (!strncasecmp(e, nums[i].prefix, k) && e[k] >= '0' && e[k] <= '9' &&
        sscanf(e + k, "%d%n", &num, &end) == 1 && !e[k + (size_t)end])
      known |= num >= nums[i].lo && num <= nums[i].hi;
  }
  if (known) return 0;
  return refuse(s, GOSTX_XMLDSIG_MALFORMED,
                "encoding \"%.40s\": documents are read in UTF-8 or a single-byte "
                "ASCII-compatible encoding", e);
}

/* The start tag's end ('>' of "<e ...>" or "<e .../>"). */
static void tag_end(xd_scan *s, int empty) {
  if (empty) close_element(s);
  s->state = S_TEXT, s->text = 0;
}

static int lt(xd_scan *s) {
  if (s->text && node(s)) return -1;
  s->text = 0, s->state = S_LT;
  return 0;
}

/* A byte between a start tag's attributes: a name starts an attribute. */
static int in_tag(xd_scan *s, int c) {
  if (c == '<') return lt(s);
  if (c == '>') return tag_end(s, 0), 0;
  if (c == '/') return s->state = S_SLASH, 0;
  if (c == '"' || c == '\'') return s->state = S_VALUE, s->quote = c, 0;
  if (space(c) || c == '=') return 0;
  if (++s->attrs > s->max_attrs)
    return refuse(s, GOSTX_XMLDSIG_TOO_LARGE,
                  "<%.64s> has over %u attributes (namespace declarations included)", s->elem,
                  s->max_attrs);
  s->state = S_ATTR, s->name_len = 0;
  memset(s->attr, 0, sizeof s->attr);
  return node(s) || name_byte(s, c);
}

static int byte(xd_scan *s, int c) {
  if (c == 0 || (s->pos == 0 && (c == 0xFE || c == 0xFF || c == 0x4C)))
    return refuse(s, GOSTX_XMLDSIG_MALFORMED, "%s",
                  "documents are read in UTF-8 or another ASCII-compatible encoding (a NUL "
                  "byte, or a UTF-16, UCS-4 or EBCDIC start)");
  /* The XML declaration, which alone can switch libxml2's encoding: only
   * where the document starts (after a UTF-8 byte order mark). */
  if (s->decl_len >= 0 && s->decl_len < (int)sizeof s->decl - 1) {
    static const char head[] = "<?xml";
    int bom = s->pos < 3 && c == "\xEF\xBB\xBF"[s->pos] && s->decl_len == 0;
    if (!bom) {
      s->decl[s->decl_len++] = (char)c;
      if (s->decl_len <= 5 && c != head[s->decl_len - 1]) s->decl_len = -1;
      else if (s->decl_len == 6 && !space(c)) s->decl_len = -1; /* a PI <?xmlfoo */
      else if (s->decl_len > 6 && c == '>' && s->decl[s->decl_len - 2] == '?') {
        s->decl[s->decl_len] = 0;
        s->decl_len = -1;
        if (declared_encoding(s)) return -1;
      }
    }
  } else if (s->decl_len > 0) {
    return refuse(s, GOSTX_XMLDSIG_MALFORMED, "%s", "an XML declaration over 255 bytes");
  }
  s->pos++;
  int p1 = s->prev1, p2 = s->prev2;
  s->prev2 = p1, s->prev1 = c;
  switch (s->state) {
  case S_TEXT:
    if (c == '<') return lt(s);
    s->text = 1;
    return 0;
  case S_LT:
    s->prev1 = s->prev2 = 0; /* "<!-->" and "<?>" close nothing */
    if (c == '!') return s->state = S_BANG, s->match = 0, 0;
    if (c == '?') return s->state = S_PI, node(s);
    if (c == '/') return s->state = S_ETAG, 0;
    if (c == '<') return lt(s);
    if (s->depth == GOSTX_XMLDSIG_MAX_DEPTH)
      return refuse(s, GOSTX_XMLDSIG_TOO_LARGE, "elements nested over %u deep",
                    GOSTX_XMLDSIG_MAX_DEPTH);
    s->ns_open[++s->depth] = 0;
    s->root = 1, s->state = S_STAG, s->attrs = 0, s->name_len = 0;
    memset(s->elem, 0, sizeof s->elem);
    return node(s) || name_byte(s, c);
  case S_BANG:
    /* "--" opens a comment; "[CDATA[" a CDATA section inside the document
     * element; anything else is a declaration (before the document
     * element, a DOCTYPE) */
    if (s->match == 0) s->want = c == '-' || !s->root ? "--" : "[CDATA[";
    if (c != s->want[s->match])
      return s->root ? refuse(s, GOSTX_XMLDSIG_MALFORMED, "%s",
                              "not well-formed XML (a <! declaration in the document element)")
                     : refuse(s, GOSTX_XMLDSIG_DTD, "%s", "a DOCTYPE (DTDs and entities are refused)");
    if (s->want[++s->match]) return 0;
    s->prev1 = s->prev2 = 0;
    s->state = s->want[0] == '-' ? S_COMMENT : S_CDATA;
    return node(s);
  case S_COMMENT:
    if (c == '>' && p1 == '-' && p2 == '-') s->state = S_TEXT, s->text = 0;
    return 0;
  case S_PI:
    if (c == '>' && p1 == '?') s->state = S_TEXT, s->text = 0;
    return 0;
  case S_CDATA:
    if (c == '>' && p1 == ']' && p2 == ']') s->state = S_TEXT, s->text = 0;
    return 0;
  case S_STAG:
    if (c == '<') return lt(s);
    if (c == '>') return tag_end(s, 0), 0;
    if (c == '/') return s->state = S_SLASH, 0;
    if (space(c)) return s->state = S_TAG, 0;
    return name_byte(s, c);
  case S_SLASH:
    if (c == '>') return tag_end(s, 1), 0;
    s->state = S_TAG; /* libxml2 refuses it; the byte counts as any in the tag */
    return in_tag(s, c);
  case S_TAG: return in_tag(s, c);
  case S_ATTR:
    if (space(c) || c == '=' || c == '<' || c == '>' || c == '/' || c == '"' || c == '\'')
      return attr_end(s) || in_tag(s, c);
    return name_byte(s, c);
  case S_VALUE:
    if (c == '<') return lt(s); /* libxml2's value ends there too (refused) */
    if (c == s->quote) s->state = S_TAG;
    return 0;
  case S_ETAG:
    if (c == '<') return lt(s);
    if (c == '>') close_element(s), s->state = S_TEXT, s->text = 0;
    return 0;
  }
  return 0;
}

int xd_scan_feed(xd_scan *s, const uint8_t *p, size_t n) {
  if (s->st) return -1;
  for (size_t i = 0; i < n; i++) {
    if (s->state == S_TEXT && s->decl_len < 0) { /* a run of text, as byte() would take it */
      size_t j = i;
      while (j < n && p[j] != '<' && p[j]) j++;
      if (j > i) s->text = 1, s->pos += j - i, i = j;
      if (i == n) break;
    }
    if (byte(s, p[i])) return -1;
  }
  return 0;
}

gostx_xmldsig_status xd_scan_status(const xd_scan *s, char *err, size_t cap) {
  xd_err(err, cap, "%s", s->why);
  return s->st;
}
