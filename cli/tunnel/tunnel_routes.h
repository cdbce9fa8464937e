/* gostx tunnel: the gateway's longest-prefix-match table (docs/TUNNEL.md,
 * "Gateway (many peers)"): IPv4 and IPv6 prefixes, each with a value (a
 * peer's index), looked up by an address. Pure data: built once from a
 * list, never changed after (a new table replaces it whole, so the workers
 * read one without a lock), no I/O.
 *
 * The layout: per family, the distinct prefix lengths present, longest
 * first, and one open-addressing hash of (masked address, length). A
 * lookup masks the address at each length in turn and probes the hash:
 * as many probes as lengths are present (a gateway's sites are mostly one
 * or two lengths), whatever the number of prefixes. */
#ifndef GOSTX_CLI_TUNNEL_ROUTES_H
#define GOSTX_CLI_TUNNEL_ROUTES_H

#include <stddef.h>
#include <stdint.h>

#define TUNNEL_ROUTE_NONE UINT32_MAX

/* A prefix: family 4 or 6, len <= 32 or 128, addr (4 or 16 bytes used)
 * with no bit set past len. */
struct tunnel_prefix {
  uint8_t family, len;
  uint8_t addr[16];
};

struct tunnel_routes;

/* "10.1.0.0/16", "fd00:1::/48" (a bare address: the host's /32 or /128)
 * into p: 0, or -1 (not a prefix, or host bits set past the length). */
int tunnel_prefix_parse(const char *s, struct tunnel_prefix *p);
/* The text of p into buf (at least 64 bytes). */
void tunnel_prefix_format(const struct tunnel_prefix *p, char *buf, size_t cap);
/* Whether a and b share an address (one holds the other). */
int tunnel_prefix_overlap(const struct tunnel_prefix *a, const struct tunnel_prefix *b);

/* The table of p[0..n) with values v[0..n) (v[i] != TUNNEL_ROUTE_NONE);
 * NULL when there is no memory. Of two equal prefixes the later wins. */
struct tunnel_routes *tunnel_routes_build(const struct tunnel_prefix *p, const uint32_t *v,
                                          size_t n);
void tunnel_routes_free(struct tunnel_routes *r);
/* The value of the longest prefix of family (4 or 6) holding addr (4 or
 * 16 bytes), or TUNNEL_ROUTE_NONE. */
uint32_t tunnel_routes_find(const struct tunnel_routes *r, int family, const uint8_t *addr);

#endif
