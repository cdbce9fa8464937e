"""The gostx file format (docs/FORMAT.md), the one `gostx enc` / `gostx dec`
write and read: whole files through the library's parallel pipeline, and
file-like writer/reader objects for streams."""
import errno
import io
import os
import secrets
import stat
import tempfile
import threading
import warnings

from ._native import (GostxError, GostxTypeError, GostxValueError, InvalidTag, check, detached, ffi, lib, nbytes,
                      pool_for, rbuf, wbuf)

__all__ = ["encrypt_file", "decrypt_file", "open", "Writer", "Reader", "FormatError"]

_ALGS = {"kuznyechik": lib.GOSTX_ALG_KUZNYECHIK, "magma": lib.GOSTX_ALG_MAGMA}
_HEADER = lib.GOSTX_FILE_HEADER_LEN


class FormatError(GostxError, ValueError):
    """Not a gostx file, or a malformed / truncated one."""


def _secret(key, passphrase):
    """(kdf, secret bytes) from exactly one of key (32 bytes) or passphrase."""
    if (key is None) == (passphrase is None):
        raise GostxValueError("give exactly one of key= (32 bytes) or passphrase=")
    if key is not None:
        if nbytes(key) != 32:
            raise GostxValueError(f"key must be 32 bytes, got {nbytes(key)}")
        return lib.GOSTX_FILE_KDF_RAW, key
    if isinstance(passphrase, str):
        passphrase = passphrase.encode()
    return lib.GOSTX_FILE_KDF_PBKDF2, passphrase


def _keyed(fn, ct, before, secret, after):
    """fn(ct, *before, secret pointer, secret length, *after) on a thread of its
    own, so Ctrl-C stops the caller during a passphrase's PBKDF2: with a copy
    of the secret, wiped afterwards, and ct wiped if the caller was interrupted."""
    n = nbytes(secret)
    copy = ffi.new("uint8_t[]", max(1, n))
    ffi.memmove(copy, rbuf(secret), n)

    def run():
        try:
            return fn(ct, *before, copy, n, *after)
        finally:
            lib.gostx_memzero(copy, n)
    return detached(run, abandon=lambda: lib.gostx_file_clear(ct))


def _ct_encrypt(key, passphrase, alg, chunk_size, iterations):
    kdf, secret = _secret(key, passphrase)
    if alg not in _ALGS:
        raise GostxValueError(f"alg must be 'kuznyechik' or 'magma', got {alg!r}")
    ct = ffi.new("gostx_file *")
    rc = _keyed(lib.gostx_file_init_encrypt, ct, (_ALGS[alg], kdf, chunk_size, iterations), secret,
                (ffi.NULL,))
    if rc:
        lib.gostx_file_clear(ct)
        check(rc, "file parameters (chunk_size 1 KiB..64 MiB, iterations 1..2^24)")
    return ct


def _ct_decrypt(header, key, passphrase):
    _, secret = _secret(key, passphrase)
    ct = ffi.new("gostx_file *")
    reason = ffi.new("char **")
    rc = _keyed(lib.gostx_file_init_decrypt, ct, (bytes(header), nbytes(header)), secret,
                (ffi.cast("const char **", reason),))
    if rc:
        lib.gostx_file_clear(ct)
    if rc == lib.GOSTX_EFORMAT:
        raise FormatError(ffi.string(reason[0]).decode() if reason[0] else "bad header")
    if rc == lib.GOSTX_EAUTH:
        raise InvalidTag("wrong key or passphrase, or a modified header")
    check(rc)
    return ct


def _named(e, filename):
    """e (an OSError from a call on a descriptor) with the file's name."""
    if not e.errno or filename is None or e.filename is not None:
        return e
    return OSError(e.errno, e.strerror, os.fsdecode(filename))


