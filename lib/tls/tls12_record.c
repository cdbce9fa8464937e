/* TLS 1.2 record protection with the RFC 9189 suites (section 4.1):
 * GenericStreamCipher, MAC-then-encrypt.
 *   CTR_OMAC: K_ENC = TLSTREE(write_key, seq), K_MAC = TLSTREE(MAC key,
 *     seq), IV = write_IV + seq mod 2^(4n); MAC = OMAC(K_MAC, STR_8(seq) |
 *     type | version | length | fragment); fragment | MAC encrypted with
 *     CTR-ACPKM (section N of 4 KB or 1 KB).
 *   CNT_IMIT: one IMIT (zero IV, CryptoPro key meshing) over the same input
 *     of every record so far, its 4 bytes taken after each record; one CNT
 *     keystream (key meshing) over every record's fragment | MAC.
 * Opening decrypts into the caller's buffer, checks the MAC in constant
 * time and wipes what it wrote when the MAC is wrong; CNT_IMIT's streams
 * move on only after a record verifies. No allocation. */
#include "rec.h"

int gostx__tls12_record_init(gostx__tls12_record *r, unsigned suite_id,
                             const uint8_t mac_key[GOSTX__TLS_KEY_LEN],
                             const uint8_t key[GOSTX__TLS_KEY_LEN], const uint8_t *iv) {
  if (!r || !mac_key || !key || !iv) return GOSTX_EINVAL;
  const gostx__tls12_suite *s = gostx__tls12_suite_by_id(suite_id);
  if (!s) return GOSTX_EINVAL;
  memset(r, 0, sizeof *r);
  r->suite = s;
  memcpy(r->mac_key, mac_key, GOSTX__TLS_KEY_LEN);
  memcpy(r->key, key, GOSTX__TLS_KEY_LEN);
  memcpy(r->iv, iv, s->iv_len);
  if (s->tree) return GOSTX_OK;
  gostx_gost89_key k;
  int rc = gostx_gost89_set_key(&k, key, GOSTX_SBOX_TC26_Z);
  if (rc == GOSTX_OK) rc = gostx_gost89_init(&r->cnt, &k, GOSTX_GOST89_CNT, 0, iv, 1);
  if (rc == GOSTX_OK) rc = gostx_gost89_set_key(&k, mac_key, GOSTX_SBOX_TC26_Z);
  if (rc == GOSTX_OK) rc = gostx_gost89_imit_init(&r->imit, &k, NULL, 1);
  gostx_memzero(&k, sizeof k);
  if (rc != GOSTX_OK) gostx__tls12_record_clear(r);
  return rc;
}

void gostx__tls12_record_clear(gostx__tls12_record *r) {
  if (r) gostx_memzero(r, sizeof *r);
}

size_t gostx__tls12_sealed_len(const gostx__tls12_record *r, size_t len) {
  return GOSTX__TLS_HDR_LEN + len + (r && r->suite ? r->suite->mac_len : 16);
}

/* The MAC's input before the fragment: STR_8(seq) | type | 3 3 | length. */
static void mac_prefix(uint8_t p[13], uint64_t seq, uint8_t type, size_t len) {
  gostx_store64_be(p, seq);
  p[8] = type;
  p[9] = 3;
  p[10] = 3;
  p[11] = (uint8_t)(len >> 8);
  p[12] = (uint8_t)len;
}

/* CTR_OMAC's record keys for seq: derived again only when seq & C3 moves
 * (every 64 records for Kuznyechik, 4096 for Magma; seq is public). */
static int tree_keys(gostx__tls12_record *r, uint64_t seq) {
  const gostx__tls12_suite *s = r->suite;
  if (r->have && r->masked == (seq & s->c3)) return GOSTX_OK;
  r->have = 0;
  uint8_t k[GOSTX__TLS_KEY_LEN];
  int rc = gostx__tls_tree(r->key, seq, s->c1, s->c2, s->c3, NULL, NULL, k);
  if (rc == GOSTX_OK) rc = gostx_cipher_init(&r->enc, s->alg, k);
  if (rc == GOSTX_OK) rc = gostx__tls_tree(r->mac_key, seq, s->c1, s->c2, s->c3, NULL, NULL, k);
  if (rc == GOSTX_OK) rc = gostx_cipher_init(&r->mac, s->alg, k);
  gostx_memzero(k, sizeof k);
  if (rc == GOSTX_OK) {
    r->have = 1;
    r->masked = seq & s->c3;
  }
  return rc;
}

