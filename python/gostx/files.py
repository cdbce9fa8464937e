"""The gostx file format (docs/FORMAT.md), the one `gostx enc` / `gostx dec`
write and read: whole files through the library's parallel pipeline, and
file-like writer/reader objects for streams."""
import io
import os
import tempfile

from ._native import GostxError, InvalidTag, check, ffi, lib, nbytes, pool_for, rbuf, wbuf

__all__ = ["encrypt_file", "decrypt_file", "open", "Writer", "Reader", "FormatError"]

_ALGS = {"kuznyechik": lib.GOSTX_ALG_KUZNYECHIK, "magma": lib.GOSTX_ALG_MAGMA}
_HEADER = lib.GOSTX_FILE_HEADER_LEN


class FormatError(ValueError):
    """Not a gostx file, or a malformed / truncated one."""


def _secret(key, passphrase):
    """(kdf, secret bytes) from exactly one of key (32 bytes) or passphrase."""
    if (key is None) == (passphrase is None):
        raise ValueError("give exactly one of key= (32 bytes) or passphrase=")
    if key is not None:
        if nbytes(key) != 32:
            raise ValueError(f"key must be 32 bytes, got {nbytes(key)}")
        return lib.GOSTX_FILE_KDF_RAW, key
    if isinstance(passphrase, str):
        passphrase = passphrase.encode()
    return lib.GOSTX_FILE_KDF_PBKDF2, passphrase


def _ct_encrypt(key, passphrase, alg, chunk_size, iterations):
    kdf, secret = _secret(key, passphrase)
    if alg not in _ALGS:
        raise ValueError(f"alg must be 'kuznyechik' or 'magma', got {alg!r}")
    ct = ffi.new("gostx_file *")
    rc = lib.gostx_file_init_encrypt(ct, _ALGS[alg], kdf, chunk_size, iterations, rbuf(secret),
                                   nbytes(secret), ffi.NULL)
    if rc:
        lib.gostx_file_clear(ct)
        check(rc, "file parameters (chunk_size 1 KiB..64 MiB, iterations 1..2^24)")
    return ct


def _ct_decrypt(header, key, passphrase):
    _, secret = _secret(key, passphrase)
    ct = ffi.new("gostx_file *")
    reason = ffi.new("char **")
    rc = lib.gostx_file_init_decrypt(ct, rbuf(header), nbytes(header), rbuf(secret),
                                   nbytes(secret), ffi.cast("const char **", reason))
    if rc:
        lib.gostx_file_clear(ct)
    if rc == lib.GOSTX_EFORMAT:
        raise FormatError(ffi.string(reason[0]).decode() if reason[0] else "bad header")
    if rc == lib.GOSTX_EAUTH:
        raise InvalidTag("wrong key or passphrase, or a modified header")
    check(rc)
    return ct


def _stream(ct, decrypt, src, dst, threads):
    """Run the C pipeline into a temporary file beside dst, renamed over dst
    only on success (a failed decryption leaves no unverified plaintext)."""
    dst = os.fspath(dst)
    fd, tmp = tempfile.mkstemp(prefix=".gostx-", dir=os.path.dirname(os.path.abspath(dst)))
    os.close(fd)
    msg = ffi.new("char[160]")
    try:
        rc = lib.gxpy_file_stream(ct, decrypt, os.fsencode(src), os.fsencode(tmp),
                                  pool_for(0 if threads is None else threads), msg, 160)
        text = ffi.string(msg).decode(errors="replace")
        if rc == lib.GOSTX_EAUTH:
            raise InvalidTag(text)
        if rc == lib.GOSTX_EFORMAT:
            raise FormatError(text)
        if rc == lib.GOSTX_EIO:
            raise OSError(text)
        if rc != 0:
            raise GostxError(text)
        os.replace(tmp, dst)
        tmp = None
    finally:
        lib.gostx_file_clear(ct)
        if tmp is not None:
            os.unlink(tmp)


