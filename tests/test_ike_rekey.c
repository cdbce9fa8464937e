/* The exchange engine once established (lib/ike/xchg.c, child.c, ikesa.c,
 * info.c): Child SA rekeys with and without PFS from either side, the IKE
 * SA rekey, Delete, liveness, the Message ID windows and the response
 * cache; each refusal; then 200 rekeys between two engines over a network
 * that loses and duplicates datagrams, simultaneous ones among them, the
 * keys always agreeing and the redundant SAs deleted. */
#include "ike/engine.h"
#include "ike/engine_int.h"
#include "ike_pair.h"
#include "testutil.h"

enum { CAP = GOSTX_IKE_MSG_MAX };

static gostx_ike_conf ci, cr;
static gostx_ike_engine I, R;
static uint8_t bi[CAP], br[CAP]; /* what I sent, what R sent */
static size_t li, lr;

static void confs(uint16_t encr, uint16_t group) {
  ike_psk_pair(&ci, &cr, encr, group);
  ci.max_tries = cr.max_tries = 12;
  ci.rto_ms = cr.rto_ms = 100;
}

/* from's datagram m (len) into to; its answer back into from. */
static void deliver(gostx_ike_engine *to, const uint8_t *m, size_t len, uint8_t *ans,
                    size_t *ans_len) {
  *ans_len = 0;
  gostx__ike_input(to, m, len, 0, ans, CAP, ans_len);
}

/* I's request in bi to R, R's answer to I, and so on until both are quiet. */
static void talk_from_i(void) {
  for (int k = 0; k < 8 && li; k++) {
    deliver(&R, bi, li, br, &lr);
    li = 0;
    if (lr) deliver(&I, br, lr, bi, &li);
  }
}

static void talk_from_r(void) {
  for (int k = 0; k < 8 && lr; k++) {
    deliver(&I, br, lr, bi, &li);
    lr = 0;
    if (li) deliver(&R, bi, li, br, &lr);
  }
}

static void establish(uint16_t encr, uint16_t group) {
  confs(encr, group);
  CHECK_RC(ike_engine_fresh(&I, &ci), GOSTX_OK, "initiator");
  CHECK_RC(ike_engine_fresh(&R, &cr), GOSTX_OK, "responder");
  CHECK_RC(gostx__ike_start(&I, 0, bi, CAP, &li), GOSTX_OK, "IKE_SA_INIT");
  talk_from_i();
  CHECK(I.state == GOSTX_IKE_S_ESTABLISHED && R.state == GOSTX_IKE_S_ESTABLISHED &&
            I.child.valid && R.child.valid,
        "established");
}

/* a and b hold the same IKE SA and the same current Child SA, mirrored. */
static int agree(const gostx_ike_engine *a, const gostx_ike_engine *b) {
  const gostx_ike_child *x = &a->child, *y = &b->child;
  return x->valid && y->valid && x->key_len == y->key_len && x->spi_in == y->spi_out &&
         x->spi_out == y->spi_in && !memcmp(x->key_in, y->key_out, x->key_len) &&
         !memcmp(x->key_out, y->key_in, x->key_len) && !memcmp(a->spi_i, b->spi_i, 8) &&
         !memcmp(a->spi_r, b->spi_r, 8) && !memcmp(a->k.sk_d, b->k.sk_d, 64) &&
         a->orig_init != b->orig_init;
}

/* Nothing out, no SA waiting to be deleted (but a redundant IKE SA whose
 * Delete the peer may have given up: old_sa[1], gone by its expiry). */
static int quiet(const gostx_ike_engine *e) {
  return e->pend == GOSTX_IKE_X_NONE && !e->old.valid && !e->twin.valid && !e->old_sa[0].valid &&
         !e->ike_twin.ready;
}

/* ---- one rekey of the Child SA, each side initiating, PFS or not ---- */

