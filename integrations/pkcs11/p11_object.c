/* Objects and attributes (p11.h): the attribute table (which class has
 * which attribute, its default, whether it may change), object creation
 * with the class's checks, C_GetAttributeValue's rules (length queries,
 * CK_UNAVAILABLE_INFORMATION, sensitive values), C_SetAttributeValue,
 * C_FindObjects*, and the in-memory view of the token's files. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/asn1/der.h"
#include "p11.h"

/* ---- the attribute table ---- */
enum { C_DATA = 1, C_CERT = 2, C_PUB = 4, C_PRIV = 8, C_SECRET = 16, C_KEY = C_PUB | C_PRIV | C_SECRET,
       C_ALL = 31 };
enum { K_BOOL, K_ULONG, K_BYTES };
enum {
  F_REQ = 1,  /* C_CreateObject needs it */
  F_RO = 2,   /* only the module sets it */
  F_OPT = 4,  /* absent unless given */
  F_MOD = 8,  /* C_SetAttributeValue may change it */
  F_UP = 16,  /* may only go false -> true (CKA_SENSITIVE) */
  F_DOWN = 32 /* may only go true -> false (CKA_EXTRACTABLE) */
};
typedef struct {
  CK_ATTRIBUTE_TYPE type;
  int kind, classes, flags;
  CK_ULONG dflt;
} attr_rule;

static const attr_rule RULES[] = {
    {CKA_CLASS, K_ULONG, C_ALL, F_REQ, 0},
    {CKA_TOKEN, K_BOOL, C_ALL, 0, CK_FALSE},
    {CKA_PRIVATE, K_BOOL, C_ALL, 0, CK_FALSE}, /* keys: forced true, below */
    {CKA_MODIFIABLE, K_BOOL, C_ALL, 0, CK_TRUE},
    {CKA_COPYABLE, K_BOOL, C_ALL, 0, CK_TRUE},
    {CKA_DESTROYABLE, K_BOOL, C_ALL, 0, CK_TRUE},
    {CKA_LABEL, K_BYTES, C_ALL, F_MOD, 0},
    {CKA_APPLICATION, K_BYTES, C_DATA, F_MOD, 0},
    {CKA_OBJECT_ID, K_BYTES, C_DATA, F_MOD, 0},
    {CKA_VALUE, K_BYTES, C_DATA, F_MOD, 0},
    {CKA_CERTIFICATE_TYPE, K_ULONG, C_CERT, F_REQ, 0},
    {CKA_TRUSTED, K_BOOL, C_CERT | C_PUB | C_SECRET, 0, CK_FALSE},
    {CKA_CERTIFICATE_CATEGORY, K_ULONG, C_CERT, F_MOD, 0},
    {CKA_SUBJECT, K_BYTES, C_CERT, F_REQ | F_MOD, 0},
    {CKA_ISSUER, K_BYTES, C_CERT, F_MOD, 0},
    {CKA_SERIAL_NUMBER, K_BYTES, C_CERT, F_MOD, 0},
    {CKA_VALUE, K_BYTES, C_CERT, F_REQ, 0},
    {CKA_ID, K_BYTES, C_CERT | C_KEY, F_MOD, 0},
    {CKA_START_DATE, K_BYTES, C_CERT | C_KEY, F_MOD, 0},
    {CKA_END_DATE, K_BYTES, C_CERT | C_KEY, F_MOD, 0},
    {CKA_KEY_TYPE, K_ULONG, C_KEY, F_REQ, 0},
    {CKA_DERIVE, K_BOOL, C_KEY, F_MOD, CK_FALSE},
    {CKA_LOCAL, K_BOOL, C_KEY, F_RO, CK_FALSE},
    {CKA_KEY_GEN_MECHANISM, K_ULONG, C_KEY, F_RO, CK_UNAVAILABLE_INFORMATION},
    {CKA_SUBJECT, K_BYTES, C_PUB | C_PRIV, F_MOD, 0},
    {CKA_ENCRYPT, K_BOOL, C_PUB | C_SECRET, F_MOD, CK_FALSE},
    {CKA_VERIFY, K_BOOL, C_PUB | C_SECRET, F_MOD, CK_TRUE},
    {CKA_VERIFY_RECOVER, K_BOOL, C_PUB, 0, CK_FALSE},
    {CKA_WRAP, K_BOOL, C_PUB | C_SECRET, F_MOD, CK_FALSE},
    {CKA_SENSITIVE, K_BOOL, C_PRIV | C_SECRET, F_MOD | F_UP, CK_TRUE},
    {CKA_DECRYPT, K_BOOL, C_PRIV | C_SECRET, F_MOD, CK_FALSE},
    {CKA_SIGN, K_BOOL, C_PRIV | C_SECRET, F_MOD, CK_TRUE},
    {CKA_SIGN_RECOVER, K_BOOL, C_PRIV, 0, CK_FALSE},
    {CKA_UNWRAP, K_BOOL, C_PRIV | C_SECRET, F_MOD, CK_FALSE},
    {CKA_EXTRACTABLE, K_BOOL, C_PRIV | C_SECRET, F_MOD | F_DOWN, CK_FALSE},
    {CKA_ALWAYS_SENSITIVE, K_BOOL, C_PRIV | C_SECRET, F_RO, CK_FALSE},
    {CKA_NEVER_EXTRACTABLE, K_BOOL, C_PRIV | C_SECRET, F_RO, CK_FALSE},
    {CKA_WRAP_WITH_TRUSTED, K_BOOL, C_PRIV | C_SECRET, 0, CK_FALSE},
    {CKA_ALWAYS_AUTHENTICATE, K_BOOL, C_PRIV, 0, CK_FALSE},
    {CKA_VALUE, K_BYTES, C_KEY, F_REQ, 0},
    {CKA_VALUE_LEN, K_ULONG, C_SECRET, F_RO, 0},
    {CKA_GOSTR3410_PARAMS, K_BYTES, C_PUB | C_PRIV, F_REQ, 0},
    {CKA_GOSTR3411_PARAMS, K_BYTES, C_PUB | C_PRIV, F_OPT, 0},
    {CKA_GOST28147_PARAMS, K_BYTES, C_PUB | C_PRIV, F_OPT, 0},
    /* an array of CK_MECHANISM_TYPE; absent: every mechanism of the key's type */
    {CKA_ALLOWED_MECHANISMS, K_BYTES, C_KEY, F_OPT, 0},
};
enum { N_RULES = sizeof RULES / sizeof RULES[0] };

