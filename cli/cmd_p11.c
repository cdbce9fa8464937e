/* gostx p11: gostx's own PKCS#11 token (libgostx-pkcs11.so,
 * integrations/pkcs11) driven through its function list, as any PKCS#11
 * application drives it: init (C_InitToken + C_InitPIN), list (slots,
 * tokens, objects), keygen (a sensitive, non-extractable key pair) and
 * import (a key file or PFX, and its certificate, as non-extractable token
 * objects). `gostx key import -p11` writes a CryptoPro container's key
 * through p11_store_key below. docs/PKCS11.md describes the command. */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../lib/pkcs11/cryptoki.h"
#include "cli.h"
#include "commands.h"

/* ---- the module ---- */
typedef struct p11 {
  void *dl;
  CK_FUNCTION_LIST *f;
  CK_SESSION_HANDLE s;
  int inited, open;
} p11;

/* The module: --module, else $GOSTX_PKCS11_MODULE, else the one beside
 * the gostx executable (the build tree), else the installed one. */
static int module_path(const char *given, char *out, size_t cap) {
  const char *env = getenv("GOSTX_PKCS11_MODULE");
  if (given || (env && *env)) {
    snprintf(out, cap, "%s", given ? given : env);
    return 0;
  }
  char self[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n > 0) {
    self[n] = 0;
    char *slash = strrchr(self, '/');
    if (slash) {
      *slash = 0;
      int w = snprintf(out, cap, "%s/libgostx-pkcs11.so", self);
      if (w > 0 && (size_t)w < cap && access(out, R_OK) == 0)
        return 0;
    }
  }
#ifdef GOSTX_P11_MODULE_INSTALLED
  snprintf(out, cap, "%s", GOSTX_P11_MODULE_INSTALLED);
  return 0;
#else
  cli_err("p11: no gostx PKCS#11 module found: name it with --module PATH");
  return CLI_EXIT_USAGE;
#endif
}

static const char *rv_text(CK_RV rv) {
  switch (rv) {
    case CKR_PIN_INCORRECT: return "wrong PIN";
    case CKR_PIN_LOCKED: return "the PIN is locked (too many wrong PINs)";
    case CKR_PIN_LEN_RANGE: return "the PIN's length is out of range (4 to 255 bytes)";
    case CKR_DEVICE_REMOVED: return "the token was removed";
    case CKR_TOKEN_NOT_PRESENT: return "no token in the slot";
    case CKR_USER_NOT_LOGGED_IN: return "not logged in";
    case CKR_ATTRIBUTE_VALUE_INVALID: return "the module refused a value of the key";
    case CKR_SESSION_EXISTS: return "the token has open sessions";
    default: return NULL;
  }
}

/* One line for a refused call: what was asked, why. */
static int p11_fail(const char *what, CK_RV rv) {
  const char *t = rv_text(rv);
  if (t) cli_err("p11: %s: %s", what, t);
  else cli_err("p11: %s: the module answered 0x%lx", what, (unsigned long)rv);
  return CLI_EXIT_FAIL;
}

static int p11_open(p11 *m, const char *given) {
  char path[PATH_MAX];
  int rc = module_path(given, path, sizeof path);
  if (rc) return rc;
  m->dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!m->dl) {
    cli_err("p11: cannot load the module %s: %s", path, dlerror());
    return CLI_EXIT_FAIL;
  }
  CK_RV (*gfl)(CK_FUNCTION_LIST **) = NULL;
  *(void **)&gfl = dlsym(m->dl, "C_GetFunctionList"); /* POSIX's way, no ISO C cast */
  if (!gfl || gfl(&m->f) != CKR_OK || !m->f) {
    cli_err("p11: %s is not a PKCS#11 module (no C_GetFunctionList)", path);
    return CLI_EXIT_FAIL;
  }
  CK_C_INITIALIZE_ARGS ia;
  memset(&ia, 0, sizeof ia);
  ia.flags = CKF_OS_LOCKING_OK;
  CK_RV rv = m->f->C_Initialize(&ia);
  if (rv != CKR_OK) return p11_fail("C_Initialize", rv);
  m->inited = 1;
  return 0;
}

static void p11_close(p11 *m) {
  if (m->open) m->f->C_CloseSession(m->s);
  if (m->inited) m->f->C_Finalize(NULL);
  if (m->dl) dlclose(m->dl);
  memset(m, 0, sizeof *m);
}

/* A blank-padded PKCS#11 field as a C string. */
static void unpad(const CK_UTF8CHAR *src, size_t n, char *out) {
  while (n && (src[n - 1] == ' ' || src[n - 1] == 0)) n--;
  memcpy(out, src, n);
  out[n] = 0;
}

