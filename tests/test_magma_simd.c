/* The vector Magma / GOST 28147-89 implementations (every row of the
 * dispatcher's Magma list but portable, tests/support/rows.h), called
 * through their tables directly, against the portable core: every S-box set, both byte conventions, random
 * and edge-case keys (bytes 0x00 / 0xff stress the carries of the
 * byte-sliced addition), every block count 0..400 (all counts around the
 * group widths 16, 32 and 64 and their multiples, the 128-block pairs of
 * 64-block groups, a rest of 65..127 blocks as a padded pair, and the
 * avx512 rows' few-blocks kernel: calls and rests of 1..64 blocks, 8 a
 * register, the last one partial), misaligned buffers, in place, encrypt
 * and decrypt; the counter fills of CTR and MGM; plus the
 * RFC 8891 example through each in multi-block calls. Rows the CPU lacks
 * are reported and skipped. */
#include <stdlib.h>

#include "magma/impl.h"
#include "rows.h"
#include "testutil.h"

#if defined(__has_include)
#if __has_include(<valgrind/memcheck.h>)
#include <valgrind/memcheck.h>
#define HAVE_MEMCHECK 1
#endif
#endif

#define MAX_BLOCKS 400

/* The rows under test (all but portable, the reference), from main. */
static struct t_row rows[T_MAX_ROWS];
static size_t nrows;

/* Key bytes: random, or drawn from the carry edge values. */
static void make_key(uint8_t key[32], int style) {
  static const uint8_t edge[] = {0x00, 0xff, 0x7f, 0x80, 0x01, 0xfe};
  t_rand_bytes(key, 32);
  if (style == 1) memset(key, 0xff, 32);
  if (style == 2) memset(key, 0x00, 32);
  if (style == 3)
    for (int i = 0; i < 32; i++) key[i] = edge[t_rand_below(sizeof edge)];
}

static void set_key(gostx_magma_key *k, const uint8_t key[32], int set, int le) {
  if (le) gostx_gost89_set_key(k, key, set);
  else gostx_magma_set_key(k, key); /* Magma is S-box Z ... */
  k->sbox_id = (uint32_t)set;        /* ... but the core takes any set in either order */
}

static void differential(void) {
  static uint8_t in[8 * MAX_BLOCKS + 16], want_e[8 * MAX_BLOCKS], want_d[8 * MAX_BLOCKS];
  static uint8_t out[8 * MAX_BLOCKS + 16], buf[8 * MAX_BLOCKS + 16];
  unsigned cases = 0;
  for (int set = 0; set < GOSTX_SBOX_COUNT; set++)
    for (int le = 0; le < 2; le++)
      for (size_t n = 0; n <= MAX_BLOCKS; n++) {
        uint8_t key[32];
        gostx_magma_key k;
        make_key(key, (int)(n % 8 < 4 ? n % 8 : 0));
        set_key(&k, key, set, le);
        size_t off_in = 1 + n % 15, off_out = 15 - n % 15; /* never both aligned */
        t_rand_bytes(in + off_in, 8 * n);
        if (n % 5 == 0) memset(in + off_in, 0xff, 8 * n / 2); /* plaintext edge bytes */
        gostx_magma_portable.encrypt_blocks(&k, in + off_in, want_e, n);
        gostx_magma_portable.decrypt_blocks(&k, in + off_in, want_d, n);
        for (size_t r = 0; r < nrows; r++) {
          const struct gostx_magma_impl *im = rows[r].impl;
          char what[96];
          snprintf(what, sizeof what, "%s set %d le %d n %zu encrypt", im->name, set, le, n);
          memset(out, 0xa5, sizeof out);
          im->encrypt_blocks(&k, in + off_in, out + off_out, n);
          CHECK_BYTES(out + off_out, want_e, 8 * n, what);
          CHECK(out[off_out + 8 * n] == 0xa5 && (off_out == 0 || out[off_out - 1] == 0xa5),
                "%s: writes only its blocks", what);
          snprintf(what, sizeof what, "%s set %d le %d n %zu decrypt", im->name, set, le, n);
          im->decrypt_blocks(&k, in + off_in, out + off_out, n);
          CHECK_BYTES(out + off_out, want_d, 8 * n, what);
          /* In place, at the input's (misaligned) offset; and the round trip. */
          memcpy(buf + off_in, in + off_in, 8 * n);
          im->encrypt_blocks(&k, buf + off_in, buf + off_in, n);
          snprintf(what, sizeof what, "%s set %d le %d n %zu in-place encrypt", im->name, set, le, n);
          CHECK_BYTES(buf + off_in, want_e, 8 * n, what);
          im->decrypt_blocks(&k, buf + off_in, buf + off_in, n);
          snprintf(what, sizeof what, "%s set %d le %d n %zu round trip", im->name, set, le, n);
          CHECK_BYTES(buf + off_in, in + off_in, 8 * n, what);
          if (n == MAX_BLOCKS) t_row_checked(GOSTX_ALG_MAGMA, im);
          cases++;
        }
      }
  printf("differential: %u cases\n", cases);
}