static void child_rekey(int from_r, int pfs) {
  establish(GOSTX_IKE_ENCR_KUZNYECHIK_MGM_KTREE, GOSTX_IKE_KE_GOST3410_2012_512);
  gostx_ike_engine *a = from_r ? &R : &I, *b = from_r ? &I : &R;
  const gostx_ike_child before_a = a->child, before_b = b->child;
  uint8_t *out = from_r ? br : bi;
  size_t *out_len = from_r ? &lr : &li;
  CHECK_RC(gostx__ike_rekey_child(a, pfs, 0, out, CAP, out_len), GOSTX_OK, "rekey request");
  const size_t req_len = *out_len;
  uint8_t spare[CAP];
  size_t spare_len = 0;
  CHECK_RC(gostx__ike_rekey_child(a, pfs, 0, spare, CAP, &spare_len), GOSTX_ESTATE,
           "window 1: no second request while one is out");
  /* the responder: the new SA out, the old kept until deleted */
  uint8_t *ans = from_r ? bi : br;
  size_t *ans_len = from_r ? &li : &lr;
  deliver(b, out, req_len, ans, ans_len);
  CHECK(b->ev.flags == GOSTX_IKE_EV_CHILD_NEW && b->ev.replaces == before_b.spi_in &&
            b->old.spi_in == before_b.spi_in && b->child.spi_in != before_b.spi_in,
        "responder: CHILD_NEW replacing the old (flags %x)", b->ev.flags);
  /* the initiator: the new SA, sealing with it, the old one's Delete out */
  uint8_t del[CAP];
  size_t del_len = 0;
  deliver(a, ans, *ans_len, del, &del_len);
  CHECK((a->ev.flags & (GOSTX_IKE_EV_CHILD_NEW | GOSTX_IKE_EV_CHILD_OUT)) ==
                (GOSTX_IKE_EV_CHILD_NEW | GOSTX_IKE_EV_CHILD_OUT) &&
            a->pend == GOSTX_IKE_X_DELETE_CHILD && del_len,
        "initiator: CHILD_NEW, CHILD_OUT and its Delete (flags %x)", a->ev.flags);
  CHECK(agree(a, b), "pfs %d from %s: the new keys agree", pfs, from_r ? "R" : "I");
  CHECK(memcmp(a->child.key_in, before_a.key_in, a->child.key_len),
        "the new SA has new keys");
  deliver(b, del, del_len, ans, ans_len);
  CHECK((b->ev.flags & GOSTX_IKE_EV_CHILD_RETIRE) && b->ev.n_retired == 1 &&
            b->ev.retired[0].spi_in == before_b.spi_in && (b->ev.flags & GOSTX_IKE_EV_CHILD_OUT),
        "responder: the old SA retired, sealing with the new");
  deliver(a, ans, *ans_len, del, &del_len);
  CHECK((a->ev.flags & GOSTX_IKE_EV_CHILD_RETIRE) && a->ev.retired[0].spi_in == before_a.spi_in &&
            del_len == 0,
        "initiator: the old SA retired");
  CHECK(quiet(a) && quiet(b) && agree(a, b), "settled");
}

/* ---- the IKE SA rekeyed: new SPIs and keys, the Child SA kept ---- */

static void ike_rekey(int from_r) {
  establish(GOSTX_IKE_ENCR_MAGMA_MGM_KTREE, GOSTX_IKE_KE_GOST3410_2012_256);
  gostx_ike_engine *a = from_r ? &R : &I, *b = from_r ? &I : &R;
  uint8_t old_spi_i[8], old_sk_d[64];
  memcpy(old_spi_i, I.spi_i, 8);
  memcpy(old_sk_d, I.k.sk_d, 64);
  const gostx_ike_child child = I.child;
  if (from_r) {
    CHECK_RC(gostx__ike_rekey_ike(&R, 0, br, CAP, &lr), GOSTX_OK, "R's rekey");
    talk_from_r();
  } else {
    CHECK_RC(gostx__ike_rekey_ike(&I, 0, bi, CAP, &li), GOSTX_OK, "I's rekey");
    talk_from_i();
  }
  CHECK(agree(&I, &R) && memcmp(I.spi_i, old_spi_i, 8) && memcmp(I.k.sk_d, old_sk_d, 64),
        "from %s: a new IKE SA, agreed", from_r ? "R" : "I");
  CHECK(a->orig_init && !b->orig_init, "the rekey's initiator is the new original initiator");
  CHECK(!memcmp(&I.child, &child, sizeof child), "the Child SA moved over as it was");
  CHECK(quiet(&I) && quiet(&R), "the old IKE SA deleted on both sides");
  /* the new SA carries requests from both sides, Message IDs from 0 */
  CHECK(I.req_id == (from_r ? 0u : 0u) || I.req_id == 1, "Message IDs restarted");
  CHECK_RC(gostx__ike_rekey_child(&R, 1, 0, br, CAP, &lr), GOSTX_OK, "a Child SA rekey over it");
  talk_from_r();
  CHECK(agree(&I, &R) && quiet(&I) && quiet(&R), "and the keys agree");
}

/* ---- Delete and liveness ---- */

