/* The config of include/gostx/tls.h (gostx_tls_config_*): the role, the
 * certificate chain and its key, the suites, groups, ALPN and versions
 * offered or taken, tickets, PSK, the store and verify mode, the key log.
 * Connections made from it (conn.c) read it and never change it. */
#include "conn.h"

#include <stdio.h>
#include <stdlib.h>

/* ---------------- config ---------------- */

static const struct {
  const char *name;
  uint16_t id;
} group_names[] = {{"GC256A", 0x22}, {"GC256B", 0x23}, {"GC256C", 0x24}, {"GC256D", 0x25},
                   {"GC512A", 0x26}, {"GC512B", 0x27}, {"GC512C", 0x28}};

/* TLS 1.3's then TLS 1.2's: each version takes the entries of its own. */
static const uint16_t all_suites[7] = {GOSTX__TLS_KUZNYECHIK_MGM_L,      GOSTX__TLS_MAGMA_MGM_L,
                                       GOSTX__TLS_KUZNYECHIK_MGM_S,      GOSTX__TLS_MAGMA_MGM_S,
                                       GOSTX__TLS12_KUZNYECHIK_CTR_OMAC, GOSTX__TLS12_MAGMA_CTR_OMAC,
                                       GOSTX__TLS12_28147_CNT_IMIT};

/* The RFC name of a suite of either version (NULL for another id). */
static const char *suite_name(unsigned id) {
  const gostx__tls_suite *s = gostx__tls_suite_by_id(id);
  const gostx__tls12_suite *s12 = gostx__tls12_suite_by_id(id);
  return s ? s->name : s12 ? s12->name : NULL;
}

gostx_tls_config *gostx_tls_config_new(gostx_tls_role role) {
  if (role != GOSTX_TLS_CLIENT && role != GOSTX_TLS_SERVER) return NULL;
  gostx_tls_config *cfg = calloc(1, sizeof *cfg);
  if (!cfg) return NULL;
  cfg->role = role;
  cfg->verify = role == GOSTX_TLS_CLIENT ? GOSTX_TLS_VERIFY_PEER : GOSTX_TLS_VERIFY_NONE;
  memcpy(cfg->suites, all_suites, sizeof all_suites);
  cfg->nsuites = 7;
  /* The 256-bit groups first: a 512-bit ECDHE costs about four times more. */
  for (size_t i = 0; i < 7; i++) cfg->groups[i] = group_names[i].id;
  cfg->ngroups = 7;
  cfg->vmin = GOSTX_TLS_VERSION_1_2;
  cfg->vmax = GOSTX_TLS_VERSION_1_3;
  /* A server issues two tickets a handshake, good for two hours (as
   * OpenSSL's s_server does), sealed by a key of this config's own. */
  if (role == GOSTX_TLS_SERVER && gostx_random_bytes(cfg->ticket_key, 32) == GOSTX_OK) {
    cfg->tickets = 2;
    cfg->ticket_lifetime = 7200;
  }
  return cfg;
}

void gostx_tls_config_free(gostx_tls_config *cfg) {
  if (!cfg) return;
  free(cfg->chain);
  gostx_memzero(cfg, sizeof *cfg);
  free(cfg);
}

#ifdef GOSTX_TLS_TEST_HOOKS
gostx__tls_test_hooks *gostx__tls_config_test(gostx_tls_config *cfg) {
  return cfg ? &cfg->test : NULL;
}
#endif

static int cfg_error(gostx_tls_config *cfg, int rc, const char *what, const char *item,
                     size_t item_len) {
  if (item)
    snprintf(cfg->err, sizeof cfg->err, "%s: %.*s", what, (int)(item_len > 64 ? 64 : item_len),
             item);
  else
    snprintf(cfg->err, sizeof cfg->err, "%s", what);
  return rc;
}

const char *gostx_tls_config_error(const gostx_tls_config *cfg) {
  return cfg && cfg->err[0] ? cfg->err : NULL;
}

