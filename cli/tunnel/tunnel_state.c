/* gostx tunnel: the state file, which keeps MGM nonces from ever being
 * reused and replays from ever being accepted across restarts and crashes
 * (docs/TUNNEL.md, "The state file"). Three lines:
 *
 *   gostx tunnel state 1
 *   out FINGERPRINT RESERVED   every outbound sequence number <= RESERVED may have been sent
 *   in FINGERPRINT RESERVED    every inbound one <= RESERVED may have been accepted
 *
 * FINGERPRINT (64 hex digits) names the SA's keys without revealing them:
 * KDF_256(K, "gostx tunnel state: key fingerprint", transform | salt), so a
 * state file of other keys, or none, is noticed. Both numbers are reserved
 * ahead of use: written (and fsynced) before any number above the old
 * reservation is sent or accepted. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "tunnel.h"
#include "tunnel_gw.h"

#define STATE_MAGIC "gostx tunnel state 1\n"
#define STATE_MAX 512 /* bytes: a longer file is no state file */

struct state_file {
  int present, legacy;
  uint8_t fp_out[TUNNEL_FP_LEN], fp_in[TUNNEL_FP_LEN];
  uint64_t out, in;
};

static int fingerprint(const gostx_esp_sa *sa, uint8_t fp[TUNNEL_FP_LEN]) {
  static const uint8_t label[] = "gostx tunnel state: key fingerprint";
  uint8_t seed[1 + GOSTX_ESP_SALT_MAX];
  seed[0] = (uint8_t)sa->transform;
  memcpy(seed + 1, sa->salt, sa->salt_len);
  int rc = gostx_kdf256(sa->key, GOSTX_ESP_KEY_LEN, label, sizeof label - 1, seed,
                        1 + sa->salt_len, fp);
  gostx_memzero(seed, sizeof seed);
  return rc;
}

int tunnel_fingerprints(struct tunnel_state *sf) {
  if (fingerprint(&sf->st_out->esp, sf->fp_out) || fingerprint(&sf->st_in->esp, sf->fp_in)) {
    cli_err("tunnel: cannot derive the key fingerprints");
    return CLI_EXIT_FAIL;
  }
  return 0;
}

/* A decimal number of 1..20 digits at s, strictly (no sign, no spaces, no
 * overflow): the character after it, or NULL. */
static const char *parse_dec(const char *s, uint64_t *v) {
  uint64_t x = 0;
  const char *p = s;
  for (; *p >= '0' && *p <= '9'; p++) {
    if (x > (UINT64_MAX - (uint64_t)(*p - '0')) / 10) return NULL;
    x = x * 10 + (uint64_t)(*p - '0');
  }
  if (p == s || p - s > 20) return NULL;
  *v = x;
  return p;
}

static const char *parse_fp(const char *s, uint8_t fp[TUNNEL_FP_LEN]) {
  for (size_t i = 0; i < 2 * TUNNEL_FP_LEN; i++) {
    char c = s[i];
    int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (d < 0) return NULL;
    if (i % 2 == 0) fp[i / 2] = (uint8_t)(d << 4);
    else fp[i / 2] |= (uint8_t)d;
  }
  return s + 2 * TUNNEL_FP_LEN;
}

/* "TAG FINGERPRINT NUMBER\n" at s: the text after it, or NULL. */
static const char *parse_line(const char *s, const char *tag, uint8_t *fp, uint64_t *v) {
  size_t n = strlen(tag);
  if (strncmp(s, tag, n) || s[n] != ' ' || !(s = parse_fp(s + n + 1, fp)) || *s++ != ' ')
    return NULL;
  s = parse_dec(s, v);
  return s && *s == '\n' ? s + 1 : NULL;
}

/* The file at path into st (absent: st->present 0). 0, or -1 after a
 * message. Before 2026-11-26 the file held one decimal number (the
 * outbound reservation) and STATE.in the window's top: read as legacy. */
