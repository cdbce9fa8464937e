/* The token's files (p11.h): one folder per token under the base folder,
 * holding
 *   token.meta      label, PIN counters, the master key wrapped under the
 *                   SO PIN and under the user PIN
 *   o-<hex>.obj     one object each; private ones encrypted under the
 *                   master key
 *   .lock           flock'ed: shared to read a consistent set, exclusive
 *                   to change anything
 * Every file is written whole into a temporary file, fsync'ed, renamed
 * over the old one and the folder fsync'ed, so a crash leaves either the
 * old or the new file, never a part. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "p11.h"

/* PBKDF2-HMAC-Streebog-512 iterations for a new token: about 0.2 s per
 * C_Login on a 2020s x86-64 core (docs/PKCS11.md). Stored per token, so
 * it can grow. GOSTX_PKCS11_KDF_ITER (1000 .. 10^7) sets it for tokens
 * made while it is set: the tests' fast tokens. */
#define P11_PBKDF2_ITER 100000u

static uint32_t new_token_iterations(void) {
  const char *e = getenv("GOSTX_PKCS11_KDF_ITER");
  char *end;
  unsigned long v = e && *e ? strtoul(e, &end, 10) : 0;
  return e && *e && *end == 0 && v >= 1000 && v <= 10000000 ? (uint32_t)v : P11_PBKDF2_ITER;
}

#define META_MAGIC "GXP11TK1"
#define OBJ_MAGIC "GXP11OB1"
enum { SALT = 32, NONCE = 16, TAG = 16, SUM = 32 };
/* token.meta: magic, serial, label, iterations, flags, user and SO wrong
 * PIN counts, then the SO and the user PIN slot (salt, nonce, wrapped
 * master key, tag). */
enum {
  M_SERIAL = 8, M_LABEL = 24, M_ITER = 56, M_FLAGS = 60, M_UFAIL = 64, M_SOFAIL = 68,
  M_SLOT_SO = 72, SLOT_LEN = SALT + NONCE + P11_MK_LEN + TAG,
  M_SLOT_USER = M_SLOT_SO + SLOT_LEN, META_LEN = M_SLOT_USER + SLOT_LEN
};
#define MF_USER_PIN 1u

static void put32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8), p[3] = (uint8_t)v;
}
static uint32_t get32(const uint8_t *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

CK_RV p11_base_dir(char *out, size_t cap) {
  const char *env = getenv("GOSTX_PKCS11_DIR");
  int n;
  if (env && *env) {
    n = snprintf(out, cap, "%s", env);
  } else if (geteuid() == 0) {
    n = snprintf(out, cap, "/var/lib/gostx/pkcs11");
  } else {
    const char *xdg = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
    if (xdg && *xdg == '/')
      n = snprintf(out, cap, "%s/gostx/pkcs11", xdg);
    else if (home && *home)
      n = snprintf(out, cap, "%s/.local/share/gostx/pkcs11", home);
    else
      return CKR_GENERAL_ERROR;
  }
  return n > 0 && (size_t)n < cap ? CKR_OK : CKR_GENERAL_ERROR;
}

static int path_of(char *out, size_t cap, const char *dir, const char *name) {
  int n = snprintf(out, cap, "%s/%s", dir, name);
  return n > 0 && (size_t)n < cap ? 0 : -1;
}

/* The token's lock: LOCK_SH or LOCK_EX; -1 when the folder is gone. */
static int lock_take(const char *dir, int how) {
  char p[4200];
  if (path_of(p, sizeof p, dir, ".lock"))
    return -1;
  int fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0)
    return -1;
  while (flock(fd, how) != 0) {
    if (errno != EINTR) {
      close(fd);
      return -1;
    }
  }
  return fd;
}
static void lock_drop(int fd) {
  if (fd >= 0)
    close(fd); /* releases the flock */
}

static int fsync_dir(const char *dir) {
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  int r = fsync(fd);
  close(fd);
  return r;
}

/* Writes dir/name whole (temporary file, fsync, rename, fsync dir); the
 * caller holds the exclusive lock. stamp, when set, gets the new file's. */
