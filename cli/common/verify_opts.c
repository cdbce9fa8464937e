/* The shared certificate-verification options (verify_opts.h). */
#include "verify_opts.h"

#include <stdint.h>
#include <time.h>

void cli_verify_args_init(cli_verify_args *v, const char *who, size_t untrusted_max) {
  *v = (cli_verify_args){0};
  v->who = who;
  v->untrusted_max = untrusted_max;
  v->attime = (int64_t)time(NULL);
}

int cli_attime(const char *arg, int64_t *out) {
  uint64_t v;
  if (cli_uint("-attime", arg, 0, (uint64_t)INT64_MAX / 2, &v)) return CLI_EXIT_USAGE;
  *out = (int64_t)v;
  return 0;
}

int cli_verify_opt(cli_verify_args *v, int id, const char *arg) {
  switch (id) {
    case CLI_V_CAFILE: v->cafile = arg; return 0;
    case CLI_V_CAPATH: v->capath = arg; return 0;
    case CLI_V_ATTIME: return cli_attime(arg, &v->attime);
    case CLI_V_UNTRUSTED:
      if (v->untrusted_max == 1) v->n_untrusted = 0; /* one file: the last given */
      if (v->n_untrusted == v->untrusted_max)
        return cli_usage("%s: -untrusted: at most %zu", v->who, v->untrusted_max);
      v->untrusted[v->n_untrusted++] = arg;
      return 0;
    default: return CLI_EXIT_USAGE;
  }
}

int cli_verify_store(const cli_verify_args *v, gostx_x509_store **store) {
  if (!(*store = gostx_x509_store_new())) {
    cli_err("out of memory");
    return CLI_EXIT_FAIL;
  }
  const char *paths[2] = {v->cafile, v->capath};
  for (int i = 0; i < 2; i++) {
    char err[600];
    int rc = paths[i] ? gostx_x509_store_add_path(*store, paths[i], err, sizeof err) : 0;
    if (rc) { /* err names the file and what is wrong with it, when the store could say */
      if (err[0]) cli_err("%s: %s", v->who, err);
      else cli_err("%s: %s: %s", v->who, paths[i], gostx_strerror(rc));
      return CLI_EXIT_FAIL;
    }
  }
  return 0;
}

int cli_verify_untrusted(const cli_verify_args *v, cli_cert_list *l) {
  int rc = 0;
  for (size_t i = 0; !rc && i < v->n_untrusted; i++) rc = cli_load_certs(v->untrusted[i], l);
  return rc;
}