static int class_bit(CK_OBJECT_CLASS c) {
  switch (c) {
  case CKO_DATA: return C_DATA;
  case CKO_CERTIFICATE: return C_CERT;
  case CKO_PUBLIC_KEY: return C_PUB;
  case CKO_PRIVATE_KEY: return C_PRIV;
  case CKO_SECRET_KEY: return C_SECRET;
  default: return 0;
  }
}

static const attr_rule *rule_for(CK_ATTRIBUTE_TYPE type, int cbit) {
  for (size_t i = 0; i < N_RULES; i++)
    if (RULES[i].type == type && (RULES[i].classes & cbit))
      return &RULES[i];
  return NULL;
}

/* ---- the object table ---- */
static struct {
  p11_obj **o; /* by handle - 1 */
  size_t n;
} g_objs;

p11_obj *p11_obj_get(CK_OBJECT_HANDLE h) {
  return h == 0 || h > g_objs.n ? NULL : g_objs.o[h - 1];
}

p11_attr *p11_attr_find(const p11_obj *o, CK_ATTRIBUTE_TYPE type) {
  for (size_t i = 0; i < o->n; i++)
    if (o->a[i].type == type)
      return &o->a[i];
  return NULL;
}

int p11_attr_bool(const p11_obj *o, CK_ATTRIBUTE_TYPE type, int dflt) {
  const p11_attr *a = p11_attr_find(o, type);
  return a && a->len == 1 ? a->val[0] != 0 : dflt;
}

CK_ULONG p11_attr_ulong(const p11_obj *o, CK_ATTRIBUTE_TYPE type, CK_ULONG dflt) {
  const p11_attr *a = p11_attr_find(o, type);
  CK_ULONG v;
  if (!a || a->len != sizeof v)
    return dflt;
  memcpy(&v, a->val, sizeof v);
  return v;
}

void p11_attrs_free(p11_attr *a, size_t n) {
  for (size_t i = 0; a && i < n; i++) {
    if (a[i].val) {
      gostx_memzero(a[i].val, a[i].len);
      free(a[i].val);
    }
  }
  free(a);
}

static void obj_free(p11_obj *o) {
  p11_attrs_free(o->a, o->n);
  free(o);
}

static void obj_remove(p11_obj *o) {
  g_objs.o[o->h - 1] = NULL;
  obj_free(o);
}

static CK_RV obj_insert(p11_obj *o) {
  p11_obj **arr = realloc(g_objs.o, (g_objs.n + 1) * sizeof *arr);
  if (!arr)
    return CKR_HOST_MEMORY;
  g_objs.o = arr;
  o->h = (CK_OBJECT_HANDLE)(g_objs.n + 1);
  g_objs.o[g_objs.n++] = o;
  return CKR_OK;
}

void p11_objs_drop_session(CK_SESSION_HANDLE owner) {
  for (size_t i = 0; i < g_objs.n; i++)
    if (g_objs.o[i] && !g_objs.o[i]->token && g_objs.o[i]->owner == owner)
      obj_remove(g_objs.o[i]);
}

void p11_objs_drop_private(p11_token *t) {
  for (size_t i = 0; i < g_objs.n; i++)
    if (g_objs.o[i] && g_objs.o[i]->tok == t && g_objs.o[i]->priv)
      obj_remove(g_objs.o[i]);
}

void p11_objs_free(void) {
  for (size_t i = 0; i < g_objs.n; i++)
    if (g_objs.o[i])
      obj_free(g_objs.o[i]);
  free(g_objs.o);
  memset(&g_objs, 0, sizeof g_objs);
}

int p11_obj_visible(const p11_obj *o, const p11_token *t) {
  return o->tok == t && (!o->priv || t->user_in);
}

p11_obj *p11_obj_for(const p11_session *s, CK_OBJECT_HANDLE h) {
  p11_obj *o = p11_obj_get(h);
  return o && p11_obj_visible(o, s->tok) ? o : NULL;
}

/* ---- GOST helpers ---- */
void p11_reverse(uint8_t *out, const uint8_t *in, size_t n) {
  for (size_t i = 0; i < n / 2; i++) {
    uint8_t a = in[i], b = in[n - 1 - i];
    out[i] = b, out[n - 1 - i] = a;
  }
  if (n & 1)
    out[n / 2] = in[n / 2];
}