static CK_RV write_whole(const char *dir, const char *name, const uint8_t *data, size_t len,
                         uint64_t stamp[3]) {
  char tmp[4200], dst[4200];
  if (path_of(dst, sizeof dst, dir, name) ||
      snprintf(tmp, sizeof tmp, "%s/.%s.XXXXXX", dir, name) >= (int)sizeof tmp)
    return CKR_GENERAL_ERROR;
  int fd = mkostemp(tmp, O_CLOEXEC);
  if (fd < 0)
    return errno == ENOSPC ? CKR_DEVICE_MEMORY : CKR_DEVICE_ERROR;
  size_t off = 0;
  while (off < len) {
    ssize_t w = write(fd, data + off, len - off);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      break;
    off += (size_t)w;
  }
  struct stat st;
  int bad = off != len || fsync(fd) != 0 || fstat(fd, &st) != 0;
  bad |= close(fd) != 0;
  if (bad || rename(tmp, dst) != 0) {
    unlink(tmp);
    return CKR_DEVICE_ERROR;
  }
  if (stamp) {
    stamp[0] = (uint64_t)st.st_ino;
    stamp[1] = (uint64_t)st.st_mtim.tv_sec * 1000000000u + (uint64_t)st.st_mtim.tv_nsec;
    stamp[2] = (uint64_t)st.st_size;
  }
  return fsync_dir(dir) == 0 ? CKR_OK : CKR_DEVICE_ERROR;
}

