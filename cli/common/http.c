/* HTTP/1.x requests parsed, and POSTed (http.h). The parser reads the
 * connection's bytes in place: nothing is copied or allocated per request
 * (the OCSP responder answers tens of thousands a second). Before this,
 * gostx ocsp and gostx ts serve each had a parser, with different limits
 * and checks for the same request. */
#define _GNU_SOURCE /* memmem */
#include "http.h"

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

#include "cli.h"

#define RESP_MAX (1u << 20) /* a reply larger than this is refused */

/* The bytes of s[0..n) before a blank, CR, LF or NUL. */
static size_t token(const char *s, size_t n) {
  size_t i = 0;
  while (i < n && s[i] != ' ' && s[i] != '\r' && s[i] != '\n' && s[i]) i++;
  return i;
}

/* Where the line at l ends (its CRLF), or end. */
static const char *line_end(const char *l, const char *end) {
  for (const char *p = l; (p = memchr(p, '\r', (size_t)(end - p))) && p + 1 < end; p++)
    if (p[1] == '\n') return p;
  return end;
}

/* Line l..e as field name (nl bytes): 1 with its value, blanks around it
 * dropped, in *v and *vn; else 0. */
static int field_of(const char *l, const char *e, const char *name, size_t nl, const char **v, size_t *vn) {
  if ((size_t)(e - l) <= nl || l[nl] != ':' || strncasecmp(l, name, nl)) return 0;
  l += nl + 1;
  while (l < e && (*l == ' ' || *l == '\t')) l++;
  while (e > l && (e[-1] == ' ' || e[-1] == '\t')) e--;
  *v = l, *vn = (size_t)(e - l);
  return 1;
}

/* The first value of each of names[0..n) among the field lines of
 * head[0..len) (after its first line, up to a blank one): one pass. */
static void fields(const char *head, size_t len, const char *const *names, size_t n, const char **v,
                   size_t *vn) {
  const char *end = head + len, *l = line_end(head, end);
  for (size_t k = 0; k < n; k++) v[k] = NULL;
  while (l + 2 < end) {
    const char *e = line_end(l += 2, end);
    if (e == l) break; /* the blank line: the head's end */
    for (size_t k = 0; k < n; k++)
      if (!v[k] && field_of(l, e, names[k], strlen(names[k]), &v[k], &vn[k])) break;
    l = e;
  }
}

const char *http_field(const char *head, size_t len, const char *name, size_t *vlen) {
  const char *v;
  fields(head, len, &name, 1, &v, vlen);
  return v;
}

/* v[0..n) as a decimal length, saturating (a huge one is over any bound):
 * 0, or -1 when it is not digits alone. */
static int length_value(const char *v, size_t n, uint64_t *out) {
  uint64_t x = 0;
  if (!n) return -1;
  for (size_t i = 0; i < n; i++) {
    if (v[i] < '0' || v[i] > '9') return -1;
    x = x > (UINT64_MAX - 9) / 10 ? UINT64_MAX : x * 10 + (uint64_t)(v[i] - '0');
  }
  *out = x;
  return 0;
}

static int is_value(const char *v, size_t n, const char *want) {
  return v && n == strlen(want) && !strncasecmp(v, want, n);
}

static int refuse(http_req *q, int status, const char *why) {
  q->why = why;
  return status;
}

int http_req_parse(const uint8_t *in, size_t have, const http_rules *rules, http_req *q) {
  const char *s = (const char *)in;
  *q = (http_req){.used = have};
  const uint8_t *blank = memmem(in, have < HTTP_HEAD_MAX ? have : HTTP_HEAD_MAX, "\r\n\r\n", 4);
  if (!blank) return have < HTTP_HEAD_MAX ? 0 : refuse(q, 431, "Request Header Fields Too Large");
  size_t hlen = (size_t)(blank - in) + 4, ll = (size_t)(line_end(s, s + hlen) - s);
  /* METHOD SP TARGET SP HTTP/1.N, each part bounded */
  size_t m = token(s, ll), t = m < ll ? token(s + m + 1, ll - m - 1) : 0;
  const char *v = s + m + 1 + t + 1;
  if (!m || m >= HTTP_METHOD_MAX || m == ll || s[m] != ' ' || !t || t >= HTTP_TARGET_MAX ||
      m + 1 + t == ll || s[m + 1 + t] != ' ' || (size_t)(s + ll - v) != 8 || memcmp(v, "HTTP/1.", 7) ||
      v[7] < '0' || v[7] > '9')
    return refuse(q, 400, "Bad Request (the request line)");
  q->method = m == 3 && !memcmp(s, "GET", 3) ? HTTP_GET : m == 4 && !memcmp(s, "POST", 4) ? HTTP_POST : 0;
  if (!(q->method & rules->methods)) return refuse(q, 405, "Method Not Allowed");
  q->target = s + m + 1, q->target_len = t;
  static const char *const names[] = {"Content-Type", "Content-Length", "Connection"};
  const char *f[3];
  size_t n[3] = {0};
  fields(s, hlen, names, 3, f, n);
  if (q->method == HTTP_POST && rules->post_type) {
    size_t tl = strlen(rules->post_type);
    if (!f[0] || n[0] < tl || strncasecmp(f[0], rules->post_type, tl) || (n[0] > tl && f[0][tl] != ';'))
      return refuse(q, 415, "Unsupported Media Type");
  }
  uint64_t cl = 0;
  if ((!f[1] || !n[1]) && q->method == HTTP_POST) return refuse(q, 411, "Length Required");
  if (f[1] && n[1] && length_value(f[1], n[1], &cl)) return refuse(q, 400, "Bad Request (Content-Length)");
  if (cl > rules->body_max || cl > rules->max - hlen) return refuse(q, 413, "Payload Too Large");
  if (have - hlen < cl) return 0;
  q->keep = v[7] == '1' ? !is_value(f[2], n[2], "close") : is_value(f[2], n[2], "keep-alive");
  q->body = in + hlen, q->body_len = (size_t)cl;
  q->head_len = hlen, q->used = hlen + (size_t)cl;
  return 1;
}

