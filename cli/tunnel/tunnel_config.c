/* gostx tunnel: the configuration file (docs/TUNNEL.md) and the key files.
 * Every refusal is one line naming the file and, for the config, the line. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gostx/x509_write.h"
#include "tunnel.h"

static char *trim(char *s) {
  while (isspace((unsigned char)*s)) s++;
  size_t n = strlen(s);
  while (n && isspace((unsigned char)s[n - 1])) s[--n] = 0;
  return s;
}

/* "1.2.3.4:4500" or "[fe80::1]:4500" */
static int parse_addr(const char *v, struct sockaddr_storage *ss, socklen_t *len) {
  char host[128];
  const char *port;
  if (v[0] == '[') {
    const char *e = strchr(v, ']');
    if (!e || e[1] != ':' || (size_t)(e - v - 1) >= sizeof host) return -1;
    memcpy(host, v + 1, (size_t)(e - v - 1));
    host[e - v - 1] = 0;
    port = e + 2;
  } else {
    const char *c = strrchr(v, ':');
    if (!c || (size_t)(c - v) >= sizeof host || strchr(v, ':') != c) return -1;
    memcpy(host, v, (size_t)(c - v));
    host[c - v] = 0;
    port = c + 1;
  }
  char *end;
  unsigned long p = strtoul(port, &end, 10);
  if (!*port || *end || p == 0 || p > 65535) return -1;
  struct addrinfo hints = {0}, *ai = NULL;
  hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
  hints.ai_socktype = SOCK_DGRAM;
  if (getaddrinfo(host, port, &hints, &ai) != 0 || !ai) return -1;
  memcpy(ss, ai->ai_addr, ai->ai_addrlen);
  *len = ai->ai_addrlen;
  freeaddrinfo(ai);
  return 0;
}

static int parse_u64(const char *v, uint64_t max, uint64_t *out) {
  char *end;
  errno = 0;
  if (!isdigit((unsigned char)v[0])) return -1;
  unsigned long long x = strtoull(v, &end, 0);
  if (errno || *end || x > max) return -1;
  *out = x;
  return 0;
}

static int copy_path(char *dst, const char *v) {
  if (!*v || strlen(v) >= TUNNEL_PATH_MAX) return -1;
  strcpy(dst, v);
  return 0;
}

int tunnel_open_regular(const char *path, struct stat *st) {
  memset(st, 0, sizeof *st);
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return -1;
  int e = fstat(fd, st) < 0 ? errno : S_ISREG(st->st_mode) ? 0 : EINVAL;
  if (e) {
    close(fd);
    errno = e;
    return -1;
  }
  return fd;
}

long tunnel_read_all(int fd, void *buf, size_t cap) {
  size_t n = 0;
  while (n < cap) {
    ssize_t r = read(fd, (char *)buf + n, cap - n);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return -1;
    if (r == 0) break;
    n += (size_t)r;
  }
  return (long)n;
}

/* "not a regular file (a FIFO)" and the like, for messages */
static const char *file_kind(const struct stat *st) {
  return S_ISFIFO(st->st_mode)   ? "not a regular file (a FIFO)"
         : S_ISDIR(st->st_mode)  ? "not a regular file (a directory)"
         : S_ISCHR(st->st_mode)  ? "not a regular file (a character device)"
         : S_ISBLK(st->st_mode)  ? "not a regular file (a block device)"
         : S_ISSOCK(st->st_mode) ? "not a regular file (a socket)"
                                 : "not a regular file";
}

#define LINE_MAX_BYTES 1023

/* The transforms by config name (also taken: RFC 9227's own names). */
static const struct {
  const char *name, *rfc_name;
  gostx_esp_transform id;
} transforms[] = {
    {"kuznyechik-mgm-ktree", "ENCR_KUZNYECHIK_MGM_KTREE", GOSTX_ESP_KUZNYECHIK_MGM_KTREE},
    {"magma-mgm-ktree", "ENCR_MAGMA_MGM_KTREE", GOSTX_ESP_MAGMA_MGM_KTREE},
    {"kuznyechik-mgm-mac-ktree", "ENCR_KUZNYECHIK_MGM_MAC_KTREE",
     GOSTX_ESP_KUZNYECHIK_MGM_MAC_KTREE},
    {"magma-mgm-mac-ktree", "ENCR_MAGMA_MGM_MAC_KTREE", GOSTX_ESP_MAGMA_MGM_MAC_KTREE},
};
#define N_TRANSFORMS (sizeof transforms / sizeof transforms[0])

const char *tunnel_transform_name(gostx_esp_transform t) {
  for (size_t i = 0; i < N_TRANSFORMS; i++)
    if (transforms[i].id == t) return transforms[i].name;
  return "?";
}

/* 0 and *t, or -1 for a name no transform has. */
static int transform_by_name(const char *v, gostx_esp_transform *t) {
  for (size_t i = 0; i < N_TRANSFORMS; i++)
    if (!strcmp(v, transforms[i].name) || !strcmp(v, transforms[i].rfc_name)) {
      *t = transforms[i].id;
      return 0;
    }
  return -1;
}

/* One line of f (its newline dropped) into line, which has room for
 * LINE_MAX_BYTES + 1: its full length (longer ones cut), or -1 at the end.
 * *nul: the line holds a NUL byte. */
static long read_line(FILE *f, char *line, int *nul) {
  size_t n = 0;
  int c, any = 0;
  *nul = 0;
  while ((c = getc(f)) != EOF) {
    any = 1;
    if (c == '\n') break;
    if (c == 0) *nul = 1;
    if (n < LINE_MAX_BYTES) line[n] = (char)c;
    n++;
  }
  line[n < LINE_MAX_BYTES ? n : LINE_MAX_BYTES] = 0;
  return any ? (long)n : -1;
}

/* Where a setting was read, for messages. */
struct cfg_at {
  const char *path;
  unsigned line;
};

/* The setters: v (trimmed) into cfg at off (for those that serve several
 * settings): 0, or -1 for a bad value. */
typedef int cfg_setter(struct tunnel_config *cfg, size_t off, const char *v);

static int set_local(struct tunnel_config *cfg, size_t off, const char *v) {
  (void)off;
  snprintf(cfg->local_s, sizeof cfg->local_s, "%s", v);
  return parse_addr(v, &cfg->local, &cfg->local_len);
}
static int set_peer(struct tunnel_config *cfg, size_t off, const char *v) {
  (void)off;
  snprintf(cfg->peer_s, sizeof cfg->peer_s, "%s", v);
  return parse_addr(v, &cfg->peer, &cfg->peer_len);
}
static int set_tun(struct tunnel_config *cfg, size_t off, const char *v) {
  (void)off;
  if (!*v || strlen(v) >= sizeof cfg->tun || strchr(v, '/')) return -1;
  strcpy(cfg->tun, v);
  return 0;
}
static int set_mtu(struct tunnel_config *cfg, size_t off, const char *v) {
  uint64_t n = 0;
  (void)off;
  int bad = parse_u64(v, TUNNEL_MTU_MAX, &n) || n < 576;
  cfg->mtu = (unsigned)n;
  return bad ? -1 : 0;
}
static int set_threads(struct tunnel_config *cfg, size_t off, const char *v) {
  uint64_t n = 0;
  (void)off;
  int bad = parse_u64(v, TUNNEL_MAX_THREADS, &n);
  cfg->threads = (unsigned)n;
  return bad ? -1 : 0;
}
static int set_transform(struct tunnel_config *cfg, size_t off, const char *v) {
  (void)off;
  return transform_by_name(v, &cfg->transform);
}
/* spi_out, spi_in: a uint32_t at off */
static int set_spi(struct tunnel_config *cfg, size_t off, const char *v) {
  uint64_t n = 0;
  if (parse_u64(v, 0xffffffffu, &n) || n < 256) return -1;
  uint32_t spi = (uint32_t)n;
  memcpy((char *)cfg + off, &spi, sizeof spi);
  return 0;
}
/* a char[TUNNEL_PATH_MAX] at off */
static int set_path(struct tunnel_config *cfg, size_t off, const char *v) {
  return copy_path((char *)cfg + off, v);
}
/* "on" or "off": the int at off says off */
static int set_off(struct tunnel_config *cfg, size_t off, const char *v) {
  int is_off = !strcmp(v, "off");
  memcpy((char *)cfg + off, &is_off, sizeof is_off);
  return strcmp(v, "on") && !is_off ? -1 : 0;
}
static int set_limit(struct tunnel_config *cfg, size_t off, const char *v) {
  (void)off;
  return parse_u64(v, UINT64_MAX, &cfg->limit) || cfg->limit == 0 ? -1 : 0;
}
static int set_insecure(struct tunnel_config *cfg, size_t off, const char *v) {
  (void)off;
  cfg->insecure_key_file = !strcmp(v, "true");
  return strcmp(v, "true") && strcmp(v, "false") ? -1 : 0;
}

