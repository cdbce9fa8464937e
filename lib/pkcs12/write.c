/* Writing PKCS#12 (include/gostx/pkcs12.h) in the layout gost-engine's
 * `openssl pkcs12 -export` uses: AuthenticatedSafe { the certificates
 * (encryptedData, or data), data { the shrouded key } }, MacData last.
 * Each DER part is built by a function run twice, once to count its
 * length and once into a buffer of that length; the encryption is done
 * between the builds, in place (PBES2's ciphers keep the length), so the
 * length of the whole is known without any of it. */
#include <stdlib.h>
#include <string.h>

#include "gostx/x509.h"
#include "pkcs12/pkcs12_internal.h"

#define KEY_ID_LEN 32 /* localKeyId: the certificate's Streebog-256 */
#define NAME_MAX_UTF16 512

typedef struct job {
  const gostx_gost3410_key *k;
  uint8_t key[GOSTX_GOST3410_DER_MAX]; /* k's PrivateKeyInfo (secret: wiped) */
  size_t key_len;
  const uint8_t *const *certs;
  const size_t *cert_lens;
  size_t ncerts;
  uint8_t key_id[KEY_ID_LEN];
  uint8_t name[NAME_MAX_UTF16]; /* the friendlyName as a BMPString's content */
  size_t name_len;              /* 0: none */
  gostx__pbes2 key_pbe, cert_pbe;
  int certs_encrypted;
  uint8_t key_salt[16], key_ukm[16], cert_salt[16], cert_ukm[16], mac_salt[16];
  uint32_t iterations;
  /* the parts, as they are built */
  uint8_t *key_ct, *certs_sc, *key_sc, *as;
  size_t key_ct_len, certs_sc_len, key_sc_len, as_len; /* certs_sc_len: with its tag once encrypted */
  uint8_t mac[64];
} job;

typedef void (*fill_fn)(gostx__der_w *w, const job *j);

/* Runs fill into a buffer of exactly the length it needs: *out (malloc'd). */
static int build(fill_fn fill, const job *j, uint8_t **out, size_t *len) {
  gostx__der_w w;
  gostx__der_w_init(&w, NULL, 0);
  fill(&w, j);
  int rc = gostx__der_w_finish(&w, len);
  if (rc != GOSTX_ELEN && rc) return rc;
  if (!(*out = malloc(*len ? *len : 1))) return GOSTX_ENOMEM;
  gostx__der_w_init(&w, *out, *len);
  fill(&w, j);
  return gostx__der_w_finish(&w, len);
}

/* UTF-8 to UTF-16BE (a BMPString's content, surrogate pairs for the
 * rest); GOSTX_EINVAL for text that is not UTF-8 or too long. */
static int utf8_to_bmp(const char *s, uint8_t *out, size_t cap, size_t *len) {
  const uint8_t *p = (const uint8_t *)s;
  size_t n = 0;
  while (*p) {
    uint32_t c;
    int k = *p < 0x80 ? 0 : (*p & 0xe0) == 0xc0 ? 1 : (*p & 0xf0) == 0xe0 ? 2 : (*p & 0xf8) == 0xf0 ? 3 : -1;
    if (k < 0) return GOSTX_EINVAL;
    c = k ? *p & (0x3f >> k) : *p;
    for (int i = 1; i <= k; i++) {
      if ((p[i] & 0xc0) != 0x80) return GOSTX_EINVAL;
      c = c << 6 | (p[i] & 0x3f);
    }
    static const uint32_t least[4] = {0, 0x80, 0x800, 0x10000};
    if (c < least[k] || c > 0x10ffff || (c >= 0xd800 && c < 0xe000)) return GOSTX_EINVAL;
    p += k + 1;
    uint16_t u[2] = {(uint16_t)c, 0};
    size_t units = 1;
    if (c >= 0x10000) u[0] = (uint16_t)(0xd800 + ((c - 0x10000) >> 10)),
                      u[1] = (uint16_t)(0xdc00 + ((c - 0x10000) & 0x3ff)), units = 2;
    if (n + 2 * units > cap) return GOSTX_EINVAL;
    for (size_t i = 0; i < units; i++) out[n++] = (uint8_t)(u[i] >> 8), out[n++] = (uint8_t)u[i];
  }
  *len = n;
  return 0;
}

