/* gostx: the whole public C API. Include this one header.
 * The pieces live in include/gostx/ by area, one owner each. */
#ifndef GOSTX_H
#define GOSTX_H

#include "gostx/common.h"
#include "gostx/base64.h"
#include "gostx/der.h"
#include "gostx/cipher.h"
#include "gostx/modes.h"
#include "gostx/aead.h"
#include "gostx/xts.h"
#include "gostx/keywrap.h"
#include "gostx/gost89.h"
#include "gostx/hash.h"
#include "gostx/gost94.h"
#include "gostx/kdf.h"
#include "gostx/esp.h"
#include "gostx/bulk.h"
#include "gostx/batch.h"
#include "gostx/file.h"
#include "gostx/luks.h"
#include "gostx/gost3410.h"
#include "gostx/x509.h"
#include "gostx/x509_write.h"
#include "gostx/ocsp.h"
#include "gostx/x509_crl.h"
#include "gostx/tls.h"
#include "gostx/cms.h"
#include "gostx/cms_ts.h"
#include "gostx/cades.h"
#include "gostx/tsa.h"
#include "gostx/pkcs12.h"
#include "gostx/keycont.h"
#include "gostx/pkcs11.h"
#ifdef GOSTX_CUDA /* defined for users of a -DGOSTX_CUDA=ON build */
#include "gostx/gpu.h"
#endif

#endif
