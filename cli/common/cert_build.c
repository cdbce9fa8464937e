/* What `gostx req` and `gostx x509 -req` (cli/cmd_req.c) share: the
 * signing key, the input files, openssl's -extfile syntax, serial numbers,
 * validity and the output written as PEM or DER through cli_out (a
 * temporary file renamed into place, nothing left on failure). */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cert_build.h"

int cert_load_signing_key(const char *opt, const char *path, const char *pass_spec,
                          gostx_gost3410_key *k) {
  int rc = cli_load_key_pass(path, k, "-passin", pass_spec);
  if (rc) return rc;
  if (!gostx_gost3410_key_is_private(k)) {
    gostx_gost3410_key_clear(k);
    return cli_usage("%s %s: a public key; signing needs the private key", opt, path);
  }
  return cli_key_2012(opt, path, k);
}


int cert_write(const char *path, const char *label, const uint8_t *der, size_t len, int pem) {
  if (!pem) return cli_write_file(path, der, len, 0);
  size_t need = 0;
  (void)gostx_x509_to_pem(label, der, len, NULL, 0, &need);
  char *text = malloc(need + 1);
  if (!text) {
    cli_err("out of memory");
    return CLI_EXIT_FAIL;
  }
  int rc = gostx_x509_to_pem(label, der, len, text, need + 1, &need)
               ? (cli_err("PEM encoding failed"), CLI_EXIT_FAIL)
               : cli_write_file(path, text, need, 0);
  free(text);
  return rc;
}

int cert_outform(const char *arg, int *pem) {
  if (!strcasecmp(arg, "PEM")) *pem = 1;
  else if (!strcasecmp(arg, "DER")) *pem = 0;
  else return cli_usage("-outform: PEM or DER, not '%s'", arg);
  return 0;
}

int cert_days(const char *arg, int64_t now, int64_t *not_after) {
  const int64_t last = 253402300799; /* 9999-12-31 23:59:59, the last time X.509 writes */
  uint64_t days;
  int rc = cli_uint("-days", arg, 1, (uint64_t)((last - now) / 86400), &days);
  if (!rc) *not_after = now + (int64_t)days * 86400;
  return rc;
}

/* Days from 1970-01-01 to Y-M-D of the proleptic Gregorian calendar
 * (no time zone or locale in the way, as timegm would bring). */
static int64_t days_from_civil(int64_t y, int m, int d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  return era * 146097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719468;
}

/* n decimal digits of s, or -1 */
static int digits(const char *s, int n) {
  int v = 0;
  for (int i = 0; i < n; i++) {
    if (s[i] < '0' || s[i] > '9') return -1;
    v = v * 10 + s[i] - '0';
  }
  return v;
}

static int bad_date(const char *opt, const char *arg) {
  return cli_usage("%s: '%s' is not a date YYMMDDHHMMSSZ or YYYYMMDDHHMMSSZ (UTC, from 1950) or "
                   "today", opt, arg);
}

int cert_date(const char *opt, const char *arg, int64_t now, int64_t *t) {
  if (!strcmp(arg, "today")) return *t = now, 0;
  const size_t len = strlen(arg);
  if ((len != 13 && len != 15) || arg[len - 1] != 'Z') return bad_date(opt, arg);
  const int yl = len == 15 ? 4 : 2, y = digits(arg, yl);
  const char *r = arg + yl;
  const int mo = digits(r, 2), d = digits(r + 2, 2), h = digits(r + 4, 2), mi = digits(r + 6, 2),
            sec = digits(r + 8, 2);
  static const int mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (y < 0 || mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] || h < 0 || h > 23 || mi < 0 ||
      mi > 59 || sec < 0 || sec > 59 || (yl == 4 && y < 1950))
    return bad_date(opt, arg);
  const int year = yl == 4 ? y : y < 50 ? 2000 + y : 1900 + y; /* RFC 5280 4.1.2.5.1 */
  if (mo == 2 && d == 29 && (year % 4 || (year % 100 == 0 && year % 400)))
    return cli_usage("%s: '%s': %d has no 29 February", opt, arg, year);
  *t = days_from_civil(year, mo, d) * 86400 + h * 3600 + mi * 60 + sec;
  return 0;
}

/* ---- serial numbers ---- */

int cert_random_serial(cert_serial *s) {
  if (gostx_random_bytes(s->b, 20)) {
    cli_err("the system's random generator failed");
    return CLI_EXIT_FAIL;
  }
  s->b[0] = (uint8_t)((s->b[0] & 0x7f) | 0x40); /* positive, 20 bytes, never 0 */
  s->len = 20;
  return 0;
}