static int state_read(const char *path, struct state_file *st) {
  memset(st, 0, sizeof *st);
  struct stat sb;
  int fd = tunnel_open_regular(path, &sb);
  if (fd < 0) {
    if (errno == ENOENT) return 0;
    cli_err("%s: %s", path, errno == EINVAL ? "not a regular file" : strerror(errno));
    return -1;
  }
  char buf[STATE_MAX + 1];
  long got = tunnel_read_all(fd, buf, sizeof buf - 1);
  int e = errno;
  close(fd);
  if (got < 0) {
    cli_err("%s: %s", path, strerror(e));
    return -1;
  }
  size_t len = (size_t)got;
  buf[len] = 0;
  st->present = 1;
  const char *end = NULL;
  if (len && strlen(buf) == len) {
    if (buf[0] >= '0' && buf[0] <= '9') {
      st->legacy = 1;
      end = parse_dec(buf, &st->out);
      if (end && *end == '\n') end++;
    } else if (!strncmp(buf, STATE_MAGIC, sizeof STATE_MAGIC - 1)) {
      end = parse_line(buf + sizeof STATE_MAGIC - 1, "out", st->fp_out, &st->out);
      if (end) end = parse_line(end, "in", st->fp_in, &st->in);
    }
  }
  if (!end || *end) {
    cli_err("%s: not a gostx tunnel state file (or damaged); move it away only if the "
            "keys are new (then start with --new-keys)",
            path);
    return -1;
  }
  return 0;
}

/* The state's temporary file (STATE.tmp) written with out and in; kept
 * open in *fd for the caller to make durable: 0, or -1 with errno set. */
static int tmp_write(const struct tunnel_state *sf, uint64_t out, uint64_t in, int *fd) {
  char tmp[sizeof sf->path + 8];
  snprintf(tmp, sizeof tmp, "%s.tmp", sf->path);
  *fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (*fd < 0) return -1;
  char text[STATE_MAX], hex_out[2 * TUNNEL_FP_LEN + 1], hex_in[2 * TUNNEL_FP_LEN + 1];
  for (size_t i = 0; i < TUNNEL_FP_LEN; i++) {
    snprintf(hex_out + 2 * i, 3, "%02x", sf->fp_out[i]);
    snprintf(hex_in + 2 * i, 3, "%02x", sf->fp_in[i]);
  }
  int n = snprintf(text, sizeof text, STATE_MAGIC "out %s %llu\nin %s %llu\n", hex_out,
                   (unsigned long long)out, hex_in, (unsigned long long)in);
  if (write(*fd, text, (size_t)n) != n) {
    int e = errno;
    close(*fd);
    unlink(tmp);
    errno = e ? e : EIO;
    return -1;
  }
  return 0;
}

/* The durable temporary file (fd closed here) put in the state's place: 0,
 * or -1 with errno set. The directory is synced by the caller. */
static int tmp_commit(const struct tunnel_state *sf, int fd, int bad, int e) {
  char tmp[sizeof sf->path + 8];
  snprintf(tmp, sizeof tmp, "%s.tmp", sf->path);
  if (close(fd) < 0 && !bad) bad = 1, e = errno;
  if (bad || rename(tmp, sf->path) < 0) {
    if (!bad) e = errno;
    unlink(tmp);
    errno = e;
    return -1;
  }
  return 0;
}

/* The folder of path synced: its renames durable. */
static void dir_sync(const char *path) {
  char dir[TUNNEL_PATH_MAX + 48];
  snprintf(dir, sizeof dir, "%s", path);
  char *slash = strrchr(dir, '/');
  if (slash == dir) slash[1] = 0;
  else if (slash) *slash = 0;
  else strcpy(dir, ".");
  int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    fsync(dfd);
    close(dfd);
  }
}

/* Writes the state whole (a temporary file, fsync, rename, the directory
 * synced): 0, or -1 with errno set. */
static int state_write(struct tunnel_state *sf, uint64_t out, uint64_t in) {
  int fd;
  if (tmp_write(sf, out, in, &fd) < 0) return -1;
  int bad = fsync(fd) < 0, e = errno;
  if (tmp_commit(sf, fd, bad, e) < 0) return -1;
  dir_sync(sf->path);
  TUNNEL_ADD(sf->writes, 1);
  return 0;
}

