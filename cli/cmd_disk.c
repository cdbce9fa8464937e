/* gostx disk: LUKS1 disks for the nbdkit filter (lib/luks, docs/DISK.md).
 * format writes a new image (header area, then a payload of --size bytes);
 * add-pass and remove-pass change key slots in place; dump prints the
 * header as cryptsetup luksDump does (and the master key, given a
 * passphrase). Changed key material is written and synced before the
 * header sectors that refer to it. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"

/* The header's own sectors (before slot 0's material), written last. */
#define HEAD_LEN ((size_t)GOSTX_LUKS_FIRST_SLOT * GOSTX_LUKS_SECTOR)
#define SIZE_MAX_PAYLOAD ((uint64_t)1 << 60)

static void disk_usage(void) {
  printf(
      "Usage: gostx disk format IMAGE --size SIZE [--pass-file FILE] [--iter N] [--force]\n"
      "       gostx disk add-pass IMAGE [--pass-file FILE] [--new-pass-file FILE] [--slot N]\n"
      "                                 [--iter N]\n"
      "       gostx disk remove-pass IMAGE [--pass-file FILE] [--slot N] [--force]\n"
      "       gostx disk dump IMAGE [--master-key [--pass-file FILE]]\n"
      "\n"
      "LUKS1 disks encrypted with Kuznyechik-XTS (cipher kuznyechik, mode\n"
      "xts-plain64, hash streebog512: PBKDF2-HMAC-Streebog-512, 8 key slots), served\n"
      "by nbdkit-gostx-filter.so with passphrase=+FILE (docs/DISK.md).\n"
      "\n"
      "  format       new IMAGE: the 2 MiB header area (slot 0 holds the passphrase,\n"
      "               a fresh random master key), then SIZE bytes of payload (a sparse\n"
      "               file: it reads as noise through the filter until written);\n"
      "               prints the UUID\n"
      "  add-pass     a new passphrase into a free slot (asks for a current one)\n"
      "  remove-pass  removes the passphrase given, or with --slot N that slot\n"
      "               (given any passphrase of the disk); its key material is\n"
      "               overwritten with random bytes\n"
      "  dump         the header fields and the key slots, like cryptsetup luksDump\n"
      "\n"
      "Options:\n"
      "  -s, --size SIZE        payload bytes, a multiple of 512; K/M/G/T suffixes\n"
      "                         are powers of 1024\n"
      "      --pass-file FILE   the passphrase (format: the new one; otherwise a\n"
      "                         current one) = contents of FILE, one trailing newline\n"
      "                         dropped; without it, asked on the terminal\n"
      "      --new-pass-file FILE  add-pass: the passphrase to add\n"
      "      --iter N           PBKDF2 iterations for the new slot, 1..16777216\n"
      "                         (default: calibrated to about %u ms on this machine)\n"
      "      --slot N           key slot 0..7\n"
      "  -f, --force            format: replace an existing IMAGE; remove-pass: allow\n"
      "                         removing the last passphrase (the disk is lost)\n"
      "      --master-key       dump: also print the master key (needs a passphrase)\n"
      "  -h, --help             this help\n"
      "\n"
      "Exit status: 0 success, 1 failure (wrong passphrase, damaged header, I/O),\n"
      "2 usage error.\n",
      GOSTX_LUKS_ITER_TIME_MS);
}

enum { OPT_SIZE = 1, OPT_PASS_FILE, OPT_NEW_PASS_FILE, OPT_ITER, OPT_SLOT, OPT_FORCE,
       OPT_MASTER_KEY, OPT_HELP, OPT_COUNT };

static const cli_opt disk_opts[] = {
    {"size", 's', CLI_ARG, OPT_SIZE},
    {"pass-file", 0, CLI_PATH, OPT_PASS_FILE},
    {"new-pass-file", 0, CLI_PATH, OPT_NEW_PASS_FILE},
    {"iter", 0, CLI_ARG, OPT_ITER},
    {"slot", 0, CLI_ARG, OPT_SLOT},
    {"force", 'f', CLI_NOARG, OPT_FORCE},
    {"master-key", 0, CLI_NOARG, OPT_MASTER_KEY},
    {"help", 'h', CLI_NOARG, OPT_HELP},
    {NULL, 0, 0, 0},
};

