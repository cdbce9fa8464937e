"""GOST R 34.10-2012 signatures, the VKO key agreement (R 50.1.113-2016,
RFC 7836) and KEG (RFC 9189) in the shape of the ``cryptography`` package's
ec module: PrivateKey.generate / from_bytes, sign, exchange, keg;
PublicKey.from_bytes, verify (raises InvalidSignature), equality and
hashing; key files (PKCS#8, encrypted or not, and SubjectPublicKeyInfo) in
DER and PEM.

Bytes as the C API has them (include/gostx/gost3410.h): the private key d
big-endian (32 or 64 bytes), the public key x || y, the signature r || s,
each number big-endian (the standard's zeta; X.509/CMS write s || r). sign
and verify hash the data with Streebog-256 on the 256-bit curves and
Streebog-512 on the 512-bit ones, as the standard does; prehashed=True takes
that digest instead, as Streebog wrote it.
"""
import contextlib
import enum
import operator

from ._native import (GostxTypeError, GostxValueError, InvalidSignature, SharedKey, check, detached,
                      ffi, held, holding, lib, need_len, new_output, not_a_buffer, rbuf)

__all__ = ["Curve", "PrivateKey", "PublicKey", "generate_private_key", "load_pem_private_key",
           "load_der_private_key", "load_pem_public_key", "load_der_public_key"]


def _by_name(name):
    return lib.gostx_gost3410_curve_by_name(name.encode())


class Curve(enum.IntEnum):
    """The parameter sets, valued as the C library's gostx_gost3410_curve ids
    (GOSTX_GOST3410_256_A is Curve.GOST3410_256_A); the CryptoPro sets are
    aliases of the tc26 sets they equal. Anywhere a curve is taken, its
    parameter-set name or OID ("id-tc26-gost-3410-2012-256-paramSetA",
    "1.2.643.7.1.2.1.1.1", "id-GostR3410-2001-CryptoPro-A-ParamSet") or
    member name ("GOST3410_256_A") does as well."""

    GOST3410_256_TEST = lib.GOSTX_GOST3410_256_TEST
    GOST3410_256_A = lib.GOSTX_GOST3410_256_A
    GOST3410_256_B = lib.GOSTX_GOST3410_256_B
    GOST3410_256_C = lib.GOSTX_GOST3410_256_C
    GOST3410_256_D = lib.GOSTX_GOST3410_256_D
    GOST3410_512_TEST = lib.GOSTX_GOST3410_512_TEST
    GOST3410_512_A = lib.GOSTX_GOST3410_512_A
    GOST3410_512_B = lib.GOSTX_GOST3410_512_B
    GOST3410_512_C = lib.GOSTX_GOST3410_512_C
    # The library's alias table decides which set each CryptoPro name is.
    CRYPTOPRO_A = _by_name("id-GostR3410-2001-CryptoPro-A-ParamSet")
    CRYPTOPRO_B = _by_name("id-GostR3410-2001-CryptoPro-B-ParamSet")
    CRYPTOPRO_C = _by_name("id-GostR3410-2001-CryptoPro-C-ParamSet")
    CRYPTOPRO_XCHA = _by_name("id-GostR3410-2001-CryptoPro-XchA-ParamSet")
    CRYPTOPRO_XCHB = _by_name("id-GostR3410-2001-CryptoPro-XchB-ParamSet")

    @property
    def param_set(self):
        """The parameter set's name, e.g. "id-tc26-gost-3410-2012-256-paramSetA"."""
        return ffi.string(lib.gostx_gost3410_curve_name(self)).decode()

    @property
    def oid(self):
        """The parameter set's OID, e.g. "1.2.643.7.1.2.1.1.1"."""
        return ffi.string(lib.gostx_gost3410_curve_oid(self)).decode()

    @property
    def key_size(self):
        """Bits of the field and of the private key: 256 or 512."""
        return 8 * lib.gostx_gost3410_size(self)

    @classmethod
    def from_name(cls, name):
        """The curve of a parameter-set name, OID, CryptoPro alias or member name."""
        if not isinstance(name, str):
            raise GostxTypeError(f"name must be a str, not {type(name).__name__!r}")
        return _as_curve(name)


