# tests/test_gost3410_engine.c talks to gost-engine through libcrypto: linked
# with it when OpenSSL 3's headers are here (libssl-dev, installed by
# .ci/run); without them the test is built to skip (exit 77).
find_package(OpenSSL 3 QUIET COMPONENTS Crypto)
if(TARGET test_gost3410_engine AND OPENSSL_FOUND)
  target_compile_definitions(test_gost3410_engine PRIVATE GOSTX_HAVE_LIBCRYPTO=1)
  target_link_libraries(test_gost3410_engine PRIVATE OpenSSL::Crypto)
endif()
