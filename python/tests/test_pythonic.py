"""Python as Python users expect it (issue 32 item 15): hashlib's shape,
one exception base class, an MGM nonce helper, docstrings on every public
callable, the README's examples running as written, and the type stubs
matching the package (mypy's stubtest) and refusing a str as data."""
import hashlib
import importlib.util
import inspect
import os
import pathlib
import re
import subprocess
import sys

import pytest

import gostx

README = pathlib.Path(__file__).resolve().parents[1] / "README.md"


# ---- hashlib's shape ----

def test_new_takes_hashlibs_signature():
    sig = inspect.signature(gostx.new)
    assert list(sig.parameters) == ["name", "data", "usedforsecurity"]
    assert sig.parameters["data"].default == b""
    assert sig.parameters["usedforsecurity"].kind is inspect.Parameter.KEYWORD_ONLY
    for name in gostx.algorithms_available:
        h = gostx.new(name, b"abc", usedforsecurity=False)
        assert h.digest() == gostx.new(name, data=b"abc").digest()
        assert gostx.new(name).digest() == gostx.new(name, b"").digest()
    assert gostx.new("streebog512").name == "streebog512"
    assert gostx.new("STREEBOG-256").digest() == gostx.streebog256().digest()


def test_algorithm_sets_are_what_new_takes():
    assert gostx.algorithms_guaranteed <= gostx.algorithms_available
    assert {"streebog256", "streebog512", "gost94", "gost94-test"} <= gostx.algorithms_available
    for name in gostx.algorithms_available:
        assert gostx.new(name).digest_size in (32, 64)
    with pytest.raises(ValueError, match="unsupported hash type"):
        gostx.new("sha256")


@pytest.mark.parametrize("call", [
    lambda: gostx.streebog256("abc"), lambda: gostx.streebog512().update("abc"),
    lambda: gostx.gost94("abc"), lambda: gostx.new("streebog256", "abc"),
    lambda: gostx.HMAC(b"k", "abc"), lambda: gostx.HMAC(b"k").update("abc"),
    lambda: gostx.hmac_streebog(b"k", "abc"),
])
def test_str_is_refused_with_hashlibs_message(call):
    with pytest.raises(TypeError) as e:
        hashlib.sha256("abc")
    want = str(e.value)
    with pytest.raises(TypeError) as e:
        call()
    assert str(e.value) == want
    assert isinstance(e.value, gostx.GostxError)


def test_str_where_bytes_are_needed_is_a_clear_type_error():
    k = gostx.Kuznyechik(bytes(32))
    for call in (lambda: k.ctr(bytes(8), "data"), lambda: gostx.Kuznyechik("k" * 32),
                 lambda: k.ecb_encrypt(bytes(16), out="x" * 16)):
        with pytest.raises(TypeError, match="bytes-like") as e:
            call()
        assert isinstance(e.value, gostx.GostxError)
    with pytest.raises(BufferError, match="writable") as e:
        k.ecb_encrypt(bytes(16), out=bytes(16))
    assert isinstance(e.value, gostx.GostxError)


# ---- one exception base class ----

def test_every_exception_is_a_gostx_error_and_keeps_its_builtin_class():
    k = gostx.Kuznyechik(bytes(32))
    aead = gostx.KuznyechikMGM(bytes(32))
    ct = aead.encrypt(bytes(16), b"data")
    cases = [
        (lambda: gostx.Kuznyechik(bytes(31)), ValueError),             # Python-side length check
        (lambda: k.encryptor("xts"), ValueError),                      # bad mode
        (lambda: k.ctr(bytes(8), b"", s=0), ValueError),               # parameter range
        (lambda: (lambda c: (c.update(b"x"), c.finalize()))(k.encryptor("cbc", bytes(16))),
         ValueError),                                                  # C: GOSTX_ELEN
        (lambda: aead.decrypt(bytes(16), ct[:-1] + bytes(1)), gostx.InvalidTag),
        (lambda: gostx.Reader(__import__("io").BytesIO(b"not a gostx file" * 8), key=bytes(32)),
         gostx.FormatError),
        (lambda: gostx.streebog256(1), TypeError),
    ]
    for call, builtin in cases:
        with pytest.raises(builtin) as e:
            call()
        assert isinstance(e.value, gostx.GostxError), (builtin, e.value)
    assert issubclass(gostx.InvalidTag, gostx.GostxError)
    assert issubclass(gostx.FormatError, gostx.GostxError) and issubclass(gostx.FormatError,
                                                                          ValueError)


