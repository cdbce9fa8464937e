/* The bulk engine: every _mt call equals the single-threaded call for pools
 * of 1, 2, 3, 4 and 7 threads (and NULL), for lengths from 0 to a few hundred
 * KiB around the split threshold, the task boundaries and the ACPKM section
 * boundaries, in place and out of place; MGM decryption with a flipped bit
 * fails and writes nothing; sector batches (streams of one length back to
 * back, tests/support/sector_batch.h: gostx_batch_streams' sector engine)
 * equal per-sector calls for both ciphers, one key and many keys. */
#include <stdlib.h>
#include <time.h>

#include "sector_batch.h"
#include "testutil.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}
#define TIMED(call)                                                   \
  do {                                                                \
    double t0_ = now();                                               \
    call;                                                             \
    if (getenv("TEST_BULK_TIMES")) fprintf(stderr, "%-28s %.2f s\n", #call, now() - t0_); \
  } while (0)

#define NPOOLS 6
static gostx_pool *pools[NPOOLS]; /* NULL, 1, 2, 3, 4, 7 threads */
static const unsigned pool_sizes[NPOOLS] = {0, 1, 2, 3, 4, 7};

#define MAXLEN (272 * 1024)
static uint8_t *src, *want, *got, *aad;

/* Lengths: small, around the 64 KiB threshold and the 32 KiB task size,
 * odd ones, and a few hundred KiB. */
static const size_t lengths[] = {0,          1,          15,         16,         17,
                                 1000,       65535,      65536,      65537,      65536 + 8,
                                 98304 + 3,  131072 - 1, 131072 + 16, 200003,    MAXLEN - 5};
#define NLEN (sizeof lengths / sizeof lengths[0])

static void cipher_of(gostx_cipher *c, int id) {
  uint8_t k[32];
  t_rand_bytes(k, sizeof k);
  gostx_cipher_init(c, id, k);
}

static const char *cname(const gostx_cipher *c) { return gostx_alg_name(c->id); }

/* ---- CTR, ECB ---- */
static void test_ctr_ecb(const gostx_cipher *c) {
  const size_t n = c->block_len;
  uint8_t iv[8];
  t_rand_bytes(iv, sizeof iv);
  for (size_t li = 0; li < NLEN; li++) {
    const size_t len = lengths[li];
    CHECK_RC(gostx_ctr_crypt(c, iv, n / 2, n, src, len, want), GOSTX_OK, "ctr ref");
    for (int p = 0; p < NPOOLS; p++) {
      memset(got, 0, len + 1);
      CHECK_RC(gostx_ctr_crypt_mt(pools[p], c, iv, n / 2, src, len, got), GOSTX_OK, "ctr_mt");
      CHECK(!memcmp(got, want, len) && got[len] == 0, "%s ctr_mt len %zu pool %u", cname(c), len,
            pool_sizes[p]);
      memcpy(got, src, len); /* in place */
      CHECK_RC(gostx_ctr_crypt_mt(pools[p], c, iv, n / 2, got, len, got), GOSTX_OK, "ctr_mt ip");
      CHECK(!memcmp(got, want, len), "%s ctr_mt in place len %zu pool %u", cname(c), len,
            pool_sizes[p]);
    }
    size_t el = len - len % n;
    for (int dec = 0; dec < 2; dec++) {
      if (dec) gostx_ecb_decrypt(c, src, el, want);
      else gostx_ecb_encrypt(c, src, el, want);
      for (int p = 0; p < NPOOLS; p += (li & 1) ? 2 : 1) {
        memcpy(got, src, el);
        int rc = dec ? gostx_ecb_decrypt_mt(pools[p], c, got, el, got)
                     : gostx_ecb_encrypt_mt(pools[p], c, got, el, got);
        CHECK(rc == GOSTX_OK && !memcmp(got, want, el), "%s ecb_%s_mt len %zu pool %u", cname(c),
              dec ? "decrypt" : "encrypt", el, pool_sizes[p]);
      }
    }
    if (len % n) {
      CHECK_RC(gostx_ecb_encrypt_mt(pools[4], c, src, len, got), GOSTX_ELEN, "ecb_mt odd len");
    }
  }
  /* The counter wraps mod 2^n: IV = ff..ff makes it carry across the halves. */
  uint8_t ivf[8];
  memset(ivf, 0xff, sizeof ivf);
  gostx_ctr_crypt(c, ivf, n / 2, n, src, 200000, want);
  gostx_ctr_crypt_mt(pools[2], c, ivf, n / 2, src, 200000, got);
  CHECK(!memcmp(got, want, 200000), "%s ctr_mt iv ff..ff", cname(c));
  /* A message in pieces: each piece from its block on equals the same bytes
   * of the whole message (the ff..ff IV carries across the halves too). */
  static const size_t starts[] = {0, 1, 5, 4096, 4097, 12000};
  for (size_t k = 0; k < sizeof starts / sizeof starts[0]; k++) {
    size_t off = starts[k] * n, piece = 200000 - off;
    memset(got, 0, piece);
    int p = (int)(k % NPOOLS);
    CHECK_RC(gostx_ctr_crypt_mt_at(pools[p], c, ivf, n / 2, starts[k], src + off, piece, got),
             GOSTX_OK, "ctr_mt_at");
    CHECK(!memcmp(got, want + off, piece), "%s ctr_mt_at block %zu pool %u", cname(c), starts[k],
          pool_sizes[p]);
  }
  /* Bad arguments: the same codes as the single-threaded call. */
  CHECK_RC(gostx_ctr_crypt_mt(pools[2], c, iv, n, src, 100000, got),
           gostx_ctr_crypt(c, iv, n, n, src, 100000, got), "ctr_mt bad iv_len");
  CHECK_RC(gostx_ctr_crypt_mt(pools[2], NULL, iv, n / 2, src, 100000, got), GOSTX_EINVAL,
           "ctr_mt NULL cipher");
  CHECK_RC(gostx_ctr_crypt_mt(pools[2], c, iv, n / 2, NULL, 100000, got), GOSTX_EINVAL,
           "ctr_mt NULL in");
}

/* ---- CTR-ACPKM ---- */
static void test_acpkm(const gostx_cipher *c) {
  const size_t n = c->block_len;
  /* Section lengths: one block (many windows of keys), a few KiB, longer
   * than one task (sections split across tasks), longer than the data. */
  const size_t secs[] = {n, 4096, 96 * 1024 + 2 * n, 1u << 20};
  uint8_t iv[8];
  t_rand_bytes(iv, sizeof iv);
  for (size_t si = 0; si < sizeof secs / sizeof secs[0]; si++) {
    const size_t N = secs[si];
    size_t lens[] = {0, 17, 65536, 65537, 70000 / N * N, 70000 / N * N + 1, 3 * N - 1, 3 * N,
                     3 * N + 1, 250001};
    for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
      const size_t len = lens[li];
      if (len > MAXLEN) continue;
      if (N == n && len > 150000) continue; /* keeps the key chain short enough */
      CHECK_RC(gostx_ctr_acpkm_crypt(c, iv, n / 2, N, src, len, want), GOSTX_OK, "acpkm ref");
      for (int p = 0; p < NPOOLS; p++) {
        if (p != 2 && (size_t)p % 2 != li % 2) continue;
        memcpy(got, src, len);
        CHECK_RC(gostx_ctr_acpkm_crypt_mt(pools[p], c, iv, n / 2, N, got, len, got), GOSTX_OK,
                 "acpkm_mt");
        CHECK(!memcmp(got, want, len), "%s acpkm_mt N %zu len %zu pool %u", cname(c), N, len,
              pool_sizes[p]);
      }
    }
  }
  CHECK_RC(gostx_ctr_acpkm_crypt_mt(pools[3], c, iv, n / 2, n + 1, src, 100000, got),
           GOSTX_EINVAL, "acpkm_mt bad section");
  CHECK_RC(gostx_ctr_acpkm_crypt_mt(pools[3], c, iv, n / 2, 0, src, 100000, got), GOSTX_EINVAL,
           "acpkm_mt section 0");
}

