/* HTTP/1.1 for OCSP (RFC 6960 appendix A.1): the client's POST, and the
 * responder's side: POST with an application/ocsp-request body, or GET
 * with the request base64 (URL-encoded) in the path; bounded sizes, plain
 * http only (what OCSP runs over: the response is signed). */
#include <stdlib.h>
#include <string.h>

#include "ocsp_cli.h"

/* RFC 4648 base64 (the GET form) through gostx/base64.h: 0 and *n, or -1.
 * Refused: another character, one after '=', more than two '=', more
 * bytes than cap; bits left over at the end are dropped. */
static int b64_decode(const char *s, size_t len, uint8_t *out, size_t cap, size_t *n) {
  size_t pad = 0;
  for (size_t i = 0; i < len; i++) pad += s[i] == '=';
  gostx_base64 d = {0, 0, 0};
  if (pad > 2 || (len - pad) * 6 / 8 > cap) return -1; /* what the decoder writes, exactly */
  return gostx_base64_decode(&d, s, len, out, n) ? -1 : 0;
}

/* %XX decoded in place: the new length, or -1. */
static long url_decode(char *s, size_t n) {
  size_t o = 0;
  for (size_t i = 0; i < n; i++) {
    if (s[i] == '%') {
      char hx[3] = {0};
      if (i + 2 >= n) return -1;
      hx[0] = s[i + 1], hx[1] = s[i + 2];
      char *e;
      long v = strtol(hx, &e, 16);
      if (*e) return -1;
      s[o++] = (char)v, i += 2;
    } else
      s[o++] = s[i];
  }
  return (long)o;
}

int ocsp_http_parse(const uint8_t *in, size_t have, size_t cap, size_t *used, const uint8_t **body,
                    size_t *body_len, int *keep, int *status, uint8_t *dec, size_t dec_cap) {
  const http_rules rules = {HTTP_GET | HTTP_POST, NULL, cap, cap};
  http_req q;
  int st = http_req_parse(in, have, &rules, &q);
  *keep = 0, *used = have;
  if (st == 0) return 0;
  if (st != 1) { /* the statuses the responder has always answered */
    *status = st == 431 ? 413 : st == 411 ? 400 : st;
    return -1;
  }
  *keep = q.keep, *status = 400;
  if (q.method == HTTP_GET) {
    char target[HTTP_TARGET_MAX];
    size_t hlen = q.used; /* its head (and any body: none of it is the next request) */
    memcpy(target, q.target, q.target_len), target[q.target_len] = 0;
    /* the path's last segment: base64 of the DER, URL-encoded (A.1) */
    char *last = strrchr(target, '/');
    if (!last) return *keep = 0, -1;
    long n = url_decode(last + 1, strlen(last + 1));
    size_t got;
    if (n <= 0 || b64_decode(last + 1, (size_t)n, dec, dec_cap, &got)) return *keep = 0, -1;
    *body = dec, *body_len = got;
    *used = hlen; /* a GET has no body: a pipelined request after it is the next one */
    return 1;
  }
  *body = q.body, *body_len = q.body_len;
  *used = q.used; /* what came after it stays for the next request */
  return 1;
}

static char *put(char *p, const char *s) {
  size_t n = strlen(s);
  memcpy(p, s, n);
  return p + n;
}

size_t ocsp_http_reply_head(char *head, int status, size_t len, int keep) {
  /* put together by hand: snprintf was a few percent of a response */
  char digits[24], *p = head;
  size_t nd = 0, cl = status == 200 ? len : 0;
  p = put(p, status == 200   ? "HTTP/1.1 200 OK\r\nContent-Type: application/ocsp-response\r\n"
             : status == 405 ? "HTTP/1.1 405 Method Not Allowed\r\n"
             : status == 413 ? "HTTP/1.1 413 Payload Too Large\r\n"
             : status == 500 ? "HTTP/1.1 500 Internal Server Error\r\n"
                             : "HTTP/1.1 400 Bad Request\r\n");
  p = put(p, "Content-Length: ");
  do digits[nd++] = (char)('0' + cl % 10);
  while (cl /= 10);
  while (nd) *p++ = digits[--nd];
  p = put(p, keep ? "\r\nConnection: keep-alive\r\n\r\n" : "\r\nConnection: close\r\n\r\n");
  return (size_t)(p - head);
}
