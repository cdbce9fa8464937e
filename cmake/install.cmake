# `cmake --install BUILD [--prefix P]`: what a C user needs (included by
# CMakeLists.txt). GNUInstallDirs gives the folders: headers in include/,
# libgostx.so.0 and libgostx.a in lib/ (lib/<multiarch> under /usr on Debian),
# the command in bin/, gostx.pc in lib/pkgconfig/, the CMake package in
# lib/cmake/gostx/. The OpenSSL module and the nbdkit filter install from
# integrations/*/ into the folders those programs search.
include(CMakePackageConfigHelpers)

install(TARGETS gostx_shared gostx EXPORT gostxTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# gostx.h and every header under include/gostx/ (all public; lib/ holds the private ones).
install(DIRECTORY ${CMAKE_SOURCE_DIR}/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h")
if(TARGET gostx_cli)
  install(TARGETS gostx_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()

# pkg-config: `pkg-config --cflags --libs gostx` links the shared library,
# `--static` adds what libgostx.a needs besides.
set(GOSTX_PC_CFLAGS "")
set(GOSTX_PC_LIBS_PRIVATE "-pthread")
if(GOSTX_CUDA)
  # include/gostx/gpu.h declares the GPU calls only with GOSTX_CUDA; gpu_driver.c dlopens the driver.
  set(GOSTX_PC_CFLAGS "-DGOSTX_CUDA")
  string(APPEND GOSTX_PC_LIBS_PRIVATE " -ldl")
endif()
# libdir and includedir relative to ${prefix}, so a tree installed with
# `cmake --install --prefix` elsewhere, or moved, works through `pkg-config
# --define-prefix`. An absolute CMAKE_INSTALL_<dir> stays absolute, unless it
# lies under the prefix.
foreach(dir LIBDIR INCLUDEDIR)
  set(path "${CMAKE_INSTALL_${dir}}")
  if(NOT IS_ABSOLUTE "${path}")
    set(path "\${prefix}/${path}")
  else()
    string(REGEX REPLACE "/+$" "" install_prefix "${CMAKE_INSTALL_PREFIX}")
    string(LENGTH "${install_prefix}/" prefix_len)
    string(SUBSTRING "${path}/" 0 ${prefix_len} head)
    if(head STREQUAL "${install_prefix}/")
      string(SUBSTRING "${path}" ${prefix_len} -1 rest)
      set(path "\${prefix}/${rest}")
    endif()
  endif()
  set(GOSTX_PC_${dir} "${path}")
endforeach()
configure_file(${CMAKE_CURRENT_LIST_DIR}/gostx.pc.in ${CMAKE_BINARY_DIR}/gostx.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/gostx.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# CMake: find_package(gostx) gives gostx::gostx (shared) and gostx::gostx_static.
set(GOSTX_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/gostx)
install(EXPORT gostxTargets NAMESPACE gostx:: DESTINATION ${GOSTX_CMAKEDIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/gostxConfig.cmake.in
  ${CMAKE_BINARY_DIR}/gostxConfig.cmake INSTALL_DESTINATION ${GOSTX_CMAKEDIR})
# 0.x: a minor release may change the API (docs/API_CHANGES.md), so only the
# same major.minor is compatible.
write_basic_package_version_file(${CMAKE_BINARY_DIR}/gostxConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/gostxConfig.cmake ${CMAKE_BINARY_DIR}/gostxConfigVersion.cmake
        DESTINATION ${GOSTX_CMAKEDIR})
