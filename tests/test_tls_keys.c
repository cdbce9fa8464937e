/* GOST TLS 1.3's cryptographic core (lib/tls): the key schedule, the
 * traffic keys, TLSTREE and record protection against RFC 9367 Appendix A
 * (tests/vectors/tls13-rfc9367.json: both examples' secrets, keys and
 * records, byte for byte) and tests/vectors/tls13-gost.json (every suite and
 * TLSTREE boundary, computed with gost-engine's HMAC, and RFC 9189's
 * published TLSTREE values), each of those records checked against MGM
 * called here on the file's record key and nonce; then the refusals: every
 * flipped bit, every truncation, the size limits, SNMAX. */
#include <stdlib.h>

#include "testutil.h"
#include "dispatch.h"
#include "tls/pad_scan.h"
#include "tls/tls_internal.h"

static uint64_t seq_of(const json *c) {
  const json *j = json_get(c, "seq");
  if (json_type_of(j) == JSON_STR) return strtoull(json_str(j), NULL, 16);
  return (uint64_t)tv_int(c, "seq");
}

static uint64_t hex64(const json *c, const char *key) { return strtoull(tv_str(c, key), NULL, 16); }

static void check_hex(const json *c, const char *key, const uint8_t *got, size_t len,
                      const char *what) {
  size_t n;
  uint8_t *want = tv_hex(c, key, &n);
  CHECK(n == len, "%s: vector length %zu, want %zu", what, n, len);
  if (n == len) CHECK_BYTES(got, want, len, what);
  free(want);
}

/* The suite a vector names in field key ("0xc103"), which must be known. */
static const gostx__tls_suite *suite_of(const json *c, const char *key) {
  unsigned id = (unsigned)strtoul(tv_str(c, key), NULL, 16);
  const gostx__tls_suite *s = gostx__tls_suite_by_id(id);
  CHECK(s && s->id == id, "suite 0x%04x found", id);
  return s;
}

/* The suite table against the vector file's (RFC 9367's constants, SNMAX). */
static void test_suites(const json *list) {
  CHECK(json_len(list) == 4, "four suites in the vectors");
  for (size_t i = 0; i < json_len(list); i++) {
    const json *c = json_at(list, i);
    const gostx__tls_suite *s = suite_of(c, "id");
    if (s) CHECK(strcmp(s->name, tv_str(c, "name")) == 0, "0x%04x is %s", s->id, tv_str(c, "name"));
    if (!s) continue;
    CHECK(s->iv_len == (size_t)tv_int(c, "iv_len") && s->tag_len == s->iv_len &&
              s->iv_len == (s->alg == GOSTX_ALG_KUZNYECHIK ? 16u : 8u),
          "%s: IV and tag are n/8", s->name);
    CHECK(hex64(c, "c1") == s->c1 && hex64(c, "c2") == s->c2 && hex64(c, "c3") == s->c3,
          "%s: C1..C3", s->name);
    CHECK(hex64(c, "snmax") == s->snmax, "%s: SNMAX", s->name);
  }
  CHECK(gostx__tls_suite_by_id(0xC102) == NULL && gostx__tls_suite_by_id(0x1301) == NULL,
        "other suites unknown");
}

static void test_tlstree(const json *trees) {
  for (size_t k = 0; k < json_len(trees); k++) {
    const json *c = json_at(trees, k);
    size_t n;
    uint8_t *root = tv_hex(c, "root", &n), l1[32], l2[32], key[32];
    uint64_t seq = seq_of(c);
    CHECK_RC(gostx__tls_tree(root, seq, hex64(c, "c1"), hex64(c, "c2"), hex64(c, "c3"), l1, l2,
                             key),
             GOSTX_OK, "tlstree");
    char what[96];
    snprintf(what, sizeof what, "TLSTREE %s seq %llu level1", tv_str(c, "suite"),
             (unsigned long long)seq);
    check_hex(c, "level1", l1, 32, what);
    check_hex(c, "level2", l2, 32, "level2");
    check_hex(c, "key", key, 32, "TLSTREE key");
    free(root);
  }
}