static void sidecar(const struct tunnel_config *cfg, const char *ext, char *out, size_t cap) {
  snprintf(out, cap, "%s%s", cfg->state, ext);
}

/* The inbound top a legacy STATE.in kept (0 when absent): 0, or -1. */
static int legacy_window(const struct tunnel_state *sf, uint64_t *top) {
  char path[sizeof sf->path + 8];
  snprintf(path, sizeof path, "%s.in", sf->path);
  struct state_file w;
  *top = 0;
  if (state_read(path, &w)) return -1;
  if (w.present && !w.legacy) {
    cli_err("%s: not a window file (one decimal number)", path);
    return -1;
  }
  *top = w.out;
  return 0;
}

static uint64_t add_sat(uint64_t a, uint64_t b, uint64_t cap) {
  return a > cap || b > cap - a ? cap : a + b;
}

/* The state files of t: the point-to-point tunnel's one, or each peer's. */
static size_t state_count(const struct tunnel *t) { return t->gw ? t->gw->npeers : 1; }
static struct tunnel_state *state_at(struct tunnel *t, size_t i) {
  return t->gw ? &t->gw->peers[i].sf : &t->sf;
}

/* One state file read into sf and checked against its keys. A gateway's
 * --new-keys is for the peers whose files are missing or of other keys (a
 * peer added): the others' files of these keys are taken as they are. A
 * peer added by a SIGHUP (added) starts at 1 without a file, and a file of
 * other keys is refused: SIGHUP has no --new-keys to say they are new. */
static int state_load_one(struct tunnel *t, struct tunnel_state *sf, int run, int added) {
  const char *path = sf->path;
  const int new_keys = t->new_keys && !added;
  struct state_file st;
  if (state_read(path, &st)) return CLI_EXIT_FAIL;
  uint64_t out = 0, in = 0;
  if (!st.present) {
    if (!new_keys && !added) {
      cli_err("%s: no state file: if key_out and key_in are new (never used by a tunnel), "
              "start once with --new-keys; if they were used, their state is lost: make new "
              "keys (these would reuse nonces)",
              path);
      return CLI_EXIT_FAIL;
    }
  } else if (st.legacy) {
    /* no fingerprints yet: taken as these keys' (a higher outbound number
     * than needed costs nothing). With --new-keys whose it is cannot be
     * told: keys kept over an upgrade restarted at 1 would reuse nonces */
    if (new_keys) {
      cli_err("%s: written by an older gostx (no key fingerprints): with --new-keys it "
              "cannot tell whether these keys are new: if they are, move %s (and %s.in) "
              "away first; if they were used, start without --new-keys",
              path, path, path);
      return CLI_EXIT_FAIL;
    }
    out = st.out;
    if (legacy_window(sf, &in)) return CLI_EXIT_FAIL;
  } else {
    int same_out = !gostx_memeq_ct(st.fp_out, sf->fp_out, TUNNEL_FP_LEN);
    int same_in = !gostx_memeq_ct(st.fp_in, sf->fp_in, TUNNEL_FP_LEN);
    if (same_out && same_in && new_keys && !t->gw) {
      cli_err("%s: holds the state of these very keys (outbound numbers used up to %llu): "
              "they are not new; start without --new-keys",
              path, (unsigned long long)st.out);
      return CLI_EXIT_FAIL;
    }
    if (!(same_out && same_in) && !new_keys) {
      const char *which = !same_out && !same_in ? "key_out and key_in" : !same_out ? "key_out"
                                                                                  : "key_in";
      cli_err("%s%s: the state of other keys (%s differ%s): if %s %s new, %s; if the file is "
              "another tunnel's, give this tunnel its own",
              added ? "tunnel: reload refused: " : "", path, which, same_out || same_in ? "s" : "",
              which, same_out || same_in ? "is" : "are",
              added ? "move the file away (a peer added without one starts at 1)"
                    : "start once with --new-keys");
      return CLI_EXIT_FAIL;
    }
    out = same_out ? st.out : 0;
    in = same_in ? st.in : 0;
  }
  uint64_t limit = sf->st_out->esp.limit;
  if (out >= limit) {
    cli_err("%s: the outbound SA's sequence numbers are used up (%llu, the limit is %llu): "
            "new keys and SPIs needed (then start once with --new-keys)",
            path, (unsigned long long)out, (unsigned long long)limit);
    return CLI_EXIT_FAIL;
  }
  if (st.legacy)
    fprintf(stderr, "gostx tunnel: %s: written by an older gostx (no key fingerprints): "
                    "taken as the state of key_out and key_in%s\n",
            path, run ? ", and rewritten with them" : "");
  atomic_store(&sf->st_out->seq_used, out);
  atomic_store(&sf->seq_saved, out);
  atomic_store(&sf->in_saved, in);
  atomic_store(&sf->in_margin, TUNNEL_IN_MARGIN_MIN);
  if (in) {
    /* everything up to the reservation counts as seen: packets accepted
     * before a restart or a crash cannot be replayed after it */
    sf->st_in->replay.top = in;
    memset(sf->st_in->replay.bits, 0xff, sizeof sf->st_in->replay.bits);
  }
  sf->legacy = st.legacy;
  return 0;
}

