# The nbdkit filter (integrations/nbdkit/), built when nbdkit's filter header
# is present (Debian: nbdkit-plugin-dev); the library never needs it.
# GOSTX_NBDKIT: AUTO (default: build if found), ON (fail if not found), OFF.
set(GOSTX_NBDKIT AUTO CACHE STRING "Build the nbdkit filter (AUTO, ON, OFF)")
if(GOSTX_NBDKIT STREQUAL "OFF")
  return()
endif()
# nbdkit (not built with ASan, not of the target architecture, not emulating
# AVX-512) could not load the filter of such builds: AUTO leaves it out.
if(GOSTX_NBDKIT STREQUAL "AUTO" AND (GOSTX_SANITIZE OR CMAKE_CROSSCOMPILING OR GOSTX_EMULATE_AVX512))
  return()
endif()
find_path(GOSTX_NBDKIT_INCLUDE nbdkit-filter.h)
if(NOT GOSTX_NBDKIT_INCLUDE)
  if(GOSTX_NBDKIT STREQUAL "ON")
    message(FATAL_ERROR "GOSTX_NBDKIT=ON but nbdkit-filter.h was not found "
                        "(Debian: apt-get install nbdkit-plugin-dev)")
  endif()
  message(STATUS "nbdkit filter: not built (no nbdkit-filter.h; apt-get install nbdkit-plugin-dev)")
  return()
endif()
message(STATUS "nbdkit filter: build/nbdkit-gostx-filter.so")

# nbdkit loads it with dlopen and resolves nbdkit_* from its own binary;
# only filter_init is exported (the library inside stays private).
add_library(nbdkit_gostx_filter MODULE ${CMAKE_SOURCE_DIR}/integrations/nbdkit/gostx_filter.c)
target_include_directories(nbdkit_gostx_filter PRIVATE ${GOSTX_NBDKIT_INCLUDE})
target_link_libraries(nbdkit_gostx_filter PRIVATE gostx)
target_link_options(nbdkit_gostx_filter PRIVATE -Wl,--exclude-libs,ALL)
set_target_properties(nbdkit_gostx_filter PROPERTIES
  PREFIX "" OUTPUT_NAME nbdkit-gostx-filter
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}
  C_VISIBILITY_PRESET hidden)

# `cmake --install build` puts it beside nbdkit's own filters, so that
# `nbdkit --filter=gostx ...` finds it by name. That folder is nbdkit's, not
# under CMAKE_INSTALL_PREFIX: set GOSTX_NBDKIT_FILTERDIR to install elsewhere.
include(${CMAKE_SOURCE_DIR}/cmake/plugin_dir.cmake)
gostx_plugin_dir(GOSTX_NBDKIT_FILTERDIR nbdkit filterdir nbdkit/filters
                 "Where to install the nbdkit filter (empty: pkg-config nbdkit's filterdir)")
message(STATUS "nbdkit filter: installs into ${GOSTX_NBDKIT_FILTERDIR}")
install(TARGETS nbdkit_gostx_filter LIBRARY DESTINATION ${GOSTX_NBDKIT_FILTERDIR})

# Its tests need the nbdkit binary and libnbd's tools (nbdcopy, nbdinfo, nbdsh).
find_program(GOSTX_NBDKIT_BIN nbdkit)
if(GOSTX_NBDKIT_BIN)
  add_test(NAME test_nbdkit
           COMMAND bash ${CMAKE_SOURCE_DIR}/tests/nbdkit/test_filter.sh
                   $<TARGET_FILE:nbdkit_gostx_filter> $<TARGET_FILE:gostx_cli>)
  set_tests_properties(test_nbdkit PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600)
endif()
