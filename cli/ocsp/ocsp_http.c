/* HTTP/1.1 for OCSP (RFC 6960 appendix A.1): the client's POST, and the
 * responder's side: POST with an application/ocsp-request body, or GET
 * with the request base64 (URL-encoded) in the path; bounded sizes, plain
 * http only (what OCSP runs over: the response is signed). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "ocsp_cli.h"

#define RESP_MAX (1u << 20) /* a response larger than this is refused */

static void set_timeouts(int fd, int seconds) {
  struct timeval tv = {seconds, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

static int write_all(int fd, const void *p, size_t n) {
  const uint8_t *b = p;
  while (n) {
    ssize_t w = send(fd, b, n, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return -1;
    b += w, n -= (size_t)w;
  }
  return 0;
}

/* "http://host[:port][/path]", host a name, IPv4 or [IPv6]. */
static int parse_url(const char *url, char *host, size_t hcap, char *port, char *path, size_t pcap) {
  if (strncasecmp(url, "http://", 7)) return -1;
  const char *h = url + 7, *end, *slash = strchr(h, '/');
  const char *hend = slash ? slash : h + strlen(h);
  const char *colon;
  if (*h == '[') {
    end = memchr(h, ']', (size_t)(hend - h));
    if (!end) return -1;
    colon = end + 1 < hend && end[1] == ':' ? end + 1 : NULL;
    h++;
  } else {
    colon = memchr(h, ':', (size_t)(hend - h));
    end = colon ? colon : hend;
  }
  if (end == h || (size_t)(end - h) >= hcap) return -1;
  memcpy(host, h, (size_t)(end - h));
  host[end - h] = 0;
  size_t plen = colon ? (size_t)(hend - colon - 1) : 2;
  if (colon && (!plen || plen > 5 || strspn(colon + 1, "0123456789") < plen)) return -1;
  memcpy(port, colon ? colon + 1 : "80", plen);
  port[plen] = 0;
  const char *p = slash ? slash : "/";
  if (strlen(p) >= pcap || strpbrk(p, " \r\n")) return -1;
  strcpy(path, p);
  return 0;
}

static int connect_to(const char *host, const char *port, int timeout) {
  struct addrinfo hints = {0}, *ai, *a;
  hints.ai_socktype = SOCK_STREAM;
  int rc = getaddrinfo(host, port, &hints, &ai), fd = -1;
  if (rc) {
    cli_err("ocsp: %s: %s", host, gai_strerror(rc));
    return -1;
  }
  for (a = ai; a && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
    if (fd < 0) continue;
    if (!connect(fd, a->ai_addr, a->ai_addrlen)) break;
    if (errno == EINPROGRESS) {
      struct pollfd p = {fd, POLLOUT, 0};
      int err = 0;
      socklen_t el = sizeof err;
      if (poll(&p, 1, timeout * 1000) != 1 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) || err)
        close(fd), fd = -1, errno = err ? err : ETIMEDOUT;
    } else {
      int e = errno;
      close(fd), fd = -1, errno = e;
    }
  }
  freeaddrinfo(ai);
  if (fd < 0) {
    cli_err("ocsp: connecting to %s port %s: %s", host, port, strerror(errno));
    return -1;
  }
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  set_timeouts(fd, timeout);
  return fd;
}

/* The header's end ("\r\n\r\n") in buf[n], or NULL. */
static const uint8_t *header_end(const uint8_t *buf, size_t n) {
  const uint8_t *e = memmem(buf, n, "\r\n\r\n", 4);
  return e ? e + 4 : NULL;
}

/* The value of header name in the header text (NUL-terminated), or NULL. */
static const char *header(const char *head, const char *name, char *val, size_t cap) {
  size_t nl = strlen(name);
  for (const char *l = strstr(head, "\r\n"); l && l[2] && l[2] != '\r'; l = strstr(l + 2, "\r\n")) {
    const char *s = l + 2;
    if (!strncasecmp(s, name, nl) && s[nl] == ':') {
      s += nl + 1;
      while (*s == ' ' || *s == '\t') s++;
      size_t n = strcspn(s, "\r\n");
      while (n && (s[n - 1] == ' ' || s[n - 1] == '\t')) n--;
      if (n >= cap) n = cap - 1;
      memcpy(val, s, n);
      val[n] = 0;
      return val;
    }
  }
  return NULL;
}

int ocsp_http_post(const char *url, const uint8_t *req, size_t len, int timeout, uint8_t **resp,
                   size_t *resp_len) {
  return ocsp_http_post_as(url, "application/ocsp-request", req, len, timeout, resp, resp_len);
}

int ocsp_http_post_as(const char *url, const char *ctype, const uint8_t *req, size_t len,
                      int timeout, uint8_t **resp, size_t *resp_len) {
  char host[256], port[8], path[1024], head[1600], val[64];
  if (parse_url(url, host, sizeof host, port, path, sizeof path)) {
    cli_err("ocsp: -url %s: not http://HOST[:PORT][/PATH] (plain http only)", url);
    return CLI_EXIT_USAGE;
  }
  int fd = connect_to(host, port, timeout);
  if (fd < 0) return CLI_EXIT_FAIL;
  int hl = snprintf(head, sizeof head,
                    "POST %s HTTP/1.1\r\nHost: %s%s%s%s%s\r\nContent-Type: %s\r\n"
                    "Content-Length: %zu\r\nConnection: close\r\n\r\n",
                    path, strchr(host, ':') ? "[" : "", host, strchr(host, ':') ? "]" : "",
                    strcmp(port, "80") ? ":" : "", strcmp(port, "80") ? port : "", ctype, len);
  uint8_t *buf = malloc(RESP_MAX + 1);
  size_t n = 0;
  if (!buf || write_all(fd, head, (size_t)hl) || write_all(fd, req, len)) {
    cli_err("ocsp: sending to %s: %s", url, strerror(errno));
    goto fail;
  }
  for (;;) {
    ssize_t r = recv(fd, buf + n, RESP_MAX - n, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      cli_err("ocsp: reading from %s: %s", url, errno == EAGAIN ? "timed out" : strerror(errno));
      goto fail;
    }
    if (!r) break;
    n += (size_t)r;
    if (n == RESP_MAX) {
      cli_err("ocsp: %s: the reply is over %u bytes", url, RESP_MAX);
      goto fail;
    }
  }
  buf[n] = 0;
  const uint8_t *body = header_end(buf, n);
  int code = 0;
  if (!body || sscanf((const char *)buf, "HTTP/1.%*1[01] %d", &code) != 1 || code != 200) {
    cli_err("ocsp: %s: %s", url, body ? "the responder did not answer 200 OK" : "no HTTP reply");
    goto fail;
  }
  ((uint8_t *)body)[-2] = 0; /* the header as text, up to its last line's end */
  size_t blen = n - (size_t)(body - buf);
  if (header((const char *)buf, "Transfer-Encoding", val, sizeof val)) {
    cli_err("ocsp: %s: a chunked reply (not supported)", url);
    goto fail;
  }
  if (header((const char *)buf, "Content-Length", val, sizeof val)) {
    char *e;
    unsigned long cl = strtoul(val, &e, 10);
    if (*e || cl > blen) {
      cli_err("ocsp: %s: the reply is cut short", url);
      goto fail;
    }
    blen = cl;
  }
  memmove(buf, body, blen);
  *resp = buf, *resp_len = blen;
  close(fd);
  return 0;
fail:
  free(buf);
  close(fd);
  return CLI_EXIT_FAIL;
}

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

/* "METHOD TARGET HTTP/1.N" (sscanf's cost was a few percent of a
 * response): 0, or -1 when the line is not that. */
static int request_line(const char *l, char *method, size_t mcap, char *target, size_t tcap, int *minor) {
  size_t m = strcspn(l, " \r\n"), t;
  if (!m || m >= mcap || l[m] != ' ') return -1;
  memcpy(method, l, m), method[m] = 0;
  l += m + 1;
  t = strcspn(l, " \r\n");
  if (!t || t >= tcap || l[t] != ' ') return -1;
  memcpy(target, l, t), target[t] = 0;
  l += t + 1;
  if (strncmp(l, "HTTP/1.", 7) || l[7] < '0' || l[7] > '9') return -1;
  *minor = l[7] - '0';
  return 0;
}

int ocsp_http_parse(const uint8_t *in, size_t have, size_t cap, size_t *used, const uint8_t **body,
                    size_t *body_len, int *keep, int *status, uint8_t *dec, size_t dec_cap) {
  const uint8_t *end = header_end(in, have);
  *keep = 0, *status = 400, *used = have;
  if (!end) {
    if (have < cap) return 0;
    *status = 413;
    return -1;
  }
  size_t hlen = (size_t)(end - in);
  char head[8192], val[64], method[8], target[4096];
  int minor;
  if (hlen >= sizeof head) {
    *status = 413;
    return -1;
  }
  memcpy(head, in, hlen);
  head[hlen - 2] = 0;
  if (request_line(head, method, sizeof method, target, sizeof target, &minor)) return -1;
  const char *conn = header(head, "Connection", val, sizeof val);
  *keep = minor == 1 ? !(conn && !strcasecmp(conn, "close")) : (conn && !strcasecmp(conn, "keep-alive"));
  if (!strcmp(method, "POST")) {
    char *e;
    if (!header(head, "Content-Length", val, sizeof val)) return *keep = 0, -1;
    unsigned long cl = strtoul(val, &e, 10);
    if (*e || !*val) return *keep = 0, -1;
    if (cl > cap - hlen) {
      *status = 413, *keep = 0;
      return -1;
    }
    if (have < hlen + cl) return 0;
    *body = in + hlen, *body_len = cl;
    *used = hlen + cl; /* what came after it stays for the next request */
    return 1;
  }
  if (!strcmp(method, "GET")) {
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
  *status = 405, *keep = 0;
  return -1;
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
