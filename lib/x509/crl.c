/* Certificate revocation lists (RFC 5280 section 5): the DER parser, the
 * entries and the reason names. A CRL is public data; every byte of it is
 * checked, entries included, so that what the status check (crl_status.c)
 * reads later cannot fail. Only complete CRLs: delta and indirect ones are
 * refused by name. */
#include <stdio.h>
#include <strings.h>

#include "asn1/pem.h"
#include "x509/x509_internal.h"

#define OID_EXT_AKI "\x55\x1d\x23"            /* 2.5.29.35 */
#define OID_EXT_IAN "\x55\x1d\x12"            /* 2.5.29.18 issuerAltName */
#define OID_EXT_CRL_NUMBER "\x55\x1d\x14"     /* 2.5.29.20 */
#define OID_EXT_DELTA "\x55\x1d\x1b"          /* 2.5.29.27 deltaCRLIndicator */
#define OID_EXT_IDP "\x55\x1d\x1c"            /* 2.5.29.28 issuingDistributionPoint */
#define OID_EXT_FRESHEST "\x55\x1d\x2e"       /* 2.5.29.46 freshestCRL */
#define OID_EXT_AIA "\x2b\x06\x01\x05\x05\x07\x01\x01" /* 1.3.6.1.5.5.7.1.1 */
#define OID_EXT_REASON "\x55\x1d\x15"         /* 2.5.29.21 reasonCode */
#define OID_EXT_INVALIDITY "\x55\x1d\x18"     /* 2.5.29.24 invalidityDate */
#define OID_EXT_CERT_ISSUER "\x55\x1d\x1d"    /* 2.5.29.29 certificateIssuer */
#define DER_ENUM 0x0a

/* openssl's names (ca -crl_reason), by CRLReason value; 7 is unused. */
static const char *const reason_names[] = {
    "unspecified",          "keyCompromise",   "CACompromise", "affiliationChanged",
    "superseded",           "cessationOfOperation", "certificateHold", NULL,
    "removeFromCRL",        "privilegeWithdrawn",   "AACompromise"};
#define N_REASONS (sizeof reason_names / sizeof reason_names[0])

const char *gostx_x509_crl_reason_name(int reason) {
  if (reason == GOSTX_X509_REASON_NONE) return "none";
  return reason >= 0 && (size_t)reason < N_REASONS ? reason_names[reason] : NULL;
}

int gostx_x509_crl_reason_by_name(const char *name) {
  for (size_t k = 0; name && k < N_REASONS; k++)
    if (reason_names[k] && !strcasecmp(name, reason_names[k])) return (int)k;
  return -2;
}

static int peek_time(const gostx__der *r) {
  return gostx__der_peek(r, GOSTX__DER_UTCTIME) || gostx__der_peek(r, GOSTX__DER_GENTIME);
}

/* A DER BOOLEAN under an IMPLICIT tag, DEFAULT FALSE: present only TRUE. */
static int implicit_true(gostx__der *r, uint8_t tag, int *v) {
  gostx__der b;
  if (!gostx__der_peek(r, tag)) return 0;
  if (gostx__der_get(r, tag, &b, NULL) || b.n != 1 || b.p[0] != 0xff) return GOSTX_EFORMAT;
  *v = 1;
  return 0;
}

/* Walks Extensions (the SEQUENCE's content): each { OID, critical TRUE
 * only, OCTET STRING }, no OID twice; calls one(oid, critical, value) for
 * each: 0 to go on, else its error. */
typedef int (*ext_fn)(void *ctx, gostx__der oid, int critical, gostx__der value,
                      gostx_x509_status *st);
static int walk_exts(gostx__der seq, void *ctx, ext_fn one, gostx_x509_status *st) {
  gostx__der seen[32];
  size_t n_seen = 0;
  if (!seq.n) return GOSTX_EFORMAT;
  while (seq.n) {
    gostx__der ext, oid, value;
    int critical = 0;
    if (gostx__der_get(&seq, GOSTX__DER_SEQ, &ext, NULL) || gostx__der_oid(&ext, &oid) ||
        (gostx__der_peek(&ext, GOSTX__DER_BOOL) && (gostx__der_bool(&ext, &critical) || !critical)) ||
        gostx__der_get(&ext, GOSTX__DER_OCTETS, &value, NULL) || ext.n)
      return GOSTX_EFORMAT;
    for (size_t i = 0; i < n_seen; i++)
      if (gostx__der_oid_is(seen[i], oid.p, oid.n)) return *st = GOSTX_X509_BAD_EXTENSION, GOSTX_EFORMAT;
    if (n_seen == sizeof seen / sizeof seen[0]) return *st = GOSTX_X509_BAD_EXTENSION, GOSTX_EFORMAT;
    seen[n_seen++] = oid;
    int rc = one(ctx, oid, critical, value, st);
    if (rc) return rc;
  }
  return 0;
}

