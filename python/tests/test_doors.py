"""The package as strict as the command line (issue 32): an unfinished
Writer leaves no file, an output that is its own input is refused, worker
pools are bounded, 0 is never taken for "the default", files are closed on
errors and OSErrors say which errno and file."""
import errno
import gc
import io
import os
import stat
import subprocess
import warnings

import pytest

import gostx

KEY = bytes(range(32))


@pytest.fixture
def cli_or_none(request):
    """The gostx command when it is built, else None (those checks are skipped)."""
    try:
        return request.getfixturevalue("cli")
    except pytest.skip.Exception:
        return None


def _names(d):
    return sorted(os.listdir(d))


def _readers_reject(cli, path):
    """Every reader refuses the file: the Python reader, decrypt_file and `gostx dec`."""
    with pytest.raises((gostx.InvalidTag, gostx.FormatError)):
        with gostx.open_file(path, "rb", key=KEY) as r:
            r.read()
    out = path.parent / "reject.out"
    with pytest.raises((gostx.InvalidTag, gostx.FormatError)):
        gostx.decrypt_file(path, out, key=KEY)
    assert not out.exists()
    if cli:
        keyfile = path.parent / "reject.key"
        keyfile.write_bytes(KEY)
        r = subprocess.run([cli, "dec", "-k", str(keyfile), "-i", str(path), "-o", str(out)],
                           capture_output=True)
        assert r.returncode != 0 and not out.exists()
        keyfile.unlink()


# ---- 1. an unfinished Writer ----

@pytest.fixture(params=["unnamed", "named"])
def route(request, monkeypatch):
    """Both kinds of temporary file: O_TMPFILE, and the named fallback (the
    CLI's GOSTX_TMPFILE=named switch) used where O_TMPFILE is not available."""
    if request.param == "named":
        monkeypatch.setenv("GOSTX_TMPFILE", "named")
    return request.param


@pytest.mark.parametrize("exc", [RuntimeError, KeyboardInterrupt])
@pytest.mark.parametrize("existing", [False, True])
def test_writer_interrupted_leaves_no_file(tmp_path, route, exc, existing):
    p = tmp_path / "out.gostx"
    if existing:
        p.write_bytes(b"the old contents")
        os.chmod(p, 0o640)
    before = _names(tmp_path)
    with pytest.raises(exc):
        with gostx.open_file(p, "wb", key=KEY, chunk_size=1024) as w:
            w.write(os.urandom(5000))  # several sealed chunks, a partial one buffered
            raise exc("interrupted")
    assert _names(tmp_path) == before  # no file, no temporary file
    if existing:
        assert p.read_bytes() == b"the old contents"
        assert stat.S_IMODE(p.stat().st_mode) == 0o640


def test_writer_exception_before_any_write(tmp_path, route):
    p = tmp_path / "out.gostx"
    with pytest.raises(KeyboardInterrupt):
        with gostx.open_file(p, "wb", key=KEY):
            raise KeyboardInterrupt
    assert _names(tmp_path) == []


def test_writer_never_closed_leaves_no_file(tmp_path, route):
    p = tmp_path / "out.gostx"
    w = gostx.open_file(p, "wb", key=KEY, chunk_size=1024)
    w.write(os.urandom(3000))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        del w
        gc.collect()
    assert _names(tmp_path) == []
    assert any(issubclass(c.category, ResourceWarning) for c in caught)


@pytest.mark.parametrize("exc", [RuntimeError, KeyboardInterrupt])
def test_writer_interrupted_on_file_object_is_rejected(cli_or_none, tmp_path, exc):
    """A caller's file object cannot be removed: it is left without its final
    chunk, which every reader refuses."""
    p = tmp_path / "stream.gostx"
    with io.open(p, "wb") as f:
        with pytest.raises(exc):
            with gostx.open_file(f, "wb", key=KEY, chunk_size=1024) as w:
                w.write(os.urandom(5000))
                raise exc("interrupted")
        assert not f.closed  # the caller's file stays the caller's
    assert p.stat().st_size > 0
    _readers_reject(cli_or_none, p)


def test_writer_success_replaces_atomically(cli_or_none, tmp_path, route):
    p = tmp_path / "out.gostx"
    p.write_bytes(b"old")
    os.chmod(p, 0o640)
    data = os.urandom(5000)
    with gostx.open_file(p, "wb", key=KEY, chunk_size=1024) as w:
        w.write(data)
        assert p.read_bytes() == b"old"  # nothing in place before close
    assert _names(tmp_path) == ["out.gostx"]
    assert stat.S_IMODE(p.stat().st_mode) == 0o640
    with gostx.open_file(p, "rb", key=KEY) as r:
        assert r.read() == data
    new = tmp_path / "new.gostx"
    w = gostx.open_file(new, "wb", key=KEY)
    w.write(b"abc")
    w.close()
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(new.stat().st_mode) == 0o666 & ~umask
    if cli_or_none:
        (tmp_path / "k").write_bytes(KEY)
        r = subprocess.run([cli_or_none, "dec", "-k", str(tmp_path / "k"), "-i", str(new)],
                           capture_output=True, check=True)
        assert r.stdout == b"abc"