static int leaf_mismatch(gostx_tls_config *cfg);

int gostx_tls_config_set_chain(gostx_tls_config *cfg, const uint8_t *const *der,
                               const size_t *der_len, size_t n) {
  if (!cfg || (n && (!der || !der_len))) return GOSTX_EINVAL;
  if (n > GOSTX__TLS_MAX_CHAIN) return cfg_error(cfg, GOSTX_ELEN, "chain too long", NULL, 0);
  size_t total = 0;
  for (size_t i = 0; i < n; i++) {
    if (!der[i] || !der_len[i] || der_len[i] >= (1u << 24))
      return cfg_error(cfg, GOSTX_EINVAL, "empty certificate in the chain", NULL, 0);
    total += der_len[i] + 5; /* each CertificateEntry: 3 + cert + 2 */
  }
  if (total + 4 > GOSTX__TLS_HS_MAX)
    return cfg_error(cfg, GOSTX_ELEN, "chain larger than a handshake message may be", NULL, 0);
  uint8_t *block = n ? malloc(total) : NULL;
  if (n && !block) return GOSTX_ENOMEM;
  size_t at = 0;
  for (size_t i = 0; i < n; i++) {
    memcpy(block + at, der[i], der_len[i]);
    at += der_len[i];
  }
  uint8_t *old = cfg->chain;
  size_t old_n = cfg->nchain, old_len[GOSTX__TLS_MAX_CHAIN];
  memcpy(old_len, cfg->chain_len, sizeof old_len);
  for (size_t i = 0; i < n; i++) cfg->chain_len[i] = der_len[i];
  cfg->chain = block;
  cfg->nchain = n;
  int rc = leaf_mismatch(cfg);
  if (rc != GOSTX_OK) {
    free(block);
    cfg->chain = old;
    cfg->nchain = old_n;
    memcpy(cfg->chain_len, old_len, sizeof old_len);
    return rc;
  }
  free(old);
  return GOSTX_OK;
}

/* 0 unless both the leaf and the key are set and the leaf's key is not
 * this key (or the leaf does not parse). */
static int leaf_mismatch(gostx_tls_config *cfg) {
  if (!cfg->nchain || !cfg->key.curve || GOSTX__TLS_HOOKS(cfg)->raw_chain) return GOSTX_OK;
  gostx_x509_cert leaf;
  gostx_x509_status st;
  if (gostx_x509_parse(cfg->chain, cfg->chain_len[0], &leaf, &st) != GOSTX_OK)
    return cfg_error(cfg, GOSTX_EFORMAT, "the leaf certificate does not parse",
                     gostx_x509_status_name(st), strlen(gostx_x509_status_name(st)));
  size_t l = gostx_gost3410_size(cfg->key.curve);
  if (leaf.curve != cfg->key.curve || leaf.pub_len != 2 * l || memcmp(leaf.pub, cfg->key.q, 2 * l))
    return cfg_error(cfg, GOSTX_EINVAL, "the key is not the leaf certificate's", NULL, 0);
  return GOSTX_OK;
}

int gostx_tls_config_set_key(gostx_tls_config *cfg, const gostx_gost3410_key *key) {
  if (!cfg || !gostx_gost3410_key_is_private(key)) return GOSTX_EINVAL;
  gostx_gost3410_curve curve = key->curve;
  if (key->gost2001) /* RFC 9189 and RFC 9367 take GOST R 34.10-2012 keys */
    return cfg_error(cfg, GOSTX_EUNSUP, "the key is a GOST R 34.10-2001 key; TLS needs a GOST "
                     "R 34.10-2012 key", NULL, 0);
  if (!gostx__tls_curve_scheme(curve))
    return cfg_error(cfg, GOSTX_EINVAL, "the key's curve has no TLS 1.3 signature scheme",
                     NULL, 0);
  if (key->len != gostx_gost3410_size(curve)) return GOSTX_ELEN;
  /* The key is the caller's struct: d's Q is computed again, an external
   * key's Q checked (its d is not here) */
  gostx_gost3410_key k;
  int rc = key->ops ? gostx_gost3410_key_set_external(&k, curve, key->q, 2 * key->len, NULL,
                                                      key->ops, key->ops_ctx)
                    : gostx_gost3410_key_set_private(&k, curve, key->d, key->len, NULL);
  if (rc != GOSTX_OK) {
    gostx_gost3410_key_clear(&k);
    return cfg_error(cfg, rc, "invalid private key", NULL, 0);
  }
  gostx_gost3410_key keep = cfg->key;
  cfg->key = k;
  rc = leaf_mismatch(cfg);
  if (rc != GOSTX_OK) cfg->key = keep;
  gostx_gost3410_key_clear(&keep);
  gostx_gost3410_key_clear(&k);
  return rc;
}