class _Output:
    """An output file as the CLI writes one (cli/common/out.c): into a temporary file
    beside the target, which gets the target's name only in commit(), after an
    fsync; until then an existing file of that name stays as it was, and
    discard() (any failure, KeyboardInterrupt included) leaves no file behind.
    The temporary file is unnamed where Linux allows it (O_TMPFILE: not even
    SIGKILL can leave it), else .NAME.gostx-XXXXXXXX. A symbolic link's target
    is replaced, not the link; an existing device or pipe is written directly."""

    def __init__(self, path):
        self.path = os.fspath(path)
        self.fd = self.dir_fd = None
        self.tmp = None  # the temporary file's name in dir while it has one
        self.direct = False
        if not self.path:
            raise FileNotFoundError(errno.ENOENT, "empty output file name", self.path)
        try:
            st = os.stat(self.path)
        except OSError:
            st = None
        if st is not None and stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), self.path)
        if st is not None and not stat.S_ISREG(st.st_mode):
            self.fd = os.open(self.path, os.O_WRONLY | _CLOEXEC)
            self.direct = True
            return
        self.dir, self.base = os.path.split(os.path.realpath(self.path))
        try:
            # The temporary file, the link or rename and the fsync all act on
            # this one directory, whatever happens to its path meanwhile.
            self.dir_fd = os.open(self.dir, os.O_RDONLY | _CLOEXEC | getattr(os, "O_DIRECTORY", 0))
            self.fd = self._unnamed()
            if self.fd is None:
                self.fd, self.tmp = tempfile.mkstemp(prefix=self._prefix(), dir=self.dir)
                self.tmp = os.path.basename(self.tmp)
        except OSError as e:
            self.discard()
            raise OSError(e.errno, f"cannot create a temporary file beside it: {e.strerror}",
                          self.path) from None

    def _prefix(self):
        return f".{self.base[:200]}.gostx-"

    def _unnamed(self):
        flag = getattr(os, "O_TMPFILE", 0)
        if not flag or os.environ.get("GOSTX_TMPFILE") == "named":  # the CLI's test switch
            return None
        try:
            fd = os.open(".", flag | os.O_WRONLY | _CLOEXEC, 0o600, dir_fd=self.dir_fd)
        except OSError:
            return None  # not here (file system, kernel): the named route says why if it fails too
        # It is linked through /proc/self/fd at the end: without /proc, a name now.
        if not os.path.exists(f"/proc/self/fd/{fd}"):
            os.close(fd)
            return None
        return fd

    def write(self, data):
        try:
            with memoryview(data) as view, view.cast("B") as left:
                while len(left):
                    left = left[os.write(self.fd, left):]
        except OSError as e:
            raise _named(e, self.path) from None

    def flush(self):
        pass  # unbuffered

    def commit(self):
        """Puts the file in place (synced, with the mode a new file gets or the
        mode of the file it replaces), then closes it; discard() on failure."""
        try:
            if not self.direct:
                try:
                    os.fsync(self.fd)
                except OSError as e:
                    if e.errno != errno.EINVAL:  # a file system without fsync
                        raise
                os.fchmod(self.fd, self._mode())
                self._place()
                self._sync_dir()
        except OSError as e:
            raise OSError(e.errno, f"cannot put the output in place: {e.strerror}",
                          self.path) from None
        finally:
            self.discard()

    def _mode(self):
        try:
            return stat.S_IMODE(os.stat(self.base, dir_fd=self.dir_fd).st_mode)
        except FileNotFoundError:
            return 0o666 & ~_umask()

    def _link(self, name):
        # linkat(AT_SYMLINK_FOLLOW) of /proc/self/fd/N: a dst_dir_fd makes
        # os.link use linkat (plain link() would link the /proc symlink).
        os.link(f"/proc/self/fd/{self.fd}", name, dst_dir_fd=self.dir_fd, follow_symlinks=True)

    def _place(self):
        if self.tmp is None:  # unnamed
            try:
                self._link(self.base)
                return
            except FileExistsError:
                pass
            # linkat cannot replace a file: a name for a moment, then a rename over it.
            for _ in range(100):
                name = self._prefix() + secrets.token_hex(6)
                try:
                    self._link(name)
                except FileExistsError:
                    continue
                self.tmp = name
                break
            else:
                raise FileExistsError(errno.EEXIST, "no free temporary name", self.dir)
        os.replace(self.tmp, self.base, src_dir_fd=self.dir_fd, dst_dir_fd=self.dir_fd)
        self.tmp = None

    def _sync_dir(self):
        try:
            os.fsync(self.dir_fd)
        except OSError as e:
            if e.errno != errno.EINVAL:
                raise

    def discard(self):
        """Drops the output (after commit: only closes); safe to call twice."""
        fd, self.fd = self.fd, None
        if fd is not None:
            os.close(fd)  # an unnamed file is gone with it
        tmp, self.tmp = self.tmp, None
        if tmp is not None:
            try:
                os.unlink(tmp, dir_fd=self.dir_fd)
            except FileNotFoundError:
                pass
        dir_fd, self.dir_fd = self.dir_fd, None
        if dir_fd is not None:
            os.close(dir_fd)


