/* nbdkit-gostx-filter: serves any nbdkit plugin's disk encrypted with
 * Kuznyechik-XTS (docs/DISK.md).
 *
 *   nbdkit --filter=build/nbdkit-gostx-filter.so file disk.img key=disk.key
 *
 * Plain mode: no header; byte offset o of the disk is byte o of the plugin,
 * and sector s (sector-size bytes) is one XTS data unit whose tweak is, as
 * dm-crypt's "plain64" IV, its offset in 512-byte units (8 s for 4096-byte
 * sectors), or with iv-large-sectors=true the sector number s itself (as
 * cryptsetup --iv-large-sectors). So a disk written here opens with
 *   cryptsetup open --type plain --cipher kuznyechik-xts-plain64 \
 *     --key-size 512 --key-file disk.key [--sector-size 4096] disk.img NAME
 * on a kernel that has Kuznyechik.
 *
 * LUKS1 mode (passphrase=+FILE, a disk made by `gostx disk format`): the
 * header (lib/luks) is opened with the passphrase; the disk served is the
 * payload, byte o being byte payload-offset + o of the plugin, and sector s
 * (512 bytes) has tweak s, counted from the payload's start, as dm-crypt
 * opens LUKS1. Nothing before the payload can be read or written through
 * the filter. By default (luks-failure=exit) the header of the plugin's
 * default export is read and opened at start-up, before nbdkit forks, and
 * nbdkit exits non-zero when it does not open. With
 * luks-failure=refuse-connections each export's header is opened on that
 * export's first connection, through the connection's own plugin context
 * (so per-export plugins such as the file plugin's dir= work); when it does
 * not open, the reason is logged once and every connection to that export
 * fails with it. Each connection checks that its disk still holds the
 * header opened.
 *
 * Key and passphrase files that group or others can access are refused
 * (as ssh refuses such private keys) unless insecure-key-file=true.
 *
 * Requests are encrypted whole, through the library's batch XTS call (on the
 * filter's worker pool for large ones); nbdkit's own threads serve requests
 * in parallel. Unaligned writes read, decrypt, patch and re-encrypt their edge
 * sectors under an exclusive lock; aligned writes share the lock. Trim and
 * extents are not offered (a hole in the backing store is not zeros once
 * decrypted); zeroing is emulated by nbdkit as writes of encrypted zeros.
 * Flush, FUA and multi-conn pass through; cache passes through with its
 * offset moved past the LUKS header area (by 0 in plain mode). */
#define NBDKIT_API_VERSION 2
#include <nbdkit-filter.h>

#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gostx.h>

/* Requests of at least this many bytes go through the pool; smaller ones
 * are encrypted on the nbdkit thread that serves them. */
#define POOL_MIN_BYTES (256u << 10)

/* One disk's keys and layout: the plain mode's, the LUKS1 disk opened at
 * start-up, or (refuse-connections) one per export name, opened lazily.
 * Connection handles point at one; entries live until unload. */
struct disk {
  struct disk *next_disk;        /* refuse-connections: the list of exports */
  char *export_name;             /* refuse-connections: whose disk this is */
  int state;                     /* 0: not tried yet, 1: open, -1: failed */
  char failed[256];              /* why it did not open */
  gostx_xts_key key;
  uint64_t data_offset;          /* plugin bytes before the served disk (0: plain) */
  uint8_t phdr[GOSTX_LUKS_PHDR_LEN]; /* LUKS1: the header opened */
};

static struct disk plain_disk;   /* plain mode (key=) */
static struct disk startup_disk; /* LUKS1, luks-failure=exit: opened in get_ready */
static struct disk *export_disks; /* LUKS1, luks-failure=refuse-connections */
static pthread_mutex_t export_lock = PTHREAD_MUTEX_INITIALIZER;
static int have_key;
static uint32_t sector_size = 512;
static int iv_large_sectors;     /* tweak = sector number, not 512-byte units */
static unsigned pool_threads;    /* 0: one per online CPU */
static gostx_pool *pool;
static pthread_rwlock_t rmw_lock = PTHREAD_RWLOCK_INITIALIZER;
/* LUKS1 mode */
static char *passphrase;        /* from config; wiped once no export can need it */
static int luks;                /* passphrase= given: the key comes from a LUKS1 header */
static int luks_lazy = -1;      /* luks-failure=refuse-connections (1), exit (0), unset (-1) */
static int plugin_dir;          /* the plugin was given dir= (the file plugin's per-export mode) */
static nbdkit_backend *backend_at_start; /* the plugin, for get_ready's own context */

