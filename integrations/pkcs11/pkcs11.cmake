# gostx's PKCS#11 module, a GOST software token (integrations/pkcs11/,
# docs/PKCS11.md): build/libgostx-pkcs11.so. Applications load it with
# dlopen and call C_GetFunctionList / C_GetInterface; only the C_*
# functions are exported (libgostx inside stays private, so it cannot
# clash with another libgostx in the same process).
file(GLOB GOSTX_P11_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/integrations/pkcs11/p11_*.c)
add_library(gostx_pkcs11 SHARED ${GOSTX_P11_SOURCES})
target_include_directories(gostx_pkcs11 PRIVATE ${CMAKE_SOURCE_DIR}/lib)
target_link_libraries(gostx_pkcs11 PRIVATE gostx Threads::Threads)
# -z nodelete: libgostx keeps per-curve tables for the process's life
# (lib/gost3410's comb tables); a dlclose would drop them unfreed, and a
# dlopen again would build them anew, so the module stays loaded once
# loaded (LeakSanitizer found 1.6 MB per load-unload cycle).
target_link_options(gostx_pkcs11 PRIVATE -Wl,--exclude-libs,ALL -Wl,-z,nodelete)
# Every symbol resolved at link time (a typo cannot wait for dlopen), except
# in sanitizer builds, whose runtime the loading program brings.
if(NOT GOSTX_SANITIZE)
  target_link_options(gostx_pkcs11 PRIVATE -Wl,-z,defs)
endif()
set_target_properties(gostx_pkcs11 PROPERTIES
  OUTPUT_NAME gostx-pkcs11 PREFIX lib
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}
  C_VISIBILITY_PRESET hidden)

# Installed where Debian's PKCS#11 modules live (libdir/pkcs11, as
# p11-kit and OpenSC do), with a p11-kit module file so `p11-kit
# list-modules` and p11-kit-proxy users find it by name.
include(GNUInstallDirs)
install(TARGETS gostx_pkcs11 LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkcs11)
# `gostx p11` finds the installed module there when none is beside it
if(TARGET gostx_cli)
  target_compile_definitions(gostx_cli PRIVATE
    GOSTX_P11_MODULE_INSTALLED="${CMAKE_INSTALL_FULL_LIBDIR}/pkcs11/libgostx-pkcs11.so")
  target_link_libraries(gostx_cli PRIVATE ${CMAKE_DL_LIBS})
endif()
install(FILES ${CMAKE_SOURCE_DIR}/integrations/pkcs11/gostx.module
        DESTINATION ${CMAKE_INSTALL_DATADIR}/p11-kit/modules)

# Tests: the module through its function list (C), and consumers we did
# not write (OpenSC's pkcs11-tool, GnuTLS's p11tool, PyKCS11, openssl with
# gost-engine; each skips, 77, where missing).
add_executable(p11_module_test ${CMAKE_SOURCE_DIR}/tests/pkcs11/p11_module_test.c)
target_link_libraries(p11_module_test PRIVATE gostx_testsupport gostx ${CMAKE_DL_LIBS} Threads::Threads)
target_include_directories(p11_module_test PRIVATE ${CMAKE_SOURCE_DIR}/lib)
set_target_properties(p11_module_test PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
add_dependencies(p11_module_test gostx_pkcs11)
add_test(NAME test_p11_module
         COMMAND p11_module_test $<TARGET_FILE:gostx_pkcs11>)
set_tests_properties(test_p11_module PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300
  ENVIRONMENT "GOSTX_VECTORS=${CMAKE_SOURCE_DIR}/tests/vectors")
add_executable(p11_stress ${CMAKE_SOURCE_DIR}/tests/pkcs11/p11_stress.c)
target_link_libraries(p11_stress PRIVATE ${CMAKE_DL_LIBS} Threads::Threads)
target_include_directories(p11_stress PRIVATE ${CMAKE_SOURCE_DIR}/lib)
set_target_properties(p11_stress PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
add_test(NAME test_p11_stress
         COMMAND bash ${CMAKE_SOURCE_DIR}/tests/pkcs11/test_p11_stress.sh
                 $<TARGET_FILE:gostx_pkcs11> $<TARGET_FILE:p11_stress>)
set_tests_properties(test_p11_stress PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
# The consumers we did not write load the module into their own process:
# one built with sanitizers (they are not), for another architecture or
# emulating AVX-512 cannot be, so those builds leave these two out.
if(NOT (GOSTX_SANITIZE OR CMAKE_CROSSCOMPILING OR GOSTX_EMULATE_AVX512))
  add_test(NAME test_p11_tools
           COMMAND bash ${CMAKE_SOURCE_DIR}/tests/pkcs11/test_p11_tools.sh $<TARGET_FILE:gostx_pkcs11>)
  set_tests_properties(test_p11_tools PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300
                       ENVIRONMENT GOSTX=${CMAKE_BINARY_DIR}/gostx)
  add_test(NAME test_p11_command
           COMMAND bash ${CMAKE_SOURCE_DIR}/tests/pkcs11/test_p11_command.sh $<TARGET_FILE:gostx_pkcs11>)
  set_tests_properties(test_p11_command PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300
                       ENVIRONMENT GOSTX=${CMAKE_BINARY_DIR}/gostx)
  add_test(NAME test_p11_python
           COMMAND bash ${CMAKE_SOURCE_DIR}/tests/pkcs11/test_p11_python.sh $<TARGET_FILE:gostx_pkcs11>)
  set_tests_properties(test_p11_python PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300
                       ENVIRONMENT GOSTX=${CMAKE_BINARY_DIR}/gostx)
endif()