static void deletes(void) {
  establish(GOSTX_IKE_ENCR_KUZNYECHIK_MGM_KTREE, GOSTX_IKE_KE_GOST3410_2012_256);
  const gostx_ike_child ri = R.child;
  CHECK_RC(gostx__ike_delete(&I, GOSTX_IKE_DEL_CHILD, 0, bi, CAP, &li), GOSTX_OK, "Delete ESP");
  deliver(&R, bi, li, br, &lr);
  CHECK((R.ev.flags & GOSTX_IKE_EV_CHILD_RETIRE) && R.ev.retired[0].spi_in == ri.spi_in &&
            !R.child.valid,
        "the responder retires the pair");
  /* 3.11 / 1.4.1: the answer names the responder's half */
  gostx_ike_hdr h;
  gostx_ike_chain c;
  gostx_ike_delete d;
  uint8_t first, plain[CAP];
  size_t pl;
  CHECK_RC(gostx__ike_sk_open(&I.sk_in, br, lr, &h, &first, plain, CAP, &pl, NULL), GOSTX_OK,
           "the answer opens");
  CHECK(gostx__ike_chain_read(first, plain, pl, &c, NULL) == GOSTX_OK && c.n == 1 &&
            gostx__ike_delete_read(c.p[0].body, c.p[0].len, &d) == GOSTX_OK &&
            d.proto == GOSTX_IKE_PROTO_ESP && d.count == 1 &&
            ((uint32_t)d.spis[0] << 24 | (uint32_t)d.spis[1] << 16 | (uint32_t)d.spis[2] << 8 |
             d.spis[3]) == ri.spi_in,
        "the answer's Delete names the responder's inbound SPI");
  deliver(&I, br, lr, bi, &li);
  CHECK((I.ev.flags & GOSTX_IKE_EV_CHILD_RETIRE) && !I.child.valid, "the initiator retires it");
  CHECK_RC(gostx__ike_rekey_child(&I, 0, 0, bi, CAP, &li), GOSTX_ESTATE, "no Child SA to rekey");
  /* liveness */
  CHECK_RC(gostx__ike_dpd(&R, 1000, br, CAP, &lr), GOSTX_OK, "DPD");
  deliver(&I, br, lr, bi, &li);
  CHECK(I.last_heard_ms == 0 && li, "answered");
  gostx__ike_input(&R, bi, li, 1500, br, CAP, &lr);
  CHECK(R.ev.flags == GOSTX_IKE_EV_ALIVE && R.last_heard_ms == 1500 && R.pend == 0,
        "ALIVE, last_heard_ms set");
  /* the IKE SA: an empty answer, both DELETED */
  CHECK_RC(gostx__ike_delete(&R, GOSTX_IKE_DEL_IKE, 2000, br, CAP, &lr), GOSTX_OK, "Delete IKE");
  const uint8_t *req = br;
  uint8_t req_copy[CAP];
  size_t req_len = lr;
  memcpy(req_copy, req, lr);
  deliver(&I, req_copy, req_len, bi, &li);
  CHECK(I.state == GOSTX_IKE_S_DELETED && (I.ev.flags & GOSTX_IKE_EV_IKE_DELETED), "I: DELETED");
  CHECK_RC(gostx__ike_sk_open(&R.sk_in, bi, li, &h, &first, plain, CAP, &pl, NULL), GOSTX_OK,
           "the answer opens");
  CHECK(pl == 0, "and is empty (1.4.1)");
  uint8_t again[CAP];
  size_t again_len = 0;
  deliver(&I, req_copy, req_len, again, &again_len);
  CHECK(again_len == li && !memcmp(again, bi, li), "a retransmitted Delete: the cached answer");
  deliver(&R, bi, li, br, &lr);
  CHECK(R.state == GOSTX_IKE_S_DELETED && (R.ev.flags & GOSTX_IKE_EV_IKE_DELETED), "R: DELETED");
  CHECK_RC(gostx__ike_dpd(&R, 0, br, CAP, &lr), GOSTX_ESTATE, "nothing after DELETED");
}

static void peer_gone(void) {
  establish(GOSTX_IKE_ENCR_KUZNYECHIK_MGM_KTREE, GOSTX_IKE_KE_GOST3410_2012_256);
  CHECK_RC(gostx__ike_dpd(&I, 0, bi, CAP, &li), GOSTX_OK, "DPD");
  int64_t t = 0;
  unsigned sends = 1;
  while (I.state == GOSTX_IKE_S_ESTABLISHED && t < 10000000) {
    t += 50;
    gostx__ike_timer(&I, t, bi, CAP, &li);
    sends += li != 0;
  }
  CHECK(I.state == GOSTX_IKE_S_FAILED && (I.ev.flags & GOSTX_IKE_EV_PEER_GONE) &&
            sends == ci.max_tries,
        "no answer: %u sends, then PEER_GONE", sends);
}

/* ---- refusals ---- */

