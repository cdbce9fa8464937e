/* Reading PKCS#12 (RFC 7292) with the GOST algorithms (include/gostx/pkcs12.h):
 *   PFX ::= SEQUENCE { version 3, authSafe ContentInfo (data), macData }
 *   AuthenticatedSafe ::= SEQUENCE OF ContentInfo (data | encryptedData)
 *   SafeContents ::= SEQUENCE OF SafeBag { bagId, [0] bagValue, attributes }
 * The file is walked twice with the same code: first without a key, to
 * check its shape and add up the PBKDF2 work it asks for, which is refused
 * above the caller's limit before any is spent; then, once the MAC has
 * verified under the password, to decrypt and keep the bags. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gostx/x509.h"
#include "pkcs12/pkcs12_internal.h"
#include "sha1/sha1.h"

#define SAFES_MAX 16
#define OID_TEXT 64

struct gostx_pkcs12 {
  uint8_t *arena; /* the file's copy, then every plaintext: wiped by free */
  size_t arena_cap, arena_used;
  gostx_pkcs12_bag bags[GOSTX_PKCS12_BAGS_MAX];
  size_t nbags;
  gostx_pkcs12_safe safes[SAFES_MAX];
  size_t nsafes;
  gostx_pkcs12_mac mac;
};

typedef struct reader {
  gostx_pkcs12 *p;
  const uint8_t *pass;
  size_t pass_len;
  uint8_t bmp[2 * 256 + 2]; /* the password as RFC 7292's BMPString with its NUL */
  size_t bmp_len;            /* (0: none, or the empty password's other form) */
  int bmp_ok;                /* the password converts (UTF-8 within the BMP) */
  uint64_t work, max_work; /* PBKDF2 iterations counted so far, and the limit */
  uint64_t mac_work;       /* the MAC's share of work */
  size_t mac_len;          /* its length: 64 or 32 (Streebog), 20 (SHA-1) */
  int decrypting;          /* second walk: the MAC has verified */
  char *why;
  size_t why_cap;
} reader;

/* Says why (when the caller gave room) and returns rc. */
static int fail(reader *rd, int rc, const char *fmt, ...) {
  if (rd->why && rd->why_cap) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rd->why, rd->why_cap, fmt, ap);
    va_end(ap);
  }
  return rc;
}

static int malformed(reader *rd, const char *what) {
  return fail(rd, GOSTX_EFORMAT, "malformed PKCS#12: %s", what);
}

/* An OID as dotted text (cut with "..." when longer than ours). */
static int get_oid(gostx__der *r, char *text) {
  gostx__der oid;
  if (gostx__der_oid(r, &oid)) return GOSTX_EFORMAT;
  gostx__der_oid_text(oid, text, OID_TEXT);
  return 0;
}

/* Adds iter PBKDF2 iterations to the file's cost; over the limit, refused. */
static int spend(reader *rd, uint64_t iter) {
  rd->work += iter;
  if (rd->work > rd->max_work)
    return fail(rd, GOSTX_EUNSUP,
                "the file asks for more than %llu PBKDF2 iterations (at least %llu); "
                "refused unless a higher limit is allowed",
                (unsigned long long)rd->max_work, (unsigned long long)rd->work);
  return 0;
}

/* Room for n plaintext bytes in the arena (sized for every plaintext a
 * file of this length can hold: see gostx_pkcs12_read). */
static uint8_t *arena_take(gostx_pkcs12 *p, size_t n) {
  if (n > p->arena_cap - p->arena_used) return NULL;
  uint8_t *q = p->arena + p->arena_used;
  p->arena_used += n;
  return q;
}

static int get_pbes2(reader *rd, gostx__der alg, gostx__pbes2 *pb);

/* The password-based encryptions a part or a key bag may use. */
typedef enum pbe_kind {
  PBE_PBES2 = 0,    /* families 1 and 2 */
  PBE_LEGACY = 1,   /* RFC 7292 appendix C: 3DES around CryptoPro's certificates, RC2 */
  PBE_CRYPTOPRO = 2 /* CryptoPro CSP's key bag (cryptopro.c) */
} pbe_kind;

typedef struct pbe {
  pbe_kind kind;
  gostx__pbes2 pb; /* PBES2; pb.iter and pb.desc for every kind */
  gostx__der salt; /* the others' salt */
  gostx__p12_legacy_pbe legacy; /* which of appendix C's */
} pbe;

/* Appendix C's PBEs gostx reads, by OID. */
static const struct {
  const char *oid, *name;
  gostx__p12_legacy_pbe pbe;
} LEGACY[] = {
    {GOSTX__P12_OID_PBE_SHA_3DES, "pbeWithSHAAnd3-KeyTripleDES-CBC", GOSTX__P12_SHA_3DES},
    {GOSTX__P12_OID_PBE_SHA_RC2_128, "pbeWithSHAAnd128BitRC2-CBC", GOSTX__P12_SHA_RC2_128},
    {GOSTX__P12_OID_PBE_SHA_RC2_40, "pbeWithSHAAnd40BitRC2-CBC", GOSTX__P12_SHA_RC2_40},
};

