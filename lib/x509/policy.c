/* Certificate policy processing as RFC 5280 section 6.1 writes it: the
 * valid_policy_tree and the explicit_policy, inhibit_anyPolicy and
 * policy_mapping counters, with the initial inputs user-initial-policy-set
 * = {anyPolicy} and the three initial-*-inhibit/explicit flags false (the
 * API has no inputs for them). With those inputs 6.1.5(g) leaves one
 * question: is the tree empty where an explicit policy is required?
 *
 * The tree lives in a fixed pool: a path of certificates that each list
 * many policies and mappings could make it grow exponentially (the trap of
 * CVE-2023-0464), so more than POLICY_NODES nodes is a refusal, named. A
 * node's expected_policy_set is {its policy} unless its certificate mapped
 * it (6.1.4(b)(1)); then it is read from that certificate's mappings. */
#include <stdio.h>

#include "x509/x509_internal.h"

#define POLICY_NODES 256

typedef struct pnode {
  gostx__der policy;
  int parent; /* index in the pool; -1 for the root */
  int depth;  /* the certificate i (1..n) that made it; 0 the root */
  uint8_t mapped, alive;
} pnode;

typedef struct ptree {
  pnode node[POLICY_NODES];
  int n;
  int null; /* the valid_policy_tree is NULL */
  const gostx_x509_cert *const *path;
  size_t len; /* certificate i is path[len - 1 - i] */
} ptree;

static const gostx__der any_policy = {(const uint8_t *)OID_ANY_POLICY, sizeof OID_ANY_POLICY - 1};

static int same_oid(gostx__der a, gostx__der b) { return gostx__der_oid_is(a, b.p, b.n); }

static const gostx_x509_cert *cert_at(const ptree *t, int i) { return t->path[t->len - 1 - (size_t)i]; }

/* The next policy OID of a checked certificatePolicies list. */
static int next_policy(gostx__der *list, gostx__der *oid) {
  gostx__der info;
  return !gostx__der_get(list, GOSTX__DER_SEQ, &info, NULL) && !gostx__der_oid(&info, oid);
}

/* The next (issuerDomainPolicy, subjectDomainPolicy) of checked mappings. */
static int next_mapping(gostx__der *list, gostx__der *from, gostx__der *to) {
  gostx__der pair;
  return !gostx__der_get(list, GOSTX__DER_SEQ, &pair, NULL) && !gostx__der_oid(&pair, from) &&
         !gostx__der_oid(&pair, to);
}

/* The k-th value of node's expected_policy_set: 1, or 0 past the end. */
static int expected(const ptree *t, const pnode *nd, size_t k, gostx__der *out) {
  if (!nd->mapped) {
    *out = nd->policy;
    return k == 0;
  }
  const gostx_x509_cert *c = cert_at(t, nd->depth);
  gostx__der maps = {c->policy_mappings, c->policy_mappings_len}, from, to;
  while (next_mapping(&maps, &from, &to))
    if (same_oid(from, nd->policy) && k-- == 0) return *out = to, 1;
  return 0;
}

static int expects(const ptree *t, const pnode *nd, gostx__der oid) {
  gostx__der e;
  for (size_t k = 0; expected(t, nd, k, &e); k++)
    if (same_oid(e, oid)) return 1;
  return 0;
}

static int has_child(const ptree *t, int parent, gostx__der oid) {
  for (int k = 0; k < t->n; k++)
    if (t->node[k].alive && t->node[k].parent == parent && same_oid(t->node[k].policy, oid)) return 1;
  return 0;
}

/* A node at depth; GOSTX_ENOMEM when the pool is full. */
static int add_node(ptree *t, int parent, int depth, gostx__der policy, int mapped) {
  if (t->n == POLICY_NODES) return GOSTX_ENOMEM;
  t->node[t->n++] = (pnode){policy, parent, depth, (uint8_t)mapped, 1};
  return 0;
}