/* OMAC(K_MAC, prefix | data), n bytes. */
static int omac_record(const gostx__tls12_record *r, const uint8_t prefix[13],
                       const uint8_t *data, size_t len, uint8_t *mac) {
  gostx_omac_ctx o;
  int rc = gostx_omac_init(&o, &r->mac);
  if (rc == GOSTX_OK) rc = gostx_omac_update(&o, prefix, 13);
  if (rc == GOSTX_OK && len) rc = gostx_omac_update(&o, data, len);
  if (rc == GOSTX_OK) rc = gostx_omac_final(&o, mac, r->suite->mac_len);
  gostx_omac_clear(&o);
  return rc;
}

/* CTR-ACPKM under K_ENC from IV_seq over (in, len) then (mac_in, n), into
 * out and mac_out: the fragment and its MAC are one keystream. */
static int ctr_record(const gostx__tls12_record *r, uint64_t seq, const uint8_t *in, size_t len,
                      uint8_t *out, const uint8_t *mac_in, uint8_t *mac_out) {
  const gostx__tls12_suite *s = r->suite;
  uint8_t iv[GOSTX__TLS12_MAX_IV_LEN];
  uint64_t v = 0;
  for (size_t i = 0; i < s->iv_len; i++) v = v << 8 | r->iv[i];
  v += seq; /* mod 2^(8 iv_len): the bytes kept below */
  for (size_t i = 0; i < s->iv_len; i++) iv[s->iv_len - 1 - i] = (uint8_t)(v >> (8 * i));
  gostx_mode_ctx m;
  size_t done;
  int rc = gostx_mode_init(&m, &r->enc, GOSTX_MODE_CTR_ACPKM, 0, iv, s->iv_len, 0,
                           GOSTX_PAD_NONE, s->section_len);
  if (rc == GOSTX_OK && len) rc = gostx_mode_update(&m, in, len, out, &done);
  if (rc == GOSTX_OK) rc = gostx_mode_update(&m, mac_in, s->mac_len, mac_out, &done);
  gostx_mode_clear(&m);
  return rc;
}

static int check_seq(const gostx__tls12_record *r) {
  return r->spent || r->seq > r->suite->snmax ? GOSTX_ESTATE : GOSTX_OK;
}

static void record_done(gostx__tls12_record *r) {
  if (r->seq == r->suite->snmax)
    r->spent = 1; /* the last record these keys may protect */
  else
    r->seq++;
}

int gostx__tls12_record_seal(gostx__tls12_record *r, uint8_t type, const uint8_t *in, size_t len,
                             uint8_t *out, size_t cap, size_t *out_len) {
  if (!r || !r->suite || !out || !out_len || (!in && len) || type == 0) return GOSTX_EINVAL;
  if (len > GOSTX__TLS12_MAX_PLAINTEXT) return GOSTX_ELEN;
  const gostx__tls12_suite *s = r->suite;
  size_t total = GOSTX__TLS_HDR_LEN + len + s->mac_len;
  if (cap < total) return GOSTX_EINVAL;
  int rc = check_seq(r);
  if (rc != GOSTX_OK) return rc;
  uint8_t prefix[13], mac[GOSTX__TLS12_MAX_MAC_LEN];
  uint8_t *body = out + GOSTX__TLS_HDR_LEN;
  if (len) memmove(body, in, len);
  mac_prefix(prefix, r->seq, type, len);
  if (s->tree) {
    rc = tree_keys(r, r->seq);
    if (rc == GOSTX_OK) rc = omac_record(r, prefix, body, len, mac);
    if (rc == GOSTX_OK) rc = ctr_record(r, r->seq, body, len, body, mac, body + len);
  } else {
    gostx_gost89_ctx fin;
    rc = gostx_gost89_imit_update(&r->imit, prefix, sizeof prefix);
    if (rc == GOSTX_OK && len) rc = gostx_gost89_imit_update(&r->imit, body, len);
    fin = r->imit; /* the MAC so far; the running state goes on */
    if (rc == GOSTX_OK) rc = gostx_gost89_imit_final(&fin, mac, s->mac_len);
    gostx_gost89_ctx_clear(&fin);
    if (rc == GOSTX_OK && len) rc = gostx_gost89_update(&r->cnt, body, len, body);
    if (rc == GOSTX_OK) rc = gostx_gost89_update(&r->cnt, mac, s->mac_len, body + len);
  }
  gostx_memzero(mac, sizeof mac);
  if (rc != GOSTX_OK) {
    gostx_memzero(out, total);
    return rc;
  }
  /* The header as sent: type, version, and the fragment's length with its MAC. */
  memcpy(out, prefix + 8, 3);
  out[3] = (uint8_t)((len + s->mac_len) >> 8);
  out[4] = (uint8_t)(len + s->mac_len);
  record_done(r);
  *out_len = total;
  return GOSTX_OK;
}