CK_RV p11_curve_der(gostx_gost3410_curve curve, uint8_t *out, size_t cap, size_t *len) {
  const char *oid = gostx_gost3410_curve_oid(curve);
  size_t n;
  if (!oid || cap < 2 || gostx__der_oid_encode(oid, out + 2, cap - 2, &n) != 0 || n > 127)
    return CKR_GENERAL_ERROR;
  out[0] = 0x06, out[1] = (uint8_t)n;
  *len = n + 2;
  return CKR_OK;
}

int p11_curve_from_der(const uint8_t *der, size_t len, gostx_gost3410_curve *curve) {
  char text[64];
  if (len < 3 || der[0] != 0x06 || der[1] != len - 2 || len - 2 > 40)
    return -1;
  gostx__der oid = {der + 2, len - 2};
  if (gostx__der_oid_text(oid, text, sizeof text) != 0)
    return -1;
  int c = gostx_gost3410_curve_by_name(text); /* every OID, CryptoPro's too */
  if (c <= 0)
    return -1;
  *curve = (gostx_gost3410_curve)c;
  return 0;
}

/* id-tc26-gost3411-12-256 1.2.643.7.1.1.2.2 and -512 1.2.643.7.1.1.2.3 */
static const uint8_t STREEBOG256_DER[] = {0x06, 0x08, 0x2a, 0x85, 0x03, 0x07, 0x01, 0x01, 0x02, 0x02};
static const uint8_t STREEBOG512_DER[] = {0x06, 0x08, 0x2a, 0x85, 0x03, 0x07, 0x01, 0x01, 0x02, 0x03};

size_t p11_streebog_der(size_t digest_len, const uint8_t **der) {
  *der = digest_len == 64 ? STREEBOG512_DER : STREEBOG256_DER;
  return sizeof STREEBOG256_DER;
}

CK_RV p11_key_curve(const p11_obj *o, CK_OBJECT_CLASS want, gostx_gost3410_curve *curve,
                    size_t *len) {
  if (p11_attr_ulong(o, CKA_CLASS, ~0UL) != want)
    return CKR_KEY_TYPE_INCONSISTENT;
  CK_KEY_TYPE kt = p11_attr_ulong(o, CKA_KEY_TYPE, ~0UL);
  const p11_attr *p = p11_attr_find(o, CKA_GOSTR3410_PARAMS);
  if ((kt != CKK_GOSTR3410 && kt != CKK_GOSTR3410_512) || !p ||
      p11_curve_from_der(p->val, p->len, curve) != 0)
    return CKR_KEY_TYPE_INCONSISTENT;
  *len = gostx_gost3410_size(*curve);
  return (*len == 64) == (kt == CKK_GOSTR3410_512) ? CKR_OK : CKR_KEY_TYPE_INCONSISTENT;
}

/* ---- building an object ---- */
typedef struct {
  p11_attr *a;
  size_t n;
} attr_list;

static CK_RV list_set(attr_list *l, CK_ATTRIBUTE_TYPE type, const void *val, size_t len) {
  p11_attr *slot = NULL;
  for (size_t i = 0; i < l->n; i++)
    if (l->a[i].type == type)
      slot = &l->a[i];
  if (!slot) {
    p11_attr *arr = realloc(l->a, (l->n + 1) * sizeof *arr);
    if (!arr)
      return CKR_HOST_MEMORY;
    l->a = arr;
    slot = &l->a[l->n++];
    memset(slot, 0, sizeof *slot);
    slot->type = type;
  }
  uint8_t *v = len ? malloc(len) : NULL;
  if (len && !v)
    return CKR_HOST_MEMORY;
  if (len)
    memcpy(v, val, len);
  if (slot->val) {
    gostx_memzero(slot->val, slot->len);
    free(slot->val);
  }
  slot->val = v;
  slot->len = len;
  return CKR_OK;
}

static const p11_attr *list_get(const attr_list *l, CK_ATTRIBUTE_TYPE type) {
  for (size_t i = 0; i < l->n; i++)
    if (l->a[i].type == type)
      return &l->a[i];
  return NULL;
}

/* One attribute of a template, checked against the class's rules. */
static CK_RV take_attr(attr_list *l, int cbit, const CK_ATTRIBUTE *t, int from_module) {
  const attr_rule *r = rule_for(t->type, cbit);
  if (!r)
    return CKR_ATTRIBUTE_TYPE_INVALID;
  if ((r->flags & F_RO) && !from_module)
    return CKR_ATTRIBUTE_READ_ONLY;
  if (t->ulValueLen && !t->pValue)
    return CKR_ATTRIBUTE_VALUE_INVALID;
  if (r->kind == K_BOOL) {
    if (t->ulValueLen != sizeof(CK_BBOOL))
      return CKR_ATTRIBUTE_VALUE_INVALID;
    CK_BBOOL b = *(const CK_BBOOL *)t->pValue ? CK_TRUE : CK_FALSE;
    return list_set(l, t->type, &b, 1);
  }
  if (r->kind == K_ULONG && t->ulValueLen != sizeof(CK_ULONG))
    return CKR_ATTRIBUTE_VALUE_INVALID;
  if (t->type == CKA_ALLOWED_MECHANISMS && t->ulValueLen % sizeof(CK_MECHANISM_TYPE))
    return CKR_ATTRIBUTE_VALUE_INVALID;
  return list_set(l, t->type, t->pValue, t->ulValueLen);
}