/* Their parameters: SEQUENCE { salt, iterations }; `which` indexes LEGACY. */
static int get_legacy(reader *rd, gostx__der alg, pbe *e, size_t which) {
  gostx__der body;
  const char *name = LEGACY[which].name;
  if (gostx__der_get(&alg, GOSTX__DER_SEQ, &body, NULL) || !gostx__der_done(&alg) ||
      gostx__der_get(&body, GOSTX__DER_OCTETS, &e->salt, NULL) || e->salt.n > 1024 ||
      gostx__der_u32(&body, &e->pb.iter) || !gostx__der_done(&body) || !e->pb.iter)
    return fail(rd, GOSTX_EFORMAT, "malformed PKCS#12: %s parameters", name);
  if (e->pb.iter > GOSTX__PBES2_ITER_MAX)
    return fail(rd, GOSTX_EUNSUP, "%s asks for %lu iterations, more than %lu", name,
                (unsigned long)e->pb.iter, (unsigned long)GOSTX__PBES2_ITER_MAX);
  e->kind = PBE_LEGACY;
  e->legacy = LEGACY[which].pbe;
  snprintf(e->pb.desc, sizeof e->pb.desc, "%s (RFC 7292, SHA-1)", name);
  return 0;
}

static int get_cryptopro(reader *rd, gostx__der alg, pbe *e) {
  int rc = gostx__pkcs12_cpro_params(alg, &e->salt, &e->pb.iter);
  if (rc == GOSTX_EUNSUP)
    return fail(rd, rc, "CryptoPro's PBE asks for %lu rounds, more than %u", (unsigned long)e->pb.iter,
                GOSTX__P12_CPRO_ITER_MAX);
  if (rc) return malformed(rd, "CryptoPro PBE parameters");
  e->kind = PBE_CRYPTOPRO;
  snprintf(e->pb.desc, sizeof e->pb.desc,
           "CryptoPro " GOSTX__P12_OID_PBE_CRYPTOPRO " (GOST R 34.11-94 rounds, GOST 28147-89 CFB, "
           "CryptoPro key blob)");
  return 0;
}

/* The encryption AlgorithmIdentifier read from r; key_bag: CryptoPro's
 * scheme is taken (it encrypts nothing else). */
static int get_pbe(reader *rd, gostx__der *r, pbe *e, int key_bag) {
  gostx__der alg, peek;
  char oid[OID_TEXT];
  if (gostx__der_get(r, GOSTX__DER_SEQ, &alg, NULL)) return malformed(rd, "encryption algorithm");
  memset(e, 0, sizeof *e);
  peek = alg;
  if (get_oid(&peek, oid)) return malformed(rd, "encryption algorithm");
  for (size_t i = 0; i < sizeof LEGACY / sizeof LEGACY[0]; i++)
    if (!strcmp(oid, LEGACY[i].oid)) return get_legacy(rd, peek, e, i);
  if (key_bag && !strcmp(oid, GOSTX__P12_OID_PBE_CRYPTOPRO)) return get_cryptopro(rd, peek, e);
  return get_pbes2(rd, alg, &e->pb);
}

/* PBES2 parameters of an AlgorithmIdentifier's content. */
static int get_pbes2(reader *rd, gostx__der alg, gostx__pbes2 *pb) {
  pb->iter = 0;
  int rc = gostx__pbes2_parse(alg, pb);
  if (rc == GOSTX_EUNSUP && pb->iter > GOSTX__PBES2_ITER_MAX)
    return fail(rd, rc, "%s asks for %lu PBKDF2 iterations, more than %lu", pb->desc,
                (unsigned long)pb->iter, (unsigned long)GOSTX__PBES2_ITER_MAX);
  if (rc == GOSTX_EUNSUP)
    return fail(rd, rc, "unsupported encryption: %s", pb->desc[0] ? pb->desc : "?");
  if (rc) return malformed(rd, "PBES2 parameters");
  return 0;
}

/* RFC 7292's 3DES and RC2: the padding is wrong only under another password. */
static int decrypt_legacy(reader *rd, const pbe *e, gostx__der ct, uint8_t *out, gostx__der *plain) {
  size_t n = 0;
  if (!rd->bmp_ok) return fail(rd, GOSTX_EINVAL, "the password is not UTF-8 text RFC 7292 can encode");
  int rc = gostx__pkcs12_legacy_decrypt(e->legacy, rd->bmp, rd->bmp_len, e->salt.p, e->salt.n,
                                        e->pb.iter, ct.p, ct.n, out, &n);
  if (rc == GOSTX_EFORMAT) return malformed(rd, "ciphertext not of whole blocks");
  if (rc == GOSTX_EAUTH) return fail(rd, rc, "a 3DES or RC2 part does not decrypt under this password");
  if (rc) return fail(rd, rc, "decryption failed");
  *plain = (gostx__der){out, n};
  return 0;
}

