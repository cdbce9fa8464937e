/* lib/ike against RFC 9385 Appendix A (tests/vectors/ike9385.json, read from
 * the RFC's text by tests/vectors/gen/ike9385-rfc): the printed private keys,
 * nonces, SPIs, PSK and IVs go in; every public key, shared key, SKEYSEED,
 * SK_*, key-tree node, AUTH, KEYMAT and every message comes out of lib/ike
 * and is compared with the RFC byte for byte, through both roles. The
 * messages are rebuilt through the payload readers and writers (each
 * payload parsed into its fields and written again), the AUTH payloads
 * carry the AUTH computed here, and the encrypted ones are sealed by
 * lib/ike and opened by the peer's keys. Then the codec's refusals. */
#include <stdlib.h>

#include "ike/engine.h"
#include "ike/engine_int.h"
#include "esp/ktree.h"
#include "testutil.h"

/* ---- the vectors ---- */

static json *sub_of(json *f, const char *id) {
  json *scs = json_get(f, "scenarios");
  for (size_t i = 0; i < json_len(scs); i++) {
    json *subs = json_get(json_at(scs, i), "subscenarios");
    for (size_t j = 0; j < json_len(subs); j++)
      if (!strcmp(tv_str(json_at(subs, j), "id"), id)) return json_at(subs, j);
  }
  fprintf(stderr, "no sub-scenario %s\n", id);
  exit(1);
}

/* Step n of sub, its title starting with what (so that a renumbered RFC
 * cannot pair a value with the wrong check). */
static json *step(json *sub, int n, const char *what) {
  json *st = json_at(json_get(sub, "steps"), (size_t)n - 1);
  const char *t = st ? tv_str(st, "what") : "";
  if (!st || strncmp(t, what, strlen(what))) {
    fprintf(stderr, "%s step %d: \"%s\", expected \"%s...\"\n", tv_str(sub, "id"), n, t, what);
    exit(1);
  }
  return st;
}

/* The bytes of dump i of step n (freed by the caller). */
static uint8_t *dump(json *sub, int n, const char *what, size_t i, size_t *len) {
  return tv_hex(json_at(json_get(step(sub, n, what), "dumps"), i), "hex", len);
}

/* All the dumps of step n joined: a whole message. */
static uint8_t *whole(json *sub, int n, const char *what, size_t *len) {
  json *ds = json_get(step(sub, n, what), "dumps");
  uint8_t *out = NULL;
  *len = 0;
  for (size_t i = 0; i < json_len(ds); i++) {
    size_t l;
    uint8_t *p = tv_hex(json_at(ds, i), "hex", &l);
    out = realloc(out, *len + l + 1);
    memcpy(out + *len, p, l);
    *len += l;
    free(p);
  }
  /* on port 4500 (A.2's forced UDP encapsulation) a message follows RFC
   * 3948's non-ESP marker: four zero octets, no part of the IKE message */
  json *text = json_get(step(sub, n, what), "text");
  const char *addr = json_len(text) ? json_str(json_at(text, 0)) : NULL;
  if (addr && strstr(addr, ":4500 ")) {
    CHECK(*len >= 4 && !memcmp(out, "\0\0\0\0", 4), "the non-ESP marker");
    memmove(out, out + 4, *len - 4);
    *len -= 4;
  }
  return out;
}

/* got (len) against dump 0 of step n. */
static void expect(json *sub, int n, const char *what, const uint8_t *got, size_t len) {
  size_t wl;
  uint8_t *want = dump(sub, n, what, 0, &wl);
  char name[160];
  snprintf(name, sizeof name, "%s (%d) %s", tv_str(sub, "id"), n, what);
  CHECK(wl == len, "%s: %zu bytes, RFC %zu", name, len, wl);
  if (wl == len) CHECK_BYTES(got, want, len, name);
  free(want);
}

/* RFC 9385 prints the ephemeral private keys little-endian (as A.2 says of
 * its signing keys); lib/gost3410 takes d big-endian. */
static void reverse(uint8_t *p, size_t n) {
  for (size_t i = 0; i < n / 2; i++) {
    uint8_t t = p[i];
    p[i] = p[n - 1 - i];
    p[n - 1 - i] = t;
  }
}

/* ---- rebuilding a chain through the typed readers and writers ---- */

/* Writes each payload of c again from its parsed fields; the AUTH data
 * replaced by auth when it is not NULL. */
static void rewrite(const gostx_ike_chain *c, gostx_ike_writer *w, const uint8_t *auth,
                    size_t auth_len) {
  for (size_t i = 0; i < c->n; i++) {
    const gostx_ike_payload *p = &c->p[i];
    const uint8_t *d;
    size_t dl;
    uint8_t octet;
    uint16_t group;
    int rc = GOSTX_OK;
    switch (p->type) {
    case GOSTX_IKE_PT_SA: {
      static gostx_ike_sa sa;
      if ((rc = gostx__ike_sa_read(p->body, p->len, &sa)) == GOSTX_OK) gostx__ike_w_sa(w, &sa);
      break;
    }
    case GOSTX_IKE_PT_KE:
      if ((rc = gostx__ike_ke_read(p->body, p->len, &group, &d, &dl)) == GOSTX_OK)
        gostx__ike_w_ke(w, group, d, dl);
      break;
    case GOSTX_IKE_PT_IDI:
    case GOSTX_IKE_PT_IDR:
      if ((rc = gostx__ike_id_read(p->body, p->len, &octet, &d, &dl)) == GOSTX_OK)
        gostx__ike_w_id(w, p->type, octet, d, dl);
      break;
    case GOSTX_IKE_PT_AUTH:
      if ((rc = gostx__ike_auth_read(p->body, p->len, &octet, &d, &dl)) == GOSTX_OK)
        gostx__ike_w_auth(w, octet, auth ? auth : d, auth ? auth_len : dl);
      break;
    case GOSTX_IKE_PT_CERT:
    case GOSTX_IKE_PT_CERTREQ:
      if ((rc = gostx__ike_cert_read(p->body, p->len, &octet, &d, &dl)) == GOSTX_OK)
        gostx__ike_w_cert(w, p->type, octet, d, dl);
      break;
    case GOSTX_IKE_PT_NOTIFY: {
      gostx_ike_notify n;
      if ((rc = gostx__ike_notify_read(p->body, p->len, &n)) == GOSTX_OK) gostx__ike_w_notify(w, &n);
      break;
    }
    case GOSTX_IKE_PT_DELETE: {
      gostx_ike_delete del;
      if ((rc = gostx__ike_delete_read(p->body, p->len, &del)) == GOSTX_OK)
        gostx__ike_w_delete(w, &del);
      break;
    }
    case GOSTX_IKE_PT_TSI:
    case GOSTX_IKE_PT_TSR: {
      static gostx_ike_ts_set ts;
      if ((rc = gostx__ike_ts_read(p->body, p->len, &ts)) == GOSTX_OK) gostx__ike_w_ts(w, p->type, &ts);
      break;
    }
    case GOSTX_IKE_PT_NONCE:
      rc = gostx__ike_nonce_read(p->body, p->len);
      gostx__ike_w_raw(w, p->type, p->body, p->len);
      break;
    default: /* CP, VID: bodies this increment does not interpret */
      gostx__ike_w_raw(w, p->type, p->body, p->len);
    }
    CHECK(rc == GOSTX_OK, "payload %u (#%zu) reads: rc %d", p->type, i, rc);
  }
}

/* ---- one side of the exchange ---- */

struct side {
  const char *name;
  uint8_t spi_i[8], spi_r[8];
  uint8_t ni[32], nr[32];
  uint8_t gir[64];
  size_t gir_len;
  uint16_t group, encr;
  gostx_ike_keys k;
};

static const uint8_t *psk_of(json *f, size_t *len) {
  static uint8_t psk[64];
  json *pre = json_get(json_at(json_get(f, "scenarios"), 0), "preamble");
  size_t l;
  uint8_t *p = tv_hex(json_at(json_get(json_at(pre, 0), "dumps"), 0), "hex", &l);
  CHECK(l == 32, "A.1's 256-bit PSK");
  memcpy(psk, p, l);
  free(p);
  *len = l;
  return psk;
}

/* The ephemeral key of step n_priv: its public value against step n_pub. */
static void ephemeral(json *sub, int n_priv, int n_pub, uint16_t group, uint8_t *d, size_t l) {
  size_t dl;
  uint8_t *p = dump(sub, n_priv, "Generates ephemeral private key", 0, &dl);
  CHECK(dl == l, "private key length");
  memcpy(d, p, l);
  reverse(d, l);
  free(p);
  uint8_t pub[128];
  CHECK_RC(gostx__ike_ke_public(group, d, l, pub, 2 * l), GOSTX_OK, "KE public key");
  expect(sub, n_pub, "Computes public key", pub, 2 * l);
}

/* Message n as printed, parsed; the KE data of its KE payload. */
static const uint8_t *ke_data_of(const gostx_ike_chain *c, uint16_t *group, size_t *len) {
  const gostx_ike_payload *ke = gostx__ike_find(c, GOSTX_IKE_PT_KE);
  const uint8_t *d = NULL;
  CHECK(ke && gostx__ike_ke_read(ke->body, ke->len, group, &d, len) == GOSTX_OK, "KE payload");
  return d;
}

/* IKE_SA_INIT message n: parsed, its nonce and KE taken, written again
 * byte for byte, the KE data the public key of d. */
static uint8_t *sa_init(json *sub, int n, uint8_t nonce[32], const uint8_t *pub, size_t pub_len,
                        size_t *len) {
  uint8_t *m = whole(sub, n, "Sends message", len);
  gostx_ike_hdr h;
  gostx_ike_chain c;
  CHECK_RC(gostx__ike_msg_read(m, *len, &h, &c, NULL), GOSTX_OK, "IKE_SA_INIT reads");
  CHECK(h.exchange == GOSTX_IKE_SA_INIT && h.msg_id == 0, "IKE_SA_INIT, message 0");
  const gostx_ike_payload *np = gostx__ike_find(&c, GOSTX_IKE_PT_NONCE);
  CHECK(np && np->len == 32, "a 32-octet nonce");
  if (np) memcpy(nonce, np->body, 32);
  uint16_t group;
  size_t kl;
  const uint8_t *kd = ke_data_of(&c, &group, &kl);
  CHECK(kd && kl == pub_len && !memcmp(kd, pub, pub_len), "the KE data is the public key");
  uint8_t out[1024];
  gostx_ike_writer w;
  gostx__ike_w_msg(&w, out, sizeof out, &h);
  rewrite(&c, &w, NULL, 0);
  size_t ol = 0;
  CHECK_RC(gostx__ike_w_finish(&w, &ol), GOSTX_OK, "IKE_SA_INIT written");
  CHECK(ol == *len && !memcmp(out, m, ol), "%s (%d): IKE_SA_INIT written again byte for byte",
        tv_str(sub, "id"), n);
  return m;
}

/* SKEYSEED and SK_* from g^ir, against steps first.. (SKEYSEED, SK_d, SK_ei,
 * SK_er, and SK_pi, SK_pr when with_p). */
static void sa_keys(json *sub, struct side *s, const uint8_t *sk_d_old, int first, int with_p) {
  uint8_t seed[64];
  CHECK_RC(gostx__ike_skeyseed(sk_d_old, s->ni, 32, s->nr, 32, s->gir, s->gir_len, seed),
           GOSTX_OK, "SKEYSEED");
  CHECK_RC(gostx__ike_sa_keys(seed, s->encr, s->ni, 32, s->nr, 32, s->spi_i, s->spi_r, &s->k),
           GOSTX_OK, "SK_*");
  expect(sub, first, "Computes SKEYSEED", seed, 64);
  expect(sub, first + 1, "Computes SK_d", s->k.sk_d, 64);
  expect(sub, first + 2, "Computes SK_ei", s->k.sk_ei, s->k.enc_len);
  expect(sub, first + 3, "Computes SK_er", s->k.sk_er, s->k.enc_len);
  if (with_p) {
    expect(sub, first + 4, "Computes SK_pi", s->k.sk_pi, 64);
    expect(sub, first + 5, "Computes SK_pr", s->k.sk_pr, 64);
  }
}

/* The key tree's nodes K1, K2, K3 at index 0 against steps n..n+2. */
static void tree(json *sub, int n, const uint8_t *sk_e, const char *k1) {
  uint8_t a[32], b[32], c[32];
  CHECK_RC(gostx__ktree_levels(sk_e, 0, a, b, c), GOSTX_OK, "key tree");
  char t[16];
  snprintf(t, sizeof t, "%s", k1);
  expect(sub, n, t, a, 32);
  t[10] = '2';
  expect(sub, n + 1, t, b, 32);
  t[10] = '3';
  expect(sub, n + 2, t, c, 32);
}

/* An encrypted message sent: the inside (step n_plain, less its Pad Length)
 * rebuilt through the codec with AUTH auth, sealed by lib/ike under sk_e
 * with the IV of step n_iv, against the message of step n_msg. */
