/* gostx_random_bytes: the OS generator, for salts, keys and LUKS stripes.
 * getrandom first; /dev/urandom where the kernel predates it. */
#include <errno.h>
#include <fcntl.h>
#include <sys/random.h>
#include <unistd.h>

#include "internal.h"

int gostx_random_bytes(uint8_t *buf, size_t len) {
  if (!buf && len) return GOSTX_EINVAL;
  size_t done = 0;
  while (done < len) {
    ssize_t r = getrandom(buf + done, len - done, 0);
    if (r > 0) {
      done += (size_t)r;
      continue;
    }
    if (r < 0 && errno == EINTR) continue;
    break; /* ENOSYS (old kernel) or other: fall back */
  }
  if (done == len) return GOSTX_OK;
  int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return GOSTX_EIO;
  while (done < len) {
    ssize_t r = read(fd, buf + done, len - done);
    if (r > 0) {
      done += (size_t)r;
    } else if (!(r < 0 && errno == EINTR)) {
      close(fd);
      gostx_memzero(buf, len);
      return GOSTX_EIO;
    }
  }
  close(fd);
  return GOSTX_OK;
}
