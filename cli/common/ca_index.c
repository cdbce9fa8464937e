/* openssl ca's index.txt read and written (index.h). */
#define _GNU_SOURCE /* timegm */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "ca_index.h"

int ca_index_lock(const char *path, ca_index *x) {
  char lock[4096];
  if ((size_t)snprintf(lock, sizeof lock, "%s.lock", path) >= sizeof lock) {
    cli_err("%s: path too long", path);
    return CLI_EXIT_FAIL;
  }
  int fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0 || flock(fd, LOCK_EX) != 0) {
    cli_err("%s: cannot lock: %s", lock, strerror(errno));
    if (fd >= 0) close(fd);
    return CLI_EXIT_FAIL;
  }
  x->lock_fd = fd;
  return 0;
}

void ca_index_free(ca_index *x) {
  for (size_t i = 0; i < x->n; i++) free(x->e[i].raw);
  free(x->e);
  free(x->slot);
  x->e = NULL, x->slot = NULL;
  x->n = x->cap = x->slots = 0;
  if (x->lock_fd >= 0) close(x->lock_fd); /* the lock goes with it */
  x->lock_fd = -1;
}

static size_t strip_zeros(const uint8_t **p, size_t len) {
  while (len > 1 && (*p)[0] == 0) (*p)++, len--;
  return len;
}

/* FNV-1a of a serial without its leading zeros (serials are public). */
static uint64_t serial_hash(const uint8_t *s, size_t len) {
  len = strip_zeros(&s, len);
  uint64_t h = 0xcbf29ce484222325u;
  for (size_t i = 0; i < len; i++) h = (h ^ s[i]) * 0x100000001b3u;
  return h ^ h >> 29; /* the high bits down: the slot is taken from the low ones */
}

static void slot_put(ca_index *x, size_t k) {
  size_t m = x->slots - 1, i = (size_t)serial_hash(x->e[k].serial, x->e[k].serial_len) & m;
  while (x->slot[i]) i = (i + 1) & m;
  x->slot[i] = (uint32_t)(k + 1);
}

/* Room for one more entry and its slot: 0 or CLI_EXIT_FAIL. */
static int grow(ca_index *x) {
  if (x->n == x->cap) {
    size_t cap = x->cap ? 2 * x->cap : 64;
    ca_entry *p = cap < UINT32_MAX ? realloc(x->e, cap * sizeof *p) : NULL;
    if (!p) return CLI_EXIT_FAIL;
    x->e = p, x->cap = cap;
  }
  if (2 * (x->n + 1) > x->slots) { /* at most half full: short probes */
    size_t slots = x->slots ? 2 * x->slots : 128;
    uint32_t *s = calloc(slots, sizeof *s);
    if (!s) return CLI_EXIT_FAIL;
    free(x->slot);
    x->slot = s, x->slots = slots;
    for (size_t k = 0; k < x->n; k++) slot_put(x, k);
  }
  return 0;
}

int ca_index_add(ca_index *x, const ca_entry *e) {
  if (grow(x)) {
    cli_err("out of memory");
    return CLI_EXIT_FAIL;
  }
  x->e[x->n++] = *e;
  slot_put(x, x->n - 1);
  return 0;
}

void ca_entry_revoke(ca_entry *e, int64_t at, int reason, int64_t invalid_at) {
  e->status = 'R';
  e->revoked_at = at;
  e->reason = reason;
  e->invalid_at = invalid_at;
  e->changed = 1;
}

ca_entry *ca_index_find(const ca_index *x, const uint8_t *serial, size_t len) {
  if (!x->slots) return NULL;
  len = strip_zeros(&serial, len);
  size_t m = x->slots - 1;
  for (size_t i = (size_t)serial_hash(serial, len) & m; x->slot[i]; i = (i + 1) & m) {
    ca_entry *e = &x->e[x->slot[i] - 1];
    const uint8_t *s = e->serial;
    size_t n = strip_zeros(&s, e->serial_len);
    if (n == len && !memcmp(s, serial, len)) return e;
  }
  return NULL;
}

/* ---- times ---- */