# ---- MGM ----

@pytest.mark.parametrize("cls", [gostx.KuznyechikMGM, gostx.MagmaMGM])
def test_mgm_nonce_helper_and_empty_parts(cls):
    aead = cls(cls.generate_key())
    nonces = {aead.generate_nonce() for _ in range(64)}
    assert len(nonces) == 64
    for n in nonces:
        assert len(n) == cls.block_size and not n[0] & 0x80
        assert aead.decrypt(n, aead.encrypt(n, b"p"), None) == b"p"
    n = aead.generate_nonce()
    bad = bytes([n[0] | 0x80]) + n[1:]
    with pytest.raises(ValueError, match="generate_nonce"):
        aead.encrypt(bad, b"p")
    # Empty plaintext with associated data, and empty associated data (None or b"").
    ct = aead.encrypt(n, b"", b"header")
    assert len(ct) == aead.tag_length and aead.decrypt(n, ct, b"header") == b""
    ct = aead.encrypt(n, b"plain", None)
    assert ct == aead.encrypt(n, b"plain", b"")
    assert aead.decrypt(n, ct, b"") == b"plain"
    with pytest.raises(ValueError, match="RFC 9058"):
        aead.encrypt(n, b"", None)


# ---- docstrings ----

def _public_callables():
    """Every public function, class and method of the package's __all__ and
    of its submodules gostx.tls and gostx.x509."""
    import gostx.tls
    import gostx.x509
    spaces = [("", gostx), ("tls.", gostx.tls), ("x509.", gostx.x509)]
    for prefix, name, obj in ((p, n, getattr(m, n)) for p, m in spaces for n in m.__all__):
        name = prefix + name
        if inspect.isclass(obj):
            yield name, obj
            for klass in obj.__mro__:
                if not klass.__module__.startswith("gostx"):
                    continue  # io.RawIOBase's own methods, object's
                for attr, raw in vars(klass).items():
                    if attr.startswith("_"):
                        continue
                    if isinstance(raw, (staticmethod, classmethod)):
                        raw = raw.__func__
                    if inspect.isfunction(raw):
                        yield f"{name}.{attr}", raw
        elif callable(obj):
            yield name, obj


def test_every_public_callable_has_a_docstring():
    found = dict(_public_callables())
    assert len(found) > 100
    missing = sorted(n for n, o in found.items() if not (o.__doc__ or "").strip())
    assert not missing, f"no docstring: {missing}"


# ---- the README ----

def _readme_blocks():
    return re.findall(r"```python\n(.*?)```", README.read_text(), re.S)


def test_readme_examples_run_as_written(tmp_path, monkeypatch):
    blocks = _readme_blocks()
    assert blocks
    monkeypatch.chdir(tmp_path)
    for i, code in enumerate(blocks):
        exec(compile(code, f"README.md python block {i}", "exec"), {"__name__": "__readme__"})
    assert (tmp_path / "big.iso.out").read_bytes() == (tmp_path / "big.iso").read_bytes()


# ---- the stubs ----