/* Reads dir/name into a new buffer (at most cap bytes; larger is damage). */
static CK_RV read_whole(const char *dir, const char *name, uint8_t **out, size_t *len, size_t cap,
                        uint64_t stamp[3]) {
  char p[4200];
  if (path_of(p, sizeof p, dir, name))
    return CKR_GENERAL_ERROR;
  int fd = open(p, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return errno == ENOENT ? CKR_OBJECT_HANDLE_INVALID : CKR_DEVICE_ERROR;
  struct stat st;
  if (fstat(fd, &st) != 0 || st.st_size < 0 || (size_t)st.st_size > cap) {
    close(fd);
    return CKR_DEVICE_ERROR;
  }
  size_t n = (size_t)st.st_size, off = 0;
  uint8_t *buf = malloc(n ? n : 1);
  if (!buf) {
    close(fd);
    return CKR_HOST_MEMORY;
  }
  while (off < n) {
    ssize_t r = read(fd, buf + off, n - off);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      break;
    off += (size_t)r;
  }
  close(fd);
  if (off != n) {
    gostx_memzero(buf, n);
    free(buf);
    return CKR_DEVICE_ERROR;
  }
  if (stamp) {
    stamp[0] = (uint64_t)st.st_ino;
    stamp[1] = (uint64_t)st.st_mtim.tv_sec * 1000000000u + (uint64_t)st.st_mtim.tv_nsec;
    stamp[2] = (uint64_t)st.st_size;
  }
  *out = buf;
  *len = n;
  return CKR_OK;
}

static CK_RV meta_load(const char *dir, uint8_t m[META_LEN]) {
  uint8_t *buf;
  size_t len;
  CK_RV rv = read_whole(dir, "token.meta", &buf, &len, META_LEN, NULL);
  if (rv != CKR_OK)
    return rv == CKR_OBJECT_HANDLE_INVALID ? CKR_TOKEN_NOT_PRESENT : rv;
  if (len != META_LEN || memcmp(buf, META_MAGIC, 8) != 0)
    rv = CKR_TOKEN_NOT_RECOGNIZED;
  else
    memcpy(m, buf, META_LEN);
  free(buf);
  return rv;
}

CK_RV p11_token_refresh(p11_token *t) {
  uint8_t m[META_LEN];
  int fd = lock_take(t->dir, LOCK_SH);
  if (fd < 0)
    return CKR_TOKEN_NOT_PRESENT;
  CK_RV rv = meta_load(t->dir, m);
  lock_drop(fd);
  if (rv != CKR_OK)
    return rv;
  memcpy(t->label, m + M_LABEL, 32);
  t->user_pin_set = (get32(m + M_FLAGS) & MF_USER_PIN) != 0;
  t->user_fails = get32(m + M_UFAIL);
  t->so_fails = get32(m + M_SOFAIL);
  return CKR_OK;
}

/* The slot's associated data: the token's identity, the role and the
 * KDF's inputs, so a slot moved to another token or role fails its tag. */
static size_t slot_aad(const uint8_t *m, int user, const uint8_t *slot, uint8_t *aad) {
  memcpy(aad, m, M_LABEL); /* magic and serial */
  aad[M_LABEL] = (uint8_t)(user ? 'U' : 'S');
  memcpy(aad + M_LABEL + 1, m + M_ITER, 4);
  memcpy(aad + M_LABEL + 5, slot, SALT);
  return M_LABEL + 5 + SALT;
}

static CK_RV pin_kek(const uint8_t *m, const uint8_t *slot, const uint8_t *pin, size_t pin_len,
                     gostx_cipher *c) {
  uint8_t kek[32];
  if (gostx_pbkdf2_streebog512(pin, pin_len, slot, SALT, get32(m + M_ITER), kek, sizeof kek) != 0)
    return CKR_FUNCTION_FAILED;
  int r = gostx_cipher_init(c, GOSTX_ALG_KUZNYECHIK, kek);
  gostx_memzero(kek, sizeof kek);
  return r == 0 ? CKR_OK : CKR_FUNCTION_FAILED;
}

/* Fills m's slot for user with mk wrapped under pin (fresh salt, nonce). */
static CK_RV slot_wrap(uint8_t *m, int user, const uint8_t *pin, size_t pin_len,
                       const uint8_t mk[P11_MK_LEN]) {
  uint8_t *slot = m + (user ? M_SLOT_USER : M_SLOT_SO), aad[128];
  gostx_cipher c;
  if (gostx_random_bytes(slot, SALT + NONCE) != 0)
    return CKR_DEVICE_ERROR;
  slot[SALT] &= 0x7f; /* MGM's nonce has its top bit clear */
  CK_RV rv = pin_kek(m, slot, pin, pin_len, &c);
  if (rv != CKR_OK)
    return rv;
  size_t alen = slot_aad(m, user, slot, aad);
  int r = gostx_mgm_encrypt(&c, slot + SALT, aad, alen, mk, P11_MK_LEN, slot + SALT + NONCE,
                            slot + SALT + NONCE + P11_MK_LEN, TAG);
  gostx_cipher_clear(&c);
  return r == 0 ? CKR_OK : CKR_FUNCTION_FAILED;
}

/* The wrong-PIN counter of role user in the meta file: reset (ok) or one
 * more (!ok). Read, changed and written under the exclusive lock. */
static CK_RV count_try(const char *dir, int user, int ok) {
  uint8_t m[META_LEN];
  int fd = lock_take(dir, LOCK_EX);
  if (fd < 0)
    return CKR_TOKEN_NOT_PRESENT;
  CK_RV rv = meta_load(dir, m);
  if (rv == CKR_OK) {
    uint8_t *f = m + (user ? M_UFAIL : M_SOFAIL);
    uint32_t was = get32(f), now = ok ? 0 : (was < P11_MAX_PIN_TRIES ? was + 1 : was);
    if (now != was) {
      put32(f, now);
      rv = write_whole(dir, "token.meta", m, META_LEN, NULL);
    }
  }
  lock_drop(fd);
  return rv;
}

CK_RV p11_pin_check(const char *dir, int user, const uint8_t *pin, size_t pin_len,
                    uint8_t mk[P11_MK_LEN]) {
  uint8_t m[META_LEN], aad[128];
  int fd = lock_take(dir, LOCK_SH);
  if (fd < 0)
    return CKR_TOKEN_NOT_PRESENT;
  CK_RV rv = meta_load(dir, m);
  lock_drop(fd);
  if (rv != CKR_OK)
    return rv;
  if (get32(m + (user ? M_UFAIL : M_SOFAIL)) >= P11_MAX_PIN_TRIES)
    return CKR_PIN_LOCKED;
  if (user && !(get32(m + M_FLAGS) & MF_USER_PIN))
    return CKR_USER_PIN_NOT_INITIALIZED;
  const uint8_t *slot = m + (user ? M_SLOT_USER : M_SLOT_SO);
  gostx_cipher c;
  rv = pin_kek(m, slot, pin, pin_len, &c);
  if (rv != CKR_OK)
    return rv;
  size_t alen = slot_aad(m, user, slot, aad);
  /* The MGM tag tells a wrong PIN: nothing is written to mk then. */
  int r = gostx_mgm_decrypt(&c, slot + SALT, aad, alen, slot + SALT + NONCE, P11_MK_LEN,
                            slot + SALT + NONCE + P11_MK_LEN, TAG, mk);
  gostx_cipher_clear(&c);
  if (r != 0 && r != GOSTX_EAUTH)
    return CKR_FUNCTION_FAILED;
  int ok = r == 0;
  /* Only a change is written: a right PIN with no wrong ones before it
   * costs no write (many processes log in at once). */
  if (!ok || get32(m + (user ? M_UFAIL : M_SOFAIL)) != 0) {
    CK_RV w = count_try(dir, user, ok);
    if (w != CKR_OK) {
      gostx_memzero(mk, P11_MK_LEN);
      return w;
    }
  }
  return ok ? CKR_OK : CKR_PIN_INCORRECT;
}

CK_RV p11_pin_set(const char *dir, int user, const uint8_t *pin, size_t pin_len,
                  const uint8_t mk[P11_MK_LEN]) {
  uint8_t m[META_LEN];
  int fd = lock_take(dir, LOCK_EX);
  if (fd < 0)
    return CKR_TOKEN_NOT_PRESENT;
  CK_RV rv = meta_load(dir, m);
  if (rv == CKR_OK)
    rv = slot_wrap(m, user, pin, pin_len, mk);
  if (rv == CKR_OK) {
    if (user)
      put32(m + M_FLAGS, get32(m + M_FLAGS) | MF_USER_PIN);
    put32(m + (user ? M_UFAIL : M_SOFAIL), 0);
    rv = write_whole(dir, "token.meta", m, META_LEN, NULL);
  }
  lock_drop(fd);
  return rv;
}

/* A fresh meta: new master key, the SO slot, no user PIN. */
static CK_RV meta_new(uint8_t m[META_LEN], const char serial[17], const char *label,
                      const uint8_t *so_pin, size_t so_len) {
  uint8_t mk[P11_MK_LEN];
  memset(m, 0, META_LEN);
  memcpy(m, META_MAGIC, 8);
  memcpy(m + M_SERIAL, serial, 16);
  memcpy(m + M_LABEL, label, 32);
  put32(m + M_ITER, new_token_iterations());
  if (gostx_random_bytes(mk, sizeof mk) != 0)
    return CKR_DEVICE_ERROR;
  CK_RV rv = slot_wrap(m, 0, so_pin, so_len, mk);
  gostx_memzero(mk, sizeof mk);
  return rv;
}

static int mkdirs(const char *path) {
  char p[4096];
  size_t n = strlen(path);
  if (n == 0 || n >= sizeof p)
    return -1;
  memcpy(p, path, n + 1);
  for (size_t i = 1; i <= n; i++) {
    if (p[i] == '/' || p[i] == 0) {
      char c = p[i];
      p[i] = 0;
      if (mkdir(p, 0700) != 0 && errno != EEXIST)
        return -1;
      p[i] = c;
    }
  }
  return 0;
}

CK_RV p11_token_create(const char *base, const char *label, const uint8_t *so_pin, size_t so_len,
                       char serial[17]) {
  uint8_t rnd[8], m[META_LEN];
  char tmp[4200], dst[4200];
  if (mkdirs(base) != 0)
    return CKR_DEVICE_ERROR;
  if (gostx_random_bytes(rnd, sizeof rnd) != 0)
    return CKR_DEVICE_ERROR;
  for (int i = 0; i < 8; i++)
    snprintf(serial + 2 * i, 3, "%02x", rnd[i]);
  CK_RV rv = meta_new(m, serial, label, so_pin, so_len);
  if (rv != CKR_OK)
    return rv;
  /* Built under a hidden name and renamed: a token appears whole or not. */
  if (snprintf(tmp, sizeof tmp, "%s/.new-%s", base, serial) >= (int)sizeof tmp ||
      path_of(dst, sizeof dst, base, serial) || mkdir(tmp, 0700) != 0)
    return CKR_DEVICE_ERROR;
  rv = write_whole(tmp, "token.meta", m, META_LEN, NULL);
  if (rv == CKR_OK && (rename(tmp, dst) != 0 || fsync_dir(base) != 0))
    rv = CKR_DEVICE_ERROR;
  if (rv != CKR_OK) {
    char p[4300];
    snprintf(p, sizeof p, "%s/token.meta", tmp);
    unlink(p);
    rmdir(tmp);
  }
  return rv;
}

static int is_obj_name(const char *s) {
  if (strlen(s) != 22 || memcmp(s, "o-", 2) != 0 || strcmp(s + 18, ".obj") != 0)
    return 0;
  for (int i = 2; i < 18; i++)
    if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
      return 0;
  return 1;
}

CK_RV p11_token_reinit(p11_token *t, const char *label, const uint8_t *so_pin, size_t so_len) {
  uint8_t m[META_LEN];
  int fd = lock_take(t->dir, LOCK_EX);
  if (fd < 0)
    return CKR_TOKEN_NOT_PRESENT;
  /* The new meta first: the old objects cannot be read under its new
   * master key, so a crash before they are all gone leaves junk, not a
   * readable old object. */
  CK_RV rv = meta_new(m, t->serial, label, so_pin, so_len);
  if (rv == CKR_OK)
    rv = write_whole(t->dir, "token.meta", m, META_LEN, NULL);
  DIR *d = rv == CKR_OK ? opendir(t->dir) : NULL;
  if (d) {
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
      char p[4200];
      if (is_obj_name(e->d_name) && !path_of(p, sizeof p, t->dir, e->d_name))
        unlink(p);
    }
    closedir(d);
    fsync_dir(t->dir);
  }
  lock_drop(fd);
  return rv;
}