static int decrypt_cryptopro(reader *rd, const pbe *e, gostx__der ct, uint8_t *out, gostx__der *plain) {
  size_t n = 0;
  int rc = gostx__pkcs12_cpro_decrypt(rd->pass, rd->pass_len, e->salt, e->pb.iter, ct, out, ct.n, &n);
  if (rc == GOSTX_EFORMAT)
    return fail(rd, GOSTX_EAUTH, "the CryptoPro key bag does not decrypt under this password");
  if (rc == GOSTX_EAUTH)
    return fail(rd, rc, "the CryptoPro key blob's MAC (CEK_MAC) does not verify: the key was altered");
  if (rc == GOSTX_EUNSUP)
    return fail(rd, rc, "the CryptoPro key blob holds a key that is not GOST R 34.10-2001 or -2012");
  if (rc == GOSTX_EINVAL) return fail(rd, rc, "the password is not UTF-8 text CryptoPro can encode");
  if (rc) return fail(rd, rc, "decryption failed");
  *plain = (gostx__der){out, n};
  return 0;
}

/* What each scheme costs in PBKDF2-like rounds: appendix C's key and IV are
 * up to three runs of RFC 7292's KDF (3DES's). */
static uint64_t pbe_cost(const pbe *e) { return (e->kind == PBE_LEGACY ? 3u : 1u) * (uint64_t)e->pb.iter; }

/* Decrypts ct under e into the arena: *plain. On the first walk only the
 * cost is counted (*plain stays unset). */
static int decrypt(reader *rd, const pbe *e, gostx__der ct, gostx__der *plain) {
  int rc = spend(rd, pbe_cost(e));
  if (rc || !rd->decrypting) return rc;
  uint8_t *out = arena_take(rd->p, ct.n);
  if (!out) return fail(rd, GOSTX_ENOMEM, "out of room for the plaintext");
  if (e->kind == PBE_LEGACY) return decrypt_legacy(rd, e, ct, out, plain);
  if (e->kind == PBE_CRYPTOPRO) return decrypt_cryptopro(rd, e, ct, out, plain);
  const gostx__pbes2 *pb = &e->pb;
  rc = gostx__pbes2_crypt(pb, rd->pass, rd->pass_len, 1, ct.p, ct.n, out);
  if (rc == GOSTX_EAUTH) /* CTR-ACPKM-OMAC's tag, after the MAC held */
    return fail(rd, rc, "the OMAC tag of an encrypted part or key does not verify under this password");
  if (rc == GOSTX_EFORMAT) return malformed(rd, "ciphertext shorter than its tag, or not of whole blocks");
  if (rc) return fail(rd, rc, "decryption failed");
  size_t n = 0;
  if (gostx__pbes2_plain_len(pb, out, ct.n, &n)) /* 3DES's padding, after the MAC held */
    return fail(rd, GOSTX_EAUTH, "a 3DES part or key does not decrypt under this password");
  *plain = (gostx__der){out, n};
  return 0;
}

/* A plaintext that should be one DER SEQUENCE and is not: the MAC verified
 * under this password, so the part was encrypted under another one (or
 * altered before the MAC was made). */
static int check_plain(reader *rd, gostx__der plain, const char *what) {
  gostx__der r = plain, body;
  if (gostx__der_get(&r, GOSTX__DER_SEQ, &body, NULL) || !gostx__der_done(&r))
    return fail(rd, GOSTX_EAUTH, "the %s does not decrypt under this password", what);
  return 0;
}

/* BMPString (UTF-16BE, surrogate pairs allowed) to UTF-8 in out[cap],
 * cut at a character that does not fit. */
