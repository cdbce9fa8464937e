/* Certificate path building (RFC 4158): from the leaf up, every candidate
 * issuer is tried in turn, depth first, the anchors before the untrusted
 * certificates, and each path that reaches an anchor is checked (verify.c)
 * until one passes. So the verdict does not depend on the order of the
 * certificates given. The work is bounded: GOSTX_X509_MAX_DEPTH
 * certificates in a path, no subject and key twice in one (loops of cross
 * certificates), repeats of one candidate tried once, and at most
 * GOSTX_X509_MAX_TRIES signatures checked in all. Everything here is
 * public data. */
#include <stdio.h>

#include "x509/x509_internal.h"

#define MAX_DEPTH GOSTX_X509_MAX_DEPTH

/* One path's verdict, kept while it is the best failure seen. */
typedef struct outcome {
  int rank; /* 0: none yet; see rank_complete and dead_end */
  gostx_x509_status st;
  size_t depth, len;
  const gostx_x509_cert *path[MAX_DEPTH];
  char why[512];
} outcome;

typedef struct search {
  const gostx_x509_cert *anchors, *chain;
  size_t n_anchors, n;
  const gostx_x509_verify_opts *o;
  const gostx_x509_cert *path[MAX_DEPTH];
  size_t len;
  /* the candidates whose signature was checked, a stack over the frames:
   * a repeat of one of them (the same DER) is not tried again */
  const gostx_x509_cert *tried[GOSTX_X509_MAX_TRIES];
  size_t n_tried;
  unsigned checks; /* signatures checked in all: at most GOSTX_X509_MAX_TRIES */
  int cut;         /* a candidate was left untried for that bound */
  outcome best;
} search;

static int same_der(const gostx_x509_cert *a, const gostx_x509_cert *b) {
  return a->der_len == b->der_len && memcmp(a->der, b->der, a->der_len) == 0;
}

static int is_anchor(const search *s, const gostx_x509_cert *c) {
  for (size_t k = 0; k < s->n_anchors; k++)
    if (same_der(c, &s->anchors[k])) return 1;
  return 0;
}

/* 1 when the path holds a certificate of c's subject and key: c would
 * close a loop (RFC 4158 5.2). */
static int in_path(const search *s, const gostx_x509_cert *c) {
  for (size_t k = 0; k < s->len; k++) {
    const gostx_x509_cert *p = s->path[k];
    if (p->spki_len == c->spki_len && !memcmp(p->spki, c->spki, c->spki_len) &&
        gostx__x509_name_equal(p->subject, p->subject_len, c->subject, c->subject_len))
      return 1;
  }
  return 0;
}

static int tried_here(const search *s, size_t from, const gostx_x509_cert *c) {
  for (size_t k = from; k < s->n_tried; k++)
    if (same_der(s->tried[k], c)) return 1;
  return 0;
}

/* Keeps the current path's verdict when it ranks above the best so far
 * (the first of equal ranks stays: the anchors and the given order first). */
static void note(search *s, int rank, gostx_x509_status st, size_t depth, const char *why) {
  if (rank <= s->best.rank) return;
  s->best.rank = rank;
  s->best.st = st;
  s->best.depth = depth;
  s->best.len = s->len;
  memcpy(s->best.path, s->path, s->len * sizeof s->path[0]);
  snprintf(s->best.why, sizeof s->best.why, "%s", why && why[0] ? why : gostx_x509_status_name(st));
}

/* A path that reached an anchor ranks above every one that did not; of
 * two, the one whose failed check comes later (name constraints after the
 * certificates' own checks, then policies, then the name), then the one
 * that failed nearer the leaf (more of it passed). */
static int rank_complete(gostx_x509_status st, size_t depth) {
  int stage = st == GOSTX_X509_NAME_CONSTRAINTS ? 1
              : st == GOSTX_X509_POLICY         ? 2
              : st == GOSTX_X509_NAME_MISMATCH  ? 3
              : st == GOSTX_X509_EMAIL_MISMATCH ? 4 /* the leaf's options */
              : st == GOSTX_X509_PROFILE        ? 5 /* the profile */
              : st >= GOSTX_X509_REVOKED        ? 6 /* revocation, checked last */
                                                : 0;
  return 2 * MAX_DEPTH + 2 + stage * (MAX_DEPTH + 1) + (int)(MAX_DEPTH - depth);
}

