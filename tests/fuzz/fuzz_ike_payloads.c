/* libFuzzer harness: the IKEv2 codec (lib/ike/codec.c) and the Encrypted
 * payload's open (lib/ike/sk.c), as a responder meets untrusted datagrams.
 *
 * Input: byte 0 picks what the rest is: bit 0 clear, a whole message
 * (header, chain, every payload's typed reader, then the message opened as
 * an SK message under A.1's SK_ei and, when that succeeds, its inside read
 * as a chain); bit 0 set, the inside of an Encrypted payload whose first
 * payload's type is byte 1; byte 0 = 2, IKE fragment messages (RFC 7383),
 * each after its 2-octet length, offered to one reassembly set (Message
 * ID 1) under A.2.1's SK_ei (Magma-MGM-KTREE), and when it completes, the
 * whole inside read as a chain; byte 0 = 3, a peer's DER_ASN1_DN ID
 * against DN patterns (lib/ike/idmatch.c's walk of the DER Name, 0 or 1
 * back). A whole message also meets the readers
 * outside an IKE SA (lib/ike/outside.c): the INVALID_IKE_SPI answer and
 * the hint reader.
 *
 * Asserts (abort on the first violation):
 *  - nothing crashes or reads or writes out of bounds (ASan);
 *  - every payload the chain reader reports lies inside the input, and the
 *    return values are the documented ones;
 *  - what a typed reader accepts, written again by the writer and read
 *    again, reads to the same fields (SA, TS, Notify, Delete, KE, ID, AUTH,
 *    CERT, CP): the reader and the writer agree on every accepted input; the
 *    chain's SIGNATURE_HASH_ALGORITHMS read as found, absent or malformed;
 *  - reassembly holds no more than its buffer and GOSTX_IKE_FRAG_MAX
 *    fragments, a refused fragment leaves the set as it was, and a complete
 *    set gives back exactly the content it held;
 *  - INVALID_IKE_SPI answers only an encrypted request, under its SPIs and
 *    Message ID, and the answer reads back as that hint; a hint is never
 *    read from a protected message. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ike/ike.h"

#define ASSERT(c)         \
  do {                    \
    if (!(c)) abort();    \
  } while (0)

static int documented(int rc) {
  return rc == GOSTX_OK || rc == GOSTX_EFORMAT || rc == GOSTX_ELEN || rc == GOSTX_EUNSUP ||
         rc == GOSTX_EAUTH;
}

/* The body just written by w (one payload after an empty inner writer). */
static const uint8_t *written(const gostx_ike_writer *w, size_t *len) {
  ASSERT(w->err == GOSTX_OK && w->len >= GOSTX_IKE_GEN_LEN);
  *len = w->len - GOSTX_IKE_GEN_LEN;
  return w->buf + GOSTX_IKE_GEN_LEN;
}

static void sa_round_trip(const gostx_ike_payload *p) {
  static gostx_ike_sa a, b;
  static uint8_t buf[70000];
  if (gostx__ike_sa_read(p->body, p->len, &a) != GOSTX_OK) return;
  ASSERT(a.n >= 1 && a.n <= GOSTX_IKE_MAX_PROPOSALS);
  int whole = !a.more;
  for (size_t i = 0; i < a.n; i++) {
    ASSERT(a.p[i].more ? a.p[i].n == 0 : a.p[i].n >= 1 && a.p[i].n <= GOSTX_IKE_MAX_TRANSFORMS);
    whole &= !a.p[i].more;
  }
  if (!whole) return; /* what was not kept cannot be written again */
  gostx_ike_writer w;
  gostx__ike_w_inner(&w, buf, sizeof buf);
  gostx__ike_w_sa(&w, &a);
  size_t l;
  const uint8_t *body = written(&w, &l);
  ASSERT(gostx__ike_sa_read(body, l, &b) == GOSTX_OK && b.n == a.n);
  for (size_t i = 0; i < a.n; i++) {
    ASSERT(a.p[i].num == b.p[i].num && a.p[i].proto == b.p[i].proto && a.p[i].n == b.p[i].n);
    ASSERT(a.p[i].spi_len == b.p[i].spi_len && !memcmp(a.p[i].spi, b.p[i].spi, a.p[i].spi_len));
    for (size_t j = 0; j < a.p[i].n; j++) {
      const gostx_ike_transform *x = &a.p[i].t[j], *y = &b.p[i].t[j];
      ASSERT(x->type == y->type && x->id == y->id && x->key_len == y->key_len);
    }
  }
}