void ca_time_text(int64_t t, char out[16]) {
  time_t tt = (time_t)t;
  struct tm tm;
  if (!gmtime_r(&tt, &tm)) tm = (struct tm){0};
  if (tm.tm_year + 1900 < 2050)
    strftime(out, 16, "%y%m%d%H%M%SZ", &tm);
  else
    strftime(out, 16, "%Y%m%d%H%M%SZ", &tm);
}

/* A time as GeneralizedTime, what openssl's keyTime/CAkeyTime take. */
static void gen_time_text(int64_t t, char out[16]) {
  time_t tt = (time_t)t;
  struct tm tm;
  if (!gmtime_r(&tt, &tm)) tm = (struct tm){0};
  strftime(out, 16, "%Y%m%d%H%M%SZ", &tm);
}

int ca_time_parse(const char *s, size_t n, int64_t *t) {
  if (n != 13 && n != 15) return -1;
  if (s[n - 1] != 'Z') return -1;
  for (size_t i = 0; i + 1 < n; i++)
    if (s[i] < '0' || s[i] > '9') return -1;
#define D2(k) ((s[k] - '0') * 10 + (s[k + 1] - '0'))
  struct tm tm = {0};
  size_t o = n == 15 ? 2 : 0;
  tm.tm_year = n == 15 ? D2(0) * 100 + D2(2) - 1900 : (D2(0) < 50 ? D2(0) + 100 : D2(0));
  tm.tm_mon = D2(2 + o) - 1;
  tm.tm_mday = D2(4 + o);
  tm.tm_hour = D2(6 + o);
  tm.tm_min = D2(8 + o);
  tm.tm_sec = D2(10 + o);
#undef D2
  if (tm.tm_mon < 0 || tm.tm_mon > 11 || tm.tm_mday < 1 || tm.tm_mday > 31 || tm.tm_hour > 23 ||
      tm.tm_min > 59 || tm.tm_sec > 59)
    return -1;
  *t = (int64_t)timegm(&tm);
  return 0;
}

/* ---- subjects ---- */

/* One DER element's header at p[n]: the content's offset and length. */
static int tlv(const uint8_t *p, size_t n, size_t *hdr, size_t *len) {
  if (n < 2) return -1;
  size_t l = p[1], h = 2;
  if (l & 0x80) {
    size_t k = l & 0x7f;
    if (k < 1 || k > 3 || n < 2 + k) return -1;
    l = 0;
    for (size_t i = 0; i < k; i++) l = l << 8 | p[2 + i];
    h += k;
  }
  if (l > n - h) return -1;
  *hdr = h, *len = l;
  return 0;
}

void ca_subject_text(const uint8_t *name, size_t len, char *out, size_t cap) {
  size_t h, l, used = 0;
  out[0] = 0;
  if (tlv(name, len, &h, &l)) return;
  const uint8_t *p = name + h, *end = p + l;
  while (p < end) { /* each RDN (a SET): "/" and its attributes, "+" between them */
    size_t sh, sl;
    if (tlv(p, (size_t)(end - p), &sh, &sl)) return;
    const uint8_t *a = p + sh, *rdn_end = a + sl;
    const char *sep = "/";
    while (a < rdn_end) { /* each attribute as a Name of one RDN, through the library's text
                             (a value's own ", " stays: openssl's oneline form) */
      size_t ah, al;
      if (tlv(a, (size_t)(rdn_end - a), &ah, &al)) return;
      const size_t atv = ah + al;
      uint8_t one[1024], set[GOSTX_DER_HEADER_MAX];
      if (atv + 2 * GOSTX_DER_HEADER_MAX > sizeof one) return;
      const size_t seth = gostx_der_header(set, 0x31, atv);
      const size_t hl = gostx_der_header(one, 0x30, seth + atv);
      memcpy(one + hl, set, seth);
      memcpy(one + hl + seth, a, atv);
      char text[512];
      if (gostx_x509_name_text(one, hl + seth + atv, text, sizeof text)) return;
      used += (size_t)snprintf(out + used, used < cap ? cap - used : 0, "%s%s", sep, text);
      if (used >= cap) return;
      sep = "+";
      a += atv;
    }
    p += sh + sl;
  }
}

