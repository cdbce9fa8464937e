/* The hello messages parsed, for both versions' handshakes: the
 * ClientHello (RFC 8446 4.1.2, with the extensions either version reads;
 * strict: every length against its container, decode_error and the like)
 * and the ServerHello (4.1.3; a TLS 1.2 one may carry no extensions). */
#include "hs.h"

#define fail gostx__tls_hs_fail

/* A list of 16-bit values (supported_groups, signature_algorithms):
 * data's whole body, at least one entry. */
static int ch_list16(gostx_tls *c, rd data, rd *list, int *have, const char *malformed) {
  *list = vec(&data, 2, 2);
  *have = 1;
  if (data.bad || data.n || (list->n & 1)) return fail(c, GOSTX__ALERT_DECODE_ERROR, malformed);
  return GOSTX_OK;
}

static int ch_server_name(gostx_tls *c, hello *h, rd data) {
  rd list = vec(&data, 2, 1);
  unsigned kind = get(&list, 1);
  rd name = vec(&list, 2, 1);
  if (data.bad || data.n || list.bad || list.n || kind != 0 ||
      !gostx__tls_is_host_name((const char *)name.p, name.n))
    return fail(c, GOSTX__ALERT_DECODE_ERROR, "malformed server_name");
  memcpy(h->sni, name.p, name.n);
  h->sni[name.n] = 0;
  return GOSTX_OK;
}

static int ch_alpn(gostx_tls *c, hello *h, rd data) {
  h->alpn = vec(&data, 2, 2);
  h->have_alpn = 1;
  rd l = h->alpn;
  while (l.n) (void)vec(&l, 1, 1);
  if (data.bad || data.n || l.bad) return fail(c, GOSTX__ALERT_DECODE_ERROR, "malformed ALPN");
  return GOSTX_OK;
}

static int ch_key_share(gostx_tls *c, hello *h, rd data) {
  h->shares = vec(&data, 2, 0);
  h->have_shares = 1;
  rd l = h->shares;
  while (l.n) {
    (void)get(&l, 2);
    (void)vec(&l, 2, 1);
  }
  if (data.bad || data.n || l.bad) return fail(c, GOSTX__ALERT_DECODE_ERROR, "malformed key_share");
  return GOSTX_OK;
}

static int ch_renegotiation_info(gostx_tls *c, hello *h, rd data) {
  rd info = vec(&data, 1, 0);
  if (data.bad || data.n) return fail(c, GOSTX__ALERT_DECODE_ERROR, "malformed renegotiation_info");
  /* RFC 5746 3.6: an initial handshake's is empty. */
  if (info.n) return fail(c, GOSTX__ALERT_HANDSHAKE_FAILURE, "renegotiation_info not empty");
  h->have_reneg = 1;
  return GOSTX_OK;
}

/* pre_shared_key: last (no extension after it), its identities and
 * binders as many; the binders' truncation point in the ClientHello whose
 * body starts at body. */
static int ch_psk(gostx_tls *c, hello *h, rd data, int last, const uint8_t *body) {
  if (!last) return fail(c, GOSTX__ALERT_ILLEGAL_PARAMETER, "pre_shared_key not last");
  h->psk_ids = vec(&data, 2, 7);
  if (!data.bad) h->psk_trunc = 4 + (size_t)(data.p - body);
  h->psk_binders = vec(&data, 2, 33);
  h->have_psk = 1;
  rd l = h->psk_ids, b = h->psk_binders;
  size_t nids = 0, nbinders = 0;
  for (; l.n && !l.bad; nids++) {
    (void)vec(&l, 2, 1);
    (void)get(&l, 4);
  }
  for (; b.n && !b.bad; nbinders++) (void)vec(&b, 1, 32);
  if (data.bad || data.n || l.bad || b.bad)
    return fail(c, GOSTX__ALERT_DECODE_ERROR, "malformed pre_shared_key");
  if (nids != nbinders)
    return fail(c, GOSTX__ALERT_ILLEGAL_PARAMETER, "pre_shared_key: identities and binders differ in number");
  return GOSTX_OK;
}

static int ch_psk_modes(gostx_tls *c, hello *h, rd data) {
  rd modes = vec(&data, 1, 1);
  if (data.bad || data.n) return fail(c, GOSTX__ALERT_DECODE_ERROR, "malformed psk_key_exchange_modes");
  h->have_modes = 1;
  while (modes.n)
    if (get(&modes, 1) == 1) h->psk_dhe_ke = 1;
  return GOSTX_OK;
}

/* One ClientHello extension (type, its body data) into h; last: no
 * extension after it. Unknown ones are ignored (RFC 8446 section 4.2). */