static int lbool(const attr_list *l, CK_ATTRIBUTE_TYPE type) {
  const p11_attr *a = list_get(l, type);
  return a && a->len == 1 && a->val[0];
}

static CK_ULONG lulong(const attr_list *l, CK_ATTRIBUTE_TYPE type) {
  const p11_attr *a = list_get(l, type);
  CK_ULONG v = ~0UL;
  if (a && a->len == sizeof v)
    memcpy(&v, a->val, sizeof v);
  return v;
}

/* The checks of a GOST key's values: the curve named, d in range, Q on
 * the curve; the hash parameter defaults to the curve size's Streebog. */
static CK_RV check_gost_key(attr_list *l, int cbit) {
  CK_KEY_TYPE kt = lulong(l, CKA_KEY_TYPE);
  const p11_attr *p = list_get(l, CKA_GOSTR3410_PARAMS), *v = list_get(l, CKA_VALUE);
  gostx_gost3410_curve curve;
  if (kt != CKK_GOSTR3410 && kt != CKK_GOSTR3410_512)
    return CKR_ATTRIBUTE_VALUE_INVALID;
  if (p11_curve_from_der(p->val, p->len, &curve) != 0)
    return CKR_ATTRIBUTE_VALUE_INVALID;
  size_t len = gostx_gost3410_size(curve);
  if ((len == 64) != (kt == CKK_GOSTR3410_512))
    return CKR_TEMPLATE_INCONSISTENT;
  const p11_attr *h = list_get(l, CKA_GOSTR3411_PARAMS);
  if (h) {
    const uint8_t *want;
    size_t wl = p11_streebog_der(len, &want);
    /* 256-bit keys may also name GOST R 34.11-94's CryptoPro parameters,
     * as 2001 keys do (the mechanisms here hash with Streebog anyway). */
    static const uint8_t GOST94_CP[] = {0x06, 0x07, 0x2a, 0x85, 0x03, 0x02, 0x02, 0x1e, 0x01};
    int streebog = h->len == wl && memcmp(h->val, want, wl) == 0;
    int gost94 = len == 32 && h->len == sizeof GOST94_CP && memcmp(h->val, GOST94_CP, h->len) == 0;
    if (!streebog && !gost94)
      return CKR_ATTRIBUTE_VALUE_INVALID;
  } else {
    const uint8_t *der;
    size_t dl = p11_streebog_der(len, &der);
    CK_RV rv = list_set(l, CKA_GOSTR3411_PARAMS, der, dl);
    if (rv != CKR_OK)
      return rv;
  }
  v = list_get(l, CKA_VALUE); /* list_set may have moved the list */
  uint8_t be[128], pub[128];
  int r;
  if (cbit == C_PRIV) {
    if (v->len != len)
      return CKR_ATTRIBUTE_VALUE_INVALID;
    p11_reverse(be, v->val, len);
    r = gostx_gost3410_public_key(curve, be, len, pub, 2 * len);
    gostx_memzero(be, sizeof be);
  } else {
    if (v->len != 2 * len)
      return CKR_ATTRIBUTE_VALUE_INVALID;
    p11_reverse(be, v->val, len);
    p11_reverse(be + len, v->val + len, len);
    r = gostx_gost3410_check_public_key(curve, be, 2 * len);
  }
  return r == 0 ? CKR_OK : CKR_ATTRIBUTE_VALUE_INVALID;
}

static CK_RV check_class(attr_list *l, int cbit) {
  switch (cbit) {
  case C_CERT:
    return lulong(l, CKA_CERTIFICATE_TYPE) == CKC_X_509 ? CKR_OK : CKR_ATTRIBUTE_VALUE_INVALID;
  case C_PUB:
  case C_PRIV:
    return check_gost_key(l, cbit);
  case C_SECRET: {
    CK_KEY_TYPE kt = lulong(l, CKA_KEY_TYPE);
    const p11_attr *v = list_get(l, CKA_VALUE);
    /* A twin key (KExp15's K_exp_mac || K_exp_enc) is two cipher keys. */
    int twin = kt == CKK_KUZNYECHIK_TWIN_KEY || kt == CKK_MAGMA_TWIN_KEY;
    if (kt != CKK_GENERIC_SECRET && kt != CKK_KUZNYECHIK && kt != CKK_MAGMA && !twin)
      return CKR_ATTRIBUTE_VALUE_INVALID;
    if (kt != CKK_GENERIC_SECRET && v->len != (twin ? 64u : 32u))
      return CKR_ATTRIBUTE_VALUE_INVALID;
    CK_ULONG vl = v->len;
    return list_set(l, CKA_VALUE_LEN, &vl, sizeof vl);
  }
  default:
    return CKR_OK;
  }
}

static CK_RV random_name(char name[24]) {
  uint8_t r[8];
  if (gostx_random_bytes(r, sizeof r) != 0)
    return CKR_DEVICE_ERROR;
  snprintf(name, 24, "o-%02x%02x%02x%02x%02x%02x%02x%02x.obj", r[0], r[1], r[2], r[3], r[4], r[5],
           r[6], r[7]);
  return CKR_OK;
}

