"""Streebog (GOST R 34.11-2012) and GOST R 34.11-94 in the hashlib style, and
HMAC-Streebog."""
import threading
from typing import Any

from ._native import (LONG, GostxTypeError, GostxValueError, Wiped, check, ffi, lib, nbytes, new_output,
                      rbuf, update_on_copy)

__all__ = ["streebog256", "streebog512", "gost94", "gost94_test", "new", "HMAC", "hmac_streebog",
           "algorithms_available", "algorithms_guaranteed"]


def _hash_buf(data):
    """rbuf for hashed data, with hashlib's TypeError for a str."""
    if type(data) is bytes:
        return data
    if isinstance(data, str):
        raise GostxTypeError("Strings must be encoded before hashing")
    return rbuf(data)


class _Hash:
    """A hashlib-compatible hash object over one C context. A lock held around
    every C call on the context makes one object safe to share between
    threads (cffi releases the GIL inside C); copy(), copy.copy and
    copy.deepcopy give an independent context."""

    _ctx: Any = None
    _ctype = ""  # the C context's pointer type
    _update: Any = None  # lib.gostx_..._update in subclasses (builtins: not bound as methods)
    _final: Any = None
    _clear: Any = None
    digest_size = 0
    block_size = 0
    name = ""

    def __init__(self, data=b"", *, usedforsecurity=True):
        self._lock = threading.Lock()
        self._ctx = ffi.new(self._ctype)
        self._init(self._ctx)
        if data is not None and (type(data) is not bytes or data):
            self.update(data)

    def update(self, data):
        """Hash the bytes of data (any bytes-like object) after what came before."""
        d = _hash_buf(data)
        with self._lock:
            update_on_copy(self._ctx, self._update, d, len(d))

    def copy(self):
        """An independent hash object with the state of this one."""
        cls = type(self)
        other = cls.__new__(cls)
        other._lock = threading.Lock()
        with self._lock:
            other._ctx = ffi.new(self._ctype, self._ctx[0])
        return other

    def __copy__(self):
        return self.copy()

    def __deepcopy__(self, memo):
        return self.copy()

    def __reduce_ex__(self, protocol):
        raise GostxTypeError(f"cannot pickle {type(self).__name__!r} object")

    def digest(self):
        """The digest of everything hashed so far (the object can go on)."""
        with self._lock:
            tmp = ffi.new(self._ctype, self._ctx[0])  # final wipes the context it ends
        res, p = new_output(self.digest_size)
        self._final(tmp, p)
        return res

    def hexdigest(self):
        """digest() as a string of hexadecimal digits."""
        return self.digest().hex()

    def __del__(self):
        if self._ctx is not None:
            self._clear(self._ctx)


class _Streebog(_Hash):
    """hashlib-compatible Streebog (GOST R 34.11-2012) object; the stdlib
    ``hmac`` module accepts the class as ``digestmod``."""

    _ctype = "gostx_streebog_ctx *"
    _update = lib.gostx_streebog_update
    _final = lib.gostx_streebog_final
    _clear = lib.gostx_streebog_clear
    block_size = 64

    def _init(self, ctx):
        check(lib.gostx_streebog_init(ctx, self.digest_size))


class streebog256(_Streebog):
    """Streebog-256 (GOST R 34.11-2012, 32-byte digest), as hashlib.new would make it."""
    digest_size = 32
    name = "streebog256"


class streebog512(_Streebog):
    """Streebog-512 (GOST R 34.11-2012, 64-byte digest), as hashlib.new would make it."""
    digest_size = 64
    name = "streebog512"


class _Gost94(_Hash):
    """hashlib-compatible GOST R 34.11-94 object (a legacy hash: use Streebog
    for anything new); the stdlib ``hmac`` module accepts the class as
    ``digestmod``."""

    _ctype = "gostx_gost94_ctx *"
    _update = lib.gostx_gost94_update
    _final = lib.gostx_gost94_final
    _clear = lib.gostx_gost94_clear
    digest_size = 32
    block_size = 32
    _sbox: Any = None  # the parameter set's S-box set (gostx_sbox_by_name)

    def _init(self, ctx):
        check(lib.gostx_gost94_init(ctx, lib.gostx_sbox_by_name(self._sbox)))