/* ---- MGM ---- */
static void test_mgm(const gostx_cipher *c) {
  const size_t n = c->block_len;
  uint8_t nonce[16], tag_w[16], tag_g[16];
  t_rand_bytes(nonce, sizeof nonce);
  nonce[0] &= 0x7f;
  const size_t aads[] = {0, 21, 70001};
  for (size_t ai = 0; ai < 3; ai++) {
    const size_t al = aads[ai];
    for (size_t li = 0; li < NLEN; li++) {
      const size_t len = lengths[li];
      if (al == 0 && len == 0) continue;
      if (ai == 2 && li % 3) continue; /* the big AAD: a few lengths suffice */
      const size_t tl = li & 1 ? n : 4 + li % (n - 3);
      CHECK_RC(gostx_mgm_encrypt(c, nonce, aad, al, src, len, want, tag_w, tl), GOSTX_OK,
               "mgm ref");
      for (int p = 0; p < NPOOLS; p++) {
        /* Two threads always; the other pool sizes in turn (MGM is slow). */
        if (p != 2 && (size_t)p != (li + ai) % NPOOLS) continue;
        memcpy(got, src, len);
        const gostx_mgm_params mp = {nonce, aad, al, tl};
        CHECK_RC(gostx_mgm_encrypt_mt(pools[p], c, &mp, got, len, got, tag_g),
                 GOSTX_OK, "mgm_encrypt_mt");
        CHECK(!memcmp(got, want, len) && !memcmp(tag_g, tag_w, tl),
              "%s mgm_encrypt_mt aad %zu len %zu tag %zu pool %u", cname(c), al, len, tl,
              pool_sizes[p]);
        /* Decrypt in place back to the plaintext. */
        CHECK_RC(gostx_mgm_decrypt_mt(pools[p], c, &mp, got, len, tag_w, got),
                 GOSTX_OK, "mgm_decrypt_mt");
        CHECK(!memcmp(got, src, len), "%s mgm_decrypt_mt aad %zu len %zu pool %u", cname(c), al,
              len, pool_sizes[p]);
        /* A flipped bit (in data, AAD or tag): EAUTH, out untouched. */
        if (p == 2) {
          uint8_t *bad = malloc(len + 1);
          memcpy(bad, want, len);
          int where = (int)(li % 3); /* 0 data, 1 aad, 2 tag */
          if (where == 0 && len == 0) where = 2;
          if (where == 1 && al == 0) where = 2;
          if (where == 0) bad[t_rand_below(len)] ^= (uint8_t)(1u << t_rand_below(8));
          if (where == 1) aad[al / 2] ^= 0x10;
          uint8_t tg[16];
          memcpy(tg, tag_w, tl);
          if (where == 2) tg[tl - 1] ^= 1;
          memset(got, 0xa5, len);
          CHECK_RC(gostx_mgm_decrypt_mt(pools[p], c, &mp, bad, len, tg, got),
                   GOSTX_EAUTH, "mgm_decrypt_mt flipped bit");
          int untouched = 1;
          for (size_t i = 0; i < len; i++) untouched &= got[i] == 0xa5;
          CHECK(untouched, "%s mgm_decrypt_mt: output untouched on EAUTH (len %zu)", cname(c), len);
          if (where == 1) aad[al / 2] ^= 0x10;
          free(bad);
        }
      }
    }
  }
  /* Argument errors match the single-threaded calls. */
  uint8_t bn[16];
  memcpy(bn, nonce, 16);
  bn[0] |= 0x80;
  const gostx_mgm_params badn = {bn, NULL, 0, n}, tag3 = {nonce, NULL, 0, 3};
  CHECK_RC(gostx_mgm_encrypt_mt(pools[2], c, &badn, src, 100000, got, tag_g),
           gostx_mgm_encrypt(c, bn, NULL, 0, src, 100000, got, tag_g, n), "mgm_mt bad nonce");
  CHECK_RC(gostx_mgm_encrypt_mt(pools[2], c, &tag3, src, 100000, got, tag_g), GOSTX_ELEN,
           "mgm_mt tag 3");
  CHECK_RC(gostx_mgm_decrypt_mt(pools[2], c, NULL, src, 100000, tag_g, got), GOSTX_EINVAL,
           "mgm_mt no params");
}

