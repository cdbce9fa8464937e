/* The trust store: parsed anchors over DER copies it owns, read from DER,
 * from PEM files (many blocks each) and from directories of them. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "x509/x509_internal.h"

#define FILE_MAX (64u << 20)      /* one file of a store */

struct gostx_x509_store {
  gostx_x509_cert *certs; /* each over its own malloc'd DER */
  size_t n, cap;
};

gostx_x509_store *gostx_x509_store_new(void) { return calloc(1, sizeof(gostx_x509_store)); }

void gostx_x509_store_free(gostx_x509_store *store) {
  if (!store) return;
  for (size_t i = 0; i < store->n; i++) free((void *)store->certs[i].der);
  free(store->certs);
  free(store);
}

const gostx_x509_cert *gostx__x509_store_at(const gostx_x509_store *store, size_t i) {
  return store && i < store->n ? &store->certs[i] : NULL;
}

/* Adds a copy of der; the parse status in *st. A certificate already
 * there is not added twice. */
static int add(gostx_x509_store *s, const uint8_t *der, size_t len, gostx_x509_status *st) {
  gostx_x509_cert c;
  if (gostx_x509_parse(der, len, &c, st)) return GOSTX_EFORMAT;
  for (size_t i = 0; i < s->n; i++)
    if (s->certs[i].der_len == len && !memcmp(s->certs[i].der, der, len)) return 0;
  if (s->n == s->cap) {
    size_t cap = s->cap ? 2 * s->cap : 16;
    gostx_x509_cert *grown = realloc(s->certs, cap * sizeof *grown);
    if (!grown) return GOSTX_ENOMEM;
    s->certs = grown;
    s->cap = cap;
  }
  uint8_t *copy = malloc(len);
  if (!copy) return GOSTX_ENOMEM;
  memcpy(copy, der, len);
  if (gostx_x509_parse(copy, len, &s->certs[s->n], st)) { /* cannot differ from the first parse */
    free(copy);
    return GOSTX_EFORMAT;
  }
  s->n++;
  return 0;
}

int gostx_x509_store_add_der(gostx_x509_store *store, const uint8_t *der, size_t len) {
  gostx_x509_status st;
  if (!store || !der) return GOSTX_EINVAL;
  return add(store, der, len, &st);
}

static void say(char *err, size_t cap, const char *path, const char *what, size_t block) {
  if (!err || !cap) return;
  if (block)
    snprintf(err, cap, "%s: certificate %zu: %s", path, block, what);
  else
    snprintf(err, cap, "%s: %s", path, what);
}

/* Every certificate of one file's text: its PEM "CERTIFICATE" blocks, or
 * the file as one DER certificate when it has none. Certificates of other
 * algorithms (an RSA root beside the GOST ones in a system bundle) are
 * passed over; *added counts the others. In a directory (in_dir), a file
 * that is neither is passed over too. */
static int add_text(gostx_x509_store *s, const uint8_t *buf, size_t len, const char *path,
                    int in_dir, size_t *added, char *err, size_t cap) {
  uint8_t *der = malloc(GOSTX_X509_CERT_MAX);
  if (!der) return GOSTX_ENOMEM;
  size_t pos = 0, der_len, block = 0;
  int rc = 0, r;
  gostx_x509_status st;
  while ((r = gostx_x509_pem_next((const char *)buf, len, &pos, der, GOSTX_X509_CERT_MAX, &der_len)) == 1) {
    block++;
    rc = add(s, der, der_len, &st);
    if (rc == GOSTX_EFORMAT && st == GOSTX_X509_UNSUPPORTED) {
      rc = 0;
      continue;
    }
    if (rc) {
      say(err, cap, path, rc == GOSTX_ENOMEM ? "out of memory" : gostx_x509_status_name(st), block);
      break;
    }
    ++*added;
  }
  if (!rc && r < 0) {
    char what[96];
    snprintf(what, sizeof what, "larger than %d bytes (DER), gostx's limit for one certificate",
             GOSTX_X509_CERT_MAX);
    say(err, cap, path, r == GOSTX_ELEN ? what : "malformed PEM block", block + 1);
    rc = GOSTX_EFORMAT;
  }
  if (!rc && block == 0) { /* no PEM: one DER certificate? */
    rc = add(s, buf, len, &st);
    if (!rc) ++*added;
    if (rc == GOSTX_EFORMAT && (in_dir || st == GOSTX_X509_UNSUPPORTED)) rc = 0;
    if (rc) say(err, cap, path, "no certificate (neither PEM nor DER)", 0);
  }
  free(der);
  return rc;
}