/* ---- entries ---- */

typedef struct entry_ctx {
  gostx_x509_crl_entry *e;
  int unknown_critical;
} entry_ctx;

static int entry_ext(void *ctx, gostx__der oid, int critical, gostx__der v, gostx_x509_status *st) {
  entry_ctx *c = ctx;
  gostx__der x;
  if (GOSTX__DER_OID_IS(oid, OID_EXT_REASON)) {
    if (gostx__der_get(&v, DER_ENUM, &x, NULL) || v.n || x.n != 1 || x.p[0] > 10 || x.p[0] == 7)
      return *st = GOSTX_X509_BAD_EXTENSION, GOSTX_EFORMAT;
    c->e->reason = x.p[0];
  } else if (GOSTX__DER_OID_IS(oid, OID_EXT_INVALIDITY)) {
    if (!gostx__der_peek(&v, GOSTX__DER_GENTIME) || gostx__der_time(&v, &c->e->invalidity_date) || v.n)
      return *st = GOSTX_X509_BAD_EXTENSION, GOSTX_EFORMAT;
  } else if (GOSTX__DER_OID_IS(oid, OID_EXT_CERT_ISSUER)) {
    return *st = GOSTX_X509_CRL_INDIRECT, GOSTX_EFORMAT;
  } else {
    c->unknown_critical |= critical;
  }
  return 0;
}

/* One revokedCertificates entry from r: checked, into *e. */
static int get_entry(gostx__der *r, int version, gostx_x509_crl_entry *e, int *unknown_critical,
                     gostx_x509_status *st) {
  gostx__der seq, serial, exts;
  if (gostx__der_get(r, GOSTX__DER_SEQ, &seq, NULL) ||
      gostx__der_get(&seq, GOSTX__DER_INT, &serial, NULL) || !gostx__der_int_minimal(serial) ||
      gostx__der_time(&seq, &e->revocation_date))
    return GOSTX_EFORMAT;
  e->serial = serial.p;
  e->serial_len = serial.n;
  e->reason = GOSTX_X509_REASON_NONE;
  e->invalidity_date = -1;
  if (!seq.n) return 0;
  if (gostx__der_get(&seq, GOSTX__DER_SEQ, &exts, NULL) || seq.n) return GOSTX_EFORMAT;
  if (version != 2) return *st = GOSTX_X509_BAD_VERSION, GOSTX_EFORMAT;
  entry_ctx c = {e, 0};
  int rc = walk_exts(exts, &c, entry_ext, st);
  *unknown_critical |= c.unknown_critical;
  return rc;
}

int gostx_x509_crl_next(const gostx_x509_crl *crl, size_t *pos, gostx_x509_crl_entry *e) {
  if (!crl || !pos || !e) return GOSTX_EINVAL;
  if (!crl->revoked || *pos >= crl->revoked_len) return 0;
  gostx__der r = {crl->revoked + *pos, crl->revoked_len - *pos};
  gostx_x509_status st;
  int uc = 0;
  if (get_entry(&r, crl->version, e, &uc, &st)) return GOSTX_EFORMAT; /* not from crl_parse */
  *pos = crl->revoked_len - r.n;
  return 1;
}

/* Serial numbers compare as INTEGERs: both are minimal, so as bytes. */
int gostx_x509_crl_find(const gostx_x509_crl *crl, const uint8_t *serial, size_t serial_len,
                        gostx_x509_crl_entry *e) {
  gostx_x509_crl_entry x;
  size_t pos = 0;
  if (!crl || !serial) return 0;
  while (gostx_x509_crl_next(crl, &pos, &x) == 1)
    if (x.serial_len == serial_len && !memcmp(x.serial, serial, serial_len)) {
      if (e) *e = x;
      return 1;
    }
  return 0;
}

/* ---- the CRL's extensions ---- */

/* ReasonFlags: a BIT STRING of at most 9 bits, DER (no trailing zero bits). */
static int reason_flags(gostx__der bits, unsigned *out) {
  if (bits.n < 2 || bits.n > 3 || bits.p[0] > 7 || !bits.p[bits.n - 1] ||
      (bits.p[bits.n - 1] & ((1u << bits.p[0]) - 1)))
    return GOSTX_EFORMAT;
  unsigned f = 0;
  for (size_t i = 1; i < bits.n; i++)
    for (int b = 0; b < 8; b++)
      if (bits.p[i] & (0x80 >> b)) f |= 1u << (8 * (i - 1) + (size_t)b);
  *out = f;
  return 0;
}