int tunnel_state_load(struct tunnel *t, int run) {
  if (run) {
    /* held while the tunnel runs: two tunnels on one state file would send
     * the same numbers; --status asks it whether the tunnel runs */
    char lock[TUNNEL_PATH_MAX + 8];
    sidecar(&t->cfg, ".lock", lock, sizeof lock);
    t->lock_fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (t->lock_fd < 0 || flock(t->lock_fd, LOCK_EX | LOCK_NB) < 0) {
      cli_err("%s: %s", lock,
              errno == EWOULDBLOCK ? "a tunnel with this state file is running already"
                                   : strerror(errno));
      return CLI_EXIT_FAIL;
    }
  }
  if (t->cfg.keying == TUNNEL_KEYING_IKEV2) {
    /* fresh keys at every SA: no numbers to reserve, nothing written (the
     * reservations never come due) */
    atomic_store(&t->sf.seq_saved, UINT64_MAX);
    atomic_store(&t->sf.in_saved, UINT64_MAX);
    return 0;
  }
  for (size_t i = 0; i < state_count(t); i++) {
    if (!state_at(t, i)->st_out) continue; /* a gateway's free slot */
    int rc = state_load_one(t, state_at(t, i), run, 0);
    if (rc) return rc;
  }
  return 0;
}

/* The first step reserved now: a disk that cannot take it shows at once. */
static int state_begin_one(struct tunnel_state *sf) {
  uint64_t out = atomic_load(&sf->st_out->seq_used);
  uint64_t reserve = add_sat(out, TUNNEL_SEQ_STEP, sf->st_out->esp.limit);
  if (state_write(sf, reserve, atomic_load(&sf->in_saved)) < 0) {
    cli_err("%s: %s", sf->path, strerror(errno));
    return CLI_EXIT_FAIL;
  }
  atomic_store(&sf->seq_saved, reserve);
  if (sf->legacy) {
    char path[sizeof sf->path + 8];
    snprintf(path, sizeof path, "%s.in", sf->path);
    unlink(path); /* now in the state file */
  }
  return 0;
}

int tunnel_state_begin(struct tunnel *t) {
  if (t->cfg.keying == TUNNEL_KEYING_IKEV2) return 0;
  for (size_t i = 0; i < state_count(t); i++) {
    if (!state_at(t, i)->st_out) continue; /* a gateway's free slot */
    int rc = state_begin_one(state_at(t, i));
    if (rc) return rc;
  }
  return 0;
}

/* gostx until 2026-11-27 put the ESN itself in the IV, now ESN - 1 (RFC
 * 9227 4.8: pnum starts at 0). The first number after the state file's is
 * skipped at every start: the next number's IV is now the IV an older gostx
 * gave the file's last number, which may have been sent under these keys. */
void tunnel_state_skip_one(struct tunnel_state *sf) {
  const uint64_t used = atomic_load(&sf->st_out->seq_used);
  if (used < sf->st_out->esp.limit) atomic_store(&sf->st_out->seq_used, used + 1);
}

