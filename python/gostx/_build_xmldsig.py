"""cffi declarations of libgostx-xmldsig (integrations/xmldsig/xmldsig.h),
the XML signatures gostx.xmldsig hands its documents to: appended to
_build.py's CDEF when the package is built with the library (libxml2
found; python/CMakeLists.txt). As there, ``...`` lets the compiler supply
what is not read."""

CDEF_XMLDSIG = r"""
#define GOSTX_XMLDSIG_MAX_SIZE ...
#define GOSTX_XMLDSIG_MAX_SIGNATURES ...
typedef enum gostx_xmldsig_status { GOSTX_XMLDSIG_OK, GOSTX_XMLDSIG_CHAIN,
                                    GOSTX_XMLDSIG_KEY_FAILED, ... } gostx_xmldsig_status;
const char *gostx_xmldsig_status_name(gostx_xmldsig_status st);
typedef enum gostx_xmldsig_form { GOSTX_XMLDSIG_ENVELOPED, GOSTX_XMLDSIG_ENVELOPING,
                                  GOSTX_XMLDSIG_DETACHED, ... } gostx_xmldsig_form;
typedef struct gostx_xmldsig_sign_opts {
  const char *ref; gostx_xmldsig_form form; int inclusive; int smev; int wsse;
  const uint8_t *cert_der; size_t cert_len; const gostx_x509_cert *chain; size_t chain_n; ...;
} gostx_xmldsig_sign_opts;
gostx_xmldsig_status gostx_xmldsig_sign(const uint8_t *xml, size_t len,
                                        const gostx_xmldsig_sign_opts *opts,
                                        const gostx_gost3410_key *key, uint8_t **out,
                                        size_t *out_len, char *err, size_t err_cap);
typedef struct gostx_xmldsig_signature {
  char where[...]; uint8_t *cert; size_t cert_len; ...;
} gostx_xmldsig_signature;
typedef struct gostx_xmldsig_reference {
  size_t signature; char uri[...]; size_t offset, len; ...;
} gostx_xmldsig_reference;
typedef struct gostx_xmldsig_result {
  uint8_t *signed_data; size_t signed_len; size_t refs; gostx_xmldsig_reference *ref;
  gostx_x509_status x509; char why[...]; size_t depth; size_t nsig, failed;
  gostx_xmldsig_signature sig[...]; ...;
} gostx_xmldsig_result;
void gostx_xmldsig_result_free(gostx_xmldsig_result *r);
void gxpy_xmldsig_init(void);
gostx_xmldsig_status gostx_xmldsig_verify_untrusted(const uint8_t *xml, size_t len,
                                                    const gostx_x509_store *store,
                                                    const gostx_x509_verify_opts *opts,
                                                    const gostx_x509_cert *untrusted,
                                                    size_t n_untrusted,
                                                    gostx_xmldsig_result *res);
"""

SOURCE_XMLDSIG = r"""
#include <libxml/parser.h>
#include <xmldsig.h>
/* libxml2's global state set up once, before threads call the library
 * (its calls run without the GIL): xmlInitParser is not reentrant. */
static void gxpy_xmldsig_init(void) { xmlInitParser(); }
"""
