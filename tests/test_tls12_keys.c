/* GOST TLS 1.2's cryptographic core (lib/tls/tls12_*, RFC 9189) against
 * RFC 9189 Appendix A as printed (tests/vectors/tls12-rfc9189.json): the
 * TLSTREE examples under each suite's C1..C3; the record examples sealed
 * byte for byte and opened; the three handshakes replayed: the randoms'
 * hash, KEG / KEG_28147, the preliminary secret's export and import, the
 * ClientKeyExchange DER written and read, every transcript hash, the master
 * secret (extended in A.1.3), the key block, both Finished and every
 * protected record each side sends. The RFC 4357 key wraps (the public
 * gostx_cpro_* / gostx_gost89_key_* calls) on A.2.2's values and on eight
 * key transports gost-engine made (tests/vectors/cpro-keywrap-engine.json),
 * and gost-engine's TLS 1.2 TLSTREE value. Then the
 * refusals: every flipped bit and truncation of records, of the export
 * representations and of the DER, the size limits, SNMAX. */
#include <stdlib.h>

#include "gost3410/ec.h"
#include "testutil.h"
#include "key_compat.h"
#include "tls/tls12_internal.h"

static const gostx__tls12_suite *suite_of(const json *c) {
  unsigned id = (unsigned)strtoul(tv_str(c, "suite"), NULL, 16);
  const gostx__tls12_suite *s = gostx__tls12_suite_by_id(id);
  CHECK(s && s->id == id, "suite 0x%04x known", id);
  return s;
}

/* Field key of c against got (len bytes): a hex string, or a dump object,
 * whole ({"hex"}) or gapped ({"head", "tail"}: the bytes that start and
 * end the value). */
static void check_hex(const json *c, const char *key, const uint8_t *got, size_t len,
                      const char *what) {
  const json *v = json_get(c, key);
  int whole = json_type_of(v) == JSON_STR || json_get(v, "hex");
  size_t hn, tn = 0;
  uint8_t *head = whole ? tv_hex(json_type_of(v) == JSON_STR ? c : v,
                                 json_type_of(v) == JSON_STR ? key : "hex", &hn)
                        : tv_hex(v, "head", &hn);
  uint8_t *tail = whole ? NULL : tv_hex(v, "tail", &tn);
  CHECK(whole ? hn == len : hn + tn <= len, "%s: %zu + %zu printed bytes for %zu", what, hn, tn,
        len);
  if (whole ? hn == len : hn + tn <= len) {
    CHECK_BYTES(got, head, hn, what);
    if (tail) CHECK_BYTES(got + len - tn, tail, tn, what);
  }
  free(head), free(tail);
}

/* ---- A.1.1: TLSTREE with the TLS 1.2 suites' constants ---- */
/* (gost-engine's example prints the key alone.) */
static void test_tlstree(const json *list, size_t count) {
  CHECK(json_len(list) == count, "%zu TLSTREE examples", count);
  for (size_t i = 0; i < json_len(list); i++) {
    const json *c = json_at(list, i);
    const gostx__tls12_suite *s = suite_of(c);
    if (!s) continue;
    size_t n;
    uint8_t *root = tv_hex(c, "root", &n), l1[32], l2[32], key[32];
    uint64_t seq = (uint64_t)tv_int(c, "seq");
    CHECK_RC(gostx__tls_tree(root, seq, s->c1, s->c2, s->c3, l1, l2, key), GOSTX_OK, "tree");
    char what[96];
    snprintf(what, sizeof what, "%s TLSTREE seq %llu", s->name, (unsigned long long)seq);
    if (json_get(c, "level1")) check_hex(c, "level1", l1, 32, what);
    if (json_get(c, "level2")) check_hex(c, "level2", l2, 32, what);
    check_hex(c, "key", key, 32, what);
    free(root);
  }
}

static uint8_t rec_buf[GOSTX__TLS_HDR_LEN + GOSTX__TLS12_MAX_PLAINTEXT + 64];
static uint8_t plain[sizeof rec_buf], bad[sizeof rec_buf], data_buf[sizeof rec_buf];

/* Opens buf (len bytes) on a copy of rx with the output filled with 0xa5:
 * the status; *clean stays 1 while a refusal released nothing (every output
 * byte 0xa5 or wiped to 0) and left the receiver as it was (the sequence
 * number, CNT_IMIT's keystream and MAC state). */
static int open_copy(const gostx__tls12_record *rx, const uint8_t *buf, size_t len, int *clean) {
  gostx__tls12_record r = *rx;
  size_t out_len = 0;
  uint8_t type = 0;
  memset(plain, 0xa5, len);
  int rc = gostx__tls12_record_open(&r, buf, len, plain, sizeof plain, &out_len, &type);
  if (rc == GOSTX_OK) return rc;
  for (size_t k = 0; k < len; k++) *clean &= plain[k] == 0xa5 || plain[k] == 0;
  *clean &= r.seq == rx->seq && memcmp(&r.cnt, &rx->cnt, sizeof r.cnt) == 0 &&
            memcmp(&r.imit, &rx->imit, sizeof r.imit) == 0;
  return rc;
}

/* Every single-bit flip and every truncation of rec (len bytes) is refused
 * with its documented status, releasing nothing and moving nothing. */
static void check_tampering(const gostx__tls12_record *rx, const uint8_t *rec, size_t len) {
  int refused = 1, clean = 1, codes = 1;
  for (size_t f = 0; f < 8 * len; f++) {
    size_t at = f / 8;
    memcpy(bad, rec, len);
    bad[at] ^= (uint8_t)(1u << (f % 8));
    int rc = open_copy(rx, bad, len, &clean);
    refused &= rc != GOSTX_OK;
    /* Version and length are checked before the MAC (a length past 2^14 is
     * ELEN); the type is MACed, but 0 is no type; the rest fails the MAC. */
    if (at >= 1 && at < 5)
      codes &= rc == GOSTX_EFORMAT || (at >= 3 && rc == GOSTX_ELEN);
    else
      codes &= rc == (at == 0 && bad[0] == 0 ? GOSTX_EFORMAT : GOSTX_EAUTH);
  }
  for (size_t cut = 0; cut < len; cut++) refused &= open_copy(rx, rec, cut, &clean) != GOSTX_OK;
  CHECK(refused, "every flipped bit and truncation refused");
  CHECK(codes, "header flips EFORMAT (ELEN), type/body/MAC flips EAUTH");
  CHECK(clean, "a refused record releases nothing and moves nothing");
}

/* Seals len bytes of data as type at rx/tx's sequence number, opens it
 * back; returns the record's length in rec_buf. */
