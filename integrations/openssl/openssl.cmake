# The OpenSSL 3 provider (integrations/openssl/), built when OpenSSL 3's
# headers are present (Debian: libssl-dev); the library never needs them.
# GOSTX_OPENSSL: AUTO (default: build if found), ON (fail if not found), OFF.
set(GOSTX_OPENSSL AUTO CACHE STRING "Build the OpenSSL 3 provider (AUTO, ON, OFF)")
if(GOSTX_OPENSSL STREQUAL "OFF")
  return()
endif()
# openssl (not built with ASan, not of the target architecture, not emulating
# AVX-512) could not load the module of such builds: AUTO leaves it out.
if(GOSTX_OPENSSL STREQUAL "AUTO" AND (GOSTX_SANITIZE OR CMAKE_CROSSCOMPILING OR GOSTX_EMULATE_AVX512))
  return()
endif()
find_package(OpenSSL 3 QUIET COMPONENTS Crypto)
if(NOT OPENSSL_FOUND)
  if(GOSTX_OPENSSL STREQUAL "ON")
    message(FATAL_ERROR "GOSTX_OPENSSL=ON but OpenSSL 3 headers were not found "
                        "(Debian: apt-get install libssl-dev)")
  endif()
  message(STATUS "OpenSSL provider: not built (no OpenSSL 3 headers; apt-get install libssl-dev)")
  return()
endif()
message(STATUS "OpenSSL provider: build/ossl-modules/gostx.so")

# openssl loads it with dlopen; only OSSL_provider_init is exported (the
# library inside stays private, so it cannot clash with another libgostx).
file(GLOB GOSTX_OSSL_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/integrations/openssl/prov_*.c)
add_library(gostx_ossl_provider MODULE ${GOSTX_OSSL_SOURCES})
target_link_libraries(gostx_ossl_provider PRIVATE gostx OpenSSL::Crypto)
target_link_options(gostx_ossl_provider PRIVATE -Wl,--exclude-libs,ALL)
set_target_properties(gostx_ossl_provider PROPERTIES
  PREFIX "" OUTPUT_NAME gostx
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/ossl-modules
  C_VISIBILITY_PRESET hidden)

# `cmake --install build` puts it in OpenSSL's MODULESDIR (`openssl version
# -m`), where `-provider gostx` and a config's `[gostx_sect]` find it by name.
# That folder is OpenSSL's, not under CMAKE_INSTALL_PREFIX: set
# GOSTX_OSSL_MODULESDIR to install elsewhere (scripts/check_install.sh does).
include(${CMAKE_SOURCE_DIR}/cmake/plugin_dir.cmake)
gostx_plugin_dir(GOSTX_OSSL_MODULESDIR libcrypto modulesdir ossl-modules
                 "Where to install the OpenSSL module (empty: pkg-config libcrypto's modulesdir)")
message(STATUS "OpenSSL provider: installs into ${GOSTX_OSSL_MODULESDIR}")
install(TARGETS gostx_ossl_provider LIBRARY DESTINATION ${GOSTX_OSSL_MODULESDIR})

# Tests: the differential test against gost-engine's provider (gostprov), and
# the openssl command with our names. Both skip (77) where gostprov or the
# openssl binary are missing (Debian: libengine-gost-openssl, openssl).
add_executable(ossl_interop ${CMAKE_SOURCE_DIR}/integrations/openssl/tests/ossl_interop.c)
target_link_libraries(ossl_interop PRIVATE gostx OpenSSL::Crypto)
set_target_properties(ossl_interop PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
add_test(NAME test_ossl_interop COMMAND ossl_interop ${CMAKE_BINARY_DIR}/ossl-modules)
# ossl_strict: the provider refuses what it cannot honour (issue 32)
add_executable(ossl_strict ${CMAKE_SOURCE_DIR}/integrations/openssl/tests/ossl_strict.c)
target_link_libraries(ossl_strict PRIVATE gostx OpenSSL::Crypto)
set_target_properties(ossl_strict PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
add_test(NAME test_ossl_strict COMMAND ossl_strict ${CMAKE_BINARY_DIR}/ossl-modules)
# ossl_gost3410: GOST R 34.10-2012 keys, signatures and VKO through EVP (issue 28)
add_executable(ossl_gost3410 ${CMAKE_SOURCE_DIR}/integrations/openssl/tests/ossl_gost3410.c)
target_link_libraries(ossl_gost3410 PRIVATE gostx OpenSSL::Crypto)
set_target_properties(ossl_gost3410 PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
add_test(NAME test_ossl_gost3410 COMMAND ossl_gost3410 ${CMAKE_BINARY_DIR}/ossl-modules)
# ossl_threads: shared GOST R 34.10-2012 EVP_PKEYs signed, verified and derived
# with from 8 threads at once, each result checked with libgostx
add_executable(ossl_threads ${CMAKE_SOURCE_DIR}/integrations/openssl/tests/ossl_threads.c)
target_link_libraries(ossl_threads PRIVATE gostx OpenSSL::Crypto Threads::Threads)
set_target_properties(ossl_threads PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
add_test(NAME test_ossl_threads COMMAND ossl_threads ${CMAKE_BINARY_DIR}/ossl-modules)
# the openssl command with GOST keys, against gost-engine and GnuTLS's certtool
add_test(NAME test_ossl_gost3410_cli
         COMMAND bash ${CMAKE_SOURCE_DIR}/integrations/openssl/tests/test_ossl_gost3410_cli.sh
                 ${CMAKE_BINARY_DIR}/ossl-modules)
add_test(NAME test_ossl_cli
         COMMAND bash ${CMAKE_SOURCE_DIR}/integrations/openssl/tests/test_ossl_cli.sh
                 ${CMAKE_BINARY_DIR}/ossl-modules)
add_test(NAME test_ossl_gost_params
         COMMAND bash ${CMAKE_SOURCE_DIR}/integrations/openssl/tests/test_ossl_gost_params.sh
                 ${CMAKE_BINARY_DIR}/ossl-modules)
set_tests_properties(test_ossl_interop test_ossl_strict test_ossl_cli test_ossl_gost_params
                     test_ossl_gost3410 test_ossl_gost3410_cli test_ossl_threads PROPERTIES
                     SKIP_RETURN_CODE 77 TIMEOUT 600)
