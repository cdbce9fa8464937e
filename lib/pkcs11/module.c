/* lib/pkcs11: modules and tokens (include/gostx/pkcs11.h). Each module is
 * dlopen'ed and initialised once per process; a URI's path attributes pick
 * one token of it. The keys on the tokens are key.c's. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asn1/der.h"
#include "gostx/x509.h"
#include "p11.h"
#include "pkcs11/cryptoki.h"

/* ---- modules: one per path, for the life of the process ---- */


static pthread_mutex_t modules_lock = PTHREAD_MUTEX_INITIALIZER;
static p11_module *modules;
static int atexit_set;

void gostx_p11_finalize(void) {
  pthread_mutex_lock(&modules_lock);
  while (modules) {
    p11_module *m = modules;
    modules = m->next;
    if (m->finalize) m->f->C_Finalize(NULL);
    dlclose(m->dl);
    free(m);
  }
  pthread_mutex_unlock(&modules_lock);
}

/* Return values named in messages (the common ones; others in hex). */
static const char *rv_name(CK_RV rv) {
  switch (rv) {
#define N(x) case x: return #x;
    N(CKR_OK) N(CKR_HOST_MEMORY) N(CKR_SLOT_ID_INVALID) N(CKR_GENERAL_ERROR)
    N(CKR_FUNCTION_FAILED) N(CKR_ARGUMENTS_BAD) N(CKR_CANT_LOCK) N(CKR_ATTRIBUTE_SENSITIVE)
    N(CKR_ATTRIBUTE_TYPE_INVALID) N(CKR_ATTRIBUTE_VALUE_INVALID) N(CKR_DATA_LEN_RANGE)
    N(CKR_DEVICE_ERROR) N(CKR_DEVICE_MEMORY) N(CKR_DEVICE_REMOVED) N(CKR_FUNCTION_NOT_SUPPORTED)
    N(CKR_KEY_HANDLE_INVALID) N(CKR_KEY_TYPE_INCONSISTENT) N(CKR_KEY_FUNCTION_NOT_PERMITTED)
    N(CKR_MECHANISM_INVALID) N(CKR_MECHANISM_PARAM_INVALID) N(CKR_OBJECT_HANDLE_INVALID)
    N(CKR_OPERATION_ACTIVE) N(CKR_PIN_INCORRECT) N(CKR_PIN_INVALID) N(CKR_PIN_LEN_RANGE)
    N(CKR_PIN_EXPIRED) N(CKR_PIN_LOCKED) N(CKR_SESSION_CLOSED) N(CKR_SESSION_COUNT)
    N(CKR_SESSION_HANDLE_INVALID) N(CKR_TEMPLATE_INCOMPLETE) N(CKR_TEMPLATE_INCONSISTENT)
    N(CKR_TOKEN_NOT_PRESENT) N(CKR_TOKEN_NOT_RECOGNIZED) N(CKR_USER_NOT_LOGGED_IN)
    N(CKR_USER_PIN_NOT_INITIALIZED) N(CKR_BUFFER_TOO_SMALL) N(CKR_CRYPTOKI_NOT_INITIALIZED)
    N(CKR_USER_ANOTHER_ALREADY_LOGGED_IN) N(CKR_PUBLIC_KEY_INVALID)
#undef N
  default: {
    static _Thread_local char hex[24];
    snprintf(hex, sizeof hex, "CKR 0x%lx", rv);
    return hex;
  }
  }
}

/* The token went away (unplugged, its storage removed, the module lost it). */
int gostx__p11_gone(CK_RV rv) {
  return rv == CKR_DEVICE_REMOVED || rv == CKR_TOKEN_NOT_PRESENT ||
         rv == CKR_SESSION_HANDLE_INVALID || rv == CKR_SESSION_CLOSED;
}

/* A failed call named: the token gone, or the return value. */
int gostx__p11_ck_fail(CK_RV rv, const char *call, const char *token) {
  if (gostx__p11_gone(rv))
    return gostx__p11_fail(GOSTX_EIO, GOSTX_P11_REMOVED,
                           "PKCS#11 token '%s' was removed or is no longer there (%s: %s)", token,
                           call, rv_name(rv));
  return gostx__p11_fail(GOSTX_EIO, GOSTX_P11_TOKEN_ERROR, "PKCS#11 token '%s': %s failed: %s",
                         token, call, rv_name(rv));
}

/* Where a module-name is looked for (RFC 7512 2.4: the system's places). */
static const char *const MODULE_DIRS[] = {"/usr/lib/x86_64-linux-gnu/pkcs11",
                                          "/usr/lib/aarch64-linux-gnu/pkcs11", "/usr/lib64/pkcs11",
                                          "/usr/lib/pkcs11", "/usr/local/lib/pkcs11"};