static void seal(json *sub, int n_plain, int n_iv, int n_msg, const uint8_t *sk_e, size_t el,
                 uint16_t encr, const gostx_ike_hdr *h, const uint8_t *auth, size_t auth_len) {
  size_t pl, ml, ivl;
  uint8_t *plain = whole(sub, n_plain, "Composes plaintext", &pl);
  uint8_t *msg = whole(sub, n_msg, "Sends message", &ml);
  uint8_t *ivb = dump(sub, n_iv, "Composes IV", 0, &ivl);
  uint64_t iv = 0;
  for (size_t i = 0; i < ivl; i++) iv = iv << 8 | ivb[i];
  CHECK(pl >= 1 && plain[pl - 1] == 0, "Pad Length 0 (RFC 9227 4.6)");
  gostx_ike_chain c;
  CHECK_RC(gostx__ike_chain_read(msg[GOSTX_IKE_HDR_LEN], plain, pl - 1, &c, NULL), GOSTX_OK,
           "the inside reads");
  uint8_t inner[2048], out[2048];
  gostx_ike_writer w;
  gostx__ike_w_inner(&w, inner, sizeof inner);
  rewrite(&c, &w, auth, auth_len);
  CHECK(w.err == GOSTX_OK && w.len == pl - 1 && !memcmp(inner, plain, w.len),
        "%s (%d): the inside written again byte for byte", tv_str(sub, "id"), n_plain);
  gostx_ike_sk sk;
  CHECK_RC(gostx__ike_sk_init(&sk, encr, sk_e, el), GOSTX_OK, "SK init");
  size_t ol = 0;
  CHECK_RC(gostx__ike_sk_seal(&sk, iv, h, w.first, inner, w.len, out, sizeof out, &ol), GOSTX_OK,
           "seal");
  char name[64];
  snprintf(name, sizeof name, "%s (%d) the message sealed", tv_str(sub, "id"), n_msg);
  CHECK(ol == ml, "%s: %zu bytes, RFC %zu", name, ol, ml);
  if (ol == ml) CHECK_BYTES(out, msg, ml, name);
  uint8_t nonce[16];
  size_t nl = gostx__ktree_nonce(iv, sk.salt, sk.salt_len, nonce);
  expect(sub, n_plain - 2, "Composes MGM nonce", nonce, nl);
  expect(sub, n_plain - 1, "Composes AAD", out, 32);
  gostx__ike_sk_clear(&sk);
  free(plain);
  free(msg);
  free(ivb);
}

/* The message of step n_msg opened under sk_e: the inside against step
 * n_plain (less its Pad Length); the chain of the inside into c (whose
 * bodies point into plain_out). */
static void open_msg(json *sub, int n_msg, int n_plain, const uint8_t *sk_e, size_t el,
                     uint16_t encr, uint8_t *plain_out, gostx_ike_chain *c) {
  size_t ml, pl;
  uint8_t *msg = whole(sub, n_msg, "Sends message", &ml);
  uint8_t *want = whole(sub, n_plain, "Decrypts ciphertext", &pl);
  gostx_ike_sk sk;
  gostx_ike_hdr h;
  uint8_t first = 0;
  size_t got = 0;
  uint64_t iv;
  CHECK_RC(gostx__ike_sk_init(&sk, encr, sk_e, el), GOSTX_OK, "SK init");
  CHECK_RC(gostx__ike_sk_open(&sk, msg, ml, &h, &first, plain_out, 2048, &got, &iv), GOSTX_OK,
           "open");
  CHECK(got + 1 == pl && !memcmp(plain_out, want, got), "%s (%d): opened to the RFC's plaintext",
        tv_str(sub, "id"), n_plain);
  CHECK_RC(gostx__ike_chain_read(first, plain_out, got, c, NULL), GOSTX_OK, "the inside reads");
  /* one bit off in the ICV: refused */
  msg[ml - 1] ^= 1;
  CHECK_RC(gostx__ike_sk_open(&sk, msg, ml, &h, &first, plain_out + 1024, 1024, &got, &iv),
           GOSTX_EAUTH, "a forged ICV");
  gostx__ike_sk_clear(&sk);
  free(msg);
  free(want);
}

static void hdr_of(gostx_ike_hdr *h, const uint8_t spi_i[8], const uint8_t spi_r[8], uint8_t x,
                   uint8_t flags, uint32_t id) {
  memset(h, 0, sizeof *h);
  memcpy(h->spi_i, spi_i, 8);
  memcpy(h->spi_r, spi_r, 8);
  h->version = GOSTX_IKE_VERSION;
  h->exchange = x;
  h->flags = flags;
  h->msg_id = id;
}

static void copy_step(json *sub, int n, const char *what, uint8_t *out, size_t len) {
  size_t l;
  uint8_t *p = dump(sub, n, what, 0, &l);
  CHECK(l == len, "%s (%d): %zu bytes", tv_str(sub, "id"), n, len);
  memcpy(out, p, l < len ? l : len);
  free(p);
}

/* ---- A.1.1: IKE_SA_INIT and IKE_AUTH with a PSK ---- */

static struct side a1i, a1r; /* kept for A.1.2 */

/* The AUTH one side computes for its IKE_AUTH: prf(SK_p, ID) at step n,
 * prf(PSK, "Key Pad for IKEv2") at n + 2, AUTH at n + 3. */
static void psk_auth(json *sub, int n, const uint8_t *psk, size_t psk_len, const uint8_t *sk_p,
                     const uint8_t *id_body, size_t id_len, const uint8_t *msg, size_t msg_len,
                     const uint8_t *peer_nonce, uint8_t auth[64]) {
  uint8_t mac[64], pad[64];
  CHECK_RC(gostx__ike_id_mac(sk_p, id_body, id_len, mac), GOSTX_OK, "prf(SK_p, ID)");
  expect(sub, n, "Computes prf(SK_p", mac, 64);
  CHECK_RC(gostx__ike_prf(psk, psk_len, (const uint8_t *)"Key Pad for IKEv2", 17, NULL, 0, pad),
           GOSTX_OK, "key pad");
  expect(sub, n + 2, "Computes prf(PSK,\"Key Pad for IKEv2\")", pad, 64);
  CHECK_RC(gostx__ike_auth_psk(psk, psk_len, msg, msg_len, peer_nonce, 32, mac, auth), GOSTX_OK,
           "AUTH");
  expect(sub, n + 3, "Computes content of AUTH payload", auth, 64);
}

/* The receiver's check of the peer's AUTH in chain c (the inside it opened). */
static void psk_verify(const gostx_ike_chain *c, uint8_t id_type, const uint8_t *psk,
                       size_t psk_len, const uint8_t *sk_p, const uint8_t *msg, size_t msg_len,
                       const uint8_t *nonce, const char *who) {
  const gostx_ike_payload *id = gostx__ike_find(c, id_type);
  const gostx_ike_payload *au = gostx__ike_find(c, GOSTX_IKE_PT_AUTH);
  CHECK(id && au, "%s: ID and AUTH", who);
  if (!id || !au) return;
  uint8_t mac[64], method;
  const uint8_t *d;
  size_t dl;
  CHECK_RC(gostx__ike_auth_read(au->body, au->len, &method, &d, &dl), GOSTX_OK, "AUTH reads");
  CHECK(method == GOSTX_IKE_AUTH_PSK, "%s: shared key MIC", who);
  CHECK_RC(gostx__ike_id_mac(sk_p, id->body, id->len, mac), GOSTX_OK, "prf(SK_p, ID)");
  CHECK_RC(gostx__ike_auth_psk_check(psk, psk_len, msg, msg_len, nonce, 32, mac, d, dl), GOSTX_OK,
           who);
  CHECK_RC(gostx__ike_auth_psk_check(psk, psk_len - 1, msg, msg_len, nonce, 32, mac, d, dl),
           GOSTX_EAUTH, "another PSK");
}

static void keymat(json *sub, int n, const struct side *s, const uint8_t *gir, size_t gir_len,
                   const uint8_t *ni, const uint8_t *nr) {
  uint8_t km[88];
  const size_t e = s->k.enc_len;
  CHECK_RC(gostx__ike_keymat(s->k.sk_d, gir, gir_len, ni, 32, nr, 32, km, 2 * e), GOSTX_OK,
           "KEYMAT");
  size_t l0, l1;
  uint8_t *a = dump(sub, n, "Computes keys for", 0, &l0), *b = dump(sub, n, "Computes keys for", 1, &l1);
  CHECK(l0 == e && l1 == e && !memcmp(km, a, e) && !memcmp(km + e, b, e),
        "%s (%d): KEYMAT, both ESP SAs' keys (%s)", tv_str(sub, "id"), n, s->name);
  free(a);
  free(b);
}

static void a1_1(json *f) {
  json *sub = sub_of(f, "A.1.1");
  size_t psk_len, m1l, m2l;
  const uint8_t *psk = psk_of(f, &psk_len);
  struct side *I = &a1i, *R = &a1r;
  I->name = "initiator";
  R->name = "responder";
  uint8_t di[64], dr[64];
  I->group = R->group = GOSTX_IKE_KE_GOST3410_2012_512;
  I->encr = R->encr = GOSTX_IKE_ENCR_KUZNYECHIK_MGM_KTREE;
  copy_step(sub, 1, "Generates random SPIi", I->spi_i, 8);
  copy_step(sub, 2, "Generates random IKE nonce Ni", I->ni, 32);
  ephemeral(sub, 3, 4, I->group, di, 64);
  copy_step(sub, 8, "Generates random SPIr", R->spi_r, 8);
  copy_step(sub, 9, "Generates random IKE nonce Nr", R->nr, 32);
  ephemeral(sub, 10, 11, R->group, dr, 64);
  uint8_t pi[128], pr[128];
  CHECK_RC(gostx__ike_ke_public(I->group, di, 64, pi, 128), GOSTX_OK, "Q_i");
  CHECK_RC(gostx__ike_ke_public(R->group, dr, 64, pr, 128), GOSTX_OK, "Q_r");
  /* each side reads the other's IKE_SA_INIT */
  uint8_t *m1 = sa_init(sub, 6, R->ni, pi, 128, &m1l);
  uint8_t *m2 = sa_init(sub, 13, I->nr, pr, 128, &m2l);
  CHECK(!memcmp(R->ni, I->ni, 32) && !memcmp(I->nr, R->nr, 32), "the nonces went across");
  memcpy(R->spi_i, m1, 8);
  memcpy(I->spi_r, m2 + 8, 8);
  gostx_ike_hdr h;
  gostx_ike_chain c;
  uint16_t g;
  size_t kl;
  CHECK_RC(gostx__ike_msg_read(m2, m2l, &h, &c, NULL), GOSTX_OK, "message 2");
  const uint8_t *kr = ke_data_of(&c, &g, &kl);
  I->gir_len = R->gir_len = 64;
  CHECK_RC(gostx__ike_ke_shared(g, di, 64, kr, kl, I->gir, 64), GOSTX_OK, "initiator's g^ir");
  expect(sub, 15, "Computes shared key", I->gir, 64);
  sa_keys(sub, I, NULL, 16, 1);
  CHECK_RC(gostx__ike_msg_read(m1, m1l, &h, &c, NULL), GOSTX_OK, "message 1");
  const uint8_t *ki = ke_data_of(&c, &g, &kl);
  CHECK_RC(gostx__ike_ke_shared(g, dr, 64, ki, kl, R->gir, 64), GOSTX_OK, "responder's g^ir");
  expect(sub, 38, "Computes shared key", R->gir, 64);
  sa_keys(sub, R, NULL, 39, 1);

  /* IKE_AUTH request: the initiator's AUTH over message 1, Nr, its ID */
  static const uint8_t idi[] = "\x02\0\0\0IKE-Initiator", idr[] = "\x02\0\0\0IKE-Responder";
  uint8_t auth_i[64], auth_r[64], plain[2048];
  psk_auth(sub, 22, psk, psk_len, I->k.sk_pi, idi, sizeof idi - 1, m1, m1l, I->nr, auth_i);
  tree(sub, 26, I->k.sk_ei, "Computes K1i");
  hdr_of(&h, I->spi_i, I->spi_r, GOSTX_IKE_AUTH, GOSTX_IKE_FLAG_I, 1);
  seal(sub, 33, 36, 37, I->k.sk_ei, I->k.enc_len, I->encr, &h, auth_i, 64);
  /* the responder opens it with its own keys and checks the AUTH */
  tree(sub, 46, R->k.sk_ei, "Computes K1i");
  open_msg(sub, 37, 53, R->k.sk_ei, R->k.enc_len, R->encr, plain, &c);
  psk_verify(&c, GOSTX_IKE_PT_IDI, psk, psk_len, R->k.sk_pi, m1, m1l, R->nr, "the initiator's AUTH");
  const gostx_ike_payload *id = gostx__ike_find(&c, GOSTX_IKE_PT_IDI);
  CHECK(id && id->len == sizeof idi - 1 && !memcmp(id->body, idi, id->len), "IDi");
  keymat(sub, 59, R, NULL, 0, R->ni, R->nr);

  /* IKE_AUTH response */
  psk_auth(sub, 60, psk, psk_len, R->k.sk_pr, idr, sizeof idr - 1, m2, m2l, R->ni, auth_r);
  tree(sub, 64, R->k.sk_er, "Computes K1r");
  h.flags = GOSTX_IKE_FLAG_R;
  seal(sub, 71, 74, 75, R->k.sk_er, R->k.enc_len, R->encr, &h, auth_r, 64);
  tree(sub, 77, I->k.sk_er, "Computes K1r");
  open_msg(sub, 75, 84, I->k.sk_er, I->k.enc_len, I->encr, plain, &c);
  psk_verify(&c, GOSTX_IKE_PT_IDR, psk, psk_len, I->k.sk_pr, m2, m2l, I->ni, "the responder's AUTH");
  keymat(sub, 90, I, NULL, 0, I->ni, I->nr);
  gostx_memzero(di, sizeof di);
  gostx_memzero(dr, sizeof dr);
  free(m1);
  free(m2);
}

/* The leaf key of index (i1 | i2 | i3) against step n: what titles it
 * ("Uses previously computed key K3" in A.1, "Computes K3" in A.2). */
static const char *k3_what = "Uses previously computed key K3";
static uint64_t k3_index;
static void k3(json *sub, int n, const uint8_t *sk_e) {
  uint8_t a[32], b[32], c[32];
  CHECK_RC(gostx__ktree_levels(sk_e, k3_index, a, b, c), GOSTX_OK, "key tree");
  expect(sub, n, k3_what, c, 32);
}

/* The proposal of the SA payload in c: its SPI against spi (spi_len), and
 * the nonce and KE data of c. */
