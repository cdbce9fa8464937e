/* libFuzzer harness: TLS 1.3 record open (gostx__tls_record_open, lib/tls)
 * on untrusted bytes, as a connection's receiver runs it: records one after
 * another under one traffic secret, the sequence number moving only on
 * records that open. Records are fuzzer bytes as they stand, or records
 * sealed here at the receiver's sequence number and then mutated (bytes
 * flipped, cut short, lengthened).
 *
 * Asserts (abort on the first violation):
 *  - nothing crashes or reads or writes out of bounds (ASan);
 *  - an opened record is genuine: checked again here with MGM under
 *    TLSTREE(write key, seq) and the nonce write_iv XOR seq (top bit 0),
 *    the header as AAD; its content is the inner plaintext up to the last
 *    non-zero byte, which is the type; a mutated record never opens;
 *  - a record sealed here and left intact opens to what was sealed, while
 *    the sequence number is at most SNMAX;
 *  - a refused record leaves the output and the sequence number as they
 *    were, with one of the documented statuses.
 *
 * The traffic secret is RFC 9367 A.1's server handshake traffic secret, so
 * its first record (KUZNYECHIK_MGM_S, sequence number 0) is a seed that opens.
 *
 * Input: byte 0 (bits 0-1: the suite, 0xC103 + n), bytes 1-8 the first
 * sequence number (big-endian), then records, at most MAX_RECS: kind (1),
 * length (2, big-endian), that many bytes. Kind bit 0 clear: the bytes are
 * the record. Set: byte 0 the content type, byte 1 the padding, byte 2 a
 * mutation count m, then m mutations of 3 bytes (position 2, value 1), the
 * rest the content; the record is sealed, then each mutation XORs its value
 * into the byte at position mod (length + 2): length means cut to value mod
 * length bytes, length + 1 append the value. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_records.h"
#include "tls/tls_internal.h"

#define MAX_RECS 16
#define MAX_LEN 2048 /* -max_len=4096 bounds the input: no record is longer */

static const uint8_t secret[32] = {
    0x70, 0xa5, 0xf2, 0x46, 0x3d, 0xf6, 0x0d, 0xba, 0xa2, 0x36, 0x8b, 0x67, 0xfd, 0x45, 0xae, 0xff,
    0x7c, 0x1a, 0x0b, 0xa4, 0x2d, 0x8a, 0xbd, 0x72, 0x41, 0x5e, 0xcd, 0x1d, 0x94, 0xe9, 0xef, 0x54};

static uint8_t rec[MAX_LEN + 600], orig[sizeof rec], out[sizeof rec], pt[sizeof rec];

static void bug(const char *what, size_t i) {
  fprintf(stderr, "fuzz_tls_record: record %zu: %s\n", i, what);
  abort();
}

/* An opened record checked again without lib/tls's record code. */
static void verify_opened(const gostx__tls_record *rx, uint64_t seq, size_t len, size_t out_len,
                          uint8_t type, size_t i) {
  const gostx__tls_suite *s = rx->suite;
  if (len < 5 + s->tag_len + 1 || rec[0] != 0x17 || rec[1] != 3 || rec[2] != 3 ||
      ((size_t)rec[3] << 8 | rec[4]) != len - 5)
    bug("opened a record with a bad header", i);
  uint8_t k[32], nonce[16];
  if (gostx__tls_tree(rx->key, seq, s->c1, s->c2, s->c3, NULL, NULL, k)) bug("tree", i);
  gostx_cipher c;
  if (gostx_cipher_init(&c, s->alg, k)) bug("cipher_init", i);
  memcpy(nonce, rx->iv, s->iv_len);
  for (size_t j = 0; j < 8; j++) nonce[s->iv_len - 1 - j] ^= (uint8_t)(seq >> (8 * j));
  nonce[0] &= 0x7f;
  const size_t inner = len - 5 - s->tag_len;
  if (inner > GOSTX__TLS_MAX_PLAINTEXT + 1) bug("opened an oversized record", i);
  if (gostx_mgm_decrypt(&c, nonce, rec, 5, rec + 5, inner, rec + 5 + inner,
                        s->tag_len, pt) != GOSTX_OK)
    bug("opened a record whose tag does not verify", i);
  gostx_cipher_clear(&c);
  size_t n = inner;
  while (n && pt[n - 1] == 0) n--;
  if (!n || pt[n - 1] != type || out_len != n - 1) bug("type or length not the plaintext's", i);
  if (memcmp(out, pt, out_len)) bug("content is not the plaintext", i);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 9) return 0;
  gostx__tls_record rx, tx;
  if (gostx__tls_record_init(&rx, GOSTX__TLS_KUZNYECHIK_MGM_L + (data[0] & 3), secret))
    bug("record_init", 0);
  tx = rx;
  rx.seq = fuzz_be64(data + 1);
  fuzz_input in = {data + 9, size - 9, 0, NULL, 0};
  for (size_t i = 0; i < MAX_RECS && fuzz_next(&in, MAX_LEN); i++) {
    const uint8_t *d = in.d;
    const size_t len = in.len;
    fuzz_sent sent = {0};
    size_t rec_len = len;
    if (in.kind & 1) {
      const size_t pad = len > 1 ? d[1] : 0, m = fuzz_to_seal(d, len, 3, &sent);
      tx.seq = rx.seq;
      tx.spent = rx.spent;
      int rc = gostx__tls_record_seal(&tx, sent.type, sent.content, sent.content_len, pad, rec,
                                      sizeof rec, &rec_len);
      if (!fuzz_sealed(rc, rx.seq, tx.suite->snmax, rx.spent, bug, i)) continue;
      sent.sealed = 1;
      sent.intact = fuzz_mutate(rec, &rec_len, sizeof rec, orig, d + 3, len > 3 ? len - 3 : 0, m);
    } else {
      memcpy(rec, d, len);
    }
    memset(out, FUZZ_SENTINEL, sizeof out);
    const gostx__tls_record before = rx;
    size_t out_len = 0;
    uint8_t got_type = 0;
    int rc = gostx__tls_record_open(&rx, rec, rec_len, out, sizeof out, &out_len, &got_type);
    if (rc == GOSTX_OK) verify_opened(&before, before.seq, rec_len, out_len, got_type, i);
    const fuzz_recv b = {before.seq, rx.suite->snmax, before.spent},
                    a = {rx.seq, rx.suite->snmax, rx.spent};
    fuzz_check_open(rc, &sent, &b, &a, got_type, out, out_len, sizeof out, rc == GOSTX_EFORMAT,
                    bug, i);
  }
  gostx__tls_record_clear(&rx);
  gostx__tls_record_clear(&tx);
  return 0;
}
