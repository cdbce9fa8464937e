/* libFuzzer harness: TLS 1.2 record open (gostx__tls12_record_open,
 * lib/tls/tls12_record.c) with the RFC 9189 suites, and the readers of the
 * two ClientKeyExchange bodies (gostx__tls12_gkt_read, _blob_read,
 * lib/tls/tls12_kx.c), on untrusted bytes.
 *
 * Records, as a connection's receiver runs them: one after another under
 * one set of keys, the state (the sequence number; CNT_IMIT's keystream and
 * MAC) moving only on records that open. Records are fuzzer bytes as they
 * stand, or records sealed here at the receiver's state and then mutated
 * (bytes flipped, cut short, lengthened). Asserts (abort on the first):
 *  - nothing crashes or reads or writes out of bounds (ASan);
 *  - an opened record is genuine, checked again without lib/tls's record
 *    code: CTR_OMAC by CTR-ACPKM and OMAC under TLSTREE's keys of its
 *    sequence number, IV = write_IV + seq; CNT_IMIT by a CNT keystream and
 *    an IMIT kept here over the records opened so far; a mutated record
 *    never opens;
 *  - a record sealed here and left intact opens to what was sealed while
 *    the sequence number is at most SNMAX;
 *  - a refused record releases nothing (the output as it was, or zeros)
 *    and leaves the state, with one of the documented statuses.
 * The keys are RFC 9189 A.1.2's (CTR_OMAC) and A.2.1's (CNT_IMIT), so those
 * examples' first records are seeds that open.
 *
 * Key transport: a body the reader accepts holds a point of its curve and
 * a keyExp inside the input; the writer takes what was read, and what it
 * writes reads back to the same values.
 *
 * Input: byte 0 bits 0-1: 0 KUZNYECHIK_CTR_OMAC, 1 MAGMA_CTR_OMAC,
 * 2 28147_CNT_IMIT, 3 key transport (bit 2: 0 GostKeyTransport, 1 the
 * CNT_IMIT blob; the DER from byte 1). Records: bytes 1-8 the first
 * sequence number (big-endian; CNT_IMIT starts at 0), then records, at most
 * MAX_RECS: kind (1), length (2, big-endian), that many bytes. Kind bit 0
 * clear: the bytes are the record. Set: byte 0 the content type, byte 1 a
 * mutation count m, then m mutations of 3 bytes (position 2, value 1), the
 * rest the content; the record is sealed, then each mutation XORs its value
 * into the byte at position mod (length + 2): length means cut to value mod
 * length bytes, length + 1 append the value. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_records.h"
#include "tls/tls12_internal.h"

#define MAX_RECS 16
#define MAX_LEN 2048 /* -max_len=4096 bounds the input: no record is longer */

/* RFC 9189 A.1.2's MAC and encryption keys (IV 0); A.2.1's MAC key (all
 * ones; its encryption key and IV are zeros). */
#define OMAC_MAC_KEY \
  "\x00\x11\x22\x33\x44\x55\x66\x77\x88\x99\xAA\xBB\xCC\xEE\xFF\x0A" \
  "\x11\x22\x33\x44\x55\x66\x77\x88\x99\xAA\xBB\xCC\xEE\xFF\x0A\x00"
#define OMAC_KEY \
  "\x22\x33\x44\x55\x66\x77\x88\x99\xAA\xBB\xCC\xEE\xFF\x0A\x00\x11" \
  "\x33\x44\x55\x66\x77\x88\x99\xAA\xBB\xCC\xEE\xFF\x0A\x00\x11\x22"
static const uint8_t *const omac_mac_key = (const uint8_t *)OMAC_MAC_KEY;
static const uint8_t *const omac_key = (const uint8_t *)OMAC_KEY;
static uint8_t imit_mac_key[32];
static const uint8_t zeros[32];

static uint8_t rec[MAX_LEN + 64], orig[sizeof rec], out[sizeof rec], pt[sizeof rec];

static void bug(const char *what, size_t i) {
  fprintf(stderr, "fuzz_tls12_record: record %zu: %s\n", i, what);
  abort();
}

/* CNT_IMIT's reference streams, moved by the records opened. */
static gostx_gost89_ctx ref_cnt, ref_imit;

/* An opened record (rec, len bytes) checked again: decrypted into pt with
 * the reference, MAC recomputed, content compared with out. */