/* ---- XTS over consecutive sectors ---- */
static void test_xts_mt(void) {
  uint8_t k[64];
  gostx_xts_key x;
  t_rand_bytes(k, sizeof k);
  CHECK_RC(gostx_xts_set_key(&x, k), GOSTX_OK, "xts key");
  const size_t ssz[] = {16, 512, 520, 4096};
  const uint64_t firsts[] = {0, 0xfffffff0ull, 0xffffffffffffff00ull};
  for (size_t si = 0; si < 4; si++) {
    const size_t S = ssz[si];
    for (size_t li = 0; li < NLEN; li++) {
      size_t len = lengths[li];
      if (len % S && len % S < 16) len -= len % S; /* a short unit must be >= 16 bytes */
      const uint64_t first = firsts[li % 3];
      for (int dec = 0; dec < 2; dec++) {
        for (size_t off = 0; off < len; off += S) {
          size_t l = len - off < S ? len - off : S;
          if (dec) gostx_xts_decrypt_sector(&x, first + off / S, src + off, l, want + off);
          else gostx_xts_encrypt_sector(&x, first + off / S, src + off, l, want + off);
        }
        for (int p = 0; p < NPOOLS; p++) {
          if (p != 2 && (size_t)p % 3 != (li + si) % 3) continue;
          memcpy(got, src, len);
          int rc = dec ? gostx_xts_decrypt_mt(pools[p], &x, first, S, got, len, got)
                       : gostx_xts_encrypt_mt(pools[p], &x, first, S, got, len, got);
          CHECK(rc == GOSTX_OK && !memcmp(got, want, len), "xts_%s_mt S %zu len %zu pool %u",
                dec ? "decrypt" : "encrypt", S, len, pool_sizes[p]);
        }
      }
    }
  }
  CHECK_RC(gostx_xts_encrypt_mt(pools[2], &x, 0, 512, src, 512 * 200 + 5, got), GOSTX_ELEN,
           "xts_mt short unit < 16");
  CHECK_RC(gostx_xts_encrypt_mt(pools[2], &x, 0, 15, src, 150, got), GOSTX_ELEN,
           "xts_mt sector 15");
  CHECK_RC(gostx_xts_encrypt_mt(pools[2], NULL, 0, 512, src, 512, got), GOSTX_EINVAL,
           "xts_mt NULL key");
  gostx_xts_clear(&x);
}

