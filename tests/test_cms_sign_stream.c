/* gostx_cms_sign_stream: the content read once through the callback (a
 * feed that cannot rewind), signed detached or attached, DER (length
 * known: the one-shot strict parser reads it) or BER (unknown: read back
 * by gostx_cms_signed_stream), verified; a content longer or shorter than
 * said and a work buffer too small refused by name. */
#include <stdlib.h>
#include <string.h>

#include "cms_mem_stream.h"
#include "tc26_cms_files.h"

static signer_files r256, r512;
static uint8_t content[300000], work[GOSTX_CMS_STREAM_WORK];

/* content[len] signed streaming into out (read `step` at a time). */
static int sign_into(unsigned flags, uint64_t said, size_t len, size_t step, sink *out,
                     gostx_cms_sign_stream_result *res) {
  gostx_cms_signer signers[2] = {{&r256.cert, &r256.key}, {&r512.cert, &r512.key}};
  gostx_cms_sign_params sp = {flags, 1700000000, NULL, 0};
  gostx_cms_sign_stream_params p = {signers, 2, &sp, said, work, sizeof work};
  feed f = {content, len, 0, step};
  out->n = 0;
  int rc = gostx_cms_sign_stream(&p, feed_read, &f, sink_write, out, res);
  return rc ? rc : f.pos == len && res->content_len == len ? 0 : -1000; /* all of it read, once */
}

static gostx_cms_status verify_with(const uint8_t *der, size_t len, const gostx_cms_hash *h) {
  static gostx_cms_signed sd;
  gostx_cms_verdict v;
  gostx_cms_status st;
  if (gostx_cms_signed_parse(der, len, &sd, &st)) return st;
  return gostx_cms_signed_verify(&sd, h, NULL, &v) ? v.status : GOSTX_CMS_OK;
}

static void round_trips(void) {
  static const size_t sizes[] = {0, 1, 4095, 65536, 65537, 300000};
  uint8_t *buf = malloc(400000);
  sink out = {buf, 0, 400000};
  gostx_cms_sign_stream_result res;
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    size_t n = sizes[i];
    gostx_cms_hash h;
    (void)gostx_cms_hash_init(&h, GOSTX_CMS_HASH_256 | GOSTX_CMS_HASH_512);
    (void)gostx_cms_hash_update(&h, content, n);
    (void)gostx_cms_hash_final(&h);
    CHECK(sign_into(0, 0, n, 1000, &out, &res) == 0 && out.n == res.der_len && !memcmp(buf, res.der, out.n),
          "%zu bytes detached: the message written is res->der", n);
    gostx_cms_status st = verify_with(buf, out.n, &h);
    CHECK(st == GOSTX_CMS_OK, "%zu bytes detached: verifies (%s)", n, gostx_cms_status_name(st));
    CHECK(sign_into(GOSTX_CMS_ATTACHED, n, n, 7000, &out, &res) == 0, "%zu bytes attached DER", n);
    st = verify_with(buf, out.n, NULL);
    CHECK(st == GOSTX_CMS_OK, "%zu bytes attached DER: strict DER, verifies (%s)", n, gostx_cms_status_name(st));
    CHECK(sign_into(GOSTX_CMS_ATTACHED, GOSTX_CMS_LEN_UNKNOWN, n, 0, &out, &res) == 0 && buf[1] == 0x80,
          "%zu bytes attached BER: indefinite", n);
    gostx_cms_signed_stream_result back;
    sink got = {malloc(n + 1), 0, n + 1};
    feed f = {buf, out.n, 0, 333};
    CHECK(gostx_cms_signed_stream(work, sizeof work, feed_read, &f, sink_write, &got, &back) == 0 &&
              back.attached && got.n == n && !memcmp(got.p, content, n),
          "%zu bytes attached BER: read back streaming, the same content", n);
    st = verify_with(back.der, back.der_len, back.hashed ? &back.hash : NULL);
    CHECK(st == GOSTX_CMS_OK, "%zu bytes attached BER: verifies (%s)", n, gostx_cms_status_name(st));
    free(got.p);
  }
  CHECK(sign_into(GOSTX_CMS_ATTACHED, 1000, 1001, 0, &out, &res) == GOSTX_ELEN, "a content longer than said: ELEN");
  CHECK(sign_into(GOSTX_CMS_ATTACHED, 1000, 999, 0, &out, &res) == GOSTX_ELEN, "shorter than said: ELEN");
  free(buf);
}

static void refusals(void) {
  gostx_cms_signer signers[1] = {{&r256.cert, &r256.key}};
  static uint8_t small[32 * 1024];
  uint8_t buf[64];
  gostx_cms_sign_stream_params p = {signers, 1, NULL, 0, small, sizeof small};
  gostx_cms_sign_stream_result res = {0, NULL, 0, 0};
  feed f = {content, 10, 0, 0};
  sink out = {buf, 0, sizeof buf};
  CHECK(gostx_cms_sign_stream(&p, feed_read, &f, sink_write, &out, &res) == GOSTX_ELEN && f.pos == 0 &&
            res.work_needed > sizeof small && res.work_needed <= GOSTX_CMS_STREAM_WORK,
        "a work buffer too small: ELEN before anything is read, the room needed said (%zu)", res.work_needed);
  p.work = work, p.work_len = sizeof work, p.n_signers = 0;
  CHECK(gostx_cms_sign_stream(&p, feed_read, &f, sink_write, &out, &res) == GOSTX_EINVAL, "no signers: EINVAL");
  CHECK(gostx_cms_sign_stream(NULL, feed_read, &f, sink_write, &out, &res) == GOSTX_EINVAL, "no params: EINVAL");
}

int main(void) {
  for (size_t i = 0; i < sizeof content; i++) content[i] = (uint8_t)(i * 29 + 3);
  load_signer("recipient256_cert.pem", "recipient256_key.pem", &r256);
  load_signer("recipient512_cert.pem", "recipient512_key.pem", &r512);
  (void)example; /* tc26_cms_files.h's, not needed here */
  round_trips();
  refusals();
  gostx_gost3410_key_clear(&r256.key);
  gostx_gost3410_key_clear(&r512.key);
  return t_done();
}