/* Key and passphrase files: their modes, checked in config_complete once
 * insecure-key-file= (which may come later) is known. */
static int insecure_key_file;
struct secret_file {
  const char *what;
  char *path;
  mode_t mode;
};
static struct secret_file key_file = {"key file", NULL, 0};
static struct secret_file pass_file = {"passphrase file", NULL, 0};

static int note_secret_file(struct secret_file *f, const char *path, mode_t mode) {
  free(f->path);
  f->path = strdup(path);
  f->mode = mode;
  if (!f->path) {
    nbdkit_error("gostx: out of memory");
    return -1;
  }
  return 0;
}

/* Group or others may read (or replace) the secret: refused as ssh refuses
 * such a private key, unless the user says so. Before nbdkit forks, so a
 * warning can go to stderr (nbdkit has no warning call; nbdkit_error would
 * call it an error). */
static int check_secret_file(const struct secret_file *f) {
  if (!f->path || !(f->mode & 077)) return 0;
  if (!insecure_key_file) {
    nbdkit_error("gostx: %s %s has mode %04o: group or others can access it; "
                 "chmod go= it, or give insecure-key-file=true to use it anyway",
                 f->what, f->path, (unsigned)(f->mode & 07777));
    return -1;
  }
  fprintf(stderr, "nbdkit: gostx: warning: %s %s has mode %04o: group or others can access it "
          "(used because insecure-key-file=true)\n", f->what, f->path,
          (unsigned)(f->mode & 07777));
  nbdkit_debug("gostx: %s %s: mode %04o accepted (insecure-key-file=true)", f->what, f->path,
               (unsigned)(f->mode & 07777));
  return 0;
}

static int read_key_file(const char *path) {
  uint8_t key[GOSTX_XTS_KEY_LEN + 1];
  struct stat st;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    nbdkit_error("gostx: key file %s: %m", path);
    return -1;
  }
  if (fstat(fd, &st) == -1 || note_secret_file(&key_file, path, st.st_mode) == -1) {
    if (!key_file.path) nbdkit_error("gostx: key file %s: %m", path);
    close(fd);
    return -1;
  }
  size_t got = 0;
  ssize_t r = 1;
  while (got < sizeof key && (r = read(fd, key + got, sizeof key - got)) > 0) got += (size_t)r;
  int saved = errno;
  close(fd);
  int rc = -1;
  if (r < 0) {
    errno = saved;
    nbdkit_error("gostx: key file %s: %m", path);
  } else if (got != GOSTX_XTS_KEY_LEN) {
    nbdkit_error("gostx: key file %s must hold exactly %d bytes (two Kuznyechik keys), "
                 "it holds %s%zu",
                 path, GOSTX_XTS_KEY_LEN, got > GOSTX_XTS_KEY_LEN ? "more than " : "",
                 got > GOSTX_XTS_KEY_LEN ? (size_t)GOSTX_XTS_KEY_LEN : got);
  } else if (gostx_xts_set_key(&plain_disk.key, key) != GOSTX_OK) {
    nbdkit_error("gostx: key file %s: the two 32-byte halves must differ", path);
  } else {
    plain_disk.state = 1;
    have_key = 1;
    rc = 0;
  }
  gostx_memzero(key, sizeof key);
  return rc;
}