static int ch_extension(gostx_tls *c, hello *h, unsigned type, rd data, int last,
                        const uint8_t *body) {
  switch (type) {
    case EXT_SERVER_NAME:
      return ch_server_name(c, h, data);
    case EXT_SUPPORTED_GROUPS:
      return ch_list16(c, data, &h->groups, &h->have_groups, "malformed supported_groups");
    case EXT_SIGNATURE_ALGORITHMS:
      return ch_list16(c, data, &h->sigs, &h->have_sigs, "malformed signature_algorithms");
    case EXT_ALPN:
      return ch_alpn(c, h, data);
    case EXT_SUPPORTED_VERSIONS:
      h->versions = vec(&data, 1, 2);
      h->have_versions = 1;
      if (data.bad || data.n || (h->versions.n & 1))
        return fail(c, GOSTX__ALERT_DECODE_ERROR, "malformed supported_versions");
      return GOSTX_OK;
    case EXT_KEY_SHARE:
      return ch_key_share(c, h, data);
    case EXT_COOKIE:
      h->have_cookie = 1;
      return GOSTX_OK;
    case EXT_EARLY_DATA:
      if (data.n) return fail(c, GOSTX__ALERT_DECODE_ERROR, "early_data not empty in a ClientHello");
      h->early_data = 1;
      return GOSTX_OK;
    case EXT_EXTENDED_MASTER_SECRET:
      if (data.n) return fail(c, GOSTX__ALERT_DECODE_ERROR, "extended_master_secret not empty");
      h->have_ems = 1;
      return GOSTX_OK;
    case EXT_RENEGOTIATION_INFO:
      return ch_renegotiation_info(c, h, data);
    case EXT_PRE_SHARED_KEY:
      return ch_psk(c, h, data, last, body);
    case EXT_PSK_MODES:
      return ch_psk_modes(c, h, data);
    default:
      return GOSTX_OK;
  }
}

int gostx__tls_parse_client_hello(gostx_tls *c, const uint8_t *body, size_t len, hello *h) {
  rd r = {body, len, 0};
  memset(h, 0, sizeof *h);
  unsigned legacy = get(&r, 2);
  h->random = take(&r, 32);
  h->sid = vec(&r, 1, 0);
  h->suites = vec(&r, 2, 2);
  rd comp = vec(&r, 1, 1);
  rd exts = {NULL, 0, 0};
  if (r.n) exts = vec(&r, 2, 0);
  if (r.bad || r.n || h->sid.n > 32 || (h->suites.n & 1))
    return fail(c, GOSTX__ALERT_DECODE_ERROR, "malformed ClientHello");
  /* SSL 3.0 or older, whatever else it offers (RFC 8446 D.5) */
  if (legacy <= 0x0300)
    return fail(c, GOSTX__ALERT_PROTOCOL_VERSION, "ClientHello legacy_version 0x0300 or below");
  if (comp.n != 1 || comp.p[0] != 0)
    return fail(c, GOSTX__ALERT_ILLEGAL_PARAMETER, "compression methods other than null");
  uint64_t seen = 0;
  while (exts.n) {
    unsigned type = get(&exts, 2);
    rd data = vec(&exts, 2, 0);
    if (exts.bad) return fail(c, GOSTX__ALERT_DECODE_ERROR, "malformed ClientHello extensions");
    if (type < 64) {
      if (seen >> type & 1) return fail(c, GOSTX__ALERT_ILLEGAL_PARAMETER, "ClientHello extension twice");
      seen |= (uint64_t)1 << type;
    }
    int rc = ch_extension(c, h, type, data, exts.n == 0, body);
    if (rc != GOSTX_OK) return rc;
  }
  /* legacy_version is not used for negotiation when supported_versions is
   * there (RFC 8446 4.2.1); without it, it is the client's highest version
   * (RFC 5246 E.1), and below TLS 1.2 nothing is in common. */
  if (!h->have_versions && legacy < GOSTX_TLS_VERSION_1_2)
    return fail(c, GOSTX__ALERT_PROTOCOL_VERSION,
                "ClientHello legacy_version below TLS 1.2 and no supported_versions");
  return GOSTX_OK;
}

int gostx__tls_parse_server_hello(gostx_tls *c, const uint8_t *msg, size_t len, server_hello *sh) {
  rd r = {msg + 4, len - 4, 0};
  sh->legacy = get(&r, 2);
  sh->random = take(&r, 32);
  sh->sid = vec(&r, 1, 0);
  sh->suite = get(&r, 2);
  sh->comp = get(&r, 1);
  sh->exts = (rd){NULL, 0, 0};
  if (r.n) sh->exts = vec(&r, 2, 0); /* a TLS 1.2 ServerHello may have none */
  if (r.bad || r.n || sh->sid.n > 32) return fail(c, GOSTX__ALERT_DECODE_ERROR, "malformed ServerHello");
  return GOSTX_OK;
}