CK_RV p11_obj_create(p11_token *t, CK_SESSION_HANDLE owner, const CK_ATTRIBUTE *tmpl, CK_ULONG n,
                     const CK_ATTRIBUTE *extra, CK_ULONG n_extra, CK_OBJECT_HANDLE *h) {
  attr_list l = {0};
  CK_OBJECT_CLASS cls = ~0UL;
  for (CK_ULONG i = 0; i < n_extra; i++)
    if (extra[i].type == CKA_CLASS && extra[i].ulValueLen == sizeof cls)
      memcpy(&cls, extra[i].pValue, sizeof cls);
  for (CK_ULONG i = 0; i < n && cls == ~0UL; i++)
    if (tmpl[i].type == CKA_CLASS && tmpl[i].ulValueLen == sizeof cls && tmpl[i].pValue)
      memcpy(&cls, tmpl[i].pValue, sizeof cls);
  int cbit = class_bit(cls);
  if (cls == ~0UL)
    return CKR_TEMPLATE_INCOMPLETE;
  if (!cbit)
    return CKR_ATTRIBUTE_VALUE_INVALID;
  CK_RV rv = CKR_OK;
  for (CK_ULONG i = 0; i < n && rv == CKR_OK; i++) {
    for (CK_ULONG j = 0; j < i && rv == CKR_OK; j++)
      if (tmpl[j].type == tmpl[i].type)
        rv = CKR_TEMPLATE_INCONSISTENT;
    if (rv == CKR_OK)
      rv = take_attr(&l, cbit, &tmpl[i], 0);
  }
  for (CK_ULONG i = 0; i < n_extra && rv == CKR_OK; i++)
    rv = take_attr(&l, cbit, &extra[i], 1);
  for (size_t i = 0; i < N_RULES && rv == CKR_OK; i++) {
    const attr_rule *r = &RULES[i];
    if (!(r->classes & cbit) || list_get(&l, r->type) || (r->flags & F_OPT))
      continue;
    if (r->flags & F_REQ) {
      rv = CKR_TEMPLATE_INCOMPLETE;
    } else if (r->kind == K_BOOL) {
      CK_BBOOL b = (CK_BBOOL)r->dflt;
      rv = list_set(&l, r->type, &b, 1);
    } else if (r->kind == K_ULONG) {
      rv = list_set(&l, r->type, &r->dflt, sizeof r->dflt);
    } else {
      rv = list_set(&l, r->type, NULL, 0);
    }
  }
  /* Private and secret keys are private objects: stored encrypted, seen
   * only after C_Login. */
  if (rv == CKR_OK && (cbit & (C_PRIV | C_SECRET))) {
    const CK_ATTRIBUTE *given = NULL;
    for (CK_ULONG i = 0; i < n; i++)
      if (tmpl[i].type == CKA_PRIVATE)
        given = &tmpl[i];
    if (given && !lbool(&l, CKA_PRIVATE))
      rv = CKR_ATTRIBUTE_VALUE_INVALID;
    CK_BBOOL yes = CK_TRUE;
    if (rv == CKR_OK)
      rv = list_set(&l, CKA_PRIVATE, &yes, 1);
  }
  if (rv == CKR_OK)
    rv = check_class(&l, cbit);
  int token = lbool(&l, CKA_TOKEN), priv = lbool(&l, CKA_PRIVATE);
  if (rv == CKR_OK && priv && !t->user_in)
    rv = CKR_USER_NOT_LOGGED_IN;
  p11_obj *o = rv == CKR_OK ? calloc(1, sizeof *o) : NULL;
  if (rv == CKR_OK && !o)
    rv = CKR_HOST_MEMORY;
  if (rv != CKR_OK) {
    p11_attrs_free(l.a, l.n);
    return rv;
  }
  o->tok = t, o->token = token, o->priv = priv, o->owner = token ? 0 : owner;
  o->a = l.a, o->n = l.n;
  if (token) {
    rv = random_name(o->name);
    if (rv == CKR_OK)
      rv = p11_obj_write(t, o->name, priv, o->a, o->n, o->stamp);
  }
  if (rv == CKR_OK)
    rv = obj_insert(o);
  if (rv != CKR_OK) {
    if (token)
      p11_obj_unlink(t, o->name);
    obj_free(o);
    return p11_gone(t, rv);
  }
  *h = o->h;
  return CKR_OK;
}

void p11_obj_discard(CK_OBJECT_HANDLE h) {
  p11_obj *o = p11_obj_get(h);
  if (!o)
    return;
  if (o->token)
    p11_obj_unlink(o->tok, o->name);
  obj_remove(o);
}