static void ts_round_trip(const gostx_ike_payload *p) {
  static gostx_ike_ts_set a, b;
  static uint8_t buf[2048];
  if (gostx__ike_ts_read(p->body, p->len, &a) != GOSTX_OK) return;
  gostx_ike_writer w;
  gostx__ike_w_inner(&w, buf, sizeof buf);
  gostx__ike_w_ts(&w, p->type, &a);
  size_t l;
  const uint8_t *body = written(&w, &l);
  ASSERT(gostx__ike_ts_read(body, l, &b) == GOSTX_OK && b.n == a.n);
  ASSERT(!memcmp(a.ts, b.ts, a.n * sizeof a.ts[0]));
}

static void cp_round_trip(const gostx_ike_payload *p, gostx_ike_writer *w) {
  static gostx_ike_cp a, b;
  const int rc = gostx__ike_cp_read(p->body, p->len, &a);
  ASSERT(rc == GOSTX_OK || rc == GOSTX_EFORMAT || rc == GOSTX_EUNSUP);
  if (rc != GOSTX_OK) return;
  ASSERT(a.n <= GOSTX_IKE_CP_MAX_ATTRS && gostx__ike_cp_valid(&a) == GOSTX_OK);
  gostx__ike_w_cp(w, &a);
  size_t l;
  const uint8_t *body = written(w, &l);
  ASSERT(gostx__ike_cp_read(body, l, &b) == GOSTX_OK && b.n == a.n && !b.skipped);
  ASSERT(b.cfg_type == a.cfg_type && !memcmp(a.a, b.a, a.n * sizeof a.a[0]));
}

static void small_round_trip(const gostx_ike_payload *p) {
  static uint8_t buf[70000];
  gostx_ike_writer w;
  gostx__ike_w_inner(&w, buf, sizeof buf);
  const uint8_t *d, *d2;
  size_t dl, dl2, l;
  uint8_t o, o2;
  uint16_t g, g2;
  gostx_ike_notify n, n2;
  gostx_ike_delete del, del2;
  switch (p->type) {
  case GOSTX_IKE_PT_KE:
    if (gostx__ike_ke_read(p->body, p->len, &g, &d, &dl)) return;
    gostx__ike_w_ke(&w, g, d, dl);
    d2 = written(&w, &l);
    ASSERT(!gostx__ike_ke_read(d2, l, &g2, &d2, &dl2) && g == g2 && dl == dl2 && !memcmp(d, d2, dl));
    break;
  case GOSTX_IKE_PT_IDI:
  case GOSTX_IKE_PT_IDR:
  case GOSTX_IKE_PT_AUTH:
    if (gostx__ike_id_read(p->body, p->len, &o, &d, &dl)) return;
    gostx__ike_w_id(&w, p->type, o, d, dl);
    d2 = written(&w, &l);
    ASSERT(!gostx__ike_auth_read(d2, l, &o2, &d2, &dl2) && o == o2 && dl == dl2 && !memcmp(d, d2, dl));
    break;
  case GOSTX_IKE_PT_CERT:
  case GOSTX_IKE_PT_CERTREQ:
    if (p->type == GOSTX_IKE_PT_CERTREQ && !gostx__ike_certreq_read(p->body, p->len, &d2, &l))
      ASSERT(l && d2 == p->body + 1 && l * GOSTX_IKE_CA_HASH_LEN == p->len - 1); /* whole hashes */
    if (gostx__ike_cert_read(p->body, p->len, &o, &d, &dl)) return;
    gostx__ike_w_cert(&w, p->type, o, d, dl);
    d2 = written(&w, &l);
    ASSERT(!gostx__ike_cert_read(d2, l, &o2, &d2, &dl2) && o == o2 && dl == dl2 && !memcmp(d, d2, dl));
    break;
  case GOSTX_IKE_PT_NOTIFY:
    if (gostx__ike_notify_read(p->body, p->len, &n)) return;
    gostx__ike_w_notify(&w, &n);
    d2 = written(&w, &l);
    ASSERT(!gostx__ike_notify_read(d2, l, &n2) && n.type == n2.type && n.spi_len == n2.spi_len &&
           n.data_len == n2.data_len && !memcmp(n.data, n2.data, n.data_len));
    break;
  case GOSTX_IKE_PT_DELETE:
    if (gostx__ike_delete_read(p->body, p->len, &del)) return;
    gostx__ike_w_delete(&w, &del);
    d2 = written(&w, &l);
    ASSERT(!gostx__ike_delete_read(d2, l, &del2) && del.count == del2.count &&
           !memcmp(del.spis, del2.spis, (size_t)del.count * del.spi_len));
    break;
  case GOSTX_IKE_PT_NONCE:
    (void)gostx__ike_nonce_read(p->body, p->len);
    break;
  case GOSTX_IKE_PT_CP:
    cp_round_trip(p, &w);
    break;
  }
}