/* ---- sector batches ---- */
#define MAXKEYS 200

static void test_batch(void) {
  static gostx_cipher ciphers[MAXKEYS];
  static gostx_xts_key xkeys[MAXKEYS];
  const gostx_cipher *kp[MAXKEYS];
  const gostx_xts_key *xp[MAXKEYS];
  uint8_t ivs[MAXKEYS * 32], tags_w[MAXKEYS * 16], tags_g[MAXKEYS * 16];
  uint64_t nums[MAXKEYS];
  for (int i = 0; i < MAXKEYS; i++) {
    uint8_t k[64];
    t_rand_bytes(k, 64);
    gostx_xts_set_key(&xkeys[i], k);
    cipher_of(&ciphers[i], (i % 5 == 4) ? GOSTX_ALG_MAGMA : GOSTX_ALG_KUZNYECHIK);
    nums[i] = t_rand() >> (i % 64);
  }
  t_rand_bytes(ivs, sizeof ivs);
  /* Key layouts: 0 one Kuznyechik key, 1 one Magma key, 2 a key per sector
   * (mixed ciphers), 3 three keys repeated. */
  const size_t sls[] = {512, 4096, 16 * 33};
  const size_t nss[] = {1, 7, 64, 100};
  for (int layout = 0; layout < 4; layout++) {
    for (size_t si = 0; si < 3; si++) {
      for (size_t ni = 0; ni < 4; ni++) {
        const size_t sl = sls[si], ns = nss[ni];
        if (sl * ns > MAXLEN) continue;
        if (sl == 4096 && ns >= 64 && layout >= 2) continue;
        size_t nk = layout <= 1 ? 1 : ns;
        for (size_t i = 0; i < ns; i++) {
          size_t ki = layout == 0 ? 0 : layout == 1 ? 4 : layout == 3 ? i % 3 : i;
          if (layout == 4 && ki % 5 == 4) ki = (ki + 1) % MAXKEYS;
          kp[i] = &ciphers[ki];
          xp[i] = &xkeys[ki];
        }
        /* Both ciphers accept a 16-byte IV for CBC (m = n or 2n). */
        const int mixed = layout == 2 && ns > 4;
        /* NULL, 2 and 7 threads for one key; 2 and 3 threads for many keys. */
        const int plist[3] = {layout <= 1 ? 0 : 2, layout <= 1 ? 2 : 3, layout <= 1 ? 5 : -1};
        char what[96];
#define FOR_POOLS                                                                           \
  for (int pi_ = 0, p = plist[0]; pi_ < 3 && (p = plist[pi_]) >= 0; pi_++)                  \
    if ((pl = pools[p]), snprintf(what, sizeof what, "layout %d sl %zu ns %zu pool %u", layout, \
                                  sl, ns, pool_sizes[p]) > 0)
        gostx_pool *pl;
        const size_t tot = sl * ns;
        /* CBC: IV 16 bytes (m = 2n for Magma). */
        for (int dec = 0; dec < 2; dec++) {
          for (size_t i = 0; i < ns; i++) {
            if (dec) gostx_cbc_decrypt(kp[i], ivs + 16 * i, 16, src + i * sl, sl, want + i * sl);
            else gostx_cbc_encrypt(kp[i], ivs + 16 * i, 16, src + i * sl, sl, want + i * sl);
          }
          FOR_POOLS {
            memcpy(got, src, tot);
            int rc = dec ? sectors_cbc_decrypt(pl, kp, nk, ivs, 16, got, sl, ns, got)
                         : sectors_cbc_encrypt(pl, kp, nk, ivs, 16, got, sl, ns, got);
            CHECK(rc == GOSTX_OK && !memcmp(got, want, tot), "batch cbc %s %s",
                  dec ? "decrypt" : "encrypt", what);
          }
        }
        /* CBC with m = 32 bytes (two or four interleaved chains). */
        {
          static uint8_t iv32[MAXKEYS * 32];
          for (size_t i = 0; i < ns; i++) {
            memcpy(iv32 + 32 * i, ivs + 32 * (i % 100), 32);
            gostx_cbc_encrypt(kp[i], iv32 + 32 * i, 32, src + i * sl, sl, want + i * sl);
          }
          FOR_POOLS {
            CHECK_RC(sectors_cbc_encrypt(pl, kp, nk, iv32, 32, src, sl, ns, got), GOSTX_OK,
                     "batch cbc m=32");
            CHECK(!memcmp(got, want, tot), "batch cbc m=32 %s", what);
          }
        }
        /* CTR: IV n/2, so not for mixed ciphers. */
        if (!mixed) {
          const size_t n = kp[0]->block_len;
          const size_t csl = sl + (si == 2 ? 5 : 0); /* any length */
          if (csl * ns <= MAXLEN) {
            for (size_t i = 0; i < ns; i++)
              gostx_ctr_crypt(kp[i], ivs + i * (n / 2), n / 2, n, src + i * csl, csl,
                              want + i * csl);
            FOR_POOLS {
              memcpy(got, src, csl * ns);
              CHECK_RC(sectors_ctr_crypt(pl, kp, nk, ivs, n / 2, got, csl, ns, got), GOSTX_OK,
                       "batch ctr");
              CHECK(!memcmp(got, want, csl * ns), "batch ctr %s", what);
            }
          }
        } else {
          CHECK_RC(sectors_ctr_crypt(pools[2], kp, nk, ivs, 8, src, sl, ns, got), GOSTX_EINVAL,
                   "batch ctr mixed iv_len");
        }
        /* OMAC: full-block and partial-block messages, two tag lengths. */
        {
          const size_t osl[] = {sl, sl - 3, 0};
          for (int o = 0; o < 3; o++) {
            const size_t tl = o == 1 ? 4 : 8;
            for (size_t i = 0; i < ns; i++)
              gostx_omac(kp[i], src + i * osl[o], osl[o], tags_w + i * tl, tl);
            FOR_POOLS {
              memset(tags_g, 0, sizeof tags_g);
              CHECK_RC(sectors_omac(pl, kp, nk, src, osl[o], ns, tags_g, tl), GOSTX_OK,
                       "batch omac");
              CHECK(!memcmp(tags_g, tags_w, ns * tl), "batch omac len %zu %s", osl[o], what);
            }
          }
        }
        /* XTS: sector numbers given, and first + i; 16*33 + 8 steals. */
        {
          const size_t xsl = si == 2 ? sl + 8 : sl;
          if (xsl * ns <= MAXLEN) {
            for (int dec = 0; dec < 2; dec++) {
              for (int given = 0; given < 2; given++) {
                for (size_t i = 0; i < ns; i++) {
                  uint64_t num = given ? nums[i] : 1000 + i;
                  if (dec)
                    gostx_xts_decrypt_sector(xp[i], num, src + i * xsl, xsl, want + i * xsl);
                  else
                    gostx_xts_encrypt_sector(xp[i], num, src + i * xsl, xsl, want + i * xsl);
                }
                const uint64_t *np = given ? nums : NULL;
                FOR_POOLS {
                  memcpy(got, src, xsl * ns);
                  int rc = dec ? sectors_xts_decrypt(pl, xp, nk, np, 1000, xsl, got, ns, got)
                               : sectors_xts_encrypt(pl, xp, nk, np, 1000, xsl, got, ns, got);
                  CHECK(rc == GOSTX_OK && !memcmp(got, want, xsl * ns), "batch xts %s xsl %zu %s",
                        dec ? "decrypt" : "encrypt", xsl, what);
                }
              }
            }
          }
        }
#undef FOR_POOLS
      }
    }
  }
  /* Argument errors. */
  kp[0] = &ciphers[0];
  kp[1] = &ciphers[1];
  { /* a stream without a key: the call fails and writes nothing */
    gostx_stream s[3];
    const gostx_batch_params bp = {0};
    memset(s, 0, sizeof s);
    memset(got, 0x5a, 3 * 512);
    for (int i = 0; i < 3; i++)
      s[i] = (gostx_stream){kp[0], ivs + 16 * i, NULL, 0, src + 512 * i, 512, got + 512 * i,
                            NULL, -1};
    s[1].key = NULL;
    CHECK_RC(gostx_batch_streams(NULL, GOSTX_BATCH_CBC_ENCRYPT, &bp, s, 3), GOSTX_EINVAL,
             "batch stream without a key");
    CHECK(s[0].status == GOSTX_OK && s[1].status == GOSTX_EINVAL && s[2].status == GOSTX_OK &&
              got[0] == 0x5a && got[3 * 512 - 1] == 0x5a,
          "batch stream without a key: statuses, nothing written");
  }
  CHECK_RC(sectors_cbc_encrypt(NULL, kp, 1, ivs, 16, src, 500, 3, got), GOSTX_ELEN,
           "batch cbc sector not a block multiple");
  CHECK_RC(sectors_cbc_encrypt(NULL, kp, 1, ivs, 12, src, 512, 3, got), GOSTX_EINVAL,
           "batch cbc iv_len");
  CHECK_RC(sectors_omac(NULL, kp, 1, src, 512, 3, tags_g, 17), GOSTX_ELEN, "batch omac tag");
  CHECK_RC(sectors_xts_encrypt(NULL, xp, 1, NULL, 0, 15, src, 3, got), GOSTX_ELEN,
           "batch xts 15");
  CHECK_RC(sectors_cbc_encrypt(NULL, kp, 1, ivs, 16, src, 512, 0, got), GOSTX_OK,
           "batch of no sectors");
  /* Empty messages with in = NULL: OMAC of the empty string each. */
  CHECK_RC(gostx_omac(kp[0], NULL, 0, tags_w, 8), GOSTX_OK, "omac empty");
  CHECK_RC(sectors_omac(pools[2], kp, 1, NULL, 0, 3, tags_g, 8), GOSTX_OK, "batch omac empty");
  CHECK(!memcmp(tags_g, tags_w, 8) && !memcmp(tags_g + 16, tags_w, 8), "batch omac empty tags");
  for (int i = 0; i < MAXKEYS; i++) {
    gostx_cipher_clear(&ciphers[i]);
    gostx_xts_clear(&xkeys[i]);
  }
}