/* The first live node at depth with this policy, or -1. */
static int find(const ptree *t, int depth, gostx__der oid) {
  for (int k = 0; k < t->n; k++)
    if (t->node[k].alive && t->node[k].depth == depth && same_oid(t->node[k].policy, oid)) return k;
  return -1;
}

/* Nodes above depth `below` without children deleted, level by level up
 * (6.1.3(d)(3), 6.1.4(b)(2)); the tree is NULL when its root goes. */
static void prune(ptree *t, int below) {
  for (int d = below - 1; d >= 0; d--)
    for (int k = 0; k < t->n; k++) {
      pnode *nd = &t->node[k];
      if (!nd->alive || nd->depth != d) continue;
      int children = 0;
      for (int m = 0; m < t->n && !children; m++)
        children = t->node[m].alive && t->node[m].parent == k;
      nd->alive = (uint8_t)children;
    }
  t->null = !t->node[0].alive;
}

/* 6.1.3(d): certificate i's policies grow the tree one level. */
static int grow(ptree *t, int i, int inhibit_any, int self_issued_ca) {
  const gostx_x509_cert *c = cert_at(t, i);
  gostx__der list = {c->policies, c->policies_len}, p;
  int has_any = 0, parents = t->n;
  while (next_policy(&list, &p)) {
    if (same_oid(p, any_policy)) {
      has_any = 1;
      continue;
    }
    int matched = 0;
    for (int k = 0; k < parents; k++) { /* (d)(1)(i) */
      pnode *nd = &t->node[k];
      if (!nd->alive || nd->depth != i - 1 || !expects(t, nd, p)) continue;
      matched = 1;
      if (add_node(t, k, i, p, 0)) return GOSTX_ENOMEM;
    }
    int any = find(t, i - 1, any_policy); /* (d)(1)(ii) */
    if (!matched && any >= 0 && add_node(t, any, i, p, 0)) return GOSTX_ENOMEM;
  }
  if (has_any && (inhibit_any > 0 || self_issued_ca)) /* (d)(2) */
    for (int k = 0; k < parents; k++) {
      gostx__der e;
      if (!t->node[k].alive || t->node[k].depth != i - 1) continue;
      for (size_t m = 0; expected(t, &t->node[k], m, &e); m++)
        if (!has_child(t, k, e) && add_node(t, k, i, e, 0)) return GOSTX_ENOMEM;
    }
  prune(t, i);
  return 0;
}

/* 6.1.4(b): certificate i's mappings applied to its level of the tree. */
static int map_level(ptree *t, int i, int policy_mapping) {
  const gostx_x509_cert *c = cert_at(t, i);
  gostx__der maps = {c->policy_mappings, c->policy_mappings_len}, from, to;
  while (!t->null && next_mapping(&maps, &from, &to)) {
    int found = 0;
    for (int k = 0; k < t->n; k++) {
      pnode *nd = &t->node[k];
      if (!nd->alive || nd->depth != i || !same_oid(nd->policy, from)) continue;
      found = 1;
      if (policy_mapping > 0) nd->mapped = 1;
      else nd->alive = 0; /* (b)(2) */
    }
    if (policy_mapping == 0) {
      prune(t, i);
      continue;
    }
    int any_here = find(t, i, any_policy), any_above = find(t, i - 1, any_policy);
    if (!found && any_here >= 0 && any_above >= 0 && add_node(t, any_above, i, from, 1))
      return GOSTX_ENOMEM;
  }
  return 0;
}

/* 6.1.4(a): anyPolicy is mapped neither from nor to. */
static int maps_any_policy(const gostx_x509_cert *c) {
  gostx__der maps = {c->policy_mappings, c->policy_mappings_len}, from, to;
  while (next_mapping(&maps, &from, &to))
    if (same_oid(from, any_policy) || same_oid(to, any_policy)) return 1;
  return 0;
}