def _as_curve(value):
    """A Curve from a Curve, its C id, or a name; GostxValueError if unknown."""
    if isinstance(value, Curve):
        return value
    if isinstance(value, str):
        if value in Curve.__members__:
            return Curve[value]
        rc = _by_name(value) if "\0" not in value else lib.GOSTX_EINVAL
        if rc < 0:
            raise GostxValueError(f"unknown curve {value!r}: give a gostx.Curve, or a parameter "
                                  "set's name or OID (id-tc26-gost-3410-2012-256-paramSetA, "
                                  "1.2.643.7.1.2.1.1.1, id-GostR3410-2001-CryptoPro-A-ParamSet)")
        return Curve(rc)
    if isinstance(value, int) and not isinstance(value, bool):
        try:
            return Curve(value)
        except ValueError:
            raise GostxValueError(f"unknown curve id {value}") from None
    raise GostxTypeError(f"curve must be a gostx.Curve or its name, not {type(value).__name__!r}")


def _size(curve):
    return lib.gostx_gost3410_size(curve)


def _digest(curve, data, prehashed):
    """The digest sign and verify take: Streebog of data (its size the
    curve's), or data itself when it is one already."""
    n = _size(curve)
    if prehashed:
        need_len(f"digest (Streebog-{8 * n} for {curve.param_set})", data, n)
        return rbuf(data)
    d = rbuf(data)
    out, p = new_output(n)
    check(lib.gostx_streebog(n, d, len(d), p), "streebog")
    return out


def _copy_bytes(data):
    b = rbuf(data)
    return b if type(b) is bytes else bytes(ffi.buffer(b))


class _OnCurve:
    """What both kinds of key say of their curve."""

    __slots__ = ()
    _curve: Curve

    @property
    def curve(self):
        """The Curve of this key."""
        return self._curve

    @property
    def key_size(self):
        """Bits of the curve: 256 or 512."""
        return self._curve.key_size


class PublicKey(_OnCurve):
    """A point of a curve, checked to lie on it. Immutable, hashable, equal
    to another key of the same curve and point, and picklable (it holds no
    secret)."""

    __slots__ = ("_curve", "_raw", "_oid")

    def __init__(self, *args, **kwargs):
        raise GostxTypeError("PublicKey objects come from PublicKey.from_bytes(curve, x_y) or "
                             "PrivateKey.public_key()")

    @classmethod
    def _new(cls, curve, raw, oid=None):
        """oid: the parameter set's OID a key file named (dotted, bytes), kept
        so that writing the key again keeps it (gost-engine derives only
        between keys of the same OID); None writes the curve's default."""
        self = object.__new__(cls)
        object.__setattr__(self, "_curve", curve)
        object.__setattr__(self, "_raw", raw)
        object.__setattr__(self, "_oid", oid)
        return self

    @classmethod
    def from_bytes(cls, curve, data):
        """The key x || y (each coordinate big-endian, 2 * curve.key_size / 8
        bytes); GostxValueError unless it is a point of the curve of order q."""
        curve = _as_curve(curve)
        n = _size(curve)
        need_len(f"public key (x || y on {curve.param_set})", data, 2 * n)
        raw = _copy_bytes(data)
        if lib.gostx_gost3410_check_public_key(curve, raw, 2 * n):
            raise GostxValueError(f"public key is not a point of order q of {curve.param_set} "
                                  "(off the curve, a coordinate >= p, the point at infinity, or "
                                  "a point with a small-order part)")
        return cls._new(curve, raw)

    def public_bytes_raw(self):
        """x || y, each coordinate big-endian."""
        return self._raw

    def public_bytes(self, encoding="PEM"):
        """SubjectPublicKeyInfo as gost-engine and X.509 write it (RFC 4491 /
        RFC 9215): "PEM" text (bytes) or "DER"."""
        key = _key_struct(self._curve, self._raw, self._oid, private=False)
        return _encode(encoding, key, lib.GOSTX_GOST3410_KEY_PUBLIC)

    def verify(self, signature, data, *, prehashed=False):
        """Return None if signature (r || s) signs data under this key, else
        raise InvalidSignature, for any signature that is not one: of the
        wrong length, r or s out of range, or not matching."""
        curve = self._curve
        n = _size(curve)
        digest = _digest(curve, data, prehashed)
        sig = rbuf(signature)
        if len(sig) != 2 * n:
            raise InvalidSignature(f"signature must be {2 * n} bytes (r || s), got {len(sig)}")
        rc = lib.gostx_gost3410_verify(curve, self._raw, 2 * n, digest, n, sig, 2 * n)
        if rc == lib.GOSTX_EAUTH:
            raise InvalidSignature("signature does not match the data and key")
        if rc == lib.GOSTX_EFORMAT:
            raise InvalidSignature("signature is malformed: r or s is 0 or >= q")
        check(rc, "verify")

    def __eq__(self, other):
        if not isinstance(other, PublicKey):
            return NotImplemented
        return self._curve == other._curve and self._raw == other._raw

    def __hash__(self):
        return hash((int(self._curve), self._raw))

    def __setattr__(self, name, value):
        raise AttributeError(f"PublicKey objects are immutable (cannot set {name!r})")

    def __repr__(self):
        return f"<gostx.PublicKey {self._curve.param_set} {self._raw[:8].hex()}...>"

    def __reduce__(self):
        return _public_key, (int(self._curve), self._raw)

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self


