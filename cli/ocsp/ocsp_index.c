/* openssl ca's index.txt read for the responder: the entries sorted by
 * serial for a binary search, read again when the file changes (another
 * `openssl ca -revoke` or `gostx ca` wrote it). */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "ocsp_cli.h"

struct ocsp_index {
  const char *path;
  pthread_rwlock_t lock;
  pthread_mutex_t reload;
  ocsp_index_entry *e; /* sorted by serial */
  size_t n;
  struct timespec mtime;
  time_t checked; /* when the file's time was last looked at */
};

static int cmp_serial(const uint8_t *a, size_t an, const uint8_t *b, size_t bn) {
  if (an != bn) return an < bn ? -1 : 1;
  return memcmp(a, b, an);
}

static int cmp_entry(const void *a, const void *b) {
  const ocsp_index_entry *x = a, *y = b;
  return cmp_serial(x->serial, x->serial_len, y->serial, y->serial_len);
}

/* "YYMMDDHHMMSSZ" (UTCTime, 1950-2049) or "YYYYMMDDHHMMSSZ". */
static int parse_time(const char *s, size_t n, int64_t *t) {
  struct tm tm = {0};
  int v[7], k = 0, len = n == 13 ? 2 : n == 15 ? 4 : 0;
  if (!len || s[n - 1] != 'Z') return -1;
  for (size_t i = 0; i + 1 < n; i++)
    if (s[i] < '0' || s[i] > '9') return -1;
  int y = 0;
  for (int i = 0; i < len; i++) y = y * 10 + (s[i] - '0');
  if (len == 2) y += y < 50 ? 2000 : 1900;
  for (size_t i = (size_t)len; i + 1 < n; i += 2) v[k++] = (s[i] - '0') * 10 + (s[i + 1] - '0');
  tm.tm_year = y - 1900, tm.tm_mon = v[0] - 1, tm.tm_mday = v[1];
  tm.tm_hour = v[2], tm.tm_min = v[3], tm.tm_sec = v[4];
  if (v[0] < 1 || v[0] > 12 || v[1] < 1 || v[1] > 31 || v[2] > 23 || v[3] > 59 || v[4] > 60) return -1;
  *t = (int64_t)timegm(&tm);
  return 0;
}

/* openssl's reason words (crl_reasons in apps), the three of its own
 * mapped to what they stand for. */
static int parse_reason(const char *s, size_t n) {
  static const struct {
    const char *name;
    int code;
  } r[] = {{"unspecified", 0},         {"keyCompromise", 1},  {"CACompromise", 2},
           {"affiliationChanged", 3},  {"superseded", 4},     {"cessationOfOperation", 5},
           {"certificateHold", 6},     {"removeFromCRL", 8},  {"holdInstruction", 6},
           {"keyTime", 1},             {"CAkeyTime", 2}};
  for (size_t i = 0; i < sizeof r / sizeof r[0]; i++)
    if (strlen(r[i].name) == n && !strncasecmp(r[i].name, s, n)) return r[i].code;
  return -2;
}