/* ---- objects ---- */

/* Associated data of an object file: its header and its name, so a file
 * renamed onto another object's name is refused. */
static size_t obj_aad(const uint8_t *hdr, const char *name, uint8_t *aad) {
  memcpy(aad, hdr, 16);
  memcpy(aad + 16, name, 22);
  return 38;
}

/* A public object's checksum: Streebog-256 of its associated data and
 * body. Not a MAC (anyone may rewrite a public object's file, as anyone
 * may call C_SetAttributeValue on it); it tells a damaged file. */
static CK_RV plain_sum(const uint8_t *hdr, const char *name, const uint8_t *body, size_t len,
                       uint8_t out[SUM]) {
  gostx_streebog_ctx h;
  uint8_t aad[64];
  size_t alen = obj_aad(hdr, name, aad);
  if (gostx_streebog_init(&h, SUM) != 0)
    return CKR_GENERAL_ERROR;
  gostx_streebog_update(&h, aad, alen);
  gostx_streebog_update(&h, body, len);
  gostx_streebog_final(&h, out);
  return CKR_OK;
}

size_t p11_attrs_encode(const p11_attr *a, size_t n, uint8_t *out) {
  size_t len = 4;
  for (size_t i = 0; i < n; i++)
    len += 12 + a[i].len;
  if (!out)
    return len;
  uint8_t *p = out;
  put32(p, (uint32_t)n), p += 4;
  for (size_t i = 0; i < n; i++) {
    put32(p, (uint32_t)((uint64_t)a[i].type >> 32)), put32(p + 4, (uint32_t)a[i].type);
    put32(p + 8, (uint32_t)a[i].len), p += 12;
    if (a[i].len)
      memcpy(p, a[i].val, a[i].len), p += a[i].len;
  }
  return len;
}