def test_stubs_match_the_package(tmp_path):
    if importlib.util.find_spec("mypy") is None:
        pytest.skip("mypy not installed (scripts/ci_python.sh installs it)")
    ini = pathlib.Path(__file__).with_name("mypy-stubtest.ini")
    args = [sys.executable, "-m", "mypy.stubtest", "--mypy-config-file", str(ini), "gostx"]
    # an optional extra not installed (gostx[requests], gostx[httpx], gostx[xml]): its
    # module cannot import, so it is left out (scripts/ci_python.sh has them)
    missing = [f"gostx.{mod}\n" for extra, mod in (("requests", "_requests"), ("httpx", "_httpx"),
                                                   ("lxml", "xmldsig"))
               if importlib.util.find_spec(extra) is None]
    if missing:
        allow = tmp_path / "allowlist"
        allow.write_text("".join(missing))
        args += ["--allowlist", str(allow)]
    r = subprocess.run(args, capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr


# Each call that is wrong for a type checker, with the name mypy gives the
# argument's expected type; the right calls beside them must pass.
_TYPED_WRONG = [
    'gostx.streebog256("text")',
    'gostx.streebog512().update("text")',
    'gostx.hmac_streebog(b"k" * 32, "msg")',
    'gostx.Kuznyechik(b"k" * 32).ctr(b"i" * 8, "data")',
    'gostx.KuznyechikMGM(b"k" * 32).encrypt(b"n" * 16, "data")',
    'gostx.Magma(b"k" * 32).ecb_encrypt(b"d" * 8, out="out")',
    'gostx.kdf_256(b"k" * 32, "label", b"seed")',
]
_TYPED_RIGHT = """
import array, mmap
import gostx
key = gostx.Kuznyechik(b"k" * 32)
ba = bytearray(64)
gostx.streebog256(b"text").hexdigest()
gostx.streebog512(memoryview(b"text")).update(bytearray(b"more"))
gostx.hmac_streebog(bytearray(32), array.array("B", b"msg"))
key.ctr(b"i" * 8, ba, out=ba)
key.ecb_encrypt(memoryview(ba), out=memoryview(ba))
gostx.KuznyechikMGM(bytes(32)).encrypt(b"n" * 16, b"data", None)
gostx.pbkdf2("password", b"salt", 10)
gostx.kdf_256(b"k" * 32, b"label", mmap.mmap(-1, 16))
"""


def _mypy(tmp_path, name, code):
    """mypy on code against the stub alone (copied into a folder of its own,
    so an installed and an editable package are checked the same way)."""
    stubs = tmp_path / "stubs" / "gostx"
    stubs.mkdir(parents=True, exist_ok=True)
    src = pathlib.Path(gostx.__file__).with_name("__init__.pyi")
    (stubs / "__init__.pyi").write_text(src.read_text())
    (stubs / "py.typed").write_text("")
    f = tmp_path / f"{name}.py"
    f.write_text(code)
    env = dict(os.environ, MYPYPATH=str(tmp_path / "stubs"))
    return subprocess.run([sys.executable, "-m", "mypy", "--no-incremental",
                           "--cache-dir", os.devnull, "--no-error-summary", str(f)],
                          capture_output=True, text=True, cwd=tmp_path, env=env)


def test_stubs_refuse_a_str_as_data(tmp_path):
    # Issue 48 item 16: buffers were typed Any, so mypy took a str as data,
    # which the package refuses at run time.
    if importlib.util.find_spec("mypy") is None:
        pytest.skip("mypy not installed (scripts/ci_python.sh installs it)")
    r = _mypy(tmp_path, "right", _TYPED_RIGHT)
    assert r.returncode == 0, r.stdout + r.stderr
    wrong = "import gostx\n" + "\n".join(_TYPED_WRONG) + "\n"
    r = _mypy(tmp_path, "wrong", wrong)
    assert r.returncode == 1, r.stdout + r.stderr
    flagged = {int(m) for m in re.findall(r"^[^:\n]*wrong\.py:(\d+): error:", r.stdout, re.M)}
    assert flagged == set(range(2, 2 + len(_TYPED_WRONG))), r.stdout
    assert all("Buffer" in ln for ln in r.stdout.splitlines() if ": error:" in ln), r.stdout


@pytest.mark.parametrize("value,warned", [("bogus", True), ("AVX2", True), ("portable", False),
                                          ("", False)])
def test_gostx_impl_not_honoured_warns_once_at_import(value, warned):
    # The same rule as the gostx command (issue 32 item 18): an unknown value
    # runs portable, and the user is told, once, as a RuntimeWarning.
    env = dict(os.environ, GOSTX_IMPL=value)
    r = subprocess.run([sys.executable, "-W", "always", "-c",
                        "import gostx; print(gostx.implementations()['kuznyechik'])"],
                       env=env, capture_output=True, text=True, check=True)
    lines = [ln for ln in r.stderr.splitlines() if "RuntimeWarning" in ln]
    if warned:
        assert len(lines) == 1, r.stderr
        assert repr(value) in lines[0] and "running portable" in lines[0], lines[0]
        assert r.stdout.strip() == "portable"
    else:
        assert lines == [], r.stderr