static void test_schedule(const json *s) {
  size_t n;
  uint8_t *shared = tv_hex(s, "shared_secret", &n);
  uint8_t *h_sh = tv_hex(s, "hash_server_hello", &n);
  uint8_t *h_sf = tv_hex(s, "hash_server_finished", &n);
  uint8_t *h_cf = tv_hex(s, "hash_client_finished", &n);
  uint8_t *h_empty = tv_hex(s, "hash_empty", &n);
  uint8_t early[32], hs[32], master[32], out[32], fk[32];
  CHECK_RC(gostx__tls_next_secret(NULL, NULL, 0, early), GOSTX_OK, "early secret");
  check_hex(s, "early_secret", early, 32, "early secret");
  CHECK_RC(gostx__tls_derive_secret(early, "derived", h_empty, out), GOSTX_OK, "derived");
  check_hex(s, "derived_early", out, 32, "Derive-Secret(early, derived, \"\")");
  CHECK_RC(gostx__tls_next_secret(early, shared, 32, hs), GOSTX_OK, "handshake secret");
  check_hex(s, "handshake_secret", hs, 32, "handshake secret");
  CHECK_RC(gostx__tls_next_secret(hs, NULL, 0, master), GOSTX_OK, "master secret");
  check_hex(s, "master_secret", master, 32, "master secret");

  static const struct {
    const char *field, *label;
    int stage, hash; /* 0 handshake, 1 master; 0 SH, 1 SF, 2 CF */
  } ts[] = {{"c_hs", GOSTX__TLS_LABEL_C_HS_TRAFFIC, 0, 0},
            {"s_hs", GOSTX__TLS_LABEL_S_HS_TRAFFIC, 0, 0},
            {"c_ap", GOSTX__TLS_LABEL_C_AP_TRAFFIC, 1, 1},
            {"s_ap", GOSTX__TLS_LABEL_S_AP_TRAFFIC, 1, 1},
            {"exp_master", GOSTX__TLS_LABEL_EXP_MASTER, 1, 1},
            {"res_master", GOSTX__TLS_LABEL_RES_MASTER, 1, 2}};
  const uint8_t *hashes[] = {h_sh, h_sf, h_cf};
  for (size_t i = 0; i < sizeof ts / sizeof ts[0]; i++) {
    CHECK_RC(gostx__tls_derive_secret(ts[i].stage ? master : hs, ts[i].label,
                                      hashes[ts[i].hash], out),
             GOSTX_OK, ts[i].field);
    check_hex(s, ts[i].field, out, 32, ts[i].field);
  }
  uint8_t *s_hs = tv_hex(s, "s_hs", &n), *c_ap = tv_hex(s, "c_ap", &n);
  CHECK_RC(gostx__tls_finished_key(s_hs, fk), GOSTX_OK, "finished key");
  check_hex(s, "s_finished_key", fk, 32, "server finished_key");
  CHECK_RC(gostx__tls_finished_mac(fk, h_sh, out), GOSTX_OK, "verify_data");
  check_hex(s, "s_verify_data", out, 32, "verify_data");
  CHECK_RC(gostx__tls_update_secret(c_ap, out), GOSTX_OK, "traffic upd");
  check_hex(s, "c_ap_upd", out, 32, "KeyUpdate's next secret");

  /* The framing's limits. */
  uint8_t big[255 * 32 + 1];
  CHECK_RC(gostx__tls_hkdf_expand(early, 32, NULL, 0, big, 0), GOSTX_ELEN, "expand 0 bytes");
  CHECK_RC(gostx__tls_hkdf_expand(early, 32, NULL, 0, big, sizeof big), GOSTX_ELEN,
           "expand past 255 blocks");
  CHECK_RC(gostx__tls_hkdf_expand(early, 32, NULL, 0, big, sizeof big - 1), GOSTX_OK,
           "expand 255 blocks");
  char label[251];
  memset(label, 'a', sizeof label - 1);
  label[250] = 0;
  CHECK_RC(gostx__tls_expand_label(early, label, NULL, 0, out, 32), GOSTX_ELEN,
           "label over 255 bytes with its prefix");
  label[249] = 0;
  CHECK_RC(gostx__tls_expand_label(early, label, NULL, 0, out, 32), GOSTX_OK,
           "label of 255 bytes with its prefix");
  CHECK_RC(gostx__tls_expand_label(early, "", NULL, 0, out, 32), GOSTX_ELEN, "empty label");
  CHECK_RC(gostx__tls_expand_label(early, "key", big, 256, out, 32), GOSTX_ELEN,
           "context over 255 bytes");
  free(shared), free(h_sh), free(h_sf), free(h_cf), free(h_empty), free(s_hs), free(c_ap);
}

/* The record of content/type/pad at seq as MGM makes it here from the
 * vector's record key and nonce: header | ciphertext | tag. */
static size_t expected_record(const gostx__tls_suite *s, const json *rc_case, const uint8_t *in,
                              size_t len, uint8_t type, size_t pad, uint8_t *out) {
  size_t n, inner = len + 1 + pad;
  uint8_t *key = tv_hex(rc_case, "record_key", &n), *nonce = tv_hex(rc_case, "nonce", &n);
  out[0] = 0x17, out[1] = 3, out[2] = 3;
  out[3] = (uint8_t)((inner + s->tag_len) >> 8), out[4] = (uint8_t)(inner + s->tag_len);
  memcpy(out + 5, in, len);
  out[5 + len] = type;
  memset(out + 6 + len, 0, pad);
  CHECK_RC(gostx_mgm_encrypt(t_cipher(s->alg, key), nonce, out, 5, out + 5, inner, out + 5,
                             out + 5 + inner, s->tag_len),
           GOSTX_OK, "reference MGM");
  free(key), free(nonce);
  return 5 + inner + s->tag_len;
}