/* p11-kit's proxy: every module p11-kit has registered, behind one. */
static const char *const PROXIES[] = {"p11-kit-proxy.so", "/usr/lib/x86_64-linux-gnu/p11-kit-proxy.so",
                                      "/usr/lib/aarch64-linux-gnu/p11-kit-proxy.so",
                                      "/usr/lib64/p11-kit-proxy.so"};

/* The file of the module p11-kit has registered under name (its .module
 * file's name, as `p11-kit list-modules` shows it), asked of libp11-kit
 * itself, so that p11-kit's rules for its configuration (system, package
 * and user folders; none of the user's for root) hold: into path, 0; -1
 * when p11-kit is not installed or has no such module. The modules are
 * only listed (dlopen'ed by p11-kit, not initialised), then let go. */
static int p11kit_module_file(const char *name, char *path, size_t cap) {
  typedef CK_FUNCTION_LIST **(*load_fn)(const char *, int);
  typedef char *(*text_fn)(CK_FUNCTION_LIST *);
  typedef void (*release_fn)(CK_FUNCTION_LIST **);
  void *kit = dlopen("libp11-kit.so.0", RTLD_NOW | RTLD_LOCAL);
  if (!kit) return -1;
  load_fn load = NULL;
  text_fn get_name = NULL, get_file = NULL;
  release_fn release = NULL;
  *(void **)&load = dlsym(kit, "p11_kit_modules_load"); /* POSIX's way, no ISO C cast */
  *(void **)&get_name = dlsym(kit, "p11_kit_module_get_name");
  *(void **)&get_file = dlsym(kit, "p11_kit_module_get_filename");
  *(void **)&release = dlsym(kit, "p11_kit_modules_release");
  int found = -1;
  /* 1: P11_KIT_MODULE_UNMANAGED, the modules as they are (no wrapper) */
  CK_FUNCTION_LIST **mods = load && get_name && get_file && release ? load(NULL, 1) : NULL;
  for (size_t i = 0; mods && mods[i] && found; i++) {
    char *n = get_name(mods[i]), *file = n && !strcmp(n, name) ? get_file(mods[i]) : NULL;
    if (file && file[0] == '/' && strlen(file) < cap) {
      memcpy(path, file, strlen(file) + 1);
      found = 0;
    }
    free(n);
    free(file);
  }
  if (mods) release(mods);
  dlclose(kit);
  return found;
}

/* The module the URI names: module-path, else module-name (p11-kit's
 * registered name, else a file in the usual places), else p11-kit's proxy.
 * *path: the one loaded. */
static void *module_open(const gostx_p11_uri *u, char *path, size_t cap) {
  void *dl = NULL;
  if (u->has & GOSTX_P11_HAS_MODULE_PATH) {
    snprintf(path, cap, "%s", u->module_path);
    if (!(dl = dlopen(path, RTLD_NOW | RTLD_LOCAL)))
      gostx__p11_fail(GOSTX_EIO, GOSTX_P11_MODULE, "cannot load PKCS#11 module %s: %s", path,
                      dlerror());
    return dl;
  }
  if (u->has & GOSTX_P11_HAS_MODULE_NAME) {
    if (strchr(u->module_name, '/') || !u->module_name[0]) {
      gostx__p11_fail(GOSTX_EFORMAT, GOSTX_P11_BAD_URI,
                      "module-name=%s: a name (no '/'), as RFC 7512 2.4 says; module-path takes "
                      "a path", u->module_name);
      return NULL;
    }
    if (!p11kit_module_file(u->module_name, path, cap)) {
      if (!(dl = dlopen(path, RTLD_NOW | RTLD_LOCAL)))
        gostx__p11_fail(GOSTX_EIO, GOSTX_P11_MODULE,
                        "cannot load PKCS#11 module %s (p11-kit's module '%s'): %s", path,
                        u->module_name, dlerror());
      return dl;
    }
    for (size_t i = 0; i < sizeof MODULE_DIRS / sizeof *MODULE_DIRS && !dl; i++)
      for (int lib = 0; lib < 2 && !dl; lib++) {
        snprintf(path, cap, "%s/%s%s.so", MODULE_DIRS[i], lib ? "lib" : "", u->module_name);
        dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
      }
    if (!dl) {
      snprintf(path, cap, "lib%s.so", u->module_name);
      dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    }
    if (!dl)
      gostx__p11_fail(GOSTX_EIO, GOSTX_P11_MODULE,
                      "no PKCS#11 module named '%s' (p11-kit has none registered by that "
                      "name; looked for %s.so and lib%s.so in /usr/lib/<arch>/pkcs11 and the "
                      "library path): give its file with module-path=/path/to/module.so",
                      u->module_name, u->module_name, u->module_name);
    return dl;
  }
  for (size_t i = 0; i < sizeof PROXIES / sizeof *PROXIES && !dl; i++) {
    snprintf(path, cap, "%s", PROXIES[i]);
    dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  }
  if (!dl)
    gostx__p11_fail(GOSTX_EIO, GOSTX_P11_MODULE,
                    "the PKCS#11 URI names no module and p11-kit's proxy (p11-kit-proxy.so) is "
                    "not installed: add ?module-path=/path/to/module.so to the URI");
  return dl;
}