_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


def _umask():
    """The process's umask, read without changing it where Linux says it."""
    try:
        with io.open("/proc/self/status") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except OSError:
        pass
    mask = os.umask(0o22)
    os.umask(mask)
    return mask


def _refuse_same_file(in_fd, src, dst):
    """ValueError when dst is the input itself (a path, a hard link or a
    symbolic link to it): writing the output would destroy it."""
    try:
        so = os.stat(dst)
    except OSError:
        return
    si = os.fstat(in_fd)
    if stat.S_ISREG(so.st_mode) and (si.st_dev, si.st_ino) == (so.st_dev, so.st_ino):
        raise GostxValueError(f"the output {os.fsdecode(dst)} is the same file as the input "
                         f"{os.fsdecode(src)}: refusing to overwrite it")


def _read_exact(fd, n):
    parts = []
    while n:
        part = os.read(fd, n)
        if not part:
            break
        parts.append(part)
        n -= len(part)
    return b"".join(parts)


def _crypt_file(src, dst, decrypt, make_ct, threads):
    """Run the C pipeline from src into dst's temporary file (_Output), put
    in place only on success (a failed decryption leaves no unverified
    plaintext). make_ct(in_fd) keys the stream (decrypt: from the header).
    The pipeline runs on a thread of its own while this one waits
    interruptibly: on Ctrl-C a flag makes the stream's next read or write
    fail, KeyboardInterrupt goes on up at once, and the stream's thread, once
    the chunks in flight are done, releases the key, the temporary file
    (never put in place) and the input descriptor."""
    src, dst = os.fspath(src), os.fspath(dst)
    pool = pool_for(0 if threads is None else threads)
    in_fd = os.open(src, os.O_RDONLY | _CLOEXEC)
    ct = out = None
    handed_over = []  # not empty: the stream's thread releases what follows

    def release():
        if ct is not None:
            lib.gostx_file_clear(ct)
        if out is not None:
            out.discard()
        os.close(in_fd)
    try:
        _refuse_same_file(in_fd, src, dst)
        ct = make_ct(in_fd)
        out = _Output(dst)
        msg = ffi.new("char[160]")
        errs = ffi.new("int[2]")
        cancel = ffi.new("int *")
        rc = detached(lib.gxpy_file_stream, ct, decrypt, in_fd, out.fd, pool, msg, 160, errs,
                      errs + 1, cancel, cancel=lambda: cancel.__setitem__(0, 1), abandon=release,
                      left=handed_over)
        text = ffi.string(msg).decode(errors="replace")
        if rc == lib.GOSTX_EAUTH:
            raise InvalidTag(text)
        if rc == lib.GOSTX_EFORMAT:
            raise FormatError(text)
        if rc == lib.GOSTX_EIO:
            code, name = (errs[1], dst) if errs[1] else (errs[0] or errno.EIO, src)
            raise OSError(code, f"{os.strerror(code)} ({text})", os.fsdecode(name))
        if rc != 0:
            raise GostxError(text)
        out.commit()
    finally:
        if not handed_over:
            release()


def encrypt_file(src, dst, *, key=None, passphrase=None, alg="kuznyechik",
                 chunk_size=1 << 20, iterations=200000, threads=None):
    """Encrypt the file src into dst in the gostx format (`gostx dec` reads it).
    key: 32 raw bytes (a `gostx keygen` key file's contents) or passphrase=.
    threads: worker threads (None or 0 = one per CPU, like `gostx enc`).
    dst appears only when all went well (an existing dst stays as it was until
    then); dst the same file as src is refused (ValueError) before any work."""
    _crypt_file(src, dst, 0, lambda fd: _ct_encrypt(key, passphrase, alg, chunk_size, iterations),
                threads)