static uint8_t rec_buf[GOSTX__TLS_HDR_LEN + GOSTX__TLS_MAX_CIPHERTEXT + 64];
static uint8_t want_buf[sizeof rec_buf], plain[sizeof rec_buf], bad[sizeof rec_buf];

/* Every single-bit flip and every truncation of rec is refused, with the
 * output untouched and the receiver's sequence number where it was. */
static void check_tampering(const gostx__tls_record *rx, const uint8_t *rec, size_t len) {
  int all_refused = 1, untouched = 1, seq_kept = 1, right_code = 1;
  for (size_t i = 0; i < len; i++) {
    for (int b = 0; b < 8; b++) {
      gostx__tls_record r = *rx;
      memcpy(bad, rec, len);
      bad[i] ^= (uint8_t)(1u << b);
      memset(plain, 0xa5, len);
      size_t out_len = 0;
      uint8_t type = 0;
      int rc = gostx__tls_record_open(&r, bad, len, plain, sizeof plain, &out_len, &type);
      if (rc == GOSTX_OK) all_refused = 0;
      /* The type and length are checked before MGM; the rest fail the tag,
       * legacy_record_version too (additional data alone, RFC 8446 5.2). */
      if (rc != (i == 0 || i == 3 || i == 4 ? GOSTX_EFORMAT : GOSTX_EAUTH)) right_code = 0;
      for (size_t k = 0; k < len; k++)
        if (plain[k] != 0xa5) untouched = 0;
      if (r.seq != rx->seq) seq_kept = 0;
    }
  }
  for (size_t cut = 0; cut < len; cut++) {
    gostx__tls_record r = *rx;
    size_t out_len;
    uint8_t type;
    if (gostx__tls_record_open(&r, rec, cut, plain, sizeof plain, &out_len, &type) == GOSTX_OK)
      all_refused = 0;
    if (r.seq != rx->seq) seq_kept = 0;
  }
  CHECK(all_refused, "every flipped bit and truncation refused");
  CHECK(right_code, "type and length flips EFORMAT, version, body and tag flips EAUTH");
  CHECK(untouched, "nothing released from a refused record");
  CHECK(seq_kept, "a refused record leaves the sequence number");
}

/* One record sealed by tx and opened by rx at the vector's sequence number,
 * against the record MGM makes here; returns its length in rec_buf. */
static size_t round_trip(gostx__tls_record *tx, gostx__tls_record *rx, const json *rc_case,
                         size_t len, size_t pad, uint8_t type) {
  const gostx__tls_suite *s = tx->suite;
  uint64_t seq = seq_of(rc_case);
  uint8_t content[256];
  t_rand_bytes(content, len);
  size_t want_len = expected_record(s, rc_case, content, len, type, pad, want_buf), got_len = 0;
  tx->seq = rx->seq = seq;
  CHECK_RC(gostx__tls_record_seal(tx, type, content, len, pad, rec_buf, sizeof rec_buf, &got_len),
           GOSTX_OK, "seal");
  CHECK(got_len == want_len && got_len == gostx__tls_sealed_len(tx, len, pad),
        "%s seq %llu: sealed length %zu, want %zu", s->name, (unsigned long long)seq, got_len,
        want_len);
  CHECK_BYTES(rec_buf, want_buf, want_len, "sealed record");
  CHECK(tx->seq == seq + 1, "seal advances the sequence number");
  gostx__tls_record before = *rx;
  size_t out_len = 0;
  uint8_t got_type = 0;
  CHECK_RC(gostx__tls_record_open(rx, rec_buf, got_len, plain, sizeof plain, &out_len, &got_type),
           GOSTX_OK, "open");
  CHECK(out_len == len && got_type == type && memcmp(plain, content, len) == 0,
        "%s seq %llu: content and type back", s->name, (unsigned long long)seq);
  CHECK(rx->seq == seq + 1, "open advances the sequence number");
  *rx = before;
  return got_len;
}

