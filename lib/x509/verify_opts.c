/* What gostx_x509_verify_opts asks of the leaf beyond its purpose: the
 * keyUsage bits a caller needs (with no extendedKeyUsage asked), and an
 * email address (openssl verify's -verify_email). Public data only. */
#include "x509/x509_internal.h"

static int lower(int ch) { return ch >= 'A' && ch <= 'Z' ? ch + 32 : ch; }

/* The last "@" of want[n] (a local part may hold one, quoted), or NULL. */
static const char *last_at(const char *want, size_t n) {
  while (n && want[n - 1] != '@') n--;
  return n ? want + n - 1 : NULL;
}

/* RFC 5280 7.5 (and 4.2.1.6's Mailbox): the local part is compared
 * exactly, the domain (after the last "@") ignoring ASCII case. */
static int mailbox_equal(gostx__der v, const char *want, size_t wn) {
  const char *at = last_at(want, wn);
  size_t local = (size_t)(at - want);
  if (v.n != wn || memcmp(v.p, want, local + 1)) return 0;
  for (size_t i = local + 1; i < wn; i++)
    if (lower(v.p[i]) != lower((uint8_t)want[i])) return 0;
  return 1;
}

/* The leaf's rfc822Names; when it has none, its subject's emailAddress
 * attributes (the legacy place, as openssl's -verify_email looks). */
static int email_matches(const gostx_x509_cert *c, const char *want) {
  size_t wn = strlen(want);
  const char *at = last_at(want, wn);
  if (!at || at == want || at == want + wn - 1) return 0; /* no mailbox */
  gostx__der san = {c->san, c->san_len}, v;
  uint8_t tag;
  int any = 0;
  while (c->san && !gostx__der_next(&san, &tag, &v, NULL)) {
    if (tag != SAN_EMAIL) continue;
    any = 1;
    if (mailbox_equal(v, want, wn)) return 1;
  }
  if (any) return 0;
  gostx__der name = {c->subject, c->subject_len}, rdns, rdn, atv, oid;
  if (gostx__der_get(&name, GOSTX__DER_SEQ, &rdns, NULL)) return 0;
  while (!gostx__der_get(&rdns, GOSTX__DER_SET, &rdn, NULL))
    while (!gostx__der_get(&rdn, GOSTX__DER_SEQ, &atv, NULL))
      if (!gostx__der_oid(&atv, &oid) && GOSTX__DER_OID_IS(oid, OID_EMAIL_ADDRESS) &&
          !gostx__der_next(&atv, &tag, &v, NULL) && mailbox_equal(v, want, wn))
        return 1;
  return 0;
}

gostx_x509_status gostx__x509_leaf_opts(const gostx_x509_cert *leaf,
                                        const gostx_x509_verify_opts *opts, char *why,
                                        size_t cap) {
  if (!opts) return GOSTX_X509_OK;
  if (opts->key_usage && leaf->key_usage != ~0u &&
      (leaf->key_usage & opts->key_usage) != opts->key_usage) {
    snprintf(why, cap, "keyUsage: the leaf lacks a keyUsage bit asked for (asked 0x%x, has 0x%x)",
             opts->key_usage, leaf->key_usage);
    return GOSTX_X509_KEY_USAGE;
  }
  if (opts->email && !email_matches(leaf, opts->email)) {
    snprintf(why, cap, "subjectAltName: no rfc822Name (nor subject emailAddress) is %.200s",
             opts->email);
    return GOSTX_X509_EMAIL_MISMATCH;
  }
  return GOSTX_X509_OK;
}
