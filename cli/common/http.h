/* HTTP/1.x for the command's services and clients, in one place: the
 * request parser of gostx ocsp -port and gostx ts serve (their
 * connections: http_serve.h), and the POST client of gostx ocsp -url and
 * gostx cms -enhance (-ocsp URL, -tsa URL). Plain http only: what OCSP and
 * RFC 3161 run over (their answers are signed). */
#ifndef GOSTX_CLI_HTTP_H
#define GOSTX_CLI_HTTP_H

#include <stddef.h>
#include <stdint.h>

/* A request's head, through its blank line, is at most this. */
#define HTTP_HEAD_MAX 8192
/* The request line's parts: a method of at most 7 bytes (the longest
 * HTTP names), a target of less than HTTP_TARGET_MAX. */
#define HTTP_METHOD_MAX 8
#define HTTP_TARGET_MAX 4096

enum { HTTP_GET = 1, HTTP_POST = 2 };

/* What a service takes. */
typedef struct http_rules {
  unsigned methods;      /* HTTP_GET | HTTP_POST: others get 405 */
  const char *post_type; /* a POST's Content-Type (";params" after it allowed), NULL: any */
  size_t max;            /* head and body together */
  size_t body_max;
} http_rules;

typedef struct http_req {
  int method;             /* HTTP_GET or HTTP_POST */
  const char *target;     /* in the request's bytes, not NUL-terminated */
  size_t target_len;
  int keep;               /* the connection stays open after the reply (version, Connection) */
  const uint8_t *body;    /* Content-Length bytes after the head (a GET without one: none) */
  size_t body_len;
  size_t head_len, used;  /* used: head and body; what follows is the next request's */
  const char *why;        /* a refusal's reason phrase */
} http_req;

/* One request from what a connection sent, in[0..have): 1 whole (*q
 * filled); 0 not whole yet (never once have reaches rules->max); else the
 * status to refuse with, checked in this order and said in q->why:
 * 431 the head over HTTP_HEAD_MAX; 400 the request line not METHOD SP
 * TARGET SP HTTP/1.N; 405 a method not in rules; 415 a POST of another
 * Content-Type; 411 a POST without Content-Length; 400 a Content-Length
 * not digits; 413 a body over rules' bounds. Header lines are "Name:
 * value" (a line without a colon is no field; the first of a name counts). */
int http_req_parse(const uint8_t *in, size_t have, const http_rules *rules, http_req *q);

/* The value of field name in head[0..len) (a request's or a reply's,
 * lines after the first; blanks around it dropped), its length in *vlen;
 * NULL when there is none. */
const char *http_field(const char *head, size_t len, const char *name, size_t *vlen);

/* POSTs body to url (http://HOST[:PORT][/PATH]) as ctype and returns the
 * body of a 200 reply (malloc'ed) in *resp; timeout in seconds for the
 * connect and each read and write. 0; CLI_EXIT_USAGE for a URL not of
 * that form; CLI_EXIT_FAIL. Messages start with who, the option it
 * serves ("ocsp: -url", "cms: -enhance: -tsa"). */
int http_post(const char *who, const char *url, const char *ctype, const uint8_t *body, size_t len,
              int timeout, uint8_t **resp, size_t *resp_len);

#endif