static size_t seal_open(gostx__tls12_record *tx, gostx__tls12_record *rx, uint8_t type,
                        const uint8_t *data, size_t len) {
  size_t n = 0, out_len = 0;
  uint8_t got_type = 0;
  uint64_t seq = tx->seq;
  CHECK_RC(gostx__tls12_record_seal(tx, type, data, len, rec_buf, sizeof rec_buf, &n), GOSTX_OK,
           "seal");
  CHECK(n == gostx__tls12_sealed_len(tx, len) && n == 5 + len + tx->suite->mac_len,
        "sealed length");
  CHECK(tx->seq == seq + 1 || (seq == tx->suite->snmax && tx->spent),
        "seal advances the sequence number");
  CHECK_RC(gostx__tls12_record_open(rx, rec_buf, n, plain, sizeof plain, &out_len, &got_type),
           GOSTX_OK, "open");
  CHECK(out_len == len && got_type == type && memcmp(plain, data, len) == 0,
        "%s: content and type back", tx->suite->name);
  return n;
}

/* ---- A.1.2 / A.2.1: the record examples ---- */
static void test_record_examples(const json *list) {
  CHECK(json_len(list) == 3, "three record examples");
  for (size_t k = 0; k < json_len(list); k++) {
    const json *e = json_at(list, k), *cases = json_get(e, "cases");
    const gostx__tls12_suite *s = suite_of(e);
    if (!s) continue;
    size_t n;
    uint8_t *mk = tv_hex(e, "mac_key", &n), *ek = tv_hex(e, "enc_key", &n);
    uint8_t *iv = tv_hex(e, "iv", &n);
    CHECK(n == s->iv_len, "%s: IV of %zu bytes", s->name, s->iv_len);
    gostx__tls12_record tx, rx;
    CHECK_RC(gostx__tls12_record_init(&tx, s->id, mk, ek, iv), GOSTX_OK, "record init");
    rx = tx;
    for (size_t i = 0; i < json_len(cases); i++) {
      const json *c = json_at(cases, i), *pt = json_get(c, "plaintext");
      uint64_t seq = (uint64_t)tv_int(c, "seq");
      /* The data: all zeros in every example; its length from TLSPlaintext. */
      size_t hn;
      uint8_t *head = tv_hex(pt, json_get(pt, "hex") ? "hex" : "head", &hn);
      size_t len = (size_t)head[3] << 8 | head[4];
      memset(data_buf, 0, len);
      uint8_t prefix[13];
      gostx_store64_be(prefix, seq);
      memcpy(prefix + 8, head, 5);
      char what[96];
      snprintf(what, sizeof what, "%s seqnum %llu", s->name, (unsigned long long)seq);
      if (s->tree) {
        /* The record keys and the MAC as printed, on the RFC's own keys. */
        uint8_t key[32], mac[16];
        CHECK_RC(gostx__tls_tree(mk, seq, s->c1, s->c2, s->c3, NULL, NULL, key), GOSTX_OK, "K_MAC");
        check_hex(c, "k_mac", key, 32, what);
        CHECK_RC(gostx__tls_tree(ek, seq, s->c1, s->c2, s->c3, NULL, NULL, key), GOSTX_OK, "K_ENC");
        check_hex(c, "k_enc", key, 32, what);
        size_t kn;
        uint8_t *kmac = tv_hex(c, "k_mac", &kn);
        gostx_omac_ctx o;
        CHECK_RC(gostx_omac_init(&o, t_cipher(s->alg, kmac)), GOSTX_OK, "omac");
        CHECK_RC(gostx_omac_update(&o, prefix, 13), GOSTX_OK, "omac");
        if (len) CHECK_RC(gostx_omac_update(&o, data_buf, len), GOSTX_OK, "omac");
        CHECK_RC(gostx_omac_final(&o, mac, s->mac_len), GOSTX_OK, "omac");
        check_hex(c, "mac", mac, s->mac_len, "MAC over STR_8(seq) | header | data");
        free(kmac);
        tx.seq = rx.seq = seq;
      }
      /* The data (zeros), TLSPlaintext (header | data) and IV_seq as printed. */
      check_hex(c, "data", data_buf, len, what);
      memcpy(plain, head, 5);
      memcpy(plain + 5, data_buf, len);
      check_hex(c, "plaintext", plain, 5 + len, what);
      if (s->tree) {
        uint8_t ivs[8];
        uint64_t v = 0;
        for (size_t j = 0; j < s->iv_len; j++) v = v << 8 | iv[j];
        v += seq;
        for (size_t j = 0; j < s->iv_len; j++) ivs[s->iv_len - 1 - j] = (uint8_t)(v >> (8 * j));
        check_hex(c, "iv_seq", ivs, s->iv_len, "IV_seq = IV + seqnum");
      }
      CHECK(tx.seq == seq, "%s: the example's records in sequence", what);
      gostx__tls12_record rx0 = rx;
      size_t rn = seal_open(&tx, &rx, 0x17, data_buf, len);
      check_hex(c, "ciphertext", rec_buf, rn, what);
      if (len < 100) check_tampering(&rx0, rec_buf, rn);
      free(head);
    }
    gostx__tls12_record_clear(&tx);
    gostx__tls12_record_clear(&rx);
    free(mk), free(ek), free(iv);
  }
}

/* ---- A.1.3 / A.2.2: the handshakes ---- */

/* The nth (0-based) value of name printed in side's part ("client",
 * "server", NULL: before the parts), or NULL. */
static const json *value(const json *h, const char *side, const char *name, int nth) {
  const json *vs = json_get(h, "values");
  for (size_t i = 0; i < json_len(vs); i++) {
    const json *v = json_at(vs, i), *sd = json_get(v, "side");
    const char *vside = json_type_of(sd) == JSON_STR ? json_str(sd) : NULL;
    if (strcmp(tv_str(v, "name"), name) != 0) continue;
    if ((side == NULL) != (vside == NULL) || (side && strcmp(side, vside) != 0)) continue;
    if (nth-- == 0) return v;
  }
  return NULL;
}

/* The value's bytes (hex dump or 0x number) into out (len bytes exactly). */
static int get(const json *h, const char *side, const char *name, int nth, uint8_t *out,
               size_t len) {
  const json *v = value(h, side, name, nth);
  CHECK(v != NULL, "%s: %s printed", tv_str(h, "section"), name);
  if (!v) return 0;
  size_t n;
  uint8_t *b = tv_hex(v, json_get(v, "hex") ? "hex" : "int", &n);
  CHECK(n == len, "%s: %s has %zu bytes, want %zu", tv_str(h, "section"), name, n, len);
  if (n == len) memcpy(out, b, len);
  free(b);
  return n == len;
}

static void expect(const json *h, const char *side, const char *name, int nth,
                   const uint8_t *got, size_t len) {
  uint8_t want[512];
  char what[160];
  snprintf(what, sizeof what, "%s %s %s", tv_str(h, "section"), side ? side : "", name);
  if (len <= sizeof want && get(h, side, name, nth, want, len)) CHECK_BYTES(got, want, len, what);
}