static int set_keying(struct tunnel_config *cfg, size_t off, const char *v) {
  (void)off;
  cfg->keying = !strcmp(v, "ikev2") ? TUNNEL_KEYING_IKEV2 : TUNNEL_KEYING_STATIC;
  return strcmp(v, "static") && strcmp(v, "ikev2") ? -1 : 0;
}
static int set_ike_auth(struct tunnel_config *cfg, size_t off, const char *v) {
  (void)off;
  cfg->ike_auth = !strcmp(v, "psk") ? TUNNEL_IKE_PSK : !strcmp(v, "cert") ? TUNNEL_IKE_CERT : 0;
  return cfg->ike_auth ? 0 : -1;
}
static int set_yes_no(struct tunnel_config *cfg, size_t off, const char *v) {
  int yes = !strcmp(v, "yes");
  memcpy((char *)cfg + off, &yes, sizeof yes);
  return strcmp(v, "yes") && strcmp(v, "no") ? -1 : 0;
}
static int set_port(struct tunnel_config *cfg, size_t off, const char *v) {
  uint64_t n = 0;
  (void)off;
  int bad = parse_u64(v, 65535, &n) || n == 0;
  cfg->ike_port = (unsigned)n;
  return bad ? -1 : 0;
}
/* the IP datagram (as the mtu: IPv4's 576 at the least) */
static int set_fragment_size(struct tunnel_config *cfg, size_t off, const char *v) {
  uint64_t n = 0;
  (void)off;
  int bad = parse_u64(v, 65535, &n) || n < 576;
  cfg->fragment_size = (unsigned)n;
  return bad ? -1 : 0;
}
/* a uint64_t at off: rekey_seconds, rekey_bytes, ike_rekey_seconds,
 * dpd_seconds, nat_keepalive_seconds (0: never) */
static int set_u64(struct tunnel_config *cfg, size_t off, const char *v) {
  uint64_t n = 0;
  if (parse_u64(v, UINT64_MAX, &n)) return -1;
  memcpy((char *)cfg + off, &n, sizeof n);
  return 0;
}
/* crl: one more file or folder (the one setting given on several lines) */
static int set_crl(struct tunnel_config *cfg, size_t off, const char *v) {
  (void)off;
  return cfg->n_crl == TUNNEL_CRL_PATHS || copy_path(cfg->crl[cfg->n_crl++], v) ? -1 : 0;
}
static int set_revocation(struct tunnel_config *cfg, size_t off, const char *v) {
  (void)off;
  cfg->revocation = !strcmp(v, "require") ? TUNNEL_REVOCATION_REQUIRE
                    : !strcmp(v, "warn")  ? TUNNEL_REVOCATION_WARN
                                          : TUNNEL_REVOCATION_OFF;
  return strcmp(v, "require") && strcmp(v, "warn") && strcmp(v, "off") ? -1 : 0;
}
static int set_key_pass(struct tunnel_config *cfg, size_t off, const char *v) {
  (void)off;
  if (!*v || strlen(v) >= sizeof cfg->key_pass) return -1;
  strcpy(cfg->key_pass, v);
  return 0;
}

/* "kuznyechik-mgm-ktree, magma-mgm-ktree, gost3410-2012-512": the ENCRs
 * offered in order, and the KE method sent first (both are offered). */
static int set_transforms(struct tunnel_config *cfg, size_t off, const char *v) {
  char list[LINE_MAX_BYTES + 1];
  (void)off;
  snprintf(list, sizeof list, "%s", v);
  cfg->n_encr = 0;
  cfg->group = 0;
  char *save = NULL;
  for (char *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    tok = trim(tok);
    gostx_esp_transform t;
    if (!strcmp(tok, "gost3410-2012-512") || !strcmp(tok, "gost3410-2012-256")) {
      if (cfg->group) return -1;
      cfg->group = strstr(tok, "512") ? TUNNEL_KE_512 : TUNNEL_KE_256;
    } else if (!transform_by_name(tok, &t) &&
               (t == GOSTX_ESP_KUZNYECHIK_MGM_KTREE || t == GOSTX_ESP_MAGMA_MGM_KTREE)) {
      if (cfg->n_encr == 2 || (cfg->n_encr && cfg->encr[0] == t)) return -1;
      cfg->encr[cfg->n_encr++] = (uint16_t)t;
    } else {
      return -1;
    }
  }
  return cfg->n_encr ? 0 : -1;
}

/* strongSwan's DN text, "C=RU, O=Org, CN=host", as openssl's -subj
 * ("/C=RU/O=Org/CN=host", a slash in a value escaped) for lib/x509. */
static int dn_to_subj(const char *v, char *out, size_t cap) {
  size_t n = 0;
  int start = 1;
  for (const char *p = v; *p; p++) {
    if (start) {
      while (*p == ' ') p++;
      if (n + 1 >= cap) return -1;
      out[n++] = '/';
      start = 0;
    }
    if (*p == ',') {
      while (n && out[n - 1] == ' ') n--;
      start = 1;
      continue;
    }
    if (n + 2 >= cap) return -1;
    if (*p == '/' || *p == '\\') out[n++] = '\\';
    out[n++] = *p;
  }
  out[n] = 0;
  return start ? -1 : 0; /* a trailing comma: an empty RDN */
}

/* An ID as strongSwan writes it: an IP address (ID_IPV4_ADDR,
 * ID_IPV6_ADDR), a DN with '=' (ID_DER_ASN1_DN), user@host (ID_RFC822_ADDR),
 * else (or after a leading '@') an FQDN. */
static int parse_id(const char *v, struct tunnel_ike_id *id) {
  if (!*v || strlen(v) >= sizeof id->text) return -1;
  snprintf(id->text, sizeof id->text, "%s", v);
  if (inet_pton(AF_INET, v, id->data) == 1) {
    id->type = TUNNEL_ID_IPV4, id->len = 4;
  } else if (inet_pton(AF_INET6, v, id->data) == 1) {
    id->type = TUNNEL_ID_IPV6, id->len = 16;
  } else if (strchr(v, '=')) {
    char subj[LINE_MAX_BYTES + 1], err[128];
    static gostx_x509_name name; /* 2 KiB: the config is read by one thread */
    if (dn_to_subj(v, subj, sizeof subj) || gostx_x509_name_parse(subj, &name, err, sizeof err) ||
        name.len > sizeof id->data)
      return -1;
    id->type = TUNNEL_ID_DN, id->len = name.len;
    memcpy(id->data, name.der, name.len);
  } else {
    const char *s = v[0] == '@' ? v + 1 : v;
    if (!*s) return -1;
    id->type = strchr(s, '@') && v[0] != '@' ? TUNNEL_ID_RFC822 : TUNNEL_ID_FQDN;
    id->len = strlen(s);
    memcpy(id->data, s, id->len);
  }
  return 0;
}
/* local_id, remote_id: a struct tunnel_ike_id at off */
static int set_id(struct tunnel_config *cfg, size_t off, const char *v) {
  return parse_id(v, (struct tunnel_ike_id *)((char *)cfg + off));
}

/* Each comma-separated item of v, trimmed, to item: -1 at the first one
 * it refuses, else 0. */