/* The one-block paths of the sequential modes (impl.h: chain, imit16_words;
 * on x86-64 magma_x86_64.c) against compositions of portable blocks: every
 * op, S-box set and byte convention, 0..70 blocks, edge-case keys, in
 * place and misaligned. */
static void chains(void) {
  static uint8_t in[8 * 80 + 16], out[8 * 80 + 16], want[8 * 80], buf[8 * 80 + 16];
  unsigned cases = 0;
  for (int set = 0; set < GOSTX_SBOX_COUNT; set++)
    for (int le = 0; le < 2; le++)
      for (size_t n = 0; n <= 70; n++) {
        uint8_t key[32], s0[8], ws[8], s[8], p[8];
        gostx_magma_key k;
        make_key(key, (int)(n % 4));
        set_key(&k, key, set, le);
        const size_t off = 1 + n % 7;
        t_rand_bytes(in + off, 8 * n);
        t_rand_bytes(s0, 8);
        const int op = (int)(n % 4);
        memcpy(ws, s0, 8);
        for (size_t i = 0; i < n; i++) { /* the definition, block by block */
          memcpy(p, in + off + 8 * i, 8);
          if (op == GOSTX__MAGMA_CHAIN_CBC || op == GOSTX__MAGMA_CHAIN_MAC) gostx_xor(ws, ws, p, 8);
          gostx_magma_portable.encrypt_blocks(&k, ws, ws, 1);
          if (op == GOSTX__MAGMA_CHAIN_CFB) gostx_xor(ws, ws, p, 8);
          if (op == GOSTX__MAGMA_CHAIN_OFB) gostx_xor(want + 8 * i, ws, p, 8);
          else memcpy(want + 8 * i, ws, 8);
        }
        uint32_t w1 = gostx_load32_le(s0), w0 = gostx_load32_le(s0 + 4);
        gostx__magma_imit16_words(&k, &w1, &w0);
        const struct gostx_magma_impl *all[T_MAX_ROWS + 1];
        size_t na = 0;
        all[na++] = &gostx_magma_portable;
        for (size_t r = 0; r < nrows; r++) all[na++] = rows[r].impl;
        for (size_t j = 0; j < na; j++) {
          char what[96];
          snprintf(what, sizeof what, "%s set %d le %d n %zu chain op %d", all[j]->name, set, le, n, op);
          memcpy(s, s0, 8);
          memset(out, 0xa5, sizeof out);
          all[j]->chain(&k, op, s, in + off, out + 1, n);
          CHECK_BYTES(s, ws, 8, what);
          if (op != GOSTX__MAGMA_CHAIN_MAC) CHECK_BYTES(out + 1, want, 8 * n, what);
          CHECK(out[0] == 0xa5 && out[1 + 8 * n] == 0xa5 &&
                    (op != GOSTX__MAGMA_CHAIN_MAC || out[1] == 0xa5),
                "%s: writes only its blocks", what);
          memcpy(s, s0, 8);
          memcpy(buf + off, in + off, 8 * n);
          all[j]->chain(&k, op, s, buf + off, buf + off, n);
          if (op != GOSTX__MAGMA_CHAIN_MAC) CHECK_BYTES(buf + off, want, 8 * n, what);
          uint32_t v1 = gostx_load32_le(s0), v0 = gostx_load32_le(s0 + 4);
          all[j]->imit16_words(&k, &v1, &v0);
          CHECK(v1 == w1 && v0 == w0, "%s set %d le %d: imit16", all[j]->name, set, le);
          cases++;
        }
      }
  printf("chains: %u cases\n", cases);
}

