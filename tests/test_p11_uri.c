/* RFC 7512 PKCS#11 URIs (lib/pkcs11/uri.c): every example of RFC 7512
 * section 3, with its line breaks and indentation dropped as the RFC says
 * the one who extracts a URI does, parsed to the values the RFC's text
 * says; and the refusals, each for its own reason. */
#include <ctype.h>
#include <string.h>

#include "gostx/pkcs11.h"
#include "testutil.h"

/* The RFC's layout removed (RFC 7512 section 3, RFC 3986 appendix C). */
static void squeeze(const char *in, char *out) {
  for (; *in; in++)
    if (!isspace((unsigned char)*in)) *out++ = *in;
  *out = 0;
}

static int parse(gostx_p11_uri *u, const char *text) {
  char s[512], why[256];
  squeeze(text, s);
  int rc = gostx_p11_uri_parse(u, s, why, sizeof why);
  CHECK(rc == 0, "%s: refused: %s", s, why);
  return rc;
}

static void refused(const char *text, const char *because) {
  gostx_p11_uri u;
  char why[256] = "", msg[512];
  int rc = gostx_p11_uri_parse(&u, text, why, sizeof why);
  CHECK(rc == GOSTX_EFORMAT, "%s: accepted (rc %d), should be refused: %s", text, rc, because);
  CHECK(strstr(why, because) != NULL, "%s: refused for '%s', expected '%s'", text, why, because);
  CHECK(gostx_p11_error(msg, sizeof msg) == GOSTX_P11_BAD_URI && strstr(msg, because),
        "%s: the thread's last error is '%s'", text, msg);
}

static void rfc_examples(void) {
  gostx_p11_uri u;
  if (!parse(&u, "pkcs11:")) CHECK(u.has == 0, "empty URI has attributes %x", u.has);

  if (!parse(&u, "pkcs11:object=my-pubkey;type=public"))
    CHECK(!strcmp(u.object, "my-pubkey") && u.type == GOSTX_P11_TYPE_PUBLIC, "object/type");

  if (!parse(&u, "pkcs11:object=my-key;type=private?pin-source=file:/etc/token"))
    CHECK(u.type == GOSTX_P11_TYPE_PRIVATE && !strcmp(u.pin_source, "file:/etc/token"),
          "pin-source %s", u.pin_source);

  if (!parse(&u, "pkcs11:token=The%20Software%20PKCS%2311%20Softtoken;\n"
                 "       manufacturer=Snake%20Oil,%20Inc.;\n"
                 "       model=1.0;\n"
                 "       object=my-certificate;\n"
                 "       type=cert;\n"
                 "       id=%69%95%3E%5C%F4%BD%EC%91;\n"
                 "       serial=\n"
                 "       ?pin-source=file:/etc/token_pin")) {
    static const uint8_t id[] = {0x69, 0x95, 0x3e, 0x5c, 0xf4, 0xbd, 0xec, 0x91};
    CHECK(!strcmp(u.token, "The Software PKCS#11 Softtoken"), "token %s", u.token);
    CHECK(!strcmp(u.manufacturer, "Snake Oil, Inc."), "manufacturer %s", u.manufacturer);
    CHECK(!strcmp(u.model, "1.0") && u.type == GOSTX_P11_TYPE_CERT, "model/type");
    CHECK(u.id_len == sizeof id && !memcmp(u.id, id, sizeof id), "id");
    CHECK((u.has & GOSTX_P11_HAS_SERIAL) && u.serial[0] == 0, "serial= is present and empty");
    CHECK(!strcmp(u.pin_source, "file:/etc/token_pin"), "pin-source");
  }

  if (!parse(&u, "pkcs11:object=my-sign-key;\n type=private\n ?module-name=mypkcs11"))
    CHECK(!strcmp(u.module_name, "mypkcs11"), "module-name %s", u.module_name);

  if (!parse(&u, "pkcs11:object=my-sign-key;\n type=private\n ?module-path=/mnt/libmypkcs11.so.1"))
    CHECK(!strcmp(u.module_path, "/mnt/libmypkcs11.so.1"), "module-path %s", u.module_path);

  if (!parse(&u, "pkcs11:token=Software%20PKCS%2311%20softtoken;\n"
                 "       manufacturer=Snake%20Oil,%20Inc.\n"
                 "       ?pin-value=the-pin"))
    CHECK(!strcmp(u.pin_value, "the-pin") && !strcmp(u.token, "Software PKCS#11 softtoken"),
          "pin-value");

  if (!parse(&u, "pkcs11:slot-description=Sun%20Metaslot"))
    CHECK(!strcmp(u.slot_description, "Sun Metaslot"), "slot-description");

  if (!parse(&u, "pkcs11:library-manufacturer=Snake%20Oil,%20Inc.;\n"
                 "       library-description=Soft%20Token%20Library;\n"
                 "       library-version=1.23"))
    CHECK(!strcmp(u.lib_description, "Soft Token Library") && u.lib_version_major == 1 &&
              u.lib_version_minor == 23, "library-*");

  if (!parse(&u, "pkcs11:token=My%20token%25%20created%20by%20Joe;\n"
                 "       library-version=3;\n"
                 "       id=%01%02%03%Ba%dd%Ca%fe%04%05%06")) {
    static const uint8_t id[] = {1, 2, 3, 0xba, 0xdd, 0xca, 0xfe, 4, 5, 6};
    CHECK(!strcmp(u.token, "My token% created by Joe"), "token %s", u.token);
    CHECK(u.lib_version_major == 3 && u.lib_version_minor == 0, "library-version 3 is 3.0");
    CHECK(u.id_len == sizeof id && !memcmp(u.id, id, sizeof id), "lowercase percent-encoding");
  }

  if (!parse(&u, "pkcs11:token=A%20name%20with%20a%20substring%20%25%3B;\n"
                 "       object=my-certificate;\n       type=cert"))
    CHECK(!strcmp(u.token, "A name with a substring %;"), "token %s", u.token);

  if (!parse(&u, "pkcs11:token=Name%20with%20a%20small%20A%20with%20acute:%20%C3%A1;\n"
                 "       object=my-certificate;\n       type=cert"))
    CHECK(!strcmp(u.token, "Name with a small A with acute: \xc3\xa1") &&
              !strcmp(u.too_long, "token"),
          "token %s (34 bytes: longer than a PKCS#11 label, noted as '%s')", u.token, u.too_long);

  /* A vendor's attributes: the path one parses but is kept as unknown (it
   * matches nothing, RFC 7512 2.5); the query one is ignored. */
  if (!parse(&u, "pkcs11:token=my-token;\n object=my-certificate;\n type=cert;\n"
                 " vendor-aaa=value-a\n ?pin-source=file:/etc/token_pin\n &vendor-bbb=value-b"))
    CHECK(!strcmp(u.unknown, "vendor-aaa") && !strcmp(u.pin_source, "file:/etc/token_pin"),
          "vendor attributes: unknown '%s'", u.unknown);
}

