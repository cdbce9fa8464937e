/* gostx CLI: output files that appear whole or not at all.
 *
 * A regular output file is written to a temporary file in its directory and
 * put in place by cli_out_commit only when everything succeeded: the data is
 * fsynced, then linked or renamed to the target's name, then the directory
 * is fsynced. So a crash or power loss can never show a short file under the
 * target's name, and the command reports success only once the new name is
 * on disk too.
 *
 * The temporary file is unnamed where Linux and the file system allow it
 * (O_TMPFILE, linked into place with linkat): nothing, not even SIGKILL or a
 * power loss, can leave it behind, since the kernel frees an unnamed file
 * with its last descriptor and the file system's journal frees it after a
 * crash. Replacing an existing file needs a name for a moment (linkat cannot
 * replace): it is linked as .NAME.gostx-XXXXXXXXXXXX and renamed over the
 * target at once. Where O_TMPFILE fails (another system, NFS, an old kernel,
 * no /proc) the temporary file is named like that from the start, and
 * SIGINT, SIGTERM, SIGHUP and SIGPIPE remove it before the process dies of
 * the signal; only SIGKILL or a power loss can then leave it. */
#define _GNU_SOURCE /* O_TMPFILE, AT_EMPTY_PATH (Linux); harmless elsewhere */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "cli.h"

/* ---- removal of a named temporary file on fatal signals ---- */

/* At most one output is open at a time; its named temporary file, if it
 * has one, is recorded here for the handler (only async-signal-safe reads:
 * the name and directory are written before armed is set). */
static int cleanup_dir = -1;
static char cleanup_name[CLI_OUT_TMP_MAX];
static atomic_int cleanup_armed;

/* SIGBUS: a mapped input (cli_in_map) cut short under us. */
static const int fatal_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGBUS};
#define N_FATAL (sizeof fatal_signals / sizeof fatal_signals[0])
static struct sigaction saved_action[N_FATAL];
static int installed[N_FATAL];

static void on_fatal_signal(int sig) {
  int saved_errno = errno;
  if (atomic_load(&cleanup_armed)) unlinkat(cleanup_dir, cleanup_name, 0);
  /* Die of the same signal (or let the previous handler run): restore the
   * previous disposition and raise again; the signal is blocked until this
   * handler returns. */
  for (size_t i = 0; i < N_FATAL; i++)
    if (fatal_signals[i] == sig) sigaction(sig, &saved_action[i], NULL);
  raise(sig);
  errno = saved_errno;
}