static void child_payloads(const gostx_ike_chain *c, const uint8_t *spi, size_t spi_len,
                           uint8_t nonce[32], const uint8_t **ke, size_t *ke_len, uint16_t *g) {
  static gostx_ike_sa sa;
  const gostx_ike_payload *p = gostx__ike_find(c, GOSTX_IKE_PT_SA);
  CHECK(p && gostx__ike_sa_read(p->body, p->len, &sa) == GOSTX_OK && sa.n >= 1, "SA payload");
  CHECK(p && sa.p[0].spi_len == spi_len && !memcmp(sa.p[0].spi, spi, spi_len),
        "the proposal carries the new SPI");
  const gostx_ike_payload *np = gostx__ike_find(c, GOSTX_IKE_PT_NONCE);
  CHECK(np && np->len == 32, "a 32-octet nonce");
  if (np) memcpy(nonce, np->body, 32);
  if (ke) *ke = ke_data_of(c, g, ke_len); /* NULL: no KE (no PFS) */
}

/* ---- A.1.2: the IKE SA rekeyed (CREATE_CHILD_SA) ---- */

static struct side a1i_new, a1r_new; /* the new IKE SA, for A.1.3 and A.1.4 */
static struct side a2i, a2r, a2i_new, a2r_new;

/* l: the key exchange's size (32 or 64). */
static void rekey_ike(json *f, const char *id, const struct side *I0, const struct side *R0,
                      struct side *I, struct side *R, size_t l) {
  json *sub = sub_of(f, id);
  *I = *I0;
  *R = *R0;
  uint8_t di[64], dr[64], plain[2048];
  copy_step(sub, 1, "Generates random SPIi", I->spi_i, 8);
  copy_step(sub, 2, "Generates random IKE nonce Ni", I->ni, 32);
  ephemeral(sub, 3, 4, I->group, di, l);
  k3(sub, 6, I0->k.sk_ei);
  gostx_ike_hdr h;
  hdr_of(&h, I0->spi_i, I0->spi_r, GOSTX_IKE_CREATE_CHILD_SA, GOSTX_IKE_FLAG_I, 2);
  seal(sub, 9, 12, 13, I0->k.sk_ei, I0->k.enc_len, I0->encr, &h, NULL, 0);
  /* the responder: the request opened under the old SA */
  gostx_ike_chain c;
  const uint8_t *ke;
  size_t kl;
  uint16_t g;
  k3(sub, 15, R0->k.sk_ei);
  open_msg(sub, 13, 20, R0->k.sk_ei, R0->k.enc_len, R0->encr, plain, &c);
  memcpy(R->spi_i, I->spi_i, 8);
  child_payloads(&c, I->spi_i, 8, R->ni, &ke, &kl, &g);
  uint8_t qi[128], qr[128];
  CHECK_RC(gostx__ike_ke_public(I->group, di, l, qi, 2 * l), GOSTX_OK, "Q_i");
  CHECK(ke && kl == 2 * l && !memcmp(ke, qi, kl), "the request's KE is Q_i");
  copy_step(sub, 22, "Generates random SPIr", R->spi_r, 8);
  copy_step(sub, 23, "Generates random IKE nonce Nr", R->nr, 32);
  ephemeral(sub, 24, 25, R->group, dr, l);
  CHECK_RC(gostx__ike_ke_shared(g, dr, l, ke, kl, R->gir, l), GOSTX_OK, "responder's g^ir");
  R->gir_len = l;
  expect(sub, 26, "Computes shared key", R->gir, l);
  sa_keys(sub, R, R0->k.sk_d, 27, 0);
  k3(sub, 32, R0->k.sk_er);
  h.flags = GOSTX_IKE_FLAG_R;
  seal(sub, 35, 38, 39, R0->k.sk_er, R0->k.enc_len, R0->encr, &h, NULL, 0);
  /* the initiator: the response opened, the new SA's keys */
  open_msg(sub, 39, 46, I0->k.sk_er, I0->k.enc_len, I0->encr, plain, &c);
  memcpy(I->spi_r, R->spi_r, 8);
  child_payloads(&c, R->spi_r, 8, I->nr, &ke, &kl, &g);
  CHECK_RC(gostx__ike_ke_public(R->group, dr, l, qr, 2 * l), GOSTX_OK, "Q_r");
  CHECK(ke && kl == 2 * l && !memcmp(ke, qr, kl), "the response's KE is Q_r");
  CHECK_RC(gostx__ike_ke_shared(g, di, l, ke, kl, I->gir, l), GOSTX_OK, "initiator's g^ir");
  I->gir_len = l;
  expect(sub, 48, "Computes shared key", I->gir, l);
  sa_keys(sub, I, I0->k.sk_d, 49, 0);
  /* SK_pi, SK_pr: prf+ goes on past SK_er (2.18 derives them all; unused after IKE_AUTH) */
  gostx_memzero(di, sizeof di);
  gostx_memzero(dr, sizeof dr);
}

/* ---- A.1.3: the ESP SAs rekeyed with PFS (CREATE_CHILD_SA under the new IKE SA) ---- */

static void a1_2(json *f) {
  k3_what = "Uses previously computed key K3";
  k3_index = 0;
  rekey_ike(f, "A.1.2", &a1i, &a1r, &a1i_new, &a1r_new, 64);
}

static void a1_3(json *f) {
  json *sub = sub_of(f, "A.1.3");
  const struct side *I = &a1i_new, *R = &a1r_new;
  uint8_t ni[32], nr[32], ni_r[32], nr_i[32], di[64], dr[64], spi_i[4], spi_r[4], plain[2048];
  uint8_t gir_i[64], gir_r[64], qi[128], qr[128];
  copy_step(sub, 1, "Generates random IKE nonce Ni", ni, 32);
  ephemeral(sub, 2, 3, I->group, di, 64);
  copy_step(sub, 4, "Selects SPI for new incoming ESP SA", spi_i, 4);
  tree(sub, 6, I->k.sk_ei, "Computes K1i");
  gostx_ike_hdr h;
  hdr_of(&h, I->spi_i, I->spi_r, GOSTX_IKE_CREATE_CHILD_SA, GOSTX_IKE_FLAG_I, 0);
  seal(sub, 11, 14, 15, I->k.sk_ei, I->k.enc_len, I->encr, &h, NULL, 0);
  gostx_ike_chain c;
  const uint8_t *ke;
  size_t kl;
  uint16_t g;
  tree(sub, 17, R->k.sk_ei, "Computes K1i");
  open_msg(sub, 15, 24, R->k.sk_ei, R->k.enc_len, R->encr, plain, &c);
  child_payloads(&c, spi_i, 4, ni_r, &ke, &kl, &g);
  CHECK_RC(gostx__ike_ke_public(I->group, di, 64, qi, 128), GOSTX_OK, "Q_i");
  CHECK(ke && kl == 128 && !memcmp(ke, qi, 128), "the request's KE is Q_i");
  copy_step(sub, 26, "Generates random IKE nonce Nr", nr, 32);
  ephemeral(sub, 27, 28, R->group, dr, 64);
  copy_step(sub, 29, "Selects SPI for new incoming ESP SA", spi_r, 4);
  CHECK_RC(gostx__ike_ke_shared(g, dr, 64, ke, kl, gir_r, 64), GOSTX_OK, "responder's g^ir");
  keymat(sub, 30, R, gir_r, 64, ni_r, nr);
  tree(sub, 32, R->k.sk_er, "Computes K1r");
  h.flags = GOSTX_IKE_FLAG_R;
  seal(sub, 37, 40, 41, R->k.sk_er, R->k.enc_len, R->encr, &h, NULL, 0);
  tree(sub, 43, I->k.sk_er, "Computes K1r");
  open_msg(sub, 41, 50, I->k.sk_er, I->k.enc_len, I->encr, plain, &c);
  child_payloads(&c, spi_r, 4, nr_i, &ke, &kl, &g);
  CHECK_RC(gostx__ike_ke_public(R->group, dr, 64, qr, 128), GOSTX_OK, "Q_r");
  CHECK(ke && kl == 128 && !memcmp(ke, qr, 128), "the response's KE is Q_r");
  CHECK_RC(gostx__ike_ke_shared(g, di, 64, ke, kl, gir_i, 64), GOSTX_OK, "initiator's g^ir");
  keymat(sub, 52, I, gir_i, 64, ni, nr_i);
  gostx_memzero(di, sizeof di);
  gostx_memzero(dr, sizeof dr);
}

/* ---- A.1.4: the IKE SA deleted (INFORMATIONAL) ---- */

static void delete_ike(json *f, const char *id, const struct side *I, const struct side *R) {
  json *sub = sub_of(f, id);
  uint8_t plain[2048];
  gostx_ike_hdr h;
  gostx_ike_chain c;
  gostx_ike_delete d;
  k3(sub, 2, I->k.sk_ei);
  hdr_of(&h, I->spi_i, I->spi_r, GOSTX_IKE_INFORMATIONAL, GOSTX_IKE_FLAG_I, 3);
  seal(sub, 5, 8, 9, I->k.sk_ei, I->k.enc_len, I->encr, &h, NULL, 0);
  k3(sub, 11, R->k.sk_ei);
  open_msg(sub, 9, 16, R->k.sk_ei, R->k.enc_len, R->encr, plain, &c);
  const gostx_ike_payload *p = gostx__ike_find(&c, GOSTX_IKE_PT_DELETE);
  CHECK(c.n == 1 && p && gostx__ike_delete_read(p->body, p->len, &d) == GOSTX_OK &&
            d.proto == GOSTX_IKE_PROTO_IKE,
        "a Delete of the IKE SA");
  k3(sub, 19, R->k.sk_er);
  h.flags = GOSTX_IKE_FLAG_R;
  seal(sub, 22, 25, 26, R->k.sk_er, R->k.enc_len, R->encr, &h, NULL, 0);
  k3(sub, 28, I->k.sk_er);
  open_msg(sub, 26, 33, I->k.sk_er, I->k.enc_len, I->encr, plain, &c);
  CHECK(c.n == 0, "an empty response");
}

static void a1_4(json *f) {
  k3_what = "Uses previously computed key K3";
  k3_index = 0;
  delete_ike(f, "A.1.4", &a1i_new, &a1r_new);
}

/* ---- A.2.1's IKE_AUTH: fragments (RFC 7383) ---- */

/* The inside of a fragmented message: the plaintexts of steps n, n + step,
 * ... (nf of them) joined, each less its Pad Length. */
static uint8_t *frag_inside(json *sub, int n, int step, int nf, const char *what, size_t *len) {
  uint8_t *out = malloc(4096);
  *len = 0;
  for (int i = 0; i < nf; i++) {
    size_t l;
    uint8_t *p = whole(sub, n + i * step, what, &l);
    CHECK(l >= 1 && p[l - 1] == 0 && *len + l <= 4096, "a fragment's Pad Length 0");
    memcpy(out + *len, p, l - 1);
    *len += l - 1;
    free(p);
  }
  return out;
}

/* A fragmented message sent: the inside (plaintexts from step n_plain, 6
 * steps apart) rebuilt through the codec with AUTH auth, cut by lib/ike at
 * the size of the first printed fragment (step n_msg) and each fragment
 * sealed with the IV of its step, against the nf printed messages. */
static void frag_seal(json *sub, int n_plain, int n_msg, int nf, const uint8_t *sk_e, size_t el,
                      uint16_t encr, const gostx_ike_hdr *h, const uint8_t *auth,
                      size_t auth_len) {
  size_t il, ml;
  uint8_t *plain = frag_inside(sub, n_plain, 6, nf, "Composes plaintext", &il);
  uint8_t *m1 = whole(sub, n_msg, "Sends message fragment", &ml);
  const uint8_t first = m1[GOSTX_IKE_HDR_LEN];
  gostx_ike_chain c;
  CHECK_RC(gostx__ike_chain_read(first, plain, il, &c, NULL), GOSTX_OK, "the inside reads");
  uint8_t inner[4096], out[2048];
  gostx_ike_writer w;
  gostx__ike_w_inner(&w, inner, sizeof inner);
  rewrite(&c, &w, auth, auth_len);
  CHECK(w.err == GOSTX_OK && w.len == il && !memcmp(inner, plain, il),
        "%s (%d): the inside written again byte for byte", tv_str(sub, "id"), n_plain);
  gostx_ike_sk sk;
  uint16_t total = 0;
  CHECK_RC(gostx__ike_sk_init(&sk, encr, sk_e, el), GOSTX_OK, "SK init");
  CHECK_RC(gostx__ike_frag_total(&sk, w.len, ml, &total), GOSTX_OK, "fragment count");
  CHECK(total == nf, "%s: %u fragments at %zu octets, RFC %d", tv_str(sub, "id"), total, ml, nf);
  for (int i = 0; i < nf && i < total; i++) {
    size_t l, ol = 0, ivl;
    uint8_t *want = whole(sub, n_msg + i, "Sends message fragment", &l);
    uint8_t *ivb = dump(sub, n_plain + 6 * i + 3, "Composes IV", 0, &ivl);
    uint64_t iv = 0;
    for (size_t j = 0; j < ivl; j++) iv = iv << 8 | ivb[j];
    CHECK_RC(gostx__ike_frag_seal(&sk, iv, h, w.first, inner, w.len, ml, (uint16_t)(i + 1), out,
                                  sizeof out, &ol),
             GOSTX_OK, "fragment sealed");
    char name[80];
    snprintf(name, sizeof name, "%s (%d) fragment %d sealed", tv_str(sub, "id"), n_msg + i, i + 1);
    CHECK(ol == l, "%s: %zu bytes, RFC %zu", name, ol, l);
    if (ol == l) CHECK_BYTES(out, want, l, name);
    uint8_t nonce[16];
    const size_t nl = gostx__ktree_nonce(iv, sk.salt, sk.salt_len, nonce);
    expect(sub, n_plain + 6 * i - 2, "Composes MGM nonce", nonce, nl);
    expect(sub, n_plain + 6 * i - 1, "Composes AAD", out, 36);
    free(want);
    free(ivb);
  }
  gostx__ike_sk_clear(&sk);
  free(plain);
  free(m1);
}