def _public_key(curve, raw):
    """Unpickling: the key checked again, as from_bytes does."""
    return PublicKey.from_bytes(curve, raw)


class PrivateKey(SharedKey, _OnCurve):
    """A private key d (1 <= d < q) in C memory owned by this object, wiped by
    close(), context exit or garbage collection; C only reads it, so one
    object signs from any number of threads at once. Copies are independent
    (closing one leaves the other); pickling is refused.

    A key on a PKCS#11 token (gostx.pkcs11.open_key) is a PrivateKey with no
    d: it signs and derives on the token, every call that takes a key takes
    it, and private_bytes / private_bytes_raw / pkcs12.dump refuse it."""

    # For a token key: the gostx.pkcs11 object that owns the C token key
    # (its sessions), and _h is then a gostx_gost3410_key[1] bound to it,
    # never d. Every object (copies, TLS configs) that holds a struct bound
    # to it holds this too, so the token key lives as long as they do.
    _token = None

    def __init__(self, *args, **kwargs):
        raise GostxTypeError("PrivateKey objects come from PrivateKey.generate(curve) or "
                             "PrivateKey.from_bytes(curve, d)")

    @classmethod
    def _new(cls, curve, d, pub, oid=None):
        self = cls.__new__(cls)
        self._curve = curve
        self._oid = oid  # as PublicKey._new's
        self._pub = PublicKey._new(curve, pub, oid)
        self._h = d
        return self

    @classmethod
    def generate(cls, curve):
        """A new key pair on curve from the OS random generator."""
        curve = _as_curve(curve)
        n = _size(curve)
        d = ffi.new("uint8_t[]", n)
        pub, p = new_output(2 * n)
        rc = lib.gostx_gost3410_keygen(curve, d, n, p, 2 * n)
        if rc:
            lib.gostx_memzero(d, n)
            check(rc, "keygen")
        return cls._new(curve, d, pub)

    @classmethod
    def from_bytes(cls, curve, data):
        """The key d, big-endian (curve.key_size / 8 bytes); GostxValueError
        unless 1 <= d < q."""
        curve = _as_curve(curve)
        n = _size(curve)
        need_len(f"private key (d on {curve.param_set})", data, n)
        d = ffi.new("uint8_t[]", n)
        ffi.memmove(d, rbuf(data), n)
        pub, p = new_output(2 * n)
        rc = lib.gostx_gost3410_public_key(curve, d, n, p, 2 * n)
        if rc:
            lib.gostx_memzero(d, n)
            if rc == lib.GOSTX_EINVAL:
                raise GostxValueError(f"private key must be 1..q-1 for {curve.param_set} "
                                      "(got 0 or a number >= q)")
            check(rc, "public key")
        return cls._new(curve, d, pub)

    @classmethod
    def _on_token(cls, curve, ckey, pub, oid, token):
        self = cls._new(curve, ckey, pub, oid)
        self._token = token
        token.keys.add(self)
        return self

    def _c_key(self):
        """A gostx_gost3410_key[1] of this key for one C call, which the caller
        wipes (gostx_gost3410_key_clear); called while the key is held. A
        token key's is a copy of its bound struct (no secret in it)."""
        h = self._live()
        if self._token is not None:
            return ffi.new("gostx_gost3410_key[1]", [h[0]])
        return _key_struct(self._curve, h, self._oid, private=True)

    def _exportable(self):
        if self._token is not None:
            raise GostxValueError("the private key is on a PKCS#11 token and cannot be exported "
                                  f"(its private part never leaves the token: {self._token.uri})")

    @holding
    def public_key(self):
        """The PublicKey Q = d P."""
        self._live()
        return self._pub

    @holding
    def private_bytes_raw(self):
        """d, big-endian (a secret: the caller's to keep and wipe)."""
        self._exportable()
        d = self._live()
        return bytes(ffi.buffer(d, len(d)))

    @holding
    def private_bytes(self, encoding="PEM", password=None, *, cipher="kuznyechik",
                      iterations=2048):
        """The key as a PKCS#8 file: "PEM" text (bytes) or "DER".

        password None: PrivateKeyInfo, unencrypted, as gost-engine writes it
        (d little-endian in an OCTET STRING); a secret, as private_bytes_raw.
        password (bytes-like, not empty): EncryptedPrivateKeyInfo, PBES2 with
        PBKDF2-HMAC-Streebog-512 over iterations rounds (1..10,000,000;
        OpenSSL's default 2048) and cipher "kuznyechik" (Kuznyechik-CTR-ACPKM,
        gost-engine's choice too) or "magma" (Magma-CTR-ACPKM); the long names
        "kuznyechik-ctr-acpkm" and "magma-ctr-acpkm" do as well. A fresh salt
        and IV each call; PEM label "ENCRYPTED PRIVATE KEY". What
        `openssl pkcs8 -topk8 -v2 kuznyechik-ctr-acpkm -v2prf
        id-tc26-hmac-gost-3411-2012-512` with gost-engine writes, and what
        load_pem_private_key(data, password) reads back. cipher and iterations
        are checked always and used only with a password. The password and the
        key go to C as copies, wiped after the call, and C wipes what it
        derives from them. PBKDF2 runs on a thread of its own, so Ctrl-C
        interrupts a long one at once (it finishes alone; nothing is returned)."""
        pbe = _cipher(cipher)
        iterations = _iterations(iterations)
        self._exportable()
        d = self._live()
        if password is None:
            key = _key_struct(self._curve, d, self._oid, private=True)
            return _encode(encoding, key, lib.GOSTX_GOST3410_KEY_PRIVATE)
        pw = _password(password)
        if not len(pw):
            raise GostxValueError("password must not be empty (password=None writes the key "
                                  "unencrypted)")
        # the call runs detached and owns what it reads: the key struct (a
        # copy of d) and a copy of the password
        key = _key_struct(self._curve, d, self._oid, private=True)
        pw = _secret_copy(pw)
        params = ffi.new("gostx_gost3410_pbe_params *", [pbe, iterations, pw, len(pw)])
        return _encode(encoding, key, lib.GOSTX_GOST3410_KEY_PRIVATE, pbe=params, wipe=(pw,))

    @holding
    def sign(self, data, *, prehashed=False):
        """r || s, the signature of data (hashed with the curve's Streebog;
        prehashed=True: data is that digest). The nonce is fresh for each call
        and hedged against a broken random generator (docs/GOST3410.md), so
        two signatures of the same data differ."""
        curve = self._curve
        n = _size(curve)
        digest = _digest(curve, data, prehashed)
        sig, p = new_output(2 * n)
        if self._token is not None:
            with self._token.calls():
                check(lib.gostx_gost3410_key_sign(self._live(), digest, n, p, 2 * n), "sign")
            return sig
        check(lib.gostx_gost3410_sign(curve, self._live(), n, digest, n, p, 2 * n), "sign")
        return sig

    def _peer(self, peer_public_key):
        """(curve, size) after checking peer_public_key is a PublicKey of this curve."""
        if not isinstance(peer_public_key, PublicKey):
            raise GostxTypeError("peer_public_key must be a gostx.PublicKey, not "
                                 f"{type(peer_public_key).__name__!r}")
        curve = self._curve
        if peer_public_key.curve != curve:
            raise GostxValueError(f"peer key is on {peer_public_key.curve.param_set}, this key on "
                                  f"{curve.param_set}")
        return curve, _size(curve)

    @holding
    def exchange(self, peer_public_key, ukm, *, size=None):
        """The VKO_GOSTR3410_2012 shared key with peer_public_key (a PublicKey
        of the same curve) and the UKM (1..key_size/8 bytes, read
        little-endian): size 32 is VKO_GOSTR3410_2012_256, 64 is _512;
        None: the curve's size."""
        curve, n = self._peer(peer_public_key)
        size = n if size is None else operator.index(size)
        if size not in (32, 64):
            raise GostxValueError(f"size must be 32 (VKO_GOSTR3410_2012_256) or 64 "
                                  f"(VKO_GOSTR3410_2012_512), got {size}")
        u = rbuf(ukm)
        if not 1 <= len(u) <= n:
            raise GostxValueError(f"ukm must be 1..{n} bytes, got {len(u)}")
        out, p = new_output(size)
        with self._token_calls():
            if self._token is not None:
                rc = lib.gostx_gost3410_key_vko(self._live(), peer_public_key._raw, 2 * n, u,
                                                len(u), p, size)
            else:
                rc = lib.gostx_gost3410_vko(curve, self._live(), n, peer_public_key._raw, 2 * n,
                                            u, len(u), p, size)
            return self._agreed(out, rc, "vko")

    def _token_calls(self):
        """The context of a C call that uses this key: for a token key, a
        failure the token caused is raised as the PKCS11Error naming it
        (pkcs11._TokenKey.calls); nothing for a key held here."""
        return self._token.calls() if self._token is not None else contextlib.nullcontext()

    @staticmethod
    def _agreed(out, rc, what):
        if rc == lib.GOSTX_EINVAL:
            raise GostxValueError("peer public key has small order: no shared key with it")
        check(rc, what)
        return out

    @holding
    def keg(self, peer_public_key, h):
        """KEG of RFC 9189, the key export key of the GOST TLS 1.2 cipher
        suites: 64 bytes from this key, peer_public_key (a PublicKey of the
        same curve) and h, the 32-byte handshake hash H. UKM = H[1..16] read
        big-endian (1 when zero); 256-bit curves: KDF_TREE_GOSTR3411_2012_256
        of VKO_GOSTR3410_2012_256 with label "kdf tree" and seed H[17..24];
        512-bit curves: VKO_GOSTR3410_2012_512. What gost-engine's `openssl
        pkeyutl -derive -pkeyopt ukmhex:H` gives for a 32-byte H (and `gostx
        vko --ukm H`). Errors as exchange's. A secret, as exchange's result."""
        curve, n = self._peer(peer_public_key)
        hb = rbuf(h)
        if len(hb) != 32:
            raise GostxValueError(f"h must be 32 bytes (the handshake hash H), got {len(hb)}")
        out, p = new_output(64)
        with self._token_calls():
            if self._token is not None:
                rc = lib.gostx_gost3410_key_keg(self._live(), peer_public_key._raw, 2 * n, hb, 32,
                                                p, 64)
            else:
                rc = lib.gostx_gost3410_keg(curve, self._live(), n, peer_public_key._raw, 2 * n,
                                            hb, 32, p, 64)
            return self._agreed(out, rc, "keg")

    def _clear(self, h):
        if self._token is not None:
            lib.gostx_gost3410_key_clear(h)
        else:
            lib.gostx_memzero(h, len(h))

    def _duplicate(self):
        with held(self) as (d,):
            other = self._fresh()  # a token key's copy shares its _token
            if self._token is not None:
                other._h = ffi.new("gostx_gost3410_key[1]", [d[0]])
                self._token.keys.add(other)
                return other
            other._h = ffi.new("uint8_t[]", len(d))
            ffi.memmove(other._h, d, len(d))
            return other

    def __repr__(self):
        state = "closed" if self._closed or self._h is None else self._curve.param_set
        where = " on a PKCS#11 token" if self._token is not None else ""
        return f"<gostx.PrivateKey {state}{where}>"


