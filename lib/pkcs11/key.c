/* lib/pkcs11: the GOST R 34.10-2012 keys on tokens (include/gostx/pkcs11.h).
 * Each key keeps a small pool of sessions so that threads sign at once, each
 * on its own session (PKCS#11 forbids two operations on one session at a
 * time). The login belongs to the token, not the session: the first session
 * logs in, the others share it. Every signature the token returns is
 * verified under the key's public half before it is used. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asn1/der.h"
#include "gostx/x509.h"
#include "p11.h"
#include "pkcs11/cryptoki.h"


#define POOL 8

struct gostx_p11_key {
  p11_module *m;
  CK_SLOT_ID slot;
  CK_OBJECT_HANDLE obj;
  char label[33]; /* the token's, for messages */
  gostx_gost3410_curve curve;
  size_t len;
  uint8_t q[128]; /* x || y big-endian */
  char oid[GOSTX_GOST3410_OID_MAX];
  int gost2001; /* a GOST R 34.10-2001 key: hash_of */
  uint8_t *cert;
  size_t cert_len;
  pthread_mutex_t lock;
  CK_SESSION_HANDLE idle[POOL];
  size_t n_idle;
};

static CK_RV session_open(gostx_p11_key *k, CK_SESSION_HANDLE *s) {
  return k->m->f->C_OpenSession(k->slot, CKF_SERIAL_SESSION, NULL, NULL, s);
}

/* A session of the key's for this thread: an idle one, or a new one. */
static int session_take(gostx_p11_key *k, CK_SESSION_HANDLE *s) {
  pthread_mutex_lock(&k->lock);
  int have = k->n_idle > 0;
  if (have) *s = k->idle[--k->n_idle];
  pthread_mutex_unlock(&k->lock);
  if (have) return 0;
  CK_RV rv = session_open(k, s);
  return rv == CKR_OK ? 0 : gostx__p11_ck_fail(rv, "C_OpenSession", k->label);
}

/* Back to the pool after use, unless rv says it is gone (then closed).
 * One that merely failed an operation stays: closing the last session
 * would log the token out. */
static void session_give(gostx_p11_key *k, CK_SESSION_HANDLE s, CK_RV rv) {
  int ok = !gostx__p11_gone(rv);
  pthread_mutex_lock(&k->lock);
  if (ok && k->n_idle < POOL) {
    k->idle[k->n_idle++] = s;
    s = CK_INVALID_HANDLE;
  }
  pthread_mutex_unlock(&k->lock);
  if (s != CK_INVALID_HANDLE) k->m->f->C_CloseSession(s);
}

/* The first line of the file pin-source names (a path, or a file: URL). */
static int pin_from_source(const char *src, uint8_t *pin, size_t cap, size_t *len) {
  const char *path = src;
  if (!strncmp(src, "file://", 7)) path = src + 7; /* file:///etc/pin: host empty */
  else if (!strncmp(src, "file:", 5)) path = src + 5;
  if (path[0] != '/')
    return gostx__p11_fail(GOSTX_EINVAL, GOSTX_P11_PIN_NEEDED,
                           "pin-source=%s: gostx takes an absolute file path or a file: URL", src);
  FILE *fp = fopen(path, "rb");
  if (!fp)
    return gostx__p11_fail(GOSTX_EIO, GOSTX_P11_PIN_NEEDED, "pin-source %s: cannot open it", path);
  setvbuf(fp, NULL, _IONBF, 0); /* no stdio buffer keeps the PIN */
  size_t n = fread(pin, 1, cap, fp);
  fclose(fp);
  uint8_t *nl = memchr(pin, '\n', n);
  if (nl) n = (size_t)(nl - pin);
  else if (n == cap)
    return gostx__p11_fail(GOSTX_EINVAL, GOSTX_P11_PIN_NEEDED, "pin-source %s: PIN too long", path);
  if (n && pin[n - 1] == '\r') n--;
  if (!n) return gostx__p11_fail(GOSTX_EINVAL, GOSTX_P11_PIN_NEEDED, "pin-source %s: empty", path);
  *len = n;
  return 0;
}

/* The flags' warnings, for the wrong-PIN message. */
static const char *pin_count_note(CK_FLAGS fl) {
  if (fl & CKF_USER_PIN_LOCKED) return "; the user PIN is now locked";
  if (fl & CKF_USER_PIN_FINAL_TRY) return "; one more wrong PIN will lock it";
  if (fl & CKF_USER_PIN_COUNT_LOW) return "; the token counts failed logins: few tries are left";
  return "";
}