/* The options each action takes (the others are refused, so typos do not pass). */
static const struct {
  const char *name;
  int opts[5];
} actions[] = {
    {"format", {OPT_SIZE, OPT_PASS_FILE, OPT_ITER, OPT_FORCE}},
    {"add-pass", {OPT_PASS_FILE, OPT_NEW_PASS_FILE, OPT_SLOT, OPT_ITER}},
    {"remove-pass", {OPT_PASS_FILE, OPT_SLOT, OPT_FORCE}},
    {"dump", {OPT_MASTER_KEY, OPT_PASS_FILE}},
};

struct args {
  const char *action, *image;
  const char *v[OPT_COUNT]; /* option values by id ("" for flags) */
  uint64_t size, iter, slot;
  int has_slot;
};

static const char *opt_name(int id) {
  for (const cli_opt *o = disk_opts; o->long_name; o++)
    if (o->id == id) return o->long_name;
  return "?";
}

static int parse_args(int argc, char **argv, struct args *a) {
  cli_parser p;
  cli_parser_init(&p, "disk", argc, argv);
  int id, rc;
  while ((id = cli_next(&p, disk_opts)) != CLI_END) {
    if (id == OPT_HELP) {
      disk_usage();
      return -1;
    }
    if (id == CLI_POS) {
      if (!a->action) a->action = p.pos;
      else if (!a->image) a->image = p.pos;
      else return cli_usage("disk: unexpected argument '%s'", p.pos);
      continue;
    }
    if (id < 0) return CLI_EXIT_USAGE;
    a->v[id] = p.arg ? p.arg : "";
  }
  if (!a->action) return cli_usage("disk: missing action: format, add-pass, remove-pass or dump");
  size_t k = 0, n = sizeof actions / sizeof actions[0];
  while (k < n && strcmp(actions[k].name, a->action)) k++;
  if (k == n)
    return cli_usage("disk: unknown action '%s' (format, add-pass, remove-pass, dump)", a->action);
  for (int o = 1; o < OPT_HELP; o++) {
    int ok = 0;
    for (size_t j = 0; j < 5; j++) ok |= actions[k].opts[j] == o;
    if (a->v[o] && !ok)
      return cli_usage("disk %s: --%s is not an option here", a->action, opt_name(o));
  }
  if (!a->image) return cli_usage("disk %s: missing IMAGE", a->action);
  if (!strcmp(a->image, "-")) return cli_usage("disk %s: IMAGE must be a file, not '-'", a->action);
  if (a->v[OPT_SIZE] &&
      (rc = cli_parse_size("--size", a->v[OPT_SIZE], GOSTX_LUKS_SECTOR, SIZE_MAX_PAYLOAD,
                           &a->size)))
    return rc;
  if (a->v[OPT_SIZE] && a->size % GOSTX_LUKS_SECTOR)
    return cli_usage("--size must be a multiple of 512 bytes, got %s", a->v[OPT_SIZE]);
  if (!strcmp(a->action, "format") && !a->v[OPT_SIZE])
    return cli_usage("disk format: --size SIZE is required (the payload's bytes)");
  if (a->v[OPT_ITER] &&
      (rc = cli_uint("--iter", a->v[OPT_ITER], GOSTX_LUKS_ITER_MIN, GOSTX_LUKS_ITER_MAX, &a->iter)))
    return rc;
  if (a->v[OPT_SLOT]) {
    if ((rc = cli_uint("--slot", a->v[OPT_SLOT], 0, GOSTX_LUKS_SLOTS - 1, &a->slot))) return rc;
    a->has_slot = 1;
  }
  if (!strcmp(a->action, "dump") && a->v[OPT_PASS_FILE] && !a->v[OPT_MASTER_KEY])
    return cli_usage("disk dump: --pass-file goes with --master-key");
  return 0;
}

/* ---- the image ---- */

struct disk {
  const char *path;
  int fd;
  uint64_t size;
  uint8_t *area;
  size_t area_len;
  gostx_luks_header h;
};