/* The slots (with a token: present), malloc'ed in *ids. */
static int slot_list(p11 *m, CK_BBOOL present, CK_SLOT_ID **ids, CK_ULONG *n) {
  CK_RV rv = m->f->C_GetSlotList(present, NULL, n);
  *ids = rv == CKR_OK ? calloc(*n ? *n : 1, sizeof **ids) : NULL;
  if (rv == CKR_OK && !*ids) rv = CKR_HOST_MEMORY;
  if (rv == CKR_OK) rv = m->f->C_GetSlotList(present, *ids, n);
  if (rv == CKR_OK) return 0;
  free(*ids);
  *ids = NULL;
  return p11_fail("C_GetSlotList", rv);
}

/* The token: by label (or a pkcs11: URI's token=), else the only
 * initialised one. want_free: the slot of an uninitialised token. */
static int find_slot(p11 *m, const char *label, int want_free, CK_SLOT_ID *slot) {
  CK_ULONG n = 0;
  CK_SLOT_ID *ids = NULL;
  int rc = slot_list(m, CK_TRUE, &ids, &n);
  if (rc) return rc;
  int found = 0;
  for (CK_ULONG i = 0; i < n; i++) {
    CK_TOKEN_INFO ti;
    char lab[33];
    if (m->f->C_GetTokenInfo(ids[i], &ti) != CKR_OK) continue;
    unpad(ti.label, sizeof ti.label, lab);
    int init = (ti.flags & CKF_TOKEN_INITIALIZED) != 0;
    if (want_free ? !init : (init && (!label || !strcmp(lab, label)))) {
      if (!found) *slot = ids[i];
      found++;
      if (want_free) break;
    }
  }
  free(ids);
  if (found == 1 || (want_free && found)) return 0;
  if (want_free) cli_err("p11: the module offers no free slot for a new token");
  else if (label) cli_err("p11: no token labelled \"%s\" (gostx p11 list shows them)", label);
  else if (!found) cli_err("p11: no initialised token (make one with gostx p11 init --label L)");
  else cli_err("p11: %d tokens: name one with --token LABEL", found);
  return CLI_EXIT_USAGE;
}

/* "pkcs11:token=L;..." or a plain label: the label (malloc'ed), and the
 * URI's module-path= when there. Only the two attributes are read: the
 * objects are named by --label/--id. */
static char *token_label(const char *spec, char **module) {
  if (!spec) return NULL;
  if (strncmp(spec, "pkcs11:", 7)) return strdup(spec);
  char *label = NULL;
  for (const char *p = spec + 7; *p;) {
    size_t n = strcspn(p, ";?&");
    if (!strncmp(p, "token=", 6) && !label) label = strndup(p + 6, n - 6);
    if (!strncmp(p, "module-path=", 12) && module && !*module) *module = strndup(p + 12, n - 12);
    p += n + (p[n] != 0);
  }
  return label;
}

/* A PIN: from spec (pass:, env:, file:, fd:, stdin) or asked. */
static int read_pin(const char *opt, const char *spec, const char *prompt, int confirm,
                    uint8_t pin[CLI_PASS_MAX + 2], size_t *len) {
  return spec ? cli_read_pass_arg(opt, spec, pin, len) : cli_read_pass(NULL, prompt, confirm, pin, len);
}

/* An R/W session on slot, logged in as the user (pin_spec or a prompt). */
static int login(p11 *m, CK_SLOT_ID slot, const char *pin_spec) {
  CK_RV rv = m->f->C_OpenSession(slot, CKF_SERIAL_SESSION | CKF_RW_SESSION, NULL, NULL, &m->s);
  if (rv != CKR_OK) return p11_fail("C_OpenSession", rv);
  m->open = 1;
  uint8_t pin[CLI_PASS_MAX + 2];
  size_t len = 0;
  int rc = read_pin("-pin", pin_spec, "Enter the token's user PIN: ", 0, pin, &len);
  if (!rc) {
    rv = m->f->C_Login(m->s, CKU_USER, pin, len);
    if (rv != CKR_OK && rv != CKR_USER_ALREADY_LOGGED_IN) rc = p11_fail("C_Login", rv);
  }
  gostx_memzero(pin, sizeof pin);
  return rc;
}

