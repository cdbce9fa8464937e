/* What the record harnesses (fuzz_tls_record, fuzz_tls12_record) share:
 * the mutations applied to a record sealed by the harness, and the checks
 * on what the receiver's open made of it. Header-only: each harness is one
 * translation unit. */
#ifndef GOSTX_FUZZ_RECORDS_H
#define GOSTX_FUZZ_RECORDS_H

#include <stdint.h>
#include <string.h>

#include "gostx.h"

#define FUZZ_SENTINEL 0xa5

/* One record as the harness sent it: sealed here (and intact or not) with
 * type and content, or fuzzer bytes as they stand (sealed 0). */
typedef struct fuzz_sent {
  int sealed, intact;
  uint8_t type;
  const uint8_t *content;
  size_t content_len;
} fuzz_sent;

/* The input's records one by one: kind (1), length (2, big-endian; clamped
 * to what is left and to max), that many bytes at d. */
typedef struct fuzz_input {
  const uint8_t *data;
  size_t size;
  uint8_t kind;
  const uint8_t *d;
  size_t len;
} fuzz_input;

/* The next record into in->kind, d, len; 0 when fewer than 3 bytes are left. */
static int fuzz_next(fuzz_input *in, size_t max) {
  if (in->size < 3) return 0;
  in->kind = in->data[0];
  size_t n = (size_t)in->data[1] << 8 | in->data[2];
  in->data += 3, in->size -= 3;
  if (n > in->size) n = in->size;
  if (n > max) n = max;
  in->d = in->data, in->len = n;
  in->data += n, in->size -= n;
  return 1;
}

/* Bytes 0-7 big-endian (the first sequence number). */
static uint64_t fuzz_be64(const uint8_t *p) {
  uint64_t v = 0;
  for (int j = 0; j < 8; j++) v = v << 8 | p[j];
  return v;
}

/* A record to seal: d[0] its type (0 or absent: 0x17), d[hdr - 1] the
 * mutation count m (hdr = 2, or 3 with the padding at d[1]), the m
 * mutations, then the content; fills sent and returns m. */
static size_t fuzz_to_seal(const uint8_t *d, size_t len, size_t hdr, fuzz_sent *sent) {
  const size_t m = len >= hdr ? d[hdr - 1] : 0;
  const size_t start = hdr + 3 * m < len ? hdr + 3 * m : len;
  sent->type = len > 0 && d[0] ? d[0] : 0x17;
  sent->content = d + start;
  sent->content_len = len - start;
  return m;
}

/* A seal's status at the receiver's sequence number: 1 when it sealed,
 * 0 past SNMAX (ESTATE, only there); anything else is a bug. */
static int fuzz_sealed(int rc, uint64_t seq, uint64_t snmax, int spent,
                       void (*bug)(const char *, size_t), size_t i) {
  if (rc == GOSTX_ESTATE && seq <= snmax && !spent)
    bug("seal refused a sequence number within SNMAX", i);
  if (rc != GOSTX_OK && rc != GOSTX_ESTATE) bug("seal of a valid record failed", i);
  return rc == GOSTX_OK;
}

/* Applies up to m mutations of 3 bytes (position 2, value 1) from mu (avail
 * bytes) to the sealed record rec (*rec_len bytes, cap): the value XORed
 * into the byte at position mod (length + 2), length meaning cut to value
 * mod length bytes, length + 1 append the value. scratch (cap bytes)
 * receives the record as sealed. Returns 1 when the record is intact. */
static int fuzz_mutate(uint8_t *rec, size_t *rec_len, size_t cap, uint8_t *scratch,
                       const uint8_t *mu, size_t avail, size_t m) {
  const size_t sl = *rec_len;
  memcpy(scratch, rec, sl);
  for (size_t k = 0; k < m && 3 * k + 2 < avail; k++, mu += 3) {
    const size_t pos = ((size_t)mu[0] << 8 | mu[1]) % (*rec_len + 2);
    if (pos < *rec_len)
      rec[pos] ^= mu[2];
    else if (pos == *rec_len && *rec_len)
      *rec_len = mu[2] % *rec_len;
    else if (*rec_len < cap)
      rec[(*rec_len)++] = mu[2];
  }
  return *rec_len == sl && !memcmp(rec, scratch, sl);
}

/* The receiver before and after one open. */
typedef struct fuzz_recv {
  uint64_t seq, snmax;
  int spent;
} fuzz_recv;

/* The checks on an open's status rc: an opened record is the one sealed
 * and moves the sequence number by one (or spends SNMAX's); a refusal has
 * a documented status, never of an intact record within SNMAX, leaves the
 * sequence number, and leaves out[cap] at the sentinel (or zeros, where
 * zeros_ok). bug reports the first violation and does not return. */
static void fuzz_check_open(int rc, const fuzz_sent *sent, const fuzz_recv *before,
                            const fuzz_recv *after, uint8_t got_type, const uint8_t *out,
                            size_t out_len, size_t cap, int zeros_ok,
                            void (*bug)(const char *, size_t), size_t i) {
  if (rc == GOSTX_OK) {
    if (sent->sealed && !sent->intact) bug("opened a mutated record", i);
    if (sent->sealed && (got_type != sent->type || out_len != sent->content_len ||
                         memcmp(out, sent->content, sent->content_len)))
      bug("a sealed record opened to something else", i);
    if (after->seq != before->seq + 1 && !(after->spent && before->seq == before->snmax))
      bug("the sequence number did not move by one", i);
    return;
  }
  if (rc != GOSTX_EFORMAT && rc != GOSTX_ELEN && rc != GOSTX_EAUTH && rc != GOSTX_ESTATE)
    bug("undocumented status", i);
  if (sent->sealed && sent->intact && rc != GOSTX_ESTATE) bug("an intact record was refused", i);
  if (rc == GOSTX_ESTATE && before->seq <= before->snmax && !before->spent)
    bug("open refused a sequence number within SNMAX", i);
  if (after->seq != before->seq || after->spent != before->spent)
    bug("a refusal moved the sequence", i);
  for (size_t j = 0; j < cap; j++)
    if (out[j] != FUZZ_SENTINEL && !(zeros_ok && out[j] == 0))
      bug("a refused record wrote its output", i);
}

#endif
