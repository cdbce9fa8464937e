/* xml_transform: one transform of libgostx-xmldsig over a file, its octets
 * to stdout, so tests/test_xml_vectors.sh can compare them byte for byte
 * with published examples (the SMEV 3 recommendations' transform cases,
 * W3C Canonical XML's examples). Built with the library, never installed.
 *
 *   xml_transform smev FILE          the SMEV 3 transform of FILE's octets
 *   xml_transform c14n MODE FILE     FILE parsed (the library's safe parser:
 *                                    a DOCTYPE is refused) and the whole
 *                                    document canonicalized; MODE one of
 *                                    incl, incl-comments, exc, exc-comments
 *   xml_transform digest94 FILE      base64 of GOST R 34.11-94 (CryptoPro
 *                                    parameters) of FILE's octets
 * Exit 0, or 1 with the refusal on stderr. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static uint8_t *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 1 << 16, n = 0;
  uint8_t *p = malloc(cap);
  for (size_t r; p && (r = fread(p + n, 1, cap - n, f)) > 0;) {
    n += r;
    if (n == cap) {
      uint8_t *q = cap < GOSTX_XMLDSIG_MAX_SIZE ? realloc(p, cap *= 2) : NULL;
      if (!q) free(p);
      p = q;
    }
  }
  fclose(f);
  *len = n;
  return p;
}

static int c14n(const uint8_t *in, size_t len, const char *mode, uint8_t **out, size_t *n) {
  xd_transforms t = {0};
  t.c14n = 1;
  if (!strcmp(mode, "exc") || !strcmp(mode, "exc-comments")) t.exclusive = 1;
  else if (strcmp(mode, "incl") && strcmp(mode, "incl-comments")) return -1;
  t.comments = strstr(mode, "-comments") != NULL;
  gostx_xmldsig_status st;
  char err[256] = "";
  xmlDocPtr doc = xd_parse(in, len, &st, err, sizeof err);
  if (!doc) {
    fprintf(stderr, "xml_transform: %s: %s\n", gostx_xmldsig_status_name(st), err);
    return -1;
  }
  int rc = xd_canonical(doc, (xmlNodePtr)doc, NULL, &t, out, n);
  xmlFreeDoc(doc);
  return rc;
}

int main(int argc, char **argv) {
  const char *op = argc > 1 ? argv[1] : "";
  int c = !strcmp(op, "c14n");
  if (argc != 3 + c || (!c && strcmp(op, "smev") && strcmp(op, "digest94"))) {
    fprintf(stderr, "usage: xml_transform smev|digest94 FILE | c14n MODE FILE\n");
    return 2;
  }
  size_t len = 0, n = 0;
  uint8_t *in = slurp(argv[2 + c], &len), *out = NULL;
  if (!in) return perror(argv[2 + c]), 1;
  int rc = -1;
  if (c) rc = c14n(in, len, argv[2], &out, &n);
  else if (!strcmp(op, "smev")) rc = xd_smev(in, len, &out, &n);
  else {
    uint8_t d[64];
    if (xd_digest(94, in, len, d) == 32 && (out = (uint8_t *)xd_b64_encode(d, 32)))
      n = strlen((char *)out), rc = 0;
  }
  free(in);
  if (rc || fwrite(out, 1, n, stdout) != n) {
    fprintf(stderr, "xml_transform: %s failed\n", op);
    free(out);
    return 1;
  }
  free(out);
  return 0;
}