/* The limits of RFC 8446 section 5 and the suite's SNMAX. */
static void check_limits(const gostx__tls_record *fresh, const json *rc_case) {
  const gostx__tls_suite *s = fresh->suite;
  gostx__tls_record tx = *fresh, rx = *fresh;
  size_t out_len, tag = s->tag_len;
  uint8_t type, big[GOSTX__TLS_MAX_PLAINTEXT + 1];
  memset(big, 0x41, sizeof big);
  tx.seq = rx.seq = seq_of(rc_case);
  CHECK_RC(gostx__tls_record_seal(&tx, 0x17, big, 16384, 0, rec_buf, sizeof rec_buf, &out_len),
           GOSTX_OK, "seal 2^14 bytes");
  CHECK_RC(gostx__tls_record_open(&rx, rec_buf, out_len, plain, sizeof plain, &out_len, &type),
           GOSTX_OK, "open 2^14 bytes");
  CHECK(out_len == 16384, "2^14 bytes back");
  CHECK_RC(gostx__tls_record_seal(&tx, 0x17, big, 16385, 0, rec_buf, sizeof rec_buf, &out_len),
           GOSTX_ELEN, "seal 2^14 + 1 bytes");
  CHECK_RC(gostx__tls_record_seal(&tx, 0x17, big, 16000, 385, rec_buf, sizeof rec_buf, &out_len),
           GOSTX_ELEN, "content and padding over 2^14");
  CHECK_RC(gostx__tls_record_seal(&tx, 0, big, 10, 0, rec_buf, sizeof rec_buf, &out_len),
           GOSTX_EINVAL, "content type 0");
  CHECK_RC(gostx__tls_record_seal(&tx, 0x17, big, 10, 0, rec_buf, 5 + 11 + tag - 1, &out_len),
           GOSTX_EINVAL, "output one byte short");

  /* Authentic but over the limits, or all padding: made here with MGM. */
  gostx__tls_record r = *fresh;
  r.seq = seq_of(rc_case);
  size_t len = expected_record(s, rc_case, big, 16385, 0x17, 0, want_buf);
  CHECK_RC(gostx__tls_record_open(&r, want_buf, len, plain, sizeof plain, &out_len, &type),
           GOSTX_ELEN, "TLSInnerPlaintext of 2^14 + 2 bytes");
  want_buf[3] = (uint8_t)((GOSTX__TLS_MAX_CIPHERTEXT + 1) >> 8);
  want_buf[4] = (uint8_t)(GOSTX__TLS_MAX_CIPHERTEXT + 1);
  CHECK_RC(gostx__tls_record_open(&r, want_buf, GOSTX__TLS_MAX_CIPHERTEXT + 6, plain,
                                  sizeof plain, &out_len, &type),
           GOSTX_ELEN, "TLSCiphertext over 2^14 + 256");
  len = expected_record(s, rc_case, big, 0, 0, 12, want_buf);
  memset(plain, 0xa5, sizeof plain);
  CHECK_RC(gostx__tls_record_open(&r, want_buf, len, plain, sizeof plain, &out_len, &type),
           GOSTX_EFORMAT, "all padding, no content type");
  CHECK(plain[0] == 0 && r.seq == seq_of(rc_case), "all-padding record: nothing, seq kept");
  len = expected_record(s, rc_case, big, 3, 0x17, 0, want_buf);
  CHECK_RC(gostx__tls_record_open(&r, want_buf, len, plain, len - 5 - tag - 1, &out_len, &type),
           GOSTX_EINVAL, "output one byte short of the inner plaintext");

  /* SNMAX: the record of that number is the key's last. */
  tx = *fresh;
  rx = *fresh;
  tx.seq = rx.seq = s->snmax;
  CHECK_RC(gostx__tls_record_seal(&tx, 0x17, big, 20, 0, rec_buf, sizeof rec_buf, &len), GOSTX_OK,
           "seal at SNMAX");
  CHECK_RC(gostx__tls_record_open(&rx, rec_buf, len, plain, sizeof plain, &out_len, &type),
           GOSTX_OK, "open at SNMAX");
  CHECK_RC(gostx__tls_record_seal(&tx, 0x17, big, 20, 0, rec_buf, sizeof rec_buf, &len),
           GOSTX_ESTATE, "seal past SNMAX");
  CHECK_RC(gostx__tls_record_open(&rx, rec_buf, len, plain, sizeof plain, &out_len, &type),
           GOSTX_ESTATE, "open past SNMAX");
  if (s->snmax < UINT64_MAX) {
    tx = *fresh;
    tx.seq = s->snmax + 1;
    CHECK_RC(gostx__tls_record_seal(&tx, 0x17, big, 20, 0, rec_buf, sizeof rec_buf, &len),
             GOSTX_ESTATE, "seal at SNMAX + 1");
  }
}

/* The content type found across the padding scan's word boundaries:
 * every content length 0..40 (its bytes zero: only the type byte marks
 * where the content ends) with every padding 0..40, and each type. */