/* Logs the user in on s when the token asks for it and nobody has yet.
 * One PIN, tried once. */
static int login(gostx_p11_key *k, CK_SESSION_HANDLE s, const gostx_p11_uri *u,
                 gostx_p11_pin_fn pin_fn, void *arg) {
  CK_FUNCTION_LIST *f = k->m->f;
  CK_TOKEN_INFO ti;
  CK_SESSION_INFO si;
  CK_RV rv = f->C_GetTokenInfo(k->slot, &ti);
  if (rv != CKR_OK) return gostx__p11_ck_fail(rv, "C_GetTokenInfo", k->label);
  if (!(ti.flags & CKF_LOGIN_REQUIRED)) return 0;
  rv = f->C_GetSessionInfo(s, &si);
  if (rv != CKR_OK) return gostx__p11_ck_fail(rv, "C_GetSessionInfo", k->label);
  if (si.state == CKS_RO_USER_FUNCTIONS || si.state == CKS_RW_USER_FUNCTIONS) return 0;
  if (ti.flags & CKF_USER_PIN_LOCKED)
    return gostx__p11_fail(GOSTX_EAUTH, GOSTX_P11_PIN_LOCKED,
                           "the user PIN of PKCS#11 token '%s' is locked (too many wrong PINs): "
                           "unblock it with the SO PIN", k->label);
  uint8_t pin[GOSTX_P11_PIN_MAX + 2];
  size_t pin_len = 0;
  int rc = 0;
  if (ti.flags & CKF_PROTECTED_AUTHENTICATION_PATH) {
    rv = f->C_Login(s, CKU_USER, NULL, 0); /* a PIN pad on the reader */
  } else {
    if (u->has & GOSTX_P11_HAS_PIN_VALUE) {
      pin_len = strlen(u->pin_value);
      memcpy(pin, u->pin_value, pin_len);
    } else if (u->has & GOSTX_P11_HAS_PIN_SOURCE) {
      rc = pin_from_source(u->pin_source, pin, sizeof pin, &pin_len);
    } else if (!pin_fn || pin_fn(arg, k->label, ti.flags, pin, GOSTX_P11_PIN_MAX, &pin_len) ||
               !pin_len || pin_len > GOSTX_P11_PIN_MAX) {
      rc = gostx__p11_fail(GOSTX_EAUTH, GOSTX_P11_PIN_NEEDED,
                           "PKCS#11 token '%s' needs the user PIN and none was given", k->label);
    }
    if (!rc) rv = f->C_Login(s, CKU_USER, pin, (CK_ULONG)pin_len);
    gostx_memzero(pin, sizeof pin);
  }
  if (rc || rv == CKR_OK || rv == CKR_USER_ALREADY_LOGGED_IN) return rc;
  if (rv == CKR_PIN_INCORRECT) {
    CK_FLAGS fl = f->C_GetTokenInfo(k->slot, &ti) == CKR_OK ? ti.flags : 0;
    return gostx__p11_fail(GOSTX_EAUTH, (fl & CKF_USER_PIN_LOCKED) ? GOSTX_P11_PIN_LOCKED
                                                                  : GOSTX_P11_PIN_INCORRECT,
                           "wrong PIN for PKCS#11 token '%s' (CKR_PIN_INCORRECT; not retried%s)",
                           k->label, pin_count_note(fl));
  }
  if (rv == CKR_PIN_LOCKED)
    return gostx__p11_fail(GOSTX_EAUTH, GOSTX_P11_PIN_LOCKED,
                           "the user PIN of PKCS#11 token '%s' is locked (CKR_PIN_LOCKED): unblock "
                           "it with the SO PIN", k->label);
  if (rv == CKR_PIN_EXPIRED)
    return gostx__p11_fail(GOSTX_EAUTH, GOSTX_P11_PIN_INCORRECT,
                           "the user PIN of PKCS#11 token '%s' has expired: change it first",
                           k->label);
  return gostx__p11_ck_fail(rv, "C_Login", k->label);
}

