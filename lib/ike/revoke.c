/* The peer's certificate path and its revocation (ike.h,
 * gostx__ike_path_verify): the path lib/x509 builds to the configured CAs,
 * then each certificate of it but the anchor looked up in the CRLs the
 * caller loaded, under the policy for a certificate no CRL gives a status
 * (docs/IKE.md, "Revocation"). The certificates of an accepted IKE_AUTH are
 * kept in the engine, so that later CRLs reach an IKE SA already up
 * (gostx__ike_peer_recheck). Public data only. */
#include <stdio.h>
#include <string.h>

#include "engine_int.h"

/* "0x" and the serial's octets in hex, cut to fit cap */
static void serial_hex(const gostx_x509_cert *c, char *out, size_t cap) {
  size_t o = (size_t)snprintf(out, cap, "0x");
  for (size_t i = 0; i < c->serial_len && o + 3 <= cap; i++, o += 2)
    snprintf(out + o, cap - o, "%02X", c->serial[i]);
}

/* The path built at path_time, its certificates looked up in rev's CRLs
 * at crl_time (an IKE SA checked again: the path as it was accepted, the
 * CRLs of now). */
static gostx_x509_status path_check(const gostx_x509_store *store,
                                    const gostx_ike_revocation *rev,
                                    const gostx_x509_cert *chain, size_t n, int64_t path_time,
                                    int64_t crl_time, char *note) {
  gostx_x509_verify_opts o;
  gostx_x509_verify_result r;
  gostx_x509_verify_opts_init(&o, path_time);
  if (note) note[0] = 0;
  gostx_x509_status st = gostx_x509_verify_with(store, chain, n, &o, &r);
  if (st != GOSTX_X509_OK || !rev || rev->policy == GOSTX_IKE_REVOCATION_OFF) return st;
  /* path[path_len - 1] is the anchor: configured, not looked up (RFC 5280
   * 6.1.1(d): an input, no certificate of the path) */
  for (size_t i = 0; i + 1 < r.path_len; i++) {
    gostx_x509_revocation rv;
    gostx_x509_status s =
        gostx_x509_crl_status(rev->crls, rev->n_crls, r.path[i], r.path[i + 1], crl_time, &rv);
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

gostx_x509_status gostx__ike_path_verify(const gostx_x509_store *store,
                                         const gostx_ike_revocation *rev,
                                         const gostx_x509_cert *chain, size_t n, int64_t now,
                                         char *note) {
  return path_check(store, rev, chain, n, now, now, note);
}

void gostx__ike_peer_keep(gostx_ike_engine *e, const gostx_ike_chain *c, int64_t now) {
  uint8_t buf[GOSTX_IKE_MSG_MAX];
  size_t off = 0, n = 0;
  gostx__ike_drop(&e->peer_certs, &e->peer_certs_len);
  e->n_peer_certs = 0;
  for (const gostx_ike_payload *p = gostx__ike_find(c, GOSTX_IKE_PT_CERT); p;
       p = gostx__ike_find_next(c, p, GOSTX_IKE_PT_CERT)) {
    uint8_t enc;
    const uint8_t *der;
    size_t len;
    /* read and bounded as the accepted path was (read_certs, one message) */
    if (n == GOSTX_IKE_MAX_CERTS || gostx__ike_cert_read(p->body, p->len, &enc, &der, &len) ||
        len > sizeof buf - off)
      return;
    memcpy(buf + off, der, len);
    e->peer_cert_lens[n++] = (uint16_t)len;
    off += len;
  }
  /* kept sized to fit: they stay as long as the IKE SA */
  if (gostx__ike_keep(&e->peer_certs, &e->peer_certs_len, buf, off) != GOSTX_OK) return;
  e->n_peer_certs = (uint8_t)n;
  e->peer_certs_at = now;
}

gostx_x509_status gostx__ike_peer_recheck(const gostx_ike_engine *e, int64_t now, char *note) {
  gostx_x509_cert chain[GOSTX_IKE_MAX_CERTS];
  gostx_x509_status st = GOSTX_X509_MALFORMED;
  size_t off = 0;
  if (note) note[0] = 0;
  if (!e->n_peer_certs) return st; /* none kept: no path to look up */
  for (size_t i = 0; i < e->n_peer_certs; off += e->peer_cert_lens[i++])
    if (gostx_x509_parse(e->peer_certs + off, e->peer_cert_lens[i], &chain[i], &st) != GOSTX_OK)
      return st;
  return path_check(e->cf->store, &e->cf->revocation, chain, e->n_peer_certs, e->peer_certs_at,
                    now, note);
}