def generate_private_key(curve):
    """PrivateKey.generate(curve), as cryptography's ec.generate_private_key."""
    return PrivateKey.generate(curve)


# ---- key files: PKCS#8 and SubjectPublicKeyInfo, DER and PEM (the C codec) ----

def _encoding(value):
    if not isinstance(value, str):
        raise GostxTypeError(f"encoding must be 'PEM' or 'DER', not {type(value).__name__!r}")
    enc = value.upper()
    if enc not in ("PEM", "DER"):
        raise GostxValueError(f"encoding must be 'PEM' or 'DER', got {value!r}")
    return enc


def _secret_copy(buf):
    """A C copy of a secret buffer (a key, a password) that a detached call
    owns: the caller may close or change its own meanwhile."""
    copy = ffi.new("uint8_t[]", len(buf))
    ffi.memmove(copy, buf, len(buf))
    return copy


def _pbkdf2_call(fn, *args, wipe):
    """fn(*args), a key-file call that runs PBKDF2 (up to 10,000,000
    iterations: seconds), on a thread of its own (_native.detached), so that
    Ctrl-C is not held up by it; args are the call's own buffers, and those
    in wipe are wiped when it ends, also after an interruption (then once
    the call has finished alone)."""
    def wipe_all():
        for b in wipe:
            lib.gostx_memzero(b, ffi.sizeof(b))
    try:
        rc = detached(fn, *args, abandon=wipe_all)
    except KeyboardInterrupt:
        raise
    except BaseException:
        wipe_all()
        raise
    return rc, wipe_all