def decrypt_file(src, dst, *, key=None, passphrase=None, threads=None):
    """Decrypt a gostx file; dst appears only if every chunk verified.
    InvalidTag for a wrong key or any modification, FormatError for a
    malformed or truncated file; dst the same file as src is refused
    (ValueError) before any work."""
    def keyed(fd):
        try:
            header = _read_exact(fd, _HEADER)
        except OSError as e:
            raise _named(e, src) from None
        return _ct_decrypt(header, key, passphrase)
    _crypt_file(src, dst, 1, keyed, threads)


def open(file, mode="rb", *, key=None, passphrase=None, alg="kuznyechik", chunk_size=1 << 20,
         iterations=200000):
    """A file-like Writer ("wb") or Reader ("rb") over a path or binary file object."""
    if mode == "wb":
        return Writer(file, key=key, passphrase=passphrase, alg=alg, chunk_size=chunk_size,
                      iterations=iterations)
    if mode == "rb":
        return Reader(file, key=key, passphrase=passphrase)
    raise GostxValueError(f"mode must be 'rb' or 'wb', got {mode!r}")


class _NoCopy:
    """Streams over one C context and one file: a copy would share both (and
    closing one would wipe the other's key), so copying is refused, as for
    Python's own file objects."""

    def __copy__(self):
        raise GostxTypeError(f"cannot copy a gostx {type(self).__name__}")

    def __deepcopy__(self, memo):
        raise GostxTypeError(f"cannot copy a gostx {type(self).__name__}")

    def __reduce_ex__(self, protocol):
        raise GostxTypeError(f"cannot pickle a gostx {type(self).__name__}")


class Writer(_NoCopy, io.RawIOBase):
    """Seals what is written in chunks; close() (or leaving a with-block
    normally) seals the final chunk. A path is written as the CLI writes its
    output: the file appears, complete, only at close(); an exception inside
    the with-block (KeyboardInterrupt included), a failed write, or a Writer
    collected without close() leaves no file (an existing one stays as it
    was). On a caller's file object the final chunk is then never written, so
    every reader refuses what was written."""

    _ct = None  # class defaults: a Writer whose __init__ failed has nothing to release
    _out = None
    _failed = False

    def __init__(self, file, *, key=None, passphrase=None, alg="kuznyechik",
                 chunk_size=1 << 20, iterations=200000):
        super().__init__()
        self._lock = threading.RLock()  # write/close from several threads take turns
        self._buf = bytearray()
        self._index = 0
        try:
            self._ct = _ct_encrypt(key, passphrase, alg, chunk_size, iterations)
            self._chunk = chunk_size
            self._rec = bytearray(chunk_size + self._ct.tag_len)
            if hasattr(file, "write"):
                self._f = file
            else:
                self._out = self._f = _Output(file)
            self._f.write(bytes(ffi.buffer(self._ct.header)))
        except BaseException:
            self._abort()
            raise

    def writable(self):
        """True: a Writer is written."""
        return True

    def write(self, data):
        """Take data (any bytes-like object); full chunks are sealed and written
        as they fill. Returns len(data) in bytes."""
        with self._lock:
            return self._write(data)

    def _write(self, data):
        if self.closed:
            raise GostxValueError("write to a closed gostx Writer")
        try:
            self._buf += data
            # Seal every full chunk but the last: only close() knows which chunk
            # is final. The sealed bytes are dropped once, after the loop (one
            # memmove per write, not per chunk).
            done, view = 0, memoryview(self._buf)
            while len(self._buf) - done > self._chunk:
                self._seal(view[done:done + self._chunk], 0)
                done += self._chunk
            view.release()
            del self._buf[:done]
        except BaseException:
            self._failed = True  # a chunk may be half written: the output cannot be finished
            raise
        return nbytes(data)

    def _seal(self, plain, final):
        n = nbytes(plain)
        check(lib.gostx_file_seal_chunk(self._ct, self._index, final, rbuf(plain), n,
                                      wbuf(self._rec)))
        self._f.write(memoryview(self._rec)[:n + self._ct.tag_len])
        self._index += 1

    def close(self):
        """Seals the final chunk and puts the file in place."""
        with self._lock:
            self._close()

    def _close(self):
        if self.closed:
            return
        if self._failed:
            self._abort()
            raise GostxValueError("a write to this gostx Writer failed: its output was discarded")
        try:
            self._seal(self._buf, 1)
            self._f.flush()
            if self._out is not None:
                self._out.commit()
        except BaseException:
            self._abort()
            raise
        self._release()

    def _abort(self):
        """Ends the Writer without its final chunk: a path leaves no file."""
        try:
            if self._out is not None:
                self._out.discard()
        finally:
            self._release()

    def _release(self):
        if self._ct is not None:
            lib.gostx_file_clear(self._ct)
            self._ct = None
        self._buf = bytearray()
        super().close()

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            self.close()
        else:
            with self._lock:
                if not self.closed:
                    self._abort()

    def __del__(self):
        if not self.closed:
            warnings.warn("gostx Writer collected without close(): its output was discarded",
                          ResourceWarning, stacklevel=2, source=self)
            self._abort()


