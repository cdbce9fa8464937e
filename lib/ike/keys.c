/* PRF_HMAC_STREEBOG_512 (RFC 9385 section 5) and what IKEv2 builds on it:
 * prf+ (RFC 7296 2.13), SKEYSEED and SK_* (2.14, 2.18), KEYMAT (2.17) and
 * the shared-key AUTH (2.15). The keys are secrets: HMAC-Streebog has no
 * key-dependent branch or index, and AUTH is compared in constant time, its
 * verdict out through gostx__verdict (tests/ct/ct_check.c's ike group). */
#include <string.h>

#include "ike.h"

static const char key_pad[] = "Key Pad for IKEv2"; /* 17 octets, no NUL (2.15) */

int gostx__ike_prf(const uint8_t *key, size_t key_len, const uint8_t *a, size_t a_len,
                   const uint8_t *b, size_t b_len, uint8_t out[GOSTX_IKE_PRF_LEN]) {
  gostx_hmac_ctx h;
  int rc = gostx_hmac_init(&h, GOSTX_IKE_PRF_LEN, key, key_len);
  if (rc == GOSTX_OK) rc = gostx_hmac_update(&h, a, a_len);
  if (rc == GOSTX_OK && b_len) rc = gostx_hmac_update(&h, b, b_len);
  if (rc == GOSTX_OK) rc = gostx_hmac_final(&h, out);
  gostx_hmac_clear(&h);
  return rc;
}

/* T1 = prf(K, S | 0x01), Tn = prf(K, Tn-1 | S | n); out = T1 | T2 | ... */
int gostx__ike_prf_plus(const uint8_t *key, size_t key_len, const uint8_t *seed, size_t seed_len,
                        uint8_t *out, size_t out_len) {
  if (!key || (!seed && seed_len) || (!out && out_len)) return GOSTX_EINVAL;
  if (out_len > 255 * GOSTX_IKE_PRF_LEN) return GOSTX_ELEN;
  uint8_t t[GOSTX_IKE_PRF_LEN];
  int rc = GOSTX_OK;
  for (size_t n = 1, done = 0; done < out_len && rc == GOSTX_OK; n++) {
    const uint8_t counter = (uint8_t)n;
    gostx_hmac_ctx h;
    rc = gostx_hmac_init(&h, GOSTX_IKE_PRF_LEN, key, key_len);
    if (rc == GOSTX_OK && n > 1) rc = gostx_hmac_update(&h, t, sizeof t);
    if (rc == GOSTX_OK && seed_len) rc = gostx_hmac_update(&h, seed, seed_len);
    if (rc == GOSTX_OK) rc = gostx_hmac_update(&h, &counter, 1);
    if (rc == GOSTX_OK) rc = gostx_hmac_final(&h, t);
    gostx_hmac_clear(&h);
    const size_t take = out_len - done < sizeof t ? out_len - done : sizeof t;
    if (rc == GOSTX_OK) memcpy(out + done, t, take);
    done += take;
  }
  gostx_memzero(t, sizeof t);
  return rc;
}

size_t gostx__ike_encr_key_len(uint16_t encr_id) {
  /* RFC 9227 4.4: a 256-bit root key and the salt (96 or 32 bits) */
  return encr_id == GOSTX_IKE_ENCR_KUZNYECHIK_MGM_KTREE ? 44
         : encr_id == GOSTX_IKE_ENCR_MAGMA_MGM_KTREE    ? 36
                                                         : 0;
}

int gostx__ike_skeyseed(const uint8_t *sk_d_old, const uint8_t *ni, size_t ni_len,
                        const uint8_t *nr, size_t nr_len, const uint8_t *gir, size_t gir_len,
                        uint8_t out[GOSTX_IKE_PRF_LEN]) {
  if (!ni || !nr || !gir || !out || ni_len + nr_len > 512) return GOSTX_EINVAL;
  uint8_t nonces[512];
  memcpy(nonces, ni, ni_len);
  memcpy(nonces + ni_len, nr, nr_len);
  int rc;
  if (sk_d_old) /* 2.18: prf(SK_d (old), g^ir (new) | Ni | Nr) */
    rc = gostx__ike_prf(sk_d_old, GOSTX_IKE_PRF_LEN, gir, gir_len, nonces, ni_len + nr_len, out);
  else /* 2.14: prf(Ni | Nr, g^ir) */
    rc = gostx__ike_prf(nonces, ni_len + nr_len, gir, gir_len, NULL, 0, out);
  return rc;
}