/* The path so far ends at an anchor: checked. 1 when it passed. */
static int complete(search *s) {
  char why[512] = "";
  size_t depth = 0;
  gostx_x509_status st = gostx__x509_check_path(s->path, s->len, s->o, &depth, why, sizeof why);
  note(s, st == GOSTX_X509_OK ? 1 << 30 : rank_complete(st, depth), st, depth, why);
  return st == GOSTX_X509_OK;
}

enum { NO_LIMIT, LIMIT_DEPTH, LIMIT_VERIFY_DEPTH };

/* The intermediates of the path so far that the verify depth counts:
 * self-issued ones (a CA's key rollover) are not, as RFC 5280 6.1.4(l)
 * leaves them out of pathLenConstraint (x509-limbo's
 * pathlen::max-chain-depth-1-self-issued expects the same). */
static size_t counted_intermediates(const search *s) {
  size_t n = 0;
  for (size_t k = 1; k < s->len; k++) n += !gostx__x509_self_issued(s->path[k]);
  return n;
}

/* 1 when c's authorityKeyIdentifier keyIdentifier names another key than
 * cand's: cand has the issuer's name but is not the issuer. */
static int aki_names_other(const gostx_x509_cert *c, const gostx_x509_cert *cand) {
  static const uint8_t oid_aki[] = {0x55, 0x1d, 0x23}; /* 2.5.29.35 */
  gostx__der v, seq, id;
  uint8_t kid[64];
  size_t n;
  if (!gostx__x509_cert_ext(c, oid_aki, sizeof oid_aki, &v) ||
      gostx__der_get(&v, GOSTX__DER_SEQ, &seq, NULL) || !gostx__der_peek(&seq, GOSTX__DER_CTX(0)) ||
      gostx__der_get(&seq, GOSTX__DER_CTX(0), &id, NULL) ||
      gostx_x509_cert_key_id(cand, kid, sizeof kid, &n))
    return 0;
  return id.n != n || memcmp(id.p, kid, n);
}

#define OTHER_KEY_WHY                                                                          \
  "issuer: no trusted issuer found (unknown CA): the certificate of the issuer's name holds "   \
  "another key than the one that signed (another size or kind, or one the "                    \
  "authorityKeyIdentifier does not name)"

/* The top certificate of the path got no issuer: the path ranks by its
 * length (one more when an issuer was there but a limit kept it out). */
static void dead_end(search *s, gostx_x509_status none, int other_key, int limit) {
  char why[160];
  size_t top = s->len - 1;
  if (limit == NO_LIMIT) {
    note(s, (int)s->len, none, top, none == GOSTX_X509_UNKNOWN_CA && other_key ? OTHER_KEY_WHY : NULL);
  } else if (limit == LIMIT_DEPTH) {
    note(s, (int)s->len + 1, GOSTX_X509_PATH_TOO_LONG, top, NULL);
  } else {
    snprintf(why, sizeof why,
             "path length limit: no path within %d intermediate certificates (the verify depth)",
             s->o->max_intermediates);
    note(s, (int)s->len + 1, GOSTX_X509_PATH_TOO_LONG, top, why);
  }
}

/* Every issuer of the path's top certificate tried in turn: the anchors'
 * (the path complete), then the untrusted ones' (the path extended). 1
 * when a path passed. */
