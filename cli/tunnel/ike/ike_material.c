/* gostx tunnel, keying = ikev2: the IKE daemon's material, from the
 * config: the PSK, or the private key, our certificates and the CAs the
 * peer's chain must reach; and the manager's settings of them (the
 * transforms, the IDs, the lifetimes). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "ike_daemon.h"

_Static_assert((int)TUNNEL_REVOCATION_OFF == (int)GOSTX_IKE_MGR_REVOCATION_OFF &&
                   (int)TUNNEL_REVOCATION_WARN == (int)GOSTX_IKE_MGR_REVOCATION_WARN &&
                   (int)TUNNEL_REVOCATION_REQUIRE == (int)GOSTX_IKE_MGR_REVOCATION_REQUIRE,
               "revocation = off | warn | require as the manager's policies");

int ike_psk_read(const struct tunnel_config *cfg, const char *path, uint8_t *psk, size_t cap,
                 size_t *psk_len) {
  long n = tunnel_read_key_file(cfg, path, psk, cap);
  if (n < 0) return CLI_EXIT_FAIL;
  size_t len = (size_t)n;
  if (len && psk[len - 1] == '\n') len--; /* a file written by echo */
  if (len && psk[len - 1] == '\r') len--;
  if (len < 16 || n == (long)cap) {
    gostx_memzero(psk, cap);
    return cli_usage("%s: a PSK of 16 to %zu bytes (this one has %zu)", path, cap - 2, len);
  }
  *psk_len = len;
  return 0;
}

static int load_psk(struct tunnel_ike *k, const struct tunnel_config *cfg) {
  return ike_psk_read(cfg, cfg->psk, k->psk, sizeof k->psk, &k->psk_len);
}

static int load_key(struct tunnel_ike *k, const struct tunnel_config *cfg) {
  int rc = cli_secret_file_private("key", cfg->key, cfg->insecure_key_file,
                                   "insecure_key_file = true");
  if (!rc) rc = cfg->key_pass[0] ? cli_load_key_pass(cfg->key, &k->key, "key_pass", cfg->key_pass)
                                 : cli_load_key(cfg->key, &k->key);
  if (rc) return rc;
  if (!gostx_gost3410_key_is_private(&k->key)) rc = cli_usage("%s: not a private key", cfg->key);
  if (!rc) rc = cli_key_2012("IKEv2 AUTH", cfg->key, &k->key);
  memcpy(k->pub, k->key.q, 2 * k->key.len);
  k->pub_len = 2 * k->key.len;
  return rc;
}

/* cert: ours, the end-entity first (its key the one of `key`); the local
 * ID, when not given, its subject (strongSwan's default) */
static int load_certs(struct tunnel_ike *k, const struct tunnel_config *cfg) {
  cli_cert_list *l = calloc(1, sizeof *l);
  if (!l) return cli_usage("%s: out of memory", cfg->cert);
  int rc = cli_load_certs(cfg->cert, l);
  if (!rc && l->n > IKE_CERTS) rc = cli_usage("%s: at most %d certificates", cfg->cert, IKE_CERTS);
  for (size_t i = 0; !rc && i < l->n; i++) {
    if (l->c[i].der_len > IKE_CERT_MAX)
      rc = cli_usage("%s: certificate %zu is too big", cfg->cert, i + 1);
    else if (!(k->cert_der[i] = malloc(l->c[i].der_len)))
      rc = cli_usage("%s: out of memory", cfg->cert);
    else
      memcpy(k->cert_der[i], l->c[i].der, l->c[i].der_len);
    k->certs[i] = k->cert_der[i];
    k->cert_lens[i] = l->c[i].der_len;
  }
  if (!rc) {
    const gostx_x509_cert *leaf = &l->c[0];
    if (k->pub_len != leaf->pub_len || memcmp(k->pub, leaf->pub, k->pub_len))
      rc = cli_usage("%s: the first certificate is not of the key %s", cfg->cert, cfg->key);
    if (!rc && !k->id.type) {
      if (leaf->subject_len > sizeof k->id.data)
        rc = cli_usage("%s: the subject is too long for an ID", cfg->cert);
      k->id.type = TUNNEL_ID_DN;
      k->id.len = leaf->subject_len;
      memcpy(k->id.data, leaf->subject, leaf->subject_len);
      snprintf(k->id.text, sizeof k->id.text, "(the subject of %.200s)", cfg->cert);
    }
  }
  k->n_certs = rc ? 0 : l->n;
  cli_cert_list_free(l);
  free(l);
  return rc;
}

static int load_ca(struct tunnel_ike *k, const struct tunnel_config *cfg) {
  char err[256] = "";
  k->store = gostx_x509_store_new();
  if (!k->store) return cli_usage("%s: out of memory", cfg->ca);
  int rc = gostx_x509_store_add_path(k->store, cfg->ca, err, sizeof err);
  if (!rc) return 0;
  cli_err("%s: %s", cfg->ca, *err ? err : "no certificate read");
  return rc == GOSTX_EIO ? CLI_EXIT_FAIL : CLI_EXIT_USAGE;
}