/* All of len bytes at off: read into buf, or written from it. */
static int io_at(struct disk *d, int write, uint8_t *buf, size_t len, uint64_t off) {
  for (size_t done = 0; done < len;) {
    ssize_t r = write ? pwrite(d->fd, buf + done, len - done, (off_t)(off + done))
                      : pread(d->fd, buf + done, len - done, (off_t)(off + done));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      cli_err("%s: %s error: %s", d->path, write ? "write" : "read",
              r < 0 ? strerror(errno) : write ? "nothing written" : "unexpected end of file");
      return CLI_EXIT_FAIL;
    }
    done += (size_t)r;
  }
  return 0;
}

static void disk_close(struct disk *d) {
  if (d->fd >= 0) close(d->fd);
  d->fd = -1;
  if (d->area) gostx_memzero(d->area, d->area_len);
  free(d->area);
  d->area = NULL;
}

/* Opens IMAGE, checks its header and reads the header area. */
static int disk_load(struct disk *d, const char *path, int writable) {
  memset(d, 0, sizeof *d);
  d->path = path;
  d->fd = open(path, (writable ? O_RDWR : O_RDONLY) | O_CLOEXEC);
  if (d->fd < 0) {
    cli_err("%s: %s", path, strerror(errno));
    return CLI_EXIT_FAIL;
  }
  struct stat st;
  off_t end = lseek(d->fd, 0, SEEK_END); /* block devices too */
  if (fstat(d->fd, &st) != 0 || S_ISDIR(st.st_mode) || end < 0) {
    cli_err("%s: %s", path, S_ISDIR(st.st_mode) ? strerror(EISDIR) : strerror(errno));
    return CLI_EXIT_FAIL;
  }
  d->size = (uint64_t)end;
  uint8_t phdr[GOSTX_LUKS_PHDR_LEN];
  size_t n = d->size < sizeof phdr ? (size_t)d->size : sizeof phdr;
  const char *why = NULL;
  if (io_at(d, 0, phdr, n, 0)) return CLI_EXIT_FAIL;
  if (gostx_luks_header_parse(&d->h, phdr, n, &why)) {
    cli_err("%s: %s", path, why);
    return CLI_EXIT_FAIL;
  }
  d->area_len = gostx_luks_area_len(&d->h);
  if (d->size < d->area_len) {
    cli_err("%s: the disk is smaller than its LUKS header area (%llu bytes, it has %llu)", path,
            (unsigned long long)d->area_len, (unsigned long long)d->size);
    return CLI_EXIT_FAIL;
  }
  d->area = malloc(d->area_len);
  if (!d->area) {
    cli_err("out of memory");
    return CLI_EXIT_FAIL;
  }
  return io_at(d, 0, d->area, d->area_len, 0);
}

/* Key material first, synced, then the header sectors that refer to it. */
static int disk_store(struct disk *d) {
  for (int head = 0; head < 2; head++) {
    int rc = head ? io_at(d, 1, d->area, HEAD_LEN, 0)
                  : io_at(d, 1, d->area + HEAD_LEN, d->area_len - HEAD_LEN, HEAD_LEN);
    if (rc) return rc;
    if (fsync(d->fd) != 0) {
      cli_err("%s: fsync: %s", d->path, strerror(errno));
      return CLI_EXIT_FAIL;
    }
  }
  return 0;
}

/* Opens the disk with a passphrase from --pass-file or the terminal. */
static int disk_unlock(struct disk *d, const char *pass_file, gostx_luks *l) {
  uint8_t pass[CLI_PASS_MAX + 2];
  size_t len = 0;
  int rc = cli_read_pass(pass_file, "Passphrase: ", 0, pass, &len);
  if (!rc) {
    const char *why = NULL;
    int lrc = gostx_luks_open(l, d->area, d->area_len, pass, len, &why);
    if (lrc) {
      cli_err("%s: %s", d->path, why ? why : gostx_strerror(lrc));
      rc = CLI_EXIT_FAIL;
    }
  }
  gostx_memzero(pass, sizeof pass);
  return rc;
}

static int lib_fail(const char *path, const char *what, int lrc) {
  cli_err("%s: %s: %s", path, what, gostx_strerror(lrc));
  return CLI_EXIT_FAIL;
}

/* ---- actions ---- */