static void subject_text(const gostx_x509_cert *c, char *text, size_t cap) {
  if (gostx_x509_name_text(c->subject, c->subject_len, text, cap)) snprintf(text, cap, "?");
}

/* The 6.1 counters and who last lowered explicit_policy. */
typedef struct pstate {
  int explicit_policy, inhibit_any, policy_mapping;
  const gostx_x509_cert *explicit_by;
} pstate;

/* 6.1.4(h)(i)(j): the counters for certificate i + 1. */
static void count_down(pstate *s, const gostx_x509_cert *c) {
  if (!gostx__x509_self_issued(c)) {
    if (s->explicit_policy) s->explicit_policy--;
    if (s->policy_mapping) s->policy_mapping--;
    if (s->inhibit_any) s->inhibit_any--;
  }
  if (c->require_explicit_policy >= 0 && c->require_explicit_policy < s->explicit_policy)
    s->explicit_policy = c->require_explicit_policy, s->explicit_by = c;
  if (c->inhibit_policy_mapping >= 0 && c->inhibit_policy_mapping < s->policy_mapping)
    s->policy_mapping = c->inhibit_policy_mapping;
  if (c->inhibit_any_policy >= 0 && c->inhibit_any_policy < s->inhibit_any)
    s->inhibit_any = c->inhibit_any_policy;
}

static gostx_x509_status no_policy(const pstate *s, const gostx_x509_cert *c, char *why,
                                   size_t cap) {
  char at[256], by[256];
  subject_text(c, at, sizeof at);
  subject_text(s->explicit_by, by, sizeof by);
  snprintf(why, cap,
           "policies: no valid policy left at %s, and the requireExplicitPolicy of %s requires "
           "one (RFC 5280 6.1.3(f), 6.1.5(g))",
           at, by);
  return GOSTX_X509_POLICY;
}

gostx_x509_status gostx__x509_policies(const gostx_x509_cert *const *path, size_t len,
                                       size_t *depth, char *why, size_t cap) {
  static const char too_many[] =
      "policies: more than " GOSTX__STR(POLICY_NODES) " nodes in the valid policy tree (gostx's limit)";
  if (len < 2) return GOSTX_X509_OK; /* the anchor alone: no path to process */
  ptree *t = &(ptree){.n = 0};
  int n = (int)len - 1;
  t->path = path;
  t->len = len;
  t->node[t->n++] = (pnode){any_policy, -1, 0, 0, 1};
  pstate s = {n + 1, n + 1, n + 1, NULL};
  for (int i = 1; i <= n; i++) {
    const gostx_x509_cert *c = cert_at(t, i);
    *depth = len - 1 - (size_t)i;
    if (!t->null && c->policies && grow(t, i, s.inhibit_any, i < n && gostx__x509_self_issued(c)))
      return snprintf(why, cap, "%s", too_many), GOSTX_X509_POLICY;
    if (!c->policies) t->null = 1; /* (e) */
    if (i == n) {                  /* 6.1.5(a)(b) */
      if (s.explicit_policy) s.explicit_policy--;
      if (c->require_explicit_policy == 0) s.explicit_policy = 0, s.explicit_by = c;
    }
    if (s.explicit_policy == 0 && t->null) return no_policy(&s, c, why, cap); /* (f), (g) */
    if (i == n) break;
    if (c->policy_mappings && maps_any_policy(c)) {
      char ca[256];
      subject_text(c, ca, sizeof ca);
      snprintf(why, cap, "policies: policyMappings of %s maps anyPolicy (RFC 5280 6.1.4(a))", ca);
      return GOSTX_X509_POLICY;
    }
    if (c->policy_mappings && map_level(t, i, s.policy_mapping))
      return snprintf(why, cap, "%s", too_many), GOSTX_X509_POLICY;
    count_down(&s, c);
  }
  return GOSTX_X509_OK;
}
