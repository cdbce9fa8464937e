# The cryptsetup interop test (tests/luks/test_cryptsetup.sh) and the
# test-only OpenSSL 3 provider it loads into cryptsetup (tests/luks/
# ossl_streebog.c: the digest "streebog512" from libgostx), built when
# OpenSSL's headers are present (Debian: libssl-dev). cryptsetup loads the
# module into its own process: not in sanitizer, cross or emulation builds.
if(GOSTX_SANITIZE OR CMAKE_CROSSCOMPILING OR GOSTX_EMULATE_AVX512)
  return()
endif()
find_package(OpenSSL 3 QUIET COMPONENTS Crypto)
if(NOT OPENSSL_FOUND)
  message(STATUS "cryptsetup interop test: not built (no OpenSSL 3 headers; apt-get install libssl-dev)")
  return()
endif()
message(STATUS "cryptsetup interop test: build/tests/gostx-ossl-streebog.so")
add_library(gostx_ossl_streebog MODULE ${CMAKE_SOURCE_DIR}/tests/luks/ossl_streebog.c)
target_link_libraries(gostx_ossl_streebog PRIVATE gostx OpenSSL::Crypto)
target_link_options(gostx_ossl_streebog PRIVATE -Wl,--exclude-libs,ALL)
set_target_properties(gostx_ossl_streebog PROPERTIES
  PREFIX "" OUTPUT_NAME gostx-ossl-streebog
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests
  C_VISIBILITY_PRESET hidden)
# Skips (77) where cryptsetup is not installed (Debian: cryptsetup-bin).
add_test(NAME test_cryptsetup
         COMMAND bash ${CMAKE_SOURCE_DIR}/tests/luks/test_cryptsetup.sh
                 $<TARGET_FILE:gostx_cli> $<TARGET_FILE:gostx_ossl_streebog>)
set_tests_properties(test_cryptsetup PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600)