CK_RV p11_obj_write(const p11_token *t, const char *name, int encrypt, const p11_attr *a, size_t n,
                    uint64_t stamp[3]) {
  size_t body = p11_attrs_encode(a, n, NULL);
  if (body > UINT32_MAX - 64)
    return CKR_DEVICE_MEMORY;
  size_t total = 16 + body + (encrypt ? NONCE + TAG : SUM);
  uint8_t *buf = malloc(total), aad[64];
  if (!buf)
    return CKR_HOST_MEMORY;
  memcpy(buf, OBJ_MAGIC, 8);
  put32(buf + 8, encrypt ? 1u : 0u);
  put32(buf + 12, (uint32_t)body);
  uint8_t *plain = buf + 16 + (encrypt ? NONCE : 0);
  p11_attrs_encode(a, n, plain);
  CK_RV rv = CKR_OK;
  if (encrypt) {
    gostx_cipher c;
    uint8_t *nonce = buf + 16;
    if (gostx_random_bytes(nonce, NONCE) != 0)
      rv = CKR_DEVICE_ERROR;
    nonce[0] &= 0x7f;
    if (rv == CKR_OK && gostx_cipher_init(&c, GOSTX_ALG_KUZNYECHIK, t->mk) == 0) {
      size_t alen = obj_aad(buf, name, aad);
      if (gostx_mgm_encrypt(&c, nonce, aad, alen, plain, body, plain, plain + body, TAG) != 0)
        rv = CKR_FUNCTION_FAILED;
      gostx_cipher_clear(&c);
    } else if (rv == CKR_OK) {
      rv = CKR_FUNCTION_FAILED;
    }
  } else {
    rv = plain_sum(buf, name, plain, body, plain + body);
  }
  if (rv == CKR_OK) {
    int fd = lock_take(t->dir, LOCK_EX);
    rv = fd < 0 ? CKR_TOKEN_NOT_PRESENT : write_whole(t->dir, name, buf, total, stamp);
    lock_drop(fd);
  }
  gostx_memzero(buf, total);
  free(buf);
  return rv;
}

