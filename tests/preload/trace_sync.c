/* LD_PRELOAD library for tests/test_fsync.sh: logs the calls that make an
 * output file durable and give it its name, then makes the real call. One
 * line per call to the file named by $GOSTX_TRACE (names without their
 * directories):
 *   fsync file | fsync dir | fsync other      (fsync, fdatasync)
 *   link NEW                                   (link, linkat)
 *   rename OLD NEW                             (rename, renameat, renameat2)
 * Linux/glibc (dlsym RTLD_NEXT); built only for the tests. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void trace(const char *what, const char *a, const char *b) {
  const char *path = getenv("GOSTX_TRACE");
  if (!path) return;
  char line[1024];
  int n = snprintf(line, sizeof line, "%s%s%s%s%s\n", what, a ? " " : "", a ? a : "",
                   b ? " " : "", b ? b : "");
  if (n < 0 || (size_t)n >= sizeof line) return;
  int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return;
  if (write(fd, line, (size_t)n) < 0) { /* a test log: nothing to do */
  }
  close(fd);
}

static const char *base(const char *p) {
  const char *s = p ? strrchr(p, '/') : NULL;
  return s ? s + 1 : p;
}

static const char *kind(int fd) {
  struct stat st;
  if (fstat(fd, &st) != 0) return "other";
  return S_ISREG(st.st_mode) ? "file" : S_ISDIR(st.st_mode) ? "dir" : "other";
}

#define REAL(name, type) ((type)dlsym(RTLD_NEXT, name))

int fsync(int fd) {
  trace("fsync", kind(fd), NULL);
  return REAL("fsync", int (*)(int))(fd);
}

int fdatasync(int fd) {
  trace("fsync", kind(fd), NULL);
  return REAL("fdatasync", int (*)(int))(fd);
}

int link(const char *from, const char *to) {
  trace("link", base(to), NULL);
  return REAL("link", int (*)(const char *, const char *))(from, to);
}

int linkat(int fromdir, const char *from, int todir, const char *to, int flags) {
  trace("link", base(to), NULL);
  return REAL("linkat", int (*)(int, const char *, int, const char *, int))(fromdir, from, todir,
                                                                            to, flags);
}

int rename(const char *from, const char *to) {
  trace("rename", base(from), base(to));
  return REAL("rename", int (*)(const char *, const char *))(from, to);
}

int renameat(int fromdir, const char *from, int todir, const char *to) {
  trace("rename", base(from), base(to));
  return REAL("renameat", int (*)(int, const char *, int, const char *))(fromdir, from, todir, to);
}

int renameat2(int fromdir, const char *from, int todir, const char *to, unsigned flags) {
  trace("rename", base(from), base(to));
  return REAL("renameat2", int (*)(int, const char *, int, const char *, unsigned))(
      fromdir, from, todir, to, flags);
}