/* One attribute SEQUENCE { attrId, SET { value } } into buf[cap]. */
static size_t put_attribute(uint8_t *buf, size_t cap, const char *oid, uint8_t tag,
                            const uint8_t *v, size_t n) {
  gostx__der_w w;
  size_t len = 0;
  gostx__der_w_init(&w, buf, cap);
  gostx__der_w_begin(&w, GOSTX__DER_SEQ);
  gostx__der_w_oid(&w, oid);
  gostx__der_w_begin(&w, GOSTX__DER_SET);
  gostx__der_w_tlv(&w, tag, v, n);
  gostx__der_w_end(&w);
  gostx__der_w_end(&w);
  return gostx__der_w_finish(&w, &len) ? 0 : len;
}

/* bagAttributes: friendlyName (when given) and localKeyId, in the order
 * DER's SET OF wants (by their encodings). */
static void put_attributes(gostx__der_w *w, const job *j) {
  uint8_t a[NAME_MAX_UTF16 + 32], b[64];
  size_t an = j->name_len ? put_attribute(a, sizeof a, GOSTX__P12_OID_FRIENDLY_NAME, 0x1e,
                                          j->name, j->name_len)
                          : 0;
  size_t bn = put_attribute(b, sizeof b, GOSTX__P12_OID_LOCAL_KEY_ID, GOSTX__DER_OCTETS, j->key_id,
                            sizeof j->key_id);
  /* the two differ within their first 13 bytes (SEQUENCE header, the
   * OIDs' last arc), so only those decide: never the key id's bytes */
  int a_first = an && memcmp(a, b, 13) < 0;
  gostx__der_w_begin(w, GOSTX__DER_SET);
  if (a_first) gostx__der_w_raw(w, a, an);
  gostx__der_w_raw(w, b, bn);
  if (an && !a_first) gostx__der_w_raw(w, a, an);
  gostx__der_w_end(w);
}

/* SafeContents of the certificates: the first (the key's) with attributes. */
static void fill_certs(gostx__der_w *w, const job *j) {
  gostx__der_w_begin(w, GOSTX__DER_SEQ);
  for (size_t i = 0; i < j->ncerts; i++) {
    gostx__der_w_begin(w, GOSTX__DER_SEQ);
    gostx__der_w_oid(w, GOSTX__P12_OID_CERT_BAG);
    gostx__der_w_begin(w, GOSTX__DER_CTXC(0));
    gostx__der_w_begin(w, GOSTX__DER_SEQ);
    gostx__der_w_oid(w, GOSTX__P12_OID_X509_CERT);
    gostx__der_w_begin(w, GOSTX__DER_CTXC(0));
    gostx__der_w_tlv(w, GOSTX__DER_OCTETS, j->certs[i], j->cert_lens[i]);
    gostx__der_w_end(w);
    gostx__der_w_end(w);
    gostx__der_w_end(w);
    if (i == 0) put_attributes(w, j);
    gostx__der_w_end(w);
  }
  gostx__der_w_end(w);
}

/* SafeContents of the key: one shrouded key bag (key_ct: its ciphertext). */
static void fill_key(gostx__der_w *w, const job *j) {
  gostx__der_w_begin(w, GOSTX__DER_SEQ);
  gostx__der_w_begin(w, GOSTX__DER_SEQ);
  gostx__der_w_oid(w, GOSTX__P12_OID_SHROUDED_KEY_BAG);
  gostx__der_w_begin(w, GOSTX__DER_CTXC(0));
  gostx__der_w_begin(w, GOSTX__DER_SEQ); /* EncryptedPrivateKeyInfo */
  gostx__pbes2_put(w, &j->key_pbe);
  gostx__der_w_tlv(w, GOSTX__DER_OCTETS, j->key_ct, j->key_ct_len);
  gostx__der_w_end(w);
  gostx__der_w_end(w);
  put_attributes(w, j);
  gostx__der_w_end(w);
  gostx__der_w_end(w);
}

/* ContentInfo { data, [0] OCTET STRING content }. */
static void put_data(gostx__der_w *w, const uint8_t *content, size_t len) {
  gostx__der_w_begin(w, GOSTX__DER_SEQ);
  gostx__der_w_oid(w, GOSTX__P12_OID_DATA);
  gostx__der_w_begin(w, GOSTX__DER_CTXC(0));
  gostx__der_w_tlv(w, GOSTX__DER_OCTETS, content, len);
  gostx__der_w_end(w);
  gostx__der_w_end(w);
}

