# tests/test_gost3410_engine.c talks to gost-engine through libcrypto: linked
# with it when OpenSSL 3's headers are here (libssl-dev, installed by
# .ci/run); without them the test is built to skip (exit 77).
# Not in cross builds: the host's OpenSSL headers and libcrypto are for the
# host, not the target (the test then skips there).
if(NOT CMAKE_CROSSCOMPILING)
  find_package(OpenSSL 3 QUIET COMPONENTS Crypto)
endif()
if(TARGET test_gost3410_engine AND OPENSSL_FOUND AND NOT CMAKE_CROSSCOMPILING)
  target_compile_definitions(test_gost3410_engine PRIVATE GOSTX_HAVE_LIBCRYPTO=1)
  target_link_libraries(test_gost3410_engine PRIVATE OpenSSL::Crypto)
endif()