/* The fragments of steps n_msg.. received out of order (3, 1, one forged,
 * 4, 1 again, 2) and reassembled under sk_e: each fragment's plaintext
 * against its step (n_plain, 7 steps apart), the whole inside read into c
 * (pointing into inner). */
static void frag_open(json *sub, int n_msg, int n_plain, int nf, const uint8_t *sk_e, size_t el,
                      uint16_t encr, uint8_t *inner, gostx_ike_chain *c) {
  static uint8_t held[4096];
  gostx_ike_sk sk;
  gostx_ike_reasm r;
  CHECK_RC(gostx__ike_sk_init(&sk, encr, sk_e, el), GOSTX_OK, "SK init");
  uint8_t *m[8];
  size_t ml[8];
  for (int i = 0; i < nf; i++) m[i] = whole(sub, n_msg + i, "Sends message fragment", &ml[i]);
  for (int i = 0; i < nf; i++) { /* each fragment alone opens to its printed plaintext */
    gostx_ike_hdr h;
    gostx_ike_skf f;
    size_t pl, wl;
    uint8_t *want = whole(sub, n_plain + 7 * i, "Decrypts ciphertext", &wl);
    CHECK(gostx__ike_skf_read(m[i], ml[i], &h, &f) == GOSTX_OK && f.num == i + 1 &&
              f.total == nf,
          "fragment %d of %d", i + 1, nf);
    CHECK(gostx__ike_skf_open(&sk, m[i], &f, held, sizeof held, &pl, NULL) == GOSTX_OK &&
              pl + 1 == wl && !memcmp(held, want, pl),
          "%s (%d): fragment %d opened to the RFC's plaintext", tv_str(sub, "id"), n_plain + 7 * i,
          i + 1);
    free(want);
  }
  gostx__ike_reasm_init(&r, held, sizeof held, 1);
  int done = 0;
  const int order[] = {2, 0, 3, 1};
  for (int k = 0; k < nf; k++) {
    const int i = order[k];
    if (k == 2) { /* a forged copy of the next is dropped; the set goes on */
      m[i][ml[i] - 1] ^= 1;
      CHECK_RC(gostx__ike_reasm_add(&r, &sk, m[i], ml[i], &done), GOSTX_EAUTH, "forged fragment");
      m[i][ml[i] - 1] ^= 1;
    }
    CHECK_RC(gostx__ike_reasm_add(&r, &sk, m[i], ml[i], &done), GOSTX_OK, "fragment stored");
    CHECK(done == (k == nf - 1), "complete only with the last (%d of %d)", k + 1, nf);
    if (k == 1)
      CHECK_RC(gostx__ike_reasm_add(&r, &sk, m[i], ml[i], &done), GOSTX_ESTATE, "a fragment twice");
  }
  gostx_ike_hdr h;
  uint8_t first = 0;
  size_t il = 0, wl;
  CHECK_RC(gostx__ike_reasm_take(&r, &h, &first, inner, 4096, &il), GOSTX_OK, "reassembled");
  uint8_t *want = frag_inside(sub, n_plain, 7, nf, "Decrypts ciphertext", &wl);
  CHECK(il == wl && !memcmp(inner, want, il), "%s: the inside reassembled", tv_str(sub, "id"));
  CHECK(h.next == GOSTX_IKE_PT_SK && h.msg_id == 1 && h.exchange == GOSTX_IKE_AUTH,
        "the header of the whole message");
  char len_s[16];
  snprintf(len_s, sizeof len_s, "[%u]", h.length); /* as the RFC's parse prints it */
  const char *text = json_str(json_at(json_get(step(sub, n_plain + 7 * nf - 6, "Reassembles"), "text"), 1));
  CHECK(strstr(text, len_s) != NULL, "%s: the whole message's length %s in \"%s\"",
        tv_str(sub, "id"), len_s, text);
  CHECK_RC(gostx__ike_chain_read(first, inner, il, c, NULL), GOSTX_OK, "the whole inside reads");
  free(want);
  for (int i = 0; i < nf; i++) free(m[i]);
  gostx__ike_sk_clear(&sk);
}

/* ---- A.2.1's IKE_AUTH: signatures (RFC 7427, RFC 9385 7), certificates ---- */

/* Dump 0 of A.2's prerequisite i (the IDs, keys, certificates). */
static uint8_t *a2_pre(json *f, size_t i, size_t *len) {
  json *pre = json_get(json_at(json_get(f, "scenarios"), 1), "preamble");
  return tv_hex(json_at(json_get(json_at(pre, i), "dumps"), 0), "hex", len);
}

/* The trust store of A.2: its CA certificate; *now a time inside every
 * certificate's validity. */
static gostx_x509_store *a2_store(json *f, int64_t *now) {
  static const size_t pre[3] = {6, 3, 5}; /* CA, initiator, responder */
  gostx_x509_store *st = gostx_x509_store_new();
  *now = 0;
  for (int i = 0; i < 3; i++) {
    size_t l;
    uint8_t *der = a2_pre(f, pre[i], &l);
    gostx_x509_cert c;
    CHECK(gostx_x509_parse(der, l, &c, NULL) == GOSTX_OK, "A.2 certificate %zu parses", pre[i]);
    if (c.not_before + 1 > *now) *now = c.not_before + 1;
    if (i == 0) CHECK_RC(gostx_x509_store_add_der(st, der, l), GOSTX_OK, "the CA");
    free(der);
  }
  return st;
}

/* One IKE_AUTH message of A.2.1 (steps in the RFC's order): the sender's
 * prf(SK_p, ID), its key, the nonce k and the signature (from sig); the
 * fragments sealed (plaintexts from plain, messages from msg); the
 * receiver's rejoin (plaintexts from open), its check of the CERT chain,
 * the ID, prf(SK_p, ID), the key and the signature (from check); KEYMAT
 * (keymat, the receiver's). */
struct leg {
  int sig, tree, plain, msg, rtree, open, check, keymat;
  size_t pre_cert, pre_id;
  uint8_t id_type, flags;
  const char *k1;
};

static void auth_leg(json *f, json *sub, const struct leg *g, const struct side *S,
                     const struct side *P, const uint8_t *sk_p, const uint8_t *peer_sk_p,
                     const uint8_t *sk_e, const uint8_t *peer_sk_e, const uint8_t *first_msg,
                     size_t first_len, const uint8_t *peer_nonce) {
  static uint8_t inner[4096];
  size_t cl, il, dl, kl, al = 0;
  uint8_t *cert_der = a2_pre(f, g->pre_cert, &cl), *id = a2_pre(f, g->pre_id, &il);
  uint8_t id_body[128] = {GOSTX_IKE_ID_DER_ASN1_DN}, mac[64], auth[256];
  memcpy(id_body + 4, id, il);
  gostx_x509_cert cert, leaf;
  gostx_gost3410_key key;
  CHECK_RC(gostx_x509_parse(cert_der, cl, &cert, NULL), GOSTX_OK, "the sender's certificate");
  uint8_t *d = dump(sub, g->sig + 1, "Uses private key for signing", 0, &dl);
  uint8_t *k = dump(sub, g->sig + 2, "Uses random number for signing", 0, &kl);
  reverse(d, dl); /* printed little-endian */
  CHECK(gostx_gost3410_key_set_private(&key, cert.curve, d, dl, NULL) == GOSTX_OK &&
            !memcmp(key.q, cert.pub, cert.pub_len),
        "%s (%d): the private key is the certificate's", tv_str(sub, "id"), g->sig + 1);
  CHECK_RC(gostx__ike_id_mac(sk_p, id_body, 4 + il, mac), GOSTX_OK, "prf(SK_p, ID)");
  expect(sub, g->sig, "Computes prf(SK_p", mac, 64);
  CHECK_RC(gostx__ike_auth_sig_sign_k(&key, first_msg, first_len, peer_nonce, 32, mac, k, kl, auth,
                                      sizeof auth, &al),
           GOSTX_OK, "signed");
  CHECK(al == 13 + 2 * key.len && auth[0] == 12, "AUTH: the AlgorithmIdentifier, s | r");
  expect(sub, g->sig + 3, "Computes signature using algorithm", auth + 13, al - 13);
  /* the fragments carry the AUTH computed here */
  gostx_ike_hdr h;
  gostx_ike_chain c;
  tree(sub, g->tree, sk_e, g->k1);
  hdr_of(&h, S->spi_i, S->spi_r, GOSTX_IKE_AUTH, g->flags, 1);
  frag_seal(sub, g->plain, g->msg, 4, sk_e, S->k.enc_len, S->encr, &h, auth, al);
  /* the receiver: rejoined, the certificate through the store, the ID, AUTH */
  tree(sub, g->rtree, peer_sk_e, g->k1);
  frag_open(sub, g->msg, g->open, 4, peer_sk_e, P->k.enc_len, P->encr, inner, &c);
  int64_t now;
  gostx_x509_store *store = a2_store(f, &now);
  gostx_x509_status st = gostx__ike_peer_cert(store, &c, g->id_type, now, &leaf, NULL);
  CHECK(st == GOSTX_X509_OK, "%s: the peer's certificate: %s", tv_str(sub, "id"),
        gostx_x509_status_name(st));
  if (g->id_type == GOSTX_IKE_PT_IDI) /* the request's IDr names the responder, not the signer */
    CHECK(gostx__ike_peer_cert(store, &c, GOSTX_IKE_PT_IDR, now, &leaf, NULL) ==
              GOSTX_X509_NAME_MISMATCH,
          "IDr against the initiator's certificate");
  CHECK(gostx__ike_peer_cert(store, &c, g->id_type, INT64_C(4102444800) /* 2100 */, &leaf, NULL) ==
            GOSTX_X509_EXPIRED,
        "A.2's certificates in 2100");
  st = gostx__ike_peer_cert(store, &c, g->id_type, now, &leaf, NULL);
  const gostx_ike_payload *idp = gostx__ike_find(&c, g->id_type);
  const gostx_ike_payload *ap = gostx__ike_find(&c, GOSTX_IKE_PT_AUTH);
  uint8_t method = 0;
  const uint8_t *ad = NULL;
  size_t adl = 0;
  CHECK(idp && idp->len == 4 + il && !memcmp(idp->body, id_body, idp->len), "the ID as printed");
  CHECK(ap && gostx__ike_auth_read(ap->body, ap->len, &method, &ad, &adl) == GOSTX_OK &&
            method == GOSTX_IKE_AUTH_DIGITAL_SIGNATURE,
        "AUTH method 14");
  CHECK_RC(gostx__ike_id_mac(peer_sk_p, idp ? idp->body : id_body, 4 + il, mac), GOSTX_OK, "MAC");
  expect(sub, g->check, "Computes prf(SK_p", mac, 64);
  uint8_t q_le[128]; /* the public key printed as the certificate holds it: x | y little-endian */
  const size_t n = leaf.pub_len / 2;
  for (size_t i = 0; i < n; i++) q_le[i] = leaf.pub[n - 1 - i], q_le[n + i] = leaf.pub[2 * n - 1 - i];
  expect(sub, g->check + 1, "Uses", q_le, leaf.pub_len);
  expect(sub, g->check + 2, "Verifies signature", ad ? ad + 13 : auth, adl - 13);
  CHECK_RC(gostx__ike_auth_sig_verify(&leaf, first_msg, first_len, peer_nonce, 32, mac, ad, adl),
           GOSTX_OK, "the signature verifies");
  keymat(sub, g->keymat, P, NULL, 0, P->ni, P->nr);
  gostx_x509_store_free(store);
  gostx_gost3410_key_clear(&key);
  gostx_memzero(d, dl);
  free(d);
  free(k);
  free(cert_der);
  free(id);
}

/* ---- A.2.1: IKE_SA_INIT (after INVALID_KE_PAYLOAD), the IKE SA's keys, IKE_AUTH in fragments ---- */