static int bmp_to_utf8(gostx__der s, char *out, size_t cap) {
  size_t n = 0;
  if (s.n % 2) return GOSTX_EFORMAT;
  for (size_t i = 0; i < s.n; i += 2) {
    uint32_t c = (uint32_t)s.p[i] << 8 | s.p[i + 1];
    if (c >= 0xdc00 && c < 0xe000) return GOSTX_EFORMAT; /* a lone low surrogate */
    if (c >= 0xd800 && c < 0xdc00) {
      uint32_t lo = i + 3 < s.n ? (uint32_t)s.p[i + 2] << 8 | s.p[i + 3] : 0;
      if (lo < 0xdc00 || lo >= 0xe000) return GOSTX_EFORMAT;
      c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
      i += 2;
    }
    uint8_t u[4];
    size_t k = c < 0x80 ? (u[0] = (uint8_t)c, 1)
               : c < 0x800 ? (u[0] = (uint8_t)(0xc0 | c >> 6), u[1] = (uint8_t)(0x80 | (c & 0x3f)), 2)
               : c < 0x10000 ? (u[0] = (uint8_t)(0xe0 | c >> 12), u[1] = (uint8_t)(0x80 | (c >> 6 & 0x3f)),
                                u[2] = (uint8_t)(0x80 | (c & 0x3f)), 3)
                             : (u[0] = (uint8_t)(0xf0 | c >> 18), u[1] = (uint8_t)(0x80 | (c >> 12 & 0x3f)),
                                u[2] = (uint8_t)(0x80 | (c >> 6 & 0x3f)), u[3] = (uint8_t)(0x80 | (c & 0x3f)), 4);
    if (c == 0 || n + k >= cap) break; /* a NUL ends the text, as it would in C */
    memcpy(out + n, u, k);
    n += k;
  }
  out[n] = 0;
  return 0;
}

/* bagAttributes: SET OF SEQUENCE { attrId, SET OF value }; friendlyName
 * and localKeyId kept (their first value), others passed over. */
static int get_attributes(reader *rd, gostx__der set, gostx_pkcs12_bag *bag) {
  while (!gostx__der_done(&set)) {
    gostx__der attr, values, v;
    char oid[OID_TEXT];
    if (gostx__der_get(&set, GOSTX__DER_SEQ, &attr, NULL) || get_oid(&attr, oid) ||
        gostx__der_get(&attr, GOSTX__DER_SET, &values, NULL) || !gostx__der_done(&attr))
      return malformed(rd, "bag attribute");
    if (!strcmp(oid, GOSTX__P12_OID_FRIENDLY_NAME)) {
      if (gostx__der_get(&values, 0x1e, &v, NULL) || bmp_to_utf8(v, bag->name, sizeof bag->name))
        return malformed(rd, "friendlyName (a BMPString)");
    } else if (!strcmp(oid, GOSTX__P12_OID_LOCAL_KEY_ID)) {
      if (gostx__der_get(&values, GOSTX__DER_OCTETS, &v, NULL)) return malformed(rd, "localKeyId");
      bag->key_id = v.p, bag->key_id_len = v.n;
    }
  }
  return 0;
}

/* certBag ::= SEQUENCE { certId, [0] EXPLICIT OCTET STRING }. */
static int get_cert_bag(reader *rd, gostx__der value, gostx_pkcs12_bag *bag) {
  gostx__der body, wrap, cert;
  char oid[OID_TEXT];
  if (gostx__der_get(&value, GOSTX__DER_SEQ, &body, NULL) || !gostx__der_done(&value) ||
      get_oid(&body, oid) || gostx__der_get(&body, GOSTX__DER_CTXC(0), &wrap, NULL) ||
      !gostx__der_done(&body) || gostx__der_get(&wrap, GOSTX__DER_OCTETS, &cert, NULL) ||
      !gostx__der_done(&wrap))
    return malformed(rd, "certBag");
  if (!strcmp(oid, GOSTX__P12_OID_X509_CERT)) bag->type = GOSTX_PKCS12_BAG_CERT, bag->der = cert.p,
                                              bag->der_len = cert.n;
  return 0;
}

/* pkcs8ShroudedKeyBag: an EncryptedPrivateKeyInfo, decrypted. */
static int get_shrouded_key(reader *rd, gostx__der value, gostx_pkcs12_bag *bag) {
  gostx__der body, ct, plain = {0};
  pbe e;
  int rc;
  if (gostx__der_get(&value, GOSTX__DER_SEQ, &body, NULL) || !gostx__der_done(&value))
    return malformed(rd, "pkcs8ShroudedKeyBag");
  if ((rc = get_pbe(rd, &body, &e, 1))) return rc;
  if (gostx__der_get(&body, GOSTX__DER_OCTETS, &ct, NULL) || !gostx__der_done(&body) || !ct.n)
    return malformed(rd, "pkcs8ShroudedKeyBag");
  if ((rc = decrypt(rd, &e, ct, &plain))) return rc;
  snprintf(bag->scheme, sizeof bag->scheme, "%s", e.pb.desc);
  bag->iterations = e.pb.iter;
  if (!rd->decrypting) return 0;
  bag->der = plain.p, bag->der_len = plain.n;
  return check_plain(rd, plain, "shrouded key bag");
}

/* A certificate lib/x509 refuses is not given as one: kept as BAD_CERT
 * with the reason, for the caller to name. */