static int disk_format(const struct args *a) {
  struct stat st;
  if (lstat(a->image, &st) == 0) {
    if (!a->v[OPT_FORCE]) {
      cli_err("%s exists; refusing to overwrite it (use --force)", a->image);
      return CLI_EXIT_FAIL;
    }
    if (!S_ISREG(st.st_mode)) {
      cli_err("%s: not a regular file; format writes image files only", a->image);
      return CLI_EXIT_FAIL;
    }
  }
  const cli_input ins[] = {{a->v[OPT_PASS_FILE], "passphrase file"}};
  int rc = cli_refuse_same_file("disk format", a->image, ins, 1);
  if (rc) return rc;
  const size_t area_len = (size_t)GOSTX_LUKS_PAYLOAD_DEFAULT * GOSTX_LUKS_SECTOR;
  uint8_t pass[CLI_PASS_MAX + 2], *area = malloc(area_len);
  size_t len = 0;
  gostx_luks l;
  cli_out out;
  memset(&l, 0, sizeof l);
  if (!area) {
    cli_err("out of memory");
    return CLI_EXIT_FAIL;
  }
  /* The output before the passphrase and the KDF (a bad IMAGE fails at
   * once); it appears complete and synced, or not at all (cli/common/out.c). */
  if ((rc = cli_out_open(&out, a->image, a->v[OPT_FORCE] ? 0 : CLI_OUT_NEW))) {
    free(area);
    return rc;
  }
  rc = cli_read_pass(a->v[OPT_PASS_FILE], "New passphrase: ", 1, pass, &len);
  if (!rc) {
    int lrc = gostx_luks_format(&l, area, area_len, pass, len, (uint32_t)a->iter);
    if (lrc) rc = lib_fail(a->image, "format", lrc);
  }
  gostx_memzero(pass, sizeof pass);
  if (!rc) rc = cli_out_write(&out, area, area_len);
  /* the payload: a hole of --size bytes */
  if (!rc && (fflush(out.f) || ftruncate(fileno(out.f), (off_t)(area_len + a->size)))) {
    cli_err("%s: %s", a->image, strerror(errno));
    rc = CLI_EXIT_FAIL;
  }
  if (rc) cli_out_abort(&out);
  else rc = cli_out_commit(&out);
  if (!rc) printf("%s\n", l.h.uuid);
  gostx_memzero(area, area_len);
  free(area);
  gostx_luks_clear(&l);
  return rc;
}

static int disk_add_pass(const struct args *a) {
  struct disk d;
  gostx_luks l;
  uint8_t pass[CLI_PASS_MAX + 2];
  size_t len = 0;
  int used = -1;
  memset(&l, 0, sizeof l);
  int rc = disk_load(&d, a->image, 1);
  if (!rc) rc = disk_unlock(&d, a->v[OPT_PASS_FILE], &l);
  if (!rc) rc = cli_read_pass(a->v[OPT_NEW_PASS_FILE], "New passphrase: ", 1, pass, &len);
  if (!rc) {
    int lrc = gostx_luks_add_key(&l, d.area, d.area_len, pass, len, (uint32_t)a->iter,
                                 a->has_slot ? (int)a->slot : -1, &used);
    if (lrc == GOSTX_ESTATE) {
      if (a->has_slot) cli_err("%s: key slot %d is in use", a->image, (int)a->slot);
      else cli_err("%s: all %d key slots are in use", a->image, GOSTX_LUKS_SLOTS);
      rc = CLI_EXIT_FAIL;
    } else if (lrc) {
      rc = lib_fail(a->image, "add-pass", lrc);
    }
  }
  gostx_memzero(pass, sizeof pass);
  gostx_luks_clear(&l);
  if (!rc) rc = disk_store(&d);
  if (!rc) printf("added key slot %d\n", used);
  disk_close(&d);
  return rc;
}