int tunnel_state_add(struct tunnel *t, struct tunnel_state *sf) {
  int rc = state_load_one(t, sf, 1, 1);
  if (!rc) tunnel_state_skip_one(sf);
  return rc ? rc : state_begin_one(sf);
}

int tunnel_state_running(const struct tunnel_config *cfg) {
  char lock[TUNNEL_PATH_MAX + 8];
  sidecar(cfg, ".lock", lock, sizeof lock);
  int fd = open(lock, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0 && errno == ENOENT) return 0;
  if (fd < 0) {
    cli_err("%s: %s", lock, strerror(errno));
    return -1;
  }
  int running = flock(fd, LOCK_SH | LOCK_NB) < 0 && errno == EWOULDBLOCK;
  close(fd);
  return running;
}

static void say_save_failed(struct tunnel_state *sf, int e) {
  if (!atomic_exchange(&sf->save_failed, 1))
    cli_err("tunnel: %s: cannot write the state file (%s): packets are dropped until it can be",
            sf->path, strerror(e));
}

int tunnel_out_reserve(struct tunnel_state *sf, struct tunnel_sa *sa, uint64_t last) {
  uint64_t limit = sa->esp.limit;
  if (last > atomic_load(&sf->seq_saved)) {
    pthread_mutex_lock(&sf->lock);
    int ok = 1, e = 0;
    uint64_t saved = atomic_load(&sf->seq_saved);
    if (sa == sf->st_out && last > saved) { /* else a reload moved the file on */
      uint64_t next = add_sat(saved, TUNNEL_SEQ_STEP, limit);
      if (next < last) next = last;
      ok = state_write(sf, next, atomic_load(&sf->in_saved)) == 0;
      e = errno;
      if (ok) {
        atomic_store(&sf->seq_saved, next);
        TUNNEL_ADD(sf->writes_by_worker, 1);
      }
    }
    pthread_mutex_unlock(&sf->lock);
    if (!ok) {
      say_save_failed(sf, e); /* the numbers taken stay unused */
      return -1;
    }
  }
  atomic_store(&sf->save_failed, 0);
  return 0;
}

/* Reserves the inbound numbers up to top + margin: 0 or -1 (errno). Under
 * sf->lock. */
static int in_write(struct tunnel_state *sf, uint64_t top, uint64_t margin) {
  uint64_t next = add_sat(top, margin, UINT64_MAX);
  if (state_write(sf, atomic_load(&sf->seq_saved), next) < 0) return -1;
  atomic_store(&sf->in_saved, next);
  return 0;
}

/* The inbound margin for `accepted` packets a second: what a crash costs is
 * at most about a second of the peer's packets, however far its numbers
 * jumped (a restart of the peer skips up to TUNNEL_SEQ_STEP of them). */
static uint64_t margin_for(uint64_t accepted) {
  if (accepted < TUNNEL_IN_MARGIN_MIN) return TUNNEL_IN_MARGIN_MIN;
  return accepted > TUNNEL_SEQ_STEP ? TUNNEL_SEQ_STEP : accepted;
}

int tunnel_in_reserve(struct tunnel_state *sf, struct tunnel_sa *sa, uint64_t top) {
  if (top <= atomic_load(&sf->in_saved)) return 0;
  pthread_mutex_lock(&sf->lock);
  int rc = 0, e = 0;
  if (sa == sf->st_in && top > atomic_load(&sf->in_saved)) { /* else a reload moved the file on */
    /* the workers got here before the tick renewed it: if more packets
     * came since the tick than the margin covers, the rate rose, and that
     * many are reserved; a jump of the peer's numbers alone changes nothing */
    uint64_t m = atomic_load(&sf->in_margin);
    uint64_t since = atomic_load(&sf->st_in->accepted) - atomic_load(&sf->in_accepted_tick);
    if (margin_for(since) > m) m = margin_for(since);
    rc = in_write(sf, top, m);
    e = errno;
    if (!rc) {
      atomic_store(&sf->in_margin, m);
      TUNNEL_ADD(sf->writes_by_worker, 1);
    }
  }
  pthread_mutex_unlock(&sf->lock);
  if (rc) say_save_failed(sf, e);
  return rc;
}