def _key_struct(curve, raw, oid, private):
    """A C key object (gostx_gost3410_key) from d (private) or x || y, under
    the kept parameter set OID; the caller wipes it (_encode does)."""
    key = ffi.new("gostx_gost3410_key[1]")
    fill = lib.gostx_gost3410_key_set_private if private else lib.gostx_gost3410_key_set_public
    check(fill(key, curve, raw, len(raw), _oid_arg(oid)), "key")
    return key


def _encode(encoding, key, part, pbe=None, wipe=()):
    """A key file from the C key object key (gostx_gost3410_key_write), through
    scratch that is wiped after the copy out (a private key's file is as
    secret as the key), and the key object wiped. pbe: the file is encrypted
    (a key derived from a password): the call runs detached (_pbkdf2_call),
    and the buffers in wipe, copies the call owns, are wiped with the rest."""
    if _encoding(encoding) == "DER":
        fmt, buf = lib.GOSTX_GOST3410_DER, ffi.new("uint8_t[]", lib.GOSTX_GOST3410_DER_MAX)
    else:
        fmt, buf = lib.GOSTX_GOST3410_PEM, ffi.new("char[]", lib.GOSTX_GOST3410_PEM_MAX)
    out_len = ffi.new("size_t *")
    if pbe is not None:
        rc, wipe_all = _pbkdf2_call(lib.gostx_gost3410_key_write, key, part, fmt, pbe, buf,
                                    len(buf), out_len, wipe=(buf, key, *wipe))
        try:
            check(rc, "key encoding")
            return bytes(ffi.buffer(buf, out_len[0]))
        finally:
            wipe_all()
    try:
        check(lib.gostx_gost3410_key_write(key, part, fmt, ffi.NULL, buf, len(buf), out_len),
              "key encoding")
        return bytes(ffi.buffer(buf, out_len[0]))
    finally:
        lib.gostx_memzero(buf, len(buf))
        lib.gostx_gost3410_key_clear(key)