/* ---- options ---- */
enum {
  O_MODULE = 1, O_TOKEN, O_LABEL, O_ID, O_CURVE, O_PIN, O_SOPIN, O_KEY, O_CERT, O_PASSIN,
  O_PUBOUT, O_HELP
};
static const cli_opt opts[] = {
    {"module", 0, CLI_PATH, O_MODULE}, {"token", 0, CLI_ARG, O_TOKEN},
    {"label", 0, CLI_ARG, O_LABEL},    {"id", 0, CLI_ARG, O_ID},
    {"curve", 'c', CLI_ARG, O_CURVE},  {"pin", 0, CLI_ARG, O_PIN},
    {"sopin", 0, CLI_ARG, O_SOPIN},    {"key", 'k', CLI_PATH, O_KEY},
    {"cert", 0, CLI_PATH, O_CERT},     {"passin", 0, CLI_ARG, O_PASSIN},
    {"pubout", 0, CLI_PATH, O_PUBOUT}, {"help", 'h', CLI_NOARG, O_HELP},
    {NULL, 0, 0, 0},
};

typedef struct args {
  const char *action, *module, *token, *label, *id, *curve, *pin, *sopin, *key, *cert, *passin,
      *pubout;
} args;

static void help(void) {
  printf(
      "Usage: gostx p11 init --label L [-sopin ARG] [-pin ARG]\n"
      "       gostx p11 list [-pin ARG]\n"
      "       gostx p11 keygen --label L --id HEX -c CURVE [-pubout PUB.pem] [-pin ARG]\n"
      "       gostx p11 import -k KEY|PFX [-cert CERT] [-passin ARG] --label L [--id HEX]\n"
      "                        [-pin ARG]\n"
      "  every action: [--module PATH] [--token LABEL|pkcs11:token=LABEL]\n\n"
      "gostx's own PKCS#11 token (libgostx-pkcs11.so), its tokens in $GOSTX_PKCS11_DIR\n"
      "(docs/PKCS11.md). init makes a new token in the free slot and sets its SO PIN\n"
      "(-sopin) and user PIN (-pin). list shows the slots, the tokens and their\n"
      "objects (the private ones too when -pin is given). keygen makes a GOST R\n"
      "34.10-2012 key pair on the token (CURVE: 256A..256D, 512A..512C); its private key\n"
      "is sensitive and never leaves the token; -pubout writes the public key (PEM).\n"
      "import writes a key file (PEM/DER, -passin for an encrypted one) or a PFX, and\n"
      "the certificate (-cert, or the PFX's own), as token objects with one CKA_ID; the\n"
      "private key is sensitive and not extractable. The certificate must be the key's:\n"
      "a mismatch is refused and nothing is written. Without --id the ID is the first\n"
      "8 bytes of Streebog-256 of the public key's CKA_VALUE.\n"
      "The module: --module, else $GOSTX_PKCS11_MODULE, else the one beside gostx, else\n"
      "the installed one. --token picks a token by label when there are several.\n\n"
      "Exit 1: a wrong or locked PIN, a key that is not its certificate's, the module\n"
      "refused; exit 2: usage, an unreadable key or certificate.\n\n"
      "PINs and passwords: pass:PASSWORD or env:VAR (the whole value), file:PATH,\n"
      "fd:N or stdin (the first line); without the option the PIN is asked on the\n"
      "terminal.\n" CLI_ARGV_SECRET_NOTE("pass:PASSWORD", "file:, fd: and env:"));
}

static int parse_args(int argc, char **argv, args *a) {
  cli_parser p;
  int id;
  memset(a, 0, sizeof *a);
  cli_parser_init_openssl(&p, "p11", argc, argv, opts);
  while ((id = cli_next(&p, opts)) != CLI_END) {
    switch (id) {
      case O_MODULE: a->module = p.arg; break;
      case O_TOKEN: a->token = p.arg; break;
      case O_LABEL: a->label = p.arg; break;
      case O_ID: a->id = p.arg; break;
      case O_CURVE: a->curve = p.arg; break;
      case O_PIN: a->pin = p.arg; break;
      case O_SOPIN: a->sopin = p.arg; break;
      case O_KEY: a->key = p.arg; break;
      case O_CERT: a->cert = p.arg; break;
      case O_PASSIN: a->passin = p.arg; break;
      case O_PUBOUT: a->pubout = p.arg; break;
      case O_HELP: help(); return -1;
      case CLI_POS:
        if (a->action) return cli_usage("p11: unexpected argument '%s'", p.pos);
        a->action = p.pos;
        break;
      default: return CLI_EXIT_USAGE;
    }
  }
  if (!a->action) return cli_usage("p11: missing the action: init, list, keygen or import");
  const char *act = a->action;
  if (strcmp(act, "init") && strcmp(act, "list") && strcmp(act, "keygen") && strcmp(act, "import"))
    return cli_usage("p11: unknown action '%s' (init, list, keygen, import)", act);
  if (!strcmp(act, "init") && !a->label) return cli_usage("p11 init: missing --label L");
  if (!strcmp(act, "keygen") && (!a->label || !a->id || !a->curve))
    return cli_usage("p11 keygen: --label, --id and -c CURVE are needed");
  if (!strcmp(act, "import") && (!a->key || !a->label))
    return cli_usage("p11 import: -k KEY and --label are needed");
  return 0;
}