/* Each row's counter fill (CTR and MGM's counter blocks) against the
 * generic gostx__ctr_fill: the three steppings, counters drawn at random
 * and at the edges where a half or the whole qword wraps within the call,
 * every count 0..130 (around each register width), misaligned output; the
 * blocks, the counter left after them, and nothing written past them. */
static void counters(void) {
  static const unsigned incs[3] = {GOSTX__CTR_RIGHT, GOSTX__CTR_LEFT, GOSTX__CTR_FULL};
  static const uint64_t edge[] = {0, 0xffffffffu, 0xfffffff9u, 0xfffffffe00000000u,
                                  0xfffffff7fffffffbu, 0xffffffffffffffc1u, 0x7fffffffffffffffu};
  static uint8_t got[8 * 131 + 16], want[8 * 131 + 16];
  unsigned cases = 0;
  for (size_t r = 0; r < nrows; r++) {
    const struct gostx_magma_impl *im = rows[r].impl;
    if (!im->ctr_fill) continue;
    for (int i = 0; i < 3; i++)
      for (size_t n = 0; n <= 130; n++)
        for (int e = 0; e < 3; e++) {
          uint8_t c0[8], cw[8], cg[8];
          if (e == 0) t_rand_bytes(c0, 8);
          else gostx_store64_be(c0, edge[t_rand_below(sizeof edge / sizeof edge[0])] - (e == 2 ? n / 2 : 0));
          const size_t off = n % 8;
          memcpy(cw, c0, 8);
          memcpy(cg, c0, 8);
          memset(want, 0x5a, sizeof want);
          memset(got, 0x5a, sizeof got);
          gostx__ctr_fill(want + off, cw, 8, incs[i], n);
          im->ctr_fill(got + off, cg, incs[i], n);
          char what[96];
          snprintf(what, sizeof what, "%s ctr_fill inc %u n %zu counter %016llx", im->name, incs[i], n,
                   (unsigned long long)gostx_load64_be(c0));
          CHECK_BYTES(got, want, sizeof got, what);
          CHECK_BYTES(cg, cw, 8, what);
          cases++;
        }
  }
  printf("counters: %u cases\n", cases);
}

/* RFC 8891 A.4/A.5 (and the same example in GOST 28147-89 byte order), as
 * every block of calls of several lengths, so the vector paths see it. */