static void check_padding_scan(const gostx__tls_record *fresh) {
  gostx__tls_record tx = *fresh, rx = *fresh;
  static const uint8_t zeros[64];
  int wrong = 0;
  for (size_t len = 0; len <= 40; len++)
    for (size_t pad = 0; pad <= 40; pad++) {
      uint8_t type = (uint8_t)(1 + (len * 41 + pad) % 255);
      size_t n, out_len = 99;
      uint8_t got = 0;
      if (gostx__tls_record_seal(&tx, type, zeros, len, pad, rec_buf, sizeof rec_buf, &n) ||
          gostx__tls_record_open(&rx, rec_buf, n, plain, sizeof plain, &out_len, &got) ||
          out_len != len || got != type || memcmp(plain, zeros, len))
        wrong++;
    }
  CHECK(wrong == 0, "%s: content type and length across 41 x 41 paddings (%d wrong)",
        fresh->suite->name, wrong);
}

static void test_records(const json *keys, const json *sched) {
  for (size_t k = 0; k < json_len(keys); k++) {
    const json *c = json_at(keys, k), *recs = json_get(c, "records");
    unsigned id = (unsigned)strtoul(tv_str(c, "suite"), NULL, 16);
    size_t n;
    uint8_t *secret = tv_hex(sched, tv_str(c, "secret"), &n);
    gostx__tls_record tx, rx, fresh;
    CHECK_RC(gostx__tls_record_init(&fresh, id, secret), GOSTX_OK, "record init");
    const gostx__tls_suite *s = fresh.suite;
    check_hex(c, "write_key", fresh.key, 32, "write_key");
    check_hex(c, "write_iv", fresh.iv, s->iv_len, "write_iv");
    tx = fresh;
    for (size_t i = 0; recs && i < json_len(recs); i++) {
      const json *rc_case = json_at(recs, i);
      /* tx keeps TLSTREE's cache across the records, rx derives afresh. */
      rx = fresh;
      size_t len = round_trip(&tx, &rx, rc_case, t_rand_below(200), t_rand_below(24),
                              (uint8_t)(0x14 + t_rand_below(4)));
      /* every place of the type byte against the padding scan's 64-byte
       * blocks and 8-byte words, in the first, second or third block, with
       * a tail after the last whole word or none */
      if (i == 0)
        for (size_t cl = 0; cl < 136; cl++)
          for (size_t pad = 0; pad < 72; pad += 7) {
            rx = fresh;
            round_trip(&tx, &rx, rc_case, cl, pad, 0x17);
          }
      if (i == 1) check_tampering(&rx, rec_buf, len);
      if (i == 2) {
        /* In place: the content at out + 5, the plaintext over the record. */
        size_t out_len;
        uint8_t type, content[40];
        t_rand_bytes(content, sizeof content);
        memcpy(rec_buf + 5, content, sizeof content);
        tx.seq = rx.seq = seq_of(rc_case);
        CHECK_RC(gostx__tls_record_seal(&tx, 0x17, rec_buf + 5, sizeof content, 2, rec_buf,
                                        sizeof rec_buf, &len),
                 GOSTX_OK, "seal in place");
        CHECK_RC(gostx__tls_record_open(&rx, rec_buf, len, rec_buf + 5, len - 5, &out_len, &type),
                 GOSTX_OK, "open in place");
        CHECK(out_len == sizeof content && memcmp(rec_buf + 5, content, out_len) == 0,
              "in place round trip");
        /* Overlapping the record elsewhere (before and after the body):
         * the record is the one sealed from a separate copy. */
        for (size_t at = 0; at < 12; at += 11) {
          size_t ref_len, got_len;
          tx.seq = seq_of(rc_case);
          CHECK_RC(gostx__tls_record_seal(&tx, 0x17, content, sizeof content, 3, want_buf,
                                          sizeof want_buf, &ref_len),
                   GOSTX_OK, "seal from a copy");
          memcpy(rec_buf + at, content, sizeof content);
          tx.seq = seq_of(rc_case);
          CHECK_RC(gostx__tls_record_seal(&tx, 0x17, rec_buf + at, sizeof content, 3, rec_buf,
                                          sizeof rec_buf, &got_len),
                   GOSTX_OK, "seal from a buffer overlapping the record");
          CHECK(got_len == ref_len, "overlapping seal: length");
          CHECK_BYTES(rec_buf, want_buf, ref_len, "overlapping seal: the same record");
        }
      }
    }
    check_limits(&fresh, json_at(recs, 0));
    check_padding_scan(&fresh);
    gostx__tls_record_clear(&tx);
    CHECK(tx.suite == NULL && tx.key[0] == 0 && tx.have == 0, "clear wipes the state");
    CHECK_RC(gostx__tls_record_seal(&tx, 0x17, secret, 1, 0, rec_buf, sizeof rec_buf, &n),
             GOSTX_EINVAL, "seal after clear");
    free(secret);
  }
  gostx__tls_record r;
  uint8_t zero[32] = {0};
  CHECK_RC(gostx__tls_record_init(&r, 0xC102, zero), GOSTX_EINVAL, "TLS 1.2 suite refused");
}