static void a2_1(json *f) {
  json *sub = sub_of(f, "A.2.1");
  struct side *I = &a2i, *R = &a2r;
  I->name = "initiator";
  R->name = "responder";
  uint8_t d512[64], di[32], dr[32], qi[128], qr[64];
  size_t l1, l2, l3, l4;
  I->encr = R->encr = GOSTX_IKE_ENCR_MAGMA_MGM_KTREE;
  copy_step(sub, 1, "Generates random SPIi", I->spi_i, 8);
  copy_step(sub, 2, "Generates random IKE nonce Ni", I->ni, 32);
  /* the first try offers 512 bits; the responder wants 256 */
  ephemeral(sub, 3, 4, GOSTX_IKE_KE_GOST3410_2012_512, d512, 64);
  CHECK_RC(gostx__ike_ke_public(GOSTX_IKE_KE_GOST3410_2012_512, d512, 64, qi, 128), GOSTX_OK, "Q");
  free(sa_init(sub, 6, R->ni, qi, 128, &l1));
  uint8_t *m = whole(sub, 9, "Sends message", &l2);
  gostx_ike_hdr h;
  gostx_ike_chain c;
  gostx_ike_notify n;
  CHECK_RC(gostx__ike_msg_read(m, l2, &h, &c, NULL), GOSTX_OK, "the refusal reads");
  CHECK(c.n == 1 && gostx__ike_notify_read(c.p[0].body, c.p[0].len, &n) == GOSTX_OK &&
            n.type == 17 && n.data_len == 2 && n.data[0] == 0 && n.data[1] == 33,
        "INVALID_KE_PAYLOAD naming GOST3410_2012_256");
  uint8_t out[64];
  gostx_ike_writer w;
  gostx__ike_w_msg(&w, out, sizeof out, &h);
  gostx__ike_w_notify(&w, &n);
  size_t ol = 0;
  CHECK(gostx__ike_w_finish(&w, &ol) == GOSTX_OK && ol == l2 && !memcmp(out, m, l2),
        "A.2.1 (9) written again byte for byte");
  CHECK(gostx__ike_frag_supported(&c) == 0, "no IKEV2_FRAGMENTATION_SUPPORTED in the refusal");
  free(m);
  I->group = R->group = GOSTX_IKE_KE_GOST3410_2012_256;
  ephemeral(sub, 11, 12, I->group, di, 32);
  CHECK_RC(gostx__ike_ke_public(I->group, di, 32, qi, 64), GOSTX_OK, "Q_i");
  uint8_t *m1 = sa_init(sub, 14, R->ni, qi, 64, &l3);
  copy_step(sub, 16, "Generates random SPIr", R->spi_r, 8);
  copy_step(sub, 17, "Generates random IKE nonce Nr", R->nr, 32);
  ephemeral(sub, 18, 19, R->group, dr, 32);
  CHECK_RC(gostx__ike_ke_public(R->group, dr, 32, qr, 64), GOSTX_OK, "Q_r");
  uint8_t *m2 = sa_init(sub, 22, I->nr, qr, 64, &l4);
  memcpy(R->spi_i, m1, 8);
  memcpy(I->spi_r, m2 + 8, 8);
  for (int i = 0; i < 2; i++) /* both offer IKE fragmentation (RFC 7383 2.3) */
    CHECK(gostx__ike_msg_read(i ? m2 : m1, i ? l4 : l3, &h, &c, NULL) == GOSTX_OK &&
              gostx__ike_frag_supported(&c) == 1,
          "A.2.1 (%d): IKEV2_FRAGMENTATION_SUPPORTED", i ? 22 : 14);
  I->gir_len = R->gir_len = 32;
  CHECK_RC(gostx__ike_ke_shared(I->group, di, 32, qr, 64, I->gir, 32), GOSTX_OK, "g^ir");
  expect(sub, 24, "Computes shared key", I->gir, 32);
  sa_keys(sub, I, NULL, 25, 1);
  CHECK_RC(gostx__ike_ke_shared(R->group, dr, 32, qi, 64, R->gir, 32), GOSTX_OK, "g^ir");
  expect(sub, 69, "Computes shared key", R->gir, 32);
  sa_keys(sub, R, NULL, 70, 1);
  /* IKE_AUTH: signed, certificates, four fragments each way */
  const uint8_t *ni = I->ni, *nr = R->nr;
  static const struct leg req = {31, 35, 43, 65, 77, 84, 107, 110, 3, 0, GOSTX_IKE_PT_IDI,
                                 GOSTX_IKE_FLAG_I, "Computes K1i"};
  static const struct leg resp = {111, 115, 122, 144, 149, 156, 179, 182, 5, 1, GOSTX_IKE_PT_IDR,
                                  GOSTX_IKE_FLAG_R, "Computes K1r"};
  auth_leg(f, sub, &req, I, R, I->k.sk_pi, R->k.sk_pi, I->k.sk_ei, R->k.sk_ei, m1, l3, nr);
  auth_leg(f, sub, &resp, R, I, R->k.sk_pr, I->k.sk_pr, R->k.sk_er, I->k.sk_er, m2, l4, ni);
  gostx_memzero(d512, sizeof d512);
  gostx_memzero(di, sizeof di);
  gostx_memzero(dr, sizeof dr);
  free(m1);
  free(m2);
}

/* A.2.2 and A.2.4: as A.1's, under Magma and 256-bit keys, the sender's leaf
 * i3 = 1 after IKE_AUTH's fragments. */
static void a2_2(json *f) {
  k3_what = "Computes K3";
  k3_index = 1;
  rekey_ike(f, "A.2.2", &a2i, &a2r, &a2i_new, &a2r_new, 32);
}

/* A.2.3: the ESP SAs rekeyed without PFS: KEYMAT from SK_d and the nonces. */
static void a2_3(json *f) {
  json *sub = sub_of(f, "A.2.3");
  const struct side *I = &a2i_new, *R = &a2r_new;
  uint8_t ni[32], nr[32], ni_r[32], nr_i[32], spi_i[4], spi_r[4], plain[2048];
  copy_step(sub, 1, "Generates random IKE nonce Ni", ni, 32);
  tree(sub, 2, I->k.sk_ei, "Computes K1i");
  copy_step(sub, 5, "Selects SPI for new incoming ESP SA", spi_i, 4);
  gostx_ike_hdr h;
  gostx_ike_chain c;
  hdr_of(&h, I->spi_i, I->spi_r, GOSTX_IKE_CREATE_CHILD_SA, GOSTX_IKE_FLAG_I, 0);
  seal(sub, 9, 12, 13, I->k.sk_ei, I->k.enc_len, I->encr, &h, NULL, 0);
  tree(sub, 15, R->k.sk_ei, "Computes K1i");
  open_msg(sub, 13, 22, R->k.sk_ei, R->k.enc_len, R->encr, plain, &c);
  child_payloads(&c, spi_i, 4, ni_r, NULL, NULL, NULL);
  CHECK(!gostx__ike_find(&c, GOSTX_IKE_PT_KE), "no KE: no PFS");
  copy_step(sub, 24, "Generates random IKE nonce Nr", nr, 32);
  copy_step(sub, 25, "Selects SPI for new incoming ESP SA", spi_r, 4);
  keymat(sub, 26, R, NULL, 0, ni_r, nr);
  tree(sub, 28, R->k.sk_er, "Computes K1r");
  h.flags = GOSTX_IKE_FLAG_R;
  seal(sub, 33, 36, 37, R->k.sk_er, R->k.enc_len, R->encr, &h, NULL, 0);
  tree(sub, 39, I->k.sk_er, "Computes K1r");
  open_msg(sub, 37, 46, I->k.sk_er, I->k.enc_len, I->encr, plain, &c);
  child_payloads(&c, spi_r, 4, nr_i, NULL, NULL, NULL);
  keymat(sub, 48, I, NULL, 0, ni, nr_i);
}

static void a2_4(json *f) {
  k3_what = "Uses previously computed key K3";
  k3_index = 0;
  delete_ike(f, "A.2.4", &a2i_new, &a2r_new);
}

/* ---- refusals: the codec's strictness and the recipient tests ---- */


/* An SA body of np proposals (IKE, no SPI) of nt ENCR transforms each
 * into b; its length. */
static size_t sa_body(uint8_t *b, size_t np, size_t nt) {
  size_t at = 0;
  for (size_t i = 0; i < np; i++) {
    const size_t plen = 8 + 8 * nt;
    const uint8_t h[8] = {i + 1 == np ? 0 : 2, 0, (uint8_t)(plen >> 8), (uint8_t)plen,
                          (uint8_t)(i + 1), GOSTX_IKE_PROTO_IKE, 0, (uint8_t)nt};
    memcpy(b + at, h, 8);
    at += 8;
    for (size_t j = 0; j < nt; j++, at += 8) {
      const uint8_t t[8] = {j + 1 == nt ? 0 : 3, 0, 0, 8, GOSTX_IKE_TT_ENCR, 0, 0,
                            (uint8_t)(j + 1)};
      memcpy(b + at, t, 8);
    }
  }
  return at;
}

/* RFC 7296 bounds neither: strongSwan 5.9.8's default IKE proposal has 38
 * transforms (its IKE_SA_INIT was INVALID_SYNTAX here until the reader
 * kept less past its bounds instead of refusing). */
static void sa_bounds(void) {
  static uint8_t b[16384];
  static gostx_ike_sa sa;
  size_t l = sa_body(b, 1, GOSTX_IKE_MAX_TRANSFORMS);
  CHECK(gostx__ike_sa_read(b, l, &sa) == GOSTX_OK && sa.n == 1 && !sa.more &&
            sa.p[0].n == GOSTX_IKE_MAX_TRANSFORMS && !sa.p[0].more,
        "%d transforms: all kept", GOSTX_IKE_MAX_TRANSFORMS);
  l = sa_body(b, 2, 38);
  CHECK(gostx__ike_sa_read(b, l, &sa) == GOSTX_OK && sa.n == 2 && !sa.more &&
            sa.p[0].n == 0 && sa.p[0].more && sa.p[1].more && sa.p[1].num == 2,
        "38 transforms: read, kept empty");
  b[l - 8] = 2; /* the last transform's "more" where 0 belongs */
  CHECK_RC(gostx__ike_sa_read(b, l, &sa), GOSTX_EFORMAT, "38 transforms, the last malformed");
  l = sa_body(b, GOSTX_IKE_MAX_PROPOSALS + 3, 2);
  CHECK(gostx__ike_sa_read(b, l, &sa) == GOSTX_OK && sa.n == GOSTX_IKE_MAX_PROPOSALS &&
            sa.more && sa.p[GOSTX_IKE_MAX_PROPOSALS - 1].n == 2,
        "%d proposals: the first %d kept", GOSTX_IKE_MAX_PROPOSALS + 3, GOSTX_IKE_MAX_PROPOSALS);
  b[l - 2 * 8 - 8 + 4] = 9; /* the last proposal numbered 9 after 10 */
  CHECK_RC(gostx__ike_sa_read(b, l, &sa), GOSTX_EFORMAT,
           "a proposal past the kept ones misnumbered");
}

static void refusals(json *f) {
  json *sub = sub_of(f, "A.1.1");
  size_t l;
  uint8_t *m = whole(sub, 6, "Sends message", &l), b[512];
  gostx_ike_hdr h;
  gostx_ike_chain c;
  CHECK(l <= sizeof b, "message size");
  memcpy(b, m, l);
  CHECK_RC(gostx__ike_msg_read(b, l - 1, &h, &c, NULL), GOSTX_ELEN, "one octet short of its length");
  b[17] = 0x30;
  CHECK_RC(gostx__ike_msg_read(b, l, &h, &c, NULL), GOSTX_EUNSUP, "major version 3");
  b[17] = 0x21; /* a higher minor version is fine (2.5) */
  CHECK_RC(gostx__ike_msg_read(b, l, &h, &c, NULL), GOSTX_OK, "minor version 1");
  memcpy(b, m, l);
  b[28 + 3] += 1; /* the SA payload one octet longer than its body */
  CHECK_RC(gostx__ike_msg_read(b, l, &h, &c, NULL), GOSTX_EFORMAT, "a payload length off by one");
  memcpy(b, m, l);
  b[28 + 2] = 0xff; /* past the end */
  CHECK_RC(gostx__ike_msg_read(b, l, &h, &c, NULL), GOSTX_EFORMAT, "a payload past the end");
  memcpy(b, m, l);
  b[28 + 3] = 3; /* shorter than its header */
  b[28 + 2] = 0;
  CHECK_RC(gostx__ike_msg_read(b, l, &h, &c, NULL), GOSTX_EFORMAT, "a payload length of 3");
  /* the last payload (a Notify) made an unknown type 200: skipped when not critical */
  memcpy(b, m, l);
  CHECK_RC(gostx__ike_msg_read(b, l, &h, &c, NULL), GOSTX_OK, "as printed");
  const size_t n0 = c.n;
  const size_t last = (size_t)(c.p[n0 - 1].body - b) - 4, prev = (size_t)(c.p[n0 - 2].body - b) - 4;
  b[prev] = 200;
  CHECK(gostx__ike_msg_read(b, l, &h, &c, NULL) == GOSTX_OK && c.n == n0 - 1 && c.skipped == 1,
        "an unknown payload without the critical bit: skipped");
  b[last + 1] = 0x80;
  CHECK(gostx__ike_msg_read(b, l, &h, &c, NULL) == GOSTX_EUNSUP && c.unsupported == 200,
        "an unknown critical payload: UNSUPPORTED_CRITICAL_PAYLOAD");
  /* the SA payload's proposal numbered 2, then its transform count one more */
  memcpy(b, m, l);
  CHECK_RC(gostx__ike_msg_read(b, l, &h, &c, NULL), GOSTX_OK, "as printed");
  static gostx_ike_sa sa;
  uint8_t *sab = b + (c.p[0].body - b);
  sab[4] = 2;
  CHECK_RC(gostx__ike_sa_read(sab, c.p[0].len, &sa), GOSTX_EFORMAT, "a first proposal numbered 2");
  sab[4] = 1;
  sab[7] += 1;
  CHECK_RC(gostx__ike_sa_read(sab, c.p[0].len, &sa), GOSTX_EFORMAT, "one transform more than there is");
  sa_bounds();
  /* RFC 9385 6.1: the peer's point off the curve, the identity, a short one */
  uint8_t d[64], q[128], k[64];
  ephemeral(sub, 10, 11, GOSTX_IKE_KE_GOST3410_2012_512, d, 64);
  size_t ql;
  uint8_t *qi = dump(sub, 4, "Computes public key", 0, &ql);
  memcpy(q, qi, 128);
  q[5] ^= 1;
  CHECK_RC(gostx__ike_ke_shared(34, d, 64, q, 128, k, 64), GOSTX_EINVAL, "a point off the curve");
  memset(q, 0, sizeof q);
  q[64] = 1; /* (0, 1): the identity of the Edwards curve */
  CHECK_RC(gostx__ike_ke_shared(34, d, 64, q, 128, k, 64), GOSTX_EINVAL, "the identity");
  CHECK_RC(gostx__ike_ke_shared(34, d, 64, qi, 127, k, 64), GOSTX_ELEN, "a short KE");
  CHECK_RC(gostx__ike_ke_shared(33, d, 64, qi, 128, k, 64), GOSTX_ELEN, "KE 33 with 512-bit data");
  gostx_memzero(d, sizeof d);
  free(qi);
  free(m);
}

/* ---- the exchange engine (lib/ike/engine.c) on the RFC's messages ---- */