def _pem_buf(data):
    """PEM text (any bytes-like object) as the char buffer C reads."""
    try:
        return ffi.from_buffer("char[]", data)
    except TypeError:
        raise not_a_buffer(data) from None


def _oid_arg(oid):
    """A key's kept OID as the _oid writers take it (NULL: the default)."""
    return ffi.NULL if oid is None else ffi.new("char[]", oid)


def _form_check(src, pem):
    """The reader tells DER (a SEQUENCE, 0x30 first) from PEM; load_pem_* and
    load_der_* each take only their own form, as cryptography's loaders do."""
    form = "PEM" if pem else "DER"
    if len(src) and (src[0] == 0x30) == pem:
        raise GostxValueError(f"not a GOST R 34.10-2012 {form} key: malformed")
    return form


def _key_parts(key, want_private):
    """(curve, d or None, x || y, the parameter set's OID) of a C key object."""
    size = key[0].len
    d = None
    if want_private:
        d = ffi.new("uint8_t[]", size)
        ffi.memmove(d, key[0].d, size)
    return Curve(key[0].curve), d, bytes(ffi.buffer(key[0].q, 2 * size)), ffi.string(key[0].oid)


def _load(data, pem, want):
    """(curve, d or None, x || y, the parameter set's OID) of a DER or PEM key
    file of kind want."""
    src = rbuf(data)
    form = _form_check(src, pem)
    key = ffi.new("gostx_gost3410_key[1]")
    try:
        rc = lib.gostx_gost3410_key_read(key, src, len(src), ffi.NULL, 0)
        if rc == lib.GOSTX_EFORMAT:
            raise GostxValueError(f"not a GOST R 34.10-2012 {form} key: malformed")
        if rc == lib.GOSTX_EUNSUP:
            raise GostxValueError(f"not a GOST R 34.10-2012 {form} key gostx reads: another "
                                  "algorithm or an unknown parameter set")
        if rc == lib.GOSTX_EINVAL:
            raise GostxValueError(f"the {form} key is invalid: d = 0 or >= q, or a point off "
                                  "the curve")
        check(rc, f"{form} key")
        got = "private" if key[0].has_private else "public"
        if got != want:
            hint = (f"load_{form.lower()}_private_key(...).public_key()" if got == "private"
                    else f"load_{form.lower()}_public_key")
            raise GostxValueError(f"the {form} data holds a {got} key, not a {want} one "
                                  f"(use {hint})")
        return _key_parts(key, want == "private")
    finally:
        lib.gostx_gost3410_key_clear(key)