/* bi (I's request) opened under R's keys, edited by f, sealed again. */
static void reseal(void (*f)(gostx_ike_chain *c, uint8_t *plain)) {
  static uint8_t plain[CAP];
  gostx_ike_hdr h;
  gostx_ike_chain c;
  uint8_t first;
  size_t pl;
  uint64_t iv;
  CHECK_RC(gostx__ike_sk_open(&R.sk_in, bi, li, &h, &first, plain, CAP, &pl, &iv), GOSTX_OK,
           "the request opens");
  CHECK_RC(gostx__ike_chain_read(first, plain, pl, &c, NULL), GOSTX_OK, "its inside reads");
  f(&c, plain);
  CHECK_RC(gostx__ike_sk_seal(&R.sk_in, iv, &h, first, plain, pl, bi, CAP, &li), GOSTX_OK,
           "sealed again");
}

static void ke_off_curve(gostx_ike_chain *c, uint8_t *plain) {
  const gostx_ike_payload *ke = gostx__ike_find(c, GOSTX_IKE_PT_KE);
  CHECK(ke != NULL, "a KE payload");
  if (ke) plain[ke->body - plain + 4 + 40] ^= 1; /* y's octet: off the curve */
}

/* The answer in br opened under I's keys: its one notify's type, 0 if none. */
static uint16_t answer_notify(void) {
  gostx_ike_hdr h;
  gostx_ike_chain c;
  gostx_ike_notify n;
  uint8_t first, plain[CAP];
  size_t pl;
  if (gostx__ike_sk_open(&I.sk_in, br, lr, &h, &first, plain, CAP, &pl, NULL) != GOSTX_OK ||
      gostx__ike_chain_read(first, plain, pl, &c, NULL) != GOSTX_OK || c.n != 1 ||
      c.p[0].type != GOSTX_IKE_PT_NOTIFY ||
      gostx__ike_notify_read(c.p[0].body, c.p[0].len, &n) != GOSTX_OK)
    return 0;
  return n.type;
}

static void refusals(void) {
  /* before ESTABLISHED */
  confs(GOSTX_IKE_ENCR_KUZNYECHIK_MGM_KTREE, GOSTX_IKE_KE_GOST3410_2012_512);
  CHECK_RC(ike_engine_fresh(&I, &ci), GOSTX_OK, "initiator");
  CHECK_RC(gostx__ike_rekey_child(&I, 1, 0, bi, CAP, &li), GOSTX_ESTATE,
           "rekey before IKE_SA_INIT");
  CHECK_RC(gostx__ike_start(&I, 0, bi, CAP, &li), GOSTX_OK, "IKE_SA_INIT");
  CHECK_RC(gostx__ike_rekey_ike(&I, 0, bi, CAP, &li), GOSTX_ESTATE, "rekey before IKE_AUTH");
  CHECK_RC(gostx__ike_dpd(&I, 0, bi, CAP, &li), GOSTX_ESTATE, "DPD before IKE_AUTH");
  /* an unknown SPI in REKEY_SA: CHILD_SA_NOT_FOUND, nothing made */
  establish(GOSTX_IKE_ENCR_KUZNYECHIK_MGM_KTREE, GOSTX_IKE_KE_GOST3410_2012_512);
  const gostx_ike_child keep = R.child;
  I.child.spi_in ^= 0x10000;
  CHECK_RC(gostx__ike_rekey_child(&I, 0, 0, bi, CAP, &li), GOSTX_OK, "rekey of an unknown SA");
  deliver(&R, bi, li, br, &lr);
  CHECK(answer_notify() == GOSTX_IKE_N_CHILD_SA_NOT_FOUND && R.ev.flags == 0 &&
            !memcmp(&R.child, &keep, sizeof keep) && !R.old.valid,
        "CHILD_SA_NOT_FOUND, nothing made");
  deliver(&I, br, lr, bi, &li);
  CHECK(I.error == GOSTX_IKE_N_CHILD_SA_NOT_FOUND && I.pend == 0 && I.ev.flags == 0,
        "the initiator reads it and keeps its SA");
  I.child.spi_in ^= 0x10000;
  /* a KE off the curve (RFC 9385 6.1): INVALID_SYNTAX, nothing made */
  CHECK_RC(gostx__ike_rekey_child(&I, 1, 0, bi, CAP, &li), GOSTX_OK, "rekey with PFS");
  reseal(ke_off_curve);
  deliver(&R, bi, li, br, &lr);
  CHECK(answer_notify() == GOSTX_IKE_N_INVALID_SYNTAX && R.ev.flags == 0 && !R.old.valid,
        "KE off the curve: INVALID_SYNTAX, nothing made");
  /* a replayed request: the cached answer, not processed again */
  static gostx_ike_engine before;
  uint8_t req[CAP], first_ans[CAP];
  size_t req_len = li, first_len = lr;
  memcpy(req, bi, li);
  memcpy(first_ans, br, lr);
  before = R;
  deliver(&R, req, req_len, br, &lr);
  CHECK(lr == first_len && !memcmp(br, first_ans, lr), "replayed: the cached answer");
  CHECK(!memcmp(&before, &R, sizeof before), "replayed: nothing processed again");
  /* a request with an old Message ID beyond the cache, or one ahead: dropped */
  before = R;
  CHECK_RC(gostx__ike_input(&R, bi, li, 0, br, CAP, &lr), GOSTX_OK, "the same again");
  deliver(&I, first_ans, first_len, bi, &li);
  CHECK(I.error == GOSTX_IKE_N_INVALID_SYNTAX && !I.old.valid, "the initiator keeps its SA");
  CHECK_RC(gostx__ike_rekey_child(&I, 1, 0, bi, CAP, &li), GOSTX_OK, "a good rekey");
  bi[20] ^= 1; /* Message ID + 256: not the one expected */
  CHECK_RC(gostx__ike_input(&R, bi, li, 0, br, CAP, &lr), GOSTX_ESTATE, "ahead of the window");
  bi[20] ^= 1;
  bi[li - 1] ^= 1;
  CHECK_RC(gostx__ike_input(&R, bi, li, 0, br, CAP, &lr), GOSTX_EAUTH, "a forged ICV");
  bi[li - 1] ^= 1;
  talk_from_i();
  CHECK(agree(&I, &R) && quiet(&I) && quiet(&R), "after all that, a rekey goes through");
  /* the IKE SA is not rekeyed while a Child SA rekey is under way (2.25.1) */
  CHECK_RC(gostx__ike_rekey_child(&I, 0, 0, bi, CAP, &li), GOSTX_OK, "child rekey");
  CHECK_RC(gostx__ike_rekey_ike(&R, 0, br, CAP, &lr), GOSTX_OK, "IKE rekey at once");
  uint8_t bi2[CAP];
  size_t li2 = 0;
  deliver(&I, br, lr, bi2, &li2); /* I, rekeying the Child SA, refuses */
  memcpy(br, bi2, li2);
  lr = li2;
  size_t dummy = 0;
  uint8_t sink[CAP];
  deliver(&R, br, lr, sink, &dummy);
  CHECK(R.error == GOSTX_IKE_N_TEMPORARY_FAILURE && R.pend == 0, "TEMPORARY_FAILURE");
  talk_from_i();
  CHECK(agree(&I, &R) && quiet(&I) && quiet(&R), "the Child SA rekey completes");
}