static void check_cert(gostx_pkcs12_bag *bag) {
  gostx_x509_cert c;
  gostx_x509_status st = GOSTX_X509_MALFORMED;
  if (!gostx_x509_parse(bag->der, bag->der_len, &c, &st)) return;
  bag->type = GOSTX_PKCS12_BAG_BAD_CERT;
  snprintf(bag->problem, sizeof bag->problem, "%s", gostx_x509_status_name(st));
}

/* One SafeBag; kept on the second walk. */
static int get_bag(reader *rd, gostx__der r, unsigned safe) {
  gostx__der body, wrap, value, attrs;
  gostx_pkcs12_bag bag;
  int rc;
  memset(&bag, 0, sizeof bag);
  bag.type = GOSTX_PKCS12_BAG_OTHER;
  bag.safe = safe;
  if (gostx__der_get(&r, GOSTX__DER_SEQ, &body, NULL) || !gostx__der_done(&r) ||
      get_oid(&body, bag.bag_oid) || gostx__der_get(&body, GOSTX__DER_CTXC(0), &wrap, NULL) ||
      gostx__der_next(&wrap, &(uint8_t){0}, NULL, &value) || !gostx__der_done(&wrap))
    return malformed(rd, "SafeBag");
  if (!gostx__der_done(&body)) {
    if (gostx__der_get(&body, GOSTX__DER_SET, &attrs, NULL) || !gostx__der_done(&body))
      return malformed(rd, "SafeBag attributes");
    if ((rc = get_attributes(rd, attrs, &bag))) return rc;
  }
  if (!strcmp(bag.bag_oid, GOSTX__P12_OID_SHROUDED_KEY_BAG)) {
    bag.type = GOSTX_PKCS12_BAG_SHROUDED_KEY;
    if ((rc = get_shrouded_key(rd, value, &bag))) return rc;
  } else if (!strcmp(bag.bag_oid, GOSTX__P12_OID_KEY_BAG)) {
    bag.type = GOSTX_PKCS12_BAG_KEY;
    bag.der = value.p, bag.der_len = value.n;
  } else if (!strcmp(bag.bag_oid, GOSTX__P12_OID_CERT_BAG)) {
    if ((rc = get_cert_bag(rd, value, &bag))) return rc;
  }
  if (bag.type == GOSTX_PKCS12_BAG_OTHER) bag.der = value.p, bag.der_len = value.n;
  if (!rd->decrypting) return 0;
  if (bag.type == GOSTX_PKCS12_BAG_CERT) check_cert(&bag);
  gostx_pkcs12 *p = rd->p;
  if (p->nbags == GOSTX_PKCS12_BAGS_MAX)
    return fail(rd, GOSTX_EUNSUP, "more than %d bags", GOSTX_PKCS12_BAGS_MAX);
  p->bags[p->nbags++] = bag;
  p->safes[safe].bags++;
  return 0;
}

/* SafeContents ::= SEQUENCE OF SafeBag. */
static int get_safe_contents(reader *rd, gostx__der sc, unsigned safe) {
  gostx__der body, bag;
  int rc;
  if (gostx__der_get(&sc, GOSTX__DER_SEQ, &body, NULL) || !gostx__der_done(&sc))
    return malformed(rd, "SafeContents");
  while (!gostx__der_done(&body)) {
    if (gostx__der_next(&body, &(uint8_t){0}, NULL, &bag)) return malformed(rd, "SafeContents");
    if ((rc = get_bag(rd, bag, safe))) return rc;
  }
  return 0;
}

/* EncryptedData ::= SEQUENCE { version, EncryptedContentInfo { data,
 * AlgorithmIdentifier, [0] IMPLICIT OCTET STRING }, [1] attributes OPTIONAL }. */
static int get_encrypted_data(reader *rd, gostx__der content, gostx_pkcs12_safe *safe,
                              unsigned index) {
  gostx__der body, eci, ct, plain = {0};
  pbe e;
  char oid[OID_TEXT];
  uint32_t version;
  int rc;
  if (gostx__der_get(&content, GOSTX__DER_SEQ, &body, NULL) || !gostx__der_done(&content) ||
      gostx__der_u32(&body, &version) || (version != 0 && version != 2) ||
      gostx__der_get(&body, GOSTX__DER_SEQ, &eci, NULL) || get_oid(&eci, oid) ||
      strcmp(oid, GOSTX__P12_OID_DATA))
    return malformed(rd, "encryptedData");
  if (!gostx__der_done(&body) && (gostx__der_get(&body, GOSTX__DER_CTXC(1), NULL, NULL) ||
                                  !gostx__der_done(&body)))
    return malformed(rd, "encryptedData");
  if ((rc = get_pbe(rd, &eci, &e, 0))) return rc;
  if (gostx__der_get(&eci, GOSTX__DER_CTX(0), &ct, NULL) || !gostx__der_done(&eci) || !ct.n)
    return malformed(rd, "encryptedData's content");
  safe->encrypted = 1;
  snprintf(safe->scheme, sizeof safe->scheme, "%s", e.pb.desc);
  safe->iterations = e.pb.iter;
  if ((rc = decrypt(rd, &e, ct, &plain))) return rc;
  if (!rd->decrypting) return 0; /* what it holds is seen on the second walk */
  if ((rc = check_plain(rd, plain, "encrypted part"))) return rc;
  return get_safe_contents(rd, plain, index);
}