static int each_item(struct tunnel_config *cfg, const char *v,
                     int (*item)(struct tunnel_config *cfg, const char *s)) {
  char list[LINE_MAX_BYTES + 1];
  snprintf(list, sizeof list, "%s", v);
  char *save = NULL;
  for (char *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
    if (item(cfg, trim(tok))) return -1;
  return 0;
}

/* remote_ts: the inner prefixes a gateway's peer owns, "10.1.0.0/16,
 * fd00:1::/48" (at most TUNNEL_TS_MAX) */
static int ts_item(struct tunnel_config *cfg, const char *s) {
  return cfg->nts == TUNNEL_TS_MAX || tunnel_prefix_parse(s, &cfg->ts[cfg->nts++]) ? -1 : 0;
}
static int set_ts(struct tunnel_config *cfg, size_t off, const char *v) {
  (void)off;
  cfg->nts = 0;
  return each_item(cfg, v, ts_item) || !cfg->nts ? -1 : 0;
}

/* inner_routes: what a remote user sends into its device once the
 * gateway's address is on it, "10.0.0.0/8, 192.168.5.0/24" (IPv4: the
 * address is) */
static int inner_route_item(struct tunnel_config *cfg, const char *s) {
  struct tunnel_prefix *p = &cfg->inner_routes[cfg->n_inner_routes];
  return cfg->n_inner_routes == TUNNEL_TS_MAX || tunnel_prefix_parse(s, p) || p->family != 4
             ? -1
             : (cfg->n_inner_routes++, 0);
}
static int set_inner_routes(struct tunnel_config *cfg, size_t off, const char *v) {
  (void)off;
  cfg->n_inner_routes = 0;
  return each_item(cfg, v, inner_route_item) || !cfg->n_inner_routes ? -1 : 0;
}

/* pool: the IPv4 prefix a [pool]'s users get their addresses from (its
 * hosts: no network, no broadcast address) */
static int set_pool(struct tunnel_config *cfg, size_t off, const char *v) {
  (void)off;
  return tunnel_prefix_parse(v, &cfg->pool_net) || cfg->pool_net.family != 4 ||
                 cfg->pool_net.len > 30
             ? -1
             : 0;
}
/* dns: one or two IPv4 addresses, separated by commas */
static int dns_item(struct tunnel_config *cfg, const char *s) {
  return cfg->n_dns == 2 || inet_pton(AF_INET, s, cfg->dns[cfg->n_dns++]) != 1 ? -1 : 0;
}
static int set_dns(struct tunnel_config *cfg, size_t off, const char *v) {
  (void)off;
  cfg->n_dns = 0;
  return each_item(cfg, v, dns_item) || !cfg->n_dns ? -1 : 0;
}
/* remote_id in a [pool]: one pattern a line (a DN pattern holds commas) */
static int set_pattern(struct tunnel_config *cfg, const char *v) {
  if (!*v || strlen(v) >= sizeof cfg->ids[0] || cfg->n_ids == TUNNEL_POOL_IDS) return -1;
  snprintf(cfg->ids[cfg->n_ids++], sizeof cfg->ids[0], "%s", v);
  return 0;
}

/* "ID VALUE" (the ID may hold spaces: a DN) into id and its last word:
 * 0, or -1 when there is no space or the ID is bad. */
static int id_and_value(const char *v, struct tunnel_ike_id *id, char *value, size_t cap) {
  char buf[LINE_MAX_BYTES + 1];
  snprintf(buf, sizeof buf, "%s", v);
  char *sp = strrchr(buf, ' '), *tab = strrchr(buf, '\t');
  if (tab && (!sp || tab > sp)) sp = tab;
  if (!sp) return -1;
  *sp = 0;
  const char *val = trim(sp + 1);
  if (!*val || strlen(val) >= cap || parse_id(trim(buf), id)) return -1;
  strcpy(value, val);
  return 0;
}

static int same_id(const struct tunnel_ike_id *a, const struct tunnel_ike_id *b) {
  return a->type == b->type && a->len == b->len && !memcmp(a->data, b->data, a->len);
}

/* psk in a [pool]: "ID FILE", one a line, each ID once */
static int set_user_psk(struct tunnel_config *cfg, const char *v) {
  if (cfg->n_user_psk == TUNNEL_POOL_PSKS) return -1;
  struct tunnel_user_psk *u = &cfg->user_psk[cfg->n_user_psk];
  if (id_and_value(v, &u->id, u->path, sizeof u->path)) return -1;
  for (size_t i = 0; i < cfg->n_user_psk; i++)
    if (same_id(&cfg->user_psk[i].id, &u->id)) return -1;
  cfg->n_user_psk++;
  return 0;
}

/* address in a [pool]: "ID ADDRESS" (IPv4), one a line, each ID and
 * address once */
static int set_user_addr(struct tunnel_config *cfg, const char *v, unsigned line) {
  char a[INET_ADDRSTRLEN];
  if (cfg->n_user_addr == TUNNEL_POOL_PSKS) return -1;
  struct tunnel_user_addr *u = &cfg->user_addr[cfg->n_user_addr];
  if (id_and_value(v, &u->id, a, sizeof a) || inet_pton(AF_INET, a, u->ip) != 1) return -1;
  for (size_t i = 0; i < cfg->n_user_addr; i++)
    if (same_id(&cfg->user_addr[i].id, &u->id) || !memcmp(cfg->user_addr[i].ip, u->ip, 4))
      return -1;
  u->line = line;
  cfg->n_user_addr++;
  return 0;
}

/* The refusals of a bad value: settings with a message of their own. */
static int bad_value(const struct cfg_at *at, const char *k, const char *v) {
  return cli_usage("%s:%u: bad value for %s: '%s'", at->path, at->line, k, v);
}
static int bad_transform(const struct cfg_at *at, const char *k, const char *v) {
  (void)k;
  return cli_usage("%s:%u: unknown transform '%s' (kuznyechik-mgm-ktree, magma-mgm-ktree, "
                   "kuznyechik-mgm-mac-ktree or magma-mgm-mac-ktree)",
                   at->path, at->line, v);
}
static int bad_transforms(const struct cfg_at *at, const char *k, const char *v) {
  (void)k;
  return cli_usage("%s:%u: bad transforms '%s': one or two of kuznyechik-mgm-ktree and "
                   "magma-mgm-ktree, and at most one of gost3410-2012-512 and "
                   "gost3410-2012-256, separated by commas",
                   at->path, at->line, v);
}
static int bad_id(const struct cfg_at *at, const char *k, const char *v) {
  return cli_usage("%s:%u: bad %s '%s': an IP address, an FQDN, user@domain or a DN as "
                   "\"C=RU, O=Org, CN=name\"",
                   at->path, at->line, k, v);
}
static int bad_crl(const struct cfg_at *at, const char *k, const char *v) {
  (void)k;
  return cli_usage("%s:%u: bad crl '%s': a CRL file or a folder of them, at most %d crl lines",
                   at->path, at->line, v, TUNNEL_CRL_PATHS);
}
static int bad_revocation(const struct cfg_at *at, const char *k, const char *v) {
  (void)k;
  return cli_usage("%s:%u: bad revocation '%s': require, warn or off", at->path, at->line, v);
}
static int bad_ts(const struct cfg_at *at, const char *k, const char *v) {
  (void)k;
  return cli_usage("%s:%u: bad remote_ts '%s': prefixes as 10.1.0.0/16 or fd00:1::/48 (no "
                   "bits set past the length), separated by commas, at most %d",
                   at->path, at->line, v, TUNNEL_TS_MAX);
}
static int bad_inner_routes(const struct cfg_at *at, const char *k, const char *v) {
  (void)k;
  return cli_usage("%s:%u: bad inner_routes '%s': IPv4 prefixes as 10.0.0.0/8 (no bits set "
                   "past the length), separated by commas, at most %d",
                   at->path, at->line, v, TUNNEL_TS_MAX);
}
static int bad_pool(const struct cfg_at *at, const char *k, const char *v) {
  (void)k;
  return cli_usage("%s:%u: bad pool '%s': an IPv4 prefix as 10.200.0.0/24, at most /30",
                   at->path, at->line, v);
}
static int bad_dns(const struct cfg_at *at, const char *k, const char *v) {
  (void)k;
  return cli_usage("%s:%u: bad dns '%s': one or two IPv4 addresses, separated by commas",
                   at->path, at->line, v);
}
static int bad_spi(const struct cfg_at *at, const char *k, const char *v) {
  (void)v;
  return cli_usage("%s:%u: %s must be a number from 256 to 4294967295", at->path, at->line, k);
}

#define CFG(member) offsetof(struct tunnel_config, member)
/* The settings (docs/TUNNEL.md): `required` ones are named, when missing,
 * in this order; `only` a keying's settings (ONLY_STATIC: keys by hand,
 * ONLY_IKE: keys from IKEv2), refused with the other. */
enum { ONLY_ANY = 0, ONLY_STATIC, ONLY_IKE, ONLY_POOL /* a [pool] section's */ };
static const struct {
  const char *name;
  cfg_setter *set;
  size_t off;
  int required, only;
  int (*refuse)(const struct cfg_at *at, const char *k, const char *v);
} settings[] = {
    {"local", set_local, 0, 1, ONLY_ANY, bad_value},
    {"peer", set_peer, 0, 1, ONLY_ANY, bad_value},
    {"tun", set_tun, 0, 1, ONLY_ANY, bad_value},
    {"mtu", set_mtu, 0, 0, ONLY_ANY, bad_value},
    {"threads", set_threads, 0, 0, ONLY_ANY, bad_value},
    {"keying", set_keying, 0, 0, ONLY_ANY, bad_value},
    {"transform", set_transform, 0, 1, ONLY_STATIC, bad_transform},
    {"spi_out", set_spi, CFG(spi_out), 1, ONLY_STATIC, bad_spi},
    {"spi_in", set_spi, CFG(spi_in), 1, ONLY_STATIC, bad_spi},
    {"key_out", set_path, CFG(key_out), 1, ONLY_STATIC, bad_value},
    {"key_in", set_path, CFG(key_in), 1, ONLY_STATIC, bad_value},
    {"state", set_path, CFG(state), 1, ONLY_ANY, bad_value},
    {"status", set_path, CFG(status), 0, ONLY_ANY, bad_value},
    {"esn", set_off, CFG(esn_off), 0, ONLY_STATIC, bad_value},
    {"limit", set_limit, 0, 0, ONLY_ANY, bad_value},
    {"insecure_key_file", set_insecure, 0, 0, ONLY_ANY, bad_value},
    {"udp_offload", set_off, CFG(udp_offload_off), 0, ONLY_ANY, bad_value},
    {"tun_offload", set_off, CFG(tun_offload_off), 0, ONLY_ANY, bad_value},
    {"timing", set_yes_no, CFG(timing), 0, ONLY_ANY, bad_value},
    {"ike_auth", set_ike_auth, 0, 1, ONLY_IKE, bad_value},
    {"psk", set_path, CFG(psk), 0, ONLY_IKE, bad_value},
    {"cert", set_path, CFG(cert), 0, ONLY_IKE, bad_value},
    {"key", set_path, CFG(key), 0, ONLY_IKE, bad_value},
    {"key_pass", set_key_pass, 0, 0, ONLY_IKE, bad_value},
    {"ca", set_path, CFG(ca), 0, ONLY_IKE, bad_value},
    {"crl", set_crl, 0, 0, ONLY_IKE, bad_crl},
    {"revocation", set_revocation, 0, 0, ONLY_IKE, bad_revocation},
    {"local_id", set_id, CFG(local_id), 0, ONLY_IKE, bad_id},
    {"remote_id", set_id, CFG(remote_id), 1, ONLY_IKE, bad_id},
    {"transforms", set_transforms, 0, 0, ONLY_IKE, bad_transforms},
    {"ike_initiate", set_yes_no, CFG(ike_initiate), 0, ONLY_IKE, bad_value},
    {"ike_port", set_port, 0, 0, ONLY_IKE, bad_value},
    {"rekey_seconds", set_u64, CFG(rekey_seconds), 0, ONLY_IKE, bad_value},
    {"rekey_bytes", set_u64, CFG(rekey_bytes), 0, ONLY_IKE, bad_value},
    {"ike_rekey_seconds", set_u64, CFG(ike_rekey_seconds), 0, ONLY_IKE, bad_value},
    {"dpd_seconds", set_u64, CFG(dpd_seconds), 0, ONLY_IKE, bad_value},
    {"encap", set_yes_no, CFG(encap), 0, ONLY_IKE, bad_value},
    {"nat_keepalive_seconds", set_u64, CFG(nat_keepalive_seconds), 0, ONLY_IKE, bad_value},
    {"fragmentation", set_yes_no, CFG(fragmentation), 0, ONLY_IKE, bad_value},
    {"fragment_size", set_fragment_size, 0, 0, ONLY_IKE, bad_value},
    {"remote_ts", set_ts, 0, 0, ONLY_STATIC, bad_ts},
    {"pool", set_pool, 0, 0, ONLY_POOL, bad_pool},
    {"dns", set_dns, 0, 0, ONLY_POOL, bad_dns},
    /* never called: config_line reads address lines itself (set_user_addr) */
    {"address", set_pool, 0, 0, ONLY_POOL, bad_value},
    {"request_address", set_yes_no, CFG(request_address), 0, ONLY_IKE, bad_value},
    {"inner_routes", set_inner_routes, 0, 0, ONLY_IKE, bad_inner_routes},
};
#undef CFG
#define NSETTINGS (sizeof settings / sizeof *settings)

/* The settings of a [peer NAME] section, all required there; in a config
 * with such sections, given nowhere else. */
static const char *const peer_settings[] = {"peer",    "transform", "spi_out",  "spi_in",
                                            "key_out", "key_in",    "remote_ts"};
#define NPEER_SETTINGS (sizeof peer_settings / sizeof *peer_settings)
static int is_peer_setting(const char *name) {
  for (size_t i = 0; i < NPEER_SETTINGS; i++)
    if (!strcmp(name, peer_settings[i])) return 1;
  return 0;
}

/* What a [peer NAME] section of keying = ikev2 may set besides peer and
 * remote_ts (docs/TUNNEL.md, "An IKEv2 site"): the site's IKE, its
 * authentication its own (psk, or cert, key and ca), whether the gateway
 * starts it too (ike_initiate; on the data port, to the site's peer
 * address); remote_id, peer and remote_ts required. */
static const char *const site_settings[] = {
    "keying",     "remote_id",   "local_id",      "psk",          "cert",    "ike_initiate",
    "key",        "key_pass",    "ca",            "crl",          "revocation",
    "transforms", "rekey_seconds", "rekey_bytes", "ike_rekey_seconds", "dpd_seconds",
    "nat_keepalive_seconds", "fragmentation", "fragment_size"};
static int is_site_setting(const char *name) {
  for (size_t i = 0; i < sizeof site_settings / sizeof *site_settings; i++)
    if (!strcmp(name, site_settings[i])) return 1;
  return 0;
}

/* The settings of a [pool NAME] section: its users' IKE (pool, and cert,
 * key and ca required), nothing of the gateway's. */
static const char *const pool_settings[] = {
    "pool",      "dns",     "remote_id",  "psk",  "address", "cert",       "key",           "key_pass",
    "ca",        "crl",     "revocation", "local_id",   "transforms",    "rekey_seconds",
    "rekey_bytes", "ike_rekey_seconds", "dpd_seconds", "nat_keepalive_seconds",
    "fragmentation", "fragment_size"};
static int is_pool_setting(const char *name) {
  for (size_t i = 0; i < sizeof pool_settings / sizeof *pool_settings; i++)
    if (!strcmp(name, pool_settings[i])) return 1;
  return 0;
}

enum { SECT_TOP = 0, SECT_PEER, SECT_POOL };

/* One line s (its comment cut, trimmed, not blank): KEY = VALUE applied to
 * cfg, each setting once (first_line: where each was given, 0: not yet);
 * in a [peer] section (SECT_PEER) only the peer's settings, in a [pool]
 * section its users'. */
static int config_line(struct tunnel_config *cfg, const struct cfg_at *at, char *s,
                       unsigned *first_line, int sect) {
  const int in_peer = sect == SECT_PEER;
  char *eq = strchr(s, '=');
  if (!eq) return cli_usage("%s:%u: expected KEY = VALUE", at->path, at->line);
  *eq = 0;
  char *k = trim(s), *v = trim(eq + 1);
  size_t i = 0;
  while (i < NSETTINGS && strcmp(k, settings[i].name)) i++;
  if (i == NSETTINGS) return cli_usage("%s:%u: unknown setting '%s'", at->path, at->line, k);
  if (in_peer && !is_peer_setting(k) && !is_site_setting(k) && settings[i].only == ONLY_IKE)
    return cli_usage("%s:%u: %s is no setting of a [peer] section (the gateway's IKE with an "
                     "IKEv2 site is on its data port, to and from the site's peer address)",
                     at->path, at->line, k);
  if (in_peer && !is_peer_setting(k) && !is_site_setting(k))
    return cli_usage("%s:%u: %s is a setting of the whole gateway: give it before the first "
                     "[peer] section",
                     at->path, at->line, k);
  if (sect == SECT_POOL && !is_pool_setting(k))
    return cli_usage("%s:%u: %s is no setting of a [pool] section (its users' IKE: %s, ...)",
                     at->path, at->line, k, "pool, dns, remote_id, cert, key, ca");
  if (sect != SECT_POOL && settings[i].only == ONLY_POOL)
    return cli_usage("%s:%u: %s is a setting of a [pool NAME] section (remote users)",
                     at->path, at->line, k);
  /* crl: one line per file or folder; a [pool]'s remote_id one per
   * pattern, its psk one per user */
  const int list = settings[i].set == set_crl ||
                   (sect == SECT_POOL && (!strcmp(k, "remote_id") || !strcmp(k, "psk") ||
                                          !strcmp(k, "address")));
  if (first_line[i] && !list)
    return cli_usage("%s:%u: %s given twice (first on line %u)", at->path, at->line, k,
                     first_line[i]);
  if (!first_line[i]) first_line[i] = at->line;
  if (sect == SECT_POOL && !strcmp(k, "remote_id"))
    return set_pattern(cfg, v) ? cli_usage("%s:%u: bad remote_id '%s': a pattern of at most "
                                           "255 characters, at most %d remote_id lines",
                                           at->path, at->line, v, TUNNEL_POOL_IDS)
                               : 0;
  if (sect == SECT_POOL && !strcmp(k, "address"))
    return set_user_addr(cfg, v, at->line)
               ? cli_usage("%s:%u: bad address '%s': \"ID ADDRESS\" (a user's ID and its IPv4 "
                           "address), each ID and address once, at most %d address lines",
                           at->path, at->line, v, TUNNEL_POOL_PSKS)
               : 0;
  if (sect == SECT_POOL && !strcmp(k, "psk"))
    return set_user_psk(cfg, v) ? cli_usage("%s:%u: bad psk '%s': \"ID FILE\" (a user's ID and "
                                            "its PSK file), each ID once, at most %d psk lines",
                                            at->path, at->line, v, TUNNEL_POOL_PSKS)
                                : 0;
  return settings[i].set(cfg, settings[i].off, v) ? settings[i].refuse(at, k, v) : 0;
}

/* A config's (or a section's) settings before its lines. */
static void config_defaults(struct tunnel_config *cfg, const char *path) {
  memset(cfg, 0, sizeof *cfg);
  cfg->rekey_seconds = TUNNEL_REKEY_SECONDS; /* 0 written: never */
  cfg->dpd_seconds = TUNNEL_DPD_SECONDS;
  cfg->nat_keepalive_seconds = TUNNEL_NAT_KEEPALIVE_SECONDS;
  cfg->fragmentation = 1;
  cfg->fragment_size = TUNNEL_FRAGMENT_SIZE;
  snprintf(cfg->path, sizeof cfg->path, "%s", path);
  cfg->mtu = 1400;
}

/* A [peer NAME] section being read: its settings go to sect. */
struct peer_section {
  struct tunnel_config sect;
  unsigned first_line[NSETTINGS];
  char name[TUNNEL_PEER_NAME_MAX];
  unsigned line; /* 0: none open */
  int kind;      /* SECT_PEER or SECT_POOL */
};

/* "[KW NAME]" (s trimmed; kw "peer" or "pool"): NAME into name, 0; -1
 * when s is no such header. */
static int section_header(const char *s, const char *kw, char *name) {
  size_t n = strlen(s), k = strlen(kw);
  if (s[0] != '[' || strncmp(s + 1, kw, k) || n < k + 3 || s[n - 1] != ']' ||
      !isspace((unsigned char)s[k + 1]))
    return -1;
  const char *b = s + k + 1;
  while (isspace((unsigned char)*b)) b++;
  size_t len = (size_t)(s + n - 1 - b);
  if (!len || len >= TUNNEL_PEER_NAME_MAX || *b == '.') return -1;
  for (size_t i = 0; i < len; i++)
    if (!isalnum((unsigned char)b[i]) && !strchr("-_.", b[i])) return -1;
  memcpy(name, b, len);
  name[len] = 0;
  return 0;
}

/* What a [peer] section sets, between a config's fields and a peer's of
 * the same names: c's into p (to_peer), else p's into c. */
static void peer_copy(struct tunnel_config *c, struct tunnel_peer_config *p, int to_peer) {
#define PEER_FIELD(f)                                                                              \
  (to_peer ? memcpy(&p->f, &c->f, sizeof p->f) : memcpy(&c->f, &p->f, sizeof c->f))
  PEER_FIELD(peer), PEER_FIELD(peer_len), PEER_FIELD(peer_s), PEER_FIELD(transform);
  PEER_FIELD(spi_out), PEER_FIELD(spi_in), PEER_FIELD(key_out), PEER_FIELD(key_in);
  PEER_FIELD(ts), PEER_FIELD(nts);
#undef PEER_FIELD
}

static int ike_check(struct tunnel_config *cfg, const char *path, const unsigned *first_line);
static int given(const unsigned *first_line, const char *name);
static unsigned first_line_of(const unsigned *first_line, const char *name);

/* The open [pool] section, checked, as cfg->pool. */
static int pool_close(struct tunnel_config *cfg, struct peer_section *ps, const char *path) {
  struct tunnel_config *c = &ps->sect;
  /* remote_id patterns authenticate by certificates: the gateway's and
   * its users' CA; psk lines alone need none */
  static const char *const need[] = {"pool", "cert", "key", "ca"};
  for (size_t j = 0; j < sizeof need / sizeof *need; j++)
    for (size_t i = 0; i < NSETTINGS; i++)
      if (!strcmp(settings[i].name, need[j]) && !ps->first_line[i] && (!j || c->n_ids))
        return cli_usage("%s:%u: [pool %s]: missing setting '%s'%s", path, ps->line, ps->name,
                         need[j], j ? " (its remote_id patterns are of certificates)" : "");
  if (!c->n_ids && !c->n_user_psk)
    return cli_usage("%s:%u: [pool %s]: no users: remote_id patterns (certificates) or psk "
                     "lines (ID FILE)",
                     path, ps->line, ps->name);
  c->keying = TUNNEL_KEYING_IKEV2;
  c->ike_auth = c->cert[0] ? TUNNEL_IKE_CERT : TUNNEL_IKE_PSK;
  /* without a certificate the gateway's own ID defaults to its address:
   * local as the gateway's (top-level settings come before the sections) */
  c->local = cfg->local, c->local_len = cfg->local_len;
  memcpy(c->local_s, cfg->local_s, sizeof c->local_s);
  if (c->ike_auth == TUNNEL_IKE_PSK) /* read by the material as the default (never used) */
    snprintf(c->psk, sizeof c->psk, "%s", c->user_psk[0].path);
  int rc = ike_check(c, path, ps->first_line);
  if (rc) return rc;
  cfg->pool = malloc(sizeof *cfg->pool);
  if (!cfg->pool) return cli_usage("%s: out of memory", path);
  *cfg->pool = *c;
  snprintf(cfg->pool_name, sizeof cfg->pool_name, "%s", ps->name);
  cfg->pool_line = ps->line;
  cfg->pool_net = c->pool_net;
  memcpy(cfg->dns, c->dns, sizeof cfg->dns);
  cfg->n_dns = c->n_dns;
  memcpy(cfg->ids, c->ids, sizeof cfg->ids);
  cfg->n_ids = c->n_ids;
  memcpy(cfg->user_psk, c->user_psk, sizeof cfg->user_psk);
  cfg->n_user_psk = c->n_user_psk;
  memcpy(cfg->user_addr, c->user_addr, sizeof cfg->user_addr);
  cfg->n_user_addr = c->n_user_addr;
  ps->line = 0;
  return 0;
}

/* The open [peer] section of keying = ikev2, checked: its IKE settings
 * into a new *ike. */
static int site_close(const struct tunnel_config *cfg, struct peer_section *ps, const char *path,
                      struct tunnel_config **ike) {
  struct tunnel_config *c = &ps->sect;
  static const char *const need[] = {"peer", "remote_id", "remote_ts"};
  for (size_t j = 0; j < sizeof need / sizeof *need; j++)
    if (!given(ps->first_line, need[j]))
      return cli_usage("%s:%u: [peer %s]: missing setting '%s' (an IKEv2 peer)", path, ps->line,
                       ps->name, need[j]);
  for (size_t i = 0; i < NSETTINGS; i++)
    if (ps->first_line[i] && settings[i].only == ONLY_STATIC &&
        is_peer_setting(settings[i].name) && strcmp(settings[i].name, "remote_ts"))
      return cli_usage("%s:%u: [peer %s]: %s is a setting of a static peer (with keying = ikev2 "
                       "IKE negotiates the transform, SPIs and keys)",
                       path, ps->first_line[i], ps->name, settings[i].name);
  if (!c->psk[0] && !c->cert[0])
    return cli_usage("%s:%u: [peer %s]: an IKEv2 peer authenticates by psk = FILE, or by cert, "
                     "key and ca: none given",
                     path, ps->line, ps->name);
  if (c->psk[0] && c->cert[0])
    return cli_usage("%s:%u: [peer %s]: psk and cert both given: an IKEv2 peer authenticates "
                     "by one of them",
                     path, first_line_of(ps->first_line, "cert"), ps->name);
  c->ike_auth = c->cert[0] ? TUNNEL_IKE_CERT : TUNNEL_IKE_PSK;
  /* the gateway's address: its own ID by default, and its IKE's port (the data port) */
  c->local = cfg->local, c->local_len = cfg->local_len;
  memcpy(c->local_s, cfg->local_s, sizeof c->local_s);
  int rc = ike_check(c, path, ps->first_line);
  if (rc) return rc;
  *ike = malloc(sizeof **ike);
  if (!*ike) return cli_usage("%s: out of memory", path);
  **ike = *c;
  return 0;
}

/* The open section, checked, appended to cfg->peers (a [pool]: cfg->pool). */
static int peer_close(struct tunnel_config *cfg, struct peer_section *ps, const char *path) {
  if (!ps->line) return 0;
  if (ps->kind == SECT_POOL) return pool_close(cfg, ps, path);
  struct tunnel_config *c = &ps->sect;
  struct tunnel_config *ike = NULL;
  int rc = 0;
  if (c->keying == TUNNEL_KEYING_IKEV2 && (rc = site_close(cfg, ps, path, &ike))) return rc;
  for (size_t i = 0; i < NSETTINGS; i++)
    if (!ike && ps->first_line[i] && is_site_setting(settings[i].name) &&
        strcmp(settings[i].name, "keying"))
      return cli_usage("%s:%u: [peer %s]: %s is a setting of an IKEv2 peer (keying = ikev2; "
                       "this one's keys are static)",
                       path, ps->first_line[i], ps->name, settings[i].name);
  for (size_t i = 0; !ike && i < NSETTINGS; i++)
    if (is_peer_setting(settings[i].name) && !ps->first_line[i])
      return cli_usage("%s:%u: [peer %s]: missing setting '%s'", path, ps->line, ps->name,
                       settings[i].name);
  if (!ike && c->spi_in == c->spi_out)
    return cli_usage("%s:%u: [peer %s]: spi_in and spi_out must differ", path, ps->line,
                     ps->name);
  struct tunnel_peer_config *np = realloc(cfg->peers, (cfg->npeers + 1) * sizeof *np);
  if (!np) {
    free(ike);
    return cli_usage("%s: out of memory", path);
  }
  cfg->peers = np;
  struct tunnel_peer_config *p = &np[cfg->npeers++];
  memset(p, 0, sizeof *p);
  memcpy(p->name, ps->name, sizeof p->name);
  p->line = ps->line;
  for (size_t i = 0; i < NSETTINGS; i++)
    if (!strcmp(settings[i].name, "remote_ts")) p->ts_line = ps->first_line[i];
  peer_copy(c, p, 1);
  p->ike = ike;
  ps->line = 0;
  return 0;
}

/* A [peer NAME] or [pool NAME] header at `at`: the section before
 * closed, this one opened. */
static int peer_open(struct tunnel_config *cfg, struct peer_section *ps, const struct cfg_at *at,
                     const char *s) {
  char name[TUNNEL_PEER_NAME_MAX];
  const int kind = section_header(s, "pool", name) ? SECT_PEER : SECT_POOL;
  if (kind == SECT_PEER && section_header(s, "peer", name))
    return cli_usage("%s:%u: expected [peer NAME] or [pool NAME] (NAME: letters, digits, '-', "
                     "'_' and '.', at most %d, not starting with '.')",
                     at->path, at->line, TUNNEL_PEER_NAME_MAX - 1);
  int rc = peer_close(cfg, ps, at->path);
  if (rc) return rc;
  if (kind == SECT_POOL && cfg->pool)
    return cli_usage("%s:%u: [pool %s]: one [pool] section per gateway (the first: [pool %s] "
                     "on line %u)",
                     at->path, at->line, name, cfg->pool_name, cfg->pool_line);
  for (size_t i = 0; kind == SECT_PEER && i < cfg->npeers; i++)
    if (!strcmp(cfg->peers[i].name, name))
      return cli_usage("%s:%u: [peer %s] given twice (first on line %u)", at->path, at->line,
                       name, cfg->peers[i].line);
  config_defaults(&ps->sect, cfg->path);
  memset(ps->first_line, 0, sizeof ps->first_line);
  memcpy(ps->name, name, sizeof name);
  ps->line = at->line;
  ps->kind = kind;
  return 0;
}

/* Every line of f into cfg, and each [peer NAME] section into cfg->peers:
 * 0, or CLI_EXIT_USAGE after one line. */
static int config_lines(FILE *f, struct tunnel_config *cfg, const char *path, unsigned *first_line) {
  char line[LINE_MAX_BYTES + 1];
  struct cfg_at at = {path, 0};
  int rc = 0, nul;
  long len;
  struct peer_section *ps = calloc(1, sizeof *ps); /* big: a whole config */
  if (!ps) return cli_usage("%s: out of memory", path);
  while (!rc && (len = read_line(f, line, &nul)) >= 0) {
    at.line++;
    /* refused, not cut: the rest of a long comment would be read as a
     * setting of its own, and what follows a NUL would vanish */
    if (len > LINE_MAX_BYTES) {
      rc = cli_usage("%s:%u: line longer than %d bytes", path, at.line, LINE_MAX_BYTES);
      break;
    }
    if (nul) {
      rc = cli_usage("%s:%u: a NUL byte in the line", path, at.line);
      break;
    }
    char *hash = strchr(line, '#');
    if (hash) *hash = 0;
    char *s = trim(line);
    if (!*s) continue;
    if (*s == '[') rc = peer_open(cfg, ps, &at, s);
    else if (ps->line) rc = config_line(&ps->sect, &at, s, ps->first_line, ps->kind);
    else rc = config_line(cfg, &at, s, first_line, SECT_TOP);
  }
  if (!rc && ferror(f)) rc = cli_usage("%s: read error", path);
  if (!rc) rc = peer_close(cfg, ps, path);
  free(ps);
  return rc;
}

/* What the settings must say together, and the defaults that follow from
 * them. */
/* A setting of the other keying (one line naming it and why), or 0. */
static int mixed_keying(const struct tunnel_config *cfg, const char *path,
                        const unsigned *first_line) {
  const int other = cfg->keying == TUNNEL_KEYING_IKEV2 ? ONLY_STATIC : ONLY_IKE;
  for (size_t i = 0; i < NSETTINGS; i++)
    if (settings[i].only == other && first_line[i])
      return cli_usage(other == ONLY_STATIC
                           ? "%s:%u: %s is a setting of keying = static: with keying = ikev2 "
                             "IKE negotiates the transform, SPIs and keys"
                           : "%s:%u: %s is a setting of keying = ikev2 (this config's keying "
                             "is static)",
                       path, first_line[i], settings[i].name);
  return 0;
}

/* The line the setting called name was first given on, 0: not given. */
static unsigned first_line_of(const unsigned *first_line, const char *name) {
  for (size_t i = 0; i < NSETTINGS; i++)
    if (!strcmp(settings[i].name, name)) return first_line[i];
  return 0;
}
/* Whether the setting called name was given. */
static int given(const unsigned *first_line, const char *name) {
  return first_line_of(first_line, name) != 0;
}

/* ike_rekey_seconds unset: TUNNEL_IKE_REKEY_EVERY Child SA periods (0
 * stays 0: never) */
static void ike_rekey_default(struct tunnel_config *cfg, const unsigned *first_line) {
  if (given(first_line, "ike_rekey_seconds")) return;
  const uint64_t s = cfg->rekey_seconds;
  cfg->ike_rekey_seconds =
      s > UINT64_MAX / TUNNEL_IKE_REKEY_EVERY ? UINT64_MAX : s * TUNNEL_IKE_REKEY_EVERY;
}

/* What keying = ikev2 needs together, and its defaults. */
static int ike_check(struct tunnel_config *cfg, const char *path, const unsigned *first_line) {
  const int psk = cfg->ike_auth == TUNNEL_IKE_PSK;
  if (psk && !cfg->psk[0]) return cli_usage("%s: ike_auth = psk needs psk = FILE", path);
  if (!psk && (!cfg->cert[0] || !cfg->key[0] || !cfg->ca[0]))
    return cli_usage("%s: ike_auth = cert needs cert, key and ca", path);
  if (psk && (cfg->cert[0] || cfg->key[0] || cfg->ca[0] || cfg->key_pass[0]))
    return cli_usage("%s: cert, key, key_pass and ca are for ike_auth = cert (this one is psk)",
                     path);
  if (!psk && cfg->psk[0]) return cli_usage("%s: psk is for ike_auth = psk", path);
  if (psk && (cfg->n_crl || given(first_line, "revocation")))
    return cli_usage("%s: crl and revocation are for ike_auth = cert (this one is psk)", path);
  if (!given(first_line, "revocation") && cfg->n_crl) cfg->revocation = TUNNEL_REVOCATION_REQUIRE;
  if (cfg->revocation != TUNNEL_REVOCATION_OFF && !cfg->n_crl)
    return cli_usage("%s: revocation = %s needs crl lines (the CRLs to look certificates up in)",
                     path, cfg->revocation == TUNNEL_REVOCATION_WARN ? "warn" : "require");
  if (cfg->revocation == TUNNEL_REVOCATION_OFF && cfg->n_crl)
    return cli_usage("%s: crl lines with revocation = off: no certificate would be looked up "
                     "in them",
                     path);
  if (cfg->n_inner_routes && !cfg->request_address)
    return cli_usage("%s:%u: inner_routes go into the device with the address the gateway "
                     "gives: request_address = yes",
                     path, first_line_of(first_line, "inner_routes"));
  if (!cfg->n_encr) { /* RFC 9385 A.1.1's offer */
    cfg->encr[0] = GOSTX_ESP_KUZNYECHIK_MGM_KTREE;
    cfg->encr[1] = GOSTX_ESP_MAGMA_MGM_KTREE;
    cfg->n_encr = 2;
  }
  if (!cfg->group) cfg->group = TUNNEL_KE_512;
  if (!cfg->ike_port) cfg->ike_port = TUNNEL_IKE_PORT;
  ike_rekey_default(cfg, first_line);
  const struct sockaddr_storage *l = &cfg->local;
  const int v4 = l->ss_family == AF_INET;
  const struct sockaddr_in *l4 = (const struct sockaddr_in *)l;
  const struct sockaddr_in6 *l6 = (const struct sockaddr_in6 *)l;
  /* strongSwan's default for a PSK: our IP address (with certificates,
   * the certificate's subject: set when it is loaded) */
  if (!cfg->local_id.type && psk) {
    char ip[INET6_ADDRSTRLEN];
    const void *a = v4 ? (const void *)&l4->sin_addr : (const void *)&l6->sin6_addr;
    if (!inet_ntop(l->ss_family, a, ip, sizeof ip) || parse_id(ip, &cfg->local_id))
      return cli_usage("%s: local_id needed", path);
  }
  return 0;
}

/* A gateway's peers together: the top level without a peer's settings,
 * every SPI of one peer only (the inbound ones pick the peer), no inner
 * prefix owned by two peers (where would a packet to it go?), each peer of
 * local's address family. */
static int gateway_check(const struct tunnel_config *cfg, const char *path,
                         const unsigned *first_line) {
  if (cfg->keying != TUNNEL_KEYING_STATIC)
    return cli_usage("%s:%u: [peer] and [pool] sections are for a gateway, whose top level is "
                     "keying = static (an IKEv2 site's keying goes in its [peer NAME] "
                     "section, IKEv2 users in a [pool NAME] section)",
                     path, cfg->npeers ? cfg->peers[0].line : cfg->pool_line);
  if (cfg->pool) {
    /* its users' IKE on the data port (behind the non-ESP marker), the
     * gateway's addresses and device */
    struct tunnel_config *p = cfg->pool;
    const struct sockaddr_in *l4 = (const struct sockaddr_in *)&cfg->local;
    if (cfg->local.ss_family != AF_INET)
      return cli_usage("%s:%u: [pool %s]: remote users need an IPv4 local address", path,
                       cfg->pool_line, cfg->pool_name);
    p->ike_port = ntohs(l4->sin_port);
    p->insecure_key_file = cfg->insecure_key_file;
    p->limit = cfg->limit;
    for (size_t j = 0; j < cfg->n_user_addr; j++) {
      const struct tunnel_user_addr *a = &cfg->user_addr[j];
      struct tunnel_prefix one = {.family = 4, .len = 32};
      memcpy(one.addr, a->ip, 4);
      char ip[INET_ADDRSTRLEN], pb[64];
      inet_ntop(AF_INET, a->ip, ip, sizeof ip);
      if (tunnel_prefix_overlap(&cfg->pool_net, &one))
        return cli_usage("%s:%u: [pool %s]: address %s is in the pool (a fixed address is "
                         "outside it: the pool hands out its own)",
                         path, a->line, cfg->pool_name, ip);
      for (size_t i = 0; i < cfg->npeers; i++)
        for (size_t k = 0; k < cfg->peers[i].nts; k++)
          if (tunnel_prefix_overlap(&one, &cfg->peers[i].ts[k])) {
            tunnel_prefix_format(&cfg->peers[i].ts[k], pb, sizeof pb);
            return cli_usage("%s:%u: [pool %s]: address %s is in peer %s's remote_ts %s",
                             path, a->line, cfg->pool_name, ip, cfg->peers[i].name, pb);
          }
    }
    for (size_t i = 0; i < cfg->npeers; i++)
      for (size_t k = 0; k < cfg->peers[i].nts; k++)
        if (tunnel_prefix_overlap(&cfg->pool_net, &cfg->peers[i].ts[k])) {
          char pa[64], pb[64];
          tunnel_prefix_format(&cfg->pool_net, pa, sizeof pa);
          tunnel_prefix_format(&cfg->peers[i].ts[k], pb, sizeof pb);
          return cli_usage("%s:%u: [pool %s]: pool %s overlaps peer %s's remote_ts %s (each "
                           "inner address is one peer's)",
                           path, cfg->pool_line, cfg->pool_name, pa, cfg->peers[i].name, pb);
        }
  }
  for (size_t i = 0; i < NSETTINGS; i++)
    if (first_line[i] && is_peer_setting(settings[i].name))
      return cli_usage("%s:%u: %s is a setting of a [peer] section (this config has them: a "
                       "gateway)",
                       path, first_line[i], settings[i].name);
  for (size_t j = 0; j < cfg->npeers; j++) {
    const struct tunnel_peer_config *b = &cfg->peers[j];
    if (b->peer.ss_family != cfg->local.ss_family)
      return cli_usage("%s:%u: [peer %s]: local and peer are of different address families",
                       path, b->line, b->name);
    if (b->ike && b->peer.ss_family != AF_INET)
      return cli_usage("%s:%u: [peer %s]: an IKEv2 peer needs IPv4 addresses (local and peer)",
                       path, b->line, b->name);
    if (b->ike) { /* its IKE on the data port, under the gateway's limits */
      const struct sockaddr_in *l4 = (const struct sockaddr_in *)&cfg->local;
      b->ike->ike_port = ntohs(l4->sin_port);
      b->ike->insecure_key_file = cfg->insecure_key_file;
      b->ike->limit = cfg->limit;
    }
    for (size_t i = 0; i < j; i++) {
      const struct tunnel_peer_config *a = &cfg->peers[i];
      const uint32_t sa[2] = {a->spi_out, a->spi_in}, sb[2] = {b->spi_out, b->spi_in};
      for (int x = 0; x < 4 && !a->ike && !b->ike; x++) /* an IKEv2 peer's SPIs are drawn */
        if (sa[x / 2] == sb[x % 2])
          return cli_usage("%s:%u: [peer %s]: %s 0x%08x is peer %s's %s too: every SPI of "
                           "the gateway is one peer's",
                           path, b->line, b->name, x % 2 ? "spi_in" : "spi_out",
                           (unsigned)sb[x % 2], a->name, x / 2 ? "spi_in" : "spi_out");
      for (size_t m = 0; m < a->nts; m++)
        for (size_t k = 0; k < b->nts; k++)
          if (tunnel_prefix_overlap(&a->ts[m], &b->ts[k])) {
            char pa[64], pb[64];
            tunnel_prefix_format(&a->ts[m], pa, sizeof pa);
            tunnel_prefix_format(&b->ts[k], pb, sizeof pb);
            return cli_usage("%s:%u: [peer %s]: remote_ts %s overlaps peer %s's %s (each "
                             "inner address is one peer's)",
                             path, b->ts_line, b->name, pb, a->name, pa);
          }
    }
  }
  return 0;
}

/* What the settings must say together, and the defaults that follow from
 * them. */
static int config_check(struct tunnel_config *cfg, const char *path, const unsigned *first_line) {
  const int ike = cfg->keying == TUNNEL_KEYING_IKEV2, gw = cfg->npeers > 0 || cfg->pool;
  int rc = mixed_keying(cfg, path, first_line);
  if (!rc && gw) rc = gateway_check(cfg, path, first_line);
  if (rc) return rc;
  /* the static peers first, then the IKEv2 ones (each in the file's order):
   * the gateway's peers and its IKE slots are told apart so */
  struct tunnel_peer_config tmp;
  for (size_t i = 0, k = 0; i < cfg->npeers; i++)
    if (!cfg->peers[i].ike) {
      tmp = cfg->peers[i];
      memmove(&cfg->peers[k + 1], &cfg->peers[k], (i - k) * sizeof tmp);
      cfg->peers[k++] = tmp;
    }
  for (size_t i = 0; i < cfg->npeers; i++) cfg->nsites += cfg->peers[i].ike != NULL;
  for (size_t i = 0; i < NSETTINGS; i++)
    if (settings[i].required && !first_line[i] &&
        settings[i].only != (ike ? ONLY_STATIC : ONLY_IKE) &&
        !(gw && is_peer_setting(settings[i].name)))
      return cli_usage("%s: missing setting '%s'", path, settings[i].name);
  for (size_t i = 0; !gw && i < NSETTINGS; i++)
    if (first_line[i] && !strcmp(settings[i].name, "remote_ts"))
      return cli_usage("%s:%u: remote_ts is a setting of a [peer NAME] section (a gateway's "
                       "peer)",
                       path, first_line[i]);
  if (ike && (rc = ike_check(cfg, path, first_line))) return rc;
  if (!gw && cfg->local.ss_family != cfg->peer.ss_family)
    return cli_usage("%s: local and peer are of different address families", path);
  if (!ike && !gw && cfg->spi_in == cfg->spi_out)
    return cli_usage("%s: spi_in and spi_out must differ", path);
  if (strlen(cfg->state) + 8 > sizeof cfg->status)
    return cli_usage("%s: the state path is too long", path);
  if (!cfg->status[0]) {
    strcpy(cfg->status, cfg->state);
    strcat(cfg->status, ".status");
  }
  if (!cfg->threads) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    cfg->threads = n < 1 ? 1 : n > TUNNEL_MAX_THREADS ? TUNNEL_MAX_THREADS : (unsigned)n;
  }
  return 0;
}