/* The objects of the template: how many (*count), the first (*obj). */
static int find(gostx_p11_key *k, CK_SESSION_HANDLE s, CK_ATTRIBUTE *t, CK_ULONG nt,
                CK_OBJECT_HANDLE *obj, CK_ULONG *count) {
  CK_FUNCTION_LIST *f = k->m->f;
  CK_OBJECT_HANDLE h[16];
  CK_ULONG got = 0;
  CK_RV rv = f->C_FindObjectsInit(s, t, nt);
  if (rv != CKR_OK) return gostx__p11_ck_fail(rv, "C_FindObjectsInit", k->label);
  *count = 0;
  do { /* all of them, so that a message can say how many matched */
    rv = f->C_FindObjects(s, h, 16, &got);
    if (rv == CKR_OK && got && !*count) *obj = h[0];
    if (rv == CKR_OK) *count += got;
  } while (rv == CKR_OK && got == 16 && *count < 100000);
  f->C_FindObjectsFinal(s);
  if (rv != CKR_OK) return gostx__p11_ck_fail(rv, "C_FindObjects", k->label);
  return 0;
}

/* An attribute's value in a malloc'ed buffer (NULL, 0: absent or empty). */
static int attr_get(gostx_p11_key *k, CK_SESSION_HANDLE s, CK_OBJECT_HANDLE o,
                    CK_ATTRIBUTE_TYPE type, uint8_t **val, size_t *len) {
  CK_ATTRIBUTE a = {type, NULL, 0};
  *val = NULL;
  *len = 0;
  CK_RV rv = k->m->f->C_GetAttributeValue(s, o, &a, 1);
  if (rv == CKR_ATTRIBUTE_TYPE_INVALID || rv == CKR_ATTRIBUTE_SENSITIVE) return 0;
  if (rv != CKR_OK) return gostx__p11_ck_fail(rv, "C_GetAttributeValue", k->label);
  if (a.ulValueLen == CK_UNAVAILABLE_INFORMATION || a.ulValueLen == 0) return 0;
  if (a.ulValueLen > 1u << 20)
    return gostx__p11_fail(GOSTX_EFORMAT, GOSTX_P11_TOKEN_ERROR,
                           "PKCS#11 token '%s': an attribute of %lu bytes", k->label, a.ulValueLen);
  if (!(a.pValue = malloc(a.ulValueLen)))
    return gostx__p11_fail(GOSTX_ENOMEM, GOSTX_P11_TOKEN_ERROR, "out of memory");
  rv = k->m->f->C_GetAttributeValue(s, o, &a, 1);
  if (rv != CKR_OK) {
    free(a.pValue);
    return gostx__p11_ck_fail(rv, "C_GetAttributeValue", k->label);
  }
  *val = a.pValue;
  *len = a.ulValueLen;
  return 0;
}

/* The curve of CKA_GOSTR3410_PARAMS (a DER OID). */
static int curve_of(gostx_p11_key *k, const uint8_t *der, size_t n) {
  gostx__der r = {der, n}, oid;
  if (!der || gostx__der_oid(&r, &oid) || !gostx__der_done(&r) ||
      gostx__der_oid_text(oid, k->oid, sizeof k->oid))
    return gostx__p11_fail(GOSTX_EUNSUP, GOSTX_P11_UNSUPPORTED,
                           "PKCS#11 token '%s': the key's CKA_GOSTR3410_PARAMS is %s", k->label,
                           der ? "not a DER OID" : "missing");
  int c = gostx_gost3410_curve_by_name(k->oid);
  if (c < 0)
    return gostx__p11_fail(GOSTX_EUNSUP, GOSTX_P11_UNSUPPORTED,
                           "PKCS#11 token '%s': the key's parameter set %s is not one gostx knows",
                           k->label, k->oid);
  k->curve = (gostx_gost3410_curve)c;
  k->len = gostx_gost3410_size(k->curve);
  return 0;
}

/* CKK_GOSTR3410 is PKCS#11's GOST R 34.10-2001 key type, which TC 26's
 * extension reuses for 2012 256-bit keys: CKA_GOSTR3411_PARAMS tells them
 * apart. GOST R 34.11-94's CryptoPro set (1.2.643.2.2.30.1) marks a 2001
 * key (SoftHSMv2's GOST keys are all 2001 keys), which then goes out as
 * one (k->gost2001); absent, or another hash, a 2012 key. A 2001 key's
 * curve is a CryptoPro parameter set (1.2.643.2.2.35.x or .36.x). */
static int hash_of(gostx_p11_key *k, CK_SESSION_HANDLE s) {
  uint8_t *der;
  size_t n;
  int rc = attr_get(k, s, k->obj, CKA_GOSTR3411_PARAMS, &der, &n);
  if (rc) return rc;
  static const uint8_t gost94_cp[] = {0x06, 0x07, 0x2a, 0x85, 0x03, 0x02, 0x02, 0x1e, 0x01};
  k->gost2001 = der && n == sizeof gost94_cp && !memcmp(der, gost94_cp, n);
  free(der);
  if (k->gost2001 && strncmp(k->oid, "1.2.643.2.2.35.", 15) && strncmp(k->oid, "1.2.643.2.2.36.", 15))
    return gostx__p11_fail(GOSTX_EUNSUP, GOSTX_P11_UNSUPPORTED,
                           "PKCS#11 token '%s': a GOST R 34.10-2001 key (CKA_GOSTR3411_PARAMS: "
                           "GOST R 34.11-94) on parameter set %s, which is not a 2001 one",
                           k->label, k->oid);
  return 0;
}