/* ---- init ---- */
static int do_init(p11 *m, const args *a) {
  CK_SLOT_ID slot;
  int rc = find_slot(m, NULL, 1, &slot);
  if (rc) return rc;
  uint8_t so[CLI_PASS_MAX + 2], pin[CLI_PASS_MAX + 2];
  size_t so_len = 0, pin_len = 0;
  rc = read_pin("-sopin", a->sopin, "Enter the new SO PIN: ", 1, so, &so_len);
  if (!rc) rc = read_pin("-pin", a->pin, "Enter the new user PIN: ", 1, pin, &pin_len);
  CK_UTF8CHAR lab[32];
  size_t ll = strlen(a->label);
  if (!rc && ll > sizeof lab) rc = cli_usage("p11 init: the label is longer than 32 bytes");
  memset(lab, ' ', sizeof lab);
  if (!rc) memcpy(lab, a->label, ll);
  CK_RV rv = CKR_OK;
  const char *what = "C_InitToken";
  if (!rc) rv = m->f->C_InitToken(slot, so, so_len, lab);
  if (!rc && rv == CKR_OK) {
    what = "C_OpenSession";
    rv = m->f->C_OpenSession(slot, CKF_SERIAL_SESSION | CKF_RW_SESSION, NULL, NULL, &m->s);
    m->open = rv == CKR_OK;
  }
  if (!rc && rv == CKR_OK) what = "C_Login (SO)", rv = m->f->C_Login(m->s, CKU_SO, so, so_len);
  if (!rc && rv == CKR_OK) what = "C_InitPIN", rv = m->f->C_InitPIN(m->s, pin, pin_len);
  if (!rc && rv == CKR_OK) m->f->C_Logout(m->s);
  gostx_memzero(so, sizeof so);
  gostx_memzero(pin, sizeof pin);
  if (rc) return rc;
  if (rv != CKR_OK) return p11_fail(what, rv);
  CK_TOKEN_INFO ti;
  char serial[17] = "";
  if (m->f->C_GetTokenInfo(slot, &ti) == CKR_OK) unpad(ti.serialNumber, sizeof ti.serialNumber, serial);
  printf("token \"%s\" (serial %s) initialised in slot %lu\n", a->label, serial, (unsigned long)slot);
  return 0;
}

/* ---- list ---- */
static const char *class_name(CK_ULONG c) {
  switch (c) {
    case CKO_DATA: return "data";
    case CKO_CERTIFICATE: return "certificate";
    case CKO_PUBLIC_KEY: return "public key";
    case CKO_PRIVATE_KEY: return "private key";
    case CKO_SECRET_KEY: return "secret key";
    default: return "other";
  }
}

static const char *key_type_name(CK_ULONG t) {
  switch (t) {
    case CKK_GOSTR3410: return "GOST R 34.10-2012 256";
    case CKK_GOSTR3410_512: return "GOST R 34.10-2012 512";
    case CKK_KUZNYECHIK: return "Kuznyechik";
    case CKK_MAGMA: return "Magma";
    case CKK_KUZNYECHIK_TWIN_KEY: return "Kuznyechik twin";
    case CKK_MAGMA_TWIN_KEY: return "Magma twin";
    case CKK_GENERIC_SECRET: return "generic secret";
    default: return "other";
  }
}