/* The payload of type in message m, NULL when absent. */
static const gostx_ike_payload *payload_of(const uint8_t *m, size_t len, uint8_t type,
                                           gostx_ike_chain *c) {
  gostx_ike_hdr h;
  CHECK_RC(gostx__ike_msg_read(m, len, &h, c, NULL), GOSTX_OK, "message reads");
  return gostx__ike_find(c, type);
}

/* The NAT notify of type in message m (chain c): its 20 octets, or NULL. */
static const uint8_t *nat_of(const gostx_ike_chain *c, uint16_t type) {
  gostx_ike_notify n;
  for (const gostx_ike_payload *p = gostx__ike_find(c, GOSTX_IKE_PT_NOTIFY); p;
       p = gostx__ike_find_next(c, p, GOSTX_IKE_PT_NOTIFY))
    if (gostx__ike_notify_read(p->body, p->len, &n) == GOSTX_OK && n.type == type &&
        n.data_len == 20)
      return n.data;
  return NULL;
}

/* A.1.1's NAT detection hashes (RFC 7296 2.23) from the address lines
 * printed with messages 1 and 2 (10.111.10.171:54294 -> 10.111.15.45:500:
 * Appendix A's 10.111.10.45 is the misprint), each over the SPIs as that
 * message's header has them (SPIr 0 in the request). */
static const gostx_ike_addr a11_i = {{10, 111, 10, 171}, 4, 54294},
                            a11_r = {{10, 111, 15, 45}, 4, 500};

static void nat_hashes(const uint8_t *m, size_t len, const gostx_ike_addr *from,
                       const gostx_ike_addr *to, const char *what) {
  gostx_ike_chain c;
  uint8_t h[20];
  payload_of(m, len, GOSTX_IKE_PT_NONCE, &c);
  const uint8_t *src = nat_of(&c, GOSTX_IKE_N_NAT_DETECTION_SOURCE_IP);
  const uint8_t *dst = nat_of(&c, GOSTX_IKE_N_NAT_DETECTION_DESTINATION_IP);
  CHECK(src && dst, "%s: both NAT notifies", what);
  if (!src || !dst) return;
  gostx__ike_nat_hash(m, m + 8, from, h);
  CHECK(!memcmp(h, src, 20), "%s: NAT_DETECTION_SOURCE_IP as printed", what);
  gostx__ike_nat_hash(m, m + 8, to, h);
  CHECK(!memcmp(h, dst, 20), "%s: NAT_DETECTION_DESTINATION_IP as printed", what);
}

/* A responder engine given A.1.1's request from the printed address and
 * from another port (a NAT rewrote it). */
static void engine_nat_on_rfc(const gostx_ike_conf *cf, const uint8_t *m1, size_t l1) {
  static gostx_ike_engine r;
  static uint8_t out[GOSTX_IKE_MSG_MAX];
  size_t ol;
  gostx_ike_addr moved = a11_i;
  moved.port = 4500;
  for (int nat = 0; nat < 2; nat++) {
    CHECK_RC(gostx__ike_engine_init(&r, cf), GOSTX_OK, "responder");
    CHECK_RC(gostx__ike_engine_addrs(&r, &a11_r, nat ? &moved : &a11_i), GOSTX_OK, "addresses");
    CHECK_RC(gostx__ike_input(&r, m1, l1, 0, out, sizeof out, &ol), GOSTX_OK, "A.1.1 (6)");
    CHECK(r.nat_detection && !r.nat_local && r.nat_peer == nat,
          "A.1.1 (6): the RFC's NAT notifies checked (NAT before the initiator: %d)", nat);
    if (!nat) nat_hashes(out, ol, &a11_r, &a11_i, "the engine's response to A.1.1");
    gostx__ike_engine_clear(&r);
  }
}

/* A responder engine given the initiator's first message of A.1.1 (two
 * ENCR, both groups) takes it and answers
 * with the SA payload the RFC's responder sent; given A.2.1's 512-bit KE
 * while it wants 256, it answers the RFC's INVALID_KE_PAYLOAD byte for
 * byte (nothing random in it). */
static void engine_on_rfc(json *f) {
  static gostx_ike_engine r;
  static uint8_t out[GOSTX_IKE_MSG_MAX];
  gostx_ike_conf cf = {.role = GOSTX_IKE_RESPONDER,
                       .encr = GOSTX_IKE_ENCR_KUZNYECHIK_MGM_KTREE,
                       .group = GOSTX_IKE_KE_GOST3410_2012_512,
                       .auth = GOSTX_IKE_AUTH_PSK};
  gostx_ike_chain c1, c2;
  size_t l1, l2, ol;
  json *a11 = sub_of(f, "A.1.1"), *a21 = sub_of(f, "A.2.1");
  uint8_t *m1 = whole(a11, 6, "Sends message", &l1), *m2 = whole(a11, 13, "Sends message", &l2);
  CHECK_RC(gostx__ike_engine_init(&r, &cf), GOSTX_OK, "responder");
  CHECK_RC(gostx__ike_input(&r, m1, l1, 0, out, sizeof out, &ol), GOSTX_OK, "A.1.1 (6) taken");
  CHECK(r.state == GOSTX_IKE_S_INIT_DONE, "A.1.1 (6): answered");
  const gostx_ike_payload *ours = payload_of(out, ol, GOSTX_IKE_PT_SA, &c1);
  const gostx_ike_payload *rfc = payload_of(m2, l2, GOSTX_IKE_PT_SA, &c2);
  CHECK(ours && rfc && ours->len == rfc->len && !memcmp(ours->body, rfc->body, rfc->len),
        "A.1.1 (13): the SA payload the RFC's responder chose");
  gostx__ike_engine_clear(&r);
  nat_hashes(m1, l1, &a11_i, &a11_r, "A.1.1 (6)");
  nat_hashes(m2, l2, &a11_r, &a11_i, "A.1.1 (13)");
  engine_nat_on_rfc(&cf, m1, l1);
  free(m1);
  free(m2);
  cf.encr = GOSTX_IKE_ENCR_MAGMA_MGM_KTREE;
  cf.group = GOSTX_IKE_KE_GOST3410_2012_256;
  m1 = whole(a21, 6, "Sends message", &l1);
  m2 = whole(a21, 9, "Sends message", &l2);
  CHECK_RC(gostx__ike_engine_init(&r, &cf), GOSTX_OK, "responder");
  CHECK_RC(gostx__ike_input(&r, m1, l1, 0, out, sizeof out, &ol), GOSTX_OK, "A.2.1 (6) read");
  CHECK(r.error == GOSTX_IKE_N_INVALID_KE_PAYLOAD && ol == l2, "A.2.1 (9): INVALID_KE_PAYLOAD");
  if (ol == l2) CHECK_BYTES(out, m2, l2, "A.2.1 (9) byte for byte");
  gostx__ike_engine_clear(&r);
  free(m1);
  free(m2);
}

/* What an engine wrote (got) against message n of sub as printed (want). */
static void engine_wrote(json *sub, int n, const uint8_t *got, size_t len, const uint8_t *want,
                         size_t want_len) {
  char name[96];
  snprintf(name, sizeof name, "%s (%d) from the engine", tv_str(sub, "id"), n);
  CHECK(len == want_len, "%s: %zu bytes, RFC %zu", name, len, want_len);
  if (len == want_len) CHECK_BYTES(got, want, len, name);
}

/* Hooks (GOSTX_IKE_TEST_HOOKS) fixing e's SPI, nonce and ephemeral key
 * (l octets, printed little-endian) to the printed steps. */
static void fix_draws(json *sub, int n_spi, int n_nonce, int n_priv, size_t l,
                      gostx_ike_engine *e) {
  size_t dl;
  e->test.set = 1;
  copy_step(sub, n_spi, "Generates random SPI", e->test.spi, 8);
  copy_step(sub, n_nonce, "Generates random IKE nonce", e->test.nonce, 32);
  uint8_t *d = dump(sub, n_priv, "Generates ephemeral private key", 0, &dl);
  CHECK(dl == l, "an ephemeral key of %zu octets", l);
  memcpy(e->test.priv, d, dl < l ? dl : l);
  reverse(e->test.priv, l);
  free(d);
}

/* A.2.1's CERTREQ (RFC 7296 3.7): SHA-1 of the CA's SubjectPublicKeyInfo
 * against the printed "hash of CA public key" steps (20, 39) and the
 * CERTREQ of message 2 (22); a responder engine with A.2's CA, given the
 * 256-bit retry (14) from the printed addresses and with the printed SPIr,
 * Nr and key fixed (GOSTX_IKE_TEST_HOOKS), answers with (22) byte for
 * byte: CERTREQ and SIGNATURE_HASH_ALGORITHMS where (22) has them. */
static void certreq_on_rfc(json *f) {
  static gostx_ike_engine r;
  static uint8_t out[GOSTX_IKE_MSG_MAX];
  json *sub = sub_of(f, "A.2.1");
  int64_t now;
  size_t l, l1, l2, ol, n;
  gostx_x509_store *st = a2_store(f, &now);
  uint8_t *ca = a2_pre(f, 6, &l), h[20];
  gostx_x509_cert c;
  CHECK(gostx_x509_parse(ca, l, &c, NULL) == GOSTX_OK, "A.2's CA");
  gostx__ike_ca_hash(c.spki, c.spki_len, h);
  expect(sub, 20, "Computes hash of CA public key", h, 20);
  expect(sub, 39, "Computes hash of CA public key", h, 20);
  uint8_t *m1 = whole(sub, 14, "Sends message", &l1), *m2 = whole(sub, 22, "Sends message", &l2);
  gostx_ike_chain c1, c2;
  const uint8_t *cas;
  const gostx_ike_payload *rfc = payload_of(m2, l2, GOSTX_IKE_PT_CERTREQ, &c2);
  CHECK(rfc && gostx__ike_certreq_read(rfc->body, rfc->len, &cas, &n) == GOSTX_OK && n == 1 &&
            !memcmp(cas, h, 20),
        "A.2.1 (22): its CERTREQ names the CA");
  gostx_ike_conf cf = {.role = GOSTX_IKE_RESPONDER,
                       .encr = GOSTX_IKE_ENCR_MAGMA_MGM_KTREE,
                       .group = GOSTX_IKE_KE_GOST3410_2012_256,
                       .auth = GOSTX_IKE_AUTH_DIGITAL_SIGNATURE,
                       .store = st};
  const gostx_ike_addr from = {{10, 111, 10, 171}, 4, 54294}, to = {{10, 111, 15, 45}, 4, 500};
  CHECK_RC(gostx__ike_engine_init(&r, &cf), GOSTX_OK, "responder");
  CHECK_RC(gostx__ike_engine_addrs(&r, &to, &from), GOSTX_OK, "addresses");
  fix_draws(sub, 16, 17, 18, 32, &r);
  CHECK_RC(gostx__ike_input(&r, m1, l1, now * 1000, out, sizeof out, &ol), GOSTX_OK,
           "A.2.1 (14) taken");
  engine_wrote(sub, 22, out, ol, m2, l2);
  /* A.2's initiator forces UDP encapsulation with a SOURCE_IP of zeros:
   * seen as a NAT before it; its DESTINATION_IP is this responder's */
  CHECK(r.state == GOSTX_IKE_S_INIT_DONE && r.nat_detection && !r.nat_local && r.nat_peer,
        "A.2.1 (14): answered, the forced encapsulation seen (%d %d)", r.nat_local, r.nat_peer);
  const gostx_ike_payload *ours = payload_of(out, ol, GOSTX_IKE_PT_CERTREQ, &c1);
  CHECK(ours && rfc && ours->len == rfc->len && !memcmp(ours->body, rfc->body, rfc->len),
        "A.2.1 (22): the engine's CERTREQ byte for byte");
  /* the payloads' order: the RFC's, SIGNATURE_HASH_ALGORITHMS last */
  static const uint8_t order[] = {GOSTX_IKE_PT_SA,     GOSTX_IKE_PT_KE,     GOSTX_IKE_PT_NONCE,
                                  GOSTX_IKE_PT_NOTIFY, GOSTX_IKE_PT_NOTIFY, GOSTX_IKE_PT_CERTREQ,
                                  GOSTX_IKE_PT_NOTIFY, GOSTX_IKE_PT_NOTIFY};
  int same = c1.n == sizeof order && c2.n == sizeof order;
  for (size_t k = 0; same && k < sizeof order; k++)
    same = c1.p[k].type == order[k] && c2.p[k].type == order[k] &&
           c1.p[k].len == c2.p[k].len;
  CHECK(same, "A.2.1 (22): the engine's payloads in the RFC's order");
  gostx__ike_engine_clear(&r);
  gostx_x509_store_free(st);
  free(ca);
  free(m1);
  free(m2);
}

/* A.1.1 through the engine (GOSTX_IKE_TEST_HOOKS: the printed SPIs, nonces
 * and ephemeral keys in place of its random draws, the printed addresses):
 * an initiator offering both ENCR as A.1.1's does writes message 1 byte for
 * byte; a responder given message 1 as printed answers with message 2 byte
 * for byte; the initiator takes message 2 and derives the printed SK_*. */