static int hexval(char c) {
  return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* One line's fields into e: 0, or -1 when it does not read. */
static int parse_line(char *line, ocsp_index_entry *e) {
  char *f[6];
  size_t k = 0;
  for (char *p = line; k < 6; k++) {
    f[k] = p;
    char *tab = strchr(p, '\t');
    if (!tab) {
      k++;
      break;
    }
    *tab = 0, p = tab + 1;
  }
  if (k < 4 || strlen(f[0]) != 1 || !strchr("VRE", f[0][0])) return -1;
  memset(e, 0, sizeof *e);
  e->status = f[0][0], e->reason = -1;
  int64_t expiry;
  if (parse_time(f[1], strlen(f[1]), &expiry)) return -1;
  if (e->status == 'R') {
    char *comma = strchr(f[2], ',');
    size_t tlen = comma ? (size_t)(comma - f[2]) : strlen(f[2]);
    if (parse_time(f[2], tlen, &e->revoked_at)) return -1;
    if (comma) {
      char *end = strchr(comma + 1, ',');
      e->reason = parse_reason(comma + 1, end ? (size_t)(end - comma - 1) : strlen(comma + 1));
      if (e->reason == -2) return -1;
    }
  }
  const char *h = f[3];
  size_t hl = strlen(h);
  if (!hl || hl > 2 * GOSTX_OCSP_SERIAL_MAX) return -1;
  uint8_t raw[GOSTX_OCSP_SERIAL_MAX];
  size_t n = (hl + 1) / 2;
  for (size_t i = 0; i < n; i++) {
    int hi = (hl % 2 && i == 0) ? 0 : hexval(*h++), lo = hexval(*h++);
    if (hi < 0 || lo < 0) return -1;
    raw[i] = (uint8_t)(hi << 4 | lo);
  }
  size_t z = 0;
  while (z + 1 < n && !raw[z]) z++;
  e->serial_len = n - z;
  memcpy(e->serial, raw + z, e->serial_len);
  return 0;
}

/* The file's entries, sorted: 0, or -1 after printing why. */
static int load(const char *path, ocsp_index_entry **out, size_t *n, struct timespec *mtime) {
  cli_in in;
  uint8_t *buf;
  size_t len;
  struct stat st;
  if (cli_in_open(&in, path)) return -1;
  if (fstat(fileno(in.f), &st) == 0) *mtime = st.st_mtim;
  int rc = cli_in_read_all(&in, &buf, &len);
  cli_in_close(&in);
  if (rc) return -1;
  size_t cap = 16, cnt = 0, lineno = 0;
  ocsp_index_entry *e = malloc(cap * sizeof *e);
  char *text = realloc(buf, len + 1);
  if (!e || !text) {
    free(e);
    free(text ? (void *)text : (void *)buf);
    cli_err("%s: out of memory", path);
    return -1;
  }
  text[len] = 0;
  for (char *line = text, *next; line && *line; line = next) {
    next = strchr(line, '\n');
    if (next) *next++ = 0;
    lineno++;
    size_t l = strlen(line);
    if (l && line[l - 1] == '\r') line[--l] = 0;
    if (!l) continue;
    if (cnt == cap) {
      ocsp_index_entry *m = realloc(e, 2 * cap * sizeof *e);
      if (!m) break;
      e = m, cap *= 2;
    }
    if (parse_line(line, &e[cnt])) {
      cli_err("%s: line %zu: not an index.txt line (status, expiry, revocation, serial, file, subject)",
              path, lineno);
      free(e), free(text);
      return -1;
    }
    cnt++;
  }
  free(text);
  qsort(e, cnt, sizeof *e, cmp_entry);
  *out = e, *n = cnt;
  return 0;
}

ocsp_index *ocsp_index_open(const char *path) {
  ocsp_index *ix = calloc(1, sizeof *ix);
  if (!ix) return NULL;
  ix->path = path;
  if (load(path, &ix->e, &ix->n, &ix->mtime)) {
    free(ix);
    return NULL;
  }
  ix->checked = time(NULL);
  pthread_rwlock_init(&ix->lock, NULL);
  pthread_mutex_init(&ix->reload, NULL);
  return ix;
}

static void maybe_reload(ocsp_index *ix) {
  time_t now = time(NULL);
  if (__atomic_load_n(&ix->checked, __ATOMIC_RELAXED) == now || pthread_mutex_trylock(&ix->reload))
    return;
  struct stat st;
  if (ix->checked != now && stat(ix->path, &st) == 0 &&
      (st.st_mtim.tv_sec != ix->mtime.tv_sec || st.st_mtim.tv_nsec != ix->mtime.tv_nsec)) {
    ocsp_index_entry *e;
    size_t n;
    struct timespec mt = st.st_mtim;
    if (!load(ix->path, &e, &n, &mt)) {
      pthread_rwlock_wrlock(&ix->lock);
      ocsp_index_entry *old = ix->e;
      ix->e = e, ix->n = n;
      pthread_rwlock_unlock(&ix->lock);
      free(old);
    }
    ix->mtime = mt; /* a file that does not read is not read again until it changes */
  }
  __atomic_store_n(&ix->checked, now, __ATOMIC_RELAXED);
  pthread_mutex_unlock(&ix->reload);
}

int ocsp_index_lookup(ocsp_index *ix, const uint8_t *serial, size_t len, ocsp_index_entry *out) {
  while (len > 1 && !serial[0]) serial++, len--;
  maybe_reload(ix);
  pthread_rwlock_rdlock(&ix->lock);
  size_t lo = 0, hi = ix->n;
  int found = 0;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int c = cmp_serial(ix->e[mid].serial, ix->e[mid].serial_len, serial, len);
    if (!c) {
      *out = ix->e[mid];
      found = 1;
      break;
    }
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  pthread_rwlock_unlock(&ix->lock);
  return found;
}

void ocsp_index_free(ocsp_index *ix) {
  if (!ix) return;
  free(ix->e);
  pthread_rwlock_destroy(&ix->lock);
  pthread_mutex_destroy(&ix->reload);
  free(ix);
}