/* AuthenticatedSafe: the certificates (encrypted or not), then the key. */
static void fill_authenticated_safe(gostx__der_w *w, const job *j) {
  gostx__der_w_begin(w, GOSTX__DER_SEQ);
  if (j->ncerts && j->certs_encrypted) {
    gostx__der_w_begin(w, GOSTX__DER_SEQ);
    gostx__der_w_oid(w, GOSTX__P12_OID_ENCRYPTED_DATA);
    gostx__der_w_begin(w, GOSTX__DER_CTXC(0));
    gostx__der_w_begin(w, GOSTX__DER_SEQ);
    gostx__der_w_u32(w, 0);
    gostx__der_w_begin(w, GOSTX__DER_SEQ); /* EncryptedContentInfo */
    gostx__der_w_oid(w, GOSTX__P12_OID_DATA);
    gostx__pbes2_put(w, &j->cert_pbe);
    gostx__der_w_tlv(w, GOSTX__DER_CTX(0), j->certs_sc, j->certs_sc_len);
    gostx__der_w_end(w);
    gostx__der_w_end(w);
    gostx__der_w_end(w);
    gostx__der_w_end(w);
  } else if (j->ncerts) {
    put_data(w, j->certs_sc, j->certs_sc_len);
  }
  put_data(w, j->key_sc, j->key_sc_len);
  gostx__der_w_end(w);
}

static void fill_pfx(gostx__der_w *w, const job *j) {
  gostx__der_w_begin(w, GOSTX__DER_SEQ);
  gostx__der_w_u32(w, 3);
  put_data(w, j->as, j->as_len);
  gostx__der_w_begin(w, GOSTX__DER_SEQ); /* MacData */
  gostx__der_w_begin(w, GOSTX__DER_SEQ);
  gostx__der_w_begin(w, GOSTX__DER_SEQ);
  gostx__der_w_oid(w, GOSTX__P12_OID_STREEBOG512);
  gostx__der_w_tlv(w, GOSTX__DER_NULL, NULL, 0);
  gostx__der_w_end(w);
  gostx__der_w_tlv(w, GOSTX__DER_OCTETS, j->mac, sizeof j->mac);
  gostx__der_w_end(w);
  gostx__der_w_tlv(w, GOSTX__DER_OCTETS, j->mac_salt, sizeof j->mac_salt);
  gostx__der_w_u32(w, j->iterations);
  gostx__der_w_end(w);
  gostx__der_w_end(w);
}

/* The PBES2 cipher of pbe; 0 for none (NONE, or no such value). */
static int pbes2_cipher(gostx_pkcs12_pbe pbe) {
  switch (pbe) {
    case GOSTX_PKCS12_PBE_GOST89: return GOSTX__PBES2_GOST89;
    case GOSTX_PKCS12_PBE_KUZNYECHIK: return GOSTX__PBES2_KUZNYECHIK;
    case GOSTX_PKCS12_PBE_MAGMA: return GOSTX__PBES2_MAGMA;
    case GOSTX_PKCS12_PBE_KUZNYECHIK_OMAC: return GOSTX__PBES2_KUZNYECHIK_OMAC;
    case GOSTX_PKCS12_PBE_MAGMA_OMAC: return GOSTX__PBES2_MAGMA_OMAC;
    default: return 0;
  }
}

/* The arguments checked: a GOST private key whose public key is certs[0]'s
 * subject key; localKeyId and friendlyName made. */
static int check_inputs(job *j, const gostx_pkcs12_params *params) {
  if (!pbes2_cipher(params->key_pbe) ||
      (!pbes2_cipher(params->cert_pbe) && params->cert_pbe != GOSTX_PKCS12_PBE_NONE) ||
      params->iterations == 0 || params->iterations > GOSTX__PBES2_ITER_MAX)
    return GOSTX_EINVAL;
  if (j->k->ops) return GOSTX_EUNSUP; /* an external key: d stays on its token */
  /* the key bag holds the key's PrivateKeyInfo under the OID it came with */
  if (!j->k->has_private || gostx_gost3410_key_write(j->k, GOSTX_GOST3410_KEY_PRIVATE,
                                                     GOSTX_GOST3410_DER, NULL, j->key,
                                                     sizeof j->key, &j->key_len))
    return GOSTX_EINVAL;
  const uint8_t *q = j->k->q;
  size_t len = j->k->len;
  for (size_t i = j->ncerts; i-- > 0;) { /* every one a certificate the reader takes */
    gostx_x509_cert c;
    if (gostx_x509_parse(j->certs[i], j->cert_lens[i], &c, NULL) ||
        (i == 0 && (c.pub_len != 2 * len || memcmp(c.pub, q, c.pub_len))))
      return GOSTX_EINVAL;
  }
  int rc = j->ncerts ? gostx_streebog(32, j->certs[0], j->cert_lens[0], j->key_id)
                     : gostx_streebog(32, q, 2 * len, j->key_id);
  if (!rc && params->name) rc = utf8_to_bmp(params->name, j->name, sizeof j->name, &j->name_len);
  return rc;
}