static void list_object(p11 *m, CK_OBJECT_HANDLE o) {
  CK_ULONG cls = ~0UL, kt = ~0UL;
  CK_BBOOL priv = 0, sens = 0, ext = 0, local = 0;
  char label[256];
  uint8_t id[128];
  CK_ATTRIBUTE t[] = {{CKA_CLASS, &cls, sizeof cls},     {CKA_KEY_TYPE, &kt, sizeof kt},
                      {CKA_LABEL, label, sizeof label - 1}, {CKA_ID, id, sizeof id},
                      {CKA_PRIVATE, &priv, 1},            {CKA_SENSITIVE, &sens, 1},
                      {CKA_EXTRACTABLE, &ext, 1},          {CKA_LOCAL, &local, 1}};
  m->f->C_GetAttributeValue(m->s, o, t, sizeof t / sizeof t[0]); /* absent ones: unavailable */
  label[t[2].ulValueLen == CK_UNAVAILABLE_INFORMATION ? 0 : t[2].ulValueLen] = 0;
  char hex[2 * sizeof id + 1] = "";
  if (t[3].ulValueLen != CK_UNAVAILABLE_INFORMATION) cli_hex_str(id, t[3].ulValueLen, hex);
  int is_key = cls == CKO_PUBLIC_KEY || cls == CKO_PRIVATE_KEY || cls == CKO_SECRET_KEY;
  printf("    %s", class_name(cls));
  if (is_key) printf(", %s", key_type_name(kt));
  printf(": label \"%s\", id %s", label, hex[0] ? hex : "(none)");
  if (priv) printf(", private");
  if (cls == CKO_PRIVATE_KEY || cls == CKO_SECRET_KEY) {
    if (sens) printf(", sensitive");
    printf(ext ? ", extractable" : ", not extractable");
  }
  if (is_key && local) printf(", made on the token");
  printf("\n");
}

static int do_list(p11 *m, const args *a) {
  CK_ULONG n = 0;
  CK_SLOT_ID *ids = NULL;
  int rc = slot_list(m, CK_FALSE, &ids, &n);
  if (rc) return rc;
  CK_RV rv;
  for (CK_ULONG i = 0; i < n && !rc; i++) {
    CK_TOKEN_INFO ti;
    char lab[33], serial[17];
    printf("slot %lu: ", (unsigned long)ids[i]);
    if (m->f->C_GetTokenInfo(ids[i], &ti) != CKR_OK) {
      printf("no token\n");
      continue;
    }
    if (!(ti.flags & CKF_TOKEN_INITIALIZED)) {
      printf("free (gostx p11 init makes a token here)\n");
      continue;
    }
    unpad(ti.label, sizeof ti.label, lab);
    unpad(ti.serialNumber, sizeof ti.serialNumber, serial);
    printf("token \"%s\", serial %s%s%s\n", lab, serial,
           ti.flags & CKF_USER_PIN_INITIALIZED ? "" : ", no user PIN yet",
           ti.flags & CKF_USER_PIN_LOCKED ? ", user PIN locked" : "");
    if (a->token) {
      char *want = token_label(a->token, NULL);
      int skip = want && strcmp(want, lab);
      free(want);
      if (skip) continue;
    }
    if (a->pin) {
      rc = login(m, ids[i], a->pin);
    } else {
      rv = m->f->C_OpenSession(ids[i], CKF_SERIAL_SESSION, NULL, NULL, &m->s);
      if (rv != CKR_OK) rc = p11_fail("C_OpenSession", rv);
      m->open = rv == CKR_OK;
    }
    if (!rc && (rv = m->f->C_FindObjectsInit(m->s, NULL, 0)) != CKR_OK)
      rc = p11_fail("C_FindObjectsInit", rv);
    CK_OBJECT_HANDLE h[16];
    CK_ULONG got = 0, total = 0;
    while (!rc && m->f->C_FindObjects(m->s, h, 16, &got) == CKR_OK && got) {
      for (CK_ULONG j = 0; j < got; j++) list_object(m, h[j]);
      total += got;
    }
    if (!rc) {
      m->f->C_FindObjectsFinal(m->s);
      if (!total) printf("    no objects%s\n", a->pin ? "" : " (public ones; -pin shows the private)");
    }
    if (m->open) m->f->C_CloseSession(m->s);
    m->open = 0;
  }
  free(ids);
  return rc;
}

/* ---- objects ---- */
static CK_RV curve_der(const gostx_gost3410_key *k, uint8_t *der, size_t cap, CK_ULONG *len) {
  /* the OID the key names, else its curve's */
  const char *oid = k->oid[0] ? k->oid : gostx_gost3410_curve_oid(k->curve);
  uint8_t body[32];
  size_t n = 0;
  unsigned long first = 0, v;
  int arc = 0;
  for (const char *p = oid; *p; arc++) {
    char *end;
    v = strtoul(p, &end, 10);
    if (end == p) return CKR_GENERAL_ERROR;
    if (arc == 0) first = v;
    else {
      if (arc == 1) v += 40 * first;
      uint8_t tmp[8];
      int t = 0;
      do tmp[t++] = v & 0x7f, v >>= 7;
      while (v && t < 8);
      while (t--) {
        if (n >= sizeof body) return CKR_GENERAL_ERROR;
        body[n++] = tmp[t] | (t ? 0x80 : 0);
      }
    }
    p = *end == '.' ? end + 1 : end;
  }
  if (n + 2 > cap) return CKR_GENERAL_ERROR; /* n <= 32: a 2-byte header */
  size_t h = gostx_der_header(der, 0x06, n);
  memcpy(der + h, body, n);
  *len = h + n;
  return CKR_OK;
}