# ---- encrypted private keys: PKCS#8 EncryptedPrivateKeyInfo, PBES2 ----

_CIPHERS = {"kuznyechik": lib.GOSTX_GOST3410_PBE_KUZNYECHIK,
            "kuznyechik-ctr-acpkm": lib.GOSTX_GOST3410_PBE_KUZNYECHIK,
            "magma": lib.GOSTX_GOST3410_PBE_MAGMA,
            "magma-ctr-acpkm": lib.GOSTX_GOST3410_PBE_MAGMA}
_ITERATIONS_MAX = 10_000_000  # the C library's bound (keys.c, PBES2_ITER_MAX)


def _cipher(value):
    if not isinstance(value, str):
        raise GostxTypeError(f"cipher must be 'kuznyechik' or 'magma', not "
                             f"{type(value).__name__!r}")
    pbe = _CIPHERS.get(value.lower())
    if pbe is None:
        raise GostxValueError(f"cipher must be 'kuznyechik' (Kuznyechik-CTR-ACPKM) or 'magma' "
                              f"(Magma-CTR-ACPKM), got {value!r}")
    return pbe


def _iterations(value):
    if isinstance(value, bool):
        raise GostxTypeError("iterations must be an int, not 'bool'")
    try:
        n = operator.index(value)
    except TypeError:
        raise GostxTypeError(f"iterations must be an int, not {type(value).__name__!r}") from None
    if not 1 <= n <= _ITERATIONS_MAX:
        raise GostxValueError(f"iterations must be 1..{_ITERATIONS_MAX}, got {n}")
    return n


def _password(password):
    """The password as C reads it, without a copy (the caller's object is
    theirs to wipe: a bytearray can be); a str is refused, as cryptography
    does, since its encoded copy could not be wiped."""
    if isinstance(password, str):
        raise GostxTypeError("password must be bytes-like, not 'str' (encode it; a bytearray "
                             "can be wiped after use)")
    try:
        return ffi.from_buffer("uint8_t[]", password)
    except TypeError:
        raise GostxTypeError(f"password must be bytes-like or None, not "
                             f"{type(password).__name__!r}") from None


def _encrypted_scheme(src, pem):
    """None unless the data is an EncryptedPrivateKeyInfo (PEM "ENCRYPTED
    PRIVATE KEY" for pem); else (rc, text): rc 0 when gostx reads its scheme,
    GOSTX_EUNSUP (text names the scheme) or another error when it does not."""
    text = ffi.new("char[]", 256)
    if not len(src) or (src[0] == 0x30) == bool(pem):  # DER starts with a SEQUENCE
        return None
    rc = lib.gostx_gost3410_key_encryption(src, len(src), text, len(text))
    if rc == lib.GOSTX_EFORMAT:
        return None
    return rc, ffi.string(text).decode("utf-8", "replace")