int gostx__tls12_record_open(gostx__tls12_record *r, const uint8_t *rec, size_t rec_len,
                             uint8_t *out, size_t cap, size_t *out_len, uint8_t *type) {
  if (!r || !r->suite || !rec || !out || !out_len || !type) return GOSTX_EINVAL;
  const gostx__tls12_suite *s = r->suite;
  if (rec_len < GOSTX__TLS_HDR_LEN || rec[0] == 0 || rec[1] != 0x03 || rec[2] != 0x03)
    return GOSTX_EFORMAT;
  size_t frag = (size_t)rec[3] << 8 | rec[4];
  if (frag != rec_len - GOSTX__TLS_HDR_LEN || frag < s->mac_len) return GOSTX_EFORMAT;
  size_t len = frag - s->mac_len;
  if (len > GOSTX__TLS12_MAX_PLAINTEXT) return GOSTX_ELEN;
  if (cap < len) return GOSTX_EINVAL;
  int rc = check_seq(r);
  if (rc != GOSTX_OK) return rc;
  const uint8_t *body = rec + GOSTX__TLS_HDR_LEN;
  uint8_t prefix[13], got[GOSTX__TLS12_MAX_MAC_LEN], want[GOSTX__TLS12_MAX_MAC_LEN];
  mac_prefix(prefix, r->seq, rec[0], len);
  /* CNT_IMIT works on copies: they replace the streams once the MAC holds. */
  gostx_gost89_ctx cnt, imit, fin;
  if (s->tree) {
    rc = tree_keys(r, r->seq);
    if (rc == GOSTX_OK) rc = ctr_record(r, r->seq, body, len, out, body + len, got);
    if (rc == GOSTX_OK) rc = omac_record(r, prefix, out, len, want);
  } else {
    cnt = r->cnt;
    imit = r->imit;
    rc = gostx_gost89_update(&cnt, body, len, out);
    if (rc == GOSTX_OK) rc = gostx_gost89_update(&cnt, body + len, s->mac_len, got);
    if (rc == GOSTX_OK) rc = gostx_gost89_imit_update(&imit, prefix, sizeof prefix);
    if (rc == GOSTX_OK && len) rc = gostx_gost89_imit_update(&imit, out, len);
    fin = imit;
    if (rc == GOSTX_OK) rc = gostx_gost89_imit_final(&fin, want, s->mac_len);
  }
  /* memeq_ct: 0 or -1, so the mask picks EAUTH without a branch. */
  if (rc == GOSTX_OK) rc = gostx__verdict(gostx_memeq_ct(got, want, s->mac_len) & GOSTX_EAUTH);
  if (rc == GOSTX_OK && !s->tree) {
    r->cnt = cnt;
    r->imit = imit;
  }
  if (!s->tree) {
    gostx_gost89_ctx_clear(&cnt);
    gostx_gost89_ctx_clear(&imit);
    gostx_gost89_ctx_clear(&fin);
  }
  gostx_memzero(got, sizeof got);
  gostx_memzero(want, sizeof want);
  if (rc != GOSTX_OK) {
    gostx_memzero(out, len);
    return rc;
  }
  record_done(r);
  *type = rec[0];
  *out_len = len;
  return GOSTX_OK;
}

/* ---- the TLS 1.2 instance of the record interface (rec.h) ---- */

static int seal12(gostx__tls_rec_state *s, uint8_t type, const uint8_t *in, size_t len,
                  uint8_t *out, size_t cap, size_t *got) {
  return gostx__tls12_record_seal(&s->r12, type, in, len, out, cap, got);
}

static int open12(gostx__tls_rec_state *s, const uint8_t *rec, size_t rec_len, uint8_t *out,
                  size_t cap, size_t *got, uint8_t *type) {
  return gostx__tls12_record_open(&s->r12, rec, rec_len, out, cap, got, type);
}

static size_t sealed_len12(const gostx__tls_rec_state *s, size_t len) {
  return gostx__tls12_sealed_len(&s->r12, len);
}

static uint64_t key_limit12(const gostx__tls_rec_state *s) { return s->r12.suite->snmax; }

static int spent12(const gostx__tls_rec_state *s) { return s->r12.spent; }
static uint64_t seq12(const gostx__tls_rec_state *s) { return s->r12.seq; }
static void clear12(gostx__tls_rec_state *s) { gostx__tls12_record_clear(&s->r12); }

const gostx__tls_rec_class gostx__tls12_rec_class = {
    seal12, open12, sealed_len12, key_limit12, spent12, seq12, clear12, 0};