static int add_file(gostx_x509_store *s, const char *path, int in_dir, size_t *added, char *err,
                    size_t cap) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    say(err, cap, path, "cannot open", 0);
    return GOSTX_EIO;
  }
  size_t len = 0, size = 1 << 16;
  uint8_t *buf = malloc(size);
  int rc = buf ? 0 : GOSTX_ENOMEM;
  while (!rc) {
    size_t got = fread(buf + len, 1, size - len, f);
    len += got;
    if (len < size) break;
    if (size >= FILE_MAX) {
      say(err, cap, path, "file too large", 0);
      rc = GOSTX_EFORMAT;
      break;
    }
    uint8_t *grown = realloc(buf, size * 2);
    if (!grown) rc = GOSTX_ENOMEM;
    else buf = grown, size *= 2;
  }
  if (!rc && ferror(f)) {
    say(err, cap, path, "read error", 0);
    rc = GOSTX_EIO;
  }
  fclose(f);
  if (!rc) rc = add_text(s, buf, len, path, in_dir, added, err, cap);
  free(buf);
  return rc;
}

int gostx_x509_store_add_path(gostx_x509_store *store, const char *path, char *err,
                              size_t err_cap) {
  if (!store || !path) return GOSTX_EINVAL;
  if (err && err_cap) err[0] = 0;
  struct stat sb;
  size_t added = 0;
  int rc = 0;
  if (stat(path, &sb)) {
    say(err, err_cap, path, "cannot open", 0);
    return GOSTX_EIO;
  }
  if (S_ISDIR(sb.st_mode)) {
    DIR *d = opendir(path);
    if (!d) {
      say(err, err_cap, path, "cannot open", 0);
      return GOSTX_EIO;
    }
    struct dirent *e;
    char full[4096];
    while (!rc && (e = readdir(d))) {
      if (e->d_name[0] == '.') continue;
      if ((size_t)snprintf(full, sizeof full, "%s/%s", path, e->d_name) >= sizeof full) continue;
      if (stat(full, &sb) || !S_ISREG(sb.st_mode)) continue;
      rc = add_file(store, full, 1, &added, err, err_cap);
    }
    closedir(d);
  } else {
    rc = add_file(store, path, 0, &added, err, err_cap);
  }
  if (!rc && !added) {
    say(err, err_cap, path, "no GOST certificate", 0);
    rc = GOSTX_EFORMAT;
  }
  return rc;
}

void gostx_x509_verify_opts_init(gostx_x509_verify_opts *opts, int64_t now) {
  if (!opts) return;
  memset(opts, 0, sizeof *opts);
  opts->now = now;
  opts->purpose = GOSTX_X509_PURPOSE_ANY;
  opts->max_intermediates = -1;
}

gostx_x509_status gostx_x509_verify_with(const gostx_x509_store *store,
                                         const gostx_x509_cert *chain, size_t n,
                                         const gostx_x509_verify_opts *opts,
                                         gostx_x509_verify_result *r) {
  const gostx_x509_cert *anchors = store ? store->certs : NULL;
  const size_t n_anchors = store ? store->n : 0;
  if (!r)
    return gostx__x509_verify_path(anchors, n_anchors, chain, n, opts, NULL, NULL, 0, NULL, NULL,
                                   0);
  r->status = gostx__x509_verify_path(anchors, n_anchors, chain, n, opts, &r->depth, r->path,
                                      GOSTX_X509_MAX_DEPTH, &r->path_len, r->why, sizeof r->why);
  return r->status;
}

gostx_x509_status gostx_x509_verify(const gostx_x509_store *store, const gostx_x509_cert *chain,
                                    size_t n, int64_t now, gostx_x509_purpose purpose,
                                    const char *name, size_t *depth) {
  gostx_x509_verify_opts o;
  gostx_x509_verify_opts_init(&o, now);
  o.purpose = purpose;
  o.name = name;
  return gostx__x509_verify_path(store ? store->certs : NULL, store ? store->n : 0, chain, n, &o,
                                 depth, NULL, 0, NULL, NULL, 0);
}