/* One renewal of a tick: the state, its temporary file (open) and the
 * numbers in it. */
struct renewal {
  struct tunnel_state *sf;
  int fd, ok;
  uint64_t out, in;
};

/* Whether sf's reservations run short (r filled, sf->lock held, its
 * temporary file written: 1) or not (0). elapsed_ms: since the last tick. */
static int tick_due(struct tunnel_state *sf, int64_t elapsed_ms, struct renewal *r) {
  if (!sf->st_out || !sf->st_in) return 0; /* no static keys (ikev2, or switched): no state file */
  pthread_mutex_lock(&sf->st_in->replay_lock);
  const uint64_t top = sf->st_in->replay.top;
  pthread_mutex_unlock(&sf->st_in->replay_lock);
  /* the margin: a second's packets at the rate since the last tick, or
   * the last margin less a quarter (a short lull keeps most of it) */
  const uint64_t accepted = atomic_load(&sf->st_in->accepted);
  const uint64_t since = accepted - atomic_load(&sf->in_accepted_tick);
  const uint64_t per_s = since > UINT64_MAX / 1000 ? UINT64_MAX : since * 1000 / (uint64_t)elapsed_ms;
  uint64_t m = margin_for(per_s), last = atomic_load(&sf->in_margin);
  if (m < last - last / 4) m = last - last / 4;
  atomic_store(&sf->in_accepted_tick, accepted);
  atomic_store(&sf->in_margin, m);
  /* renewed with 3/4 of the margin left: the workers reach the end only
   * if the rate doubles within a tick */
  const uint64_t in_saved = atomic_load(&sf->in_saved), out_saved = atomic_load(&sf->seq_saved);
  const uint64_t used = atomic_load(&sf->st_out->seq_used), limit = sf->st_out->esp.limit;
  const int in_due = in_saved < top || in_saved - top < m - m / 4;
  const int out_due = out_saved < limit && (used >= out_saved || out_saved - used < TUNNEL_SEQ_STEP / 2);
  if (!in_due && !out_due) return 0;
  pthread_mutex_lock(&sf->lock);
  r->sf = sf;
  r->out = atomic_load(&sf->seq_saved);
  if (out_due && r->out < limit) r->out = add_sat(r->out, TUNNEL_SEQ_STEP, limit);
  r->in = atomic_load(&sf->in_saved);
  if (in_due && add_sat(top, m, UINT64_MAX) > r->in) r->in = add_sat(top, m, UINT64_MAX);
  if (tmp_write(sf, r->out, r->in, &r->fd) < 0) { /* the workers retry, and say it */
    pthread_mutex_unlock(&sf->lock);
    return 0;
  }
  return 1;
}

/* A tick's renewals made durable together: one syncfs is one journal
 * commit for all their files, where an fsync each is a commit each (64
 * busy peers: 64 a tick); then renamed, their folder (the main state
 * file's: every peer's file is beside it) synced once. */
static void renew(struct renewal *r, size_t k) {
  const int bad = (k == 1 ? fsync(r[0].fd) : syncfs(r[0].fd)) < 0, e = errno;
  int any = 0;
  for (size_t j = 0; j < k; j++) {
    r[j].ok = tmp_commit(r[j].sf, r[j].fd, bad, e) == 0;
    any |= r[j].ok;
  }
  if (any) dir_sync(r[0].sf->path);
  for (size_t j = 0; j < k; j++) {
    struct tunnel_state *sf = r[j].sf;
    if (r[j].ok) {
      atomic_store(&sf->seq_saved, r[j].out);
      atomic_store(&sf->in_saved, r[j].in);
      TUNNEL_ADD(sf->writes, 1);
    }
    pthread_mutex_unlock(&sf->lock);
  }
}

#define TICK_BATCH 64