/* The certificates' SafeContents encrypted in place, grown by the tag. */
static int encrypt_certs(job *j, const uint8_t *pass, size_t pass_len, int counting) {
  size_t tag = gostx__pbes2_tag_len(&j->cert_pbe);
  uint8_t *grown = realloc(j->certs_sc, j->certs_sc_len + tag);
  if (!grown) return GOSTX_ENOMEM;
  j->certs_sc = grown;
  int rc = counting ? 0
                    : gostx__pbes2_crypt(&j->cert_pbe, pass, pass_len, 0, j->certs_sc,
                                         j->certs_sc_len, j->certs_sc);
  j->certs_sc_len += tag;
  return rc;
}

/* The parts in order, encrypted and MACed unless only counting. */
static int make_parts(job *j, const gostx_pkcs12_params *params, const uint8_t *pass,
                      size_t pass_len, int counting) {
  int rc = gostx__pbes2_new(&j->key_pbe, pbes2_cipher(params->key_pbe), j->iterations,
                            j->key_salt, j->key_ukm);
  if (!rc && j->certs_encrypted)
    rc = gostx__pbes2_new(&j->cert_pbe, pbes2_cipher(params->cert_pbe), j->iterations,
                          j->cert_salt, j->cert_ukm);
  if (!rc) rc = gostx_random_bytes(j->mac_salt, sizeof j->mac_salt);
  size_t key_tag = gostx__pbes2_tag_len(&j->key_pbe);
  if (!rc && !(j->key_ct = malloc(j->key_len + key_tag))) rc = GOSTX_ENOMEM;
  if (rc) return rc;
  memcpy(j->key_ct, j->key, j->key_len);
  j->key_ct_len = j->key_len + key_tag;
  if (!counting) rc = gostx__pbes2_crypt(&j->key_pbe, pass, pass_len, 0, j->key_ct, j->key_len, j->key_ct);
  if (!rc && j->ncerts) rc = build(fill_certs, j, &j->certs_sc, &j->certs_sc_len);
  if (!rc && j->ncerts && j->certs_encrypted) rc = encrypt_certs(j, pass, pass_len, counting);
  if (!rc) rc = build(fill_key, j, &j->key_sc, &j->key_sc_len);
  if (!rc) rc = build(fill_authenticated_safe, j, &j->as, &j->as_len);
  if (!rc && !counting)
    rc = gostx__pkcs12_mac(pass, pass_len, j->mac_salt, sizeof j->mac_salt, j->iterations, j->as,
                           j->as_len, j->mac);
  return rc;
}

static void free_parts(job *j) {
  if (j->key_ct) gostx_memzero(j->key_ct, j->key_ct_len);
  free(j->key_ct);
  free(j->certs_sc);
  free(j->key_sc);
  free(j->as);
  gostx_memzero(j, sizeof *j);
}

int gostx_pkcs12_write(const gostx_gost3410_key *key, const uint8_t *const *certs,
                       const size_t *cert_lens, size_t ncerts, const gostx_pkcs12_params *params,
                       uint8_t *out, size_t cap, size_t *out_len) {
  if (!key || !params || !out_len || (!params->pass && params->pass_len) ||
      (ncerts && (!certs || !cert_lens)))
    return GOSTX_EINVAL;
  const uint8_t *pass = params->pass;
  size_t pass_len = params->pass_len;
  job j;
  memset(&j, 0, sizeof j);
  j.k = key, j.certs = certs, j.cert_lens = cert_lens, j.ncerts = ncerts;
  j.iterations = params->iterations;
  j.certs_encrypted = params->cert_pbe != GOSTX_PKCS12_PBE_NONE;
  int rc = check_inputs(&j, params);
  if (!rc) rc = make_parts(&j, params, pass, pass_len, out == NULL);
  if (!rc) {
    gostx__der_w w;
    gostx__der_w_init(&w, out, out ? cap : 0);
    fill_pfx(&w, &j);
    rc = gostx__der_w_finish(&w, out_len);
    if (!out && rc == GOSTX_ELEN) rc = 0; /* only counting */
  }
  free_parts(&j);
  return rc;
}