int tunnel_config_read(const char *path, struct tunnel_config *cfg) {
  config_defaults(cfg, path);
  struct stat st;
  int fd = tunnel_open_regular(path, &st);
  FILE *f = fd < 0 ? NULL : fdopen(fd, "r");
  if (!f) {
    if (fd >= 0) close(fd);
    return cli_usage("%s: %s", path, errno == EINVAL ? file_kind(&st) : strerror(errno));
  }
  unsigned first_line[NSETTINGS] = {0};
  int rc = config_lines(f, cfg, path, first_line);
  fclose(f);
  if (!rc) rc = config_check(cfg, path, first_line);
  if (rc) tunnel_config_free(cfg);
  return rc;
}

void tunnel_config_free(struct tunnel_config *cfg) {
  free(cfg->pool);
  cfg->pool = NULL;
  for (size_t i = 0; i < cfg->npeers; i++) free(cfg->peers[i].ike);
  free(cfg->peers);
  cfg->peers = NULL;
  cfg->npeers = 0;
}

void tunnel_config_sites_shed(struct tunnel_config *cfg) {
  for (size_t i = 0; i < cfg->nsites; i++) {
    struct tunnel_peer_config *p = &cfg->peers[cfg->npeers - cfg->nsites + i];
    free(p->ike);
    p->ike = NULL;
  }
}

