# libgostx-xmldsig (integrations/xmldsig/): XML signatures over libxml2,
# built when libxml2's headers are present; libgostx itself never links
# libxml2. With it, `gostx xml` (cli/xml/) is built into the command.
# GOSTX_XMLDSIG: AUTO (default: build if found), ON (fail if not found), OFF.
# A GOSTX_LIB_ONLY build (the Python package's) makes the library alone,
# and only when ON.
set(GOSTX_XMLDSIG AUTO CACHE STRING "Build the XML signatures library and `gostx xml` (AUTO, ON, OFF)")
if(GOSTX_XMLDSIG STREQUAL "OFF" OR (NOT TARGET gostx_cli AND NOT GOSTX_LIB_ONLY) OR
   (GOSTX_LIB_ONLY AND NOT GOSTX_XMLDSIG STREQUAL "ON"))
  return()
endif()
# A cross build finds the build machine's libxml2 (scripts/check_cross.sh:
# ld refused the x86-64 libxml2.so for s390x): AUTO builds it natively only.
if(CMAKE_CROSSCOMPILING AND GOSTX_XMLDSIG STREQUAL "AUTO")
  message(STATUS "xmldsig: not built (cross build; -DGOSTX_XMLDSIG=ON with the target's libxml2)")
  return()
endif()
find_package(LibXml2 QUIET)
if(NOT LibXml2_FOUND)
  if(GOSTX_XMLDSIG STREQUAL "ON")
    message(FATAL_ERROR "GOSTX_XMLDSIG=ON but libxml2 was not found (Debian: apt-get install libxml2-dev)")
  endif()
  message(STATUS "xmldsig: not built (no libxml2; apt-get install libxml2-dev)")
  return()
endif()
message(STATUS "xmldsig: libgostx-xmldsig and `gostx xml`")
file(GLOB _gostx_xmldsig_src CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/integrations/xmldsig/*.c)
add_library(gostx_xmldsig STATIC ${_gostx_xmldsig_src})
set_target_properties(gostx_xmldsig PROPERTIES OUTPUT_NAME gostx-xmldsig POSITION_INDEPENDENT_CODE ON)
target_include_directories(gostx_xmldsig PUBLIC ${CMAKE_SOURCE_DIR}/integrations/xmldsig)
target_link_libraries(gostx_xmldsig PUBLIC gostx LibXml2::LibXml2)
if(GOSTX_LIB_ONLY)
  return()
endif()
file(GLOB _gostx_xml_cli CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/cli/xml/*.c)
target_sources(gostx_cli PRIVATE ${_gostx_xml_cli})
target_compile_definitions(gostx_cli PRIVATE GOSTX_WITH_XMLDSIG=1)
target_link_libraries(gostx_cli PRIVATE gostx_xmldsig)
# tests/test_xml_vectors.sh's helper: one transform over a file (the SMEV
# recommendations' and W3C's published cases), beside gostx in the build.
add_executable(xml_transform ${CMAKE_SOURCE_DIR}/tests/xmldsig/xml_transform.c)
target_link_libraries(xml_transform PRIVATE gostx_xmldsig)
# The streaming exclusive c14n against libxml2's, byte for byte (a C test
# that needs libxml2, so registered here rather than by tests/'s glob).
if(TARGET gostx_testsupport)
  add_executable(test_c14n_stream ${CMAKE_SOURCE_DIR}/tests/xmldsig/test_c14n_stream.c)
  target_include_directories(test_c14n_stream PRIVATE ${CMAKE_SOURCE_DIR}/tests/support)
  target_link_libraries(test_c14n_stream PRIVATE gostx_xmldsig gostx_testsupport)
  add_test(NAME test_c14n_stream COMMAND test_c14n_stream)
  # XMLDSig signed by an external key (a token's callbacks)
  add_executable(test_xmldsig_external ${CMAKE_SOURCE_DIR}/tests/xmldsig/test_xmldsig_external.c)
  target_include_directories(test_xmldsig_external PRIVATE ${CMAKE_SOURCE_DIR}/tests/support)
  target_link_libraries(test_xmldsig_external PRIVATE gostx_xmldsig gostx_testsupport)
  add_test(NAME test_xmldsig_external COMMAND test_xmldsig_external)
  # XML's base64 (doc.c over gostx/base64.h): vectors and a model of its rules
  add_executable(test_xd_base64 ${CMAKE_SOURCE_DIR}/tests/xmldsig/test_xd_base64.c)
  target_include_directories(test_xd_base64 PRIVATE ${CMAKE_SOURCE_DIR}/tests/support)
  target_link_libraries(test_xd_base64 PRIVATE gostx_xmldsig gostx_testsupport)
  add_test(NAME test_xd_base64 COMMAND test_xd_base64)
endif()
