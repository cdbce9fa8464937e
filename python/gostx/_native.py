"""The compiled module and the few helpers every wrapper shares: buffers in
and out without copies, return codes to exceptions, key-length checks, and
the worker pools behind ``threads=``."""
import collections
import contextlib
import enum
import functools
import mmap
import operator
import threading
import time
from typing import Any

from ._gostx import ffi, lib

__all__ = ["ffi", "lib", "LibStatus", "InvalidTag", "InvalidSignature", "GostxError", "GostxValueError", "GostxTypeError", "check", "rbuf", "wbuf", "new_output", "nbytes",
           "need_len", "param", "pool_for", "Wiped", "not_a_buffer", "output", "rptr", "take", "LONG",
           "pieces", "staged", "update_on_copy", "context_copy", "detached", "own_copy",
           "SharedKey", "holding", "held"]


class GostxError(Exception):
    """The base of every exception gostx raises itself; raised as it is when a
    libgostx call fails for a reason that is not the caller's argument."""


class InvalidTag(GostxError):
    """Authentication failed: a tag or MAC did not match; nothing was released."""


class InvalidSignature(GostxError):
    """A signature did not verify (wrong length, r or s out of range, or not
    matching the data and public key)."""


class GostxValueError(GostxError, ValueError):
    """A wrong argument value (a length, a mode, a parameter out of range), or
    a call on a closed or finished object; also a ValueError, as before."""


class GostxTypeError(GostxError, TypeError):
    """An argument of the wrong type (a str where bytes are needed); also a
    TypeError, as hashlib raises."""


class LibStatus(enum.IntEnum):
    """The base of the modules' Status enums (x509, ocsp, cms): str() and
    text are the library's text of the status, from the C function a
    subclass names as _text_of (a staticmethod: an int to a char *)."""

    @property
    def text(self):
        """The library's text of the status ("validity: certificate has expired")."""
        return ffi.string(self._text_of(self)).decode()

    def __str__(self):
        return self.text


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
        raise GostxValueError(text)
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
    try:
        return _from_buffer(_U8, obj)
    except TypeError:
        raise not_a_buffer(obj) from None


def rptr(obj):
    """As rbuf, but always a cdata (for pointer arithmetic); one from rbuf as it is."""
    if isinstance(obj, ffi.CData):
        return obj
    try:
        return _from_buffer(_U8, obj)
    except TypeError:
        raise not_a_buffer(obj) from None


def wbuf(obj):
    """As rbuf, for a writable buffer (bytearray, memoryview, numpy, mmap)."""
    try:
        return _from_buffer(_U8, obj, True)
    except BufferError:
        raise _ReadOnlyBuffer(f"out must be a writable buffer, not a read-only "
                              f"{type(obj).__name__!r}") from None
    except TypeError:
        raise not_a_buffer(obj, True) from None


class _ReadOnlyBuffer(GostxTypeError, BufferError):
    """A read-only buffer given for output (a BufferError, as cffi raised)."""


def not_a_buffer(obj, writable=False):
    """The TypeError for an argument that is not a (writable) bytes-like object."""
    if isinstance(obj, str):
        return GostxTypeError("Strings must be encoded before use (a bytes-like object is "
                              "required, not 'str')")
    kind = "a writable bytes-like object" if writable else "a bytes-like object"
    return GostxTypeError(f"{kind} is required, not {type(obj).__name__!r}")


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
    p = wbuf(out)
    if len(p) < n:
        raise GostxValueError(f"out must hold at least {n} bytes, got {len(p)}")
    return out, p


def take(buf, n=None):
    """bytes of the first n bytes of a cdata buffer, which is then wiped: the
    buffer held plaintext or key material and goes back to the allocator."""
    n = len(buf) if n is None else n
    res = bytes(ffi.buffer(buf, n))
    lib.gostx_memzero(buf, n)
    return res


# Long calls run in pieces (issue 48 item 15). cffi releases the GIL in C and
# Python runs a signal handler only between bytecodes, so one long C call
# holds Ctrl-C back until it returns; between pieces the interpreter runs, and
# KeyboardInterrupt comes within about _PIECE_SECONDS. Calls on at most LONG
# bytes stay one C call (no cost on small calls).
LONG = 1 << 20
_PIECE_SECONDS = 0.02
_PIECE_MAX = 1 << 30