/* ---- sector batches with per-sector Kuznyechik keys (multi-key groups) ----
 * Layouts: 0 all keys distinct, 1 some repeated (scattered and in short
 * runs), 2 one key behind every pointer slot (nkeys = nsectors, all equal),
 * 3 a long run of one key then distinct keys (a run's remainder joins the
 * multi-key groups). Sector counts around the AVX2 kernels' 72/128/256
 * thresholds and the group size; lengths 16..4096 and, where the mode
 * allows, non-multiples of the block. */
#define MKKEYS 300
static void test_batch_mk(void) {
  static gostx_cipher ciphers[MKKEYS];
  static gostx_xts_key xkeys[MKKEYS];
  static const gostx_cipher *kp[MKKEYS];
  static const gostx_xts_key *xp[MKKEYS];
  static uint8_t ivs[MKKEYS * 32], tags_w[MKKEYS * 16], tags_g[MKKEYS * 16];
  static uint64_t nums[MKKEYS];
  for (int i = 0; i < MKKEYS; i++) {
    uint8_t k[64];
    t_rand_bytes(k, 64);
    gostx_xts_set_key(&xkeys[i], k);
    cipher_of(&ciphers[i], GOSTX_ALG_KUZNYECHIK);
    nums[i] = t_rand() >> (i % 64);
  }
  t_rand_bytes(ivs, sizeof ivs);
  static const struct {
    size_t sl, ns;
  } cases[] = {{16, 300}, {48, 257}, {512, 300}, {512, 72}, {512, 2}, {512, 1},
               {4096, 33}, {16 * 33, 129}, {32, 128}, {64, 71}};
  for (int layout = 0; layout < 4; layout++) {
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
      if (layout >= 2 && ci % 2) continue; /* (time) half the cases for the last two */
      const size_t sl = cases[ci].sl, ns = cases[ci].ns, tot = sl * ns;
      for (size_t i = 0; i < ns; i++) {
        size_t ki = layout == 0   ? i
                    : layout == 1 ? (i % 4 == 1 ? 5 : i % 9 < 3 ? i / 3 : i)
                    : layout == 2 ? 11
                                  : (i < 100 ? 3 : i);
        kp[i] = &ciphers[ki % MKKEYS];
        xp[i] = &xkeys[ki % MKKEYS];
      }
      /* pools: NULL, 1, 2, 3 threads for layout 0; 2 and 3 otherwise */
      const int plist[4] = {2, 3, layout == 0 ? 0 : -1, layout == 0 ? 1 : -1};
      char what[96];
      gostx_pool *pl;
#define FOR_MK_POOLS                                                                        \
  for (int pi_ = 0, p; pi_ < 4 && (p = plist[pi_]) >= 0; pi_++)                             \
    if ((pl = pools[p]), snprintf(what, sizeof what, "mk layout %d sl %zu ns %zu pool %u", \
                                  layout, sl, ns, pool_sizes[p]) > 0)
      for (int m = 16; m <= 32; m += 16) { /* CBC, m = n and 2n */
        for (int dec = 0; dec < 2; dec++) {
          for (size_t i = 0; i < ns; i++) {
            if (dec) gostx_cbc_decrypt(kp[i], ivs + m * i, m, src + i * sl, sl, want + i * sl);
            else gostx_cbc_encrypt(kp[i], ivs + m * i, m, src + i * sl, sl, want + i * sl);
          }
          FOR_MK_POOLS {
            memcpy(got, src, tot);
            int rc = dec ? sectors_cbc_decrypt(pl, kp, ns, ivs, m, got, sl, ns, got)
                         : sectors_cbc_encrypt(pl, kp, ns, ivs, m, got, sl, ns, got);
            CHECK(rc == GOSTX_OK && !memcmp(got, want, tot), "batch cbc %s m %d in place %s",
                  dec ? "decrypt" : "encrypt", m, what);
            memset(got, 0, tot);
            rc = dec ? sectors_cbc_decrypt(pl, kp, ns, ivs, m, src, sl, ns, got)
                     : sectors_cbc_encrypt(pl, kp, ns, ivs, m, src, sl, ns, got);
            CHECK(rc == GOSTX_OK && !memcmp(got, want, tot), "batch cbc %s m %d %s",
                  dec ? "decrypt" : "encrypt", m, what);
          }
        }
      }
      const size_t odd = sl + 5; /* CTR, OMAC, XTS take any length (XTS >= 16) */
      for (int o = 0; o < 2; o++) {
        const size_t l = o ? odd : sl;
        if (l * ns > MAXLEN) continue;
        for (size_t i = 0; i < ns; i++)
          gostx_ctr_crypt(kp[i], ivs + 8 * i, 8, 16, src + i * l, l, want + i * l);
        FOR_MK_POOLS {
          memcpy(got, src, l * ns);
          CHECK_RC(sectors_ctr_crypt(pl, kp, ns, ivs, 8, got, l, ns, got), GOSTX_OK, "ctr");
          CHECK(!memcmp(got, want, l * ns), "batch ctr len %zu %s", l, what);
        }
        const size_t tl = o ? 5 : 16;
        for (size_t i = 0; i < ns; i++) gostx_omac(kp[i], src + i * l, l, tags_w + i * tl, tl);
        FOR_MK_POOLS {
          memset(tags_g, 0, sizeof tags_g);
          CHECK_RC(sectors_omac(pl, kp, ns, src, l, ns, tags_g, tl), GOSTX_OK, "omac");
          CHECK(!memcmp(tags_g, tags_w, ns * tl), "batch omac len %zu %s", l, what);
        }
        for (int dec = 0; dec < 2; dec++) {
          const uint64_t *np = dec ? nums : NULL;
          for (size_t i = 0; i < ns; i++) {
            const uint64_t num = np ? nums[i] : 77 + i;
            if (dec) gostx_xts_decrypt_sector(xp[i], num, src + i * l, l, want + i * l);
            else gostx_xts_encrypt_sector(xp[i], num, src + i * l, l, want + i * l);
          }
          FOR_MK_POOLS {
            memcpy(got, src, l * ns);
            int rc = dec ? sectors_xts_decrypt(pl, xp, ns, np, 77, l, got, ns, got)
                         : sectors_xts_encrypt(pl, xp, ns, np, 77, l, got, ns, got);
            CHECK(rc == GOSTX_OK && !memcmp(got, want, l * ns), "batch xts %s len %zu %s",
                  dec ? "decrypt" : "encrypt", l, what);
          }
        }
      }
      /* OMAC of the empty message under every key */
      for (size_t i = 0; i < ns; i++) gostx_omac(kp[i], NULL, 0, tags_w + 8 * i, 8);
      FOR_MK_POOLS {
        CHECK_RC(sectors_omac(pl, kp, ns, NULL, 0, ns, tags_g, 8), GOSTX_OK, "omac empty");
        CHECK(!memcmp(tags_g, tags_w, 8 * ns), "batch omac empty %s", what);
      }
#undef FOR_MK_POOLS
    }
  }
  for (int i = 0; i < MKKEYS; i++) {
    gostx_cipher_clear(&ciphers[i]);
    gostx_xts_clear(&xkeys[i]);
  }
}