void tunnel_state_tick(struct tunnel *t) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  const int64_t now = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
  /* a signal's early wake-up: the rate is read over a full tick */
  if (t->state_tick_ms && now - t->state_tick_ms < TUNNEL_STATE_TICK_MS / 2) return;
  const int64_t elapsed = t->state_tick_ms ? now - t->state_tick_ms : TUNNEL_STATE_TICK_MS;
  t->state_tick_ms = now;
  struct renewal r[TICK_BATCH];
  for (size_t i = 0, n = state_count(t); i < n;) {
    size_t k = 0;
    for (; i < n && k < TICK_BATCH; i++) k += (size_t)tick_due(state_at(t, i), elapsed, &r[k]);
    if (k) renew(r, k);
  }
}

void tunnel_state_writes(struct tunnel *t, uint64_t *all, uint64_t *by_worker) {
  *all = *by_worker = 0;
  for (size_t i = 0; i < state_count(t); i++) {
    *all += atomic_load(&state_at(t, i)->writes);
    *by_worker += atomic_load(&state_at(t, i)->writes_by_worker);
  }
}

void tunnel_state_stop(struct tunnel_state *sf) {
  if (!sf->st_out || !sf->st_in) return;
  /* no worker reaches it: the exact numbers used and accepted */
  pthread_mutex_lock(&sf->lock);
  uint64_t used = atomic_load(&sf->st_out->seq_used), top = sf->st_in->replay.top;
  if (state_write(sf, used, top) == 0) {
    atomic_store(&sf->seq_saved, used);
    atomic_store(&sf->in_saved, top);
  }
  pthread_mutex_unlock(&sf->lock);
}

void tunnel_state_close(struct tunnel *t) {
  for (size_t i = 0; i < state_count(t); i++) tunnel_state_stop(state_at(t, i));
}

/* Whether fp is one of the current pair's fingerprints. */
static int fp_current(const struct tunnel_state *sf, const uint8_t fp[TUNNEL_FP_LEN]) {
  return !gostx_memeq_ct(fp, sf->fp_out, TUNNEL_FP_LEN) ||
         !gostx_memeq_ct(fp, sf->fp_in, TUNNEL_FP_LEN);
}

int tunnel_state_rekey(struct tunnel_state *sf, struct tunnel_sa *out, struct tunnel_sa *in) {
  uint8_t fo[TUNNEL_FP_LEN], fi[TUNNEL_FP_LEN], old_out[TUNNEL_FP_LEN], old_in[TUNNEL_FP_LEN];
  if (fingerprint(&out->esp, fo) || fingerprint(&in->esp, fi)) {
    cli_err("tunnel: cannot derive the key fingerprints");
    return CLI_EXIT_FAIL;
  }
  pthread_mutex_lock(&sf->lock);
  /* a key used again from sequence number 1 would reuse its nonces */
  int reused = fp_current(sf, fo) || fp_current(sf, fi), rc = CLI_EXIT_FAIL;
  if (reused) {
    cli_err("tunnel: reload refused: key_out or key_in is a key this tunnel uses now (its "
            "numbers would start again at 1: nonces reused); give both ends new key files");
  } else {
    memcpy(old_out, sf->fp_out, TUNNEL_FP_LEN);
    memcpy(old_in, sf->fp_in, TUNNEL_FP_LEN);
    memcpy(sf->fp_out, fo, TUNNEL_FP_LEN);
    memcpy(sf->fp_in, fi, TUNNEL_FP_LEN);
    uint64_t reserve = add_sat(0, TUNNEL_SEQ_STEP, out->esp.limit);
    if (state_write(sf, reserve, TUNNEL_IN_MARGIN_MIN) == 0) {
      atomic_store(&sf->seq_saved, reserve);
      atomic_store(&sf->in_saved, TUNNEL_IN_MARGIN_MIN);
      atomic_store(&sf->in_margin, TUNNEL_IN_MARGIN_MIN);
      atomic_store(&sf->in_accepted_tick, 0);
      atomic_store(&sf->st_out, out);
      atomic_store(&sf->st_in, in);
      rc = 0;
    } else {
      cli_err("tunnel: reload refused: %s: %s", sf->path, strerror(errno));
      memcpy(sf->fp_out, old_out, TUNNEL_FP_LEN);
      memcpy(sf->fp_in, old_in, TUNNEL_FP_LEN);
    }
  }
  pthread_mutex_unlock(&sf->lock);
  return rc;
}
