# The cryptsetup interop test (tests/luks/test_cryptsetup.sh): cryptsetup
# verifies gostx's LUKS1 headers with OpenSSL's PBKDF2 and HMAC over the
# digest "streebog512" of the gostx OpenSSL provider (integrations/openssl/,
# built when OpenSSL's headers are present; Debian: libssl-dev), which the
# test loads into cryptsetup's own library context as "legacy".
if(NOT TARGET gostx_ossl_provider)
  message(STATUS "cryptsetup interop test: not built (no OpenSSL provider)")
  return()
endif()
# Skips (77) where cryptsetup is not installed (Debian: cryptsetup-bin).
add_test(NAME test_cryptsetup
         COMMAND bash ${CMAKE_SOURCE_DIR}/tests/luks/test_cryptsetup.sh
                 $<TARGET_FILE:gostx_cli> $<TARGET_FILE:gostx_ossl_provider>)
set_tests_properties(test_cryptsetup PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600)
