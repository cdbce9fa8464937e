"""Streebog (GOST R 34.11-2012) and GOST R 34.11-94 in the hashlib style, and
HMAC-Streebog."""
from ._native import Wiped, check, ffi, lib, nbytes, new_output, rbuf

__all__ = ["streebog256", "streebog512", "gost94", "gost94_test", "new", "HMAC", "hmac_streebog",
           "algorithms_available"]


class _Streebog:
    _ctx = None
    """hashlib-compatible Streebog object; the stdlib ``hmac`` module accepts
    the class as ``digestmod``."""

    digest_size = 0
    block_size = 64
    name = ""

    def __init__(self, data=None, *, usedforsecurity=True):
        self._ctx = ffi.new("gostx_streebog_ctx *")
        check(lib.gostx_streebog_init(self._ctx, self.digest_size))
        if data is not None:
            self.update(data)

    def update(self, data):
        d = rbuf(data)
        lib.gostx_streebog_update(self._ctx, d, len(d))  # fails only on NULL

    def copy(self):
        other = type(self).__new__(type(self))
        other._ctx = ffi.new("gostx_streebog_ctx *")
        ffi.memmove(other._ctx, self._ctx, ffi.sizeof("gostx_streebog_ctx"))
        return other

    def digest(self):
        tmp = ffi.new("gostx_streebog_ctx *", self._ctx[0])  # final wipes the context it ends
        res, p = new_output(self.digest_size)
        lib.gostx_streebog_final(tmp, p)
        return res

    def hexdigest(self):
        return self.digest().hex()

    def __del__(self):
        if self._ctx is not None:
            lib.gostx_streebog_clear(self._ctx)


class streebog256(_Streebog):
    digest_size = 32
    name = "streebog256"


class streebog512(_Streebog):
    digest_size = 64
    name = "streebog512"


class _Gost94:
    """hashlib-compatible GOST R 34.11-94 object (a legacy hash: use Streebog
    for anything new); the stdlib ``hmac`` module accepts the class as
    ``digestmod``."""

    _ctx = None
    digest_size = 32
    block_size = 32
    name = ""
    _sbox = None  # the parameter set's S-box set (gostx_sbox_by_name)

    def __init__(self, data=None, *, usedforsecurity=True):
        self._ctx = ffi.new("gostx_gost94_ctx *")
        check(lib.gostx_gost94_init(self._ctx, lib.gostx_sbox_by_name(self._sbox)))
        if data is not None:
            self.update(data)

    def update(self, data):
        d = rbuf(data)
        lib.gostx_gost94_update(self._ctx, d, len(d))  # fails only on NULL

    def copy(self):
        other = type(self).__new__(type(self))
        other._ctx = ffi.new("gostx_gost94_ctx *")
        ffi.memmove(other._ctx, self._ctx, ffi.sizeof("gostx_gost94_ctx"))
        return other

    def digest(self):
        tmp = ffi.new("gostx_gost94_ctx *", self._ctx[0])  # final wipes the context it ends
        res, p = new_output(self.digest_size)
        lib.gostx_gost94_final(tmp, p)
        return res

    def hexdigest(self):
        return self.digest().hex()

    def __del__(self):
        if self._ctx is not None:
            lib.gostx_gost94_clear(self._ctx)


class gost94(_Gost94):
    """GOST R 34.11-94 with the CryptoPro parameter set: gost-engine's md_gost94."""
    name = "gost94"
    _sbox = b"cryptopro-3411-94"


class gost94_test(_Gost94):
    """GOST R 34.11-94 with the test parameter set of the standard's examples."""
    name = "gost94-test"
    _sbox = b"test-3411-94"


_BY_NAME = {"streebog256": streebog256, "streebog512": streebog512, "gost94": gost94,
            "mdgost94": gost94, "gost94test": gost94_test}
algorithms_available = frozenset(_BY_NAME)


def new(name, data=None):
    """hashlib.new for Streebog and GOST R 34.11-94: 'streebog256',
    'streebog512', 'gost94' (CryptoPro set; also 'md_gost94'), 'gost94-test'
    (also with dashes or underscores, any case)."""
    key = name.lower().replace("-", "").replace("_", "")
    try:
        cls = _BY_NAME[key]
    except KeyError:
        raise ValueError(f"unsupported hash type {name!r}; use one of {sorted(_BY_NAME)}") from None
    return cls(data)


class HMAC(Wiped):
    """HMAC-Streebog (RFC 7836) in C, with the stdlib hmac object's methods.
    digest_size 32 (HMAC_GOSTR3411_2012_256) or 64 (..._512). The key schedule
    is wiped on close(), context exit and garbage collection."""

    block_size = 64
    _clear = staticmethod(lib.gostx_hmac_clear)

    def __init__(self, key, msg=None, digest_size=32):
        if digest_size not in (32, 64):
            raise ValueError("digest_size must be 32 or 64")
        self.digest_size = digest_size
        self.name = f"hmac-streebog{digest_size * 8}"
        self._h = ffi.new("gostx_hmac_ctx *")
        check(lib.gostx_hmac_init(self._h, digest_size, rbuf(key), nbytes(key)))
        if msg is not None:
            self.update(msg)

    def update(self, msg):
        check(lib.gostx_hmac_update(self._live(), rbuf(msg), nbytes(msg)))

    def copy(self):
        src = self._live()
        other = HMAC.__new__(HMAC)
        other.digest_size, other.name = self.digest_size, self.name
        other._h = ffi.new("gostx_hmac_ctx *")
        ffi.memmove(other._h, src, ffi.sizeof("gostx_hmac_ctx"))
        return other

    def digest(self):
        tmp = self.copy()
        out = ffi.new("uint8_t[]", self.digest_size)
        try:
            check(lib.gostx_hmac_final(tmp._h, out))
        finally:
            tmp.close()
        return bytes(ffi.buffer(out))

    def hexdigest(self):
        return self.digest().hex()



def hmac_streebog(key, msg, digest_size=32):
    """One-shot HMAC-Streebog-256 (digest_size 32) or -512 (64)."""
    if digest_size not in (32, 64):
        raise ValueError("digest_size must be 32 or 64")
    out = ffi.new("uint8_t[]", digest_size)
    check(lib.gostx_hmac(digest_size, rbuf(key), nbytes(key), rbuf(msg), nbytes(msg), out))
    return bytes(ffi.buffer(out))