/* v = v * base + d over the 21 big-endian bytes of acc; 1 on overflow. */
static int mul_add(uint8_t acc[21], unsigned base, unsigned d) {
  unsigned carry = d;
  for (int i = 20; i >= 0; i--) {
    carry += acc[i] * base;
    acc[i] = (uint8_t)carry;
    carry >>= 8;
  }
  return carry != 0;
}

/* The accumulated value as a serial: 1..2^159 - 1, as RFC 5280 4.1.2.2
 * allows (positive, at most 20 bytes). */
static int to_serial(const char *what, const char *text, const uint8_t acc[21], cert_serial *s) {
  size_t lead = 0;
  while (lead < 21 && !acc[lead]) lead++;
  if (lead == 21 || lead == 0 || (lead == 1 && (acc[1] & 0x80)))
    return cli_usage("%s: '%s' is not a serial number from 1 to 2^159 - 1 (RFC 5280: positive, "
                     "at most 20 bytes)", what, text);
  /* the INTEGER's content: a zero byte before a top bit that is set */
  lead -= (acc[lead] & 0x80) != 0;
  s->len = 21 - lead;
  memcpy(s->b, acc + lead, s->len);
  return 0;
}

int cert_parse_serial(const char *what, const char *text, int hex, cert_serial *s) {
  uint8_t acc[21] = {0};
  const char *p = text;
  if (!hex && (!strncmp(p, "0x", 2) || !strncmp(p, "0X", 2))) p += 2, hex = 1;
  if (!*p) return cli_usage("%s: empty serial number", what);
  int over = 0;
  for (; *p; p++) {
    int d = *p >= '0' && *p <= '9' ? *p - '0'
          : hex && *p >= 'a' && *p <= 'f' ? *p - 'a' + 10
          : hex && *p >= 'A' && *p <= 'F' ? *p - 'A' + 10 : -1;
    if (d < 0) return cli_usage("%s: '%s' is not a %s number", what, text, hex ? "hex" : "decimal");
    over |= mul_add(acc, hex ? 16 : 10, (unsigned)d);
  }
  if (over) memset(acc, 0, sizeof acc); /* beyond 21 bytes: to_serial refuses 0 the same way */
  return to_serial(what, text, acc, s);
}

/* -CAserial: the file's hex number plus one, written back before the
 * certificate is (a number is skipped on failure, never given twice). */
int cert_next_serial(const char *path, int create, cert_serial *s) {
  uint8_t *buf = NULL;
  size_t len = 0;
  cli_in in;
  if (cli_in_try_open(&in, path) == 0) {
    int rc = cli_in_read_all(&in, &buf, &len);
    cli_in_close(&in);
    if (rc) return rc;
    while (len && (buf[len - 1] == '\n' || buf[len - 1] == '\r')) len--;
    char text[64];
    if (len == 0 || len >= sizeof text) {
      free(buf);
      return cli_usage("-CAserial %s: not a hex serial number", path);
    }
    memcpy(text, buf, len);
    text[len] = 0;
    free(buf);
    rc = cert_parse_serial("-CAserial", text, 1, s);
    if (rc) return rc;
  } else if (create) {
    int rc = cert_random_serial(s);
    if (rc) return rc;
  } else {
    cli_err("-CAserial %s: cannot read it (-CAcreateserial makes a new one)", path);
    return CLI_EXIT_FAIL;
  }
  uint8_t acc[21] = {0};
  memcpy(acc + 21 - s->len, s->b, s->len);
  for (int i = 20; i >= 0 && ++acc[i] == 0; i--) {
  }
  int rc = to_serial("-CAserial", path, acc, s);
  char hex[2 * 20 + 2];
  for (size_t i = 0; !rc && i < s->len; i++) snprintf(hex + 2 * i, 3, "%02X", s->b[i]);
  if (!rc) strcat(hex, "\n");
  return rc ? rc : cli_write_file(path, hex, strlen(hex), 0);
}

/* ---- -extfile: openssl's configuration syntax ---- */

static char *trim(char *s) {
  while (*s == ' ' || *s == '\t') s++;
  char *e = s + strlen(s);
  while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r')) *--e = 0;
  return s;
}

/* The lines of a file: comments ("#" to the end) and blank lines dropped,
 * "[ name ]" section headers kept as they are. */
typedef struct conf {
  char *text;
  char *line[1024];
  size_t n;
} conf;