int gostx_tls_config_set_tickets(gostx_tls_config *cfg, unsigned n, uint32_t lifetime) {
  if (!cfg || cfg->role != GOSTX_TLS_SERVER) return GOSTX_EINVAL;
  if (n > GOSTX__TLS_TICKETS_MAX || (n && (lifetime == 0 || lifetime > GOSTX__TLS_TICKET_LIFETIME_MAX)))
    return GOSTX_EINVAL;
  cfg->tickets = n;
  cfg->ticket_lifetime = lifetime;
  return GOSTX_OK;
}

int gostx_tls_config_set_ticket_key(gostx_tls_config *cfg, const uint8_t *key, size_t len) {
  if (!cfg || !key || cfg->role != GOSTX_TLS_SERVER) return GOSTX_EINVAL;
  if (len != sizeof cfg->ticket_key) return GOSTX_ELEN;
  memcpy(cfg->ticket_key, key, len);
  return GOSTX_OK;
}

int gostx_tls_config_set_psk(gostx_tls_config *cfg, const uint8_t *identity, size_t id_len,
                             const uint8_t *key, size_t key_len) {
  if (!cfg || !identity || !key) return GOSTX_EINVAL;
  if (id_len == 0 || id_len > sizeof cfg->psk_id || key_len != sizeof cfg->psk) return GOSTX_ELEN;
  memcpy(cfg->psk_id, identity, id_len);
  cfg->psk_id_len = id_len;
  memcpy(cfg->psk, key, key_len);
  return GOSTX_OK;
}

void gostx_tls_config_set_store(gostx_tls_config *cfg, const gostx_x509_store *store) {
  if (cfg) cfg->store = store;
}

void gostx_tls_config_set_verify(gostx_tls_config *cfg, gostx_tls_verify mode) {
  if (cfg) cfg->verify = mode;
}

/* Calls each(cfg, item, len) for the ':' or ',' separated items of list. */
static int each_item(gostx_tls_config *cfg, const char *list,
                     int (*each)(gostx_tls_config *, const char *, size_t)) {
  if (!cfg || !list) return GOSTX_EINVAL;
  for (const char *p = list; *p;) {
    size_t n = strcspn(p, ":,");
    if (n == 0) return cfg_error(cfg, GOSTX_EINVAL, "empty list entry", NULL, 0);
    int rc = each(cfg, p, n);
    if (rc != GOSTX_OK) return rc;
    p += n;
    if (*p) p++;
  }
  return GOSTX_OK;
}

static int name_is(const char *item, size_t n, const char *name) {
  return strlen(name) == n && !strncmp(item, name, n);
}

static int add_suite(gostx_tls_config *cfg, const char *item, size_t n) {
  for (size_t i = 0; i < 7; i++) {
    const char *name = suite_name(all_suites[i]);
    const char *shrt = name + strlen("TLS_GOSTR341112_256_WITH_");
    if (name_is(item, n, name) || name_is(item, n, shrt)) {
      for (size_t j = 0; j < cfg->nsuites; j++)
        if (cfg->suites[j] == all_suites[i]) return GOSTX_OK;
      cfg->suites[cfg->nsuites++] = all_suites[i];
      return GOSTX_OK;
    }
  }
  return cfg_error(cfg, GOSTX_EINVAL, "unknown cipher suite", item, n);
}