/* CKA_VALUE of a public key: x || y each little-endian (some tokens wrap it
 * in a DER OCTET STRING, as the SubjectPublicKeyInfo does). */
static int public_from_value(gostx_p11_key *k, const uint8_t *v, size_t n) {
  size_t L = k->len;
  if (v && n != 2 * L) {
    gostx__der r = {v, n}, c;
    if (!gostx__der_get(&r, GOSTX__DER_OCTETS, &c, NULL) && gostx__der_done(&r)) {
      v = c.p;
      n = c.n;
    }
  }
  if (!v || n != 2 * L) return GOSTX_EFORMAT;
  for (size_t i = 0; i < L; i++) {
    k->q[i] = v[L - 1 - i];
    k->q[L + i] = v[2 * L - 1 - i];
  }
  return gostx_gost3410_check_public_key(k->curve, k->q, 2 * L) ? GOSTX_EFORMAT : 0;
}

/* The public key and certificate that go with the private key: the public
 * key object and the certificate of its CKA_ID (else, for the public key,
 * of its label). The certificate's key must be the public key. */
static int key_public(gostx_p11_key *k, CK_SESSION_HANDLE s, const uint8_t *id, size_t id_len,
                      const uint8_t *lab, size_t lab_len) {
  CK_OBJECT_CLASS pub_class = CKO_PUBLIC_KEY, cert_class = CKO_CERTIFICATE;
  CK_OBJECT_HANDLE o;
  CK_ULONG count = 0;
  int have_pub = 0, rc;
  for (int by_label = 0; by_label < 2 && !have_pub; by_label++) {
    const uint8_t *v = by_label ? lab : id;
    size_t vn = by_label ? lab_len : id_len;
    if (!vn) continue;
    CK_ATTRIBUTE t[] = {{CKA_CLASS, &pub_class, sizeof pub_class},
                        {by_label ? CKA_LABEL : CKA_ID, (void *)v, vn}};
    if ((rc = find(k, s, t, 2, &o, &count))) return rc;
    if (count != 1) continue;
    uint8_t *val;
    size_t n;
    if ((rc = attr_get(k, s, o, CKA_VALUE, &val, &n))) return rc;
    rc = public_from_value(k, val, n);
    free(val);
    if (rc)
      return gostx__p11_fail(GOSTX_EFORMAT, GOSTX_P11_UNSUPPORTED,
                             "PKCS#11 token '%s': the public key object's CKA_VALUE is not a "
                             "point of the private key's curve (%s)", k->label, k->oid);
    have_pub = 1;
  }
  if (id_len) {
    CK_ATTRIBUTE t[] = {{CKA_CLASS, &cert_class, sizeof cert_class}, {CKA_ID, (void *)id, id_len}};
    if ((rc = find(k, s, t, 2, &o, &count))) return rc;
    if (count == 1 && (rc = attr_get(k, s, o, CKA_VALUE, &k->cert, &k->cert_len))) return rc;
  }
  if (k->cert) {
    gostx_x509_cert c;
    if (gostx_x509_parse(k->cert, k->cert_len, &c, NULL))
      return gostx__p11_fail(GOSTX_EFORMAT, GOSTX_P11_UNSUPPORTED,
                             "PKCS#11 token '%s': the key's certificate does not parse", k->label);
    if (c.curve != k->curve || c.pub_len != 2 * k->len)
      return gostx__p11_fail(GOSTX_EINVAL, GOSTX_P11_BAD_ANSWER,
                             "PKCS#11 token '%s': the certificate with the key's CKA_ID is for "
                             "another curve", k->label);
    if (have_pub && memcmp(c.pub, k->q, c.pub_len))
      return gostx__p11_fail(GOSTX_EINVAL, GOSTX_P11_BAD_ANSWER,
                             "PKCS#11 token '%s': the certificate with the key's CKA_ID holds "
                             "another public key than the key's public key object", k->label);
    if (!have_pub) memcpy(k->q, c.pub, c.pub_len);
    have_pub = 1;
  }
  if (!have_pub)
    return gostx__p11_fail(GOSTX_EINVAL, GOSTX_P11_NO_OBJECT,
                           "PKCS#11 token '%s': found the private key but neither its public key "
                           "object nor its certificate (same CKA_ID or label)", k->label);
  return 0;
}