/* A point printed as x and y: x || y. */
static int point(const json *h, const char *side, const char *name, uint8_t *q, size_t len) {
  char nx[96], ny[96];
  snprintf(nx, sizeof nx, "%s x", name);
  snprintf(ny, sizeof ny, "%s y", name);
  return get(h, side, nx, 0, q, len) && get(h, side, ny, 0, q + len, len);
}

/* The handshake messages in order and, at each HASH(HM), their hash: the
 * one printed with MS (each side's first) is RFC 7627's session hash,
 * through ClientKeyExchange (A.1.3.2 prints CertificateVerify before it),
 * the others through the messages before them. */
static void check_transcript(const json *h) {
  const json *vs = json_get(h, "values");
  gostx_streebog_ctx t, session;
  CHECK_RC(gostx_streebog_init(&t, 32), GOSTX_OK, "transcript");
  int checked = 0, seen[2] = {0, 0}, framed = 0, ccs[2] = {0, 0};
  const json *last = NULL; /* the message before a record, sent in the clear */
  for (size_t i = 0; i < json_len(vs); i++) {
    const json *v = json_at(vs, i);
    const char *name = tv_str(v, "name");
    size_t n, nl = strlen(name);
    int is_ccs = strncmp(name, "ChangeCipherSpec", 16) == 0;
    if (nl > 8 && strcmp(name + nl - 8, " message") == 0 && strncmp(name, "Record", 6) != 0) {
      int server = strcmp(tv_str(v, "side"), "server") == 0;
      last = ccs[server] ? NULL : v;
      ccs[server] |= is_ccs;
      if (is_ccs) continue;
      uint8_t *m = tv_hex(v, "hex", &n);
      CHECK_RC(gostx_streebog_update(&t, m, n), GOSTX_OK, "transcript");
      if (strcmp(name, "ClientKeyExchange message") == 0) session = t;
      free(m);
    } else if (strcmp(name, "Record layer message") == 0 && last) {
      /* A record in the clear: header (handshake 22, or change_cipher_spec
       * 20), version 3.3, length, then the message as printed. */
      size_t mn, rn;
      uint8_t *m = tv_hex(last, "hex", &mn), *r = tv_hex(v, "hex", &rn);
      int c = strncmp(tv_str(last, "name"), "ChangeCipherSpec", 16) == 0;
      CHECK(rn == 5 + mn && r[0] == (c ? 20 : 22) && r[1] == 3 && r[2] == 3 &&
                (size_t)(r[3] << 8 | r[4]) == mn && memcmp(r + 5, m, mn) == 0,
            "%s: the record of %s", tv_str(h, "section"), tv_str(last, "name"));
      free(m), free(r);
      framed++;
      last = NULL;
    } else if (strcmp(name, "HASH(HM)") == 0) {
      int server = strcmp(tv_str(v, "side"), "server") == 0;
      gostx_streebog_ctx copy = seen[server]++ ? t : session;
      uint8_t got[32];
      CHECK_RC(gostx_streebog_final(&copy, got), GOSTX_OK, "transcript hash");
      check_hex(v, "hex", got, 32, "HASH(HM): the messages so far");
      checked++;
    }
  }
  CHECK(checked >= 4 && framed >= 7, "%s: transcript hashes and clear records checked",
        tv_str(h, "section"));
}

/* The protected records one side sends after its ChangeCipherSpec, sealed
 * here and opened by the other side's receiver. */
static void check_side_records(const json *h, const char *side, const gostx__tls12_suite *s,
                               const gostx__tls12_keys *k) {
  int client = strcmp(side, "client") == 0;
  gostx__tls12_record tx, rx;
  CHECK_RC(gostx__tls12_record_init(&tx, s->id, client ? k->client_mac : k->server_mac,
                                    client ? k->client_key : k->server_key,
                                    client ? k->client_iv : k->server_iv),
           GOSTX_OK, "sender");
  rx = tx;
  const json *vs = json_get(h, "values");
  int after_ccs = 0, sealed = 0;
  uint8_t type = 0;
  const json *content = NULL;
  for (size_t i = 0; i < json_len(vs); i++) {
    const json *v = json_at(vs, i), *sd = json_get(v, "side");
    if (json_type_of(sd) != JSON_STR || strcmp(json_str(sd), side) != 0) continue;
    const char *name = tv_str(v, "name");
    if (strcmp(name, "ChangeCipherSpec message") == 0) after_ccs = 1;
    if (!after_ccs) continue;
    if (strcmp(name, "Finished message") == 0) type = 0x16, content = v;
    if (strcmp(name, "Application data") == 0) type = 0x17, content = v;
    if (strcmp(name, "close_notify alert") == 0) type = 0x15, content = v;
    if (strcmp(name, "Record layer message") == 0 && content) {
      size_t cn, wn;
      uint8_t *c = tv_hex(content, "hex", &cn), *want = tv_hex(v, "hex", &wn);
      size_t got = 0;
      CHECK_RC(gostx__tls12_record_seal(&tx, type, c, cn, rec_buf, sizeof rec_buf, &got),
               GOSTX_OK, "seal");
      CHECK(got == wn && memcmp(rec_buf, want, wn) == 0, "%s %s record %d (type 0x%02x) as printed",
            tv_str(h, "section"), side, sealed, type);
      size_t out_len = 0;
      uint8_t t = 0;
      CHECK_RC(gostx__tls12_record_open(&rx, want, wn, plain, sizeof plain, &out_len, &t),
               GOSTX_OK, "open the printed record");
      CHECK(out_len == cn && t == type && memcmp(plain, c, cn) == 0, "printed record opens");
      free(c), free(want);
      content = NULL;
      sealed++;
    }
  }
  CHECK(sealed == 3, "%s %s: Finished, data and alert records", tv_str(h, "section"), side);
  gostx__tls12_record_clear(&tx);
  gostx__tls12_record_clear(&rx);
}