def _load_encrypted(src, pem, password, scheme):
    """(curve, d, x || y, the parameter set's OID) of an encrypted private key
    file."""
    form = "PEM" if pem else "DER"
    rc, text = scheme
    if rc == lib.GOSTX_EUNSUP:
        raise GostxValueError(f"encrypted {form} key in a scheme gostx does not read: {text} "
                              "(gostx reads PBES2 with PBKDF2-HMAC-Streebog and "
                              "kuznyechik-ctr-acpkm, magma-ctr-acpkm or GOST 28147-89 CFB)")
    if rc:
        raise GostxValueError(f"encrypted {form} key gostx cannot read: "
                              f"{ffi.string(lib.gostx_strerror(rc)).decode()} (too large to be a "
                              "GOST R 34.10-2012 key?)")
    if password is None:
        raise GostxTypeError("Password was not given but private key is encrypted (pass "
                             "password=b'...')")
    pw = _secret_copy(_password(password))
    key = ffi.new("gostx_gost3410_key[1]")
    # PBKDF2 first: detached, so Ctrl-C comes at once (the file is only read)
    rc, wipe_all = _pbkdf2_call(lib.gostx_gost3410_key_read, key, src, len(src), pw, len(pw),
                                wipe=(key, pw))
    try:
        if rc == lib.GOSTX_EAUTH:
            raise GostxValueError("Bad decrypt. Incorrect password? (the encrypted key did not "
                                  "decrypt to a private key: a wrong password or a damaged file)")
        if rc == lib.GOSTX_EUNSUP:
            raise GostxValueError(f"encrypted {form} key in a scheme gostx does not read: {text} "
                                  "(more than 10,000,000 iterations?)")
        if rc == lib.GOSTX_EFORMAT:
            raise GostxValueError(f"not a GOST R 34.10-2012 encrypted {form} key: malformed")
        check(rc, f"encrypted {form} key")
        return _key_parts(key, True)
    finally:
        wipe_all()


def _load_private(data, pem, password):
    src = _pem_buf(data) if pem else rbuf(data)
    scheme = _encrypted_scheme(src, pem)
    if scheme is not None:
        return PrivateKey._new(*_load_encrypted(src, pem, password, scheme))
    if pem and ffi.buffer(src)[:100].lstrip().startswith(b"-----BEGIN ENCRYPTED PRIVATE KEY-----"):
        raise GostxValueError("not a GOST R 34.10-2012 encrypted PEM key gostx reads: malformed, "
                              "or too large for one (another algorithm's key)")
    curve, d, pub, oid = _load(data, pem, "private")
    if password is not None:
        lib.gostx_memzero(d, len(d))
        raise GostxTypeError("Password was given but private key is not encrypted (password "
                             "must be None for an unencrypted key)")
    return PrivateKey._new(curve, d, pub, oid)


def load_pem_private_key(data, password=None):
    """A PrivateKey from PEM text (bytes), as gost-engine and OpenSSL write
    it: "PRIVATE KEY" with password None, or "ENCRYPTED PRIVATE KEY" (PKCS#8
    PBES2, see PrivateKey.private_bytes) with password, bytes-like, handed to
    C as a copy that is wiped after the call (PBKDF2 runs on a thread of its
    own: Ctrl-C interrupts it at once). As cryptography's loaders: a password
    for an unencrypted key, or none for an encrypted one, is a TypeError; a
    wrong password a ValueError ("Bad decrypt"); a scheme gostx does not read
    (AES, PBKDF2 with SHA-1 or SHA-512, PKCS#12, ...) a ValueError naming it,
    with or without a password."""
    return _load_private(data, True, password)


def load_der_private_key(data, password=None):
    """A PrivateKey from PKCS#8 DER (also the older forms gost-engine reads),
    or from EncryptedPrivateKeyInfo DER with password: as
    load_pem_private_key."""
    return _load_private(data, False, password)


def load_pem_public_key(data):
    """A PublicKey from PEM "PUBLIC KEY" text (bytes)."""
    curve, _, raw, oid = _load(data, True, "public")
    return PublicKey._new(curve, raw, oid)


def load_der_public_key(data):
    """A PublicKey from SubjectPublicKeyInfo DER."""
    curve, _, raw, oid = _load(data, False, "public")
    return PublicKey._new(curve, raw, oid)