CK_RV p11_attrs_decode(const uint8_t *p, size_t len, p11_attr **out, size_t *out_n) {
  if (len < 4)
    return CKR_DEVICE_ERROR;
  uint32_t n = get32(p);
  size_t off = 4;
  if (n > len / 12)
    return CKR_DEVICE_ERROR;
  p11_attr *a = calloc(n ? n : 1, sizeof *a);
  if (!a)
    return CKR_HOST_MEMORY;
  for (uint32_t i = 0; i < n; i++) {
    if (len - off < 12) {
      p11_attrs_free(a, i);
      return CKR_DEVICE_ERROR;
    }
    a[i].type = (CK_ATTRIBUTE_TYPE)((uint64_t)get32(p + off) << 32 | get32(p + off + 4));
    a[i].len = get32(p + off + 8);
    off += 12;
    if (a[i].len > len - off || (a[i].len && !(a[i].val = malloc(a[i].len)))) {
      p11_attrs_free(a, i);
      return CKR_DEVICE_ERROR;
    }
    if (a[i].len)
      memcpy(a[i].val, p + off, a[i].len);
    off += a[i].len;
  }
  if (off != len) {
    p11_attrs_free(a, n);
    return CKR_DEVICE_ERROR;
  }
  *out = a;
  *out_n = n;
  return CKR_OK;
}