int gostx__ike_sa_keys(const uint8_t skeyseed[GOSTX_IKE_PRF_LEN], uint16_t encr_id,
                       const uint8_t *ni, size_t ni_len, const uint8_t *nr, size_t nr_len,
                       const uint8_t spi_i[8], const uint8_t spi_r[8], gostx_ike_keys *k) {
  const size_t e = gostx__ike_encr_key_len(encr_id);
  if (!skeyseed || !ni || !nr || !spi_i || !spi_r || !k || !e || ni_len + nr_len > 512)
    return GOSTX_EINVAL;
  uint8_t seed[512 + 16], km[3 * GOSTX_IKE_PRF_LEN + 2 * 44];
  memcpy(seed, ni, ni_len);
  memcpy(seed + ni_len, nr, nr_len);
  memcpy(seed + ni_len + nr_len, spi_i, 8);
  memcpy(seed + ni_len + nr_len + 8, spi_r, 8);
  const size_t need = 3 * GOSTX_IKE_PRF_LEN + 2 * e; /* SK_ai, SK_ar: none (RFC 9227 4.4) */
  int rc = gostx__ike_prf_plus(skeyseed, GOSTX_IKE_PRF_LEN, seed, ni_len + nr_len + 16, km, need);
  if (rc == GOSTX_OK) {
    memset(k, 0, sizeof *k);
    const uint8_t *p = km;
    memcpy(k->sk_d, p, GOSTX_IKE_PRF_LEN);
    memcpy(k->sk_ei, p += GOSTX_IKE_PRF_LEN, e);
    memcpy(k->sk_er, p += e, e);
    memcpy(k->sk_pi, p += e, GOSTX_IKE_PRF_LEN);
    memcpy(k->sk_pr, p + GOSTX_IKE_PRF_LEN, GOSTX_IKE_PRF_LEN);
    k->enc_len = e;
  }
  gostx_memzero(km, sizeof km);
  return rc;
}

int gostx__ike_keymat(const uint8_t sk_d[GOSTX_IKE_PRF_LEN], const uint8_t *gir, size_t gir_len,
                      const uint8_t *ni, size_t ni_len, const uint8_t *nr, size_t nr_len,
                      uint8_t *out, size_t out_len) {
  if (!sk_d || !ni || !nr || (!gir && gir_len) || gir_len + ni_len + nr_len > 640)
    return GOSTX_EINVAL;
  uint8_t seed[640];
  if (gir_len) memcpy(seed, gir, gir_len);
  memcpy(seed + gir_len, ni, ni_len);
  memcpy(seed + gir_len + ni_len, nr, nr_len);
  int rc = gostx__ike_prf_plus(sk_d, GOSTX_IKE_PRF_LEN, seed, gir_len + ni_len + nr_len, out,
                               out_len);
  gostx_memzero(seed, sizeof seed); /* g^ir is secret */
  return rc;
}

int gostx__ike_id_mac(const uint8_t sk_p[GOSTX_IKE_PRF_LEN], const uint8_t *id_body, size_t len,
                      uint8_t out[GOSTX_IKE_PRF_LEN]) {
  if (!sk_p || !id_body || !out) return GOSTX_EINVAL;
  return gostx__ike_prf(sk_p, GOSTX_IKE_PRF_LEN, id_body, len, NULL, 0, out);
}

int gostx__ike_auth_psk(const uint8_t *psk, size_t psk_len, const uint8_t *msg, size_t msg_len,
                        const uint8_t *nonce, size_t nonce_len,
                        const uint8_t id_mac[GOSTX_IKE_PRF_LEN], uint8_t out[GOSTX_IKE_PRF_LEN]) {
  if (!psk || !psk_len || !msg || !nonce || !id_mac || !out) return GOSTX_EINVAL;
  uint8_t pad_key[GOSTX_IKE_PRF_LEN];
  int rc = gostx__ike_prf(psk, psk_len, (const uint8_t *)key_pad, sizeof key_pad - 1, NULL, 0,
                          pad_key);
  gostx_hmac_ctx h;
  if (rc == GOSTX_OK) rc = gostx_hmac_init(&h, GOSTX_IKE_PRF_LEN, pad_key, sizeof pad_key);
  if (rc == GOSTX_OK) {
    rc = gostx_hmac_update(&h, msg, msg_len);
    if (rc == GOSTX_OK) rc = gostx_hmac_update(&h, nonce, nonce_len);
    if (rc == GOSTX_OK) rc = gostx_hmac_update(&h, id_mac, GOSTX_IKE_PRF_LEN);
    if (rc == GOSTX_OK) rc = gostx_hmac_final(&h, out);
    gostx_hmac_clear(&h);
  }
  gostx_memzero(pad_key, sizeof pad_key);
  return rc;
}

int gostx__ike_auth_psk_check(const uint8_t *psk, size_t psk_len, const uint8_t *msg,
                              size_t msg_len, const uint8_t *nonce, size_t nonce_len,
                              const uint8_t id_mac[GOSTX_IKE_PRF_LEN], const uint8_t *auth,
                              size_t auth_len) {
  uint8_t want[GOSTX_IKE_PRF_LEN];
  int rc = gostx__ike_auth_psk(psk, psk_len, msg, msg_len, nonce, nonce_len, id_mac, want);
  if (rc == GOSTX_OK) { /* the length is public; the compare's result only through the verdict */
    const int differ =
        auth && auth_len == sizeof want ? gostx_memeq_ct(want, auth, sizeof want) : -1;
    rc = gostx__verdict(differ & GOSTX_EAUTH);
  }
  gostx_memzero(want, sizeof want);
  return rc;
}