static void engine_replay_a11(json *f) {
  static gostx_ike_engine i, r;
  static uint8_t out[GOSTX_IKE_MSG_MAX];
  static const uint16_t both[2] = {GOSTX_IKE_ENCR_KUZNYECHIK_MGM_KTREE,
                                   GOSTX_IKE_ENCR_MAGMA_MGM_KTREE};
  json *sub = sub_of(f, "A.1.1");
  size_t l1, l2, ol;
  static const uint8_t idi[] = "IKE-Initiator", idr[] = "IKE-Responder";
  gostx_ike_conf cf = {.role = GOSTX_IKE_INITIATOR,
                       .encr = GOSTX_IKE_ENCR_KUZNYECHIK_MGM_KTREE,
                       .encr_offer = both,
                       .n_encr_offer = 2,
                       .group = GOSTX_IKE_KE_GOST3410_2012_512,
                       .auth = GOSTX_IKE_AUTH_PSK,
                       .id_type = GOSTX_IKE_ID_FQDN,
                       .id = idi,
                       .id_len = sizeof idi - 1,
                       .peer_id_type = GOSTX_IKE_ID_FQDN,
                       .peer_id = idr,
                       .peer_id_len = sizeof idr - 1};
  cf.psk = psk_of(f, &cf.psk_len);
  gostx_ike_conf cr = cf;
  cr.role = GOSTX_IKE_RESPONDER;
  cr.encr_offer = NULL;
  cr.n_encr_offer = 0;
  uint8_t *m1 = whole(sub, 6, "Sends message", &l1), *m2 = whole(sub, 13, "Sends message", &l2);
  CHECK_RC(gostx__ike_engine_init(&i, &cf), GOSTX_OK, "initiator");
  CHECK_RC(gostx__ike_engine_addrs(&i, &a11_i, &a11_r), GOSTX_OK, "addresses");
  fix_draws(sub, 1, 2, 3, 64, &i);
  CHECK_RC(gostx__ike_start(&i, 0, out, sizeof out, &ol), GOSTX_OK, "A.1.1 (5)");
  engine_wrote(sub, 6, out, ol, m1, l1);
  CHECK_RC(gostx__ike_engine_init(&r, &cr), GOSTX_OK, "responder");
  CHECK_RC(gostx__ike_engine_addrs(&r, &a11_r, &a11_i), GOSTX_OK, "addresses");
  fix_draws(sub, 8, 9, 10, 64, &r);
  CHECK_RC(gostx__ike_input(&r, m1, l1, 0, out, sizeof out, &ol), GOSTX_OK, "A.1.1 (6) taken");
  engine_wrote(sub, 13, out, ol, m2, l2);
  CHECK_RC(gostx__ike_input(&i, m2, l2, 0, out, sizeof out, &ol), GOSTX_OK, "A.1.1 (13) taken");
  CHECK(i.state == GOSTX_IKE_S_AUTH_SENT && i.encr == GOSTX_IKE_ENCR_KUZNYECHIK_MGM_KTREE &&
            !i.nat_local && !i.nat_peer,
        "A.1.1 (14): the initiator takes Kuznyechik, sees no NAT, sends IKE_AUTH");
  expect(sub, 18, "Computes SK_ei", i.k.sk_ei, i.k.enc_len);
  expect(sub, 21, "Computes SK_pr", r.k.sk_pr, 64);
  /* the engine's IKE_AUTH request: not the RFC's message (37), which also
   * carries INITIAL_CONTACT, SET_WINDOW_SIZE, CP and two notifies and offers
   * four ESP ENCR; its IDi and AUTH are the RFC's, under IV 1 as (36) */
  gostx_ike_hdr h;
  gostx_ike_chain c;
  uint8_t first, plain[2048];
  size_t pl;
  uint64_t iv;
  CHECK_RC(gostx__ike_sk_open(&r.sk_in, out, ol, &h, &first, plain, sizeof plain, &pl, &iv),
           GOSTX_OK, "the engine's IKE_AUTH opens under the RFC's SK_ei");
  CHECK_RC(gostx__ike_chain_read(first, plain, pl, &c, NULL), GOSTX_OK, "its inside reads");
  const gostx_ike_payload *ap = gostx__ike_find(&c, GOSTX_IKE_PT_AUTH);
  CHECK(iv == 1 && c.n == 5 && c.p[0].type == GOSTX_IKE_PT_IDI && ap == &c.p[1] &&
            c.p[2].type == GOSTX_IKE_PT_SA && c.p[3].type == GOSTX_IKE_PT_TSI &&
            c.p[4].type == GOSTX_IKE_PT_TSR,
        "IDi, AUTH, SA, TSi, TSr: the RFC's order less what the engine does not send");
  CHECK(ap && ap->len == 68, "an AUTH of method 2 and 64 octets");
  if (ap && ap->len == 68) expect(sub, 25, "Computes content of AUTH payload", ap->body + 4, 64);
  gostx__ike_engine_clear(&i);
  gostx__ike_engine_clear(&r);
  free(m1);
  free(m2);
}

/* A.2.1's initiator through the engine (the printed SPIi, Ni and both
 * ephemeral keys fixed, UDP encapsulation forced): its 512-bit try (6),
 * then, given the RFC's INVALID_KE_PAYLOAD (9), its 256-bit retry (14),
 * each byte for byte. */
static void engine_replay_a21_initiator(json *f) {
  static gostx_ike_engine i;
  static uint8_t out[GOSTX_IKE_MSG_MAX];
  static const uint16_t both[2] = {GOSTX_IKE_ENCR_KUZNYECHIK_MGM_KTREE,
                                   GOSTX_IKE_ENCR_MAGMA_MGM_KTREE};
  json *sub = sub_of(f, "A.2.1");
  size_t l6, l9, l14, ol, dl;
  const gostx_ike_conf cf = {.role = GOSTX_IKE_INITIATOR,
                             .encr = GOSTX_IKE_ENCR_MAGMA_MGM_KTREE,
                             .encr_offer = both,
                             .n_encr_offer = 2,
                             .group = GOSTX_IKE_KE_GOST3410_2012_512,
                             .auth = GOSTX_IKE_AUTH_DIGITAL_SIGNATURE,
                             .force_encap = 1};
  uint8_t *m6 = whole(sub, 6, "Sends message", &l6), *m9 = whole(sub, 9, "Sends message", &l9);
  uint8_t *m14 = whole(sub, 14, "Sends message", &l14);
  CHECK_RC(gostx__ike_engine_init(&i, &cf), GOSTX_OK, "initiator");
  CHECK_RC(gostx__ike_engine_addrs(&i, &a11_i, &a11_r), GOSTX_OK, "addresses");
  fix_draws(sub, 1, 2, 3, 64, &i);
  CHECK_RC(gostx__ike_start(&i, 0, out, sizeof out, &ol), GOSTX_OK, "A.2.1 (5)");
  engine_wrote(sub, 6, out, ol, m6, l6);
  uint8_t *d = dump(sub, 11, "Generates ephemeral private key", 0, &dl);
  CHECK(dl == 32, "A.2.1 (11): 32 octets");
  memcpy(i.test.priv, d, 32);
  reverse(i.test.priv, 32);
  free(d);
  CHECK_RC(gostx__ike_input(&i, m9, l9, 0, out, sizeof out, &ol), GOSTX_OK, "A.2.1 (9) taken");
  engine_wrote(sub, 14, out, ol, m14, l14);
  gostx__ike_engine_clear(&i);
  free(m6);
  free(m9);
  free(m14);
}

/* ---- the exchange engine on A.x.2-A.x.4: the rekeys and the Delete ---- */

/* An engine standing where side S stands after IKE_AUTH (or a rekey): S's
 * SPIs and keys, the original initiator when init, the Message IDs and the
 * IV counter the RFC's next message shows, a Child SA (our inbound SPI
 * spi_in, the peer's spi_out) with the selectors tsi/tsr. */
static void standing(gostx_ike_engine *e, gostx_ike_conf *cf, const struct side *S, int init,
                     uint32_t msg_id, uint64_t iv, uint32_t spi_in, uint32_t spi_out,
                     const gostx_ike_ts_set *tsi, const gostx_ike_ts_set *tsr) {
  memset(cf, 0, sizeof *cf);
  cf->role = init ? GOSTX_IKE_INITIATOR : GOSTX_IKE_RESPONDER;
  cf->encr = S->encr;
  cf->group = S->group;
  CHECK_RC(gostx__ike_engine_init(e, cf), GOSTX_OK, "engine");
  e->state = GOSTX_IKE_S_ESTABLISHED;
  memcpy(e->spi_i, S->spi_i, 8);
  memcpy(e->spi_r, S->spi_r, 8);
  e->group = S->group;
  e->k = S->k;
  CHECK_RC(gostx__ike_sk_init(&e->sk_out, S->encr, init ? S->k.sk_ei : S->k.sk_er, S->k.enc_len),
           GOSTX_OK, "SK out");
  CHECK_RC(gostx__ike_sk_init(&e->sk_in, S->encr, init ? S->k.sk_er : S->k.sk_ei, S->k.enc_len),
           GOSTX_OK, "SK in");
  gostx__ike_live(e);
  e->orig_init = (uint8_t)init;
  *(init ? &e->req_id : &e->peer_req) = msg_id;
  e->iv_out = iv;
  e->child = (gostx_ike_child){1, S->encr, 0, spi_in, spi_out, {0}, {0}, S->k.enc_len, 0};
  e->ts_i = *tsi;
  e->ts_r = *tsr;
}