/* The one private key the URI names, its curve and public half. */
static int key_find(gostx_p11_key *k, CK_SESSION_HANDLE s, const gostx_p11_uri *u) {
  CK_OBJECT_CLASS cls = CKO_PRIVATE_KEY;
  CK_ATTRIBUTE t[3] = {{CKA_CLASS, &cls, sizeof cls}};
  CK_ULONG nt = 1, count = 0;
  if (u->has & GOSTX_P11_HAS_OBJECT) t[nt++] = (CK_ATTRIBUTE){CKA_LABEL, (void *)u->object, strlen(u->object)};
  if (u->has & GOSTX_P11_HAS_ID) t[nt++] = (CK_ATTRIBUTE){CKA_ID, (void *)u->id, u->id_len};
  int rc = find(k, s, t, nt, &k->obj, &count);
  if (rc) return rc;
  if (count != 1)
    return gostx__p11_fail(GOSTX_EINVAL, GOSTX_P11_NO_OBJECT,
                           "PKCS#11 token '%s': %lu private keys match the URI%s%s (one must)%s",
                           k->label, count, (u->has & GOSTX_P11_HAS_OBJECT) ? " object=" : "",
                           (u->has & GOSTX_P11_HAS_OBJECT) ? u->object : "",
                           count ? ": name one with object= or id=" : "");
  CK_KEY_TYPE kt = 0;
  CK_ATTRIBUTE ta = {CKA_KEY_TYPE, &kt, sizeof kt};
  CK_RV rv = k->m->f->C_GetAttributeValue(s, k->obj, &ta, 1);
  if (rv != CKR_OK) return gostx__p11_ck_fail(rv, "C_GetAttributeValue(CKA_KEY_TYPE)", k->label);
  if (kt != CKK_GOSTR3410 && kt != CKK_GOSTR3410_512)
    return gostx__p11_fail(GOSTX_EUNSUP, GOSTX_P11_UNSUPPORTED,
                           "PKCS#11 token '%s': the key the URI names is not a GOST R 34.10 key "
                           "(CKA_KEY_TYPE 0x%lx)", k->label, kt);
  uint8_t *params, *id, *lab;
  size_t params_len, id_len, lab_len;
  if ((rc = attr_get(k, s, k->obj, CKA_GOSTR3410_PARAMS, &params, &params_len))) return rc;
  rc = curve_of(k, params, params_len);
  free(params);
  if (rc) return rc;
  if ((kt == CKK_GOSTR3410) != (k->len == 32))
    return gostx__p11_fail(GOSTX_EUNSUP, GOSTX_P11_UNSUPPORTED,
                           "PKCS#11 token '%s': key type and parameter set %s disagree", k->label,
                           k->oid);
  if (kt == CKK_GOSTR3410 && (rc = hash_of(k, s))) return rc;
  if ((rc = attr_get(k, s, k->obj, CKA_ID, &id, &id_len))) return rc;
  if ((rc = attr_get(k, s, k->obj, CKA_LABEL, &lab, &lab_len))) {
    free(id);
    return rc;
  }
  rc = key_public(k, s, id, id_len, lab, lab_len);
  free(id);
  free(lab);
  return rc;
}

/* The URI parsed into *u and checked (its object type one of the mask's
 * bits, 1 << gostx_p11_type), its module loaded and its one token found:
 * k's module, slot and label set. */
static int uri_token(const char *text, unsigned types, gostx_p11_uri *u, gostx_p11_key *k) {
  int rc = gostx_p11_uri_parse(u, text, NULL, 0);
  if (rc) return rc;
  if (u->unknown[0])
    return gostx__p11_fail(GOSTX_EINVAL, GOSTX_P11_NO_OBJECT,
                           "the PKCS#11 URI's path attribute '%s' is not one gostx knows, and "
                           "RFC 7512 2.5 says such a URI matches nothing", u->unknown);
  if (u->too_long[0])
    return gostx__p11_fail(GOSTX_EFORMAT, GOSTX_P11_BAD_URI,
                           "the PKCS#11 URI's %s= is longer than PKCS#11's field for it, and RFC "
                           "7512 2.3 says such a URI is refused", u->too_long);
  if (!(types & (1u << u->type)))
    return gostx__p11_fail(GOSTX_EINVAL, GOSTX_P11_NO_OBJECT,
                           "the PKCS#11 URI names a type this use does not take: a key to sign "
                           "with is type=private, its certificate type=private or type=cert");
  if (!(k->m = gostx__p11_module_get(u))) return GOSTX_EIO;
  snprintf(k->label, sizeof k->label, "?");
  return gostx__p11_token_find(k->m, u, &k->slot, k->label);
}