def encrypt_file(src, dst, *, key=None, passphrase=None, alg="kuznyechik",
                 chunk_size=1 << 20, iterations=200000, threads=None):
    """Encrypt the file src into dst in the gostx format (`gostx dec` reads it).
    key: 32 raw bytes (a `gostx keygen` key file's contents) or passphrase=.
    threads: worker threads (None or 0 = one per CPU, like `gostx enc`)."""
    _stream(_ct_encrypt(key, passphrase, alg, chunk_size, iterations), 0, src, dst, threads)


def decrypt_file(src, dst, *, key=None, passphrase=None, threads=None):
    """Decrypt a gostx file; dst appears only if every chunk verified.
    InvalidTag for a wrong key or any modification, FormatError for a
    malformed or truncated file."""
    with io.open(src, "rb") as f:
        header = f.read(_HEADER)
    _stream(_ct_decrypt(header, key, passphrase), 1, src, dst, threads)


def open(file, mode="rb", *, key=None, passphrase=None, alg="kuznyechik", chunk_size=1 << 20,
         iterations=200000):
    """A file-like Writer ("wb") or Reader ("rb") over a path or binary file object."""
    if mode == "wb":
        return Writer(file, key=key, passphrase=passphrase, alg=alg, chunk_size=chunk_size,
                      iterations=iterations)
    if mode == "rb":
        return Reader(file, key=key, passphrase=passphrase)
    raise ValueError(f"mode must be 'rb' or 'wb', got {mode!r}")


def _binary_file(file, mode):
    if hasattr(file, "read" if mode == "rb" else "write"):
        return file, False
    return io.open(file, mode), True


class Writer(io.RawIOBase):
    """Seals what is written in chunks; close() seals the final chunk (a file
    is complete only after close)."""

    def __init__(self, file, *, key=None, passphrase=None, alg="kuznyechik",
                 chunk_size=1 << 20, iterations=200000):
        super().__init__()
        self._ct = _ct_encrypt(key, passphrase, alg, chunk_size, iterations)
        self._chunk = chunk_size
        self._f, self._own = _binary_file(file, "wb")
        self._buf = bytearray()
        self._index = 0
        self._rec = bytearray(chunk_size + self._ct.tag_len)
        self._f.write(bytes(ffi.buffer(self._ct.header)))

    def writable(self):
        return True

    def write(self, data):
        if self.closed:
            raise ValueError("write to a closed gostx Writer")
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
        return nbytes(data)

    def _seal(self, plain, final):
        n = nbytes(plain)
        check(lib.gostx_file_seal_chunk(self._ct, self._index, final, rbuf(plain), n,
                                      wbuf(self._rec)))
        self._f.write(memoryview(self._rec)[:n + self._ct.tag_len])
        self._index += 1

    def close(self):
        if self.closed:
            return
        try:
            self._seal(self._buf, 1)
            self._f.flush()
        finally:
            lib.gostx_file_clear(self._ct)
            self._buf = bytearray()
            if self._own:
                self._f.close()
            super().close()


class Reader(io.RawIOBase):
    """Opens chunks as they are read; raises InvalidTag on the first chunk that
    does not verify, before releasing any of its bytes."""

    def __init__(self, file, *, key=None, passphrase=None):
        super().__init__()
        self._f, self._own = _binary_file(file, "rb")
        header = self._f.read(_HEADER)
        self._ct = _ct_decrypt(header, key, passphrase)
        self._rec_len = self._ct.h.chunk_size + self._ct.tag_len
        self._ahead = b""
        self._plain = memoryview(b"")
        self._index = 0
        self._done = False

    def readable(self):
        return True

    def _next_chunk(self):
        # Read one record and one byte more: a record with nothing after it is
        # the final one (the format has no length field).
        data = self._ahead + self._f.read(self._rec_len + 1 - len(self._ahead))
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
        while not len(self._plain) and not self._done:
            self._next_chunk()
        n = min(len(b), len(self._plain))
        memoryview(b).cast("B")[:n] = self._plain[:n]
        self._plain = self._plain[n:]
        return n

    def close(self):
        if self.closed:
            return
        lib.gostx_file_clear(self._ct)
        if self._own:
            self._f.close()
        super().close()