/* issuingDistributionPoint (5.2.5): the fields in order, not empty, at
 * most one "only" flag; indirectCRL refused. */
static int ext_idp(gostx__der v, gostx_x509_crl *c, gostx_x509_status *st) {
  gostx__der seq, x;
  int indirect = 0;
  if (gostx__der_get(&v, GOSTX__DER_SEQ, &seq, NULL) || v.n || !seq.n) return GOSTX_EFORMAT;
  c->idp = 1;
  if (gostx__der_peek(&seq, GOSTX__DER_CTXC(0))) {
    if (gostx__der_get(&seq, GOSTX__DER_CTXC(0), &x, NULL) || !x.n) return GOSTX_EFORMAT;
    c->idp_dp = x.p;
    c->idp_dp_len = x.n;
  }
  if (implicit_true(&seq, GOSTX__DER_CTX(1), &c->only_user) ||
      implicit_true(&seq, GOSTX__DER_CTX(2), &c->only_ca))
    return GOSTX_EFORMAT;
  if (gostx__der_peek(&seq, GOSTX__DER_CTX(3)) &&
      (gostx__der_get(&seq, GOSTX__DER_CTX(3), &x, NULL) || reason_flags(x, &c->reasons)))
    return GOSTX_EFORMAT;
  if (implicit_true(&seq, GOSTX__DER_CTX(4), &indirect) ||
      implicit_true(&seq, GOSTX__DER_CTX(5), &c->only_attr) || seq.n)
    return GOSTX_EFORMAT;
  if (c->only_user + c->only_ca + c->only_attr > 1) return GOSTX_EFORMAT;
  if (indirect) return *st = GOSTX_X509_CRL_INDIRECT, GOSTX_EFORMAT;
  return 0;
}

/* authorityKeyIdentifier: SEQUENCE { [0] keyIdentifier, [1], [2] }: the first kept. */
static int ext_aki(gostx__der v, gostx_x509_crl *c) {
  gostx__der seq, id;
  if (gostx__der_get(&v, GOSTX__DER_SEQ, &seq, NULL) || v.n) return GOSTX_EFORMAT;
  if (gostx__der_peek(&seq, GOSTX__DER_CTX(0))) {
    if (gostx__der_get(&seq, GOSTX__DER_CTX(0), &id, NULL) || !id.n) return GOSTX_EFORMAT;
    c->aki_key_id = id.p;
    c->aki_key_id_len = id.n;
  }
  uint8_t tag;
  while (seq.n)
    if (gostx__der_next(&seq, &tag, NULL, NULL) || (tag != GOSTX__DER_CTXC(1) && tag != GOSTX__DER_CTX(2)))
      return GOSTX_EFORMAT;
  return 0;
}

static int crl_ext(void *ctx, gostx__der oid, int critical, gostx__der v, gostx_x509_status *st) {
  gostx_x509_crl *c = ctx;
  gostx__der x;
  int rc = 0;
  if (GOSTX__DER_OID_IS(oid, OID_EXT_DELTA)) return *st = GOSTX_X509_CRL_DELTA, GOSTX_EFORMAT;
  if (GOSTX__DER_OID_IS(oid, OID_EXT_CRL_NUMBER)) {
    /* a non-negative INTEGER of at most 20 octets (5.2.3) */
    if (gostx__der_get(&v, GOSTX__DER_INT, &x, NULL) || v.n || !gostx__der_int_minimal(x) || (x.p[0] & 0x80) ||
        x.n > 21 || (x.n == 21 && x.p[0]))
      rc = GOSTX_EFORMAT;
    c->crl_number = x.p;
    c->crl_number_len = x.n;
    c->crl_number_critical = critical;
  } else if (GOSTX__DER_OID_IS(oid, OID_EXT_AKI)) {
    rc = ext_aki(v, c);
  } else if (GOSTX__DER_OID_IS(oid, OID_EXT_IDP)) {
    rc = ext_idp(v, c, st);
    if (rc && *st != GOSTX_X509_CRL_MALFORMED) return rc;
  } else if (!GOSTX__DER_OID_IS(oid, OID_EXT_IAN) && !GOSTX__DER_OID_IS(oid, OID_EXT_FRESHEST) &&
             !GOSTX__DER_OID_IS(oid, OID_EXT_AIA)) {
    c->unknown_critical |= critical; /* read past; the others only point elsewhere */
  }
  if (rc) *st = GOSTX_X509_BAD_EXTENSION;
  return rc;
}