/* ContentInfo ::= SEQUENCE { contentType, [0] EXPLICIT content }: its type
 * and content. */
static int get_content_info(reader *rd, gostx__der *r, char *type, gostx__der *content) {
  gostx__der body;
  if (gostx__der_get(r, GOSTX__DER_SEQ, &body, NULL) || get_oid(&body, type) ||
      gostx__der_get(&body, GOSTX__DER_CTXC(0), content, NULL) || !gostx__der_done(&body))
    return malformed(rd, "ContentInfo");
  return 0;
}

/* AuthenticatedSafe ::= SEQUENCE OF ContentInfo. */
static int get_authenticated_safe(reader *rd, gostx__der as) {
  gostx__der body, content, octets;
  char type[OID_TEXT];
  int rc;
  if (gostx__der_get(&as, GOSTX__DER_SEQ, &body, NULL) || !gostx__der_done(&as))
    return malformed(rd, "AuthenticatedSafe");
  for (unsigned i = 0; !gostx__der_done(&body); i++) {
    if (i == SAFES_MAX) return fail(rd, GOSTX_EUNSUP, "more than %d safe contents", SAFES_MAX);
    if ((rc = get_content_info(rd, &body, type, &content))) return rc;
    gostx_pkcs12_safe *safe = &rd->p->safes[i];
    memset(safe, 0, sizeof *safe);
    if (!strcmp(type, GOSTX__P12_OID_DATA)) {
      if (gostx__der_get(&content, GOSTX__DER_OCTETS, &octets, NULL) || !gostx__der_done(&content))
        return malformed(rd, "data");
      rc = get_safe_contents(rd, octets, i);
    } else if (!strcmp(type, GOSTX__P12_OID_ENCRYPTED_DATA)) {
      rc = get_encrypted_data(rd, content, safe, i);
    } else {
      rc = fail(rd, GOSTX_EUNSUP, "unsupported content type %s (envelopedData: public-key privacy)",
                type);
    }
    if (rc) return rc;
    rd->p->nsafes = i + 1;
  }
  return 0;
}

/* Names for the MAC digests files use that we do not read, in refusals. */
static const char *mac_digest_name(const char *oid) {
  static const struct {
    const char *oid, *name;
  } names[] = {
      {"2.16.840.1.101.3.4.2.1", " (SHA-256, RFC 7292's KDF: OpenSSL 3's default)"},
      {"1.2.643.2.2.9", " (GOST R 34.11-94)"},
  };
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (!strcmp(oid, names[i].oid)) return names[i].name;
  return "";
}

/* MacData ::= SEQUENCE { DigestInfo { AlgorithmIdentifier, digest },
 * macSalt, iterations DEFAULT 1 }. */
static int get_mac_data(reader *rd, gostx__der md, gostx__der *digest, gostx__der *salt,
                        uint32_t *iter) {
  gostx__der body, di, alg, np;
  char oid[OID_TEXT];
  int rc;
  if (gostx__der_get(&md, GOSTX__DER_SEQ, &body, NULL) || !gostx__der_done(&md) ||
      gostx__der_get(&body, GOSTX__DER_SEQ, &di, NULL) ||
      gostx__der_get(&di, GOSTX__DER_SEQ, &alg, NULL) || get_oid(&alg, oid) ||
      (!gostx__der_done(&alg) &&
       (gostx__der_get(&alg, GOSTX__DER_NULL, &np, NULL) || np.n || !gostx__der_done(&alg))) ||
      gostx__der_get(&di, GOSTX__DER_OCTETS, digest, NULL) || !gostx__der_done(&di) ||
      gostx__der_get(&body, GOSTX__DER_OCTETS, salt, NULL))
    return malformed(rd, "MacData");
  *iter = 1;
  if (!gostx__der_done(&body) && (rc = gostx__der_u32(&body, iter)))
    return rc == GOSTX_EUNSUP ? fail(rd, rc, "MacData asks for 2^32 PBKDF2 iterations or more")
                              : malformed(rd, "MacData iterations");
  if (!gostx__der_done(&body) || *iter == 0) return malformed(rd, "MacData");
  int sha1 = !strcmp(oid, GOSTX__P12_OID_SHA1), s256 = !strcmp(oid, GOSTX__P12_OID_STREEBOG256);
  if (!sha1 && !s256 && strcmp(oid, GOSTX__P12_OID_STREEBOG512))
    return fail(rd, GOSTX_EUNSUP,
                "unsupported MAC digest %s%s (read: Streebog-512, 1.2.643.7.1.1.2.3; Streebog-256, "
                "1.2.643.7.1.1.2.2; SHA-1, 1.3.14.3.2.26)",
                oid, mac_digest_name(oid));
  rd->mac_len = sha1 ? 20u : s256 ? 32u : 64u;
  if (digest->n != rd->mac_len) return malformed(rd, "MacData digest length");
  if (sha1 && salt->n > 1024) return malformed(rd, "MacData salt length");
  snprintf(rd->p->mac.alg, sizeof rd->p->mac.alg, sha1 ? "sha1" : s256 ? "streebog256" : "streebog512");
  rd->p->mac.iterations = *iter;
  rd->p->mac.salt_len = salt->n;
  /* Streebog's 96 bytes: two PBKDF2 blocks of Streebog-512, three of -256 */
  rd->mac_work = (sha1 ? 1 : s256 ? 3 : 2) * (uint64_t)*iter;
  return spend(rd, rd->mac_work);
}