/* What opening a key and reading a certificate share: the URI parsed and
 * its token found (uri_token) in a new *k (module, slot, label) with a
 * session *s open on it; end_op undoes what is left. */
static int begin_op(const char *text, unsigned types, gostx_p11_uri **u, gostx_p11_key **k,
                    CK_SESSION_HANDLE *s) {
  *s = CK_INVALID_HANDLE;
  *u = malloc(sizeof **u);
  *k = calloc(1, sizeof **k);
  if (*k) pthread_mutex_init(&(*k)->lock, NULL);
  if (!*u || !*k) return gostx__p11_fail(GOSTX_ENOMEM, GOSTX_P11_TOKEN_ERROR, "out of memory");
  int rc = uri_token(text, types, *u, *k);
  if (rc) return rc;
  CK_RV rv = session_open(*k, s);
  if (rv != CKR_OK) {
    *s = CK_INVALID_HANDLE;
    return gostx__p11_ck_fail(rv, "C_OpenSession", (*k)->label);
  }
  return 0;
}

static void end_op(gostx_p11_uri *u, gostx_p11_key *k, CK_SESSION_HANDLE s) {
  if (s != CK_INVALID_HANDLE) k->m->f->C_CloseSession(s);
  if (u) gostx_p11_uri_clear(u);
  free(u);
  gostx_p11_key_free(k);
}

int gostx_p11_key_open(gostx_p11_key **out, const char *text, gostx_p11_pin_fn pin_fn,
                       void *pin_arg) {
  if (!out || !text) return gostx__p11_fail(GOSTX_EINVAL, GOSTX_P11_BAD_URI, "no URI");
  *out = NULL;
  gostx_p11_uri *u;
  gostx_p11_key *k;
  CK_SESSION_HANDLE s;
  int rc = begin_op(text, 1u << GOSTX_P11_TYPE_ANY | 1u << GOSTX_P11_TYPE_PRIVATE, &u, &k, &s);
  if (!rc) rc = login(k, s, u, pin_fn, pin_arg);
  if (!rc) rc = key_find(k, s, u);
  if (!rc) {
    session_give(k, s, CKR_OK); /* kept open: the login lasts while a session does */
    s = CK_INVALID_HANDLE;
    *out = k;
    k = NULL;
    gostx__p11_ok();
  }
  end_op(u, k, s);
  return rc;
}

int gostx_p11_cert_read(const char *text, uint8_t **der, size_t *len) {
  if (!text || !der || !len) return gostx__p11_fail(GOSTX_EINVAL, GOSTX_P11_BAD_URI, "no URI");
  *der = NULL;
  *len = 0;
  gostx_p11_uri *u;
  gostx_p11_key *k;
  CK_SESSION_HANDLE s;
  int rc = begin_op(text,
                    1u << GOSTX_P11_TYPE_ANY | 1u << GOSTX_P11_TYPE_PRIVATE | 1u << GOSTX_P11_TYPE_CERT,
                    &u, &k, &s);
  /* Certificates are public objects: no login, no PIN asked. */
  CK_OBJECT_CLASS cls = CKO_CERTIFICATE;
  CK_ATTRIBUTE t[3] = {{CKA_CLASS, &cls, sizeof cls}};
  CK_ULONG nt = 1, count = 0;
  CK_OBJECT_HANDLE o = CK_INVALID_HANDLE;
  if (!rc && (u->has & GOSTX_P11_HAS_OBJECT))
    t[nt++] = (CK_ATTRIBUTE){CKA_LABEL, u->object, strlen(u->object)};
  if (!rc && (u->has & GOSTX_P11_HAS_ID)) t[nt++] = (CK_ATTRIBUTE){CKA_ID, u->id, u->id_len};
  if (!rc) rc = find(k, s, t, nt, &o, &count);
  if (!rc && count != 1)
    rc = gostx__p11_fail(GOSTX_EINVAL, GOSTX_P11_NO_OBJECT,
                         "PKCS#11 token '%s': %lu certificates match the URI%s%s (one must)%s",
                         k->label, count, (u->has & GOSTX_P11_HAS_OBJECT) ? " object=" : "",
                         (u->has & GOSTX_P11_HAS_OBJECT) ? u->object : "",
                         count ? ": name one with object= or id=" : "");
  if (!rc) rc = attr_get(k, s, o, CKA_VALUE, der, len);
  if (!rc && !*der)
    rc = gostx__p11_fail(GOSTX_EFORMAT, GOSTX_P11_TOKEN_ERROR,
                         "PKCS#11 token '%s': the certificate has no CKA_VALUE", k->label);
  if (!rc) gostx__p11_ok();
  end_op(u, k, s);
  return rc;
}

