/* gostx ts -text: a TimeStampReq and a TimeStampResp (or its token) as
 * openssl ts -text prints them; used by -query, -reply and -verify
 * (cmd_ts.c) and by the TSA's file mode (ts_reply.c). */
#include <string.h>
#include <time.h>

#include "ts_cli.h"

static void print_hex_block(FILE *f, const uint8_t *p, size_t n) {
  for (size_t i = 0; i < n; i += 16) {
    fprintf(f, "    %04zx -", i);
    for (size_t j = i; j < i + 16 && j < n; j++) fprintf(f, " %02x", p[j]);
    fputc('\n', f);
  }
}

static void print_oid(FILE *f, const char *label, const uint8_t *oid, size_t len) {
  char text[128];
  (void)gostx_cms_oid_text(oid, len, text, sizeof text);
  fprintf(f, "%s%s\n", label, text);
}

static void print_int(FILE *f, const char *label, const uint8_t *p, size_t n) {
  fprintf(f, "%s", label);
  if (!p) {
    fprintf(f, "unspecified\n");
    return;
  }
  while (n > 1 && p[0] == 0) p++, n--;
  fprintf(f, "0x");
  for (size_t i = 0; i < n; i++) fprintf(f, "%02X", p[i]);
  fputc('\n', f);
}

static const char *hash_name(size_t len) {
  return len == 32 ? "md_gost12_256" : len == 64 ? "md_gost12_512" : "unknown";
}

void ts_print_query(FILE *f, const gostx_tsa_query *q) {
  fprintf(f, "Version: 1\nHash Algorithm: %s\nMessage data:\n", hash_name(q->digest_len));
  print_hex_block(f, q->imprint, q->imprint_len);
  if (q->policy) print_oid(f, "Policy OID: ", q->policy, q->policy_len);
  else fprintf(f, "Policy OID: unspecified\n");
  print_int(f, "Nonce: ", q->nonce, q->nonce_len);
  fprintf(f, "Certificate required: %s\nExtensions:\n", q->cert_req ? "yes" : "no");
}

void ts_print_reply(FILE *f, const uint8_t *der, size_t len, int token) {
  static gostx_cms_ts_token t;
  gostx_cms_ts_status st;
  int rc = gostx_cms_ts_parse(der, len, &t, &st);
  if (!token) {
    fprintf(f, "Status info:\nStatus: %s\n", rc ? (st == GOSTX_CMS_TS_REFUSED ? "Rejected." : "unreadable.")
                                                 : t.pki_status ? "Granted with modifications." : "Granted.");
    fprintf(f, "Status description: unspecified\nFailure info: unspecified\n\nTST info:\n");
  }
  if (rc) {
    fprintf(f, "%s\n", st == GOSTX_CMS_TS_REFUSED ? "Not included." : gostx_cms_ts_status_name(st));
    return;
  }
  char when[64];
  time_t tt = (time_t)t.gen_time;
  struct tm tm;
  if (!gmtime_r(&tt, &tm) || !strftime(when, sizeof when, "%b %e %H:%M:%S", &tm)) when[0] = 0;
  fprintf(f, "Version: 1\n");
  print_oid(f, "Policy OID: ", t.policy, t.policy_len);
  fprintf(f, "Hash Algorithm: %s\nMessage data:\n", hash_name(t.imprint_len));
  print_hex_block(f, t.imprint, t.imprint_len);
  print_int(f, "Serial number: ", t.serial, t.serial_len);
  fprintf(f, "Time stamp: %s", when);
  if (t.gen_millis) fprintf(f, ".%03u", (unsigned)t.gen_millis);
  fprintf(f, " %d GMT\nAccuracy: ", tm.tm_year + 1900);
  if (!t.has_accuracy) fprintf(f, "unspecified\n");
  else
    fprintf(f, "0x%02X seconds, 0x%03X millis, 0x%03X micros\n", (unsigned)t.accuracy_secs,
            (unsigned)t.accuracy_millis, (unsigned)t.accuracy_micros);
  fprintf(f, "Ordering: %s\n", t.ordering ? "yes" : "no");
  print_int(f, "Nonce: ", t.nonce, t.nonce_len);
  fprintf(f, "TSA: %s\nExtensions:\n", t.tsa ? "DirName (the TSA's certificate subject)" : "unspecified");
}