static void vectors(void) {
  json *f = tv_load("magma.json");
  json *cases = tv_cases(f);
  static const uint8_t key89[32] = {
    0xcc, 0xdd, 0xee, 0xff, 0x88, 0x99, 0xaa, 0xbb, 0x44, 0x55, 0x66, 0x77, 0x00, 0x11, 0x22, 0x33,
    0xf3, 0xf2, 0xf1, 0xf0, 0xf7, 0xf6, 0xf5, 0xf4, 0xfb, 0xfa, 0xf9, 0xf8, 0xff, 0xfe, 0xfd, 0xfc};
  int seen = 0;
  for (size_t i = 0; i < json_len(cases); i++) {
    json *c = json_at(cases, i);
    if (strcmp(tv_str(c, "kind"), "encrypt")) continue;
    seen++;
    size_t kl, pl, cl;
    uint8_t *key = tv_hex(c, "key", &kl), *pt = tv_hex(c, "plaintext", &pl);
    uint8_t *ct = tv_hex(c, "ciphertext", &cl);
    CHECK(kl == 32 && pl == 8 && cl == 8, "vector lengths");
    uint8_t pt89[8], ct89[8];
    for (int j = 0; j < 4; j++) { /* words byte-reversed, halves swapped */
      pt89[j] = pt[7 - j]; pt89[4 + j] = pt[3 - j];
      ct89[j] = ct[7 - j]; ct89[4 + j] = ct[3 - j];
    }
    gostx_magma_key km, k89;
    gostx_magma_set_key(&km, key);
    gostx_gost89_set_key(&k89, key89, GOSTX_SBOX_TC26_Z);
    static const size_t counts[] = {1, 2, 15, 16, 17, 31, 32, 33, 63, 64, 65, 96, 97, 100, 127,
                                    128, 129, 160, 161, 200, 256};
    static uint8_t p[8 * 256], x[8 * 256], y[8 * 256];
    for (size_t r = 0; r < nrows; r++) {
      const struct gostx_magma_impl *im = rows[r].impl;
      for (size_t ci = 0; ci < sizeof counts / sizeof counts[0]; ci++) {
        size_t n = counts[ci];
        for (int le = 0; le < 2; le++) {
          const gostx_magma_key *k = le ? &k89 : &km;
          const uint8_t *P = le ? pt89 : pt, *C = le ? ct89 : ct;
          for (size_t b = 0; b < n; b++) { memcpy(p + 8 * b, P, 8); memcpy(y + 8 * b, C, 8); }
          im->encrypt_blocks(k, p, x, n);
          char what[80];
          snprintf(what, sizeof what, "%s %s A.4 x%zu", im->name, le ? "gost89" : "magma", n);
          CHECK_BYTES(x, y, 8 * n, what);
          im->decrypt_blocks(k, y, x, n);
          snprintf(what, sizeof what, "%s %s A.5 x%zu", im->name, le ? "gost89" : "magma", n);
          CHECK_BYTES(x, p, 8 * n, what);
        }
      }
    }
    free(key); free(pt); free(ct);
  }
  CHECK(seen == 1, "magma.json has the encryption example");
  json_free(f);
}

/* Under valgrind (memcheck): with the key and the data marked undefined, any
 * branch or memory address that depends on them is reported. Run as
 * `valgrind ./test_magma_simd`; a no-op otherwise. */
static void constant_time(void) {
#ifdef HAVE_MEMCHECK
  if (!RUNNING_ON_VALGRIND) return;
  static uint8_t key[32], buf[8 * 200], out[8 * 200];
  VALGRIND_MAKE_MEM_UNDEFINED(key, sizeof key);
  VALGRIND_MAKE_MEM_UNDEFINED(buf, sizeof buf);
  static const size_t counts[] = {2, 17, 33, 100, 161};
  for (size_t r = 0; r < nrows; r++) {
    const struct gostx_magma_impl *im = rows[r].impl;
    for (int set = 0; set < GOSTX_SBOX_COUNT; set++)
      for (int le = 0; le < 2; le++) {
        gostx_magma_key k;
        set_key(&k, key, set, le);
        for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
          im->encrypt_blocks(&k, buf, out, counts[c]);
          im->decrypt_blocks(&k, buf, out, counts[c]);
        }
      }
  }
  VALGRIND_MAKE_MEM_DEFINED(key, sizeof key);
  VALGRIND_MAKE_MEM_DEFINED(buf, sizeof buf);
  CHECK(VALGRIND_COUNT_ERRORS == 0, "memcheck: secret-dependent branch or address");
#endif
}

int main(void) {
  t_rand_init();
  nrows = t_rows(GOSTX_ALG_MAGMA, &gostx_magma_portable, rows);
  vectors();
  differential();
  chains();
  counters();
  constant_time();
  t_rows_all_checked(GOSTX_ALG_MAGMA, &gostx_magma_portable);
  return t_done();
}
