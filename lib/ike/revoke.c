/* The peer's certificate path and its revocation (ike.h,
 * gostx__ike_path_verify): the path lib/x509 builds to the configured CAs,
 * then each certificate of it but the anchor looked up in the CRLs the
 * caller loaded, under the policy for a certificate no CRL gives a status
 * (docs/IKE.md, "Revocation"). Public data only. */
#include <stdio.h>

#include "ike.h"

/* "0x" and the serial's octets in hex, cut to fit cap */
static void serial_hex(const gostx_x509_cert *c, char *out, size_t cap) {
  size_t o = (size_t)snprintf(out, cap, "0x");
  for (size_t i = 0; i < c->serial_len && o + 3 <= cap; i++, o += 2)
    snprintf(out + o, cap - o, "%02X", c->serial[i]);
}

gostx_x509_status gostx__ike_path_verify(const gostx_x509_store *store,
                                         const gostx_ike_revocation *rev,
                                         const gostx_x509_cert *chain, size_t n, int64_t now,
                                         char *note) {
  gostx_x509_verify_opts o;
  gostx_x509_verify_result r;
  gostx_x509_verify_opts_init(&o, now);
  if (note) note[0] = 0;
  gostx_x509_status st = gostx_x509_verify_with(store, chain, n, &o, &r);
  if (st != GOSTX_X509_OK || !rev || rev->policy == GOSTX_IKE_REVOCATION_OFF) return st;
  /* path[path_len - 1] is the anchor: configured, not looked up (RFC 5280
   * 6.1.1(d): an input, no certificate of the path) */
  for (size_t i = 0; i + 1 < r.path_len; i++) {
    gostx_x509_revocation rv;
    gostx_x509_status s =
        gostx_x509_crl_status(rev->crls, rev->n_crls, r.path[i], r.path[i + 1], now, &rv);
    if (s == GOSTX_X509_OK) continue;
    const int refused = s == GOSTX_X509_REVOKED || rev->policy == GOSTX_IKE_REVOCATION_REQUIRE;
    if (!refused && note && note[0]) continue; /* WARN: the first certificate said */
    char serial[48];
    serial_hex(r.path[i], serial, sizeof serial);
    if (note && s == GOSTX_X509_REVOKED) {
      const char *reason = gostx_x509_crl_reason_name(rv.reason);
      snprintf(note, GOSTX_IKE_NOTE_MAX, "depth %zu, serial %s, reason %s", i, serial,
               reason ? reason : "none given");
    } else if (note) {
      snprintf(note, GOSTX_IKE_NOTE_MAX, "depth %zu, serial %s: no revocation status: %s%s", i,
               serial, gostx_x509_status_name(s),
               refused ? " (revocation = require)" : " (revocation = warn: accepted)");
    }
    if (refused) return s;
  }
  return GOSTX_X509_OK;
}
