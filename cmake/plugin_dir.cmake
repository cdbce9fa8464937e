# gostx_plugin_dir(VAR PKG PKGVAR FALLBACK DOC): the cache path VAR where a
# module belongs to another program (OpenSSL's modulesdir, nbdkit's
# filterdir): the user's value, else that package's pkg-config variable,
# else FALLBACK under our libdir. Those folders are the host program's, not
# under CMAKE_INSTALL_PREFIX.
function(gostx_plugin_dir var pkg pkgvar fallback doc)
  set(${var} "" CACHE PATH "${doc}")
  set(dir "${${var}}")
  if(NOT dir)
    find_package(PkgConfig QUIET)
    if(PKG_CONFIG_FOUND)
      pkg_get_variable(dir ${pkg} ${pkgvar})
    endif()
  endif()
  if(NOT dir)
    set(dir ${CMAKE_INSTALL_FULL_LIBDIR}/${fallback})
  endif()
  set(${var} "${dir}" PARENT_SCOPE)
endfunction()
