"""gostx: Russian GOST cryptography at C speed (libgostx through cffi).

Hashes in the hashlib style (streebog256, streebog512, new), MGM AEAD in the
cryptography style (KuznyechikMGM, MagmaMGM), the GOST R 34.13 modes on
Kuznyechik / Magma key objects, XTS, GOST 28147-89, HMAC and KDFs, KExp15,
the gostx file format, batches of many streams, and GOST R 34.10-2012
signatures, VKO and KEG in the style of cryptography's ec module (PrivateKey,
PublicKey, Curve; key files in PKCS#8, encrypted or not; PKCS#12 files in
gostx.pkcs12). Every call takes any buffer-protocol object without
copying it and releases the GIL in C.

Exceptions: every one gostx raises itself is a GostxError: InvalidTag (a
tag or MAC did not verify), InvalidSignature (a signature did not verify),
FormatError (a malformed gostx file; also a ValueError), GostxValueError and
GostxTypeError (a wrong argument; also a ValueError / TypeError). Objects
with state (hashes, HMAC, streaming contexts, Reader, Writer) may be shared
between threads: the calls on one object take turns. copy.copy and
copy.deepcopy give independent copies.
"""
from ._native import GostxError, GostxTypeError, GostxValueError, InvalidSignature, InvalidTag, ffi, lib
from .aead import KuznyechikMGM, MagmaMGM
from .batch import (batch_cbc_decrypt, batch_cbc_encrypt, batch_ctr, batch_omac,
                    batch_xts_decrypt, batch_xts_encrypt)
from .cipher import (CBC, CFB, CTR, CTR_ACPKM, ECB, OFB, PAD_1, PAD_2, PAD_3, PAD_NONE,
                     Kuznyechik, Magma, ModeContext, OMACContext)
from .files import FormatError, Reader, Writer, decrypt_file, encrypt_file
from .files import open as open_file
from .gost89 import Gost89, Gost89Context
from .gost3410 import (Curve, PrivateKey, PublicKey, generate_private_key, load_der_private_key,
                       load_der_public_key, load_pem_private_key, load_pem_public_key)
from .hash import (HMAC, algorithms_available, algorithms_guaranteed, gost94, gost94_test,
                   hmac_streebog, new, streebog256, streebog512)
from .kdf import kdf_256, kdf_tree, kexp15, kimp15, pbkdf2
from . import cms, ocsp, pkcs11, pkcs12
from .xts import KuznyechikXTS

__version__ = ffi.string(lib.gostx_version()).decode()


def _warn_if_impl_not_honoured():
    # GOSTX_IMPL that names nothing (or a level this CPU lacks) falls back
    # silently in C; say so once, as the gostx command does on stderr.
    value, running = ffi.new("const char **"), ffi.new("const char **")
    r = lib.gostx_impl_requested(value, running)
    if r in (2, 3):  # GOSTX_IMPL_UNKNOWN, GOSTX_IMPL_UNSUPPORTED
        import warnings
        why = "not a level or implementation name" if r == 2 else "this CPU cannot run it"
        warnings.warn(f"GOSTX_IMPL={ffi.string(value[0]).decode(errors='replace')!r}: {why}; "
                      f"running {ffi.string(running[0]).decode()}", RuntimeWarning, stacklevel=3)


_warn_if_impl_not_honoured()


def implementations():
    """The implementation libgostx chose per primitive on this CPU."""
    algs = {"kuznyechik": lib.GOSTX_ALG_KUZNYECHIK, "magma": lib.GOSTX_ALG_MAGMA,
            "streebog": lib.GOSTX_ALG_STREEBOG, "mgm": lib.GOSTX_ALG_MGM,
            "gost3410": lib.GOSTX_ALG_GOST3410}
    return {n: ffi.string(lib.gostx_impl(a)).decode() for n, a in algs.items()}


__all__ = [
    "GostxError", "GostxValueError", "GostxTypeError", "InvalidTag", "FormatError",
    "streebog256", "streebog512", "gost94", "gost94_test", "new", "algorithms_available",
    "algorithms_guaranteed", "HMAC",
    "hmac_streebog",
    "KuznyechikMGM", "MagmaMGM", "Kuznyechik", "Magma", "ModeContext", "OMACContext",
    "ECB", "CBC", "CFB", "OFB", "CTR", "CTR_ACPKM", "PAD_NONE", "PAD_1", "PAD_2", "PAD_3",
    "KuznyechikXTS", "Gost89", "Gost89Context",
    "kdf_256", "kdf_tree", "pbkdf2", "kexp15", "kimp15",
    "encrypt_file", "decrypt_file", "open_file", "Reader", "Writer",
    "batch_ctr", "batch_cbc_encrypt", "batch_cbc_decrypt", "batch_omac",
    "batch_xts_encrypt", "batch_xts_decrypt", "implementations",
    "InvalidSignature", "Curve", "PrivateKey", "PublicKey", "generate_private_key",
    "load_pem_private_key", "load_der_private_key", "load_pem_public_key", "load_der_public_key",
]