int gostx_tls_config_set_suites(gostx_tls_config *cfg, const char *list) {
  if (!cfg || !list) return GOSTX_EINVAL;
  gostx_tls_config keep = *cfg;
  cfg->nsuites = 0;
  int rc = each_item(cfg, list, add_suite);
  if (rc == GOSTX_OK && cfg->nsuites == 0) rc = cfg_error(cfg, GOSTX_EINVAL, "no suite", NULL, 0);
  if (rc != GOSTX_OK) {
    memcpy(cfg->suites, keep.suites, sizeof cfg->suites);
    cfg->nsuites = keep.nsuites;
  }
  return rc;
}

static int add_group(gostx_tls_config *cfg, const char *item, size_t n) {
  for (size_t i = 0; i < 7; i++)
    if (name_is(item, n, group_names[i].name)) {
      for (size_t j = 0; j < cfg->ngroups; j++)
        if (cfg->groups[j] == group_names[i].id) return GOSTX_OK;
      cfg->groups[cfg->ngroups++] = group_names[i].id;
      return GOSTX_OK;
    }
  return cfg_error(cfg, GOSTX_EINVAL, "unknown group", item, n);
}

int gostx_tls_config_set_groups(gostx_tls_config *cfg, const char *list) {
  if (!cfg || !list) return GOSTX_EINVAL;
  uint16_t keep[7];
  size_t nkeep = cfg->ngroups;
  memcpy(keep, cfg->groups, sizeof keep);
  cfg->ngroups = 0;
  int rc = each_item(cfg, list, add_group);
  if (rc == GOSTX_OK && cfg->ngroups == 0) rc = cfg_error(cfg, GOSTX_EINVAL, "no group", NULL, 0);
  if (rc != GOSTX_OK) {
    memcpy(cfg->groups, keep, sizeof keep);
    cfg->ngroups = nkeep;
  }
  return rc;
}

static int add_alpn(gostx_tls_config *cfg, const char *item, size_t n) {
  if (n > 255 || cfg->alpn_len + 1 + n > sizeof cfg->alpn)
    return cfg_error(cfg, GOSTX_ELEN, "ALPN list too long", item, n);
  cfg->alpn[cfg->alpn_len++] = (uint8_t)n;
  memcpy(cfg->alpn + cfg->alpn_len, item, n);
  cfg->alpn_len += n;
  return GOSTX_OK;
}

int gostx_tls_config_set_alpn(gostx_tls_config *cfg, const char *list) {
  if (!cfg || !list) return GOSTX_EINVAL;
  cfg->alpn_len = 0;
  int rc = each_item(cfg, list, add_alpn);
  if (rc != GOSTX_OK) cfg->alpn_len = 0;
  return rc;
}

int gostx_tls_config_set_versions(gostx_tls_config *cfg, unsigned min, unsigned max) {
  if (!cfg || min > max) return GOSTX_EINVAL;
  if (min < GOSTX_TLS_VERSION_1_2 || max > GOSTX_TLS_VERSION_1_3)
    return cfg_error(cfg, GOSTX_EUNSUP, "only TLS 1.2 (0x0303) and TLS 1.3 (0x0304) are built",
                     NULL, 0);
  cfg->vmin = min;
  cfg->vmax = max;
  return GOSTX_OK;
}

void gostx_tls_config_set_keylog(gostx_tls_config *cfg, void (*cb)(void *user, const char *line),
                                 void *user) {
  if (!cfg) return;
  cfg->keylog = cb;
  cfg->keylog_user = user;
}

/* The name of group id (the config's names: "GC256A", ...), NULL when none. */
const char *gostx__tls_group_name(unsigned id) {
  for (size_t i = 0; i < 7; i++)
    if (group_names[i].id == id) return group_names[i].name;
  return NULL;
}