static void rev(uint8_t *out, const uint8_t *in, size_t n) {
  for (size_t i = 0; i < n; i++) out[i] = in[n - 1 - i];
}

/* The public key's CKA_VALUE: x || y, each little-endian. */
static void pub_value(const gostx_gost3410_key *k, uint8_t out[128]) {
  rev(out, k->q, k->len);
  rev(out + k->len, k->q + k->len, k->len);
}

/* The ID: --id, else the first 8 bytes of Streebog-256 over CKA_VALUE. */
static int object_id(const char *hex, const gostx_gost3410_key *k, uint8_t **id, size_t *len) {
  if (hex) return cli_hex("--id", hex, id, len);
  uint8_t v[128], h[32];
  pub_value(k, v);
  if (!(*id = malloc(8)) || gostx_streebog(32, v, 2 * k->len, h) != 0) {
    free(*id);
    cli_err("p11: cannot make the key's ID");
    return CLI_EXIT_FAIL;
  }
  memcpy(*id, h, 8);
  *len = 8;
  return 0;
}

/* DER INTEGER from its content (CKA_SERIAL_NUMBER is the whole element). */
static size_t der_integer(const uint8_t *c, size_t n, uint8_t *out) {
  size_t h = gostx_der_header(out, 0x02, n);
  memcpy(out + h, c, n);
  return h + n;
}

int p11_store_key(const char *module, const char *token, const char *pin_spec, const char *label,
                  const char *id_hex, const gostx_gost3410_key *k, const uint8_t *cert,
                  size_t cert_len) {
  gostx_x509_cert x;
  if (cert) {
    if (gostx_x509_parse(cert, cert_len, &x, NULL)) {
      cli_err("p11: the certificate cannot be read");
      return CLI_EXIT_USAGE;
    }
    /* the gate: only the certificate's own key is written */
    if (x.curve != k->curve || x.pub_len != 2 * k->len || memcmp(x.pub, k->q, x.pub_len)) {
      cli_err("p11: the certificate's public key is not the key's: nothing written");
      return CLI_EXIT_FAIL;
    }
    if (x.serial_len > 0xff) {
      cli_err("p11: the certificate's serial number is too long");
      return CLI_EXIT_USAGE;
    }
  }
  if (!gostx_gost3410_key_is_private(k) || !k->has_private) {
    cli_err("p11: the key has no private part here to write");
    return CLI_EXIT_USAGE;
  }
  uint8_t *id = NULL;
  size_t id_len = 0;
  int rc = object_id(id_hex, k, &id, &id_len);
  char *uri_module = NULL, *tl = rc ? NULL : token_label(token, &uri_module);
  p11 m = {0};
  CK_SLOT_ID slot;
  if (!rc) rc = p11_open(&m, module ? module : uri_module);
  if (!rc) rc = find_slot(&m, tl, 0, &slot);
  if (!rc) rc = login(&m, slot, pin_spec);
  uint8_t params[40], d[64], q[128], serial[260];
  CK_ULONG pl = 0;
  CK_RV rv = curve_der(k, params, sizeof params, &pl);
  rev(d, k->d, k->len);
  pub_value(k, q);
  CK_OBJECT_CLASS cpriv = CKO_PRIVATE_KEY, cpub = CKO_PUBLIC_KEY, ccert = CKO_CERTIFICATE;
  CK_KEY_TYPE kt = k->len == 64 ? CKK_GOSTR3410_512 : CKK_GOSTR3410;
  CK_CERTIFICATE_TYPE ct = CKC_X_509;
  CK_BBOOL yes = CK_TRUE, no = CK_FALSE;
  size_t ll = strlen(label);
  CK_ATTRIBUTE tpriv[] = {
      {CKA_CLASS, &cpriv, sizeof cpriv}, {CKA_KEY_TYPE, &kt, sizeof kt},
      {CKA_TOKEN, &yes, 1},              {CKA_PRIVATE, &yes, 1},
      {CKA_SENSITIVE, &yes, 1},          {CKA_EXTRACTABLE, &no, 1},
      {CKA_SIGN, &yes, 1},               {CKA_DERIVE, &yes, 1},
      {CKA_LABEL, (void *)label, ll},    {CKA_ID, id, id_len},
      {CKA_GOSTR3410_PARAMS, params, pl}, {CKA_VALUE, d, k->len}};
  CK_ATTRIBUTE tpub[] = {
      {CKA_CLASS, &cpub, sizeof cpub},   {CKA_KEY_TYPE, &kt, sizeof kt},
      {CKA_TOKEN, &yes, 1},              {CKA_VERIFY, &yes, 1},
      {CKA_LABEL, (void *)label, ll},    {CKA_ID, id, id_len},
      {CKA_GOSTR3410_PARAMS, params, pl}, {CKA_VALUE, q, 2 * k->len}};
  CK_OBJECT_HANDLE hpriv = 0, hpub = 0, hcert = 0;
  const char *what = "C_CreateObject (private key)";
  if (!rc && rv == CKR_OK) rv = m.f->C_CreateObject(m.s, tpriv, sizeof tpriv / sizeof tpriv[0], &hpriv);
  if (!rc && rv == CKR_OK) {
    what = "C_CreateObject (public key)";
    rv = m.f->C_CreateObject(m.s, tpub, sizeof tpub / sizeof tpub[0], &hpub);
  }
  if (!rc && rv == CKR_OK && cert) {
    CK_ATTRIBUTE tc[] = {
        {CKA_CLASS, &ccert, sizeof ccert},       {CKA_CERTIFICATE_TYPE, &ct, sizeof ct},
        {CKA_TOKEN, &yes, 1},                    {CKA_LABEL, (void *)label, ll},
        {CKA_ID, id, id_len},                    {CKA_SUBJECT, (void *)x.subject, x.subject_len},
        {CKA_ISSUER, (void *)x.issuer, x.issuer_len},
        {CKA_SERIAL_NUMBER, serial, der_integer(x.serial, x.serial_len, serial)},
        {CKA_VALUE, (void *)cert, cert_len}};
    what = "C_CreateObject (certificate)";
    rv = m.f->C_CreateObject(m.s, tc, sizeof tc / sizeof tc[0], &hcert);
  }
  gostx_memzero(d, sizeof d);
  if (!rc && rv != CKR_OK) {
    /* all or nothing: a half-written key is taken back */
    if (hpub) m.f->C_DestroyObject(m.s, hpub);
    if (hpriv) m.f->C_DestroyObject(m.s, hpriv);
    rc = p11_fail(what, rv);
  }
  if (!rc) {
    char hex[2 * 64 + 1] = "";
    if (id_len <= 64) cli_hex_str(id, id_len, hex);
    fprintf(stderr, "p11: wrote the private key (not extractable), the public key%s: label \"%s\", "
                    "id %s\n", cert ? " and the certificate" : "", label, hex);
  }
  p11_close(&m);
  free(uri_module);
  free(tl);
  free(id);
  return rc;
}