def test_writer_through_symlink_replaces_target(tmp_path, route):
    target = tmp_path / "target.gostx"
    target.write_bytes(b"old")
    link = tmp_path / "link.gostx"
    link.symlink_to(target.name)
    with gostx.open_file(link, "wb", key=KEY) as w:
        w.write(b"new")
    assert link.is_symlink()
    with gostx.open_file(target, "rb", key=KEY) as r:
        assert r.read() == b"new"


def test_writer_failed_write_discards(tmp_path, route):
    p = tmp_path / "out.gostx"
    w = gostx.open_file(p, "wb", key=KEY, chunk_size=1024)
    w.write(b"x" * 2000)
    with pytest.raises(TypeError):
        w.write("not bytes")
    with pytest.raises(ValueError, match="discarded"):
        w.close()
    assert _names(tmp_path) == []


def test_failed_decryption_keeps_an_existing_output(tmp_path, route):
    enc = tmp_path / "enc"
    with gostx.open_file(enc, "wb", key=KEY, chunk_size=1024) as w:
        w.write(os.urandom(5000))
    dst = tmp_path / "dst"
    dst.write_bytes(b"keep me")
    with pytest.raises(gostx.InvalidTag):
        gostx.decrypt_file(enc, dst, key=os.urandom(32), threads=2)
    assert dst.read_bytes() == b"keep me"
    assert _names(tmp_path) == ["dst", "enc"]
    gostx.decrypt_file(enc, dst, key=KEY)
    with gostx.open_file(enc, "rb", key=KEY) as r:
        assert dst.read_bytes() == r.read()


# ---- 4. an output that is the input ----

def _same_file_cases(tmp_path, src):
    hard = tmp_path / "hard"
    os.link(src, hard)
    sym = tmp_path / "sym"
    sym.symlink_to(src.name)
    rel = os.path.relpath(src)
    return {"same path": src, "relative path": rel, "hard link": hard, "symlink": sym,
            "dotted path": tmp_path / "." / src.name}


@pytest.mark.parametrize("direction", ["encrypt", "decrypt"])
def test_output_same_as_input_is_refused(tmp_path, direction):
    src = tmp_path / "src"
    if direction == "encrypt":
        src.write_bytes(os.urandom(3000))
        fn = gostx.encrypt_file
    else:
        plain = tmp_path / "plain"
        plain.write_bytes(os.urandom(3000))
        gostx.encrypt_file(plain, src, key=KEY)
        plain.unlink()
        fn = gostx.decrypt_file
    blob = src.read_bytes()
    for name, dst in _same_file_cases(tmp_path, src).items():
        before = _names(tmp_path)
        with pytest.raises(ValueError, match="same file"):
            fn(src, dst, key=KEY)
        assert src.read_bytes() == blob, name
        assert _names(tmp_path) == before, name


# ---- 11. pools, zeros, handles, errno ----

def _threads():
    return len(os.listdir("/proc/self/task"))


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="needs /proc")
def test_thread_pools_are_bounded():
    k = gostx.Kuznyechik(KEY)
    data = os.urandom(1 << 20)
    base = _threads()
    want = k.ctr(bytes(8), data)
    for n in range(2, 34):
        assert k.ctr(bytes(8), data, threads=n) == want
    gc.collect()
    # Without a bound this is sum(1..32) = 528 more threads.
    assert _threads() - base <= 4 * 33