static int disk_remove_pass(const struct args *a) {
  struct disk d;
  gostx_luks l;
  memset(&l, 0, sizeof l);
  int rc = disk_load(&d, a->image, 1);
  if (!rc) rc = disk_unlock(&d, a->v[OPT_PASS_FILE], &l);
  int slot = a->has_slot ? (int)a->slot : l.slot, enabled = 0;
  gostx_luks_clear(&l);
  for (int i = 0; !rc && i < GOSTX_LUKS_SLOTS; i++)
    enabled += d.h.slots[i].active == GOSTX_LUKS_KEY_ENABLED;
  if (!rc && d.h.slots[slot].active != GOSTX_LUKS_KEY_ENABLED) {
    cli_err("%s: key slot %d is not in use", a->image, slot);
    rc = CLI_EXIT_FAIL;
  } else if (!rc && enabled == 1 && !a->v[OPT_FORCE]) {
    cli_err("%s: key slot %d holds the last passphrase: without it the disk can never be "
            "opened again (use --force)",
            a->image, slot);
    rc = CLI_EXIT_FAIL;
  }
  if (!rc) {
    int lrc = gostx_luks_kill_slot(d.area, d.area_len, slot);
    if (lrc) rc = lib_fail(a->image, "remove-pass", lrc);
  }
  if (!rc) rc = disk_store(&d);
  if (!rc) printf("removed key slot %d\n", slot);
  disk_close(&d);
  return rc;
}

static void print_hex_field(const char *label, const uint8_t *p, size_t len) {
  char hex[2 * 64 + 1];
  cli_hex_str(p, len, hex);
  printf("%-16s%s\n", label, hex);
}

static int disk_dump(const struct args *a) {
  struct disk d;
  gostx_luks l;
  memset(&l, 0, sizeof l);
  int rc = disk_load(&d, a->image, 0);
  if (!rc && a->v[OPT_MASTER_KEY]) rc = disk_unlock(&d, a->v[OPT_PASS_FILE], &l);
  if (!rc) {
    const gostx_luks_header *h = &d.h;
    printf("LUKS header information for %s\n\n", a->image);
    printf("%-16s%u\n", "Version:", h->version);
    printf("%-16s%s\n", "Cipher name:", h->cipher_name);
    printf("%-16s%s\n", "Cipher mode:", h->cipher_mode);
    printf("%-16s%s\n", "Hash spec:", h->hash_spec);
    printf("%-16s%u\n", "Payload offset:", h->payload_offset);
    printf("%-16s%llu bytes\n", "Payload size:", (unsigned long long)(d.size - d.area_len));
    printf("%-16s%u\n", "MK bits:", h->key_bytes * 8);
    print_hex_field("MK digest:", h->mk_digest, GOSTX_LUKS_DIGEST_LEN);
    print_hex_field("MK salt:", h->mk_digest_salt, GOSTX_LUKS_SALT_LEN);
    printf("%-16s%u\n", "MK iterations:", h->mk_digest_iter);
    printf("%-16s%s\n", "UUID:", h->uuid);
    if (a->v[OPT_MASTER_KEY]) print_hex_field("Master key:", l.master_key, GOSTX_LUKS_KEY_LEN);
    printf("\n");
    for (int i = 0; i < GOSTX_LUKS_SLOTS; i++) {
      const gostx_luks_slot *s = &h->slots[i];
      if (s->active != GOSTX_LUKS_KEY_ENABLED) {
        printf("Key Slot %d: DISABLED\n", i);
        continue;
      }
      char salt[2 * GOSTX_LUKS_SALT_LEN + 1];
      cli_hex_str(s->salt, GOSTX_LUKS_SALT_LEN, salt);
      printf("Key Slot %d: ENABLED\n", i);
      printf("\tIterations:          %u\n", s->iterations);
      printf("\tSalt:                %s\n", salt);
      printf("\tKey material offset: %u\n", s->key_offset);
      printf("\tAF stripes:          %u\n", s->stripes);
    }
  }
  gostx_luks_clear(&l);
  disk_close(&d);
  return rc;
}

int cmd_disk(int argc, char **argv) {
  struct args a;
  memset(&a, 0, sizeof a);
  int rc = parse_args(argc, argv, &a);
  if (rc) return rc < 0 ? CLI_EXIT_OK : rc;
  if (!strcmp(a.action, "format")) return disk_format(&a);
  if (!strcmp(a.action, "add-pass")) return disk_add_pass(&a);
  if (!strcmp(a.action, "remove-pass")) return disk_remove_pass(&a);
  return disk_dump(&a);
}