void tunnel_config_of_peer(const struct tunnel_config *cfg, const struct tunnel_peer_config *p,
                           struct tunnel_config *out) {
  *out = *cfg;
  out->peers = NULL;
  out->npeers = 0;
  peer_copy(out, (struct tunnel_peer_config *)p, 0); /* from p only */
}

static int hexval(int c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* One key file into km: 32 bytes (the salt then derived, see TUNNEL.md) or
 * the RFC 9227 KEYMAT of 32 + salt bytes, raw or as hex (one line). */
/* The key file into raw (cap bytes): its length, or -1 after a message. A
 * regular file only (a FIFO would hang the start), and one that group and
 * others cannot access (as ssh and the nbdkit disk filter refuse such
 * keys) unless insecure_key_file = true. read(2): no stdio copy. */
long tunnel_read_key_file(const struct tunnel_config *cfg, const char *path, uint8_t *raw,
                          size_t cap) {
  struct stat st;
  int fd = tunnel_open_regular(path, &st);
  if (fd < 0) {
    cli_err("%s: %s", path, errno == EINVAL ? file_kind(&st) : strerror(errno));
    return -1;
  }
  if (st.st_mode & 077) {
    if (!cfg->insecure_key_file) {
      cli_err("%s: key file has mode %04o: group or others can access it; chmod go= it, or set "
              "insecure_key_file = true in %s to use it anyway",
              path, (unsigned)(st.st_mode & 07777), cfg->path);
      close(fd);
      return -1;
    }
    fprintf(stderr,
            "gostx tunnel: warning: key file %s has mode %04o: group or others can access it "
            "(used because insecure_key_file = true)\n",
            path, (unsigned)(st.st_mode & 07777));
  }
  long n = tunnel_read_all(fd, raw, cap);
  int e = errno;
  close(fd);
  if (n < 0) {
    gostx_memzero(raw, cap);
    cli_err("%s: read error: %s", path, strerror(e));
  }
  return n;
}

static int load_keymat(const struct tunnel_config *cfg, const char *path, uint32_t spi,
                       uint8_t *km) {
  gostx_esp_transform t = cfg->transform;
  size_t salt = gostx_esp_salt_len(t), full = GOSTX_ESP_KEY_LEN + salt;
  uint8_t raw[256];
  long n = tunnel_read_key_file(cfg, path, raw, sizeof raw);
  if (n < 0) return CLI_EXIT_FAIL;
  size_t len = (size_t)n;
  int rc = 0;
  if (len != GOSTX_ESP_KEY_LEN && len != full) {
    /* hex: drop one trailing newline (and \r), then pairs */
    size_t h = len;
    if (h && raw[h - 1] == '\n') h--;
    if (h && raw[h - 1] == '\r') h--;
    size_t got = h / 2;
    int ok = h % 2 == 0 && (got == GOSTX_ESP_KEY_LEN || got == full);
    for (size_t i = 0; ok && i < got; i++) {
      int a = hexval(raw[2 * i]), b = hexval(raw[2 * i + 1]);
      if (a < 0 || b < 0) ok = 0;
      else raw[i] = (uint8_t)(a << 4 | b); /* in place: i < 2i */
    }
    if (!ok) {
      gostx_memzero(raw, sizeof raw);
      return cli_usage("%s: a key file holds 32 bytes (or %zu with the salt), raw or as hex; "
                       "this one has %zu bytes",
                       path, full, len);
    }
    len = got;
  }
  memcpy(km, raw, len);
  if (len == GOSTX_ESP_KEY_LEN) {
    /* No salt given: one from the key (gostx's convention, TUNNEL.md). */
    static const uint8_t label[] = "gostx tunnel salt";
    uint8_t seed[4] = {(uint8_t)(spi >> 24), (uint8_t)(spi >> 16), (uint8_t)(spi >> 8),
                       (uint8_t)spi};
    uint8_t d[32];
    if (gostx_kdf256(km, GOSTX_ESP_KEY_LEN, label, sizeof label - 1, seed, 4, d)) rc = CLI_EXIT_FAIL;
    memcpy(km + GOSTX_ESP_KEY_LEN, d, salt);
    gostx_memzero(d, sizeof d);
  }
  gostx_memzero(raw, sizeof raw);
  return rc;
}

int tunnel_load_keys(const struct tunnel_config *cfg, gostx_esp_sa *out, gostx_esp_sa *in) {
  uint8_t km[GOSTX_ESP_KEY_LEN + GOSTX_ESP_SALT_MAX];
  size_t full = GOSTX_ESP_KEY_LEN + gostx_esp_salt_len(cfg->transform);
  int rc = load_keymat(cfg, cfg->key_out, cfg->spi_out, km);
  if (!rc && gostx_esp_sa_init(out, cfg->transform, cfg->spi_out, km, full)) rc = CLI_EXIT_FAIL;
  if (!rc) rc = load_keymat(cfg, cfg->key_in, cfg->spi_in, km);
  if (!rc && gostx_esp_sa_init(in, cfg->transform, cfg->spi_in, km, full)) rc = CLI_EXIT_FAIL;
  /* ESN off before the limit: it caps the limit at 2^32 - 1 */
  if (!rc && cfg->esn_off && (gostx_esp_sa_set_esn(out, 0) || gostx_esp_sa_set_esn(in, 0)))
    rc = CLI_EXIT_FAIL;
  if (!rc && cfg->limit) rc = gostx_esp_sa_set_limit(out, cfg->limit) ? CLI_EXIT_FAIL : 0;
  gostx_memzero(km, sizeof km);
  return rc;
}