/* ---- 200 rekeys over a lossy network ---- */

static uint64_t rng = 0x2545F4914F6CDD1DULL;
static unsigned roll(unsigned n) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (unsigned)(rng % n);
}

/* The Child SAs a side's data path holds, as its events installed and
 * retired them (by inbound SPI), and the one it seals with (outbound SPI). */
typedef struct path {
  uint32_t in[8];
  size_t n;
  uint32_t out;
} path;

static void apply(path *p, const gostx_ike_engine *e) {
  const gostx_ike_events *ev = &e->ev;
  for (size_t k = 0; k < ev->n_retired; k++)
    for (size_t j = 0; j < p->n; j++)
      if (p->in[j] == ev->retired[k].spi_in) p->in[j] = p->in[--p->n];
  if ((ev->flags & GOSTX_IKE_EV_CHILD_NEW) && p->n < 8) p->in[p->n++] = ev->added.spi_in;
  if (ev->flags & GOSTX_IKE_EV_CHILD_OUT) p->out = e->child.spi_out;
}

static int holds(const path *p, uint32_t spi) {
  for (size_t j = 0; j < p->n; j++)
    if (p->in[j] == spi) return 1;
  return 0;
}

/* Datagrams on their way, each with its sender's inbound SAs as they
 * were when it left: ESP outruns IKE at worst, so a switch its datagram
 * causes must be to an SA the sender held then (make-before-break). */
typedef struct queue {
  uint8_t m[6][CAP];
  size_t len[6], n;
  path sent_by[6];
} queue;

static queue to_i, to_r;
static path path_i, path_r;
static unsigned early_switches; /* to an SA the peer did not hold yet */

static void put(queue *q, const uint8_t *m, size_t len, const path *from) {
  memcpy(q->m[q->n], m, len);
  q->sent_by[q->n] = *from;
  q->len[q->n++] = len;
}

static void push(queue *q, const uint8_t *m, size_t len, const path *from) {
  if (!len || q->n == 6 || roll(100) < 10) return; /* lost */
  put(q, m, len, from);
  if (roll(100) < 5 && q->n < 6) put(q, m, len, from); /* duplicated */
}