/* ---- the token's files in memory ---- */
CK_RV p11_objs_sync(p11_token *t) {
  char(*names)[24];
  uint64_t(*stamps)[3];
  size_t n;
  CK_RV rv = p11_obj_list(t, &names, &stamps, &n);
  if (rv != CKR_OK)
    return p11_gone(t, rv);
  for (size_t i = 0; i < g_objs.n; i++)
    if (g_objs.o[i])
      g_objs.o[i]->seen = 0;
  for (size_t k = 0; k < n; k++) {
    p11_obj *o = NULL;
    for (size_t i = 0; i < g_objs.n && !o; i++)
      if (g_objs.o[i] && g_objs.o[i]->tok == t && g_objs.o[i]->token &&
          strcmp(g_objs.o[i]->name, names[k]) == 0)
        o = g_objs.o[i];
    if (o && memcmp(o->stamp, stamps[k], sizeof o->stamp) == 0) {
      o->seen = 1;
      continue;
    }
    int enc = 0;
    p11_attr *a;
    size_t na;
    uint64_t st[3];
    /* A file that vanished, or that cannot be read (damaged, or a private
     * one before login) is left out; the others still load. */
    if (p11_obj_read(t, names[k], &enc, &a, &na, st) != CKR_OK || (enc && !t->user_in))
      continue;
    if (!o) {
      o = calloc(1, sizeof *o);
      if (!o || obj_insert(o) != CKR_OK) {
        free(o);
        p11_attrs_free(a, na);
        rv = CKR_HOST_MEMORY;
        break;
      }
      o->tok = t, o->token = 1;
      memcpy(o->name, names[k], 24);
    } else {
      p11_attrs_free(o->a, o->n);
    }
    o->a = a, o->n = na;
    memcpy(o->stamp, st, sizeof st);
    o->priv = enc || p11_attr_bool(o, CKA_PRIVATE, 0);
    o->seen = 1;
  }
  if (rv == CKR_OK)
    for (size_t i = 0; i < g_objs.n; i++)
      if (g_objs.o[i] && g_objs.o[i]->tok == t && g_objs.o[i]->token && !g_objs.o[i]->seen)
        obj_remove(g_objs.o[i]);
  free(names);
  free(stamps);
  return rv;
}

/* ---- the functions ---- */

/* p11_begin, then the object the session may use, then args_ok (as
 * p11_begin_args): NULL with the lock released and *rv saying why. */
static p11_obj *obj_begin(CK_SESSION_HANDLE hs, CK_OBJECT_HANDLE ho, int args_ok, p11_session **ps,
                          CK_RV *rv) {
  p11_session *s = p11_begin(hs, rv);
  if (!s)
    return NULL;
  p11_obj *o = p11_obj_for(s, ho);
  if (!o || !args_ok) {
    *rv = p11_leave(!o ? CKR_OBJECT_HANDLE_INVALID : CKR_ARGUMENTS_BAD);
    return NULL;
  }
  *ps = s;
  return o;
}

CK_RV C_CreateObject(CK_SESSION_HANDLE hSession, CK_ATTRIBUTE_PTR pTemplate, CK_ULONG ulCount,
                     CK_OBJECT_HANDLE_PTR phObject) {
  CK_RV rv;
  p11_session *s = p11_begin_args(hSession, phObject && P11_TEMPLATE_OK(pTemplate, ulCount), &rv);
  if (!s)
    return rv;
  for (CK_ULONG i = 0; i < ulCount; i++)
    if (pTemplate[i].type == CKA_TOKEN && pTemplate[i].ulValueLen == 1 && pTemplate[i].pValue &&
        *(CK_BBOOL *)pTemplate[i].pValue && !(s->flags & CKF_RW_SESSION))
      return p11_leave(CKR_SESSION_READ_ONLY);
  return p11_leave(p11_obj_create(s->tok, s->h, pTemplate, ulCount, NULL, 0, phObject));
}

CK_RV C_DestroyObject(CK_SESSION_HANDLE hSession, CK_OBJECT_HANDLE hObject) {
  CK_RV rv;
  p11_session *s;
  p11_obj *o = obj_begin(hSession, hObject, 1, &s, &rv);
  if (!o)
    return rv;
  if (o->token && !(s->flags & CKF_RW_SESSION))
    return p11_leave(CKR_SESSION_READ_ONLY);
  if (!p11_attr_bool(o, CKA_DESTROYABLE, 1))
    return p11_leave(CKR_ACTION_PROHIBITED);
  if (o->token && (rv = p11_obj_unlink(o->tok, o->name)) != CKR_OK)
    return p11_leave(p11_gone(o->tok, rv));
  obj_remove(o);
  return p11_leave(CKR_OK);
}

/* Whether a's value is kept from the caller: a secret or private key's
 * CKA_VALUE while it is sensitive or not extractable. */
static int hidden(const p11_obj *o, CK_ATTRIBUTE_TYPE type) {
  CK_OBJECT_CLASS c = p11_attr_ulong(o, CKA_CLASS, ~0UL);
  if (type != CKA_VALUE || (c != CKO_PRIVATE_KEY && c != CKO_SECRET_KEY))
    return 0;
  return p11_attr_bool(o, CKA_SENSITIVE, 1) || !p11_attr_bool(o, CKA_EXTRACTABLE, 0);
}

CK_RV C_GetAttributeValue(CK_SESSION_HANDLE hSession, CK_OBJECT_HANDLE hObject,
                          CK_ATTRIBUTE_PTR pTemplate, CK_ULONG ulCount) {
  CK_RV rv;
  p11_session *s;
  p11_obj *o = obj_begin(hSession, hObject, P11_TEMPLATE_OK(pTemplate, ulCount), &s, &rv);
  if (!o)
    return rv;
  /* Every entry is answered; the call returns the last problem found. */
  for (CK_ULONG i = 0; i < ulCount; i++) {
    CK_ATTRIBUTE *t = &pTemplate[i];
    const p11_attr *a = p11_attr_find(o, t->type);
    if (!a) {
      t->ulValueLen = CK_UNAVAILABLE_INFORMATION;
      rv = CKR_ATTRIBUTE_TYPE_INVALID;
    } else if (hidden(o, t->type)) {
      t->ulValueLen = CK_UNAVAILABLE_INFORMATION;
      rv = CKR_ATTRIBUTE_SENSITIVE;
    } else if (!t->pValue) {
      t->ulValueLen = a->len;
    } else if (t->ulValueLen >= a->len) {
      if (a->len)
        memcpy(t->pValue, a->val, a->len);
      t->ulValueLen = a->len;
    } else {
      t->ulValueLen = CK_UNAVAILABLE_INFORMATION;
      rv = CKR_BUFFER_TOO_SMALL;
    }
  }
  return p11_leave(rv);
}