/* ---- the file ---- */

static int hexval(char c) {
  return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
         : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* openssl ca's own reason names: -crl_compromise and -crl_CA_compromise
 * write keyTime/CAkeyTime with the compromise time after them, -crl_hold
 * holdInstruction with the instruction's OID. */
#define KEY_TIME "keyTime"
#define CA_KEY_TIME "CAkeyTime"
#define HOLD "holdInstruction"

/* The revocation field after its time (",REASON[,DETAIL]", NUL-ended
 * fields) into *e: 0, or -1 with *why. */
static int parse_reason(char *reason, ca_entry *e, const char **why) {
  char *detail = strchr(reason, ',');
  if (detail) *detail++ = 0;
  int key = !strcmp(reason, KEY_TIME), ca = !strcmp(reason, CA_KEY_TIME);
  if (key || ca) { /* openssl refuses these without a time: so does gostx */
    if (!detail || ca_time_parse(detail, strlen(detail), &e->invalid_at))
      return *why = "keyTime/CAkeyTime without a compromise time (YYYYMMDDHHMMSSZ) after it", -1;
    e->reason = key ? GOSTX_X509_REASON_KEY_COMPROMISE : GOSTX_X509_REASON_CA_COMPROMISE;
    return 0;
  }
  /* the instruction itself is not carried into CRLs: certificateHold alone */
  e->reason = !strcmp(reason, HOLD) ? GOSTX_X509_REASON_CERTIFICATE_HOLD : gostx_x509_crl_reason_by_name(reason);
  if (e->reason < GOSTX_X509_REASON_NONE) return *why = "an unknown revocation reason", -1;
  return 0;
}

/* One line's six fields into *e: 0, or -1 with what was wrong in *why. */
static int parse_line(char *line, ca_entry *e, const char **why) {
  char *f[6];
  size_t k = 0;
  for (char *p = line; k < 6; k++) {
    f[k] = p;
    char *tab = strchr(p, '\t');
    if (!tab) break;
    *tab = 0;
    p = tab + 1;
  }
  if (k != 5) return *why = "not six tab-separated fields", -1;
  memset(e, 0, sizeof *e);
  e->status = f[0][0];
  if (strlen(f[0]) != 1 || (e->status != 'V' && e->status != 'R' && e->status != 'E'))
    return *why = "the status is none of V, R, E", -1;
  if (ca_time_parse(f[1], strlen(f[1]), &e->expiry)) return *why = "the expiry is no time", -1;
  e->revoked_at = -1, e->invalid_at = -1;
  e->reason = GOSTX_X509_REASON_NONE;
  if (e->status == 'R') {
    char *comma = strchr(f[2], ',');
    size_t tn = comma ? (size_t)(comma - f[2]) : strlen(f[2]);
    if (ca_time_parse(f[2], tn, &e->revoked_at)) return *why = "the revocation time is no time", -1;
    if (comma && parse_reason(comma + 1, e, why)) return -1;
  } else if (f[2][0]) {
    return *why = "a revocation time in a line that is not R", -1;
  }
  /* an odd number of digits too, as openssl reads it: a leading 0 implied */
  size_t hn = strlen(f[3]), odd = hn % 2;
  const char *h = f[3];
  if (!hn || (hn + 1) / 2 > sizeof e->serial) return *why = "the serial is no hex number", -1;
  for (size_t i = 0; i < (hn + 1) / 2; i++) {
    int a = i == 0 && odd ? 0 : hexval(*h++), b = hexval(*h++);
    if (a < 0 || b < 0) return *why = "the serial is no hex number", -1;
    e->serial[i] = (uint8_t)(a << 4 | b);
  }
  e->serial_len = (hn + 1) / 2;
  snprintf(e->subject, sizeof e->subject, "%s", f[5]);
  return 0;
}

int ca_index_read(const char *path, int missing_ok, ca_index *x) {
  FILE *f = fopen(path, "re");
  if (!f) {
    if (errno == ENOENT && missing_ok) return 0;
    cli_err("%s: cannot read the index: %s", path, strerror(errno));
    return CLI_EXIT_FAIL;
  }
  char line[2048];
  size_t no = 0;
  int rc = 0;
  while (!rc && fgets(line, sizeof line, f)) {
    no++;
    size_t n = strlen(line);
    if (n && line[n - 1] == '\n') line[--n] = 0;
    else if (!feof(f)) {
      cli_err("%s:%zu: the line is too long for an index line", path, no);
      rc = CLI_EXIT_FAIL;
      break;
    }
    if (!n) continue;
    ca_entry e;
    const char *why = "";
    char *raw = strdup(line); /* written back as it is unless revoked here */
    if (!raw) {
      cli_err("out of memory");
      rc = CLI_EXIT_FAIL;
    } else if (parse_line(line, &e, &why)) {
      cli_err("%s:%zu: not openssl's index format: %s", path, no, why);
      rc = CLI_EXIT_FAIL;
    } else if (ca_index_find(x, e.serial, e.serial_len)) {
      cli_err("%s:%zu: the serial is there twice", path, no);
      rc = CLI_EXIT_FAIL;
    } else {
      e.raw = raw, raw = NULL;
      rc = ca_index_add(x, &e);
      if (rc) free(e.raw);
    }
    free(raw);
  }
  if (!rc && ferror(f)) {
    cli_err("%s: read error", path);
    rc = CLI_EXIT_FAIL;
  }
  fclose(f);
  return rc;
}

/* The revocation field of e as openssl writes it, into out[cap]. */
static void revocation_text(const ca_entry *e, char *out, size_t cap) {
  char t[16];
  ca_time_text(e->revoked_at, out);
  if (e->invalid_at >= 0) {
    gen_time_text(e->invalid_at, t);
    snprintf(out + strlen(out), cap - strlen(out), ",%s,%s",
             e->reason == GOSTX_X509_REASON_CA_COMPROMISE ? CA_KEY_TIME : KEY_TIME, t);
  } else if (e->reason != GOSTX_X509_REASON_NONE) {
    snprintf(out + strlen(out), cap - strlen(out), ",%s", gostx_x509_crl_reason_name(e->reason));
  }
}

/* e's line into buf[cap] (no newline): its bytes as read, the revocation
 * changed between its other fields, or all of it made. The length. */
static size_t line_text(const ca_entry *e, char *buf, size_t cap) {
  char rev[64] = "";
  if (e->status == 'R') revocation_text(e, rev, sizeof rev);
  if (e->raw && !e->changed) return (size_t)snprintf(buf, cap, "%s", e->raw);
  if (e->raw) { /* fields 1 and 3..5 as read: expiry, serial, file, subject */
    const char *f1 = strchr(e->raw, '\t') + 1, *f2 = strchr(f1, '\t') + 1, *f3 = strchr(f2, '\t') + 1;
    return (size_t)snprintf(buf, cap, "%c\t%.*s\t%s\t%s", e->status, (int)(f2 - f1 - 1), f1, rev, f3);
  }
  char exp[16], serial[2 * sizeof e->serial + 1];
  ca_time_text(e->expiry, exp);
  const uint8_t *sp = e->serial; /* openssl's hex: no sign byte */
  size_t sl = strip_zeros(&sp, e->serial_len);
  for (size_t k = 0; k < sl; k++) snprintf(serial + 2 * k, 3, "%02X", sp[k]);
  return (size_t)snprintf(buf, cap, "%c\t%s\t%s\t%s\tunknown\t%s", e->status, exp, rev, serial, e->subject);
}

int ca_index_write(const char *path, const ca_index *x) {
  size_t cap = x->n * 2200 + 1, used = 0; /* a line read is under 2048 bytes */
  char *buf = malloc(cap);
  if (!buf) {
    cli_err("out of memory");
    return CLI_EXIT_FAIL;
  }
  for (size_t i = 0; i < x->n; i++) {
    used += line_text(&x->e[i], buf + used, cap - used);
    buf[used++] = '\n';
  }
  int rc = cli_write_file(path, buf, used, 0);
  free(buf);
  return rc;
}
