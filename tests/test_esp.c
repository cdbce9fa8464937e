/* ESP with the four RFC 9227 transforms (lib/esp): RFC 9227 Appendix A's
 * eight examples byte for byte, the key tree against two independent
 * implementations (tests/vectors/esp9227.json: gost-engine and GoGOST),
 * packets of other implementations, the packet layout, every transform
 * against a packet sealed here from MGM's one-shot call (random sizes),
 * round trips, tampering, replay and ESN handling, and the limits. */
#include <stdlib.h>

#include "testutil.h"

/* Counts the program's malloc, calloc and realloc calls (glibc lets a
 * program replace them; its __libc_ entry points are the real ones), so
 * test_burst_no_alloc can see a steady-state burst allocate nothing. Not
 * under the sanitizers, whose runtimes own malloc. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define COUNT_ALLOCS 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
#define COUNT_ALLOCS 0
#endif
#endif
#if !defined(COUNT_ALLOCS) && defined(__linux__) && defined(__GLIBC__)
#define COUNT_ALLOCS 1
#endif
#ifndef COUNT_ALLOCS
#define COUNT_ALLOCS 0
#endif
#if COUNT_ALLOCS
#include <stdatomic.h>
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
static atomic_ulong n_allocs;
void *malloc(size_t n) {
  atomic_fetch_add(&n_allocs, 1);
  return __libc_malloc(n);
}
void *calloc(size_t n, size_t m) {
  atomic_fetch_add(&n_allocs, 1);
  return __libc_calloc(n, m);
}
void *realloc(void *p, size_t n) {
  atomic_fetch_add(&n_allocs, 1);
  return __libc_realloc(p, n);
}
#endif

/* gostx_esp_open and gostx_esp_seal_iv with the packet's parts as
 * arguments (the checks below read them one by one). */
static int open_flat(const gostx_esp_sa *sa, gostx_esp_keycache *kc, const gostx_esp_replay *w,
                     const uint8_t *pkt, size_t n, uint8_t *out, size_t cap, size_t *out_len,
                     uint8_t *nh, uint64_t *seq) {
  gostx_esp_packet p = {.in = pkt, .len = n, .out = out, .cap = cap};
  int rc = gostx_esp_open(sa, kc, w, &p);
  CHECK(rc == p.status && (rc == 0 || p.out_len == 0), "open: status %d returned %d", p.status,
        rc);
  if (rc == 0) *out_len = p.out_len, *nh = p.next_header, *seq = p.seq;
  return rc;
}
static int seal_iv_flat(const gostx_esp_sa *sa, gostx_esp_keycache *kc, uint64_t seq, uint64_t iv,
                        uint8_t nh, const uint8_t *payload, size_t len, uint8_t *out, size_t cap,
                        size_t *out_len) {
  gostx_esp_packet p = {.in = payload, .len = len, .out = out, .cap = cap, .next_header = nh};
  int rc = gostx_esp_seal_iv(sa, kc, seq, iv, &p);
  CHECK(rc == p.status && p.seq == seq, "seal_iv: status %d returned %d", p.status, rc);
  *out_len = p.out_len;
  return rc;
}

static const gostx_esp_transform transforms[] = {
    GOSTX_ESP_KUZNYECHIK_MGM_KTREE, GOSTX_ESP_MAGMA_MGM_KTREE, GOSTX_ESP_KUZNYECHIK_MGM_MAC_KTREE,
    GOSTX_ESP_MAGMA_MGM_MAC_KTREE};
#define N_TRANSFORMS (sizeof transforms / sizeof transforms[0])

static int mac_only(gostx_esp_transform t) {
  return t == GOSTX_ESP_KUZNYECHIK_MGM_MAC_KTREE || t == GOSTX_ESP_MAGMA_MGM_MAC_KTREE;
}

static void make_sa(gostx_esp_sa *sa, gostx_esp_transform t, uint32_t spi, uint8_t seed) {
  uint8_t km[GOSTX_ESP_KEY_LEN + GOSTX_ESP_SALT_MAX];
  for (size_t i = 0; i < sizeof km; i++) km[i] = (uint8_t)(i * 7 + seed);
  CHECK_RC(gostx_esp_sa_init(sa, t, spi, km, GOSTX_ESP_KEY_LEN + gostx_esp_salt_len(t)), 0,
           "sa_init");
}