/* ---- keygen ---- */
static int do_keygen(p11 *m, const args *a) {
  int id = gostx_gost3410_curve_by_short_name(a->curve);
  if (id < 0) id = gostx_gost3410_curve_by_name(a->curve);
  if (id < 0) return cli_usage("p11 keygen: unknown curve '%s' (256A..256D, 512A..512C)", a->curve);
  gostx_gost3410_key k;
  memset(&k, 0, sizeof k);
  k.curve = (gostx_gost3410_curve)id;
  k.len = gostx_gost3410_size(k.curve);
  uint8_t *oid_id = NULL;
  size_t oid_len = 0;
  int rc = cli_hex("--id", a->id, &oid_id, &oid_len);
  char *tl = rc ? NULL : token_label(a->token, NULL);
  CK_SLOT_ID slot;
  if (!rc) rc = find_slot(m, tl, 0, &slot);
  if (!rc) rc = login(m, slot, a->pin);
  uint8_t params[40];
  CK_ULONG pl = 0;
  CK_RV rv = curve_der(&k, params, sizeof params, &pl);
  CK_BBOOL yes = CK_TRUE, no = CK_FALSE;
  size_t ll = strlen(a->label);
  CK_ATTRIBUTE tpub[] = {{CKA_TOKEN, &yes, 1},
                         {CKA_VERIFY, &yes, 1},
                         {CKA_LABEL, (void *)a->label, ll},
                         {CKA_ID, oid_id, oid_len},
                         {CKA_GOSTR3410_PARAMS, params, pl}};
  CK_ATTRIBUTE tpriv[] = {{CKA_TOKEN, &yes, 1},     {CKA_PRIVATE, &yes, 1},
                          {CKA_SENSITIVE, &yes, 1}, {CKA_EXTRACTABLE, &no, 1},
                          {CKA_SIGN, &yes, 1},      {CKA_DERIVE, &yes, 1},
                          {CKA_LABEL, (void *)a->label, ll},
                          {CKA_ID, oid_id, oid_len}, {CKA_GOSTR3410_PARAMS, params, pl}};
  CK_MECHANISM mech = {k.len == 64 ? CKM_GOSTR3410_512_KEY_PAIR_GEN : CKM_GOSTR3410_KEY_PAIR_GEN,
                       NULL, 0};
  CK_OBJECT_HANDLE hpub = 0, hpriv = 0;
  if (!rc && rv == CKR_OK)
    rv = m->f->C_GenerateKeyPair(m->s, &mech, tpub, sizeof tpub / sizeof tpub[0], tpriv,
                                 sizeof tpriv / sizeof tpriv[0], &hpub, &hpriv);
  if (!rc && rv != CKR_OK) rc = p11_fail("C_GenerateKeyPair", rv);
  uint8_t q[128], qbe[128];
  CK_ATTRIBUTE qv = {CKA_VALUE, q, sizeof q};
  if (!rc && a->pubout) {
    rv = m->f->C_GetAttributeValue(m->s, hpub, &qv, 1);
    if (rv != CKR_OK || qv.ulValueLen != 2 * k.len) rc = p11_fail("reading the public key", rv);
  }
  if (!rc && a->pubout) {
    rev(qbe, q, k.len);
    rev(qbe + k.len, q + k.len, k.len);
    char pem[1024];
    size_t n = 0;
    if (gostx_gost3410_key_set_public(&k, k.curve, qbe, 2 * k.len, NULL) ||
        gostx_gost3410_key_write(&k, GOSTX_GOST3410_KEY_PUBLIC, GOSTX_GOST3410_PEM, NULL, pem,
                                 sizeof pem, &n)) {
      cli_err("p11 keygen: the token's public key cannot be written");
      rc = CLI_EXIT_FAIL;
    }
    if (!rc) rc = cli_write_file(a->pubout, pem, n, 0);
  }
  if (!rc)
    fprintf(stderr, "p11 keygen: a %s key pair \"%s\" (id %s) made on the token; its private key "
                    "never leaves it\n", gostx_gost3410_curve_short_name(k.curve), a->label, a->id);
  free(tl);
  free(oid_id);
  return rc;
}