int main(void) {
  t_rand_init();
  for (int p = 1; p < NPOOLS; p++) {
    pools[p] = gostx_pool_new(pool_sizes[p]);
    CHECK(pools[p] != NULL, "pool %u", pool_sizes[p]);
  }
  src = malloc(MAXLEN + 64);
  want = malloc(MAXLEN + 64);
  got = malloc(MAXLEN + 64);
  aad = malloc(MAXLEN);
  t_rand_bytes(src, MAXLEN + 64);
  t_rand_bytes(aad, MAXLEN);

  gostx_cipher kuz, magma;
  cipher_of(&kuz, GOSTX_ALG_KUZNYECHIK);
  cipher_of(&magma, GOSTX_ALG_MAGMA);
  TIMED(test_ctr_ecb(&kuz));
  TIMED(test_ctr_ecb(&magma));
  TIMED(test_acpkm(&kuz));
  TIMED(test_acpkm(&magma));
  TIMED(test_mgm(&kuz));
  TIMED(test_mgm(&magma));
  TIMED(test_xts_mt());
  TIMED(test_batch());
  TIMED(test_batch_mk());

  for (int p = 1; p < NPOOLS; p++) gostx_pool_free(pools[p]);
  free(src);
  free(want);
  free(got);
  free(aad);
  return t_done();
}