#define LONG16 "0123456789abcdef"
#define LONG256 LONG16 LONG16 LONG16 LONG16 LONG16 LONG16 LONG16 LONG16 \
  LONG16 LONG16 LONG16 LONG16 LONG16 LONG16 LONG16 LONG16

static void refusals(void) {
  refused("pkcs12:token=a", "does not start with pkcs11:");
  refused("pkcs11:token=a;token=b", "path attribute token given twice");
  refused("pkcs11:x-v=1;x-v=2", "path attribute x-v given twice");
  refused("pkcs11:?module-path=/a&module-path=/b", "module-path given twice");
  refused("pkcs11:token=a%2", "not followed by two hex digits");
  refused("pkcs11:token=a%zz", "not followed by two hex digits");
  refused("pkcs11:id=%", "not followed by two hex digits");
  refused("pkcs11:token=a%00b", "%00 in a text value");
  refused("pkcs11:token=a b", "must be percent-encoded");
  refused("pkcs11:token=a/b", "must be percent-encoded");
  refused("pkcs11:token=a#b", "must be percent-encoded");
  refused("pkcs11:?pin-source=a#b", "must be percent-encoded");
  refused("pkcs11:type=secret", "not private, public, cert, secret-key nor data");
  refused("pkcs11:library-version=1.", "library-version");
  refused("pkcs11:library-version=256", "library-version");
  refused("pkcs11:library-version=a", "library-version");
  refused("pkcs11:slot-id=", "slot-id");
  refused("pkcs11:slot-id=99999999999999999999999", "slot-id");
  refused("pkcs11:object=" LONG256, "longer than 255 bytes");
  refused("pkcs11:?pin-value=" LONG256, "longer than 255 bytes");
  refused("pkcs11:token=a;", "is not NAME=VALUE");
  refused("pkcs11:;token=a", "is not NAME=VALUE");
  refused("pkcs11:token", "is not NAME=VALUE");
  refused("pkcs11:=a", "is not NAME=VALUE");
  refused("pkcs11:?&pin-source=/x", "is not NAME=VALUE");
  refused("pkcs11:to.ken=a", "has a character other than");
  refused("pkcs11:?pin-source=/x&pin-value=1234", "pin-source and pin-value both given");
  refused("pkcs11:?module-path=lib/x.so", "module-path must be an absolute path");
  gostx_p11_uri u;
  if (!parse(&u, "pkcs11:serial=0123456789abcdef0;token=" LONG16 LONG16))
    CHECK(!strcmp(u.too_long, "serial"), "a 17-byte serial noted: '%s'", u.too_long);
  if (!parse(&u, "pkcs11:token=" LONG16 LONG16 ";serial=" LONG16 ";object=" LONG16 LONG16 LONG16))
    CHECK(!u.too_long[0], "values that fit their fields noted as too long: '%s'", u.too_long);
  /* id may hold any byte, %00 included; the scheme in any case. */
  if (!parse(&u, "PKCS11:id=%00%ff")) CHECK(u.id_len == 2 && u.id[0] == 0 && u.id[1] == 0xff, "id");
  CHECK(gostx_p11_is_uri("pkcs11:") && gostx_p11_is_uri("Pkcs11:x") && !gostx_p11_is_uri("key.pem"),
        "gostx_p11_is_uri");
  /* '/' and '?' are allowed unencoded in the query, '&' in the path. */
  if (!parse(&u, "pkcs11:object=a&b?pin-source=file:/run/pin?x"))
    CHECK(!strcmp(u.object, "a&b") && !strcmp(u.pin_source, "file:/run/pin?x"), "delimiters");
}

int main(void) {
  rfc_examples();
  refusals();
  return t_done();
}