@pytest.mark.parametrize("call", [
    lambda: gostx.KuznyechikMGM(KEY, tag_length=0),
    lambda: gostx.MagmaMGM(KEY, tag_length=0),
    lambda: gostx.KuznyechikMGM(KEY, tag_length=3),
    lambda: gostx.KuznyechikMGM(KEY, tag_length=17),
    lambda: gostx.Kuznyechik(KEY).omac(b"abc", mac_len=0),
    lambda: gostx.Kuznyechik(KEY).omac(b"abc", mac_len=-1),
    lambda: gostx.Kuznyechik(KEY).omac(b"abc", mac_len=17),
    lambda: gostx.Magma(KEY).omac_acpkm(b"abc", 1024, 16 * 64, mac_len=0),
    lambda: gostx.Kuznyechik(KEY).omac_context().finalize(mac_len=0),
    lambda: gostx.Kuznyechik(KEY).ctr_acpkm(bytes(8), b"abc", section_len=0),
    lambda: gostx.Kuznyechik(KEY).ctr_acpkm(bytes(8), b"abc", section_len=-16),
    lambda: gostx.Kuznyechik(KEY).ctr_acpkm(bytes(8), b"abc", section_len=0, threads=2),
    lambda: gostx.Kuznyechik(KEY).encryptor("ctr-acpkm", bytes(8), section_len=0),
    lambda: gostx.Kuznyechik(KEY).ctr(bytes(8), b"abc", s=0),
    lambda: gostx.Kuznyechik(KEY).ctr(bytes(8), b"abc", s=17),
    lambda: gostx.Kuznyechik(KEY).encryptor("cfb", bytes(16), s=0),
    lambda: gostx.Kuznyechik(KEY).encryptor("ctr", bytes(8), s=0),
    lambda: gostx.Kuznyechik(KEY).omac_context(section_len=0, master_section_len=0),
    lambda: gostx.batch_omac(gostx.Kuznyechik(KEY), [b"a" * 16], mac_len=0),
    lambda: gostx.batch_ctr(gostx.Kuznyechik(KEY), [bytes(8)], [b"a" * 16], sector_len=32),
    lambda: gostx.Kuznyechik(KEY).ctr(bytes(8), b"abc", threads=-1),
])
def test_zero_and_invalid_parameters_raise(call):
    with pytest.raises(ValueError):
        call()


def _fds():
    return len(os.listdir("/proc/self/fd"))


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc")
def test_reader_closes_its_file_on_a_bad_header(tmp_path):
    bad = tmp_path / "bad"
    bad.write_bytes(b"not a gostx file" * 10)
    good = tmp_path / "good"
    with gostx.open_file(good, "wb", key=KEY) as w:
        w.write(b"x")
    base = _fds()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(3):
            with pytest.raises(gostx.FormatError):
                gostx.open_file(bad, "rb", key=KEY)
            with pytest.raises(gostx.InvalidTag):
                gostx.open_file(good, "rb", key=os.urandom(32))
            with pytest.raises(ValueError):
                gostx.open_file(good, "rb")  # neither key nor passphrase
            with pytest.raises(ValueError):
                gostx.open_file(tmp_path / "w", "wb", key=KEY, chunk_size=3)
        gc.collect()
    assert _fds() == base
    assert not [c for c in caught if issubclass(c.category, ResourceWarning)]
    assert _names(tmp_path) == ["bad", "good"]


def test_oserrors_carry_errno_and_filename(tmp_path):
    missing = tmp_path / "missing"
    with pytest.raises(FileNotFoundError) as e:
        gostx.encrypt_file(missing, tmp_path / "o", key=KEY)
    assert e.value.errno == errno.ENOENT and e.value.filename == str(missing)
    with pytest.raises(FileNotFoundError) as e:
        gostx.decrypt_file(missing, tmp_path / "o", key=KEY)
    assert e.value.errno == errno.ENOENT and e.value.filename == str(missing)
    # A directory as the input: the read fails inside the C pipeline.
    with pytest.raises(IsADirectoryError) as e:
        gostx.encrypt_file(tmp_path, tmp_path / "o", key=KEY)
    assert e.value.errno == errno.EISDIR and e.value.filename == str(tmp_path)
    src = tmp_path / "src"
    src.write_bytes(b"abc")
    nodir = tmp_path / "nodir" / "o"
    with pytest.raises(FileNotFoundError) as e:
        gostx.encrypt_file(src, nodir, key=KEY)
    assert e.value.errno == errno.ENOENT and e.value.filename == str(nodir)
    with pytest.raises(FileNotFoundError) as e:
        gostx.open_file(nodir, "wb", key=KEY)
    assert e.value.errno == errno.ENOENT and e.value.filename == str(nodir)
    assert _names(tmp_path) == ["src"]


def _full_device(tmp_path):
    """A private node of /dev/full's device where we may make one (root), so a
    regression that unlinks or renames over its output cannot take the
    system's /dev/full with it; else /dev/full itself."""
    node = tmp_path / "full"
    try:
        os.mknod(node, stat.S_IFCHR | 0o600, os.makedev(1, 7))
        return str(node)
    except (PermissionError, AttributeError, OSError):
        return "/dev/full"


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_write_errors_carry_errno_and_filename(tmp_path):
    """A device is written directly (as the CLI does); its write error names it."""
    src = tmp_path / "src"
    src.write_bytes(os.urandom(5000))
    full = _full_device(tmp_path)
    with pytest.raises(OSError) as e:
        gostx.encrypt_file(src, full, key=KEY, threads=2)
    assert e.value.errno == errno.ENOSPC and e.value.filename == full
    with pytest.raises(OSError) as e:
        with gostx.open_file(full, "wb", key=KEY) as w:
            w.write(b"x" * 5000)
    assert e.value.errno == errno.ENOSPC and e.value.filename == full
    assert stat.S_ISCHR(os.stat(full).st_mode), "the device was replaced by a file"