/* The loaded and initialised module of the URI. */
p11_module *gostx__p11_module_get(const gostx_p11_uri *u) {
  char path[MODULE_PATH_MAX];
  void *dl = module_open(u, path, sizeof path);
  if (!dl) return NULL;
  pthread_mutex_lock(&modules_lock);
  p11_module *m = modules;
  while (m && strcmp(m->path, path)) m = m->next;
  if (m) { /* the first dlopen's reference is the one kept */
    dlclose(dl);
    pthread_mutex_unlock(&modules_lock);
    return m;
  }
  CK_C_GetFunctionList get = NULL;
  *(void **)&get = dlsym(dl, "C_GetFunctionList"); /* POSIX's way, no ISO C cast */
  CK_FUNCTION_LIST *f = NULL;
  CK_RV rv = get ? get(&f) : CKR_FUNCTION_NOT_SUPPORTED;
  if (rv != CKR_OK || !f) {
    gostx__p11_fail(GOSTX_EIO, GOSTX_P11_MODULE, "%s is not a PKCS#11 module (C_GetFunctionList: %s)",
                    path, get ? rv_name(rv) : "missing");
    goto fail;
  }
  CK_C_INITIALIZE_ARGS args;
  memset(&args, 0, sizeof args);
  args.flags = CKF_OS_LOCKING_OK;
  rv = f->C_Initialize(&args);
  if (rv != CKR_OK && rv != CKR_CRYPTOKI_ALREADY_INITIALIZED) {
    gostx__p11_fail(GOSTX_EIO, GOSTX_P11_MODULE, "PKCS#11 module %s: C_Initialize failed: %s",
                    path, rv_name(rv));
    goto fail;
  }
  if (!(m = calloc(1, sizeof *m))) {
    if (rv == CKR_OK) f->C_Finalize(NULL);
    gostx__p11_fail(GOSTX_ENOMEM, GOSTX_P11_MODULE, "out of memory");
    goto fail;
  }
  snprintf(m->path, sizeof m->path, "%s", path);
  m->dl = dl;
  m->f = f;
  m->finalize = rv == CKR_OK;
  m->next = modules;
  modules = m;
  if (!atexit_set) atexit_set = !atexit(gostx_p11_finalize);
  pthread_mutex_unlock(&modules_lock);
  return m;
fail:
  pthread_mutex_unlock(&modules_lock);
  dlclose(dl);
  return NULL;
}

/* ---- tokens ---- */

/* A blank-padded PKCS#11 field as text (trailing blanks dropped). */
static void field_text(const CK_UTF8CHAR *f, size_t n, char *out) {
  while (n && f[n - 1] == ' ') n--;
  memcpy(out, f, n);
  out[n] = 0;
}

/* Whether a URI value (present in has) matches a blank-padded field. */
static int field_match(unsigned has, unsigned bit, const char *want, const CK_UTF8CHAR *f,
                       size_t n) {
  char text[65];
  if (!(has & bit)) return 1;
  field_text(f, n, text);
  return !strcmp(text, want);
}

static int library_match(const gostx_p11_uri *u, const CK_INFO *info) {
  return field_match(u->has, GOSTX_P11_HAS_LIB_MANUFACTURER, u->lib_manufacturer,
                     info->manufacturerID, sizeof info->manufacturerID) &&
         field_match(u->has, GOSTX_P11_HAS_LIB_DESCRIPTION, u->lib_description,
                     info->libraryDescription, sizeof info->libraryDescription) &&
         (!(u->has & GOSTX_P11_HAS_LIB_VERSION) ||
          (info->libraryVersion.major == u->lib_version_major &&
           info->libraryVersion.minor == u->lib_version_minor));
}

static int slot_match(const gostx_p11_uri *u, CK_SLOT_ID id, const CK_SLOT_INFO *si) {
  return (!(u->has & GOSTX_P11_HAS_SLOT_ID) || u->slot_id == id) &&
         field_match(u->has, GOSTX_P11_HAS_SLOT_DESCRIPTION, u->slot_description,
                     si->slotDescription, sizeof si->slotDescription) &&
         field_match(u->has, GOSTX_P11_HAS_SLOT_MANUFACTURER, u->slot_manufacturer,
                     si->manufacturerID, sizeof si->manufacturerID);
}