def pieces(n, align=1, first=LONG):
    """(offset, length) of consecutive pieces covering n bytes, each but the
    last a multiple of align. The first is about ``first`` bytes; then each
    is sized from how long the one before took, so that one takes about
    _PIECE_SECONDS whatever the algorithm, implementation or thread count."""
    size = max(align, first - first % align)
    off = 0
    while off < n:
        m = min(size, n - off)
        t = time.perf_counter()
        yield off, m
        off += m
        dt = time.perf_counter() - t
        if m == size:
            if dt < _PIECE_SECONDS / 2 and size < _PIECE_MAX:
                size *= 2
            elif dt > 2 * _PIECE_SECONDS and size >= 2 * align:
                size //= 2
                size -= size % align


def _scratch(n):
    """n bytes of fresh anonymous memory on transparent huge pages where the
    kernel has them: first-touch page faults of 4 KiB pages would cost more
    than the copy out of it (a 64 MiB copy ~8 ms; faulting it in ~40 ms)."""
    m = mmap.mmap(-1, n, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    if hasattr(mmap, "MADV_HUGEPAGE"):
        try:
            m.madvise(mmap.MADV_HUGEPAGE)
        except OSError:
            pass
    return _from_buffer(_U8, m)


class _Staged:
    """The output of a call that runs in pieces, see staged()."""

    __slots__ = ("res", "p", "dst", "n", "hi", "own")

    def __init__(self, out, n, scratch):
        self.n = self.hi = n
        self.dst = None
        self.own = out is None  # p is the fresh result: drop() wipes it
        if out is None:
            self.res, self.p = new_output(n)
        elif n <= LONG and not scratch:  # one C call, never interrupted half-way: straight into out
            self.res, self.p = output(out, n)
        else:
            self.res, self.dst = output(out, n)
            # Its own mapping, unmapped (its pages back to the kernel, which
            # clears them before any reuse) once p is dropped: no wipe needed.
            self.p = _scratch(n)

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is not None:
            self.drop()

    def done(self, n=None):
        """The result, once every piece is written: the caller's out gets the
        bytes only now (n of them, default all)."""
        if self.dst is not None:
            ffi.memmove(self.dst, self.p, self.n if n is None else n)
            self.p = None
        return self.res

    def pieces(self, n, align=1):
        """pieces(n, align), noting how far the pieces went (what drop wipes)."""
        self.hi = 0
        for off, m in pieces(n, align):
            self.hi = min(self.n, off + m + align)  # + align: ECB/CBC contexts' held-back block
            yield off, m

    def drop(self):
        """On failure or KeyboardInterrupt: wipe what the pieces wrote (it may
        be plaintext); the caller's buffer was never written. Only that part:
        touching the rest of a large scratch buffer would delay Ctrl-C. A
        scratch mapping goes back to the kernel as a whole instead."""
        if self.own:
            lib.gostx_memzero(self.p, self.hi)

    def drop_all(self):
        """drop() of everything: abandon= of a detached call, which wrote it all."""
        self.hi = self.n
        self.drop()


def staged(out, n, scratch=False):
    """Where a call in pieces writes: a new bytes object (out None), returned
    only when the call completes, or for the caller's out (of more than LONG
    bytes) a scratch buffer copied into out at the end. So an interrupted
    call leaves out and the input (out may be the input) as they were.
    scratch: through a scratch buffer whatever n (a call in pieces on fewer
    bytes, e.g. after long associated data)."""
    return _Staged(out, n, scratch)


@contextlib.contextmanager
def context_copy(ctx):
    """A copy of the C context *ctx to update in pieces; it replaces *ctx only
    when the block completes, so an interrupted update leaves ctx as it was."""
    tmp = ffi.new(ffi.typeof(ctx), ctx[0])
    size = ffi.sizeof(tmp[0])
    try:
        yield tmp
        ffi.memmove(ctx, tmp, size)
    finally:
        lib.gostx_memzero(tmp, size)


def update_on_copy(ctx, fn, d, n, align=1):
    """A streaming update, fn(ctx, pointer, length), over the n bytes of d:
    at once up to LONG, else in pieces of align bytes' multiples on a
    context_copy of *ctx (an interrupted update leaves ctx as it was).
    Raises on a failing return code."""
    if n <= LONG:
        check(fn(ctx, d, n))
        return
    with context_copy(ctx) as tmp:
        p = rptr(d)
        for off, m in pieces(n, align):
            check(fn(tmp, p + off, m))


def detached(fn, *args, abandon=None, cancel=None, left=None):
    """fn(*args) on a thread of its own, for a long C call that cannot run in
    pieces (a key derivation of many iterations, a threaded call whose state
    cannot start mid-message): this thread waits interruptibly, and a
    KeyboardInterrupt leaves the call to finish alone, after which abandon()
    (wiping its outputs) runs; the process exits once it has. So args must be
    the call's own (fresh outputs, copies of keys and small inputs, see
    own_copy); a large input is only read, and the buffer export cffi holds
    keeps it alive until the call returns. cancel(), if given, is called on
    the interruption (to make the call end soon); left, a list, gets an item
    when this thread leaves the call (abandon() then releases what the call
    still uses, such as descriptors, once it ends)."""
    result = []
    left = [] if left is None else left
    lock = threading.Lock()
    finished = threading.Event()

    def run():
        try:
            try:
                rc = fn(*args)
            except BaseException as e:  # handed to the caller, as a call on its thread would
                rc = e
            with lock:
                result.append(rc)
                gone = bool(left)
            if gone and abandon is not None:
                abandon()
        finally:
            finished.set()

    # Not a daemon: at exit the interpreter waits for the call. Waited for on
    # an Event, not join(): an interrupted join() can mark a running thread
    # as ended (CPython 3.11), and the exit would not wait.
    # Waited for in short slices: a process-directed SIGINT may be taken by
    # another thread (the call's own, or one of the pool's), and then no
    # signal wakes this thread's lock wait; each slice's end runs Python's
    # handlers, so KeyboardInterrupt comes within one slice.
    threading.Thread(target=run, name="gostx-detached").start()
    try:
        while not finished.wait(0.05):
            pass
    except BaseException:
        if cancel is not None:
            cancel()
        with lock:
            left.append(True)
            done = bool(result)
        if done and abandon is not None:
            abandon()
        raise
    if isinstance(result[0], BaseException):
        raise result[0]
    return result[0]


def own_copy(obj):
    """A copy of the C object *obj (a key schedule) for a detached call, so
    that closing the caller's key object cannot wipe it under the call; the
    copy is wiped when it is collected."""
    copy = ffi.new(ffi.typeof(obj), obj[0])
    size = ffi.sizeof(copy[0])
    return ffi.gc(copy, lambda c: lib.gostx_memzero(c, size))


def need_len(name, value, *lengths):
    """ValueError naming the accepted length(s) unless len(value) is one of them."""
    n = nbytes(value)
    if n not in lengths:
        want = " or ".join(str(x) for x in lengths)
        raise GostxValueError(f"{name} must be {want} bytes, got {n}")
    return n


def param(name, value, default, lo, hi=None, unit=" bytes"):
    """value, or default when value is None; ValueError unless lo <= value
    (<= hi): 0 is a value like any other, never a stand-in for the default."""
    if value is None:
        return default
    value = operator.index(value)
    if value < lo or (hi is not None and value > hi):
        bound = f"{lo}..{hi}" if hi is not None else f">= {lo}"
        raise GostxValueError(f"{name} must be {bound}{unit}, got {value}")
    return value


def nbytes(obj):
    """Size in bytes of a bytes-like object."""
    try:
        return memoryview(obj).nbytes
    except TypeError:
        raise not_a_buffer(obj) from None


# Pools by size, the most recently used last. Each is an ffi.gc cdata: a pool
# dropped from here is freed (its threads joined) once no call still holds it,
# so the threads of a process stay bounded however many sizes are asked for.
_pools: "collections.OrderedDict[int, Any]" = collections.OrderedDict()
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
        raise GostxValueError(f"threads must be 0..{_POOL_MAX_THREADS} (0 = one per CPU), got {threads}")
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
    and garbage collection call the matching gostx_*_clear exactly once.

    Objects whose C state changes with use (streaming contexts, MACs) set
    self._lock, a threading.Lock held around every C call on self._h (cffi
    releases the GIL inside C, so two threads would otherwise run in the same
    context at once), as hashlib's objects do; close() takes it too, so it
    waits for a running call. Key objects, which C only reads, are
    SharedKey: no lock, their calls run at once. copy.copy / copy.deepcopy
    give an independent copy of the C object (the object's copy()), never a
    second owner of one."""

    _h: Any = None
    _lock: Any = None
    _clear: Any = None  # lib.gostx_..._clear in subclasses (a builtin: not bound as a method)

    def close(self):
        """Wipe and release the C object; later calls raise ValueError. Safe to call twice."""
        lock = self._lock
        if lock is None:
            self._close()
        else:
            with lock:
                self._close()

    def _close(self):
        h, self._h = self._h, None
        if h is not None:
            self._clear(h)

    def __del__(self):
        self._close()  # nobody else holds the object: no lock needed

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _live(self):
        if self._h is None:
            raise self._closed_error()
        return self._h

    def _closed_error(self):
        return GostxValueError(f"{type(self).__name__} is closed or finalized")

    def _duplicate(self):
        """A new object of this type with its own copy of the C object."""
        cls = type(self)
        other = cls.__new__(cls)
        other.__dict__.update(self.__dict__)
        lock = self._lock
        if lock is not None:
            other._lock = threading.Lock()
            with lock:
                h = self._live()
                other._h = ffi.new(ffi.typeof(h), h[0])
        else:
            h = self._live()
            other._h = ffi.new(ffi.typeof(h), h[0])
        other._copied()
        return other

    def _copied(self):
        """Hook: make per-object scratch of a fresh copy its own."""

    def __copy__(self):
        return self._duplicate()

    def __deepcopy__(self, memo):
        return self._duplicate()

    def __reduce_ex__(self, protocol):
        raise GostxTypeError(f"cannot pickle {type(self).__name__} objects: "
                             "they hold secrets in C memory")


_get_ident = threading.get_ident


class SharedKey(Wiped):
    """A Wiped key object that C only reads, used by any number of threads at
    once (no lock), whose close() must not wipe the key under a running call
    (cffi releases the GIL in C): each public method is @holding (or, on
    the hot paths of small calls, calls _hold and _release itself), which
    counts it in self._calls (one thread id per running call) and refuses to
    start once close() is called; the key is wiped by close() when no call
    runs, else by the last running call as it ends. So a call begun before
    close() returns the right result, and one after it raises ValueError.

    No lock: list.append / list.remove are atomic, and the order of the
    steps is what makes it sound. A call appends, then reads _closed; a
    wiper reads _closed (set), then sees _calls empty. A call that read
    _closed unset did so before close() set it, hence appended before any
    wiper looks at _calls: no wipe while it runs. The wipe itself takes the
    key out of the object atomically (dict.pop), so two wipers wipe once."""

    _closed = False

    def __new__(cls, *args, **kwargs):
        self = super().__new__(cls)
        self._calls = []
        return self

    def close(self):
        """Refuse new calls; wipe and release the C key now, or when the calls
        running on other threads end. Safe to call twice."""
        self._closed = True
        if not self._calls:
            self._wipe()

    def _wipe(self):
        h = self.__dict__.pop("_h", None)
        if h is not None:
            self._clear(h)

    def __del__(self):
        self._wipe()  # nobody holds the object: no call runs on it

    def _hold(self):
        """Count a call on this thread (returns the id _release takes);
        ValueError once close() is called, unless this thread runs a call
        already (this is an inner step of it)."""
        ident = _get_ident()
        calls = self._calls
        calls.append(ident)
        if self._closed and calls.count(ident) == 1:
            self._release(ident)
            raise self._closed_error()
        return ident

    def _release(self, ident):
        calls = self._calls
        calls.remove(ident)
        if self._closed and not calls:
            self._wipe()

    def _live(self):
        """The C key, for a call that holds it (a call that does not is a bug
        here, caught by any test of the method)."""
        h = self._h
        if h is None:
            raise self._closed_error()
        if not self._calls:
            raise RuntimeError(f"{type(self).__name__}: the key used outside a @holding call")
        return h

    def _fresh(self):
        """A new object of this type with this one's attributes, no calls and
        not closed (its own _h is the caller's to set)."""
        other = object.__new__(type(self))
        other.__dict__.update(self.__dict__)
        other._calls = []
        other.__dict__.pop("_closed", None)
        return other

    def _duplicate(self):
        with held(self) as (h,):
            other = self._fresh()
            other._h = ffi.new(ffi.typeof(h), h[0])
            return other


def holding(method):
    """Decorator of a SharedKey's public methods: the call holds the key (see
    SharedKey)."""
    @functools.wraps(method)
    def held_call(self, *args, **kwargs):
        ident = self._hold()
        try:
            return method(self, *args, **kwargs)
        finally:
            self._release(ident)
    return held_call


@contextlib.contextmanager
def held(*keys):
    """The C keys of SharedKey objects, held for the with-block (a call on
    other objects that uses them: a context's key schedule, a batch)."""
    idents = []
    try:
        for k in keys:
            idents.append(k._hold())
        yield [k._h for k in keys]
    finally:
        for k, ident in zip(keys, idents):
            k._release(ident)