static void payloads(const gostx_ike_chain *c, const uint8_t *in, size_t len) {
  for (size_t i = 0; i < c->n; i++) {
    const gostx_ike_payload *p = &c->p[i];
    ASSERT(p->body >= in && p->len <= len && (size_t)(p->body - in) <= len - p->len);
    if (p->type == GOSTX_IKE_PT_SA) sa_round_trip(p);
    else if (p->type == GOSTX_IKE_PT_TSI || p->type == GOSTX_IKE_PT_TSR) ts_round_trip(p);
    else small_round_trip(p);
  }
  /* the chain's SIGNATURE_HASH_ALGORITHMS: found, absent (nothing listed) or malformed */
  uint32_t mask = 1;
  const int rc = gostx__ike_sig_hashes(c, &mask);
  ASSERT(rc == 1 || (rc == 0 && mask == 0) || rc == GOSTX_EFORMAT);
}

/* RFC 9385 A.1.1's SK_ei (Kuznyechik-MGM-KTREE), so that its IKE_AUTH
 * request, a seed, opens. */
static const uint8_t sk_ei[44] = {
    0x8c, 0x6d, 0xf1, 0x8f, 0x6a, 0xff, 0x9f, 0x1b, 0x3e, 0xbe, 0x40, 0xef, 0xe2, 0x64, 0xc2,
    0xbf, 0x8e, 0x6e, 0xd7, 0x4c, 0xb5, 0x8b, 0x0a, 0x74, 0xa7, 0x30, 0x0c, 0x21, 0x7e, 0x66,
    0xc7, 0xd4, 0x83, 0x00, 0x37, 0xc3, 0x08, 0x01, 0x7e, 0xc3, 0x0a, 0x71, 0x62, 0x01};

/* RFC 9385 A.2.1's SK_ei (Magma-MGM-KTREE), so that the initiator's four
 * IKE_AUTH fragments, a seed, open and rejoin. */
static const uint8_t sk_ei_a2[36] = {
    0x18, 0x4e, 0x4e, 0x0f, 0x36, 0x28, 0xbf, 0x3c, 0x9c, 0x04, 0x8e, 0x93,
    0xbf, 0xa0, 0x77, 0x53, 0x91, 0x34, 0x12, 0x81, 0x42, 0xe6, 0x4e, 0x62,
    0x7f, 0xdb, 0xa5, 0xed, 0x98, 0x60, 0x50, 0xff, 0xb4, 0xe1, 0x3e, 0x23};

static int reasm_documented(int rc) { return documented(rc) || rc == GOSTX_ESTATE; }

static void fragments(const uint8_t *in, size_t len) {
  static uint8_t held[6000], whole[6000];
  static gostx_ike_chain c;
  gostx_ike_sk sk;
  gostx_ike_reasm r;
  ASSERT(gostx__ike_sk_init(&sk, GOSTX_IKE_ENCR_MAGMA_MGM_KTREE, sk_ei_a2, sizeof sk_ei_a2) == 0);
  gostx__ike_reasm_init(&r, held, sizeof held, 1);
  while (len >= 2) {
    size_t fl = (size_t)in[0] << 8 | in[1];
    in += 2, len -= 2;
    if (fl > len) fl = len;
    const size_t used = r.used;
    const uint16_t have = r.have;
    int done = 0;
    int rc = gostx__ike_reasm_add(&r, &sk, in, fl, &done);
    ASSERT(reasm_documented(rc));
    ASSERT(r.used <= sizeof held && r.have <= r.total && r.total <= GOSTX_IKE_FRAG_MAX);
    if (rc != GOSTX_OK) ASSERT(r.used == used && r.have == have && !done);
    in += fl, len -= fl;
    if (!done) continue;
    gostx_ike_hdr h;
    uint8_t first;
    size_t wl = 0;
    const size_t held_len = r.used;
    ASSERT(gostx__ike_reasm_take(&r, &h, &first, whole, sizeof whole, &wl) == GOSTX_OK);
    ASSERT(wl == held_len && r.have == 0 && r.used == 0);
    rc = gostx__ike_chain_read(first, whole, wl, &c, NULL);
    ASSERT(documented(rc));
    if (rc == GOSTX_OK) payloads(&c, whole, wl);
  }
  gostx__ike_sk_clear(&sk);
}