def _binary_file(file, mode):
    if hasattr(file, "read" if mode == "rb" else "write"):
        return file, False
    return io.open(file, mode), True


class Reader(_NoCopy, io.RawIOBase):
    """Opens chunks as they are read; raises InvalidTag on the first chunk that
    does not verify, before releasing any of its bytes."""

    _ct = None  # class defaults: a Reader whose __init__ failed has nothing to release
    _own = False

    def __init__(self, file, *, key=None, passphrase=None):
        super().__init__()
        self._lock = threading.RLock()  # reads from several threads take turns
        self._f, self._own = _binary_file(file, "rb")
        self._name = os.fsdecode(file) if self._own else None  # for OSErrors
        try:
            header = self._read(_HEADER)
            self._ct = _ct_decrypt(header, key, passphrase)
        except BaseException:
            self.close()  # a bad header, a wrong key: the file opened here is closed now
            raise
        self._rec_len = self._ct.h.chunk_size + self._ct.tag_len
        self._ahead = b""
        self._plain = memoryview(b"")
        self._index = 0
        self._done = False

    def readable(self):
        """True: a Reader is read."""
        return True

    def _read(self, n):
        try:
            return self._f.read(n)
        except OSError as e:
            raise _named(e, self._name) from None

    def _next_chunk(self):
        # Read one record and one byte more: a record with nothing after it is
        # the final one (the format has no length field).
        data = self._ahead + self._read(self._rec_len + 1 - len(self._ahead))
        final = int(len(data) <= self._rec_len)
        rec, self._ahead = data[:self._rec_len], data[self._rec_len:]
        n = len(rec) - self._ct.tag_len
        if n < 0:
            raise FormatError(f"truncated file: chunk {self._index} is shorter than its tag")
        out = bytearray(n)
        rc = lib.gostx_file_open_chunk(self._ct, self._index, final, rbuf(rec), len(rec),
                                     wbuf(out) if n else ffi.new("uint8_t[1]"))
        if rc == lib.GOSTX_EAUTH:
            raise InvalidTag(f"authentication failed: chunk {self._index}")
        check(rc)
        self._index += 1
        self._done = bool(final)
        self._plain = memoryview(out)

    def readinto(self, b):
        """Fill b with the next plaintext bytes (each chunk verified before any
        of it is released); returns the count, 0 at the end."""
        with self._lock:
            return self._readinto(b)

    def _readinto(self, b):
        if self.closed:
            raise GostxValueError("read from a closed gostx Reader")
        while not len(self._plain) and not self._done:
            self._next_chunk()
        n = min(len(b), len(self._plain))
        memoryview(b).cast("B")[:n] = self._plain[:n]
        self._plain = self._plain[n:]
        return n

    def close(self):
        """Wipe the key and close the file if the Reader opened it."""
        lock = getattr(self, "_lock", None)
        if lock is None:  # a failed __init__ before the lock existed
            return self._close()
        with lock:
            self._close()

    def _close(self):
        if self.closed:
            return
        ct, self._ct = self._ct, None
        if ct is not None:
            lib.gostx_file_clear(ct)
        if self._own:
            self._f.close()
        super().close()