int gostx_p11_key_public(const gostx_p11_key *k, gostx_gost3410_key *pub) {
  if (!k || !pub) return GOSTX_EINVAL;
  int rc = gostx_gost3410_key_set_public(pub, k->curve, k->q, 2 * k->len, k->oid);
  if (!rc) pub->gost2001 = k->gost2001;
  return rc;
}

int gostx_p11_key_cert(const gostx_p11_key *k, const uint8_t **der, size_t *len) {
  if (!k || !der || !len) return GOSTX_EINVAL;
  if (!k->cert)
    return gostx__p11_fail(GOSTX_EINVAL, GOSTX_P11_NO_OBJECT,
                           "PKCS#11 token '%s' holds no certificate with the key's CKA_ID",
                           k->label);
  *der = k->cert;
  *len = k->cert_len;
  return 0;
}

int gostx_p11_key_sign(gostx_p11_key *k, const uint8_t *digest, size_t digest_len, uint8_t *sig,
                       size_t sig_len) {
  if (!k || !digest || !sig) return GOSTX_EINVAL;
  if (digest_len != k->len || sig_len != 2 * k->len) return GOSTX_ELEN;
  CK_SESSION_HANDLE s;
  int rc = session_take(k, &s);
  if (rc) return rc;
  CK_MECHANISM mech = {k->len == 32 ? CKM_GOSTR3410 : CKM_GOSTR3410_512, NULL, 0};
  uint8_t d[64], out[128];
  CK_ULONG out_len = sizeof out;
  memcpy(d, digest, digest_len);
  CK_RV rv = k->m->f->C_SignInit(s, &mech, k->obj);
  if (rv == CKR_OK) rv = k->m->f->C_Sign(s, d, (CK_ULONG)digest_len, out, &out_len);
  session_give(k, s, rv);
  if (rv != CKR_OK) return gostx__p11_ck_fail(rv, "C_Sign", k->label);
  if (out_len != sig_len)
    return gostx__p11_fail(GOSTX_EFORMAT, GOSTX_P11_BAD_ANSWER,
                           "PKCS#11 token '%s' answered a signature of %lu bytes, not %zu",
                           k->label, out_len, sig_len);
  /* PKCS#11 writes s || r (as RFC 4491 does); this library's order is r || s. */
  if (gostx_gost3410_sig_swap(out, sig_len, sig, sig_len) ||
      gostx_gost3410_verify(k->curve, k->q, 2 * k->len, digest, digest_len, sig, sig_len)) {
    gostx_memzero(sig, sig_len);
    return gostx__p11_fail(GOSTX_EAUTH, GOSTX_P11_BAD_ANSWER,
                           "PKCS#11 token '%s' answered a signature that does not verify under "
                           "the key's public key (a faulty token, or a public key or certificate "
                           "that is not the private key's): refused", k->label);
  }
  gostx__p11_ok();
  return 0;
}