/* ---- RFC 9367 Appendix A (tests/vectors/tls13-rfc9367.json) ---- */

/* The example's value of that name into out (len bytes); 0 if not printed. */
static int rfc_value(const json *e, const char *name, uint8_t *out, size_t len) {
  const json *vals = json_get(e, "values");
  for (size_t i = 0; i < json_len(vals); i++) {
    const json *v = json_at(vals, i);
    if (strcmp(tv_str(v, "name"), name) != 0) continue;
    long n = hex_decode(tv_str(v, "hex"), out, len);
    CHECK(n == (long)len, "%s: %ld bytes, want %zu", name, n, len);
    return n == (long)len;
  }
  return 0;
}

/* got against the example's value of that name, which must be printed. */
static void rfc_check(const json *e, const char *name, const uint8_t *got, size_t len) {
  uint8_t want[64];
  CHECK(len <= sizeof want && rfc_value(e, name, want, len), "%s printed in %s", name,
        tv_str(e, "example"));
  if (len <= sizeof want) CHECK_BYTES(got, want, len, name);
}

/* A dump's fragments over buf (len bytes); returns how many bytes they cover. */
static size_t rfc_fragments(const json *frags, uint8_t *buf, size_t len) {
  size_t covered = 0;
  for (size_t i = 0; i < json_len(frags); i++) {
    const json *f = json_at(frags, i);
    size_t off = (size_t)json_num(json_at(f, 0)), n;
    uint8_t *bytes = hex_alloc(json_str(json_at(f, 1)), &n);
    CHECK(off + n <= len, "fragment at %zu inside the record", off);
    if (off + n <= len) memcpy(buf + off, bytes, n);
    covered += n;
    free(bytes);
  }
  return covered;
}

/* The traffic secret whose keys are named "<side>_write_key_<hs|ap>". */
static const uint8_t *rfc_secret_of(const char *key, const uint8_t secrets[4][32]) {
  int server = strncmp(key, "server", 6) == 0, ap = strstr(key, "_ap") != NULL;
  return secrets[(ap ? 2 : 0) + (server ? 1 : 0)];
}

static void rfc_record(const json *e, const json *rc_case, const gostx__tls_suite *s,
                       const uint8_t secrets[4][32], gostx__tls_record *tx) {
  const char *keyname = tv_str(rc_case, "key");
  uint64_t seq = seq_of(rc_case);
  gostx__tls_record rx;
  CHECK_RC(gostx__tls_record_init(&rx, s->id, rfc_secret_of(keyname, secrets)), GOSTX_OK,
           "record init");
  /* The write key and IV named there, when printed. */
  uint8_t v[32];
  if (rfc_value(e, keyname, v, 32)) CHECK_BYTES(rx.key, v, 32, keyname);
  if (rfc_value(e, tv_str(rc_case, "iv"), v, s->iv_len)) CHECK_BYTES(rx.iv, v, s->iv_len, "IV");
  uint8_t rk[32];
  CHECK_RC(gostx__tls_tree(rx.key, seq, s->c1, s->c2, s->c3, NULL, NULL, rk), GOSTX_OK, "tree");
  check_hex(rc_case, "record_key", rk, 32, "TLSTREE(write key, seq)");
  size_t n;
  uint8_t *aad = tv_hex(rc_case, "aad", &n);
  size_t inner_len = ((size_t)aad[3] << 8 | aad[4]) - s->tag_len;
  /* The inner plaintext: zeros where the RFC elides it. */
  memset(plain, 0, inner_len);
  rfc_fragments(json_get(rc_case, "inner"), plain, inner_len);
  size_t content_len = inner_len;
  while (content_len && plain[content_len - 1] == 0) content_len--;
  CHECK(content_len > 0, "a content type");
  uint8_t type = plain[content_len - 1];
  size_t pad = inner_len - content_len;
  content_len--;
  /* Sealed by a sender that keeps its TLSTREE levels across the records. */
  size_t got;
  tx->seq = seq;
  CHECK_RC(gostx__tls_record_seal(tx, type, plain, content_len, pad, rec_buf, sizeof rec_buf,
                                  &got),
           GOSTX_OK, "seal");
  CHECK(got == 5 + inner_len + s->tag_len, "record length");
  memset(want_buf, 0, got);
  size_t covered = rfc_fragments(json_get(rc_case, "ciphertext"), want_buf, got);
  const json *frags = json_get(rc_case, "ciphertext");
  int same = covered > 0;
  for (size_t i = 0; i < json_len(frags); i++) {
    size_t off = (size_t)json_num(json_at(json_at(frags, i), 0));
    size_t len = strlen(json_str(json_at(json_at(frags, i), 1))) / 2;
    if (off + len > got || memcmp(rec_buf + off, want_buf + off, len) != 0) same = 0;
  }
  CHECK(same, "%s %s seq %llu: TLSCiphertext as printed (%zu of %zu bytes printed)",
        tv_str(e, "example"), keyname, (unsigned long long)seq, covered, got);
  /* Opened by a receiver at that sequence number: the RFC's bytes where it
   * prints them all, else ours, just matched against what it prints. */
  if (covered == got) memcpy(rec_buf, want_buf, got);
  rx.seq = seq;
  size_t out_len;
  uint8_t got_type;
  CHECK_RC(gostx__tls_record_open(&rx, rec_buf, got, bad, sizeof bad, &out_len, &got_type),
           GOSTX_OK, "open the RFC's record");
  CHECK(out_len == content_len && got_type == type && memcmp(bad, plain, content_len) == 0,
        "content and type of the RFC's record");
  gostx__tls_record_clear(&rx);
  free(aad);
}