class gost94(_Gost94):
    """GOST R 34.11-94 with the CryptoPro parameter set: gost-engine's md_gost94."""
    name = "gost94"
    _sbox = b"cryptopro-3411-94"


class gost94_test(_Gost94):
    """GOST R 34.11-94 with the test parameter set of the standard's examples."""
    name = "gost94-test"
    _sbox = b"test-3411-94"


# The names new() takes as written (it also takes them in any case, with
# dashes and underscores left out or swapped).
_NAMES = {"streebog256": streebog256, "streebog512": streebog512, "gost94": gost94,
          "md_gost94": gost94, "gost94-test": gost94_test}


def _key(name):
    return name.lower().replace("-", "").replace("_", "")


_BY_KEY = {_key(n): cls for n, cls in _NAMES.items()}
algorithms_guaranteed = frozenset(_NAMES)
algorithms_available = algorithms_guaranteed  # all are built in, on every platform


def new(name, data=b"", *, usedforsecurity=True):
    """hashlib.new for Streebog and GOST R 34.11-94: 'streebog256',
    'streebog512', 'gost94' (CryptoPro set; also 'md_gost94'), 'gost94-test'
    (also with dashes or underscores, any case). usedforsecurity is accepted
    for hashlib's signature; every algorithm here is a security one."""
    if not isinstance(name, str):
        raise GostxTypeError(f"name must be a str, not {type(name).__name__!r}")
    try:
        cls = _BY_KEY[_key(name)]
    except KeyError:
        raise GostxValueError(f"unsupported hash type {name!r}; use one of "
                              f"{sorted(_NAMES)}") from None
    return cls(data, usedforsecurity=usedforsecurity)


class HMAC(Wiped):
    """HMAC-Streebog (RFC 7836) in C, with the stdlib hmac object's methods.
    digest_size 32 (HMAC_GOSTR3411_2012_256) or 64 (..._512). The key schedule
    is wiped on close(), context exit and garbage collection. One object is
    safe to share between threads (a lock around every C call on it)."""

    block_size = 64
    _clear = lib.gostx_hmac_clear

    def __init__(self, key, msg=None, digest_size=32):
        if digest_size not in (32, 64):
            raise GostxValueError(f"digest_size must be 32 or 64, got {digest_size!r}")
        self.digest_size = digest_size
        self.name = f"hmac-streebog{digest_size * 8}"
        self._lock = threading.Lock()
        self._h = ffi.new("gostx_hmac_ctx *")
        check(lib.gostx_hmac_init(self._h, digest_size, rbuf(key), nbytes(key)))
        if msg is not None:
            self.update(msg)

    def update(self, msg):
        """MAC the bytes of msg after what came before."""
        d = _hash_buf(msg)
        with self._lock:
            update_on_copy(self._live(), lib.gostx_hmac_update, d, len(d))

    def copy(self):
        """An independent HMAC object with the state of this one."""
        return self._duplicate()

    def digest(self):
        """The MAC of everything so far (the object can go on)."""
        tmp = self.copy()
        out = ffi.new("uint8_t[]", self.digest_size)
        try:
            check(lib.gostx_hmac_final(tmp._h, out))
        finally:
            tmp.close()
        return bytes(ffi.buffer(out))

    def hexdigest(self):
        """digest() as a string of hexadecimal digits."""
        return self.digest().hex()


def hmac_streebog(key, msg, digest_size=32):
    """One-shot HMAC-Streebog-256 (digest_size 32) or -512 (64)."""
    if digest_size not in (32, 64):
        raise GostxValueError(f"digest_size must be 32 or 64, got {digest_size!r}")
    d = _hash_buf(msg)
    if len(d) > LONG:
        with HMAC(key, msg, digest_size) as h:  # in pieces
            return h.digest()
    out = ffi.new("uint8_t[]", digest_size)
    check(lib.gostx_hmac(digest_size, rbuf(key), nbytes(key), d, len(d), out))
    return bytes(ffi.buffer(out))