/* Applies a C_SetAttributeValue (copy 0) or C_CopyObject (copy 1)
 * template to l, an object's attributes: only what may change, and the
 * one-way flags only their way. A copy may also set where it lives and
 * what may be done with it: CKA_TOKEN, CKA_PRIVATE (keys stay private:
 * p11_obj_create), CKA_DESTROYABLE, CKA_MODIFIABLE and CKA_COPYABLE
 * (both only to false). */
static CK_RV apply_changes(attr_list *l, int cbit, const CK_ATTRIBUTE *t, CK_ULONG n, int copy) {
  CK_RV rv = CKR_OK;
  for (CK_ULONG i = 0; i < n && rv == CKR_OK; i++) {
    const attr_rule *r = rule_for(t[i].type, cbit);
    if (!r)
      return CKR_ATTRIBUTE_TYPE_INVALID;
    CK_ATTRIBUTE_TYPE ty = r->type;
    int placed = copy && (ty == CKA_TOKEN || ty == CKA_PRIVATE || ty == CKA_DESTROYABLE ||
                          ty == CKA_MODIFIABLE || ty == CKA_COPYABLE);
    if (!(r->flags & F_MOD) && !placed)
      return CKR_ATTRIBUTE_READ_ONLY;
    int was = lbool(l, ty);
    rv = take_attr(l, cbit, &t[i], 0);
    if (rv == CKR_OK && r->kind == K_BOOL) {
      int now = lbool(l, ty), down_only = (r->flags & F_DOWN) || ty == CKA_MODIFIABLE ||
                                         ty == CKA_COPYABLE;
      if (((r->flags & F_UP) && was && !now) || (down_only && !was && now))
        rv = CKR_ATTRIBUTE_READ_ONLY;
    }
  }
  return rv;
}

/* o's attributes into l, with a template's changes (apply_changes). */
static CK_RV changed(const p11_obj *o, int cbit, const CK_ATTRIBUTE *t, CK_ULONG n, int copy,
                     attr_list *l) {
  CK_RV rv = CKR_OK;
  for (size_t i = 0; i < o->n && rv == CKR_OK; i++)
    rv = list_set(l, o->a[i].type, o->a[i].val, o->a[i].len);
  return rv == CKR_OK ? apply_changes(l, cbit, t, n, copy) : rv;
}

CK_RV C_SetAttributeValue(CK_SESSION_HANDLE hSession, CK_OBJECT_HANDLE hObject,
                          CK_ATTRIBUTE_PTR pTemplate, CK_ULONG ulCount) {
  CK_RV rv;
  p11_session *s;
  p11_obj *o = obj_begin(hSession, hObject, P11_TEMPLATE_OK(pTemplate, ulCount), &s, &rv);
  if (!o)
    return rv;
  if (o->token && !(s->flags & CKF_RW_SESSION))
    return p11_leave(CKR_SESSION_READ_ONLY);
  if (!p11_attr_bool(o, CKA_MODIFIABLE, 1))
    return p11_leave(CKR_ACTION_PROHIBITED);
  int cbit = class_bit(p11_attr_ulong(o, CKA_CLASS, ~0UL));
  /* Changes go to a copy, which replaces the object once all are valid
   * and stored. */
  attr_list l = {0};
  rv = changed(o, cbit, pTemplate, ulCount, 0, &l);
  if (rv == CKR_OK && o->token)
    rv = p11_obj_write(o->tok, o->name, o->priv, l.a, l.n, o->stamp);
  if (rv != CKR_OK) {
    p11_attrs_free(l.a, l.n);
    return p11_leave(p11_gone(o->tok, rv));
  }
  p11_attrs_free(o->a, o->n);
  o->a = l.a, o->n = l.n;
  return p11_leave(CKR_OK);
}

CK_RV C_GetObjectSize(CK_SESSION_HANDLE hSession, CK_OBJECT_HANDLE hObject, CK_ULONG_PTR pulSize) {
  CK_RV rv;
  p11_session *s;
  p11_obj *o = obj_begin(hSession, hObject, pulSize != NULL, &s, &rv);
  if (!o)
    return rv;
  *pulSize = (CK_ULONG)p11_attrs_encode(o->a, o->n, NULL); /* what its file holds */
  return p11_leave(CKR_OK);
}

static int matches(const p11_obj *o, const CK_ATTRIBUTE *tmpl, CK_ULONG n) {
  for (CK_ULONG i = 0; i < n; i++) {
    const p11_attr *a = p11_attr_find(o, tmpl[i].type);
    if (!a || hidden(o, tmpl[i].type))
      return 0;
    const attr_rule *r = rule_for(tmpl[i].type, class_bit(p11_attr_ulong(o, CKA_CLASS, ~0UL)));
    if (r && r->kind == K_BOOL && tmpl[i].ulValueLen == 1) { /* any non-zero is true */
      if (!a->val[0] != !*(const CK_BYTE *)tmpl[i].pValue)
        return 0;
      continue;
    }
    if (a->len != tmpl[i].ulValueLen || (a->len && memcmp(a->val, tmpl[i].pValue, a->len) != 0))
      return 0;
  }
  return 1;
}