int gostx_p11_key_vko(gostx_p11_key *k, const uint8_t *peer_pub, size_t pub_len,
                      const uint8_t *ukm, size_t ukm_len, uint8_t *out, size_t out_len) {
  if (!k || !peer_pub || !ukm || !out) return GOSTX_EINVAL;
  if (pub_len != 2 * k->len || !ukm_len || ukm_len > 64 ||
      !(out_len == 32 || (out_len == 64 && k->len == 64)))
    return GOSTX_ELEN;
  if (gostx_gost3410_check_public_key(k->curve, peer_pub, pub_len)) return GOSTX_EINVAL;
  size_t L = k->len;
  if (L != 32 && L != 64) return GOSTX_EINVAL; /* (and peer_le holds 2L: said to the compiler) */
  uint8_t peer_le[128], u[64];
  for (size_t i = 0; i < L; i++) { /* x || y, each little-endian, as CKA_VALUE holds them */
    peer_le[i] = peer_pub[L - 1 - i];
    peer_le[L + i] = peer_pub[2 * L - 1 - i];
  }
  memcpy(u, ukm, ukm_len);
  CK_GOSTR3410_DERIVE_PARAMS p = {out_len == 32 ? CKD_KDF_GOSTR3411_2012_256 : CKD_NULL, peer_le,
                                  (CK_ULONG)pub_len, u, (CK_ULONG)ukm_len};
  CK_MECHANISM mech = {out_len == 32 ? CKM_GOSTR3410_12_DERIVE : CKM_VKO_GOSTR3410_2012_512, &p,
                       sizeof p};
  CK_OBJECT_CLASS cls = CKO_SECRET_KEY;
  CK_KEY_TYPE kt = CKK_GENERIC_SECRET;
  CK_BBOOL no = CK_FALSE, yes = CK_TRUE;
  /* No CKA_VALUE_LEN: the mechanism fixes the length (32 or 64), and
   * some modules take the attribute as read-only for derived keys. */
  CK_ATTRIBUTE t[] = {{CKA_CLASS, &cls, sizeof cls},       {CKA_KEY_TYPE, &kt, sizeof kt},
                      {CKA_TOKEN, &no, sizeof no},         {CKA_SENSITIVE, &no, sizeof no},
                      {CKA_EXTRACTABLE, &yes, sizeof yes}};
  CK_SESSION_HANDLE s;
  int rc = session_take(k, &s);
  if (rc) return rc;
  CK_OBJECT_HANDLE h = CK_INVALID_HANDLE;
  CK_RV rv = k->m->f->C_DeriveKey(s, &mech, k->obj, t, sizeof t / sizeof *t, &h);
  const char *call = "C_DeriveKey";
  if (rv == CKR_OK) {
    CK_ATTRIBUTE v = {CKA_VALUE, out, (CK_ULONG)out_len};
    rv = k->m->f->C_GetAttributeValue(s, h, &v, 1);
    call = "C_GetAttributeValue(CKA_VALUE) of the derived key";
    if (rv == CKR_OK && v.ulValueLen != out_len) rv = CKR_DATA_LEN_RANGE;
    k->m->f->C_DestroyObject(s, h);
  }
  session_give(k, s, rv);
  if (rv != CKR_OK) {
    gostx_memzero(out, out_len);
    return gostx__p11_ck_fail(rv, call, k->label);
  }
  gostx__p11_ok();
  return 0;
}

int gostx_p11_key_check(gostx_p11_key *k) {
  if (!k) return GOSTX_EINVAL;
  CK_TOKEN_INFO ti;
  CK_SESSION_HANDLE s;
  /* The token's state, and one of the key's sessions: a token pulled out
   * and put back has lost them, and its login with them. */
  CK_RV rv = k->m->f->C_GetTokenInfo(k->slot, &ti);
  if (rv != CKR_OK) return gostx__p11_ck_fail(rv, "C_GetTokenInfo", k->label);
  int rc = session_take(k, &s);
  if (rc) return rc;
  CK_SESSION_INFO si;
  rv = k->m->f->C_GetSessionInfo(s, &si);
  session_give(k, s, rv);
  if (rv != CKR_OK) return gostx__p11_ck_fail(rv, "C_GetSessionInfo", k->label);
  gostx__p11_ok();
  return 0;
}

/* The key object's callbacks (include/gostx/gost3410.h: external keys). */
static int ops_sign(void *ctx, const uint8_t *digest, size_t digest_len, uint8_t *sig,
                    size_t sig_len) {
  return gostx_p11_key_sign(ctx, digest, digest_len, sig, sig_len);
}
static int ops_vko(void *ctx, const uint8_t *peer_pub, size_t pub_len, const uint8_t *ukm,
                   size_t ukm_len, uint8_t *out, size_t out_len) {
  return gostx_p11_key_vko(ctx, peer_pub, pub_len, ukm, ukm_len, out, out_len);
}
static const gostx_gost3410_key_ops p11_ops = {ops_sign, ops_vko};

int gostx_p11_key_bind(gostx_p11_key *k, gostx_gost3410_key *key) {
  if (!k || !key) return GOSTX_EINVAL;
  int rc = gostx_gost3410_key_set_external(key, k->curve, k->q, 2 * k->len, k->oid, &p11_ops, k);
  if (!rc) key->gost2001 = k->gost2001; /* the library's signers refuse it */
  return rc;
}

void gostx_p11_key_free(gostx_p11_key *k) {
  if (!k) return;
  for (size_t i = 0; i < k->n_idle; i++) k->m->f->C_CloseSession(k->idle[i]);
  pthread_mutex_destroy(&k->lock);
  free(k->cert);
  free(k);
}