/* The refusals of the key exchange on a genuine export representation. */
static void kx_refusals(const gostx__tls12_suite *s, gostx_gost3410_curve curve,
                        const uint8_t *d, size_t len, const uint8_t *q, const uint8_t *hh,
                        const uint8_t *exp, size_t exp_len) {
  uint8_t pms[32], b[128], hb[32];
  int refused = 1, untouched = 1;
  for (size_t i = 0; i < exp_len; i++) {
    for (int bit = 0; bit < 8; bit++) {
      memcpy(b, exp, exp_len);
      b[i] ^= (uint8_t)(1u << bit);
      memset(pms, 0xa5, sizeof pms);
      int rc = s->tree ? tk_tls12_kimp15(s, curve, d, len, q, 2 * len, hh, b, exp_len, pms)
                       : tk_tls12_kimp28147(curve, d, len, q, 2 * len, hh, b, pms);
      if (rc != GOSTX_EAUTH) refused = 0;
      for (size_t k = 0; k < sizeof pms; k++)
        if (pms[k] != 0xa5) untouched = 0;
    }
  }
  CHECK(refused && untouched, "%s: every flipped bit of the export refused, nothing imported",
        s->name);
  memcpy(hb, hh, 32);
  hb[1] ^= 1; /* another handshake's hash: another UKM, other keys */
  int rc = s->tree ? tk_tls12_kimp15(s, curve, d, len, q, 2 * len, hb, exp, exp_len, pms)
                   : tk_tls12_kimp28147(curve, d, len, q, 2 * len, hb, exp, pms);
  CHECK(rc == GOSTX_EAUTH, "%s: another H refused (rc %d)", s->name, rc);
  if (s->tree) {
    CHECK_RC(tk_tls12_kimp15(s, curve, d, len, q, 2 * len, hh, exp, exp_len - 1, pms),
             GOSTX_ELEN, "export one byte short");
  }
  memcpy(b, q, 2 * len);
  b[2 * len - 1] ^= 1; /* Q_eph off the curve */
  rc = s->tree ? tk_tls12_kimp15(s, curve, d, len, b, 2 * len, hh, exp, exp_len, pms)
               : tk_tls12_kimp28147(curve, d, len, b, 2 * len, hh, exp, pms);
  CHECK(rc == GOSTX_EINVAL, "%s: an ephemeral key off the curve refused (rc %d)", s->name, rc);
}

/* Every truncation, trailing byte and flipped bit of a ClientKeyExchange
 * body: refused as malformed, or (a bit in a value's payload) read with
 * that value changed; never a crash or a wrong length. */
static void der_refusals(const gostx__tls12_suite *s, const uint8_t *der, size_t n) {
  uint8_t b[GOSTX__TLS12_KX_MAX + 1], q[128], kexp[44];
  const uint8_t *ke;
  size_t kl, ql;
  gostx_gost3410_curve curve;
  int ok = 1;
  for (size_t cut = 0; cut < n; cut++) {
    int rc = s->tree ? gostx__tls12_gkt_read(der, cut, &ke, &kl, &curve, q, sizeof q, &ql)
                     : gostx__tls12_blob_read(der, cut, kexp, &curve, q, sizeof q, &ql);
    if (rc != GOSTX_EFORMAT) ok = 0;
  }
  memcpy(b, der, n);
  b[n] = 0;
  int rc = s->tree ? gostx__tls12_gkt_read(b, n + 1, &ke, &kl, &curve, q, sizeof q, &ql)
                   : gostx__tls12_blob_read(b, n + 1, kexp, &curve, q, sizeof q, &ql);
  CHECK(ok && rc == GOSTX_EFORMAT, "%s: every truncation and a trailing byte refused", s->name);
  int flips_ok = 1;
  for (size_t i = 0; i < n; i++) {
    for (int bit = 0; bit < 8; bit++) {
      memcpy(b, der, n);
      b[i] ^= (uint8_t)(1u << bit);
      rc = s->tree ? gostx__tls12_gkt_read(b, n, &ke, &kl, &curve, q, sizeof q, &ql)
                   : gostx__tls12_blob_read(b, n, kexp, &curve, q, sizeof q, &ql);
      if (rc != GOSTX_OK && rc != GOSTX_EFORMAT && rc != GOSTX_EUNSUP && rc != GOSTX_EINVAL)
        flips_ok = 0;
    }
  }
  CHECK(flips_ok, "%s: flipped bits read or refused as malformed/unsupported", s->name);
  /* A non-minimal length: the outer SEQUENCE's length in long form. */
  if (der[1] == 0x81 && der[2] >= 0x80) {
    b[0] = 0x30, b[1] = 0x82, b[2] = 0x00;
    memcpy(b + 3, der + 2, n - 2);
    rc = s->tree ? gostx__tls12_gkt_read(b, n + 1, &ke, &kl, &curve, q, sizeof q, &ql)
                 : gostx__tls12_blob_read(b, n + 1, kexp, &curve, q, sizeof q, &ql);
    CHECK(rc == GOSTX_EFORMAT, "%s: a non-minimal length refused (rc %d)", s->name, rc);
  }
  if (s->tree && der[1] == 0x81 && der[2] + 20 < 0x100) {
    /* GostKeyTransport with its optional ukm: read, the ukm ignored; two: refused. */
    static const uint8_t ukm[10] = {0x04, 0x08, 1, 2, 3, 4, 5, 6, 7, 8};
    const uint8_t *ke0;
    size_t kl0;
    CHECK_RC(gostx__tls12_gkt_read(der, n, &ke0, &kl0, &curve, q, sizeof q, &ql), GOSTX_OK, "read");
    for (int k = 1; k <= 2; k++) {
      b[0] = 0x30, b[1] = 0x81, b[2] = (uint8_t)(der[2] + 10 * k);
      memcpy(b + 3, der + 3, n - 3);
      memcpy(b + n, ukm, 10);
      memcpy(b + n + 10 * (k - 1), ukm, 10);
      rc = gostx__tls12_gkt_read(b, n + 10 * k, &ke, &kl, &curve, q, sizeof q, &ql);
      if (k == 1)
        CHECK(rc == GOSTX_OK && kl == kl0 && memcmp(ke, ke0, kl) == 0,
              "%s: a ukm is read and ignored (rc %d)", s->name, rc);
      else
        CHECK(rc == GOSTX_EFORMAT, "%s: a second ukm refused (rc %d)", s->name, rc);
    }
  }
  if (!s->tree) {
    /* Another encryptionParamSet than id-tc26-gost-28147-param-Z: unsupported. */
    static const uint8_t z[] = {0x06, 0x09, 0x2a, 0x85, 0x03, 0x07, 0x01, 0x02, 0x05, 0x01, 0x01};
    size_t at = 0;
    while (at + sizeof z <= n && memcmp(der + at, z, sizeof z) != 0) at++;
    CHECK(at + sizeof z <= n, "the blob names param-Z");
    memcpy(b, der, n);
    b[at + sizeof z - 1] = 0x02;
    rc = gostx__tls12_blob_read(b, n, kexp, &curve, q, sizeof q, &ql);
    CHECK(rc == GOSTX_EUNSUP, "%s: another S-box set unsupported (rc %d)", s->name, rc);
  }
}

/* A.1.3.2's CertificateVerify: the client's signature over the messages
 * through ClientKeyExchange (their hash, hm), made again with the printed
 * nonce k, as sent: r and s each little-endian (RFC 9189 section 4.2.5's
 * str_l, as gost-engine writes it), and verified with Q_c. */