static void test_rfc9367(const json *examples) {
  CHECK(json_len(examples) == 2, "two examples");
  for (size_t k = 0; k < json_len(examples); k++) {
    const json *e = json_at(examples, k);
    const gostx__tls_suite *s = suite_of(e, "suite");
    if (!s) continue;
    uint8_t psk[32], ecdhe[64], th1[32], th2[32], thf[32], empty[32];
    uint8_t early[32], hs[32], master[32], out[32], fk[32];
    uint8_t secrets[4][32]; /* c hs, s hs, c ap, s ap */
    CHECK_RC(gostx_streebog(32, psk, 0, empty), GOSTX_OK, "Hash(\"\")");
    int have_psk = rfc_value(e, "ePSK", psk, 32);
    CHECK_RC(gostx__tls_next_secret(NULL, have_psk ? psk : NULL, have_psk ? 32 : 0, early),
             GOSTX_OK, "early");
    rfc_check(e, "EarlySecret", early, 32);
    if (have_psk) {
      uint8_t binder_key[32];
      CHECK_RC(gostx__tls_derive_secret(early, GOSTX__TLS_LABEL_EXT_BINDER, empty, binder_key),
               GOSTX_OK, "binder key");
      rfc_check(e, "binder_key", binder_key, 32);
      CHECK_RC(gostx__tls_finished_key(binder_key, out), GOSTX_OK, "finished_binder_key");
      rfc_check(e, "finished_binder_key", out, 32);
    }
    CHECK_RC(gostx__tls_derive_secret(early, "derived", empty, out), GOSTX_OK, "derived");
    rfc_check(e, "Derived #0", out, 32);
    size_t ecdhe_len = s->alg == GOSTX_ALG_KUZNYECHIK ? 64 : 32; /* GC512C in A.1, GC256B in A.2 */
    CHECK(rfc_value(e, "ECDHE", ecdhe, ecdhe_len), "ECDHE printed");
    CHECK_RC(gostx__tls_next_secret(early, ecdhe, ecdhe_len, hs), GOSTX_OK, "handshake");
    rfc_check(e, "HandshakeSecret", hs, 32);
    CHECK(rfc_value(e, "TH1", th1, 32) && rfc_value(e, "TH2", th2, 32) &&
              rfc_value(e, "Transcript-Hash(HMFinished)", thf, 32),
          "transcript hashes printed");
    CHECK_RC(gostx__tls_derive_secret(hs, GOSTX__TLS_LABEL_C_HS_TRAFFIC, th1, secrets[0]),
             GOSTX_OK, "CHTS");
    rfc_check(e, "CHTS", secrets[0], 32);
    CHECK_RC(gostx__tls_derive_secret(hs, GOSTX__TLS_LABEL_S_HS_TRAFFIC, th1, secrets[1]),
             GOSTX_OK, "SHTS");
    rfc_check(e, "SHTS", secrets[1], 32);
    CHECK_RC(gostx__tls_derive_secret(hs, "derived", empty, out), GOSTX_OK, "derived");
    rfc_check(e, "Derived #1", out, 32);
    CHECK_RC(gostx__tls_next_secret(hs, NULL, 0, master), GOSTX_OK, "master");
    rfc_check(e, "MainSecret", master, 32);
    CHECK_RC(gostx__tls_derive_secret(master, GOSTX__TLS_LABEL_C_AP_TRAFFIC, th2, secrets[2]),
             GOSTX_OK, "CATS");
    if (rfc_value(e, "CATS", out, 32)) CHECK_BYTES(secrets[2], out, 32, "CATS");
    CHECK_RC(gostx__tls_derive_secret(master, GOSTX__TLS_LABEL_S_AP_TRAFFIC, th2, secrets[3]),
             GOSTX_OK, "SATS");
    rfc_check(e, "SATS", secrets[3], 32);
    /* Finished: the server's over the transcript to CertificateVerify, the
     * client's over TH2. */
    CHECK_RC(gostx__tls_finished_key(secrets[1], fk), GOSTX_OK, "server finished key");
    rfc_check(e, "server_finished_key", fk, 32);
    CHECK_RC(gostx__tls_finished_mac(fk, thf, out), GOSTX_OK, "server Finished");
    rfc_check(e, "FinishedHash", out, 32);
    CHECK_RC(gostx__tls_finished_key(secrets[0], fk), GOSTX_OK, "client finished key");
    rfc_check(e, "client_finished_key", fk, 32);
    CHECK_RC(gostx__tls_finished_mac(fk, th2, out), GOSTX_OK, "client Finished");
    rfc_check(e, "FinishedHash #2", out, 32);
    /* Every record, each direction's sender keeping its state. */
    gostx__tls_record tx[4];
    for (int i = 0; i < 4; i++)
      CHECK_RC(gostx__tls_record_init(&tx[i], s->id, secrets[i]), GOSTX_OK, "sender");
    const json *recs = json_get(e, "records");
    CHECK(json_len(recs) >= 9, "%s's records", tv_str(e, "example"));
    for (size_t i = 0; i < json_len(recs); i++) {
      const char *keyname = tv_str(json_at(recs, i), "key");
      int idx = (strstr(keyname, "_ap") ? 2 : 0) + (strncmp(keyname, "server", 6) == 0);
      rfc_record(e, json_at(recs, i), s, (const uint8_t(*)[32])secrets, &tx[idx]);
    }
    for (int i = 0; i < 4; i++) gostx__tls_record_clear(&tx[i]);
  }
}