static int gostx_config(nbdkit_next_config *next, nbdkit_backend *nxdata, const char *key,
                        const char *value) {
  if (strcmp(key, "key") == 0) {
    if (have_key) {
      nbdkit_error("gostx: key given twice");
      return -1;
    }
    return read_key_file(value);
  }
  if (strcmp(key, "passphrase") == 0) {
    if (passphrase) {
      nbdkit_error("gostx: passphrase given twice");
      return -1;
    }
    struct stat st;
    if (value[0] == '+') { /* a file: its mode is checked in config_complete */
      if (stat(value + 1, &st) == -1) {
        nbdkit_error("gostx: passphrase file %s: %m", value + 1);
        return -1;
      }
      if (note_secret_file(&pass_file, value + 1, st.st_mode) == -1) return -1;
    }
    if (nbdkit_read_password(value, &passphrase) == -1) return -1;
    /* nbdkit drops a file's trailing newlines; a "\r" before them goes too,
     * as `gostx disk --pass-file` reads "\r\n" */
    size_t n = strlen(passphrase);
    if (value[0] == '+' && n && passphrase[n - 1] == '\r') passphrase[--n] = 0;
    if (n == 0 || n > GOSTX_LUKS_PASS_MAX) {
      nbdkit_error("gostx: the passphrase must be 1 to %d bytes, it has %zu",
                   GOSTX_LUKS_PASS_MAX, n);
      return -1;
    }
    return 0;
  }
  if (strcmp(key, "sector-size") == 0) {
    if (nbdkit_parse_uint32_t("sector-size", value, &sector_size) == -1) return -1;
    if (sector_size != 512 && sector_size != 4096) {
      nbdkit_error("gostx: sector-size must be 512 or 4096, not %s", value);
      return -1;
    }
    return 0;
  }
  if (strcmp(key, "iv-large-sectors") == 0) {
    int b = nbdkit_parse_bool(value);
    if (b == -1) return -1;
    iv_large_sectors = b;
    return 0;
  }
  if (strcmp(key, "gostx-threads") == 0)
    return nbdkit_parse_unsigned("gostx-threads", value, &pool_threads);
  if (strcmp(key, "insecure-key-file") == 0) {
    int b = nbdkit_parse_bool(value);
    if (b == -1) return -1;
    insecure_key_file = b;
    return 0;
  }
  if (strcmp(key, "luks-failure") == 0) {
    if (strcmp(value, "exit") == 0)
      luks_lazy = 0;
    else if (strcmp(value, "refuse-connections") == 0)
      luks_lazy = 1;
    else {
      nbdkit_error("gostx: luks-failure must be exit or refuse-connections, not %s", value);
      return -1;
    }
    return 0;
  }
  /* the file plugin's directory mode: which disk is served depends on the
   * export a client asks for, so there is none to open at start-up */
  if (strcmp(key, "dir") == 0) plugin_dir = 1;
  return next(nxdata, key, value);
}

static int gostx_config_complete(nbdkit_next_config_complete *next, nbdkit_backend *nxdata) {
  if (have_key && passphrase) {
    nbdkit_error("gostx: give key= (plain mode) or passphrase= (a LUKS1 disk), not both");
    return -1;
  }
  if (!have_key && !passphrase) {
    nbdkit_error("gostx: key=KEYFILE is required (64 bytes: the XTS data and tweak keys), "
                 "or passphrase=+FILE for a LUKS1 disk");
    return -1;
  }
  if (passphrase && sector_size != GOSTX_LUKS_SECTOR) {
    nbdkit_error("gostx: a LUKS1 disk has 512-byte sectors: sector-size=%" PRIu32
                 " is for the plain mode", sector_size);
    return -1;
  }
  if (!passphrase && luks_lazy != -1) {
    nbdkit_error("gostx: luks-failure= is for a LUKS1 disk (passphrase=)");
    return -1;
  }
  if (passphrase && luks_lazy != 1 && plugin_dir) {
    nbdkit_error("gostx: with the plugin's dir= the disk depends on the export a client asks "
                 "for, so no LUKS1 header can be opened at start-up: add "
                 "luks-failure=refuse-connections (each export's header is then opened on its "
                 "first connection)");
    return -1;
  }
  if (check_secret_file(&key_file) == -1 || check_secret_file(&pass_file) == -1) return -1;
  luks = passphrase != NULL;
  if (luks_lazy == -1) luks_lazy = 0;
  backend_at_start = nxdata; /* nbdkit's own tests assert it is after_fork's backend */
  return next(nxdata);
}