/* One datagram from q (in order, sometimes the second first) into e. */
static void step(queue *q, gostx_ike_engine *e, path *p, queue *back, int64_t now) {
  static uint8_t out[CAP];
  size_t out_len = 0, k = q->n > 1 && roll(100) < 10 ? 1 : 0;
  if (!q->n) return;
  gostx__ike_input(e, q->m[k], q->len[k], now, out, CAP, &out_len);
  const path sender = q->sent_by[k];
  q->n--;
  for (size_t j = k; j < q->n; j++) {
    memcpy(q->m[j], q->m[j + 1], q->len[j + 1]);
    q->len[j] = q->len[j + 1];
    q->sent_by[j] = q->sent_by[j + 1];
  }
  const uint32_t out_before = p->out;
  apply(p, e);
  early_switches += p->out != out_before && !holds(&sender, p->out);
  push(back, out, out_len, p);
}

static void tick(gostx_ike_engine *e, path *p, queue *back, int64_t now) {
  static uint8_t out[CAP];
  size_t out_len = 0;
  const uint32_t out_before = p->out;
  gostx__ike_timer(e, now, out, CAP, &out_len);
  apply(p, e);
  early_switches += p->out != out_before; /* no datagram: no evidence */
  push(back, out, out_len, p);
}

static int64_t clock_ms;
static unsigned collisions;     /* steps that found a simultaneous Child SA rekey under way */
static unsigned ike_collisions; /* and an IKE SA one */

static int run_until_quiet(void) {
  for (int k = 0; k < 4000; k++) {
    clock_ms += 20;
    step(&to_r, &R, &path_r, &to_i, clock_ms);
    step(&to_i, &I, &path_i, &to_r, clock_ms);
    tick(&I, &path_i, &to_r, clock_ms);
    tick(&R, &path_r, &to_i, clock_ms);
    collisions += I.twin.valid || R.twin.valid;
    ike_collisions += I.ike_twin.ready || R.ike_twin.ready;
    if (quiet(&I) && quiet(&R) && !to_i.n && !to_r.n) return 1;
    if (I.state != GOSTX_IKE_S_ESTABLISHED || R.state != GOSTX_IKE_S_ESTABLISHED) return 0;
  }
  return 0;
}

static void start(gostx_ike_engine *e, path *p, queue *q, int ike, int pfs) {
  static uint8_t out[CAP];
  size_t out_len = 0;
  const int rc = ike ? gostx__ike_rekey_ike(e, clock_ms, out, CAP, &out_len)
                     : gostx__ike_rekey_child(e, pfs, clock_ms, out, CAP, &out_len);
  CHECK_RC(rc, GOSTX_OK, "a rekey starts");
  apply(p, e);
  push(q, out, out_len, p);
}

static void lossy_rekeys(void) {
  establish(GOSTX_IKE_ENCR_MAGMA_MGM_KTREE, GOSTX_IKE_KE_GOST3410_2012_256);
  memset(&to_i, 0, sizeof to_i);
  memset(&to_r, 0, sizeof to_r);
  path_i = (path){{I.child.spi_in}, 1, I.child.spi_out};
  path_r = (path){{R.child.spi_in}, 1, R.child.spi_out};
  unsigned failures = 0, both = 0, ike_changes = 0;
  for (int round = 0; round < 200; round++) {
    const int ike = round % 2, simultaneous = round % 5 == 4, from_r = roll(2);
    uint8_t spi_before[8];
    memcpy(spi_before, I.spi_i, 8);
    start(from_r ? &R : &I, from_r ? &path_r : &path_i, from_r ? &to_i : &to_r, ike, roll(2));
    if (simultaneous) {
      both++;
      start(from_r ? &I : &R, from_r ? &path_i : &path_r, from_r ? &to_r : &to_i, ike, roll(2));
    }
    int settled = run_until_quiet();
    clock_ms += GOSTX_IKE_REDUNDANT_MS; /* the redundant IKE SAs' time runs out */
    tick(&I, &path_i, &to_r, clock_ms);
    tick(&R, &path_r, &to_i, clock_ms);
    settled &= !I.old_sa[1].valid && !R.old_sa[1].valid && !to_i.n && !to_r.n;
    ike_changes += memcmp(spi_before, I.spi_i, 8) != 0;
    const int ok = settled && agree(&I, &R) && path_i.n == 1 && path_r.n == 1 &&
                   path_i.in[0] == I.child.spi_in && path_r.in[0] == R.child.spi_in &&
                   path_i.out == I.child.spi_out && path_r.out == R.child.spi_out;
    if (!ok && failures++ < 3)
      CHECK(0, "round %d (%s%s): settled %d, agree %d, paths %zu %zu", round,
            ike ? "IKE" : "Child", simultaneous ? ", simultaneous" : "", settled, agree(&I, &R),
            path_i.n, path_r.n);
  }
  CHECK(failures == 0, "200 rekeys (%u simultaneous, %u IKE SA changes) over loss and "
                       "duplication: keys agree, only the current SA installed",
        both, ike_changes);
  CHECK(early_switches == 0,
        "make-before-break: each switch to an SA the peer held when it caused it (%u not)",
        early_switches);
  printf("lossy: %u simultaneous, %u IKE SA changes, %u + %u collision steps\n", both,
         ike_changes, collisions, ike_collisions);
  CHECK(collisions > 0 && ike_collisions > 0 && ike_changes == 100,
        "the collisions of 2.8.1 and 2.8.2 met (%u, %u steps), the IKE SA rekeyed %u times",
        collisions, ike_collisions, ike_changes);
}