/* RFC 7292's MAC over SHA-1 (what CryptoPro CSP writes). The empty
 * password is tried as BMPString's lone NUL, then as no bytes at all, as
 * OpenSSL does: writers differ. */
static int mac_sha1_verifies(reader *rd, gostx__der salt, uint32_t iter, gostx__der as,
                             gostx__der digest) {
  uint8_t mac[GOSTX__SHA1_LEN];
  if (!rd->bmp_ok) return fail(rd, GOSTX_EINVAL, "the password is not UTF-8 text RFC 7292 can encode");
  for (int empty = 0; empty < 2; empty++) {
    if (empty && rd->pass_len) break;
    if (empty) rd->bmp_len = 0;
    int rc = gostx__pkcs12_mac_sha1(rd->bmp, rd->bmp_len, salt.p, salt.n, iter, as.p, as.n, mac);
    if (rc) return fail(rd, rc, "MAC computation failed");
    rc = gostx_memeq_ct(mac, digest.p, sizeof mac);
    gostx_memzero(mac, sizeof mac);
    if (!rc) return 0;
  }
  return fail(rd, GOSTX_EAUTH, "MAC verification failed: wrong password (or the file was altered)");
}

static int mac_verifies(reader *rd, gostx__der salt, uint32_t iter, gostx__der as, gostx__der digest) {
  if (rd->mac_len == GOSTX__SHA1_LEN) return mac_sha1_verifies(rd, salt, iter, as, digest);
  uint8_t mac[64];
  int rc = (rd->mac_len == 64 ? gostx__pkcs12_mac : gostx__pkcs12_mac256)(
      rd->pass, rd->pass_len, salt.p, salt.n, iter, as.p, as.n, mac);
  if (rc) return fail(rd, rc, "MAC computation failed");
  rc = gostx_memeq_ct(mac, digest.p, rd->mac_len);
  gostx_memzero(mac, sizeof mac);
  if (rc)
    return fail(rd, GOSTX_EAUTH, "MAC verification failed: wrong password (or the file was altered)");
  return 0;
}

/* The whole file: shape and cost, the MAC, then the second walk. */
static int read_pfx(reader *rd, const uint8_t *pfx, size_t len) {
  gostx__der all = {pfx, len}, body, content, as, digest, salt, md;
  char type[OID_TEXT];
  uint32_t version, iter;
  int rc;
  if (gostx__der_get(&all, GOSTX__DER_SEQ, &body, NULL))
    return malformed(rd, "not a DER SEQUENCE, or truncated");
  if (!gostx__der_done(&all)) return malformed(rd, "trailing data after the PFX");
  if (gostx__der_u32(&body, &version) || version != 3) return malformed(rd, "version is not 3");
  if ((rc = get_content_info(rd, &body, type, &content))) return rc;
  if (strcmp(type, GOSTX__P12_OID_DATA))
    return fail(rd, GOSTX_EUNSUP, "unsupported authSafe type %s (signedData: public-key integrity)",
                type);
  if (gostx__der_get(&content, GOSTX__DER_OCTETS, &as, NULL) || !gostx__der_done(&content))
    return malformed(rd, "authSafe");
  if (gostx__der_done(&body))
    return fail(rd, GOSTX_EUNSUP, "no MacData: the file's integrity cannot be checked");
  if (gostx__der_next(&body, &(uint8_t){0}, NULL, &md) || !gostx__der_done(&body))
    return malformed(rd, "after the authSafe");
  if ((rc = get_mac_data(rd, md, &digest, &salt, &iter))) return rc;
  if ((rc = get_authenticated_safe(rd, as))) return rc; /* shape and cost, nothing spent */
  if ((rc = mac_verifies(rd, salt, iter, as, digest))) return rc;
  rd->decrypting = 1;
  rd->work = rd->mac_work;
  return get_authenticated_safe(rd, as);
}