#define gostx_config_help                                                                \
  "key=KEYFILE            64-byte Kuznyechik-XTS key (dm-crypt plain layout), or\n"      \
  "passphrase=+FILE|-     open a LUKS1 disk made by `gostx disk format`\n"              \
  "sector-size=512|4096   XTS data unit (default 512; plain mode only)\n"               \
  "iv-large-sectors=BOOL  tweak = sector number, not 512-byte units (default false)\n"   \
  "gostx-threads=N        worker threads for large requests (default: online CPUs)\n"     \
  "luks-failure=exit|refuse-connections\n"                                               \
  "                       a LUKS1 header that does not open: nbdkit exits at start-up\n"   \
  "                       (default), or each export opens on its first connection and\n"  \
  "                       its connections fail (needed with the file plugin's dir=)\n"      \
  "insecure-key-file=BOOL use key/passphrase files group or others can access (default\n" \
  "                       false: refused)"

static int gostx_thread_model(void) { return NBDKIT_THREAD_MODEL_PARALLEL; }

static void wipe_free(void *p, size_t n) {
  if (!p) return;
  gostx_memzero(p, n);
  free(p);
}

static void drop_passphrase(void) {
  if (passphrase) wipe_free(passphrase, strlen(passphrase));
  passphrase = NULL;
}

/* LUKS1 mode: the reason disk d cannot be served, logged once now and given
 * to each of its connections. */