static void check_cert_verify(const json *h, const uint8_t hm[32]) {
  int curve = gostx_gost3410_curve_by_name(tv_str(h, "client_curve_oid"));
  CHECK(curve > 0, "client curve known");
  if (curve <= 0) return;
  size_t len = gostx_gost3410_size((gostx_gost3410_curve)curve);
  uint8_t d[64], q[128], k[64], sig[128], wire[128], cv[4 + 4 + 128];
  if (!get(h, NULL, "Client private key d_c", 0, d, len) ||
      !point(h, NULL, "Client public key Q_c", q, len) ||
      !get(h, "client", "Random value k used in signature generation", 0, k, len))
    return;
  CHECK_RC(gostx_gost3410_sign_with_k(curve, d, len, hm, 32, k, len, sig, 2 * len), GOSTX_OK,
           "sign with the printed k");
  for (size_t i = 0; i < len; i++) {
    wire[i] = sig[len - 1 - i];
    wire[len + i] = sig[2 * len - 1 - i];
  }
  expect(h, "client", "Signature value sgn_c = SIGN_d_c(HM)", 0, wire, 2 * len);
  /* The message: type 15, length, SignatureAndHashAlgorithm {8, 64}, the signature. */
  if (get(h, "client", "CertificateVerify message", 0, cv, 8 + 2 * len))
    CHECK(cv[4] == 8 && cv[5] == (len == 32 ? 0x40 : 0x41) && memcmp(cv + 8, wire, 2 * len) == 0,
          "CertificateVerify carries the signature");
  CHECK_RC(gostx_gost3410_verify(curve, q, 2 * len, hm, 32, sig, 2 * len), GOSTX_OK,
           "the client's signature verifies under Q_c");
}