/* The padding scan's block step, every row this CPU runs against the
 * portable one and against a plain backward search: 0 to 300 blocks, all
 * zero or with the last non-zero byte anywhere (any value, zero bytes
 * after it, random or zero bytes before), at every alignment mod 8. */
static void test_pad_scan_rows(void) {
  static uint8_t buf[300 * 64 + 8];
  const struct gostx_tls_scan_impl *portable = &gostx_tls_scan_portable;
  int usable, rows = 0;
  const struct gostx_tls_scan_impl *row;
  for (size_t i = 0; (row = gostx__impl_row(GOSTX__ROWS_TLS_SCAN, i, &usable)); i++) {
    if (!usable) continue;
    rows++;
    int wrong = 0;
    for (int t = 0; t < 3000; t++) {
      const size_t nb = t < 300 ? (size_t)t : t_rand_below(301), off = t_rand_below(8);
      uint8_t *p = buf + off;
      if (t % 3 == 0) t_rand_bytes(p, nb * 64);
      else memset(p, 0, nb * 64);
      if (nb && t % 5 != 4) { /* the last non-zero byte at a random place */
        size_t at = t_rand_below(nb * 64);
        memset(p + at, 0, nb * 64 - at);
        p[at] = (uint8_t)(1 + t_rand_below(255));
      } else if (t % 5 == 4) {
        memset(p, 0, nb * 64);
      }
      size_t want = 0;
      for (size_t b = nb; b-- > 0;) {
        int any = 0;
        for (size_t k = 0; k < 64; k++) any |= p[64 * b + k];
        if (any) { want = 64 * b; break; }
      }
      uint64_t sel[8], ref[8];
      memset(sel, 0x5A, sizeof sel);
      const size_t got = row->last_block(p, nb, sel), got_ref = portable->last_block(p, nb, ref);
      static const uint8_t zero[64];
      int any = 0; /* the block at want is the selected one, or none is (zeros) */
      for (size_t k = 0; nb && k < 64; k++) any |= p[want + k];
      const uint8_t *want_bytes = any ? p + want : zero;
      if (got != want || got_ref != want || memcmp(sel, want_bytes, 64) || memcmp(ref, sel, 64))
        wrong++;
    }
    CHECK(wrong == 0, "padding scan row %s: %d of 3000 wrong", row->name, wrong);
  }
  CHECK(rows >= 1, "padding scan: a row runs here");
}

int main(void) {
  t_rand_init();
  test_pad_scan_rows();
  json *f = tv_load("tls13-gost.json");
  const json *trees = json_get(f, "tlstree"), *sched = json_get(f, "schedule");
  CHECK(trees && json_len(trees) >= 40 && sched, "vector file has its sections");
  test_suites(json_get(f, "suites"));
  test_tlstree(trees);
  test_schedule(sched);
  test_records(json_get(f, "traffic_keys"), sched);
  json_free(f);
  f = tv_load("tls13-rfc9367.json");
  test_rfc9367(json_get(f, "examples"));
  json_free(f);
  return t_done();
}