static uint32_t be32(const uint8_t *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void test_tree_vectors(void) {
  tv_iter it = tv_open("esp9227.json");
  for (json *c; (c = tv_next(&it)) != NULL;) {
    size_t kl, ml;
    uint8_t *k = tv_hex(c, "key", &kl), *want = tv_hex(c, "message_key", &ml);
    uint8_t km[44] = {0}, got[32];
    memcpy(km, k, 32);
    gostx_esp_sa sa;
    CHECK_RC(gostx_esp_sa_init(&sa, GOSTX_ESP_KUZNYECHIK_MGM_KTREE, 0x1000, km, 44), 0, "init");
    uint64_t index = (uint64_t)tv_int(c, "i1") << 32 | (uint64_t)tv_int(c, "i2") << 16 |
                     (uint64_t)tv_int(c, "i3");
    CHECK_RC(gostx_esp_tree_key(&sa, index, got), 0, "tree_key");
    CHECK_BYTES(got, want, 32, "ESPTREE message key");
    free(k);
    free(want);
  }
  tv_close(&it);
}

/* The layout: SPI, SN, IV = ESN - 1, the ICV length, and the MGM call it
 * makes (nonce 0 | pnum | salt, AAD SPI | ESN; integrity only: AAD SPI |
 * ESN | IV | body, the body in clear) redone here from the public API. */
static void test_layout(gostx_esp_transform t) {
  gostx_esp_sa sa;
  gostx_esp_keycache kc;
  gostx_esp_keycache_init(&kc);
  make_sa(&sa, t, 0x01020304, 3);
  uint64_t seq = 0x0123456789abcdefULL;
  uint8_t payload[37], pkt[128];
  t_rand_bytes(payload, sizeof payload);
  size_t n = 0;
  CHECK_RC(gostx_esp_seal(&sa, &kc, seq, 4, payload, sizeof payload, pkt, sizeof pkt, &n), 0,
           "seal");
  size_t icv = gostx_esp_icv_len(t), body = (37 + 2 + 3) / 4 * 4;
  CHECK(icv == (sa.alg == GOSTX_ALG_KUZNYECHIK ? 12u : 8u), "ICV: 96 bits / 64 bits");
  CHECK(n == 16 + body + icv, "length %zu", n);
  CHECK(be32(pkt) == 0x01020304 && be32(pkt + 4) == 0x89abcdef, "SPI, SN");
  CHECK(be32(pkt + 8) == 0x01234567 && be32(pkt + 12) == 0x89abcdee, "IV = ESN - 1");
  uint8_t key[32], plain[64], nonce[16], aad[12 + 8 + 64];
  CHECK_RC(gostx_esp_tree_key(&sa, (seq - 1) >> 24, key), 0, "tree");
  gostx_cipher c;
  CHECK_RC(gostx_cipher_init(&c, sa.alg, key), 0, "cipher");
  nonce[0] = 0, nonce[1] = 0xab, nonce[2] = 0xcd, nonce[3] = 0xee;
  memcpy(nonce + 4, sa.salt, sa.salt_len);
  memcpy(aad, pkt, 4);
  memcpy(aad + 4, pkt + 8, 8); /* the ESN: IV + 1 here */
  aad[11] = 0xef;
  if (mac_only(t)) {
    memcpy(aad + 12, pkt + 8, 8 + body);
    CHECK_RC(gostx_mgm_decrypt(&c, nonce, aad, 20 + body, NULL, 0, pkt + 16 + body,
                               icv, NULL),
             0, "MGM as the layout says (integrity only)");
    memcpy(plain, pkt + 16, body);
  } else {
    CHECK_RC(gostx_mgm_decrypt(&c, nonce, aad, 12, pkt + 16, body,
                               pkt + 16 + body, icv, plain),
             0, "MGM as the layout says");
  }
  CHECK_BYTES(plain, payload, 37, "payload");
  CHECK(body == 40 && plain[37] == 1 && plain[38] == 1 && plain[39] == 4,
        "padding 1, pad length 1, next header 4");
  gostx_cipher_clear(&c);
}

/* A packet with any plaintext body (trailer included), sealed by hand as the
 * layout says with MGM's one-shot call (the integrity-only transforms: the
 * whole AAD in one piece, which lib/esp gives in two): what a sender holding
 * the key could send. */
static size_t seal_body_key(const gostx_esp_sa *sa, const uint8_t key[32], uint64_t seq,
                            uint64_t iv, const uint8_t *body, size_t len, uint8_t *pkt) {
  static uint8_t aad[12 + 8 + 70000];
  uint8_t nonce[16];
  gostx_cipher c;
  CHECK_RC(gostx_cipher_init(&c, (gostx_alg)sa->alg, key), 0, "cipher");
  for (int i = 0; i < 4; i++) pkt[i] = (uint8_t)(sa->spi >> (24 - 8 * i));
  for (int i = 0; i < 4; i++) pkt[4 + i] = (uint8_t)(seq >> (24 - 8 * i));
  for (int i = 0; i < 8; i++) pkt[8 + i] = (uint8_t)(iv >> (56 - 8 * i));
  nonce[0] = 0, nonce[1] = (uint8_t)(iv >> 16), nonce[2] = (uint8_t)(iv >> 8);
  nonce[3] = (uint8_t)iv;
  memcpy(nonce + 4, sa->salt, sa->salt_len);
  /* AAD: SPI | ESN (high, low), or SPI | SN without ESN; integrity only:
   * then IV | body */
  size_t al = sa->esn ? 12 : 8;
  memcpy(aad, pkt, 4);
  for (int i = 0; i < 8; i++) aad[4 + i] = (uint8_t)(seq >> (56 - 8 * i));
  if (!sa->esn) memcpy(aad + 4, pkt + 4, 4);
  if (mac_only(sa->transform)) {
    memcpy(pkt + 16, body, len);
    memcpy(aad + al, pkt + 8, 8 + len);
    CHECK_RC(gostx_mgm_encrypt(&c, nonce, aad, al + 8 + len, NULL, 0, NULL,
                               pkt + 16 + len, sa->icv_len),
             0, "mgm (integrity only)");
  } else {
    CHECK_RC(gostx_mgm_encrypt(&c, nonce, aad, al, body, len, pkt + 16,
                               pkt + 16 + len, sa->icv_len),
             0, "mgm");
  }
  gostx_cipher_clear(&c);
  return 16 + len + sa->icv_len;
}

/* The same with the message key of iv derived here. */
static size_t seal_body(const gostx_esp_sa *sa, uint64_t seq, uint64_t iv, const uint8_t *body,
                        size_t len, uint8_t *pkt) {
  uint8_t key[32];
  CHECK_RC(gostx_esp_tree_key(sa, iv >> 24, key), 0, "tree");
  return seal_body_key(sa, key, seq, iv, body, len, pkt);
}

/* The body RFC 4303 2.4 makes of a payload: padding 1, 2, ... to a multiple
 * of 4, pad length, next header. Returns its length. */
static size_t trailer_body(const uint8_t *pay, size_t len, uint8_t nh, uint8_t *body) {
  const size_t blen = (len + 2 + 3) & ~(size_t)3, pad = blen - len - 2;
  memcpy(body, pay, len);
  for (size_t j = 0; j < pad; j++) body[len + j] = (uint8_t)(j + 1);
  body[blen - 2] = (uint8_t)pad;
  body[blen - 1] = nh;
  return blen;
}

/* The trailer check (branch-free on the bytes, lib/esp/esp.c trailer_bad)
 * against the plain reading of RFC 4303 2.4, on authenticated packets:
 * every pad length that fits and some that do not, empty payloads, the
 * longest padding, each padding byte wrong in turn. */
static void test_trailer(gostx_esp_transform t) {
  gostx_esp_sa sa;
  make_sa(&sa, t, 0x7117, 5);
  static uint8_t body[600], pkt[700], out[700];
  size_t cases = 0;
  /* One message key (IV 9 throughout) and a key cache for open: the trailer
   * is what varies, and a key-tree derivation per call would be most of
   * this test's time (minutes under qemu). */
  uint8_t key[32];
  CHECK_RC(gostx_esp_tree_key(&sa, 0, key), 0, "tree");
  gostx_esp_keycache kc;
  gostx_esp_keycache_init(&kc);
  for (size_t len = 4; len <= 264; len += 4)
    for (unsigned pad = 0; pad < 256; pad++) {
      if (len > 24 && len < 252 && pad % 17) continue; /* fewer of the middle */
      for (int wrong = -1; wrong < (int)pad && wrong < (int)len - 2; wrong++) {
        if (wrong > 2 && wrong < (int)pad - 2) continue;
        t_rand_bytes(body, len);
        const size_t room = len - 2;
        size_t plen = pad <= room ? room - pad : 0;
        for (unsigned i = 0; i < pad && plen + i < room; i++) body[plen + i] = (uint8_t)(i + 1);
        if (wrong >= 0 && plen + (size_t)wrong < room) body[plen + (size_t)wrong] ^= 0x40;
        body[len - 2] = (uint8_t)pad;
        body[len - 1] = 17;
        /* the plain reading */
        int ok = pad <= room;
        for (unsigned i = 0; ok && i < pad; i++) ok = body[plen + i] == (uint8_t)(i + 1);
        const size_t n = seal_body_key(&sa, key, 9, 9, body, len, pkt);
        size_t m = 12345;
        uint8_t nh = 0;
        uint64_t seq = 0;
        memset(out, 0xa5, sizeof out);
        int rc = open_flat(&sa, &kc, NULL, pkt, n, out, sizeof out, &m, &nh, &seq);
        if (ok) {
          CHECK(rc == 0 && m == plen && nh == 17 && seq == 9 && memcmp(out, body, plen) == 0,
                "len %zu pad %u: accepted (rc %d)", len, pad, rc);
        } else {
          CHECK(rc == GOSTX_EFORMAT && m == 12345, "len %zu pad %u wrong %d: refused (rc %d)", len,
                pad, wrong, rc);
          size_t nz = 0;
          for (size_t i = 0; i < len; i++) nz += out[i] != 0;
          CHECK(nz == 0, "refused trailer: the body is zeroed");
        }
        /* the burst's check is the same */
        gostx_esp_packet b = {.in = pkt, .len = n, .out = out, .cap = sizeof out};
        int brc = gostx_esp_open_burst(&sa, &kc, NULL, &b, 1);
        CHECK(brc == rc && b.status == rc && (!ok || b.out_len == plen), "burst: same verdict");
        cases++;
      }
    }
  CHECK(cases > 1000, "trailer cases %zu", cases);
  gostx_esp_keycache_clear(&kc);
}

/* Opens pkt against a fresh window, one-packet and in a burst: each gives
 * the payload, next header and sequence number wanted. */
static void opens_to(const gostx_esp_sa *sa, gostx_esp_keycache *kc, const uint8_t *pkt, size_t n,
                     const uint8_t *pay, size_t len, uint8_t nh_want, uint64_t seq,
                     const char *name) {
  static uint8_t out[2048], again[2048];
  gostx_esp_replay w;
  gostx_esp_replay_init(&w);
  size_t m = 0;
  uint8_t nh = 0;
  uint64_t got = 0;
  CHECK_RC(open_flat(sa, kc, &w, pkt, n, out, sizeof out, &m, &nh, &got), 0, "open");
  CHECK(m == len && nh == nh_want && got == seq && memcmp(out, pay, len) == 0,
        "%s: open gives the payload, next header and sequence number", name);
  gostx_esp_packet b = {.in = pkt, .len = n, .out = again, .cap = sizeof again};
  CHECK_RC(gostx_esp_open_burst(sa, NULL, &w, &b, 1), 0, "open burst");
  CHECK(b.out_len == len && b.next_header == nh_want && b.seq == seq &&
            memcmp(again, pay, len) == 0,
        "%s: the burst too", name);
}

/* Whole packets from other implementations (tests/vectors/esp9227.json
 * "packets": a kernel module's Kuznyechik packet, and packets of both
 * transforms from RustCrypto's crates; IVs that are not gostx's IV = ESN,
 * ESN on and off): gostx opens them, one packet and in a burst, against a
 * fresh window; the bytes are those of gostx's layout (padding, nonce, AAD)
 * sealed under the IV the packet carries; and with the ESN setting flipped,
 * the same packet fails its ICV. */
static void test_packet_vectors(void) {
  json *f = tv_load("esp9227.json");
  json *ps = json_get(f, "packets");
  CHECK(ps && json_len(ps) > 0, "packet vectors present");
  size_t per[2] = {0, 0}; /* packets of Kuznyechik, Magma */
  for (size_t i = 0; ps && i < json_len(ps); i++) {
    json *c = json_at(ps, i);
    size_t kml, sl, pl, yl, ml;
    uint8_t *km = tv_hex(c, "keymat", &kml), *spi = tv_hex(c, "spi", &sl);
    uint8_t *pkt = tv_hex(c, "packet", &pl), *pay = tv_hex(c, "payload", &yl);
    uint8_t *mk = tv_hex(c, "message_key", &ml);
    const uint64_t seq = (uint64_t)tv_int(c, "seq");
    const int nh_want = (int)tv_int(c, "next_header");
    const int esn = json_num(json_get(c, "esn")) != 0;
    const gostx_esp_transform t =
        kml == 44 ? GOSTX_ESP_KUZNYECHIK_MGM_KTREE : GOSTX_ESP_MAGMA_MGM_KTREE;
    per[t == GOSTX_ESP_MAGMA_MGM_KTREE]++;
    gostx_esp_sa sa;
    CHECK_RC(gostx_esp_sa_init(&sa, t, be32(spi), km, kml), 0, "sa_init");
    CHECK_RC(gostx_esp_sa_set_esn(&sa, esn), 0, "set_esn");
    const uint64_t iv = (uint64_t)be32(pkt + 8) << 32 | be32(pkt + 12);
    uint8_t k[32];
    CHECK_RC(gostx_esp_tree_key(&sa, iv >> 24, k), 0, "tree");
    CHECK_BYTES(k, mk, 32, "message key of the packet's IV");
    static uint8_t out[2048], again[2048], body[2048];
    size_t m = 0;
    uint8_t nh = 0;
    uint64_t got = 0;
    gostx_esp_keycache kc;
    gostx_esp_keycache_init(&kc);
    opens_to(&sa, &kc, pkt, pl, pay, yl, (uint8_t)nh_want, seq, "packet vector");
    /* the same bytes from gostx's layout under the packet's IV */
    const size_t blen = trailer_body(pay, yl, (uint8_t)nh_want, body);
    const size_t n = seal_body(&sa, seq, iv, body, blen, again);
    CHECK(n == pl && memcmp(again, pkt, pl) == 0, "packet vector %zu = gostx's layout", i);
    /* the AAD is SPI | ESN with ESN, SPI | SN without: the other setting
     * authenticates other bytes, so the packet's ICV fails there */
    CHECK_RC(gostx_esp_sa_set_esn(&sa, !esn), 0, "esn flipped");
    const int flipped = open_flat(&sa, NULL, NULL, pkt, pl, out, sizeof out, &m, &nh, &got);
    CHECK(flipped == GOSTX_EAUTH, "packet vector %zu with ESN %s: its ICV fails (%d)", i,
          esn ? "off" : "on", flipped);
    free(km), free(spi), free(pkt), free(pay), free(mk);
  }
  CHECK(per[0] >= 3 && per[1] >= 3, "packets of both transforms (%zu, %zu)", per[0], per[1]);
  json_free(f);
}

/* Opens pkt (n bytes) with every bit flipped in turn: each refused, with
 * nothing written. */
static void every_flip_refused(const gostx_esp_sa *sa, gostx_esp_keycache *kc, const uint8_t *pkt,
                               size_t n, const char *name) {
  static uint8_t bad[2048], out[2048];
  size_t refused = 0, untouched = 0;
  for (size_t i = 0; i < n * 8; i++) {
    memcpy(bad, pkt, n);
    bad[i / 8] ^= (uint8_t)(1 << (i % 8));
    memset(out, 0xa5, n);
    size_t m = 0;
    uint8_t nh;
    uint64_t seq;
    refused += open_flat(sa, kc, NULL, bad, n, out, sizeof out, &m, &nh, &seq) != 0;
    size_t same = 0;
    for (size_t j = 0; j < n; j++) same += out[j] == 0xa5;
    untouched += same == n;
  }
  CHECK(refused == n * 8 && untouched == n * 8, "%s: %zu of %zu bit flips refused, %zu untouched",
        name, refused, n * 8, untouched);
}

/* RFC 9227 Appendix A's eight examples, two of each transform
 * (tests/vectors/esp9227.json "rfc9227", read from the RFC's text by
 * tests/vectors/gen/esp9227-rfc): the message key of the IV; the printed
 * AAD is the packet's SPI | SN (integrity only: SPI | SN | IV | body);
 * MGM's one-shot call over the printed nonce, AAD and plaintext gives the
 * printed ciphertext and ICV; gostx_esp_seal_iv gives the packet byte for
 * byte, and so do gostx_esp_seal and the burst where the IV is ESN - 1 (each
 * first example: SN 1, IV 0); open, one-packet and burst, gives the payload
 * back; every flipped bit is refused; with ESN on the ICV fails. */
static void test_rfc9227_examples(void) {
  json *f = tv_load("esp9227.json");
  json *cases = json_get(json_get(f, "rfc9227"), "cases");
  CHECK(cases && json_len(cases) == 8, "RFC 9227's eight examples");
  size_t per[4] = {0, 0, 0, 0}, by_seal = 0;
  for (size_t i = 0; cases && i < json_len(cases); i++) {
    json *c = json_at(cases, i);
    const char *name = json_str(json_get(c, "example"));
    size_t kml, el, yl, ml, nl, al, pl, cl, il, sl;
    uint8_t *km = tv_hex(c, "keymat", &kml), *esp = tv_hex(c, "esp", &el);
    uint8_t *pay = tv_hex(c, "payload", &yl), *mk = tv_hex(c, "message_key", &ml);
    uint8_t *nonce = tv_hex(c, "nonce", &nl), *aad = tv_hex(c, "aad", &al);
    uint8_t *pt = tv_hex(c, "plaintext", &pl), *ct = tv_hex(c, "ciphertext", &cl);
    uint8_t *icv = tv_hex(c, "icv", &il), *spi = tv_hex(c, "spi", &sl);
    const gostx_esp_transform t = (gostx_esp_transform)tv_int(c, "transform_id");
    const uint64_t seq = (uint64_t)tv_int(c, "seq");
    const uint64_t iv = (uint64_t)tv_int(c, "i1") << 56 | (uint64_t)tv_int(c, "i2") << 40 |
                        (uint64_t)tv_int(c, "i3") << 24 | (uint64_t)tv_int(c, "pnum");
    const uint8_t nh_want = (uint8_t)tv_int(c, "next_header");
    gostx_esp_sa sa;
    CHECK_RC(gostx_esp_sa_init(&sa, t, be32(spi), km, kml), 0, "sa_init");
    CHECK_RC(gostx_esp_sa_set_esn(&sa, 0), 0, "esn off");
    per[(t - 32) & 3]++;
    uint8_t k[32];
    CHECK_RC(gostx_esp_tree_key(&sa, iv >> 24, k), 0, "tree");
    CHECK_BYTES(k, mk, 32, name);
    CHECK(il == sa.icv_len && al == (mac_only(t) ? el - il : 8) && memcmp(aad, esp, al) == 0,
          "%s: the AAD is the packet's SPI | SN%s", name, mac_only(t) ? " | IV | body" : "");
    /* the reference path: MGM's one-shot call on the printed values */
    static uint8_t out[2048], tag[16], again[2048];
    gostx_cipher mc;
    CHECK_RC(gostx_cipher_init(&mc, sa.alg, mk), 0, "cipher");
    CHECK_RC(gostx_mgm_encrypt(&mc, nonce, aad, al, pl ? pt : NULL, pl, pl ? out : NULL, tag,
                               il),
             0, "mgm");
    CHECK(cl == pl && memcmp(out, ct, cl) == 0 && memcmp(tag, icv, il) == 0,
          "%s: MGM gives the printed ciphertext and ICV", name);
    gostx_cipher_clear(&mc);
    /* seal */
    gostx_esp_keycache kc;
    gostx_esp_keycache_init(&kc);
    size_t n = 0;
    CHECK_RC(seal_iv_flat(&sa, &kc, seq, iv, nh_want, pay, yl, out, sizeof out, &n), 0,
             "seal_iv");
    CHECK(n == el && memcmp(out, esp, el) == 0, "%s: gostx_esp_seal_iv gives the packet", name);
    if (iv == seq - 1) {
      memset(out, 0, sizeof out);
      CHECK_RC(gostx_esp_seal(&sa, NULL, seq, nh_want, pay, yl, out, sizeof out, &n), 0, "seal");
      gostx_esp_packet b = {.in = pay, .len = yl, .out = again, .cap = sizeof again,
                           .next_header = nh_want};
      CHECK_RC(gostx_esp_seal_burst(&sa, NULL, seq, &b, 1), 0, "seal burst");
      CHECK(n == el && memcmp(out, esp, el) == 0 && b.out_len == el &&
                memcmp(again, esp, el) == 0,
            "%s: gostx_esp_seal and the burst give the packet (IV = ESN - 1)", name);
      by_seal++;
    }
    opens_to(&sa, &kc, esp, el, pay, yl, nh_want, seq, name);
    size_t m = 0;
    uint8_t nh = 0;
    uint64_t got = 0;
    every_flip_refused(&sa, &kc, esp, el, name);
    CHECK_RC(gostx_esp_sa_set_esn(&sa, 1), 0, "esn on");
    CHECK_RC(open_flat(&sa, &kc, NULL, esp, el, out, sizeof out, &m, &nh, &got), GOSTX_EAUTH,
             "with ESN on (AAD SPI | ESN) its ICV fails");
    gostx_esp_keycache_clear(&kc);
    free(km), free(esp), free(pay), free(mk), free(nonce), free(aad), free(pt), free(ct);
    free(icv), free(spi);
  }
  CHECK(per[0] == 2 && per[1] == 2 && per[2] == 2 && per[3] == 2 && by_seal == 4,
        "two examples of each transform, four sealed by gostx_esp_seal");
  json_free(f);
}

/* Every transform against seal_body (MGM's one-shot call, the AAD in one
 * piece) on random payload sizes, sequence numbers and IVs, ESN on and off:
 * gostx_esp_seal_iv and gostx_esp_seal give the same bytes, and open gives
 * the payload back. */
static void test_reference(gostx_esp_transform t) {
  gostx_esp_sa sa;
  gostx_esp_keycache kc;
  gostx_esp_keycache_init(&kc);
  static uint8_t pay[3000], body[3100], want[3200], got[3200], out[3200];
  for (int r = 0; r < 48; r++) {
    const int esn = r & 1;
    make_sa(&sa, t, 0x2468, 6); /* ESN off lowers the limit for good */
    CHECK_RC(gostx_esp_sa_set_esn(&sa, esn), 0, "esn");
    const size_t len = 1 + t_rand_below(r < 32 ? 300 : 2900);
    uint64_t seq = t_rand(), iv = t_rand();
    if (!esn) seq &= 0xffffffffu;
    if (r % 8 == 0) seq = 1 + t_rand_below(5); /* the SA's first packets */
    if (!seq) seq = 1;
    const uint8_t nh = (uint8_t)t_rand();
    t_rand_bytes(pay, len);
    const size_t blen = trailer_body(pay, len, nh, body);
    size_t n = 0, wn = seal_body(&sa, seq, iv, body, blen, want);
    CHECK_RC(seal_iv_flat(&sa, &kc, seq, iv, nh, pay, len, got, sizeof got, &n), 0,
             "seal_iv");
    CHECK(n == wn && memcmp(got, want, n) == 0, "seal_iv = reference (len %zu, esn %d)", len, esn);
    wn = seal_body(&sa, seq, seq - 1, body, blen, want);
    CHECK_RC(gostx_esp_seal(&sa, &kc, seq, nh, pay, len, got, sizeof got, &n), 0, "seal");
    CHECK(n == wn && memcmp(got, want, n) == 0, "seal = reference (len %zu, esn %d)", len, esn);
    gostx_esp_replay w;
    gostx_esp_replay_init(&w);
    w.top = seq - 1; /* the window just below, so the ESN is inferred */
    size_t m = 0;
    uint8_t gnh = 0;
    uint64_t gseq = 0;
    CHECK_RC(open_flat(&sa, &kc, &w, got, n, out, sizeof out, &m, &gnh, &gseq), 0, "open");
    CHECK(m == len && gnh == nh && gseq == seq && memcmp(out, pay, len) == 0, "round trip");
  }
  gostx_esp_keycache_clear(&kc);
}

/* Without ESN: AAD SPI | SN, 32-bit numbers (limit 2^32 - 1), the SN as it
 * stands (no inference); round trip and the ESN-on peer refusing. */
static void test_no_esn(gostx_esp_transform t) {
  gostx_esp_sa sa;
  make_sa(&sa, t, 0x8008, 4);
  CHECK_RC(gostx_esp_sa_set_esn(&sa, 0), 0, "esn off");
  CHECK(sa.limit == 0xffffffffu, "limit 2^32 - 1");
  CHECK_RC(gostx_esp_sa_set_esn(&sa, 2), GOSTX_EINVAL, "esn 2");
  uint8_t p[40], pkt[128], out[128];
  size_t n = 0, m = 0;
  uint8_t nh;
  uint64_t seq;
  t_rand_bytes(p, sizeof p);
  CHECK_RC(gostx_esp_seal(&sa, NULL, 0x100000000ULL, 4, p, sizeof p, pkt, sizeof pkt, &n),
           GOSTX_ESTATE, "2^32 refused without ESN");
  CHECK_RC(gostx_esp_seal(&sa, NULL, 0xfffffffeULL, 4, p, sizeof p, pkt, sizeof pkt, &n), 0,
           "seal");
  gostx_esp_replay w;
  gostx_esp_replay_init(&w);
  w.top = 5; /* with ESN this low half would be read as span 0 too; here it is the number */
  CHECK_RC(open_flat(&sa, NULL, &w, pkt, n, out, sizeof out, &m, &nh, &seq), 0, "open");
  CHECK(seq == 0xfffffffeULL && m == sizeof p && memcmp(out, p, m) == 0, "round trip");
  gostx_esp_sa esn_on;
  make_sa(&esn_on, t, 0x8008, 4);
  gostx_esp_replay_init(&w);
  w.top = 0xfffffff0u; /* so that the ESN it infers is 0xfffffffe too */
  CHECK_RC(open_flat(&esn_on, NULL, &w, pkt, n, out, sizeof out, &m, &nh, &seq),
           GOSTX_EAUTH, "an ESN peer refuses it (its AAD differs)");
}

static void test_roundtrip(gostx_esp_transform t) {
  gostx_esp_sa tx, rx;
  make_sa(&tx, t, 0x5000, 9);
  make_sa(&rx, t, 0x5000, 9);
  gostx_esp_keycache ktx, krx;
  gostx_esp_keycache_init(&ktx);
  gostx_esp_keycache_init(&krx);
  static uint8_t payload[65535], pkt[65535 + 64], out[65535 + 64];
  static const size_t lens[] = {1, 2, 3, 4, 5, 15, 16, 17, 63, 64, 65, 1399, 1400, 9000, 65535};
  static const uint64_t seqs[] = {1, 2, (1u << 24) - 1, 1u << 24, (1ULL << 32) + 5,
                                  (1ULL << 40) + 7, UINT64_MAX};
  for (size_t s = 0; s < sizeof seqs / sizeof *seqs; s++)
    for (size_t l = 0; l < sizeof lens / sizeof *lens; l++) {
      size_t len = lens[l], n = 0, m = 0;
      t_rand_bytes(payload, len);
      CHECK_RC(gostx_esp_seal(&tx, &ktx, seqs[s], 41, payload, len, pkt, sizeof pkt, &n), 0,
               "seal");
      CHECK(n == gostx_esp_sealed_len(&tx, len) && (n - 16 - tx.icv_len) % 4 == 0, "len");
      gostx_esp_replay w;
      gostx_esp_replay_init(&w);
      w.top = seqs[s] > 1 ? seqs[s] - 1 : 0; /* the window just below, so the ESN is inferred */
      uint8_t nh = 0;
      uint64_t got = 0;
      CHECK_RC(open_flat(&rx, &krx, &w, pkt, n, out, sizeof out, &m, &nh, &got), 0, "open");
      CHECK(m == len && nh == 41 && got == seqs[s], "len %zu nh %u seq", m, nh);
      CHECK(memcmp(out, payload, len) == 0, "payload %zu", len);
    }
  /* in place: the payload already at pkt + 16 */
  size_t n = 0, m = 0;
  t_rand_bytes(payload, 100);
  memcpy(pkt + 16, payload, 100);
  CHECK_RC(gostx_esp_seal(&tx, &ktx, 77, 4, pkt + 16, 100, pkt, sizeof pkt, &n), 0, "in place");
  uint8_t nh;
  uint64_t got;
  CHECK_RC(open_flat(&rx, &krx, NULL, pkt, n, out, sizeof out, &m, &nh, &got), 0, "open");
  CHECK(m == 100 && memcmp(out, payload, 100) == 0, "in-place payload");
  /* another transform or key does not open it */
  gostx_esp_sa other;
  make_sa(&other, t, 0x5000, 10);
  CHECK_RC(open_flat(&other, NULL, NULL, pkt, n, out, sizeof out, &m, &nh, &got), GOSTX_EAUTH,
           "other key");
}

static void test_tamper(gostx_esp_transform t) {
  gostx_esp_sa sa;
  make_sa(&sa, t, 0x7777, 1);
  uint8_t payload[200], pkt[300], bad[300], out[300];
  t_rand_bytes(payload, sizeof payload);
  size_t n = 0, m;
  uint8_t nh;
  uint64_t seq;
  CHECK_RC(gostx_esp_seal(&sa, NULL, 1000, 4, payload, sizeof payload, pkt, sizeof pkt, &n), 0,
           "seal");
  for (size_t i = 0; i < n; i++) {
    for (int b = 0; b < 8; b += 3) {
      memcpy(bad, pkt, n);
      bad[i] ^= (uint8_t)(1 << b);
      memset(out, 0xa5, sizeof out);
      int rc = open_flat(&sa, NULL, NULL, bad, n, out, sizeof out, &m, &nh, &seq);
      CHECK(rc == (i < 4 ? GOSTX_EINVAL : GOSTX_EAUTH), "flip byte %zu bit %d: rc %d", i, b, rc);
      int untouched = 1;
      for (size_t j = 0; j < sizeof out; j++) untouched &= out[j] == 0xa5;
      CHECK(untouched, "nothing written on failure (byte %zu)", i);
    }
  }
  /* truncated: every length short of the packet */
  for (size_t l = 0; l < n; l++) {
    int rc = open_flat(&sa, NULL, NULL, pkt, l, out, sizeof out, &m, &nh, &seq);
    CHECK(rc == GOSTX_EFORMAT || rc == GOSTX_EAUTH, "truncated to %zu: rc %d", l, rc);
  }
  /* extended by 4 bytes of junk */
  memcpy(bad, pkt, n);
  memset(bad + n, 0, 4);
  CHECK_RC(open_flat(&sa, NULL, NULL, bad, n + 4, out, sizeof out, &m, &nh, &seq),
           GOSTX_EAUTH, "extended");
}

static void test_replay(gostx_esp_transform t) {
  gostx_esp_sa sa;
  make_sa(&sa, t, 0x4242, 5);
  gostx_esp_replay w;
  gostx_esp_replay_init(&w);
  gostx_esp_keycache kc;
  gostx_esp_keycache_init(&kc);
  uint8_t p[8] = {1, 2, 3, 4, 5, 6, 7, 8}, pkt[64], out[64], nh;
  size_t n, m;
  uint64_t seq;
  /* 3000 packets received in a shuffled order inside the window: each once */
  enum { N = 3000 };
  static uint8_t pkts[N][64];
  static size_t lens[N];
  for (uint64_t s = 1; s <= N; s++)
    CHECK_RC(gostx_esp_seal(&sa, &kc, s, 4, p, 8, pkts[s - 1], 64, &lens[s - 1]), 0, "seal");
  size_t order[N];
  for (size_t i = 0; i < N; i++) order[i] = i;
  for (size_t i = 0; i < N; i++) { /* shuffled in blocks of 1000: displacement < 1000 */
    size_t end = (i / 1000 + 1) * 1000, j = i + t_rand_below(end - i);
    size_t x = order[i];
    order[i] = order[j], order[j] = x;
  }
  size_t accepted = 0;
  for (size_t k = 0; k < N; k++) {
    size_t i = order[k];
    int rc = open_flat(&sa, &kc, &w, pkts[i], lens[i], out, sizeof out, &m, &nh, &seq);
    if (rc == 0) {
      CHECK_RC(gostx_esp_replay_update(&w, seq), 0, "update");
      CHECK(seq == i + 1, "seq");
      accepted++;
    } else {
      CHECK(0, "packet %zu refused: rc %d", i + 1, rc);
    }
    /* the same packet again: always refused */
    rc = open_flat(&sa, &kc, &w, pkts[i], lens[i], out, sizeof out, &m, &nh, &seq);
    CHECK(rc == GOSTX_ESTATE, "replay of %zu: rc %d", i + 1, rc);
  }
  CHECK(accepted == N, "accepted %zu", accepted);
  /* far left of the window: refused as old, whatever the ESN inference */
  CHECK_RC(gostx_esp_replay_update(&w, 100000), 0, "move");
  CHECK_RC(open_flat(&sa, &kc, &w, pkts[0], lens[0], out, sizeof out, &m, &nh, &seq),
           GOSTX_ESTATE, "left of window");
  /* left edge: top - 2047 still in, top - 2048 out */
  gostx_esp_replay w2;
  gostx_esp_replay_init(&w2);
  CHECK_RC(gostx_esp_replay_update(&w2, 10000), 0, "10000");
  CHECK_RC(gostx_esp_replay_check(&w2, 10000 - GOSTX_ESP_WINDOW + 1), 0, "edge in");
  CHECK_RC(gostx_esp_replay_check(&w2, 10000 - GOSTX_ESP_WINDOW), GOSTX_ESTATE, "edge out");
  CHECK_RC(gostx_esp_replay_check(&w2, 0), GOSTX_ESTATE, "zero");
  /* a big jump clears the window; the bits it uncovers are fresh */
  CHECK_RC(gostx_esp_replay_update(&w2, 10000 + 5 * GOSTX_ESP_WINDOW), 0, "jump");
  CHECK_RC(gostx_esp_replay_check(&w2, 10000 + 4 * GOSTX_ESP_WINDOW + 1), 0, "fresh after jump");
  CHECK_RC(gostx_esp_replay_update(&w2, 10000 + 5 * GOSTX_ESP_WINDOW), GOSTX_ESTATE, "twice");
  (void)n;
  (void)pkt;
}

/* ESN: a sender crossing 2^32 while the receiver sees only the low half. */
static void test_esn(gostx_esp_transform t) {
  gostx_esp_sa sa;
  make_sa(&sa, t, 0x9999, 2);
  gostx_esp_replay w;
  gostx_esp_replay_init(&w);
  w.top = (1ULL << 32) - 100;
  uint8_t p[20] = {0}, pkt[64], out[64], nh;
  size_t n, m;
  uint64_t seq = 0;
  for (uint64_t s = (1ULL << 32) - 99; s < (1ULL << 32) + 100; s += 7) {
    CHECK_RC(gostx_esp_seal(&sa, NULL, s, 4, p, sizeof p, pkt, sizeof pkt, &n), 0, "seal");
    CHECK_RC(open_flat(&sa, NULL, &w, pkt, n, out, sizeof out, &m, &nh, &seq), 0, "open");
    CHECK(seq == s, "ESN %llx", (unsigned long long)seq);
    CHECK_RC(gostx_esp_replay_update(&w, seq), 0, "update");
  }
  CHECK(gostx_esp_replay_esn(&w, 5) == (1ULL << 32) + 5, "esn right");
  CHECK(gostx_esp_replay_esn(&w, 0xffffffffu) == 0xffffffffULL, "esn just left");
}

static void test_limits(gostx_esp_transform t) {
  gostx_esp_sa sa;
  make_sa(&sa, t, 0x3333, 4);
  uint8_t p[16] = {0}, pkt[64];
  size_t n;
  CHECK_RC(gostx_esp_seal(&sa, NULL, 0, 4, p, 16, pkt, sizeof pkt, &n), GOSTX_ESTATE, "seq 0");
  CHECK_RC(gostx_esp_seal(&sa, NULL, UINT64_MAX, 4, p, 16, pkt, sizeof pkt, &n), 0, "last");
  CHECK_RC(gostx_esp_sa_set_limit(&sa, 5), 0, "limit");
  CHECK_RC(gostx_esp_seal(&sa, NULL, 5, 4, p, 16, pkt, sizeof pkt, &n), 0, "at limit");
  CHECK_RC(gostx_esp_seal(&sa, NULL, 6, 4, p, 16, pkt, sizeof pkt, &n), GOSTX_ESTATE, "past");
  CHECK_RC(gostx_esp_seal(&sa, NULL, 1, 4, p, 0, pkt, sizeof pkt, &n), GOSTX_ELEN, "empty");
  CHECK_RC(gostx_esp_seal(&sa, NULL, 1, 4, p, 16, pkt, 20, &n), GOSTX_ELEN, "small out");
  uint8_t km[44] = {0};
  gostx_esp_sa x;
  CHECK_RC(gostx_esp_sa_init(&x, t, 255, km, 32 + gostx_esp_salt_len(t)), GOSTX_EINVAL, "spi");
  CHECK_RC(gostx_esp_sa_init(&x, t, 256, km, 32), GOSTX_ELEN, "keymat without salt");
  CHECK_RC(gostx_esp_sa_init(&x, (gostx_esp_transform)36, 256, km, 44), GOSTX_EINVAL, "36");
  CHECK_RC(gostx_esp_sa_init(&x, (gostx_esp_transform)31, 256, km, 44), GOSTX_EINVAL, "31");
}

/* Bursts equal the one-packet calls byte for byte, short packets (the
 * batch path) and long ones, across a message-key boundary, with tampered
 * and bad packets among them. */
static void test_burst(gostx_esp_transform t) {
  enum { N = 40 };
  gostx_esp_sa sa;
  make_sa(&sa, t, 0x6006, 8);
  gostx_esp_keycache kc, kc2;
  gostx_esp_keycache_init(&kc);
  gostx_esp_keycache_init(&kc2);
  static uint8_t pay[N][1500], one[N][1600], pk[N][1600], got[N][1600];
  size_t lens[N], one_len[N];
  gostx_esp_packet b[N];
  uint64_t first = (1u << 24) - 7; /* the key changes inside the burst */
  for (size_t i = 0; i < N; i++) {
    lens[i] = i % 3 == 0 ? 1 + t_rand_below(1400) : 1 + t_rand_below(140);
    t_rand_bytes(pay[i], lens[i]);
    CHECK_RC(gostx_esp_seal(&sa, NULL, first + i, 4, pay[i], lens[i], one[i], 1600, &one_len[i]),
             0, "one");
    b[i] = (gostx_esp_packet){.in = pay[i], .len = lens[i], .out = pk[i], .cap = 1600,
                             .next_header = 4};
  }
  b[5].len = 0; /* a bad one among them */
  CHECK_RC(gostx_esp_seal_burst(&sa, &kc, first, b, N), GOSTX_ELEN, "seal burst");
  for (size_t i = 0; i < N; i++) {
    if (i == 5) {
      CHECK(b[i].status == GOSTX_ELEN && b[i].out_len == 0, "bad packet refused");
      continue;
    }
    CHECK(b[i].status == 0 && b[i].seq == first + i, "status %zu", i);
    CHECK(b[i].out_len == one_len[i] && memcmp(pk[i], one[i], one_len[i]) == 0,
          "burst packet %zu (len %zu) = one-packet seal", i, lens[i]);
  }
  CHECK(kc.valid && kc.index == (first + N - 2) >> 24, "cache holds the newer key (IV = ESN - 1)");
  /* open: tamper with a short and a long one; packet 5 is the one-packet seal */
  memcpy(pk[5], one[5], one_len[5]);
  size_t small = 1, big = 0;
  pk[small][20] ^= 1;
  pk[big][one_len[big] - 1] ^= 0x80;
  gostx_esp_replay w;
  gostx_esp_replay_init(&w);
  for (size_t i = 0; i < N; i++) {
    memset(got[i], 0xa5, sizeof got[i]);
    b[i] = (gostx_esp_packet){.in = pk[i], .len = one_len[i], .out = got[i], .cap = 1600};
  }
  CHECK_RC(gostx_esp_open_burst(&sa, &kc2, &w, b, N), GOSTX_EAUTH, "open burst");
  for (size_t i = 0; i < N; i++) {
    if (i == small || i == big) {
      CHECK(b[i].status == GOSTX_EAUTH && got[i][0] == 0xa5 && got[i][lens[i] - 1] == 0xa5,
            "tampered %zu refused, nothing written", i);
      continue;
    }
    CHECK(b[i].status == 0 && b[i].seq == first + i && b[i].out_len == lens[i] &&
              b[i].next_header == 4 && memcmp(got[i], pay[i], lens[i]) == 0,
          "opened %zu", i);
  }
  CHECK_RC(gostx_esp_seal_burst(&sa, &kc, 1, b, GOSTX_ESP_BURST_MAX + 1), GOSTX_EINVAL, "too many");
}

/* A steady-state burst of short and long packets, sealed and opened (the
 * short ones through the MGM stream batch), allocates nothing. */
static void test_burst_no_alloc(gostx_esp_transform t) {
#if COUNT_ALLOCS
  enum { N = GOSTX_ESP_BURST_MAX };
  gostx_esp_sa sa;
  make_sa(&sa, t, 0x7007, 9);
  gostx_esp_keycache kc, kc2;
  gostx_esp_keycache_init(&kc);
  gostx_esp_keycache_init(&kc2);
  gostx_esp_replay w;
  gostx_esp_replay_init(&w);
  static uint8_t pay[N][1500], pk[N][1600], got[N][1600];
  gostx_esp_packet b[N];
  uint64_t seq = 1;
  unsigned long during = 0;
  for (int round = 0; round < 3; round++) { /* round 0 warms the key caches */
    const unsigned long before = atomic_load(&n_allocs);
    for (size_t i = 0; i < N; i++) {
      const size_t len = i % 4 == 0 ? 1400 : 40 + i;
      t_rand_bytes(pay[i], len);
      b[i] = (gostx_esp_packet){.in = pay[i], .len = len, .out = pk[i], .cap = 1600,
                               .next_header = 4};
    }
    CHECK_RC(gostx_esp_seal_burst(&sa, &kc, seq, b, N), 0, "seal burst");
    for (size_t i = 0; i < N; i++)
      b[i] = (gostx_esp_packet){.in = pk[i], .len = b[i].out_len, .out = got[i], .cap = 1600};
    CHECK_RC(gostx_esp_open_burst(&sa, &kc2, &w, b, N), 0, "open burst");
    seq += N;
    if (round) during += atomic_load(&n_allocs) - before;
  }
  CHECK(during == 0, "steady-state bursts allocated %lu times", during);
#else
  (void)t;
  printf("note: allocation count not checked (sanitizer build or not glibc)\n");
#endif
}

int main(void) {
  t_rand_init();
  test_rfc9227_examples();
  test_tree_vectors();
  test_packet_vectors();
  for (size_t i = 0; i < N_TRANSFORMS; i++) {
    test_layout(transforms[i]);
    test_reference(transforms[i]);
    test_trailer(transforms[i]);
    test_no_esn(transforms[i]);
    test_roundtrip(transforms[i]);
    test_tamper(transforms[i]);
    test_replay(transforms[i]);
    test_esn(transforms[i]);
    test_limits(transforms[i]);
    test_burst(transforms[i]);
    test_burst_no_alloc(transforms[i]);
  }
  return t_done();
}