static void install_handlers(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_fatal_signal;
  sigfillset(&sa.sa_mask);
  for (size_t i = 0; i < N_FATAL; i++) {
    struct sigaction old;
    if (installed[i] || sigaction(fatal_signals[i], NULL, &old) != 0) continue;
    /* An ignored signal stays ignored (nohup, a parent's SIGPIPE choice). */
    if (!(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_IGN) continue;
    saved_action[i] = old;
    if (sigaction(fatal_signals[i], &sa, NULL) == 0) installed[i] = 1;
  }
}

static void restore_handlers(void) {
  for (size_t i = 0; i < N_FATAL; i++)
    if (installed[i]) {
      sigaction(fatal_signals[i], &saved_action[i], NULL);
      installed[i] = 0;
    }
}

static void arm(int dir, const char *name) {
  atomic_store(&cleanup_armed, 0);
  cleanup_dir = dir;
  memcpy(cleanup_name, name, strlen(name) + 1);
  atomic_store(&cleanup_armed, 1);
}

static void disarm(void) { atomic_store(&cleanup_armed, 0); }

/* ---- temporary files ---- */

/* ".BASE.gostx-" and 12 random letters or digits (the base cut to 200 bytes
 * so that the name stays within NAME_MAX). Returns -1 without randomness. */
static int temp_name(char out[CLI_OUT_TMP_MAX], const char *base) {
  static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  uint8_t r[12];
  char suffix[sizeof r + 1];
  if (gostx_random_bytes(r, sizeof r)) return -1;
  for (size_t i = 0; i < sizeof r; i++) suffix[i] = abc[r[i] % (sizeof abc - 1)];
  suffix[sizeof r] = 0;
  snprintf(out, CLI_OUT_TMP_MAX, ".%.200s.gostx-%s", base, suffix);
  return 0;
}

/* An unnamed file in dir, or -1 where that is not possible here. */
static int open_unnamed(int dir) {
#ifdef O_TMPFILE
  const char *how = getenv("GOSTX_TMPFILE"); /* "named": the fallback, for tests */
  if (how && !strcmp(how, "named")) return -1;
  int fd = openat(dir, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
  if (fd < 0) return -1;
  /* It is linked through /proc/self/fd at the end (AT_EMPTY_PATH needs a
   * capability): without /proc take the named route now rather than finish
   * with a file that cannot be given a name. */
  char proc[48];
  struct stat st;
  snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
  if (stat(proc, &st) != 0) {
    close(fd);
    return -1;
  }
  return fd;
#else
  (void)dir;
  return -1;
#endif
}

/* Gives the unnamed file fd the name `name` in dir; -1 with errno (EEXIST
 * when the name exists: linkat never replaces). */
static int link_unnamed(int fd, int dir, const char *name) {
  char proc[48];
  snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
  if (linkat(AT_FDCWD, proc, dir, name, AT_SYMLINK_FOLLOW) == 0) return 0;
#ifdef AT_EMPTY_PATH
  if (errno == ENOENT) return linkat(fd, "", dir, name, AT_EMPTY_PATH);
#endif
  return -1;
}

/* A new named file in dir (its name in out->tmp, armed for the signal
 * handler before it exists), or -1 with errno. */
static int open_named(cli_out *out) {
  for (int tries = 0; tries < 100; tries++) {
    if (temp_name(out->tmp, out->base)) {
      errno = EIO;
      break;
    }
    arm(out->dir_fd, out->tmp);
    int fd = openat(out->dir_fd, out->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd >= 0) return fd;
    disarm();
    if (errno != EEXIST) break;
  }
  out->tmp[0] = 0;
  return -1;
}

/* ---- stdout errors are reported once ---- */

static int stdout_error_reported;

int cli_stdout_error_reported(void) { return stdout_error_reported; }

void cli_stdout_error_reset(void) { stdout_error_reported = 0; }

static void write_error(cli_out *out) {
  cli_err("%s: write error: %s", out->name, strerror(errno));
  if (out->f == stdout) stdout_error_reported = 1;
}

/* ---- opening ---- */

/* Follows symbolic links (relative ones from the link's directory). Sets
 * *res to a malloc'ed path when path was a link, NULL when it was not; returns
 * 0, or an errno: ELOOP past the kernel's 40 hops (a loop must fail as open()
 * does, not be replaced by a regular file), or readlink's error. */
static int resolve_links(const char *path, char **res) {
  char *cur = NULL;
  struct stat st;
  int err = ELOOP;
  *res = NULL;
  for (int hops = 0; hops <= 40; hops++) {
    const char *p = cur ? cur : path;
    if (lstat(p, &st) != 0 || !S_ISLNK(st.st_mode)) {
      *res = cur;
      return 0;
    }
    if (hops == 40) break;
    char target[4096];
    ssize_t len = readlink(p, target, sizeof target - 1);
    if (len < 0 || (size_t)len >= sizeof target - 1) {
      err = len < 0 ? errno : ENAMETOOLONG;
      break;
    }
    target[len] = 0;
    const char *slash = strrchr(p, '/');
    size_t dir_len = (target[0] != '/' && slash) ? (size_t)(slash - p) + 1 : 0;
    char *next = malloc(dir_len + (size_t)len + 1);
    if (!next) {
      err = ENOMEM;
      break;
    }
    memcpy(next, p, dir_len);
    memcpy(next + dir_len, target, (size_t)len + 1);
    free(cur);
    cur = next;
  }
  free(cur);
  return err;
}

static char *dup_n(const char *s, size_t n) {
  char *d = malloc(n + 1);
  if (d) {
    memcpy(d, s, n);
    d[n] = 0;
  }
  return d;
}

/* Frees what open set up, after the file itself was closed or linked. */
static void release(cli_out *out) {
  if (out->tmp[0]) {
    unlinkat(out->dir_fd, out->tmp, 0);
    disarm();
    out->tmp[0] = 0;
  }
  if (out->dir_fd >= 0) close(out->dir_fd);
  out->dir_fd = -1;
  free(out->base);
  out->base = NULL;
  restore_handlers();
}

int cli_out_open(cli_out *out, const char *path, int flags) {
  memset(out, 0, sizeof *out);
  out->dir_fd = -1;
  out->flags = flags;
  if (!path || strcmp(path, "-") == 0) {
    out->f = stdout;
    out->name = "stdout";
    out->direct = 1;
    return 0;
  }
  out->name = path;
  if (!*path) {
    cli_err("empty output file name");
    return CLI_EXIT_USAGE;
  }
  struct stat st;
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
    if (S_ISDIR(st.st_mode)) {
      cli_err("%s: %s", path, strerror(EISDIR));
      return CLI_EXIT_FAIL;
    }
    /* A device or pipe: cannot be replaced atomically, write it directly. */
    out->f = fopen(path, "wb");
    if (!out->f) {
      cli_err("%s: %s", path, strerror(errno));
      return CLI_EXIT_FAIL;
    }
    out->direct = 1;
    return 0;
  }
  /* A symbolic link: replace the file it points to, not the link. */
  char *real;
  int lerr = resolve_links(path, &real);
  if (lerr) {
    cli_err("%s: %s", path, strerror(lerr));
    return CLI_EXIT_FAIL;
  }
  const char *target = real ? real : path;
  const char *slash = strrchr(target, '/');
  const char *base = slash ? slash + 1 : target;
  if (!*base || !strcmp(base, ".") || !strcmp(base, "..")) {
    free(real);
    cli_err("%s: not a file name", path);
    return CLI_EXIT_FAIL;
  }
  out->base = dup_n(base, strlen(base));
  /* The directory as a descriptor: the temporary file, the link or rename
   * and the directory's fsync all act on the same directory. */
  char *dir = slash ? dup_n(target, slash == target ? 1 : (size_t)(slash - target)) : NULL;
  int err = ENOMEM;
  if (out->base && (dir || !slash)) {
    out->dir_fd = open(dir ? dir : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    err = errno;
  }
  free(dir);
  free(real);
  if (out->dir_fd < 0) {
    cli_err("%s: %s", path, strerror(err));
    release(out);
    return CLI_EXIT_FAIL;
  }
  install_handlers();
  int fd = open_unnamed(out->dir_fd);
  if (fd < 0) fd = open_named(out);
  if (fd < 0) {
    cli_err("%s: cannot create a temporary file beside it: %s", path, strerror(errno));
    release(out);
    return CLI_EXIT_FAIL;
  }
  out->f = fdopen(fd, "wb");
  if (!out->f) {
    cli_err("%s: %s", path, strerror(errno));
    close(fd);
    release(out);
    return CLI_EXIT_FAIL;
  }
  return 0;
}

/* ---- writing and committing ---- */

/* ---- big outputs: staged, past the page cache ----
 * Buffered writes of a new file cost this kernel ~1 s of system time per GiB
 * (page allocation, ext4's delayed allocation, writeback), as much as the
 * cipher's work on one core; with O_DIRECT the device reads the pages itself
 * and only a memcpy into the staging buffer stays. O_DIRECT wants aligned
 * addresses, lengths and offsets: every write but the last is one whole
 * staging buffer (a multiple of the page size, from offset 0), and the
 * unaligned tail goes through the page cache once O_DIRECT is cleared. The
 * fsync of commit still makes it all durable (it also flushes the device's
 * cache, which O_DIRECT alone does not). */

#define STAGE_BYTES (8u << 20)
#define STAGE_ALIGN 4096u

static int fake_einval; /* GOSTX_ODIRECT=einval */

void cli_out_bulk(cli_out *out) {
#ifdef O_DIRECT
  if (out->direct || out->stage || !out->f || fflush(out->f) != 0) return;
  /* "0": buffered, for comparisons; "einval": the first direct write is
   * refused as a file system without O_DIRECT would (tests the fallback). */
  const char *how = getenv("GOSTX_ODIRECT");
  if (how && !strcmp(how, "0")) return;
  fake_einval = how && !strcmp(how, "einval");
  int fd = fileno(out->f), fl = fcntl(fd, F_GETFL);
  if (fl < 0 || fcntl(fd, F_SETFL, fl | O_DIRECT) != 0) return;
  out->stage = aligned_alloc(STAGE_ALIGN, STAGE_BYTES);
  if (!out->stage) {
    fcntl(fd, F_SETFL, fl);
    return;
  }
  out->odirect = 1;
  out->staged = out->stage_hi = 0;
#else
  (void)out;
#endif
}

/* Back to writes through the page cache (the tail, or a refusal). */
static void direct_off(cli_out *out) {
#ifdef O_DIRECT
  int fd = fileno(out->f), fl = fcntl(fd, F_GETFL);
  if (fl >= 0) fcntl(fd, F_SETFL, fl & ~O_DIRECT);
#endif
  out->odirect = 0;
}

/* Writes p[0, len) (the stage, or whole aligned pages of the caller's); 0,
 * or -1 with errno. */
static int stage_write(cli_out *out, const uint8_t *p, size_t len) {
  int fd = fileno(out->f);
  size_t done = 0;
  while (done < len) {
    ssize_t w = out->odirect && fake_einval ? (errno = EINVAL, -1)
                                            : write(fd, p + done, len - done);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0 && errno == EINVAL && out->odirect) { /* alignment refused after all */
      direct_off(out);
      continue;
    }
    if (w <= 0) {
      if (w == 0) errno = EIO;
      return -1;
    }
    done += (size_t)w;
    /* A short direct write leaves an unaligned offset: finish buffered. */
    if (done < len && out->odirect) direct_off(out);
  }
  return 0;
}

/* Writes what is staged (at commit) and frees the buffer, wiping it: a
 * decryption stages plaintext. */
static int stage_end(cli_out *out, int write_it) {
  int rc = 0;
  if (write_it && out->staged) {
    /* Direct: the whole pages, then the rest buffered; after a fallback, all buffered. */
    size_t whole = out->odirect ? out->staged - out->staged % STAGE_ALIGN : 0;
    if (whole) rc = stage_write(out, out->stage, whole);
    if (!rc && whole < out->staged) {
      if (whole) memmove(out->stage, out->stage + whole, out->staged - whole);
      direct_off(out);
      rc = stage_write(out, out->stage, out->staged - whole);
    }
  }
  if (out->odirect) direct_off(out);
  gostx_memzero(out->stage, out->staged > out->stage_hi ? out->staged : out->stage_hi);
  free(out->stage);
  out->stage = NULL;
  out->staged = 0;
  return rc;
}

int cli_out_write(cli_out *out, const void *buf, size_t len) {
  if (out->failed) return CLI_EXIT_FAIL;
  if (out->stage) {
    const uint8_t *p = buf;
    /* Whole pages from aligned memory at an aligned offset (the file
     * container's writes): straight to the device, no copy. */
    if (out->odirect && !out->staged && len && len % STAGE_ALIGN == 0 &&
        (uintptr_t)buf % STAGE_ALIGN == 0) {
      if (stage_write(out, p, len) != 0) goto fail;
      return 0;
    }
    while (len) {
      size_t take = STAGE_BYTES - out->staged < len ? STAGE_BYTES - out->staged : len;
      memcpy(out->stage + out->staged, p, take);
      out->staged += take;
      p += take;
      len -= take;
      if (out->staged == STAGE_BYTES) {
        out->stage_hi = STAGE_BYTES;
        if (stage_write(out, out->stage, STAGE_BYTES) != 0) goto fail;
        out->staged = 0;
      }
    }
    return 0;
  }
  if (len && fwrite(buf, 1, len, out->f) != len) goto fail;
  return 0;
fail:
  write_error(out);
  out->failed = 1;
  return CLI_EXIT_FAIL;
}

/* Gives the finished temporary file the target's name. Returns 0, or -1
 * after printing why (the target is then untouched). */
static int place(cli_out *out) {
  int fd = fileno(out->f);
  if (!out->tmp[0]) { /* unnamed */
    if (link_unnamed(fd, out->dir_fd, out->base) == 0) return 0;
    if (errno != EEXIST || (out->flags & CLI_OUT_NEW)) goto fail;
    /* The target exists and linkat cannot replace it: a name for a moment,
     * then an atomic rename over the target. */
    for (int tries = 0;; tries++) {
      if (tries == 100 || temp_name(out->tmp, out->base)) {
        out->tmp[0] = 0;
        errno = EEXIST;
        goto fail;
      }
      arm(out->dir_fd, out->tmp);
      if (link_unnamed(fd, out->dir_fd, out->tmp) == 0) break;
      disarm();
      if (errno != EEXIST) {
        out->tmp[0] = 0;
        goto fail;
      }
    }
  }
  if (out->flags & CLI_OUT_NEW) {
    /* link() fails if the name appeared meanwhile: never an overwrite. */
    if (linkat(out->dir_fd, out->tmp, out->dir_fd, out->base, 0) != 0) goto fail;
    unlinkat(out->dir_fd, out->tmp, 0);
  } else if (renameat(out->dir_fd, out->tmp, out->dir_fd, out->base) != 0) {
    goto fail;
  }
  disarm();
  out->tmp[0] = 0;
  return 0;
fail:
  cli_err("%s: cannot put the output in place: %s", out->name, strerror(errno));
  return -1; /* release() removes a named temporary file */
}

int cli_out_commit(cli_out *out) {
  if (!out->f) return CLI_EXIT_FAIL;
  if (out->failed) {
    cli_out_abort(out);
    return CLI_EXIT_FAIL;
  }
  if (out->stage && stage_end(out, 1) != 0) {
    write_error(out);
    cli_out_abort(out);
    return CLI_EXIT_FAIL;
  }
  if (fflush(out->f) != 0 || ferror(out->f)) {
    write_error(out);
    cli_out_abort(out);
    return CLI_EXIT_FAIL;
  }
  if (out->direct) { /* stdout or a device */
    int rc = 0;
    if (out->f != stdout) rc = fclose(out->f);
    out->f = NULL;
    if (rc != 0) {
      cli_err("%s: write error: %s", out->name, strerror(errno));
      return CLI_EXIT_FAIL;
    }
    return 0;
  }
  int fd = fileno(out->f);
  /* The data reaches the disk before the name does (EINVAL: a file system
   * without fsync, nothing to wait for). */
  if (fsync(fd) != 0 && errno != EINVAL) {
    cli_err("%s: cannot write to disk: %s", out->name, strerror(errno));
    cli_out_abort(out);
    return CLI_EXIT_FAIL;
  }
  /* The temporary file is 0600; give the output the mode a new file would
   * get, or keep the mode of the file it replaces (keys: always 0600). */
  struct stat st;
  mode_t mode;
  if (out->flags & CLI_OUT_PRIVATE) {
    mode = 0600;
  } else if (fstatat(out->dir_fd, out->base, &st, 0) == 0) {
    mode = st.st_mode & 07777;
  } else {
    mode_t mask = umask(0);
    umask(mask);
    mode = 0666 & ~mask;
  }
  int rc = CLI_EXIT_OK;
  if (fchmod(fd, mode) != 0) {
    cli_err("%s: %s", out->name, strerror(errno));
    rc = CLI_EXIT_FAIL;
  } else if (place(out) != 0) {
    rc = CLI_EXIT_FAIL;
  } else if (fsync(out->dir_fd) != 0 && errno != EINVAL) {
    /* In place, but the new name may not survive a power loss. */
    cli_err("%s: cannot write the directory to disk: %s", out->name, strerror(errno));
    rc = CLI_EXIT_FAIL;
  }
  /* Closing after a successful fsync cannot lose data. */
  fclose(out->f);
  out->f = NULL;
  release(out);
  return rc;
}

void cli_out_abort(cli_out *out) {
  if (out->stage) stage_end(out, 0);
  if (out->f && out->f != stdout) fclose(out->f); /* an unnamed file is gone with it */
  else if (out->f == stdout) fflush(stdout);
  out->f = NULL;
  release(out);
}

/* One buffer as a whole file, through the same temporary file. */
int cli_write_file(const char *path, const void *p, size_t len, int flags) {
  cli_out o;
  int status = cli_out_open(&o, path, flags);
  if (!status) status = cli_out_write(&o, p, len);
  if (!status) status = cli_out_commit(&o);
  else cli_out_abort(&o);
  return status;
}

/* ---- outputs that are inputs ---- */

int cli_refuse_same_file(const char *sub, const char *out_path, const cli_input *ins, size_t n) {
  struct stat so, si;
  int out_stdout = !out_path || !strcmp(out_path, "-");
  /* Only a regular file can be destroyed this way (`>> key`; /dev/null may
   * well be both stdin and stdout). */
  if ((out_stdout ? fstat(1, &so) : stat(out_path, &so)) != 0 || !S_ISREG(so.st_mode)) return 0;
  for (size_t i = 0; i < n; i++) {
    const char *p = ins[i].path;
    if (!p) continue;
    int in_stdin = !strcmp(p, "-");
    if ((in_stdin ? fstat(0, &si) : stat(p, &si)) != 0) continue;
    if (si.st_dev != so.st_dev || si.st_ino != so.st_ino) continue;
    return cli_usage("%s: %s%s is the same file as the %s%s%s: refusing to overwrite it", sub,
                     out_stdout ? "stdout" : "the output ", out_stdout ? "" : out_path,
                     ins[i].what, in_stdin ? " (stdin)" : " ", in_stdin ? "" : p);
  }
  return 0;
}
