/* The Configuration payload (RFC 7296 3.15): the attributes a remote user
 * asks its inner address and DNS servers with (2.19). Strict reader: every
 * attribute whole, the lengths 3.15.1 gives for the ones it lists; the
 * others skipped, as 3.15.1 says, but only after their length is checked. */
#include <string.h>

#include "ike.h"

/* 3.15.1's table: the Value's length besides 0 (-1: any; -2: a multiple of
 * 2), and whether it may be empty. */
static const struct {
  uint16_t type;
  int len;
  uint8_t may_be_empty;
} known[] = {
    {GOSTX_IKE_CA_INTERNAL_IP4_ADDRESS, 4, 1}, {GOSTX_IKE_CA_INTERNAL_IP4_NETMASK, 4, 1},
    {GOSTX_IKE_CA_INTERNAL_IP4_DNS, 4, 1},     {GOSTX_IKE_CA_INTERNAL_IP4_NBNS, 4, 1},
    {GOSTX_IKE_CA_INTERNAL_IP4_DHCP, 4, 1},    {GOSTX_IKE_CA_APPLICATION_VERSION, -1, 1},
    {GOSTX_IKE_CA_INTERNAL_IP6_ADDRESS, 17, 1}, {GOSTX_IKE_CA_INTERNAL_IP6_DNS, 16, 1},
    {GOSTX_IKE_CA_INTERNAL_IP6_DHCP, 16, 1},   {GOSTX_IKE_CA_INTERNAL_IP4_SUBNET, 8, 1},
    {GOSTX_IKE_CA_SUPPORTED_ATTRIBUTES, -2, 1}, {GOSTX_IKE_CA_INTERNAL_IP6_SUBNET, 17, 0},
};

/* The kinds a gostx_ike_cp keeps. */
static int kept(uint16_t type) {
  return type == GOSTX_IKE_CA_INTERNAL_IP4_ADDRESS || type == GOSTX_IKE_CA_INTERNAL_IP4_NETMASK ||
         type == GOSTX_IKE_CA_INTERNAL_IP4_DNS || type == GOSTX_IKE_CA_INTERNAL_IP6_ADDRESS ||
         type == GOSTX_IKE_CA_INTERNAL_IP6_DNS;
}

int gostx__ike_cp_attr_check(uint16_t type, size_t len, const uint8_t *v) {
  for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
    if (known[i].type != type) continue;
    if (len == 0) return known[i].may_be_empty ? GOSTX_OK : GOSTX_EFORMAT;
    if (known[i].len == -1) return GOSTX_OK;
    if (known[i].len == -2) return len % 2 ? GOSTX_EFORMAT : GOSTX_OK;
    if (len != (size_t)known[i].len) return GOSTX_EFORMAT;
    /* an IPv6 address or subnet: 16 octets, then a prefix length (ADDRIPV6) */
    if (len == 17 && (!v || v[16] > 128)) return GOSTX_EFORMAT;
    return GOSTX_OK;
  }
  return type > 0x7fff ? GOSTX_EFORMAT : GOSTX_OK; /* 15 bits; unlisted: any length */
}

int gostx__ike_cp_add(gostx_ike_cp *cp, uint16_t type, const uint8_t *v, size_t len) {
  if (!cp || (len && !v)) return GOSTX_EINVAL;
  if (!kept(type) || gostx__ike_cp_attr_check(type, len, v) != GOSTX_OK) return GOSTX_EFORMAT;
  if (cp->n == GOSTX_IKE_CP_MAX_ATTRS) return GOSTX_ELEN;
  gostx_ike_cp_attr *a = &cp->a[cp->n++];
  memset(a, 0, sizeof *a);
  a->type = type;
  a->len = (uint8_t)len;
  if (len) memcpy(a->v, v, len);
  return GOSTX_OK;
}

int gostx__ike_cp_valid(const gostx_ike_cp *cp) {
  if (!cp || cp->cfg_type < GOSTX_IKE_CFG_REQUEST || cp->cfg_type > GOSTX_IKE_CFG_ACK ||
      cp->n > GOSTX_IKE_CP_MAX_ATTRS)
    return GOSTX_EFORMAT;
  size_t masks = 0, addrs = 0;
  for (size_t i = 0; i < cp->n; i++) {
    const gostx_ike_cp_attr *a = &cp->a[i];
    if (!kept(a->type) || gostx__ike_cp_attr_check(a->type, a->len, a->v) != GOSTX_OK)
      return GOSTX_EFORMAT;
    if (a->type == GOSTX_IKE_CA_INTERNAL_IP4_ADDRESS) addrs++;
    if (a->type != GOSTX_IKE_CA_INTERNAL_IP4_NETMASK) continue;
    /* 3.15.1: only one netmask, never a value in a request */
    if (++masks > 1 || (cp->cfg_type == GOSTX_IKE_CFG_REQUEST && a->len)) return GOSTX_EFORMAT;
  }
  /* ... and only with an INTERNAL_IP4_ADDRESS */
  return masks && !addrs ? GOSTX_EFORMAT : GOSTX_OK;
}

int gostx__ike_cp_read(const uint8_t *body, size_t len, gostx_ike_cp *cp) {
  if (!body || !cp) return GOSTX_EINVAL;
  memset(cp, 0, sizeof *cp);
  if (len < 4) return GOSTX_EFORMAT;
  cp->cfg_type = body[0];
  if (cp->cfg_type == 0) return GOSTX_EFORMAT; /* IANA: reserved */
  if (cp->cfg_type > GOSTX_IKE_CFG_ACK) return GOSTX_EUNSUP;
  size_t at = 4;
  while (at < len) {
    if (len - at < 4) return GOSTX_EFORMAT; /* a partial attribute header */
    const uint16_t type = (uint16_t)((body[at] & 0x7f) << 8 | body[at + 1]); /* R ignored */
    const size_t alen = (size_t)body[at + 2] << 8 | body[at + 3];
    if (alen > len - at - 4) return GOSTX_EFORMAT;
    const uint8_t *v = body + at + 4;
    if (gostx__ike_cp_attr_check(type, alen, v) != GOSTX_OK) return GOSTX_EFORMAT;
    if (kept(type)) {
      if (cp->n == GOSTX_IKE_CP_MAX_ATTRS) return GOSTX_EFORMAT;
      (void)gostx__ike_cp_add(cp, type, v, alen); /* checked just above */
    } else {
      cp->skipped++;
    }
    at += 4 + alen;
  }
  return gostx__ike_cp_valid(cp);
}