static void test_handshake(const json *h) {
  const gostx__tls12_suite *s = suite_of(h);
  if (!s) return;
  const char *sec = tv_str(h, "section");
  int curve = gostx_gost3410_curve_by_name(tv_str(h, "server_curve_oid"));
  CHECK(curve > 0, "%s: server curve known", sec);
  if (curve <= 0) return;
  size_t len = gostx_gost3410_size((gostx_gost3410_curve)curve);
  uint8_t d_s[64], q_s[128], d_e[64], q_e[128], q[128], hh[32], got[256], pms[32];
  uint8_t ch[512], sh[512], ms[48];
  CHECK(get(h, NULL, "Server private key d_s", 0, d_s, len) &&
            point(h, NULL, "Server public key Q_s", q_s, len),
        "%s: server key", sec);
  CHECK(get(h, "client", "Random d_eph value", 0, d_e, len) &&
            point(h, "client", "Q_eph ephemeral key", q_e, len),
        "%s: ephemeral key", sec);
  CHECK_RC(gostx_gost3410_public_key(curve, d_s, len, q, 2 * len), GOSTX_OK, "Q_s");
  CHECK_BYTES(q, q_s, 2 * len, "Q_s = d_s P");
  CHECK_RC(gostx_gost3410_public_key(curve, d_e, len, q, 2 * len), GOSTX_OK, "Q_eph");
  CHECK_BYTES(q, q_e, 2 * len, "Q_eph = d_eph P");

  /* H = HASH(r_c | r_s), the randoms from the hellos. */
  const json *chv = value(h, "client", "ClientHello message", 0);
  const json *shv = value(h, "server", "ServerHello message", 0);
  CHECK(chv && shv, "%s: hellos printed", sec);
  if (!chv || !shv) return;
  size_t chn, shn;
  uint8_t *chb = tv_hex(chv, "hex", &chn), *shb = tv_hex(shv, "hex", &shn);
  memcpy(ch, chb + 6, 32);
  memcpy(sh, shb + 6, 32);
  memcpy(ch + 32, sh, 32);
  CHECK_RC(gostx_streebog(32, ch, 64, hh), GOSTX_OK, "H");
  expect(h, "client", s->tree ? "HASH (r_c | r_s)" : "HASH(r_c | r_s)", 0, hh, 32);
  expect(h, "server", "HASH(r_c | r_s)", 0, hh, 32);
  get(h, "client", value(h, "client", "PMS", 0) ? "PMS" : "PMS value", 0, pms, 32);
  /* KEG's r = UKM = INT(H[1..16]) and seed = H[17..24], where printed. */
  for (int side = 0; side < 2; side++) {
    const char *sd = side ? "server" : "client";
    if (value(h, sd, "Export key generation. r value", 0)) {
      expect(h, sd, "Export key generation. r value", 0, hh, 16);
      expect(h, sd, "Export key generation. UKM value", 0, hh, 16);
    }
    if (value(h, sd, "seed", 0)) expect(h, sd, "seed", 0, hh + 16, 8);
  }

  uint8_t exp[64], body[GOSTX__TLS12_KX_MAX];
  size_t exp_len = 0, body_len = 0;
  const json *ckev = value(h, "client", "ClientKeyExchange message", 0);
  CHECK(ckev != NULL, "%s: ClientKeyExchange printed", sec);
  size_t cken = 0;
  uint8_t *cke = ckev ? tv_hex(ckev, "hex", &cken) : NULL;
  if (s->tree) {
    /* KEG: the export keys both sides make (and, on 256-bit curves, K_EXP
     * = VKO_256 with UKM = INT(H[1..16]), given to VKO little-endian). */
    CHECK_RC(gostx_gost3410_keg(curve, d_e, len, q_s, 2 * len, hh, 32, got, 64), GOSTX_OK, "KEG");
    expect(h, "client", "Export keys K_Exp_MAC | K_Exp_ENC used in KExp15 algorithm", 0, got, 64);
    CHECK_RC(gostx_gost3410_keg(curve, d_s, len, q_e, 2 * len, hh, 32, got, 64), GOSTX_OK, "KEG");
    if (value(h, "server", "Import keys K_Imp_MAC | K_Imp_ENC used in KImp15 algorithm", 0))
      expect(h, "server", "Import keys K_Imp_MAC | K_Imp_ENC used in KImp15 algorithm", 0, got, 64);
    else
      expect(h, "server", "Export keys K_Exp_MAC | K_Exp_ENC used in KImp15 algorithm", 0, got, 64);
    if (len == 32) {
      uint8_t ukm[16];
      for (int i = 0; i < 16; i++) ukm[i] = hh[15 - i];
      CHECK_RC(gostx_gost3410_vko(curve, d_e, len, q_s, 2 * len, ukm, 16, got, 32), GOSTX_OK,
               "VKO");
      expect(h, "client", "K_EXP", 0, got, 32);
    }
    CHECK_RC(gostx__tls12_kexp15(s, curve, d_e, len, q_s, 2 * len, hh, pms, exp, &exp_len),
             GOSTX_OK, "KExp15");
    CHECK(exp_len == 32 + s->block_len, "PMSEXP length");
    expect(h, "client", "PMSEXP", 0, exp, exp_len);
    expect(h, "client", "IV", 0, hh + 24, s->block_len / 2);
    memset(got, 0, 32);
    CHECK_RC(tk_tls12_kimp15(s, curve, d_s, len, q_e, 2 * len, hh, exp, exp_len, got),
             GOSTX_OK, "KImp15");
    expect(h, "server", "PMS", 0, got, 32);
    CHECK_RC(gostx__tls12_gkt_write(exp, exp_len, curve, q_e, 2 * len, NULL, 0, body, sizeof body,
                                    &body_len),
             GOSTX_OK, "GostKeyTransport");
  } else {
    uint8_t vko[32], kek[32];
    CHECK_RC(gostx_gost3410_vko(curve, d_e, len, q_s, 2 * len, hh, 8, vko, 32), GOSTX_OK, "VKO");
    expect(h, "client", "K_EXP", 0, vko, 32); /* the RFC prints VKO's R as K_EXP */
    CHECK_RC(gostx_cpro_kek_diversify(vko, GOSTX_SBOX_TC26_Z, hh, kek), GOSTX_OK, "CPDivers");
    CHECK_RC(gostx_gost3410_vko(curve, d_s, len, q_e, 2 * len, hh, 8, vko, 32), GOSTX_OK, "VKO");
    expect(h, "server", "K_EXP", 0, vko, 32);
    CHECK_RC(gostx_cpro_kek_diversify(vko, GOSTX_SBOX_TC26_Z, hh, kek), GOSTX_OK, "CPDivers");
    /* RFC 4357's wraps, the library's public calls, on these values. */
    CHECK_RC(gostx_gost89_key_wrap(kek, GOSTX_SBOX_TC26_Z, hh, pms, got), GOSTX_OK, "key wrap");
    expect(h, "client", "PMSEXP", 0, got, 44);
    expect(h, "client", "CEK_ENC", 0, got + 8, 32);
    expect(h, "client", "CEK_MAC", 0, got + 40, 4);
    CHECK_RC(gostx_cpro_key_wrap(vko, GOSTX_SBOX_TC26_Z, hh, pms, got), GOSTX_OK,
             "CryptoPro key wrap");
    expect(h, "client", "PMSEXP", 0, got, 44);
    uint8_t cek[32];
    CHECK_RC(gostx_cpro_key_unwrap(vko, GOSTX_SBOX_TC26_Z, got, cek), GOSTX_OK, "unwrap");
    CHECK_BYTES(cek, pms, 32, "CryptoPro key unwrap");
    CHECK_RC(gostx_gost89_key_unwrap(kek, GOSTX_SBOX_TC26_Z, got, cek), GOSTX_OK, "unwrap");
    CHECK_BYTES(cek, pms, 32, "GOST 28147-89 key unwrap");
    got[43] ^= 0x10;
    memset(cek, 0xa5, 32);
    CHECK_RC(gostx_cpro_key_unwrap(vko, GOSTX_SBOX_TC26_Z, got, cek), GOSTX_EAUTH,
             "unwrap of a flipped IMIT");
    got[43] ^= 0x10;
    got[3] ^= 1; /* another UKM: another KEK */
    CHECK_RC(gostx_cpro_key_unwrap(vko, GOSTX_SBOX_TC26_Z, got, cek), GOSTX_EAUTH,
             "unwrap under another UKM");
    CHECK(cek[0] == 0xa5 && cek[31] == 0xa5, "a refused unwrap writes nothing");

    CHECK_RC(gostx__tls12_kexp28147(curve, d_e, len, q_s, 2 * len, hh, pms, exp), GOSTX_OK,
             "KExp28147");
    exp_len = 44;
    expect(h, "client", "PMSEXP", 0, exp, 44);
    expect(h, "client", "IV", 0, hh, 8); /* KExp28147's IV = H[1..8] */
    memset(got, 0, 32);
    CHECK_RC(tk_tls12_kimp28147(curve, d_s, len, q_e, 2 * len, hh, exp, got), GOSTX_OK,
             "KImp28147");
    expect(h, "server", "PMS", 0, got, 32);
    CHECK_RC(gostx__tls12_blob_write(exp, curve, q_e, 2 * len, NULL, 0, body, sizeof body, &body_len),
             GOSTX_OK, "TLSGostKeyTransportBlob");
  }
  expect(h, "server", "PMSEXP extracted", 0, exp, exp_len);
  /* The message: type 16, a 3-byte length, the DER. */
  CHECK(cke && cken == 4 + body_len, "%s: ClientKeyExchange of %zu bytes", sec, body_len);
  if (cke && cken == 4 + body_len) CHECK_BYTES(body, cke + 4, body_len, "ClientKeyExchange written");
  if (cke && cken > 4) {
    const uint8_t *ke;
    size_t kl, ql = 0;
    gostx_gost3410_curve rc_curve = 0;
    uint8_t kx[44];
    int rc = s->tree ? gostx__tls12_gkt_read(cke + 4, cken - 4, &ke, &kl, &rc_curve, q, sizeof q,
                                             &ql)
                     : gostx__tls12_blob_read(cke + 4, cken - 4, kx, &rc_curve, q, sizeof q, &ql);
    CHECK_RC(rc, GOSTX_OK, "read the printed ClientKeyExchange");
    CHECK(rc_curve == (gostx_gost3410_curve)curve && ql == 2 * len &&
              memcmp(q, q_e, 2 * len) == 0,
          "%s: the ephemeral key read back", sec);
    if (rc == GOSTX_OK && s->tree) CHECK(kl == exp_len && memcmp(ke, exp, kl) == 0, "keyExp back");
    if (rc == GOSTX_OK && !s->tree) CHECK(memcmp(kx, exp, 44) == 0, "the key blob back");
    der_refusals(s, cke + 4, cken - 4);
  }
  kx_refusals(s, curve, d_s, len, q_e, hh, exp, exp_len);
  free(cke);

  check_transcript(h);
  uint8_t hm[32];
  get(h, "client", "HASH(HM)", 0, hm, 32);
  if (value(h, "client", "Signature value sgn_c = SIGN_d_c(HM)", 0)) check_cert_verify(h, hm);
  if (json_get(h, "extended_master_secret") && json_num(json_get(h, "extended_master_secret")))
    CHECK_RC(gostx__tls12_extended_master_secret(pms, 32, hm, ms), GOSTX_OK, "EMS");
  else
    CHECK_RC(gostx__tls12_master_secret(pms, 32, ch, sh, ms), GOSTX_OK, "MS");
  expect(h, "client", "MS", 0, ms, 48);
  expect(h, "server", "MS", 0, ms, 48);

  gostx__tls12_keys k;
  CHECK_RC(gostx__tls12_key_block(s, ms, ch, sh, &k), GOSTX_OK, "key block");
  size_t iv = s->iv_len, kbl = 128 + 2 * iv;
  uint8_t kb[144];
  memcpy(kb, k.client_mac, 32), memcpy(kb + 32, k.server_mac, 32);
  memcpy(kb + 64, k.client_key, 32), memcpy(kb + 96, k.server_key, 32);
  memcpy(kb + 128, k.client_iv, iv), memcpy(kb + 128 + iv, k.server_iv, iv);
  expect(h, "client", "K_write_MAC|K_read_MAC|K_write_ENC|K_read_ENC|IV_write|IV_read", 0, kb, kbl);
  expect(h, "server", "K_read_MAC|K_write_MAC|K_read_ENC|K_write_ENC|IV_read|IV_write", 0, kb, kbl);

  /* Finished: the client's over the HASH(HM) before it, the server's too. */
  uint8_t vd[32], fin[64];
  for (int server = 0; server <= 1; server++) {
    const char *side = server ? "server" : "client";
    const char *named = server ? "server_verify_data" : "client_verify_data";
    get(h, side, "HASH(HM)", 1, hm, 32);
    CHECK_RC(gostx__tls12_finished(s, ms, server, hm, vd), GOSTX_OK, server ? "server Finished" : "client Finished");
    if (get(h, side, "Finished message", 0, fin, 4 + s->verify_len))
      CHECK_BYTES(fin + 4, vd, s->verify_len, server ? "server verify_data" : "client verify_data");
    if (value(h, side, named, 0)) expect(h, side, named, 0, vd, s->verify_len);
  }

  check_side_records(h, "client", s, &k);
  check_side_records(h, "server", s, &k);
  free(chb), free(shb);
}

