"""The compiled module and the few helpers every wrapper shares: buffers in
and out without copies, return codes to exceptions, key-length checks, and
the worker pools behind ``threads=``."""
import collections
import operator
import threading

from ._gostx import ffi, lib

__all__ = ["ffi", "lib", "InvalidTag", "GostxError", "check", "rbuf", "wbuf", "new_output", "nbytes",
           "need_len", "param", "pool_for", "Wiped", "output", "rptr", "take"]


class GostxError(Exception):
    """A libgostx call failed for a reason that is not the caller's argument."""


class InvalidTag(Exception):
    """Authentication failed: a tag or MAC did not match; nothing was released."""


def check(rc, what=""):
    """Raise the exception that matches a negative libgostx return code."""
    if rc == 0:
        return
    text = ffi.string(lib.gostx_strerror(rc)).decode()
    if what:
        text = f"{what}: {text}"
    if rc == lib.GOSTX_EAUTH:
        raise InvalidTag(text)
    if rc in (lib.GOSTX_EINVAL, lib.GOSTX_ELEN, lib.GOSTX_EPAD, lib.GOSTX_ESTATE):
        raise ValueError(text)
    raise GostxError(text)


_U8 = ffi.typeof("uint8_t[]")
_from_buffer = ffi.from_buffer


def rbuf(obj):
    """For a read-only argument: any object with the buffer protocol as
    something cffi passes as a pointer without copying, whose len() is its
    size in bytes. bytes go as they are (cffi hands C the object's own
    storage, the cheapest way in); the rest through ffi.from_buffer."""
    if type(obj) is bytes:
        return obj
    return _from_buffer(_U8, obj)


def rptr(obj):
    """As rbuf, but always a cdata (for pointer arithmetic)."""
    return _from_buffer(_U8, obj)


def wbuf(obj):
    """As rbuf, for a writable buffer (bytearray, memoryview, numpy, mmap)."""
    return _from_buffer(_U8, obj, True)


def _uninitialized_bytes_maker():
    """CPython's PyBytes_FromStringAndSize(NULL, n): a new bytes object whose
    contents are not initialised (ctypes, part of the standard library)."""
    import ctypes
    fn = ctypes.pythonapi.PyBytes_FromStringAndSize
    fn.restype = ctypes.py_object
    fn.argtypes = (ctypes.c_void_p, ctypes.c_ssize_t)
    return fn


_uninitialized_bytes = _uninitialized_bytes_maker()
# Below this size bytes(n) is cheaper than the ctypes call (~0.8 us); above
# it, zero-filling the result costs more (a 1 MiB memset is ~1.5 % of a
# Kuznyechik-CTR call of that size, and a second pass over the memory).
_UNINIT_MIN = 64 * 1024


def new_output(n):
    """A fresh bytes object of n bytes and a pointer to fill it before it is
    returned: the C call writes straight into the result, which nobody else
    holds yet (what a C extension does with PyBytes_FromStringAndSize(NULL, n)),
    so one-shot calls cost no extra copy. Every caller has C write all n bytes
    before the object is returned, and drops it when the call fails; bytes(n)
    of n >= 1 is always a new object (only b'' is shared, and nothing is
    written to it)."""
    out = _uninitialized_bytes(None, n) if n >= _UNINIT_MIN else bytes(n)
    return out, _from_buffer(_U8, out)


def output(out, n):
    """(result, pointer): a new bytes of n bytes, or the caller's writable
    buffer out (at least n bytes), returned as the result."""
    if out is None:
        return new_output(n)
    p = _from_buffer(_U8, out, True)
    if len(p) < n:
        raise ValueError(f"out must hold at least {n} bytes, got {len(p)}")
    return out, p


def take(buf, n=None):
    """bytes of the first n bytes of a cdata buffer, which is then wiped: the
    buffer held plaintext or key material and goes back to the allocator."""
    n = len(buf) if n is None else n
    res = bytes(ffi.buffer(buf, n))
    lib.gostx_memzero(buf, n)
    return res


def need_len(name, value, *lengths):
    """ValueError naming the accepted length(s) unless len(value) is one of them."""
    n = memoryview(value).nbytes
    if n not in lengths:
        want = " or ".join(str(x) for x in lengths)
        raise ValueError(f"{name} must be {want} bytes, got {n}")
    return n


def param(name, value, default, lo, hi=None, unit=" bytes"):
    """value, or default when value is None; ValueError unless lo <= value
    (<= hi): 0 is a value like any other, never a stand-in for the default."""
    if value is None:
        return default
    value = operator.index(value)
    if value < lo or (hi is not None and value > hi):
        bound = f"{lo}..{hi}" if hi is not None else f">= {lo}"
        raise ValueError(f"{name} must be {bound}{unit}, got {value}")
    return value


def nbytes(obj):
    return memoryview(obj).nbytes


# Pools by size, the most recently used last. Each is an ffi.gc cdata: a pool
# dropped from here is freed (its threads joined) once no call still holds it,
# so the threads of a process stay bounded however many sizes are asked for.
_pools = collections.OrderedDict()
_pools_lock = threading.Lock()
_POOLS_KEPT = 4
_POOL_MAX_THREADS = 1024  # the library's cap (lib/bulk/pool.c); more is refused, not cut


def pool_for(threads):
    """A pool of ``threads`` workers (0 = one per CPU), shared by the calls
    that ask for that size; NULL (the calling thread alone) for threads=1 or None."""
    if threads is None:
        return ffi.NULL
    threads = operator.index(threads)
    if not 0 <= threads <= _POOL_MAX_THREADS:
        raise ValueError(f"threads must be 0..{_POOL_MAX_THREADS} (0 = one per CPU), got {threads}")
    if threads == 1:
        return ffi.NULL
    with _pools_lock:
        pool = _pools.pop(threads, None)
        if pool is None:
            raw = lib.gostx_pool_new(threads)
            if raw == ffi.NULL:
                raise GostxError("cannot start worker threads")
            pool = ffi.gc(raw, lib.gostx_pool_free)
        _pools[threads] = pool
        while len(_pools) > _POOLS_KEPT:
            _pools.popitem(last=False)
        return pool


class Wiped:
    """Owner of one C object holding secrets (self._h): close(), context exit
    and garbage collection call the matching gostx_*_clear exactly once."""

    _h = None
    _clear = None  # staticmethod(lib.gostx_..._clear) in subclasses

    def close(self):
        h, self._h = self._h, None
        if h is not None:
            self._clear(h)

    def __del__(self):
        self.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _live(self):
        if self._h is None:
            raise ValueError(f"{type(self).__name__} is closed or finalized")
        return self._h