static int conf_load(const char *path, conf *c) {
  uint8_t *buf;
  size_t len;
  int rc = cli_read_file(path, &(cli_file){NULL, 1u << 20, 0}, &buf, &len);
  if (rc) return rc;
  if (memchr(buf, 0, len)) {
    free(buf);
    return cli_usage("-extfile %s: not a text file", path);
  }
  c->text = realloc(buf, len + 1);
  if (!c->text) {
    free(buf);
    cli_err("out of memory");
    return CLI_EXIT_FAIL;
  }
  c->text[len] = 0;
  c->n = 0;
  for (char *save = NULL, *l = strtok_r(c->text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
    char *hash = strchr(l, '#');
    if (hash) *hash = 0;
    l = trim(l);
    if (!*l) continue;
    if (c->n == sizeof c->line / sizeof c->line[0]) {
      free(c->text);
      return cli_usage("-extfile %s: too many lines", path);
    }
    c->line[c->n++] = l;
  }
  return 0;
}

/* The index of the first line of section name ("" the lines before any
 * header; "default" is also those), and *end the line after its last. */
static int conf_section(const conf *c, const char *name, size_t *end) {
  size_t i = 0;
  if (*name && strcmp(name, "default")) {
    for (int found = 0; !found; i++) {
      char head[128];
      if (i == c->n) return -1;
      found = sscanf(c->line[i], "[ %127[^] ] ]", head) == 1 && !strcmp(head, name);
    }
  }
  *end = i;
  while (*end < c->n && c->line[*end][0] != '[') (*end)++;
  return (int)i;
}

/* "NAME = VALUE" split in place. */
static int conf_pair(char *line, char **name, char **value) {
  char *eq = strchr(line, '=');
  if (!eq) return -1;
  *eq = 0;
  *name = trim(line);
  *value = trim(eq + 1);
  return **name ? 0 : -1;
}

/* "@section" of subjectAltName: its "DNS.1 = a", "IP.2 = b" lines joined
 * as "DNS:a,IP:b". */
static int conf_alt_names(const conf *c, const char *section, char *out, size_t cap) {
  size_t end;
  int i = conf_section(c, section, &end);
  if (i < 0 || !*section) return cli_usage("-extfile: no section [%s]", section);
  out[0] = 0;
  for (; (size_t)i < end; i++) {
    char copy[1024], *name, *value;
    snprintf(copy, sizeof copy, "%s", c->line[i]);
    if (conf_pair(copy, &name, &value)) return cli_usage("-extfile [%s]: '%s' is not NAME = VALUE", section, c->line[i]);
    char *dot = strchr(name, '.');
    if (dot) *dot = 0;
    size_t used = strlen(out);
    if ((size_t)snprintf(out + used, cap - used, "%s%s:%s", used ? "," : "", name, value) >= cap - used)
      return cli_usage("-extfile [%s]: too long", section);
  }
  return 0;
}

int cert_extfile(const char *path, const char *section, gostx_x509_exts *e) {
  conf *c = calloc(1, sizeof *c);
  if (!c) {
    cli_err("out of memory");
    return CLI_EXIT_FAIL;
  }
  int rc = conf_load(path, c);
  if (rc) {
    free(c);
    return rc;
  }
  size_t end;
  int i = conf_section(c, "", &end);
  char chosen[128] = "";
  for (size_t k = 0; !section && k < end; k++) { /* "extensions = NAME" picks a section */
    char copy[256], *name, *value;
    snprintf(copy, sizeof copy, "%s", c->line[k]);
    if (!conf_pair(copy, &name, &value) && !strcmp(name, "extensions"))
      snprintf(chosen, sizeof chosen, "%s", value);
  }
  if (section || *chosen) i = conf_section(c, section ? section : chosen, &end);
  if (i < 0) rc = cli_usage("-extfile %s: no section [%s]", path, section ? section : chosen);
  for (size_t k = (size_t)(i < 0 ? 0 : i); !rc && i >= 0 && k < end; k++) {
    char *name, *value, alt[4096], err[256];
    if (conf_pair(c->line[k], &name, &value)) {
      rc = cli_usage("-extfile %s: '%s' is not NAME = VALUE", path, c->line[k]);
      break;
    }
    if (!strcmp(name, "extensions") && !section && !*chosen) continue;
    if (!strcmp(name, "subjectAltName") && value[0] == '@') {
      rc = conf_alt_names(c, trim(value + 1), alt, sizeof alt);
      value = alt;
    }
    if (!rc && gostx_x509_exts_add(e, name, value, err, sizeof err))
      rc = cli_usage("-extfile %s: %s", path, err);
  }
  free(c->text);
  free(c);
  return rc;
}