/* ---- simultaneous Child SA rekeys (RFC 7296 2.8.1) with chosen nonces ---- */

/* e's next nonce all n, its next IKE SPI all ike_spi, its next ESP SPI spi
 * (the test hooks). */
static void next_draw(gostx_ike_engine *e, uint8_t n, uint8_t ike_spi, uint32_t spi) {
  e->test.set = 1;
  memset(e->test.nonce, n, sizeof e->test.nonce);
  memset(e->test.spi, ike_spi, sizeof e->test.spi);
  memset(e->test.priv, 0x11, 32); /* below the 256-bit curve's q */
  e->test.esp_spi = spi;
}

static uint8_t del_i[CAP], del_r[CAP]; /* each side's Delete after a crossing */
static size_t ldel_i, ldel_r;
static unsigned answered_i, answered_r; /* the events of each side's answer */

/* Both rekey (the IKE SA when ike, else the Child SA: R with PFS) at once
 * and each answers the other's request before its own answer comes. The
 * nonces: I's request ni, R's answer to it nr; R's request ni2, I's answer
 * nr2. ESP SPIs: I 0x1111 then 0x2222, R 0x3333 then 0x4444; IKE SPIs: I
 * a1.. then a3.., R b2.. then b4... The Deletes that follow into del_*. */
static void cross(int ike, uint8_t ni, uint8_t nr, uint8_t ni2, uint8_t nr2) {
  uint8_t req_i[CAP], req_r[CAP], ans_i[CAP], ans_r[CAP];
  size_t lreq_i, lreq_r, lans_i, lans_r;
  next_draw(&I, ni, 0xa1, 0x1111);
  CHECK_RC(ike ? gostx__ike_rekey_ike(&I, 0, req_i, CAP, &lreq_i)
               : gostx__ike_rekey_child(&I, 0, 0, req_i, CAP, &lreq_i),
           GOSTX_OK, "I's rekey");
  next_draw(&R, ni2, 0xb2, 0x3333);
  CHECK_RC(ike ? gostx__ike_rekey_ike(&R, 0, req_r, CAP, &lreq_r)
               : gostx__ike_rekey_child(&R, 1, 0, req_r, CAP, &lreq_r),
           GOSTX_OK, "R's rekey");
  next_draw(&I, nr2, 0xa3, 0x2222);
  deliver(&I, req_r, lreq_r, ans_i, &lans_i);
  CHECK(ike ? I.ike_twin.ready && !(I.ev.flags & GOSTX_IKE_EV_IKE_REKEYED)
            : I.twin.valid && I.twin.spi_in == 0x2222 && (I.ev.flags & GOSTX_IKE_EV_CHILD_NEW),
        "I answers R's rekey: the new SA waits beside the current one");
  next_draw(&R, nr, 0xb4, 0x4444);
  deliver(&R, req_i, lreq_i, ans_r, &lans_r);
  deliver(&I, ans_r, lans_r, del_i, &ldel_i);
  answered_i = I.ev.flags;
  deliver(&R, ans_i, lans_i, del_r, &ldel_r);
  answered_r = R.ev.flags;
}

/* 2.8.1 make-before-break: the survivor's initiator seals with it on its
 * answer (the peer installed it before answering); the other side only
 * when the old SA's Delete comes (the peer installs its inbound half of
 * the survivor on the other answer, which may come later). */
static void switch_order(int i_survives) {
  static gostx_ike_engine probe; /* the other side, given the Delete first */
  uint8_t sink[CAP];
  size_t n = 0;
  const int out_i = (answered_i & GOSTX_IKE_EV_CHILD_OUT) != 0;
  const int out_r = (answered_r & GOSTX_IKE_EV_CHILD_OUT) != 0;
  CHECK(out_i == i_survives && out_r == !i_survives,
        "on the answers only the survivor's initiator switches (I %d, R %d)", out_i, out_r);
  CHECK_RC(gostx__ike_engine_copy(&probe, i_survives ? &R : &I), GOSTX_OK, "the other side forked");
  deliver(&probe, i_survives ? del_i : del_r, i_survives ? ldel_i : ldel_r, sink, &n);
  CHECK((probe.ev.flags & GOSTX_IKE_EV_CHILD_OUT) &&
            probe.child.spi_out == (i_survives ? 0x1111u : 0x3333u),
        "the other side switches to the survivor on the old SA's Delete");
  gostx__ike_engine_clear(&probe);
}