static void verify_opened(const gostx__tls12_record *rx, uint64_t seq, size_t len,
                          size_t out_len, uint8_t type, size_t i) {
  const gostx__tls12_suite *s = rx->suite;
  if (len < 5 + s->mac_len || rec[0] == 0 || rec[1] != 3 || rec[2] != 3 ||
      ((size_t)rec[3] << 8 | rec[4]) != len - 5)
    bug("opened a record with a bad header", i);
  const size_t n = len - 5 - s->mac_len;
  if (n > GOSTX__TLS12_MAX_PLAINTEXT || out_len != n || type != rec[0])
    bug("length or type not the record's", i);
  uint8_t prefix[13], mac[16];
  for (int j = 0; j < 8; j++) prefix[j] = (uint8_t)(seq >> (56 - 8 * j));
  memcpy(prefix + 8, rec, 3);
  prefix[11] = (uint8_t)(n >> 8), prefix[12] = (uint8_t)n;
  if (s->tree) {
    uint8_t k[32], iv[8];
    gostx_cipher enc, mc;
    if (gostx__tls_tree(rx->key, seq, s->c1, s->c2, s->c3, NULL, NULL, k) ||
        gostx_cipher_init(&enc, s->alg, k) ||
        gostx__tls_tree(rx->mac_key, seq, s->c1, s->c2, s->c3, NULL, NULL, k) ||
        gostx_cipher_init(&mc, s->alg, k))
      bug("record keys", i);
    uint64_t v = seq; /* IV 0: IV_seq = seq mod 2^(8 iv_len) */
    for (size_t j = 0; j < s->iv_len; j++) iv[s->iv_len - 1 - j] = (uint8_t)(v >> (8 * j));
    if (gostx_ctr_acpkm_crypt(&enc, iv, s->iv_len, s->section_len, rec + 5, len - 5, pt))
      bug("CTR-ACPKM", i);
    gostx_omac_ctx o;
    if (gostx_omac_init(&o, &mc) || gostx_omac_update(&o, prefix, 13) ||
        gostx_omac_update(&o, pt, n) || gostx_omac_final(&o, mac, s->mac_len))
      bug("OMAC", i);
    gostx_cipher_clear(&enc), gostx_cipher_clear(&mc);
  } else {
    gostx_gost89_ctx fin;
    if (gostx_gost89_update(&ref_cnt, rec + 5, len - 5, pt) ||
        gostx_gost89_imit_update(&ref_imit, prefix, 13) ||
        gostx_gost89_imit_update(&ref_imit, pt, n))
      bug("CNT / IMIT", i);
    fin = ref_imit;
    if (gostx_gost89_imit_final(&fin, mac, 4)) bug("IMIT final", i);
  }
  if (memcmp(mac, pt + n, s->mac_len)) bug("opened a record whose MAC does not verify", i);
  if (memcmp(out, pt, n)) bug("content is not the plaintext", i);
}

/* Opens rec into out (filled with the sentinel first); an opened record
 * is checked again. */
static int open_checked(gostx__tls12_record *rx, size_t rec_len, size_t *out_len, uint8_t *type,
                        size_t i) {
  const gostx__tls12_record before = *rx;
  memset(out, FUZZ_SENTINEL, sizeof out);
  int rc = gostx__tls12_record_open(rx, rec, rec_len, out, sizeof out, out_len, type);
  if (rc == GOSTX_OK) verify_opened(&before, before.seq, rec_len, *out_len, *type, i);
  return rc;
}