/* ---- gost-engine's CryptoPro key transports (RFC 4357 key wrap) ----
 * tests/vectors/cpro-keywrap-engine.json: a CEK `openssl pkeyutl -encrypt`
 * sent to a key of each parameter set. Read as CNT_IMIT's blob (its
 * GostR3410-KeyTransport), the KEK = VKO_256(d, Q_eph, UKM) unwraps it;
 * the wrap made here from the same UKM is gost-engine's byte for byte, and
 * the body written here reads back the same. */
static void test_engine_keywrap(const json *cases) {
  CHECK(json_len(cases) == 8, "eight gost-engine key transports");
  for (size_t i = 0; i < json_len(cases); i++) {
    const json *c = json_at(cases, i);
    const char *pem = tv_str(c, "key_pem");
    char what[96];
    snprintf(what, sizeof what, "gost-engine %s paramset %s", tv_str(c, "alg"),
             tv_str(c, "paramset"));
    gostx_gost3410_key_kind kind;
    gostx_gost3410_curve curve, ec;
    size_t len, n, kn, ql;
    uint8_t d[64], q[128], qe[128], blob[300], kexp[44], kek[32], cek[32], w[44];
    CHECK_RC(tk_key_from_pem(pem, strlen(pem), &kind, &curve, &len, d, sizeof d, q,
                                         sizeof q),
             GOSTX_OK, what);
    uint8_t *want = tv_hex(c, "cek", &n), *kt = tv_hex(c, "key_transport", &kn);
    /* TLSGostKeyTransportBlob ::= SEQUENCE { GostR3410-KeyTransport } */
    blob[0] = 0x30, blob[1] = 0x81, blob[2] = (uint8_t)kn;
    memcpy(blob + 3, kt, kn);
    CHECK_RC(gostx__tls12_blob_read(blob, kn + 3, kexp, &ec, qe, sizeof qe, &ql), GOSTX_OK, what);
    CHECK(ec == curve && ql == 2 * len, "%s: the ephemeral key on the recipient's curve", what);
    CHECK_RC(gostx_gost3410_vko(curve, d, len, qe, ql, kexp, 8, kek, 32), GOSTX_OK, "VKO_256");
    memset(cek, 0, sizeof cek);
    CHECK_RC(gostx_cpro_key_unwrap(kek, GOSTX_SBOX_TC26_Z, kexp, cek), GOSTX_OK, what);
    CHECK(n == 32 && memcmp(cek, want, 32) == 0, "%s: the CEK unwrapped", what);
    CHECK_RC(gostx_cpro_key_wrap(kek, GOSTX_SBOX_TC26_Z, kexp, want, w), GOSTX_OK, what);
    CHECK_BYTES(w, kexp, 44, "CryptoPro key wrap as gost-engine's");
    uint8_t h[32] = {0};
    memcpy(h, kexp, 8); /* KImp28147 with H[1..8] = the UKM */
    memset(cek, 0, sizeof cek);
    CHECK_RC(tk_tls12_kimp28147(curve, d, len, qe, ql, h, kexp, cek), GOSTX_OK, what);
    CHECK(memcmp(cek, want, 32) == 0, "%s: KImp28147", what);
    size_t bl;
    gostx_gost3410_curve ec2;
    uint8_t kexp2[44], qe2[128];
    CHECK_RC(gostx__tls12_blob_write(kexp, curve, qe, ql, NULL, 0, blob, sizeof blob, &bl), GOSTX_OK, what);
    CHECK_RC(gostx__tls12_blob_read(blob, bl, kexp2, &ec2, qe2, sizeof qe2, &ql), GOSTX_OK, what);
    CHECK(ec2 == curve && memcmp(kexp2, kexp, 44) == 0 && memcmp(qe2, qe, ql) == 0,
          "%s: written and read back", what);
    free(want), free(kt);
  }
}

