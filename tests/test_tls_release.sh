#!/usr/bin/env bash
# lib/tls's test hooks (fixed hello randoms, ephemeral keys, signature
# nonces, the fault tests' switches) are built into gostx_test only, which
# the tests link: libgostx and the command have none (conn.h's
# GOSTX__TLS_HOOKS is a constant zero there), so nothing can steer them.
. "$(dirname "$0")/cli_common.sh" tls-release
command -v nm >/dev/null || { echo "nm not found: skipping"; exit 77; }
lib=$(dirname "$G")/libgostx.a
no_hooks() { ! nm "$1" 2>/dev/null | grep -q 'gostx__tls_config_test'; }
check "the command has lib/tls" bash -c "nm '$G' | grep -q ' gostx_tls_new$'"
check "the command has no TLS test hook" no_hooks "$G"
if [ -f "$lib" ]; then
  check "libgostx.a has lib/tls" bash -c "nm '$lib' 2>/dev/null | grep -q ' T gostx_tls_new$'"
  check "libgostx.a has no TLS test hook" no_hooks "$lib"
fi
finish