/* The key transport readers: a body read is written again and reads the same. */
static void key_transport(const uint8_t *der, size_t n, int blob) {
  const uint8_t *ke = NULL;
  size_t kl = 0, ql = 0, ql2 = 0, wl = 0;
  uint8_t q[128], q2[128], kx[44], kx2[44], w[GOSTX__TLS12_KX_MAX];
  gostx_gost3410_curve curve = 0, curve2 = 0;
  int rc = blob ? gostx__tls12_blob_read(der, n, kx, &curve, q, sizeof q, &ql)
                : gostx__tls12_gkt_read(der, n, &ke, &kl, &curve, q, sizeof q, &ql);
  if (rc != GOSTX_OK) {
    if (rc != GOSTX_EFORMAT && rc != GOSTX_EUNSUP && rc != GOSTX_EINVAL)
      bug("undocumented status from a reader", 0);
    return;
  }
  if (ql != 2 * gostx_gost3410_size(curve) || gostx_gost3410_check_public_key(curve, q, ql))
    bug("read a key that is not a point of its curve", 0);
  if (!blob && (kl == 0 || ke < der || ke + kl > der + n)) bug("keyExp outside the input", 0);
  rc = blob ? gostx__tls12_blob_write(kx, curve, q, ql, NULL, 0, w, sizeof w, &wl)
            : gostx__tls12_gkt_write(ke, kl, curve, q, ql, NULL, 0, w, sizeof w, &wl);
  if (rc == GOSTX_ELEN && !blob && kl > 64) return; /* keyExp longer than any KExp15 */
  if (rc != GOSTX_OK) bug("the writer refused what the reader read", 0);
  const uint8_t *ke2 = NULL;
  size_t kl2 = 0;
  rc = blob ? gostx__tls12_blob_read(w, wl, kx2, &curve2, q2, sizeof q2, &ql2)
            : gostx__tls12_gkt_read(w, wl, &ke2, &kl2, &curve2, q2, sizeof q2, &ql2);
  if (rc != GOSTX_OK || curve2 != curve || ql2 != ql || memcmp(q, q2, ql))
    bug("a written body does not read back", 0);
  if (blob ? memcmp(kx, kx2, 44) != 0 : kl2 != kl || memcmp(ke, ke2, kl))
    bug("a written body reads back other bytes", 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const unsigned ids[3] = {GOSTX__TLS12_KUZNYECHIK_CTR_OMAC, GOSTX__TLS12_MAGMA_CTR_OMAC,
                                  GOSTX__TLS12_28147_CNT_IMIT};
  if (size < 1) return 0;
  memset(imit_mac_key, 0xff, sizeof imit_mac_key);
  if ((data[0] & 3) == 3) {
    key_transport(data + 1, size - 1, (data[0] >> 2) & 1);
    return 0;
  }
  if (size < 9) return 0;
  const int cnt = (data[0] & 3) == 2;
  gostx__tls12_record rx, tx;
  if (gostx__tls12_record_init(&rx, ids[data[0] & 3], cnt ? imit_mac_key : omac_mac_key,
                               cnt ? zeros : omac_key, zeros))
    bug("record_init", 0);
  const gostx__tls12_suite *s = rx.suite;
  if (cnt) {
    gostx_gost89_key k;
    if (gostx_gost89_set_key(&k, zeros, GOSTX_SBOX_TC26_Z) ||
        gostx_gost89_init(&ref_cnt, &k, GOSTX_GOST89_CNT, 0, zeros, 1) ||
        gostx_gost89_set_key(&k, imit_mac_key, GOSTX_SBOX_TC26_Z) ||
        gostx_gost89_imit_init(&ref_imit, &k, NULL, 1))
      bug("reference streams", 0);
  } else {
    rx.seq = fuzz_be64(data + 1);
  }
  fuzz_input in = {data + 9, size - 9, 0, NULL, 0};
  for (size_t i = 0; i < MAX_RECS && fuzz_next(&in, MAX_LEN); i++) {
    fuzz_sent sent = {0};
    size_t rec_len = in.len;
    if (!(in.kind & 1)) {
      memcpy(rec, in.d, in.len); /* the fuzzer's bytes as the record */
    } else {
      const size_t m = fuzz_to_seal(in.d, in.len, 2, &sent);
      tx = rx; /* the sender's state is the receiver's: the same keys, in step */
      int rc = gostx__tls12_record_seal(&tx, sent.type, sent.content, sent.content_len, rec,
                                        sizeof rec, &rec_len);
      if (!fuzz_sealed(rc, rx.seq, s->snmax, rx.spent, bug, i)) continue;
      sent.sealed = 1;
      sent.intact =
          fuzz_mutate(rec, &rec_len, sizeof rec, orig, in.d + 2, in.len > 2 ? in.len - 2 : 0, m);
    }
    const gostx__tls12_record before = rx;
    size_t out_len = 0;
    uint8_t got_type = 0;
    int rc = open_checked(&rx, rec_len, &out_len, &got_type, i);
    /* A refusal wipes what it decrypted: zeros are nothing released. */
    const fuzz_recv b = {before.seq, s->snmax, before.spent}, a = {rx.seq, s->snmax, rx.spent};
    fuzz_check_open(rc, &sent, &b, &a, got_type, out, out_len, sizeof out, 1, bug, i);
    if (rc != GOSTX_OK && (memcmp(&rx.cnt, &before.cnt, sizeof rx.cnt) ||
                           memcmp(&rx.imit, &before.imit, sizeof rx.imit)))
      bug("a refusal moved CNT_IMIT's streams", i);
  }
  gostx__tls12_record_clear(&rx);
  gostx__tls12_record_clear(&tx);
  gostx_gost89_ctx_clear(&ref_cnt);
  gostx_gost89_ctx_clear(&ref_imit);
  return 0;
}