static uint32_t be32_of(const uint8_t *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The printed IV of step n as the engine's counter. */
static uint64_t iv_of(json *sub, int n) {
  size_t l;
  uint8_t *p = dump(sub, n, "Composes IV", 0, &l);
  uint64_t v = 0;
  for (size_t i = 0; i < l; i++) v = v << 8 | p[i];
  free(p);
  return v;
}

/* The engine's message m (ml) against the RFC's of step n_msg (its inside
 * at n_plain): the header but its length and the IV the same; opened under
 * sk_e (the receiver's), its inside is the RFC's less the trailing status
 * notifies the RFC's sender adds and lib/ike does not send (SET_WINDOW_SIZE,
 * ADDITIONAL_TS_POSSIBLE, ESP_TFC_PADDING_NOT_SUPPORTED,
 * NON_FIRST_FRAGMENTS_ALSO: see docs/IKE.md). */
static void same_but_extras(json *sub, int n_msg, int n_plain, const uint8_t *m, size_t ml,
                            const struct side *S, const uint8_t *sk_e) {
  size_t wl, pl, gl;
  uint8_t *want = whole(sub, n_msg, "Sends message", &wl);
  uint8_t *plain = whole(sub, n_plain, "Composes plaintext", &pl);
  static uint8_t got[2048], inner[2048];
  gostx_ike_hdr h;
  gostx_ike_chain c;
  gostx_ike_writer w;
  gostx_ike_sk sk;
  uint8_t first;
  const char *id = tv_str(sub, "id");
  CHECK(ml > 40 && wl > 40 && !memcmp(m, want, 24) && !memcmp(m + 32, want + 32, 8),
        "%s (%d): the engine's header and IV as the RFC's", id, n_msg);
  CHECK_RC(gostx__ike_chain_read(want[GOSTX_IKE_HDR_LEN], plain, pl - 1, &c, NULL), GOSTX_OK, "the RFC's inside");
  while (c.n && c.p[c.n - 1].type == GOSTX_IKE_PT_NOTIFY &&
         (c.p[c.n - 1].body[2] << 8 | c.p[c.n - 1].body[3]) >= 16384)
    c.n--;
  gostx__ike_w_inner(&w, inner, sizeof inner);
  rewrite(&c, &w, NULL, 0);
  CHECK_RC(gostx__ike_sk_init(&sk, S->encr, sk_e, S->k.enc_len), GOSTX_OK, "SK");
  CHECK_RC(gostx__ike_sk_open(&sk, m, ml, &h, &first, got, sizeof got, &gl, NULL), GOSTX_OK,
           "the engine's message opens under the peer's key");
  CHECK(gl == w.len && first == w.first, "%s (%d): the inside's length %zu, RFC less extras %zu",
        id, n_msg, gl, w.len);
  if (gl == w.len) CHECK_BYTES(got, inner, gl, "the engine's inside, as the RFC's");
  gostx__ike_sk_clear(&sk);
  free(want);
  free(plain);
}

/* The selectors and the REKEY_SA SPI of the RFC's Child SA rekey request
 * (step n_msg, opened under sk_e). */
static uint32_t rfc_rekey_of(json *sub, int n_msg, const struct side *S, gostx_ike_ts_set *tsi,
                             gostx_ike_ts_set *tsr) {
  size_t ml, pl;
  static uint8_t plain[2048];
  uint8_t *m = whole(sub, n_msg, "Sends message", &ml);
  gostx_ike_hdr h;
  gostx_ike_chain c;
  gostx_ike_sk sk;
  gostx_ike_notify n;
  uint8_t first;
  CHECK_RC(gostx__ike_sk_init(&sk, S->encr, S->k.sk_ei, S->k.enc_len), GOSTX_OK, "SK");
  CHECK_RC(gostx__ike_sk_open(&sk, m, ml, &h, &first, plain, sizeof plain, &pl, NULL), GOSTX_OK,
           "the request opens");
  CHECK_RC(gostx__ike_chain_read(first, plain, pl, &c, NULL), GOSTX_OK, "its inside");
  const gostx_ike_payload *i = gostx__ike_find(&c, GOSTX_IKE_PT_TSI);
  const gostx_ike_payload *r = gostx__ike_find(&c, GOSTX_IKE_PT_TSR);
  CHECK(i && r && gostx__ike_ts_read(i->body, i->len, tsi) == GOSTX_OK &&
            gostx__ike_ts_read(r->body, r->len, tsr) == GOSTX_OK,
        "TSi, TSr");
  CHECK(c.p[0].type == GOSTX_IKE_PT_NOTIFY &&
            gostx__ike_notify_read(c.p[0].body, c.p[0].len, &n) == GOSTX_OK &&
            n.type == GOSTX_IKE_N_REKEY_SA && n.spi_len == 4,
        "REKEY_SA first");
  gostx__ike_sk_clear(&sk);
  free(m);
  return be32_of(n.spi);
}

/* The KEYMAT of step n against a Child SA (we_initiated: its out key first). */
static void child_is(json *sub, int n, const gostx_ike_child *ch, int we_initiated) {
  expect(sub, n, "Computes keys for", we_initiated ? ch->key_out : ch->key_in, ch->key_len);
  size_t l;
  uint8_t *b = dump(sub, n, "Computes keys for", 1, &l);
  CHECK(l == ch->key_len && !memcmp(we_initiated ? ch->key_in : ch->key_out, b, l),
        "%s (%d): the second ESP SA's key", tv_str(sub, "id"), n);
  free(b);
}

/* A Child SA rekey (A.1.3 with PFS, A.2.3 without) through two engines
 * standing on the new IKE SA, the printed nonces, keys and SPIs fixed:
 * each sends its message as the RFC's (less its extras), takes the RFC's
 * and derives the printed KEYMAT. Steps: i_nonce, i_priv (0: no PFS),
 * i_spi, the request (msg, plain), r_nonce, r_priv, r_spi, r_keys, the
 * response (msg, plain), i_keys. */
struct child_steps {
  int i_nonce, i_priv, i_spi, req, req_plain, r_nonce, r_priv, r_spi, r_keys, resp, resp_plain,
      i_keys;
};

static void engine_child_rekey(json *f, const char *id, const struct side *I0,
                               const struct side *R0, const struct child_steps *st, size_t l) {
  json *sub = sub_of(f, id);
  static gostx_ike_engine i, r;
  gostx_ike_conf ci, cr;
  gostx_ike_ts_set tsi, tsr;
  static uint8_t out[2048];
  size_t ol = 0, ml;
  const int pfs = st->i_priv != 0;
  const uint32_t old_i = rfc_rekey_of(sub, st->req, R0, &tsi, &tsr);
  standing(&i, &ci, I0, 1, 0, iv_of(sub, st->req - 1), old_i, 0x5000, &tsi, &tsr);
  standing(&r, &cr, R0, 0, 0, iv_of(sub, st->resp - 1), 0x5000, old_i, &tsi, &tsr);
  uint8_t spi[4];
  i.test.set = r.test.set = 1;
  copy_step(sub, st->i_nonce, "Generates random IKE nonce Ni", i.test.nonce, 32);
  copy_step(sub, st->i_spi, "Selects SPI", spi, 4);
  i.test.esp_spi = be32_of(spi);
  copy_step(sub, st->r_nonce, "Generates random IKE nonce Nr", r.test.nonce, 32);
  copy_step(sub, st->r_spi, "Selects SPI", spi, 4);
  r.test.esp_spi = be32_of(spi);
  if (pfs) {
    copy_step(sub, st->i_priv, "Generates ephemeral private key", i.test.priv, l);
    reverse(i.test.priv, l);
    copy_step(sub, st->r_priv, "Generates ephemeral private key", r.test.priv, l);
    reverse(r.test.priv, l);
  }
  CHECK_RC(gostx__ike_rekey_child(&i, pfs, 0, out, sizeof out, &ol), GOSTX_OK, "the request");
  same_but_extras(sub, st->req, st->req_plain, out, ol, I0, R0->k.sk_ei);
  /* the responder takes the RFC's request */
  uint8_t *m = whole(sub, st->req, "Sends message", &ml);
  CHECK_RC(gostx__ike_input(&r, m, ml, 0, out, sizeof out, &ol), GOSTX_OK, "the RFC's request");
  free(m);
  CHECK((r.ev.flags & GOSTX_IKE_EV_CHILD_NEW) && r.child.spi_in == r.test.esp_spi &&
            r.child.spi_out == i.test.esp_spi && r.old.spi_out == old_i,
        "%s: the responder's new Child SA, the old kept", id);
  child_is(sub, st->r_keys, &r.child, 0);
  same_but_extras(sub, st->resp, st->resp_plain, out, ol, R0, I0->k.sk_er);
  /* the initiator takes the RFC's response */
  m = whole(sub, st->resp, "Sends message", &ml);
  CHECK_RC(gostx__ike_input(&i, m, ml, 0, out, sizeof out, &ol), GOSTX_OK, "the RFC's response");
  free(m);
  CHECK((i.ev.flags & GOSTX_IKE_EV_CHILD_NEW) && i.child.spi_out == r.test.esp_spi &&
            i.pend == GOSTX_IKE_X_DELETE_CHILD && ol,
        "%s: the initiator's new Child SA, the old one's Delete out", id);
  child_is(sub, st->i_keys, &i.child, 1);
  gostx__ike_engine_clear(&i);
  gostx__ike_engine_clear(&r);
}

/* An IKE SA rekey (A.x.2) through two engines standing on the first IKE
 * SA: SK_d, SK_ei and SK_er of the new one as printed on each side. */
static void engine_ike_rekey(json *f, const char *id, const struct side *I0,
                             const struct side *R0, size_t l) {
  json *sub = sub_of(f, id);
  static gostx_ike_engine i, r;
  gostx_ike_conf ci, cr;
  static uint8_t out[2048];
  size_t ol = 0, ml;
  const gostx_ike_ts_set none = {0};
  standing(&i, &ci, I0, 1, 2, iv_of(sub, 12), 0x5000, 0x6000, &none, &none);
  standing(&r, &cr, R0, 0, 2, iv_of(sub, 38), 0x6000, 0x5000, &none, &none);
  fix_draws(sub, 1, 2, 3, l, &i);
  fix_draws(sub, 22, 23, 24, l, &r);
  CHECK_RC(gostx__ike_rekey_ike(&i, 0, out, sizeof out, &ol), GOSTX_OK, "the request");
  same_but_extras(sub, 13, 9, out, ol, I0, R0->k.sk_ei);
  uint8_t *m = whole(sub, 13, "Sends message", &ml);
  CHECK_RC(gostx__ike_input(&r, m, ml, 0, out, sizeof out, &ol), GOSTX_OK, "the RFC's request");
  free(m);
  CHECK((r.ev.flags & GOSTX_IKE_EV_IKE_REKEYED) && r.old_sa[0].valid && !r.orig_init &&
            !memcmp(r.spi_i, i.test.spi, 8) && !memcmp(r.spi_r, r.test.spi, 8),
        "%s: the responder on the new IKE SA, the old kept", id);
  expect(sub, 28, "Computes SK_d", r.k.sk_d, 64);
  expect(sub, 29, "Computes SK_ei", r.k.sk_ei, r.k.enc_len);
  expect(sub, 30, "Computes SK_er", r.k.sk_er, r.k.enc_len);
  same_but_extras(sub, 39, 35, out, ol, R0, I0->k.sk_er);
  m = whole(sub, 39, "Sends message", &ml);
  CHECK_RC(gostx__ike_input(&i, m, ml, 0, out, sizeof out, &ol), GOSTX_OK, "the RFC's response");
  free(m);
  CHECK((i.ev.flags & GOSTX_IKE_EV_IKE_REKEYED) && i.orig_init &&
            i.pend == GOSTX_IKE_X_DELETE_OLD_IKE && ol && i.child.spi_in == 0x5000,
        "%s: the initiator on the new IKE SA, the Child SA kept, the old SA's Delete out", id);
  expect(sub, 50, "Computes SK_d", i.k.sk_d, 64);
  expect(sub, 51, "Computes SK_ei", i.k.sk_ei, i.k.enc_len);
  expect(sub, 52, "Computes SK_er", i.k.sk_er, i.k.enc_len);
  gostx__ike_engine_clear(&i);
  gostx__ike_engine_clear(&r);
}

/* The IKE SA's Delete (A.x.4) byte for byte out of both engines. */
static void engine_delete(json *f, const char *id, const struct side *I, const struct side *R) {
  json *sub = sub_of(f, id);
  static gostx_ike_engine i, r;
  gostx_ike_conf ci, cr;
  static uint8_t out[2048];
  size_t ol = 0, ml;
  const gostx_ike_ts_set none = {0};
  uint8_t *req = whole(sub, 9, "Sends message", &ml);
  const uint32_t msg_id = be32_of(req + 20);
  free(req);
  standing(&i, &ci, I, 1, msg_id, iv_of(sub, 8), 0x5000, 0x6000, &none, &none);
  standing(&r, &cr, R, 0, msg_id, iv_of(sub, 25), 0x6000, 0x5000, &none, &none);
  CHECK_RC(gostx__ike_delete(&i, GOSTX_IKE_DEL_IKE, 0, out, sizeof out, &ol), GOSTX_OK, "Delete");
  req = whole(sub, 9, "Sends message", &ml);
  engine_wrote(sub, 9, out, ol, req, ml);
  CHECK_RC(gostx__ike_input(&r, req, ml, 0, out, sizeof out, &ol), GOSTX_OK, "the RFC's Delete");
  free(req);
  CHECK(r.state == GOSTX_IKE_S_DELETED && (r.ev.flags & GOSTX_IKE_EV_IKE_DELETED) &&
            r.ev.n_retired == 1,
        "%s: the responder DELETED, its Child SA with it", id);
  uint8_t *resp = whole(sub, 26, "Sends message", &ml);
  engine_wrote(sub, 26, out, ol, resp, ml);
  CHECK_RC(gostx__ike_input(&i, resp, ml, 0, out, sizeof out, &ol), GOSTX_OK, "the RFC's answer");
  free(resp);
  CHECK(i.state == GOSTX_IKE_S_DELETED && (i.ev.flags & GOSTX_IKE_EV_IKE_DELETED),
        "%s: the initiator DELETED", id);
  gostx__ike_engine_clear(&i);
  gostx__ike_engine_clear(&r);
}

static void engine_rekeys_on_rfc(json *f) {
  static const struct child_steps a13 = {1, 2, 4, 15, 11, 26, 27, 29, 30, 41, 37, 52};
  static const struct child_steps a23 = {1, 0, 5, 13, 9, 24, 0, 25, 26, 37, 33, 48};
  engine_ike_rekey(f, "A.1.2", &a1i, &a1r, 64);
  engine_child_rekey(f, "A.1.3", &a1i_new, &a1r_new, &a13, 64);
  engine_delete(f, "A.1.4", &a1i_new, &a1r_new);
  engine_ike_rekey(f, "A.2.2", &a2i, &a2r, 32);
  engine_child_rekey(f, "A.2.3", &a2i_new, &a2r_new, &a23, 32);
  engine_delete(f, "A.2.4", &a2i_new, &a2r_new);
}

/* A message whose Encrypted payload ends in Pad Length pad after body - 1
 * octets of inside and padding (RFC 7296 3.14: a peer may pad; lib/ike
 * seals Pad Length 0 only): sealed by lib/ike for its layout, its body
 * then encrypted again by hand under the same leaf key and nonce. */
static size_t seal_padded(const gostx_ike_sk *sk, const gostx_ike_hdr *h, uint8_t pad,
                          size_t body, uint8_t *out, size_t cap) {
  uint8_t inner[256], plain[256], k1[32], k2[32], k3[32], nonce[16];
  size_t ol = 0;
  const uint64_t iv = 5;
  memset(inner, 0x2a, sizeof inner);
  CHECK_RC(gostx__ike_sk_seal(sk, iv, h, GOSTX_IKE_PT_NOTIFY, inner, body - 1, out, cap, &ol),
           GOSTX_OK, "seal");
  memcpy(plain, inner, body - 1);
  plain[body - 1] = pad;
  const size_t aad = GOSTX_IKE_HDR_LEN + GOSTX_IKE_GEN_LEN;
  gostx_cipher c;
  CHECK_RC(gostx__ktree_levels(sk->key, iv >> 24, k1, k2, k3), GOSTX_OK, "key tree");
  CHECK_RC(gostx_cipher_init(&c, (gostx_alg)sk->alg, k3), GOSTX_OK, "leaf key");
  (void)gostx__ktree_nonce(iv, sk->salt, sk->salt_len, nonce);
  CHECK_RC(gostx_mgm_encrypt(&c, nonce, out, aad, plain, body, out + aad + 8,
                             out + aad + 8 + body, sk->icv_len),
           GOSTX_OK, "sealed by hand");
  gostx_cipher_clear(&c);
  return ol;
}

/* The Pad Length the peer sent, authenticated: the padding dropped when it
 * fits in the payload, the message refused when it does not (sk.c checks
 * it without a branch on the decrypted octet). */
static void padding(void) {
  static const uint8_t key[44] = {1, 2, 3};
  static const struct { uint8_t pad; size_t body; int rc; size_t len; } cases[] = {
      {0, 20, GOSTX_OK, 19},        {5, 20, GOSTX_OK, 14},      {19, 20, GOSTX_OK, 0},
      {20, 20, GOSTX_EFORMAT, 0},   {255, 20, GOSTX_EFORMAT, 0}, {255, 256, GOSTX_OK, 0},
      {0, 1, GOSTX_OK, 0},          {1, 1, GOSTX_EFORMAT, 0}};
  gostx_ike_sk sk;
  gostx_ike_hdr h = {{1}, {2}, 0, 0x20, GOSTX_IKE_INFORMATIONAL, 0, 3, 0};
  CHECK_RC(gostx__ike_sk_init(&sk, GOSTX_IKE_ENCR_KUZNYECHIK_MGM_KTREE, key, sizeof key), GOSTX_OK,
           "SK init");
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    uint8_t msg[512], plain[512], first = 0;
    size_t got = 999;
    const size_t ml = seal_padded(&sk, &h, cases[i].pad, cases[i].body, msg, sizeof msg);
    gostx_ike_hdr hh;
    const int rc = gostx__ike_sk_open(&sk, msg, ml, &hh, &first, plain, sizeof plain, &got, NULL);
    CHECK(rc == cases[i].rc && (rc != GOSTX_OK || got == cases[i].len),
          "Pad Length %u in %zu octets: rc %d, %zu octets", cases[i].pad, cases[i].body, rc, got);
  }
  gostx__ike_sk_clear(&sk);
}

int main(void) {
  json *f = tv_load("ike9385.json");
  a1_1(f);
  a1_2(f);
  a1_3(f);
  a1_4(f);
  a2_1(f);
  a2_2(f);
  a2_3(f);
  a2_4(f);
  refusals(f);
  padding();
  engine_on_rfc(f);
  certreq_on_rfc(f);
  engine_replay_a11(f);
  engine_replay_a21_initiator(f);
  engine_rekeys_on_rfc(f);
  json_free(f);
  return t_done();
}
