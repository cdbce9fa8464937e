/* sizeof of every public struct, for bindings that allocate them without
 * the C headers (cffi ABI mode, ctypes, other languages). One line per type;
 * tests/test_api.c checks each against the compiler's sizeof. */
#include "gostx.h"

#define SIZEOF(name) \
  size_t gostx_sizeof_##name(void) { return sizeof(gostx_##name); }

SIZEOF(kuz_key)
SIZEOF(magma_key)
SIZEOF(cipher)
SIZEOF(mode_ctx)
SIZEOF(omac_ctx)
SIZEOF(mgm_ctx)
SIZEOF(xts_key)
SIZEOF(gost89_ctx)
SIZEOF(streebog_ctx)
SIZEOF(hmac_ctx)
SIZEOF(gost94_ctx)
SIZEOF(file)
SIZEOF(file_header)
SIZEOF(file_stream)
SIZEOF(luks)
SIZEOF(luks_header)
SIZEOF(stream)
SIZEOF(batch_params)