static void outside_sa(const uint8_t *in, size_t len) {
  uint8_t ans[64];
  size_t n = 1;
  uint32_t spi = 1;
  gostx_ike_hdr h, a;
  int rc = gostx__ike_invalid_ike_spi(in, len, ans, sizeof ans, &n);
  ASSERT(rc == 0 || rc == 1);
  ASSERT(rc == 1 || n == 0);
  if (rc == 1) {
    ASSERT(gostx__ike_hdr_read(in, len, &h) == GOSTX_OK && !(h.flags & GOSTX_IKE_FLAG_R));
    ASSERT(h.next == GOSTX_IKE_PT_SK || h.next == GOSTX_IKE_PT_SKF);
    ASSERT(gostx__ike_outside_hint(ans, n, &a, &spi) == GOSTX_IKE_HINT_IKE_SPI && spi == 0);
    ASSERT(!memcmp(a.spi_i, h.spi_i, 8) && !memcmp(a.spi_r, h.spi_r, 8) &&
           a.msg_id == h.msg_id && a.exchange == h.exchange);
  }
  rc = gostx__ike_outside_hint(in, len, &a, &spi);
  ASSERT(rc == 0 || rc == GOSTX_IKE_HINT_IKE_SPI || rc == GOSTX_IKE_HINT_ESP_SPI);
  if (rc) ASSERT(a.next != GOSTX_IKE_PT_SK && a.next != GOSTX_IKE_PT_SKF);
  if (rc != GOSTX_IKE_HINT_ESP_SPI) ASSERT(spi == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static gostx_ike_chain c;
  static uint8_t plain[70000];
  if (size < 2) return 0;
  if (data[0] == 2) {
    fragments(data + 1, size - 1);
    return 0;
  }
  if (data[0] == 3) { /* a DER_ASN1_DN ID walked against DN patterns (idmatch.c) */
    static const char *const dn[] = {"CN=*", "CN=*.branch.example.ru", "O=Bank, CN=*",
                                     "C=RU,OU=*,L=x"};
    for (size_t i = 0; i < sizeof dn / sizeof dn[0]; i++) {
      const int m = gostx__ike_id_match(dn[i], GOSTX_IKE_ID_DER_ASN1_DN, data + 1, size - 1);
      ASSERT(m == 0 || m == 1);
    }
    return 0;
  }
  const uint8_t *in = data + 1;
  size_t len = size - 1;
  if (data[0] & 1) {
    in++, len--;
    int rc = gostx__ike_chain_read(data[1], in, len, &c, NULL);
    ASSERT(documented(rc));
    if (rc == GOSTX_OK) payloads(&c, in, len);
    return 0;
  }
  gostx_ike_hdr h;
  uint8_t first;
  int rc = gostx__ike_msg_read(in, len, &h, &c, &first);
  ASSERT(documented(rc));
  if (rc == GOSTX_OK) payloads(&c, in, len);
  outside_sa(in, len);
  gostx_ike_sk sk;
  ASSERT(gostx__ike_sk_init(&sk, GOSTX_IKE_ENCR_KUZNYECHIK_MGM_KTREE, sk_ei, sizeof sk_ei) == 0);
  size_t pl = 0;
  uint64_t iv;
  rc = gostx__ike_sk_open(&sk, in, len, &h, &first, plain, sizeof plain, &pl, &iv);
  ASSERT(documented(rc));
  if (rc == GOSTX_OK) {
    ASSERT(pl < len);
    rc = gostx__ike_chain_read(first, plain, pl, &c, NULL);
    ASSERT(documented(rc));
    if (rc == GOSTX_OK) payloads(&c, plain, pl);
  }
  return 0;
}