static int extend(search *s) {
  const gostx_x509_cert *c = s->path[s->len - 1];
  gostx_x509_status none = GOSTX_X509_UNKNOWN_CA; /* why no issuer was taken */
  int limit = NO_LIMIT, taken = 0, other_key = 0;
  size_t tried_from = s->n_tried;
  for (int pass = 0; pass < 2; pass++) {
    const gostx_x509_cert *list = pass ? s->chain + 1 : s->anchors;
    size_t count = pass ? s->n - 1 : s->n_anchors;
    for (size_t i = 0; i < count; i++) {
      const gostx_x509_cert *cand = &list[i];
      /* RFC 5280 7.1: the names compared after RFC 4518 preparation */
      if (!gostx__x509_name_equal(c->issuer, c->issuer_len, cand->subject, cand->subject_len) ||
          in_path(s, cand) || tried_here(s, tried_from, cand) || (pass && is_anchor(s, cand)))
        continue;
      if (s->len == MAX_DEPTH) {
        limit = LIMIT_DEPTH;
        continue;
      }
      if (pass && s->o->max_intermediates >= 0 &&
          counted_intermediates(s) + !gostx__x509_self_issued(cand) >
              (size_t)s->o->max_intermediates) {
        limit = LIMIT_VERIFY_DEPTH;
        continue;
      }
      if (s->checks == GOSTX_X509_MAX_TRIES) {
        s->cut = 1;
        continue;
      }
      s->checks++;
      s->tried[s->n_tried++] = cand;
      size_t mine = s->n_tried;
      int rc = gostx__x509_check_signature(c, cand, s->o->memo);
      if (rc) {
        /* a key that cannot have made the signature (EUNSUP: another size or
         * kind) or that the AKI does not name is another CA's of the same
         * name: no issuer (openssl: unable to get local issuer certificate);
         * a signature failing under the key it names is the better report */
        if (rc == GOSTX_EUNSUP || aki_names_other(c, cand)) other_key = 1;
        else none = GOSTX_X509_BAD_SIGNATURE;
        continue;
      }
      taken = 1;
      s->path[s->len++] = cand;
      int passed = pass ? extend(s) : complete(s);
      s->len--;
      s->n_tried = mine; /* what the deeper frames tried was for another certificate */
      if (passed) return 1;
    }
  }
  if (!taken) dead_end(s, none, other_key, limit);
  s->n_tried = tried_from;
  return 0;
}

gostx_x509_status gostx__x509_verify_path(const gostx_x509_cert *anchors, size_t n_anchors,
                                          const gostx_x509_cert *chain, size_t n,
                                          const gostx_x509_verify_opts *o, size_t *depth,
                                          const gostx_x509_cert **path_out, size_t cap,
                                          size_t *path_len, char *why, size_t why_cap) {
  search s;
  memset(&s, 0, sizeof s);
  s.best.st = GOSTX_X509_UNKNOWN_CA; /* replaced by the first path's verdict */
  snprintf(s.best.why, sizeof s.best.why, "%s", gostx_x509_status_name(s.best.st));
  size_t d0 = 0;
  if (!depth) depth = &d0;
  *depth = 0;
  if (path_len) *path_len = 0;
  if (!chain || !n || !o) {
    s.best.st = GOSTX_X509_MALFORMED;
    snprintf(s.best.why, sizeof s.best.why, "%s", gostx_x509_status_name(s.best.st));
  } else {
    s.anchors = anchors;
    s.n_anchors = anchors ? n_anchors : 0;
    s.chain = chain;
    s.n = n;
    s.o = o;
    s.path[0] = &chain[0];
    s.len = 1;
    if (!is_anchor(&s, &chain[0]) || !complete(&s)) (void)extend(&s);
  }
  gostx_x509_status st = s.best.st;
  *depth = s.best.depth;
  if (path_out && path_len) {
    size_t k = s.best.len < cap ? s.best.len : cap;
    memcpy(path_out, s.best.path, k * sizeof s.best.path[0]);
    *path_len = k;
  }
  if (why && why_cap)
    snprintf(why, why_cap, "%s%s", st == GOSTX_X509_OK ? "" : s.best.why,
             st != GOSTX_X509_OK && s.cut ? " (path building stopped at " GOSTX__STR(
                                                GOSTX_X509_MAX_TRIES) " signature checks, gostx's limit)"
                                          : "");
  return st;
}