CK_RV C_FindObjectsInit(CK_SESSION_HANDLE hSession, CK_ATTRIBUTE_PTR pTemplate, CK_ULONG ulCount) {
  CK_RV rv;
  p11_session *s = p11_begin_args(hSession, P11_TEMPLATE_OK(pTemplate, ulCount), &rv);
  if (!s)
    return rv;
  for (CK_ULONG i = 0; i < ulCount; i++)
    if (pTemplate[i].ulValueLen && !pTemplate[i].pValue)
      return p11_leave(CKR_ARGUMENTS_BAD);
  if (s->finding)
    return p11_leave(CKR_OPERATION_ACTIVE);
  /* What other processes wrote since: a search sees the token as it is. */
  if ((rv = p11_objs_sync(s->tok)) != CKR_OK)
    return p11_leave(rv);
  free(s->found);
  s->found = malloc((g_objs.n ? g_objs.n : 1) * sizeof *s->found);
  if (!s->found)
    return p11_leave(CKR_HOST_MEMORY);
  s->n_found = s->pos = 0;
  for (size_t i = 0; i < g_objs.n; i++) {
    p11_obj *o = g_objs.o[i];
    if (o && p11_obj_visible(o, s->tok) && matches(o, pTemplate, ulCount))
      s->found[s->n_found++] = o->h;
  }
  s->finding = 1;
  return p11_leave(CKR_OK);
}

CK_RV C_FindObjects(CK_SESSION_HANDLE hSession, CK_OBJECT_HANDLE_PTR phObject,
                    CK_ULONG ulMaxObjectCount, CK_ULONG_PTR pulObjectCount) {
  CK_RV rv;
  p11_session *s = p11_begin_args(hSession, phObject && pulObjectCount, &rv);
  if (!s)
    return rv;
  if (!s->finding)
    return p11_leave(CKR_OPERATION_NOT_INITIALIZED);
  CK_ULONG k = 0;
  while (k < ulMaxObjectCount && s->pos < s->n_found) {
    CK_OBJECT_HANDLE h = s->found[s->pos++];
    if (p11_obj_get(h)) /* skip any destroyed meanwhile */
      phObject[k++] = h;
  }
  *pulObjectCount = k;
  return p11_leave(CKR_OK);
}

CK_RV C_FindObjectsFinal(CK_SESSION_HANDLE hSession) {
  CK_RV rv;
  p11_session *s = p11_begin(hSession, &rv);
  if (!s)
    return rv;
  if (!s->finding)
    return p11_leave(CKR_OPERATION_NOT_INITIALIZED);
  free(s->found);
  s->found = NULL;
  s->finding = 0;
  return p11_leave(CKR_OK);
}

/* A copy of an object, changed by the template (apply_changes). */
CK_RV C_CopyObject(CK_SESSION_HANDLE hSession, CK_OBJECT_HANDLE hObject, CK_ATTRIBUTE_PTR pTemplate,
                   CK_ULONG ulCount, CK_OBJECT_HANDLE_PTR phNewObject) {
  CK_RV rv;
  p11_session *s;
  p11_obj *o = obj_begin(hSession, hObject, phNewObject && P11_TEMPLATE_OK(pTemplate, ulCount), &s, &rv);
  if (!o)
    return rv;
  if (!p11_attr_bool(o, CKA_COPYABLE, 1))
    return p11_leave(CKR_ACTION_PROHIBITED);
  int cbit = class_bit(p11_attr_ulong(o, CKA_CLASS, ~0UL));
  attr_list l = {0};
  rv = changed(o, cbit, pTemplate, ulCount, 1, &l);
  if (rv == CKR_OK && lbool(&l, CKA_TOKEN) && !(s->flags & CKF_RW_SESSION))
    rv = CKR_SESSION_READ_ONLY;
  /* The whole set goes in as the module's own (it may hold CKA_LOCAL and
   * the other read-only attributes). */
  CK_ATTRIBUTE *x = rv == CKR_OK ? calloc(l.n ? l.n : 1, sizeof *x) : NULL;
  if (rv == CKR_OK && !x)
    rv = CKR_HOST_MEMORY;
  for (size_t i = 0; rv == CKR_OK && i < l.n; i++)
    x[i] = (CK_ATTRIBUTE){l.a[i].type, l.a[i].val, l.a[i].len};
  if (rv == CKR_OK)
    rv = p11_obj_create(s->tok, s->h, NULL, 0, x, l.n, phNewObject);
  free(x);
  p11_attrs_free(l.a, l.n);
  return p11_leave(rv);
}

/* CKA_ALLOWED_MECHANISMS: read unaligned (it is a byte string here). */
int p11_mech_allowed(const p11_obj *o, CK_MECHANISM_TYPE m) {
  const p11_attr *a = p11_attr_find(o, CKA_ALLOWED_MECHANISMS);
  if (!a)
    return 1;
  for (size_t i = 0; i + sizeof m <= a->len; i += sizeof m) {
    CK_MECHANISM_TYPE t;
    memcpy(&t, a->val + i, sizeof t);
    if (t == m)
      return 1;
  }
  return 0;
}