static int token_match(const gostx_p11_uri *u, const CK_TOKEN_INFO *ti) {
  return field_match(u->has, GOSTX_P11_HAS_TOKEN, u->token, ti->label, sizeof ti->label) &&
         field_match(u->has, GOSTX_P11_HAS_MANUFACTURER, u->manufacturer, ti->manufacturerID,
                     sizeof ti->manufacturerID) &&
         field_match(u->has, GOSTX_P11_HAS_MODEL, u->model, ti->model, sizeof ti->model) &&
         field_match(u->has, GOSTX_P11_HAS_SERIAL, u->serial, ti->serialNumber,
                     sizeof ti->serialNumber);
}

/* The one slot whose token the URI names. */
int gostx__p11_token_find(p11_module *m, const gostx_p11_uri *u, CK_SLOT_ID *slot, char label[33]) {
  CK_FUNCTION_LIST *f = m->f;
  CK_INFO info;
  CK_RV rv = f->C_GetInfo(&info);
  if (rv != CKR_OK) return gostx__p11_ck_fail(rv, "C_GetInfo", m->path);
  if (!library_match(u, &info))
    return gostx__p11_fail(GOSTX_EINVAL, GOSTX_P11_NO_TOKEN,
                           "PKCS#11 module %s does not match the URI's library-* attributes",
                           m->path);
  CK_ULONG n = 0;
  rv = f->C_GetSlotList(CK_FALSE, NULL, &n);
  if (rv != CKR_OK) return gostx__p11_ck_fail(rv, "C_GetSlotList", m->path);
  n += 8; /* room for slots that appear between the two calls */
  CK_SLOT_ID *ids = calloc(n, sizeof *ids);
  if (!ids) return gostx__p11_fail(GOSTX_ENOMEM, GOSTX_P11_TOKEN_ERROR, "out of memory");
  rv = f->C_GetSlotList(CK_FALSE, ids, &n);
  if (rv != CKR_OK) {
    free(ids);
    return gostx__p11_ck_fail(rv, "C_GetSlotList", m->path);
  }
  size_t found = 0, empty = 0;
  char seen[200] = "";
  for (CK_ULONG i = 0; i < n; i++) {
    CK_SLOT_INFO si;
    CK_TOKEN_INFO ti;
    if (f->C_GetSlotInfo(ids[i], &si) != CKR_OK || !slot_match(u, ids[i], &si)) continue;
    if (!(si.flags & CKF_TOKEN_PRESENT) || f->C_GetTokenInfo(ids[i], &ti) != CKR_OK) {
      empty++;
      continue;
    }
    if (!(ti.flags & CKF_TOKEN_INITIALIZED)) continue; /* a blank token holds no key */
    char l[33];
    field_text(ti.label, sizeof ti.label, l);
    size_t at = strlen(seen);
    if (at + 40 < sizeof seen) snprintf(seen + at, sizeof seen - at, "%s'%s'", at ? ", " : "", l);
    if (!token_match(u, &ti)) continue;
    if (found++ == 0) {
      *slot = ids[i];
      memcpy(label, l, sizeof l);
    }
  }
  free(ids);
  if (found == 1) return 0;
  if (found > 1)
    return gostx__p11_fail(GOSTX_EINVAL, GOSTX_P11_NO_TOKEN,
                           "%zu tokens of %s match the URI (%s): name one with token=", found,
                           m->path, seen);
  if (empty)
    return gostx__p11_fail(GOSTX_EIO, GOSTX_P11_REMOVED,
                           "no PKCS#11 token matches the URI%s%s, and %zu slot%s of module %s %s "
                           "no token present (removed, or not inserted)%s%s",
                           (u->has & GOSTX_P11_HAS_TOKEN) ? " token=" : "",
                           (u->has & GOSTX_P11_HAS_TOKEN) ? u->token : "", empty,
                           empty == 1 ? "" : "s", m->path, empty == 1 ? "has" : "have",
                           seen[0] ? "; its other tokens: " : "", seen);
  return gostx__p11_fail(GOSTX_EINVAL, GOSTX_P11_NO_TOKEN,
                         "no PKCS#11 token matches the URI%s%s%s (module %s%s%s)",
                         (u->has & GOSTX_P11_HAS_TOKEN) ? " token=" : "",
                         (u->has & GOSTX_P11_HAS_TOKEN) ? u->token : "", "", m->path,
                         seen[0] ? "; its tokens: " : ", which has no token", seen);
}