CK_RV p11_obj_read(const p11_token *t, const char *name, int *encrypted, p11_attr **a, size_t *n,
                   uint64_t stamp[3]) {
  uint8_t *buf, aad[64];
  size_t len;
  *a = NULL, *n = 0;
  CK_RV rv = read_whole(t->dir, name, &buf, &len, 64u << 20, stamp);
  if (rv != CKR_OK)
    return rv;
  if (len < 16 || memcmp(buf, OBJ_MAGIC, 8) != 0 || get32(buf + 8) > 1) {
    free(buf);
    return CKR_DEVICE_ERROR;
  }
  uint32_t body = get32(buf + 12);
  *encrypted = (int)get32(buf + 8);
  uint8_t sum[SUM];
  if (len != 16 + (size_t)body + (*encrypted ? NONCE + TAG : SUM)) {
    rv = CKR_DEVICE_ERROR;
  } else if (!*encrypted) {
    rv = plain_sum(buf, name, buf + 16, body, sum);
    if (rv == CKR_OK)
      rv = memcmp(sum, buf + 16 + body, SUM) == 0 ? p11_attrs_decode(buf + 16, body, a, n) : CKR_DEVICE_ERROR;
  } else if (t->user_in) {
    gostx_cipher c;
    uint8_t *plain = malloc(body ? body : 1);
    rv = plain ? CKR_OK : CKR_HOST_MEMORY;
    if (rv == CKR_OK && gostx_cipher_init(&c, GOSTX_ALG_KUZNYECHIK, t->mk) == 0) {
      size_t alen = obj_aad(buf, name, aad);
      if (gostx_mgm_decrypt(&c, buf + 16, aad, alen, buf + 16 + NONCE, body,
                            buf + 16 + NONCE + body, TAG, plain) == 0)
        rv = p11_attrs_decode(plain, body, a, n);
      else
        rv = CKR_DEVICE_ERROR; /* damaged, or from before a C_InitToken */
      gostx_cipher_clear(&c);
    } else if (rv == CKR_OK) {
      rv = CKR_FUNCTION_FAILED;
    }
    if (plain) {
      gostx_memzero(plain, body);
      free(plain);
    }
  }
  gostx_memzero(buf, len);
  free(buf);
  return rv;
}

CK_RV p11_obj_unlink(const p11_token *t, const char *name) {
  char p[4200];
  if (path_of(p, sizeof p, t->dir, name))
    return CKR_GENERAL_ERROR;
  int fd = lock_take(t->dir, LOCK_EX);
  if (fd < 0)
    return CKR_TOKEN_NOT_PRESENT;
  CK_RV rv = unlink(p) == 0 || errno == ENOENT ? CKR_OK : CKR_DEVICE_ERROR;
  if (rv == CKR_OK)
    fsync_dir(t->dir);
  lock_drop(fd);
  return rv;
}

CK_RV p11_obj_list(const p11_token *t, char (**names)[24], uint64_t (**stamps)[3], size_t *n) {
  size_t cap = 16, k = 0;
  char (*nm)[24] = malloc(cap * sizeof *nm);
  uint64_t (*st)[3] = malloc(cap * sizeof *st);
  *names = NULL, *stamps = NULL, *n = 0;
  if (!nm || !st) {
    free(nm), free(st);
    return CKR_HOST_MEMORY;
  }
  int fd = lock_take(t->dir, LOCK_SH);
  DIR *d = fd >= 0 ? opendir(t->dir) : NULL;
  if (!d) {
    lock_drop(fd);
    free(nm), free(st);
    return CKR_TOKEN_NOT_PRESENT;
  }
  struct dirent *e;
  CK_RV rv = CKR_OK;
  while ((e = readdir(d)) != NULL) {
    struct stat sb;
    if (!is_obj_name(e->d_name) || fstatat(dirfd(d), e->d_name, &sb, 0) != 0)
      continue;
    if (k == cap) {
      void *a = realloc(nm, 2 * cap * sizeof *nm), *b = a ? realloc(st, 2 * cap * sizeof *st) : NULL;
      if (a)
        nm = a;
      if (b)
        st = b;
      if (!a || !b) {
        rv = CKR_HOST_MEMORY;
        break;
      }
      cap *= 2;
    }
    memcpy(nm[k], e->d_name, 23);
    st[k][0] = (uint64_t)sb.st_ino;
    st[k][1] = (uint64_t)sb.st_mtim.tv_sec * 1000000000u + (uint64_t)sb.st_mtim.tv_nsec;
    st[k][2] = (uint64_t)sb.st_size;
    k++;
  }
  closedir(d);
  lock_drop(fd);
  if (rv != CKR_OK) {
    free(nm), free(st);
    return rv;
  }
  *names = nm, *stamps = st, *n = k;
  return CKR_OK;
}