static void luks_fail(struct disk *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void luks_fail(struct disk *d, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(d->failed, sizeof d->failed, fmt, ap);
  va_end(ap);
  d->state = -1;
  nbdkit_error("%s", d->failed);
}

/* LUKS1 mode: reads the header area through a prepared plugin context,
 * opens it with the passphrase and keys d with the master key. */
static int luks_open_disk(struct disk *d, nbdkit_next *next) {
  uint8_t *area = NULL;
  size_t area_len = 0;
  int err = 0, rc;
  int64_t size = next->get_size(next);
  gostx_luks_header h;
  gostx_luks l;
  const char *why = NULL;
  memset(&l, 0, sizeof l);
  if (size < 0) {
    luks_fail(d, "gostx: the plugin cannot give the disk's size");
  } else if (size < GOSTX_LUKS_PHDR_LEN) {
    luks_fail(d, "gostx: the disk (%" PRId64 " bytes) is too small to hold a LUKS1 header", size);
  } else if (next->pread(next, d->phdr, GOSTX_LUKS_PHDR_LEN, 0, 0, &err) == -1) {
    luks_fail(d, "gostx: reading the LUKS1 header failed: %s", strerror(err));
  } else if (gostx_luks_header_parse(&h, d->phdr, GOSTX_LUKS_PHDR_LEN, &why) != GOSTX_OK) {
    luks_fail(d, "gostx: LUKS1 header: %s", why);
  } else if ((uint64_t)size < (area_len = gostx_luks_area_len(&h))) {
    luks_fail(d, "gostx: the disk (%" PRId64 " bytes) is smaller than its LUKS1 header area "
              "(%zu bytes)", size, area_len);
  } else if (!(area = malloc(area_len))) {
    luks_fail(d, "gostx: out of memory");
  } else if (next->pread(next, area, (uint32_t)area_len, 0, 0, &err) == -1) {
    luks_fail(d, "gostx: reading the LUKS1 header area failed: %s", strerror(err));
  } else if ((rc = gostx_luks_open(&l, area, area_len, (const uint8_t *)passphrase,
                                    strlen(passphrase), &why)) != GOSTX_OK) {
    luks_fail(d, "gostx: cannot open the LUKS1 disk: %s", why ? why : gostx_strerror(rc));
  } else if (gostx_xts_set_key(&d->key, l.master_key) != GOSTX_OK) {
    luks_fail(d, "gostx: the LUKS1 master key's two halves are equal");
  } else {
    d->data_offset = area_len;
    d->state = 1;
  }
  gostx_luks_clear(&l);
  wipe_free(area, area_len);
  return d->state == 1 ? 0 : -1;
}

/* luks-failure=exit: the default export's header, read through a context
 * of our own before nbdkit forks or listens, so that a disk that does not
 * open (wrong passphrase, damaged header) makes nbdkit exit non-zero with
 * the reason on stderr, in every mode (after_fork would be too late: the
 * daemon's parent has exited 0 by then, and --run's command waits on the
 * socket its parent holds). */
static int gostx_get_ready(int thread_model) {
  (void)thread_model;
  if (!luks || luks_lazy) return 0;
  nbdkit_next *next = nbdkit_next_context_open(backend_at_start, 1, "", 1);
  if (!next) {
    nbdkit_error("gostx: cannot open the plugin's disk to read its LUKS1 header");
    drop_passphrase();
    return -1;
  }
  int rc = next->prepare(next);
  if (rc == 0) {
    rc = luks_open_disk(&startup_disk, next);
    next->finalize(next);
  }
  nbdkit_next_context_close(next);
  drop_passphrase(); /* no other export opens another header */
  if (rc == 0) have_key = 1;
  return rc;
}

/* Threads only after nbdkit has forked into the background. */
static int gostx_after_fork(nbdkit_backend *backend) {
  (void)backend;
  pool = gostx_pool_new(pool_threads);
  if (!pool) {
    nbdkit_error("gostx: cannot start %u worker threads", pool_threads);
    return -1;
  }
  return 0;
}

static void gostx_unload(void) {
  gostx_pool_free(pool);
  pool = NULL;
  gostx_xts_clear(&plain_disk.key);
  gostx_xts_clear(&startup_disk.key);
  while (export_disks) {
    struct disk *d = export_disks;
    export_disks = d->next_disk;
    gostx_xts_clear(&d->key);
    free(d->export_name);
    wipe_free(d, sizeof *d);
  }
  drop_passphrase();
  free(key_file.path);
  free(pass_file.path);
}

/* The handle is the disk the connection serves: refuse-connections finds
 * (or adds) its export's entry here, opened in prepare. */
static void *gostx_open(nbdkit_next_open *next, nbdkit_context *context, int readonly,
                        const char *exportname, int is_tls) {
  (void)is_tls;
  if (next(context, readonly, exportname) == -1) return NULL;
  if (!luks) return &plain_disk;
  if (!luks_lazy) return &startup_disk;
  pthread_mutex_lock(&export_lock);
  struct disk *d = export_disks;
  while (d && strcmp(d->export_name, exportname) != 0) d = d->next_disk;
  if (!d) {
    d = calloc(1, sizeof *d);
    if (d && !(d->export_name = strdup(exportname))) {
      free(d);
      d = NULL;
    }
    if (d) {
      d->next_disk = export_disks;
      export_disks = d;
    }
  }
  pthread_mutex_unlock(&export_lock);
  if (!d) nbdkit_error("gostx: out of memory");
  return d;
}

/* LUKS1 mode: refuse-connections opens the export's header on its first
 * connection (once: a failure is kept and given to every later one). Each
 * connection's disk must hold the header opened (a plugin may serve other
 * exports, or the disk may have changed) and the whole header area. */
static int gostx_prepare(nbdkit_next *next, void *handle, int readonly) {
  struct disk *d = handle;
  (void)readonly;
  if (!luks) return 0;
  if (luks_lazy) {
    int rc = 0;
    pthread_mutex_lock(&export_lock); /* PBKDF2 once per export */
    if (d->state == 0) rc = luks_open_disk(d, next);
    pthread_mutex_unlock(&export_lock);
    if (rc == -1) return -1; /* logged just now */
  }
  if (d->state != 1) {
    nbdkit_error("%s", d->failed);
    return -1;
  }
  uint8_t phdr[GOSTX_LUKS_PHDR_LEN];
  int err = 0;
  int64_t size = next->get_size(next);
  if (size < 0) return -1;
  if ((uint64_t)size < d->data_offset) {
    nbdkit_error("gostx: the disk (%" PRId64 " bytes) is smaller than its LUKS1 header area "
                 "(%" PRIu64 " bytes)", size, d->data_offset);
    return -1;
  }
  if (next->pread(next, phdr, sizeof phdr, 0, 0, &err) == -1) return -1;
  if (memcmp(phdr, d->phdr, sizeof phdr) != 0) {
    nbdkit_error("gostx: this disk's LUKS1 header is not the one opened %s",
                 luks_lazy ? "on the export's first connection" : "at start-up");
    return -1;
  }
  return 0;
}

static int64_t gostx_get_size(nbdkit_next *next, void *handle) {
  const uint64_t data_offset = ((struct disk *)handle)->data_offset;
  int64_t size = next->get_size(next);
  if (size < 0) return -1;
  if ((uint64_t)size < data_offset) { /* checked in prepare; the disk shrank since */
    nbdkit_error("gostx: the disk is smaller than its LUKS1 header area");
    return -1;
  }
  size -= (int64_t)data_offset;
  if (size % sector_size)
    nbdkit_debug("gostx: the last %" PRId64 " bytes are not a whole sector and are not served",
                 size % sector_size);
  return size / sector_size * sector_size;
}

static int gostx_block_size(nbdkit_next *next, void *handle, uint32_t *minimum,
                            uint32_t *preferred, uint32_t *maximum) {
  (void)next;
  (void)handle;
  *minimum = sector_size;
  *preferred = sector_size > 4096 ? sector_size : 4096;
  *maximum = 0xffffffff;
  return 0;
}

static int gostx_can_trim(nbdkit_next *next, void *handle) {
  (void)next;
  (void)handle;
  return 0;
}

static int gostx_can_zero(nbdkit_next *next, void *handle) {
  (void)next;
  (void)handle;
  return NBDKIT_ZERO_EMULATE;
}

static int gostx_can_fast_zero(nbdkit_next *next, void *handle) {
  (void)next;
  (void)handle;
  return 0;
}

static int gostx_can_extents(nbdkit_next *next, void *handle) {
  (void)next;
  (void)handle;
  return 0;
}

/* XTS over n whole sectors, the first being sector s0, in place or not;
 * the library counts the tweaks (512-byte units, or whole sectors). */
static int xts_sectors(const struct disk *d, int decrypt, uint64_t s0, const uint8_t *in,
                       uint8_t *out, uint64_t n) {
  const size_t unit = iv_large_sectors ? sector_size : GOSTX_XTS_TWEAK_512;
  gostx_pool *p = n * sector_size >= POOL_MIN_BYTES ? pool : NULL;
  int rc = decrypt ? gostx_xts_decrypt_disk(p, &d->key, s0, sector_size, unit, in, n, out)
                   : gostx_xts_encrypt_disk(p, &d->key, s0, sector_size, unit, in, n, out);
  return rc == GOSTX_OK ? 0 : rc == GOSTX_ENOMEM ? ENOMEM : EIO;
}

static int gostx_pread(nbdkit_next *next, void *handle, void *buf, uint32_t count,
                       uint64_t offset, uint32_t flags, int *err) {
  const struct disk *d = handle;
  const uint64_t data_offset = d->data_offset;
  const uint64_t a0 = offset / sector_size * sector_size;
  const uint64_t a1 = (offset + count + sector_size - 1) / sector_size * sector_size;
  uint8_t *b = buf, *tmp = NULL;
  if (a0 != offset || a1 != offset + count) { /* read the whole sectors around it */
    tmp = malloc(a1 - a0);
    if (!tmp) {
      *err = ENOMEM;
      nbdkit_error("gostx: out of memory");
      return -1;
    }
    b = tmp;
  }
  int rc = next->pread(next, b, (uint32_t)(a1 - a0), data_offset + a0, flags, err);
  if (rc == 0 && (*err = xts_sectors(d, 1, a0 / sector_size, b, b, (a1 - a0) / sector_size))) {
    nbdkit_error("gostx: decryption failed");
    rc = -1;
  }
  if (rc == 0 && tmp) memcpy(buf, tmp + (offset - a0), count);
  wipe_free(tmp, a1 - a0);
  return rc;
}

/* Aligned writes encrypt into a buffer of their own and share the lock;
 * unaligned ones hold it alone while they read, patch and rewrite their
 * edge sectors, so no other write can slip in between. */
static int gostx_pwrite(nbdkit_next *next, void *handle, const void *buf, uint32_t count,
                        uint64_t offset, uint32_t flags, int *err) {
  const struct disk *d = handle;
  const uint64_t data_offset = d->data_offset;
  const uint64_t a0 = offset / sector_size * sector_size;
  const uint64_t a1 = (offset + count + sector_size - 1) / sector_size * sector_size;
  const uint64_t len = a1 - a0, s0 = a0 / sector_size, n = len / sector_size;
  const int aligned = a0 == offset && a1 == offset + count;
  uint8_t *tmp = malloc(len ? len : 1);
  if (!tmp) {
    *err = ENOMEM;
    nbdkit_error("gostx: out of memory");
    return -1;
  }
  int rc = 0;
  if (aligned) {
    pthread_rwlock_rdlock(&rmw_lock);
    *err = xts_sectors(d, 0, s0, buf, tmp, n);
  } else {
    pthread_rwlock_wrlock(&rmw_lock);
    /* the first and the last sector, where the request does not cover them
     * (one sector may be both) */
    const int head = a0 != offset, tail = a1 != offset + count && (n > 1 || !head);
    uint8_t *last = tmp + len - sector_size;
    const uint64_t last_at = data_offset + a1 - sector_size;
    *err = 0;
    if (head && (rc = next->pread(next, tmp, sector_size, data_offset + a0, 0, err)) == 0)
      *err = xts_sectors(d, 1, s0, tmp, tmp, 1);
    if (tail && rc == 0 && !*err &&
        (rc = next->pread(next, last, sector_size, last_at, 0, err)) == 0)
      *err = xts_sectors(d, 1, s0 + n - 1, last, last, 1);
    if (rc == 0 && !*err) {
      memcpy(tmp + (offset - a0), buf, count);
      *err = xts_sectors(d, 0, s0, tmp, tmp, n);
    }
  }
  if (rc == 0 && *err) {
    nbdkit_error("gostx: encryption failed");
    rc = -1;
  }
  if (rc == 0) rc = next->pwrite(next, tmp, (uint32_t)len, data_offset + a0, flags, err);
  pthread_rwlock_unlock(&rmw_lock);
  wipe_free(tmp, len);
  return rc;
}

/* A hint only: the same bytes of the plugin, past the header area. */
static int gostx_cache(nbdkit_next *next, void *handle, uint32_t count, uint64_t offset,
                       uint32_t flags, int *err) {
  const struct disk *d = handle;
  const uint64_t data_offset = d->data_offset;
  return next->cache(next, count, data_offset + offset, flags, err);
}

static struct nbdkit_filter filter = {
    .name = "gostx",
    .longname = "nbdkit gostx Kuznyechik-XTS encryption filter",
    .config = gostx_config,
    .config_complete = gostx_config_complete,
    .config_help = gostx_config_help,
    .thread_model = gostx_thread_model,
    .get_ready = gostx_get_ready,
    .after_fork = gostx_after_fork,
    .open = gostx_open,
    .unload = gostx_unload,
    .prepare = gostx_prepare,
    .get_size = gostx_get_size,
    .block_size = gostx_block_size,
    .can_trim = gostx_can_trim,
    .can_zero = gostx_can_zero,
    .can_fast_zero = gostx_can_fast_zero,
    .can_extents = gostx_can_extents,
    .pread = gostx_pread,
    .pwrite = gostx_pwrite,
    .cache = gostx_cache,
};

NBDKIT_REGISTER_FILTER(filter)
