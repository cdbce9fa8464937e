/* CRLs written (RFC 5280 section 5): a v2 CertificateList with
 * authorityKeyIdentifier and cRLNumber (5.2.1, 5.2.3's MUSTs), entries
 * with reasonCode and invalidityDate, signed with GOST R 34.10-2012 as
 * certificates are (write_cert.c). */
#include "x509/write_internal.h"

#define OID_AKI "\x55\x1d\x23"        /* 2.5.29.35 */
#define OID_CRL_NUMBER "\x55\x1d\x14" /* 2.5.29.20 */
#define OID_REASON "\x55\x1d\x15"     /* 2.5.29.21 */
#define OID_INVALIDITY "\x55\x1d\x18" /* 2.5.29.24 */
#define DER_ENUM 0x0a

/* An extension whose value is one element (tag, content). */
static void put_ext_tlv(gostx__der_w *w, const char *oid, size_t oid_len, uint8_t tag,
                        const uint8_t *content, size_t len) {
  uint8_t value[96];
  size_t vlen = 0;
  gostx__der_w v;
  gostx__der_w_init(&v, value, sizeof value);
  if (tag == GOSTX__DER_SEQ) { /* AuthorityKeyIdentifier { [0] keyIdentifier } */
    gostx__der_w_begin(&v, GOSTX__DER_SEQ);
    gostx__der_w_tlv(&v, GOSTX__DER_CTX(0), content, len);
    gostx__der_w_end(&v);
  } else if (tag == GOSTX__DER_INT) {
    gostx__der_w_uint(&v, content, len);
  } else {
    gostx__der_w_tlv(&v, tag, content, len);
  }
  if (gostx__der_w_finish(&v, &vlen)) w->err = GOSTX_EINVAL;
  else gostx__x509_put_ext(w, (const uint8_t *)oid, oid_len, 0, value, vlen);
}

static int put_entry(gostx__der_w *w, const gostx_x509_crl_revoked *e) {
  if (!gostx__x509_serial_ok(e->serial, e->serial_len) || e->reason < GOSTX_X509_REASON_NONE ||
      e->reason > GOSTX_X509_REASON_AA_COMPROMISE || e->reason == 7)
    return GOSTX_EINVAL;
  gostx__der_w_begin(w, GOSTX__DER_SEQ);
  gostx__der_w_uint(w, e->serial, e->serial_len);
  if (gostx__x509_put_time(w, e->date)) return GOSTX_EINVAL;
  if (e->reason > 0 || e->invalidity_date >= 0) {
    gostx__der_w_begin(w, GOSTX__DER_SEQ);
    if (e->reason > 0) {
      uint8_t r = (uint8_t)e->reason;
      put_ext_tlv(w, OID_REASON, sizeof OID_REASON - 1, DER_ENUM, &r, 1);
    }
    if (e->invalidity_date >= 0) {
      uint8_t value[24];
      size_t vlen = 0;
      gostx__der_w v;
      gostx__der_w_init(&v, value, sizeof value);
      if (gostx__x509_put_time_as(&v, e->invalidity_date, 1) || gostx__der_w_finish(&v, &vlen))
        return GOSTX_EINVAL;
      gostx__x509_put_ext(w, (const uint8_t *)OID_INVALIDITY, sizeof OID_INVALIDITY - 1, 0, value, vlen);
    }
    gostx__der_w_end(w);
  }
  gostx__der_w_end(w);
  return 0;
}

int gostx_x509_crl_write(const gostx_x509_crl_spec *s, const gostx_gost3410_key *k, uint8_t *out,
                         size_t cap, size_t *out_len) {
  /* a cRLNumber always (5.2.3): readers, gostx's own, use no CRL without one */
  if (!s || !gostx__x509_key_ok(k) || !out_len || !s->issuer || (s->n_entries && !s->entries) ||
      (s->next_update >= 0 && s->next_update < s->this_update) || !s->crl_number ||
      !gostx__x509_serial_ok(s->crl_number, s->crl_number_len) ||
      (s->issuer_key_id && (!s->issuer_key_id_len || s->issuer_key_id_len > 64)))
    return GOSTX_EINVAL;
  gostx__der_w w;
  size_t start = gostx__x509_sign_open(&w, out, cap);
  gostx__der_w_u32(&w, 1); /* v2 */
  gostx__x509_put_sig_alg(&w, k->len);
  gostx__der_w_raw(&w, s->issuer, s->issuer_len);
  if (gostx__x509_put_time(&w, s->this_update) ||
      (s->next_update >= 0 && gostx__x509_put_time(&w, s->next_update)))
    return GOSTX_EINVAL;
  if (s->n_entries) { /* 5.1.2.6: absent when empty */
    gostx__der_w_begin(&w, GOSTX__DER_SEQ);
    for (size_t i = 0; i < s->n_entries; i++)
      if (put_entry(&w, &s->entries[i])) return GOSTX_EINVAL;
    gostx__der_w_end(&w);
  }
  gostx__der_w_begin(&w, GOSTX__DER_CTXC(0));
  gostx__der_w_begin(&w, GOSTX__DER_SEQ);
  if (s->issuer_key_id)
    put_ext_tlv(&w, OID_AKI, sizeof OID_AKI - 1, GOSTX__DER_SEQ, s->issuer_key_id, s->issuer_key_id_len);
  put_ext_tlv(&w, OID_CRL_NUMBER, sizeof OID_CRL_NUMBER - 1, GOSTX__DER_INT, s->crl_number,
              s->crl_number_len); /* non-critical (put_ext_tlv's 0) */
  gostx__der_w_end(&w);
  gostx__der_w_end(&w);
  return gostx__x509_sign_finish(&w, start, k, out_len);
}