int gostx_pkcs12_read(const uint8_t *pfx, size_t len, const uint8_t *pass, size_t pass_len,
                      uint64_t max_work, gostx_pkcs12 **out, char *why, size_t why_cap) {
  if (why && why_cap) why[0] = 0;
  if (!out || !pfx || (!pass && pass_len)) return GOSTX_EINVAL;
  *out = NULL;
  if (len > SIZE_MAX / 4) return GOSTX_EFORMAT;
  gostx_pkcs12 *p = calloc(1, sizeof *p);
  /* the copy, the encryptedData plaintexts (at most its length) and the
   * shrouded keys' (at most its length again) */
  if (p) p->arena_cap = 3 * len + 1, p->arena = malloc(p->arena_cap);
  if (!p || !p->arena) {
    free(p);
    return GOSTX_ENOMEM;
  }
  memcpy(p->arena, pfx, len);
  p->arena_used = len;
  reader rd = {.p = p, .pass = pass, .pass_len = pass_len,
               .max_work = max_work ? max_work : GOSTX_PKCS12_WORK_DEFAULT, .why = why,
               .why_cap = why_cap};
  rd.bmp_ok = !gostx__pkcs12_bmp_password(pass, pass_len, rd.bmp, sizeof rd.bmp, &rd.bmp_len);
  int rc = read_pfx(&rd, p->arena, len);
  gostx_memzero(rd.bmp, sizeof rd.bmp);
  if (rc) {
    gostx_pkcs12_free(p);
    return rc;
  }
  *out = p;
  return 0;
}

void gostx_pkcs12_free(gostx_pkcs12 *p) {
  if (!p) return;
  gostx_memzero(p->arena, p->arena_cap);
  free(p->arena);
  gostx_memzero(p, sizeof *p);
  free(p);
}

size_t gostx_pkcs12_bag_count(const gostx_pkcs12 *p) { return p ? p->nbags : 0; }

int gostx_pkcs12_bag_get(const gostx_pkcs12 *p, size_t i, gostx_pkcs12_bag *bag) {
  if (!p || !bag || i >= p->nbags) return GOSTX_EINVAL;
  *bag = p->bags[i];
  return 0;
}

size_t gostx_pkcs12_safe_count(const gostx_pkcs12 *p) { return p ? p->nsafes : 0; }

int gostx_pkcs12_safe_get(const gostx_pkcs12 *p, size_t i, gostx_pkcs12_safe *safe) {
  if (!p || !safe || i >= p->nsafes) return GOSTX_EINVAL;
  *safe = p->safes[i];
  return 0;
}

void gostx_pkcs12_mac_get(const gostx_pkcs12 *p, gostx_pkcs12_mac *mac) {
  if (p && mac) *mac = p->mac;
}

int gostx_pkcs12_key(const gostx_pkcs12 *p, gostx_gost3410_key *out, size_t *cert_bag) {
  if (!p) return GOSTX_EINVAL;
  const gostx_pkcs12_bag *key = NULL;
  for (size_t i = 0; i < p->nbags && !key; i++)
    if (p->bags[i].type == GOSTX_PKCS12_BAG_KEY || p->bags[i].type == GOSTX_PKCS12_BAG_SHROUDED_KEY)
      key = &p->bags[i];
  if (!key) return GOSTX_EINVAL;
  /* the bag's DER (a shrouded one decrypted by gostx_pkcs12_read) read as
   * a plain DER key: the key object's reader without PEM or PBES2 */
  gostx_gost3410_key k;
  int rc = gostx__key_from_der(&k, key->der, key->der_len);
  if (rc == GOSTX_EFORMAT || (!rc && !k.has_private)) rc = GOSTX_EUNSUP;
  if (rc) {
    gostx_gost3410_key_clear(&k);
    return rc;
  }
  if (cert_bag) *cert_bag = SIZE_MAX;
  for (size_t i = 0; i < p->nbags && cert_bag; i++) {
    gostx_x509_cert c;
    if (p->bags[i].type == GOSTX_PKCS12_BAG_CERT &&
        !gostx_x509_parse(p->bags[i].der, p->bags[i].der_len, &c, NULL) &&
        c.pub_len == 2 * k.len && !memcmp(c.pub, k.q, c.pub_len)) {
      *cert_bag = i;
      break;
    }
  }
  if (out) *out = k;
  gostx_gost3410_key_clear(&k);
  return 0;
}