/* ---- the PRF's framing, the record limits and SNMAX ---- */
static void test_limits(void) {
  uint8_t secret[48] = {1}, out[2 * 32 + 5], again[sizeof out];
  CHECK_RC(gostx__tls12_prf(secret, 48, "x", NULL, 0, NULL, 0, out, 0), GOSTX_ELEN, "PRF 0 bytes");
  CHECK_RC(gostx__tls12_prf(secret, 48, "x", NULL, 0, NULL, 0, out, 0x10000), GOSTX_ELEN,
           "PRF past 65535 bytes");
  /* A longer output extends a shorter one (P_hash's blocks). */
  CHECK_RC(gostx__tls12_prf(secret, 48, "x", secret, 3, secret + 3, 5, out, sizeof out), GOSTX_OK,
           "PRF");
  CHECK_RC(gostx__tls12_prf(secret, 48, "x", secret, 3, secret + 3, 5, again, 33), GOSTX_OK, "PRF");
  CHECK(memcmp(out, again, 33) == 0, "PRF outputs are prefixes of each other");
  /* The seed's split does not matter. */
  CHECK_RC(gostx__tls12_prf(secret, 48, "x", secret, 8, NULL, 0, again, sizeof out), GOSTX_OK, "PRF");
  CHECK(memcmp(out, again, sizeof out) == 0, "seed1 | seed2 is one seed");
  CHECK(gostx__tls12_suite_by_id(0xC103) == NULL && gostx__tls12_suite_by_id(0x0035) == NULL,
        "other suites unknown");
  uint8_t mk[32] = {2}, ek[32] = {3}, iv[8] = {4};
  CHECK_RC(gostx__tls12_record_init(NULL, 0xC100, mk, ek, iv), GOSTX_EINVAL, "NULL record");
  gostx__tls12_record r0;
  CHECK_RC(gostx__tls12_record_init(&r0, 0xC103, mk, ek, iv), GOSTX_EINVAL, "a TLS 1.3 suite");

  static const unsigned ids[] = {GOSTX__TLS12_KUZNYECHIK_CTR_OMAC, GOSTX__TLS12_MAGMA_CTR_OMAC,
                                 GOSTX__TLS12_28147_CNT_IMIT};
  for (size_t i = 0; i < 3; i++) {
    gostx__tls12_record tx, rx, fresh;
    CHECK_RC(gostx__tls12_record_init(&fresh, ids[i], mk, ek, iv), GOSTX_OK, "init");
    const gostx__tls12_suite *s = fresh.suite;
    tx = rx = fresh;
    size_t n, out_len;
    uint8_t type;
    t_rand_bytes(data_buf, GOSTX__TLS12_MAX_PLAINTEXT + 1);
    /* Several records in a row, of sizes across the ACPKM sections and the
     * key meshing's 1024 bytes; the receiver in step. */
    static const size_t lens[] = {0, 1, 1023, 1024, 1025, 4096, 5000, 16384};
    for (size_t j = 0; j < sizeof lens / sizeof lens[0]; j++)
      seal_open(&tx, &rx, (uint8_t)(0x14 + j % 4), data_buf, lens[j]);
    {
      /* In place: the content already at out + 5, opened into rec + 5. */
      gostx__tls12_record t2 = tx, r2 = rx;
      memcpy(rec_buf + 5, data_buf, 300);
      CHECK_RC(gostx__tls12_record_seal(&t2, 0x16, rec_buf + 5, 300, rec_buf, sizeof rec_buf, &n),
               GOSTX_OK, "seal in place");
      CHECK_RC(gostx__tls12_record_open(&r2, rec_buf, n, rec_buf + 5, 300, &out_len, &type),
               GOSTX_OK, "open in place");
      CHECK(out_len == 300 && type == 0x16 && memcmp(rec_buf + 5, data_buf, 300) == 0,
            "%s: in place", s->name);
    }
    CHECK_RC(gostx__tls12_record_seal(&tx, 0x17, data_buf, 16385, rec_buf, sizeof rec_buf, &n),
             GOSTX_ELEN, "seal 2^14 + 1 bytes");
    CHECK_RC(gostx__tls12_record_seal(&tx, 0, data_buf, 10, rec_buf, sizeof rec_buf, &n),
             GOSTX_EINVAL, "seal type 0");
    CHECK_RC(gostx__tls12_record_seal(&tx, 0x17, data_buf, 10, rec_buf, 5 + 10 + s->mac_len - 1,
                                      &n),
             GOSTX_EINVAL, "output one byte short");
    {
      /* A fragment of 2^14 + 1 bytes (2^14 sealed, one more claimed):
       * refused by its size before the MAC. */
      gostx__tls12_record t2 = tx, r2 = rx;
      CHECK_RC(gostx__tls12_record_seal(&t2, 0x17, data_buf, 16384, rec_buf, sizeof rec_buf, &n),
               GOSTX_OK, "seal 2^14");
      rec_buf[n] = 0;
      size_t fl = n - 5 + 1;
      rec_buf[3] = (uint8_t)(fl >> 8), rec_buf[4] = (uint8_t)fl;
      CHECK_RC(gostx__tls12_record_open(&r2, rec_buf, n + 1, plain, sizeof plain, &out_len, &type),
               GOSTX_ELEN, "fragment over 2^14 + MAC");
      CHECK(r2.seq == rx.seq, "oversized record: sequence number kept");
    }
    n = seal_open(&tx, &rx, 0x17, data_buf, 40);
    /* Out one byte short of the content. */
    gostx__tls12_record r3 = rx;
    r3.seq--;
    if (s->tree) {
      CHECK_RC(gostx__tls12_record_open(&r3, rec_buf, n, plain, 39, &out_len, &type), GOSTX_EINVAL,
               "output short of the content");
    }
    /* A refused record leaves CNT_IMIT's streams: after a forgery at the
     * next sequence number the genuine record still opens. */
    gostx__tls12_record before = rx;
    CHECK_RC(gostx__tls12_record_seal(&tx, 0x17, data_buf, 30, rec_buf, sizeof rec_buf, &n),
             GOSTX_OK, "seal");
    check_tampering(&before, rec_buf, n);
    CHECK_RC(gostx__tls12_record_open(&rx, rec_buf, n, plain, sizeof plain, &out_len, &type),
             GOSTX_OK, "the genuine record opens after the refusals");
    /* SNMAX: the record of that number is the keys' last. */
    if (s->snmax < UINT64_MAX || s->tree) {
      tx = rx = fresh;
      tx.seq = rx.seq = s->snmax;
      seal_open(&tx, &rx, 0x17, data_buf, 20);
      CHECK(tx.spent && rx.spent, "%s: SNMAX spent", s->name);
      CHECK_RC(gostx__tls12_record_seal(&tx, 0x17, data_buf, 20, rec_buf, sizeof rec_buf, &n),
               GOSTX_ESTATE, "seal past SNMAX");
      CHECK_RC(gostx__tls12_record_open(&rx, rec_buf, 25 + s->mac_len, plain, sizeof plain,
                                        &out_len, &type),
               GOSTX_ESTATE, "open past SNMAX");
    }
    gostx__tls12_record_clear(&tx);
    gostx__tls12_record_clear(&rx);
  }
}

int main(void) {
  t_rand_init();
  json *f = tv_load("tls12-rfc9189.json");
  test_tlstree(json_get(f, "tlstree"), 14); /* A.1.1 */
  test_tlstree(json_get(json_get(f, "gost_engine"), "tlstree"), 1);
  test_record_examples(json_get(f, "records"));
  const json *hs = json_get(f, "handshakes");
  CHECK(json_len(hs) == 3, "three handshakes");
  for (size_t i = 0; i < json_len(hs); i++) test_handshake(json_at(hs, i));
  json_free(f);
  f = tv_load("cpro-keywrap-engine.json");
  test_engine_keywrap(json_get(f, "cases"));
  json_free(f);
  test_limits();
  return t_done();
}