/* The Deletes of a crossing carried to their answers. */
static void deletes_after_cross(void) {
  memcpy(bi, del_i, ldel_i);
  li = ldel_i;
  talk_from_i();
  memcpy(br, del_r, ldel_r);
  lr = ldel_r;
  talk_from_r();
}

/* 2.8.1: the new SA of the exchange holding the lowest nonce is deleted by
 * that exchange's initiator; the other initiator deletes the old SA. */
static void collision(uint8_t ni, uint8_t nr, uint8_t ni2, uint8_t nr2, int i_survives) {
  establish(GOSTX_IKE_ENCR_KUZNYECHIK_MGM_KTREE, GOSTX_IKE_KE_GOST3410_2012_256);
  const gostx_ike_child old_i = I.child;
  cross(0, ni, nr, ni2, nr2);
  /* the survivor: I's exchange's SA (I: 0x1111, R: 0x4444) or R's */
  const uint32_t keep_i = i_survives ? 0x1111 : 0x2222, keep_r = i_survives ? 0x4444 : 0x3333;
  CHECK(I.child.spi_in == keep_i && R.child.spi_in == keep_r && agree(&I, &R),
        "(%02x %02x | %02x %02x) the survivor: %s's new SA", ni, nr, ni2, nr2,
        i_survives ? "I" : "R");
  CHECK(I.pend == GOSTX_IKE_X_DELETE_CHILD && R.pend == GOSTX_IKE_X_DELETE_CHILD &&
            I.pend_spi == (i_survives ? old_i.spi_in : 0x1111u) &&
            R.pend_spi == (i_survives ? 0x3333u : R.old.spi_in),
        "the survivor's initiator deletes the old SA, the other its redundant one");
  switch_order(i_survives);
  deletes_after_cross();
  CHECK(quiet(&I) && quiet(&R) && agree(&I, &R) && I.child.spi_in == keep_i,
        "both deletes done: one Child SA left, agreed");
}

/* 2.8.2 likewise for the IKE SA: the survivor inherits the Child SA, the
 * redundant new SA and the old one are deleted over themselves. */
static void ike_collision(uint8_t ni, uint8_t nr, uint8_t ni2, uint8_t nr2, int i_survives) {
  establish(GOSTX_IKE_ENCR_MAGMA_MGM_KTREE, GOSTX_IKE_KE_GOST3410_2012_256);
  const gostx_ike_child child = I.child;
  cross(1, ni, nr, ni2, nr2);
  /* I's exchange's SA: SPIi a1.., SPIr b4..; R's: SPIi b2.., SPIr a3.. */
  CHECK(I.spi_i[0] == (i_survives ? 0xa1 : 0xb2) && agree(&I, &R) && I.orig_init == i_survives,
        "(%02x %02x | %02x %02x) the survivor: %s's new IKE SA", ni, nr, ni2, nr2,
        i_survives ? "I" : "R");
  CHECK(!memcmp(&I.child, &child, sizeof child), "the Child SA inherited as it was");
  deletes_after_cross();
  CHECK(quiet(&I) && quiet(&R) && !I.old_sa[1].valid && !R.old_sa[1].valid && agree(&I, &R),
        "the old and the redundant IKE SA deleted over themselves");
  CHECK_RC(gostx__ike_rekey_child(&R, 1, 0, br, CAP, &lr), GOSTX_OK, "a Child SA rekey after");
  talk_from_r();
  CHECK(quiet(&I) && quiet(&R) && agree(&I, &R), "goes through on the survivor");
}

static void simultaneous_child_rekeys(void) {
  collision(0x01, 0x90, 0xfe, 0x80, 0); /* the lowest in I's exchange: I's SA goes */
  collision(0x90, 0x02, 0xfe, 0x80, 0); /* R's answer to I is the lowest: the same */
  collision(0x90, 0x80, 0x03, 0xfe, 1); /* the lowest in R's exchange: R's SA goes */
  collision(0x90, 0x80, 0xfe, 0x04, 1); /* I's answer to R is the lowest: the same */
  ike_collision(0x01, 0x90, 0xfe, 0x80, 0);
  ike_collision(0x90, 0x02, 0xfe, 0x80, 0);
  ike_collision(0x90, 0x80, 0x03, 0xfe, 1);
  ike_collision(0x90, 0x80, 0xfe, 0x04, 1);
}

int main(void) {
  for (int from_r = 0; from_r < 2; from_r++)
    for (int pfs = 0; pfs < 2; pfs++) child_rekey(from_r, pfs);
  ike_rekey(0);
  ike_rekey(1);
  deletes();
  peer_gone();
  refusals();
  simultaneous_child_rekeys();
  lossy_rekeys();
  return t_done();
}