/* ---- import ---- */
static int do_import(const args *a) {
  gostx_gost3410_key k;
  memset(&k, 0, sizeof k);
  uint8_t *certs[8] = {0}, *cert = NULL;
  size_t lens[8] = {0}, n = 0, cert_len = 0;
  int rc;
  if (cli_pfx_is(a->key)) {
    cli_pfx_certs pc = {certs, lens, 8, &n};
    rc = cli_pfx_load(a->key, "-passin", a->passin, NULL, 0, &k, &pc);
    if (!rc && n) cert = certs[0], cert_len = lens[0];
  } else {
    rc = cli_load_key_pass(a->key, &k, "-passin", a->passin);
  }
  uint8_t *cbuf = NULL;
  size_t clen = 0;
  if (!rc && a->cert) {
    cli_cert_list l = {0};
    rc = cli_load_certs(a->cert, &l);
    if (!rc && l.n != 1) rc = cli_usage("p11 import: %s: one certificate expected, %zu found", a->cert, l.n);
    if (!rc && !(cbuf = malloc(l.c[0].der_len))) rc = CLI_EXIT_FAIL;
    if (!rc) memcpy(cbuf, l.c[0].der, l.c[0].der_len), clen = l.c[0].der_len, cert = cbuf, cert_len = clen;
    cli_cert_list_free(&l);
  }
  if (!rc) rc = p11_store_key(a->module, a->token, a->pin, a->label, a->id, &k, cert, cert_len);
  gostx_gost3410_key_clear(&k);
  for (size_t i = 0; i < n; i++) free(certs[i]);
  free(cbuf);
  return rc;
}

int cmd_p11(int argc, char **argv) {
  args a;
  int rc = parse_args(argc, argv, &a);
  if (rc) return rc < 0 ? CLI_EXIT_OK : rc;
  if (!strcmp(a.action, "import")) return do_import(&a);
  p11 m = {0};
  rc = p11_open(&m, a.module);
  if (!rc) {
    if (!strcmp(a.action, "init")) rc = do_init(&m, &a);
    else if (!strcmp(a.action, "list")) rc = do_list(&m, &a);
    else rc = do_keygen(&m, &a);
  }
  p11_close(&m);
  return rc;
}