/* ---- the client ---- */

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

static int connect_to(const char *who, const char *host, const char *port, int timeout) {
  struct addrinfo hints = {0}, *ai, *a;
  hints.ai_socktype = SOCK_STREAM;
  int rc = getaddrinfo(host, port, &hints, &ai), fd = -1;
  if (rc) {
    cli_err("%s: %s: %s", who, host, gai_strerror(rc));
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
    cli_err("%s: connecting to %s port %s: %s", who, host, port, strerror(errno));
    return -1;
  }
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  set_timeouts(fd, timeout);
  return fd;
}

int http_post(const char *who, const char *url, const char *ctype, const uint8_t *req, size_t len,
              int timeout, uint8_t **resp, size_t *resp_len) {
  char host[256], port[8], path[1024], head[1600];
  if (parse_url(url, host, sizeof host, port, path, sizeof path)) {
    cli_err("%s: %s: not http://HOST[:PORT][/PATH] (plain http only)", who, url);
    return CLI_EXIT_USAGE;
  }
  int fd = connect_to(who, host, port, timeout);
  if (fd < 0) return CLI_EXIT_FAIL;
  int hl = snprintf(head, sizeof head,
                    "POST %s HTTP/1.1\r\nHost: %s%s%s%s%s\r\nContent-Type: %s\r\n"
                    "Content-Length: %zu\r\nConnection: close\r\n\r\n",
                    path, strchr(host, ':') ? "[" : "", host, strchr(host, ':') ? "]" : "",
                    strcmp(port, "80") ? ":" : "", strcmp(port, "80") ? port : "", ctype, len);
  uint8_t *buf = malloc(RESP_MAX + 1);
  size_t n = 0;
  if (!buf || write_all(fd, head, (size_t)hl) || write_all(fd, req, len)) {
    cli_err("%s: sending to %s: %s", who, url, strerror(errno));
    goto fail;
  }
  for (;;) {
    ssize_t r = recv(fd, buf + n, RESP_MAX - n, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      cli_err("%s: reading from %s: %s", who, url, errno == EAGAIN ? "timed out" : strerror(errno));
      goto fail;
    }
    if (!r) break;
    n += (size_t)r;
    if (n == RESP_MAX) {
      cli_err("%s: %s: the reply is over %u bytes", who, url, RESP_MAX);
      goto fail;
    }
  }
  buf[n] = 0;
  const uint8_t *blank = memmem(buf, n, "\r\n\r\n", 4);
  int code = 0;
  if (!blank || sscanf((const char *)buf, "HTTP/1.%*1[01] %d", &code) != 1 || code != 200) {
    cli_err("%s: %s: %s", who, url, blank ? "the responder did not answer 200 OK" : "no HTTP reply");
    goto fail;
  }
  size_t hlen = (size_t)(blank - buf) + 4, blen = n - hlen, vlen;
  uint64_t cl;
  if (http_field((const char *)buf, hlen, "Transfer-Encoding", &vlen)) {
    cli_err("%s: %s: a chunked reply (not supported)", who, url);
    goto fail;
  }
  const char *v = http_field((const char *)buf, hlen, "Content-Length", &vlen);
  if (v) {
    if (length_value(v, vlen, &cl) || cl > blen) {
      cli_err("%s: %s: the reply is cut short", who, url);
      goto fail;
    }
    blen = (size_t)cl;
  }
  memmove(buf, buf + hlen, blen);
  *resp = buf, *resp_len = blen;
  close(fd);
  return 0;
fail:
  free(buf);
  close(fd);
  return CLI_EXIT_FAIL;
}