void ike_material_free(struct tunnel_ike *k) {
  for (size_t i = 0; i < IKE_CERTS; i++) free(k->cert_der[i]);
  gostx_x509_store_free(k->store);
  ike_crls_free(k->crls);
  ike_crls_free(atomic_exchange(&k->crls_next, NULL)); /* a SIGHUP's never taken */
  gostx_memzero(k->psk, sizeof k->psk);
  gostx_memzero(&k->key, sizeof k->key);
}

void ike_crls_free(cli_crl_list *l) {
  if (!l) return;
  cli_crl_list_free(l);
  free(l);
}

/* A folder's CRL files into l, in name order (a folder read twice gives
 * the same list): every regular file but those whose names start with a
 * dot, each one a CRL file (PEM, several to a file, or DER). */
static int load_crl_dir(const char *dir, cli_crl_list *l) {
  struct dirent **names;
  int n = scandir(dir, &names, NULL, alphasort);
  if (n < 0) {
    cli_err("%s: %s", dir, strerror(errno));
    return CLI_EXIT_FAIL;
  }
  int rc = 0;
  for (int i = 0; i < n; i++) {
    char path[TUNNEL_PATH_MAX + 256];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, names[i]->d_name);
    if (!rc && names[i]->d_name[0] != '.' && !stat(path, &st) && S_ISREG(st.st_mode))
      rc = cli_load_crls(path, l);
    free(names[i]);
  }
  free(names);
  return rc;
}

int ike_crls_load(const char *crl, size_t n, cli_crl_list **out) {
  cli_crl_list *l = calloc(1, sizeof *l);
  int rc = l ? 0 : cli_usage("tunnel: out of memory");
  for (size_t i = 0; !rc && i < n; i++) {
    const char *path = crl + i * TUNNEL_PATH_MAX;
    struct stat st;
    rc = !stat(path, &st) && S_ISDIR(st.st_mode) ? load_crl_dir(path, l) : cli_load_crls(path, l);
  }
  if (rc) {
    ike_crls_free(l);
    l = NULL;
  }
  *out = l;
  return rc;
}

/* Every IPv4 and IPv6 address, every port and protocol: the tunnel
 * carries all of what its TUN device is routed. */

/* The largest IKE message sent whole (RFC 7383; 0: never fragmented):
 * fragment_size less the IP and UDP headers and the non-ESP marker. The
 * marker is taken off even on the IKE port: the conf is fixed when an
 * exchange starts, and IKE moves to the data port after IKE_SA_INIT (or
 * follows a NAT's mapping); 4 octets a fragment is all it costs. */
static size_t ike_frag_size(const struct tunnel_config *cfg) {
  const size_t ip = cfg->local.ss_family == AF_INET ? 20 : 40;
  return cfg->fragmentation ? cfg->fragment_size - ip - 8 - 4 : 0;
}


int ike_material_load(struct tunnel_ike *k, const struct tunnel_config *cfg) {
  memcpy(&k->id, &cfg->local_id, sizeof k->id); /* load_certs fills it in when not given */
  int rc = cfg->ike_auth == TUNNEL_IKE_PSK ? load_psk(k, cfg) : load_key(k, cfg);
  if (!rc && cfg->ike_auth == TUNNEL_IKE_CERT) rc = load_certs(k, cfg);
  if (!rc && cfg->ike_auth == TUNNEL_IKE_CERT) rc = load_ca(k, cfg);
  if (!rc && cfg->n_crl) rc = ike_crls_load(cfg->crl[0], cfg->n_crl, &k->crls);
  return rc;
}

void ike_settings(struct tunnel_ike *k, const struct tunnel_config *cfg) {
  gostx__ike_mgr_settings *s = &k->set;
  s->encr = cfg->encr;
  s->n_encr = cfg->n_encr;
  s->group = cfg->group;
  s->auth = cfg->ike_auth == TUNNEL_IKE_PSK ? GOSTX_IKE_MGR_AUTH_PSK : GOSTX_IKE_MGR_AUTH_SIGNATURE;
  s->psk = k->psk;
  s->psk_len = k->psk_len;
  s->key = cfg->ike_auth == TUNNEL_IKE_CERT ? &k->key : NULL;
  s->certs = k->certs;
  s->cert_lens = k->cert_lens;
  s->n_certs = k->n_certs;
  s->store = k->store;
  s->crls = k->crls ? k->crls->c : NULL;
  s->n_crls = k->crls ? k->crls->n : 0;
  s->revocation = cfg->revocation; /* TUNNEL_REVOCATION_* are the manager's */
  s->id_type = k->id.type;
  s->id = k->id.data;
  s->id_len = k->id.len;
  s->peer_id_type = cfg->remote_id.type;
  s->peer_id = cfg->remote_id.data;
  s->peer_id_len = cfg->remote_id.len;
  s->peer_id_text = cfg->remote_id.text;
  s->peer_text = cfg->peer_s;
  s->frag_size = ike_frag_size(cfg);
  s->initiate = cfg->ike_initiate;
  s->encap = cfg->encap;
  s->rekey_seconds = cfg->rekey_seconds;
  s->rekey_bytes = cfg->rekey_bytes;
  s->ike_rekey_seconds = cfg->ike_rekey_seconds;
  s->dpd_seconds = cfg->dpd_seconds;
  s->nat_keepalive_seconds = cfg->nat_keepalive_seconds;
  s->cp_request = cfg->request_address;
}