/* ---- the CRL ---- */

static int get_tbs(gostx__der tbs, gostx_x509_crl *c, gostx__der *alg_inner, gostx_x509_status *st) {
  gostx__der ver, name, list, exts, probe;
  c->version = 1;
  if (gostx__der_peek(&tbs, GOSTX__DER_INT)) {
    if (gostx__der_get(&tbs, GOSTX__DER_INT, &ver, NULL)) return GOSTX_EFORMAT;
    if (ver.n != 1 || ver.p[0] != 1) return *st = GOSTX_X509_BAD_VERSION, GOSTX_EFORMAT; /* MUST be v2 */
    c->version = 2;
  }
  probe = tbs;
  if (gostx__der_get(&probe, GOSTX__DER_SEQ, NULL, alg_inner) || gostx__x509_sig_alg(&tbs, &c->sig_alg, st) ||
      gostx__der_get(&tbs, GOSTX__DER_SEQ, &name, &probe) || gostx__x509_check_name(name))
    return GOSTX_EFORMAT;
  c->issuer = probe.p;
  c->issuer_len = probe.n;
  if (gostx__der_time(&tbs, &c->this_update)) return GOSTX_EFORMAT;
  c->next_update = -1;
  if (peek_time(&tbs) && gostx__der_time(&tbs, &c->next_update)) return GOSTX_EFORMAT;
  if (gostx__der_peek(&tbs, GOSTX__DER_SEQ)) {
    if (gostx__der_get(&tbs, GOSTX__DER_SEQ, &list, NULL)) return GOSTX_EFORMAT;
    c->revoked = list.n ? list.p : NULL; /* an empty list: as if absent */
    c->revoked_len = list.n;
    for (; list.n; c->n_revoked++) /* each entry checked once the version is known */
      if (gostx__der_get(&list, GOSTX__DER_SEQ, NULL, NULL)) return GOSTX_EFORMAT;
  }
  if (tbs.n) {
    if (gostx__der_get(&tbs, GOSTX__DER_CTXC(0), &exts, NULL) || tbs.n ||
        gostx__der_get(&exts, GOSTX__DER_SEQ, &list, NULL) || exts.n)
      return GOSTX_EFORMAT;
    if (c->version != 2) return *st = GOSTX_X509_BAD_VERSION, GOSTX_EFORMAT;
    if (walk_exts(list, c, crl_ext, st)) return GOSTX_EFORMAT;
  }
  return 0;
}

/* The entries once more, now that the version is known: extensions in a
 * v1 CRL's entries are a version error, and each entry's are checked. */
static int check_entries(gostx_x509_crl *c, gostx_x509_status *st) {
  gostx__der r = {c->revoked, c->revoked_len};
  while (r.n) {
    gostx_x509_crl_entry e;
    if (get_entry(&r, c->version, &e, &c->unknown_critical, st)) return GOSTX_EFORMAT;
  }
  return 0;
}

/* The TBSCertList into the gostx_x509_crl obj (a gostx__x509_tbs_reader):
 * its fields, then its entries; what fails after the fields without a
 * status of its own is MALFORMED. */
static int read_tbs(gostx__der tbs, void *obj, gostx__der *alg_inner, gostx_x509_status *st) {
  if (get_tbs(tbs, obj, alg_inner, st)) return GOSTX_EFORMAT;
  *st = GOSTX_X509_CRL_MALFORMED;
  if (check_entries(obj, st)) return GOSTX_EFORMAT;
  *st = GOSTX_X509_CRL_MALFORMED;
  return 0;
}

int gostx_x509_crl_parse(const uint8_t *der, size_t der_len, gostx_x509_crl *out,
                         gostx_x509_status *st) {
  gostx_x509_crl c;
  memset(&c, 0, sizeof c);
  c.reasons = GOSTX_X509_CRL_ALL_REASONS;
  gostx__x509_signed d = GOSTX__X509_SIGNED(c, read_tbs, GOSTX_X509_CRL_MALFORMED);
  return gostx__x509_signed_parse(der, der_len, &d, out, st);
}

int gostx_x509_crl_pem_next(const char *pem, size_t pem_len, size_t *pos, uint8_t *der, size_t cap,
                            size_t *der_len) {
  return gostx__pem_block(pem, pem_len, pos, "X509 CRL", der, cap, der_len);
}
