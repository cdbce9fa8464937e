"""CMS signatures with GOST keys (libgostx's include/gostx/cms.h, docs/CMS.md):
sign(...) makes a SignedData (detached by default, CAdES-BES with
cades=True), verify(...) checks one as `gostx cms -verify` does: every
signer's messageDigest, signature, signingCertificateV2, keyUsage, chain
to a gostx.x509.Store, and the RFC 3161 timestamps embedded (CAdES-T).

    sig = gostx.cms.sign("doc.pdf", cert, key, cades=True)       # a path: read in chunks
    info = gostx.cms.verify(sig, "doc.pdf", store=store)

The content is bytes-like, a path (str or os.PathLike) or a binary file
object; a detached one is hashed in chunks (constant memory, any size). A
refusal raises VerificationError naming the check (status, a Status).

encrypt(...) makes an EnvelopedData (KeyTransport2019, Kuznyechik- or
Magma-CTR-ACPKM, with OMAC on request) for recipients' certificates,
decrypt(...) opens one with a recipient's certificate and key as `gostx cms
-encrypt` / `-decrypt` do; a refusal raises DecryptionError (status).

    p7m = gostx.cms.encrypt(b"secret", [bob_cert], omac=True)
    gostx.cms.decrypt(p7m, bob_cert, bob_key)"""
import datetime
import enum
import time
from typing import NamedTuple

from ._cades import enhance
from ._cades_verify import _cades_refusal, judge_at_timestamp, revocation
from ._cms_common import (Status, VerificationError, _as_cert, _der, _encoded, _hash, _refusal, _utc,
                          _whole)
from ._native import GostxError, GostxTypeError, GostxValueError, check, ffi, held, lib
from .gost3410 import PrivateKey
from .x509 import Certificate, Store

__all__ = ["sign", "verify", "enhance", "encrypt", "decrypt", "Signer", "Verified", "Status",
           "Level", "VerificationError", "DecryptionError"]


class DecryptionError(GostxError, ValueError):
    """An EnvelopedData the library would not decrypt: status (Status:
    RECIPIENT_NOT_FOUND, WRONG_KEY, BAD_MAC, MALFORMED, ...) and its text."""

    def __init__(self, status):
        self.status = Status(status)
        super().__init__(f"CMS decryption failed: {self.status.name}: {self.status.text}")


class Level(enum.IntEnum):
    """The CAdES form a signer reached (gostx_cades_level), lowest first;
    str() is its name ("CAdES-X Long Type 1"). X_TYPE1: references and a
    CAdES-C-time-stamp without all the values."""
    BES = lib.GOSTX_CADES_BES
    T = lib.GOSTX_CADES_T
    C = lib.GOSTX_CADES_C
    X_LONG = lib.GOSTX_CADES_X_LONG
    X_TYPE1 = lib.GOSTX_CADES_X_TYPE1
    X_LONG_TYPE1 = lib.GOSTX_CADES_X_LONG_TYPE1

    def __str__(self):
        return ffi.string(lib.gostx_cades_level_name(self)).decode()


class Signer(NamedTuple):
    """A signer that verified: its certificate, its signingTime (an aware
    UTC datetime, or None), the times of its verified RFC 3161
    signature timestamps (CAdES-T), oldest first, and the CAdES level its
    unsigned attributes reached (a Level; every reference met by its value
    and every timestamp checked, offline)."""
    certificate: Certificate
    signing_time: "datetime.datetime | None"
    timestamps: list
    level: Level = Level.BES


class Verified(NamedTuple):
    """verify()'s result: the signers and, for an attached signature, the
    content (None when detached)."""
    signers: list
    content: "bytes | None"


def sign(content, cert, key, *, detached=True, cades=False, chain=(), signing_time=True,
         attributes=True, encoding="DER"):
    """A CMS SignedData of content by key (a gostx.PrivateKey, GOST R
    34.10-2012 256 or 512) whose certificate is cert (gostx.x509.Certificate
    or its DER/PEM bytes): Streebog-256 or -512 by the key's size, the
    signed attributes contentType, messageDigest, signingTime
    (signing_time: True now, a datetime, or False for none) and, with
    cades=True, signingCertificateV2 (CAdES-BES); attributes=False signs the
    content itself. chain: more certificates to put in the message.
    content: bytes-like, a path or a binary file; detached (the default) it
    is hashed in chunks. Returns DER bytes, or PEM ("CMS") with
    encoding="PEM"."""
    if not isinstance(key, PrivateKey):
        raise GostxTypeError(f"key must be a gostx PrivateKey, not {type(key).__name__!r}")
    cert = _as_cert(cert, "cert")
    extra = [_as_cert(c, "chain") for c in chain]
    if cades and not attributes:
        raise GostxValueError("cades=True needs the signed attributes (attributes=True)")
    flags = (0 if detached else lib.GOSTX_CMS_ATTACHED) | (lib.GOSTX_CMS_CADES if cades else 0) | \
        (0 if attributes else lib.GOSTX_CMS_NO_ATTRS)
    when = int(time.time())
    if signing_time is False:
        flags |= lib.GOSTX_CMS_NO_SIGNING_TIME
    elif signing_time is not True:
        when = int(signing_time.timestamp())
    body = None if detached else _whole(content)
    want = lib.GOSTX_CMS_HASH_256 if key.curve.key_size == 256 else lib.GOSTX_CMS_HASH_512
    h = _hash(content if detached else body, want)
    certs = ffi.new("gostx_x509_cert[]", max(len(extra), 1))
    for i, c in enumerate(extra):
        certs[i] = c._c[0]
    params = ffi.new("gostx_cms_sign_params *", [flags, when, certs if extra else ffi.NULL, len(extra)])
    src = ffi.NULL if body is None else ffi.from_buffer(body)
    n = len(body) if body is not None else 0
    with held(key), key._token_calls():
        k = key._c_key()
        try:
            signer = ffi.new("gostx_cms_signer *", [cert._c, k])
            need = ffi.new("size_t *")
            rc = lib.gostx_cms_sign(signer, 1, params, h, src, n, ffi.NULL, 0, need)
            if rc == lib.GOSTX_EINVAL:
                raise GostxValueError("key is not the private key of cert (or not a 2012 key)")
            check(rc, "cms sign")
            out = ffi.new("uint8_t[]", need[0])
            check(lib.gostx_cms_sign(signer, 1, params, h, src, n, out, need[0], need), "cms sign")
        finally:
            lib.gostx_gost3410_key_clear(k)
    return _encoded(bytes(ffi.buffer(out, need[0])), encoding)


# ---- verification ----

def _timestamps(sd, i, params):
    """The times of signer i's embedded timestamps, each checked."""
    si = sd.signers[i]
    toks, lens, n = ffi.new("const uint8_t *[8]"), ffi.new("size_t[8]"), ffi.new("size_t *")
    if lib.gostx_cms_ts_tokens(ffi.addressof(sd.signers, i), toks, lens, 8, n):
        raise VerificationError(Status.MALFORMED, i, "unsigned attributes malformed")
    if n[0] > 8:
        raise VerificationError(Status.TOO_MANY, i, f"{n[0]} signature timestamps, more than the 8 checked")
    times = []
    t, st = ffi.new("gostx_cms_ts_token *"), ffi.new("gostx_cms_ts_status *")
    v = ffi.new("gostx_cms_ts_verdict *")
    # RFC 3161 over the signature value: its digests of both sizes, as the
    # token names the one it stamps (gostx_tsa_verify, no nonce or policy)
    h = ffi.new("gostx_cms_hash *")
    check(lib.gostx_cms_hash_init(h, lib.GOSTX_CMS_HASH_256 | lib.GOSTX_CMS_HASH_512), "hash")
    check(lib.gostx_cms_hash_update(h, si.signature, si.signature_len), "hash")
    check(lib.gostx_cms_hash_final(h), "hash")
    e = ffi.new("gostx_tsa_expect *", {"hash": h})
    for k in range(n[0]):
        if lib.gostx_cms_ts_parse(toks[k], lens[k], t, st):
            raise VerificationError(100 + st[0], i)
        if lib.gostx_tsa_verify(t, e, params, v):
            if v.status == lib.GOSTX_CMS_TS_TOKEN:
                inner = _refusal(v.cms)
                raise VerificationError(Status.TS_TOKEN, i, f"{Status.TS_TOKEN.text}: {inner.why}",
                                        inner.x509_status, inner.depth)
            raise VerificationError(100 + v.status, i)
        times.append(_utc(t.gen_time))
    return sorted(times)


def _level(sd, i, params, more=ffi.NULL):
    """Signer i's CAdES layers checked (gostx_cades_verify_with, more the
    caller's revocation data for the TSAs' paths): the Level, what they
    hold (a gostx_cades_info) and a TSA's path refused (a
    VerificationError to raise after the signer's own path, or None)."""
    v, info = ffi.new("gostx_cades_verdict *"), ffi.new("gostx_cades_info *")
    if lib.gostx_cades_verify_with(sd, i, params, more, info, v):
        err = _cades_refusal(v, i)
        if v.ts_kind and v.status == lib.GOSTX_CADES_TSA_PATH:
            return Level(v.level), info, err
        raise err
    return Level(v.level), info, None


def verify(signature, content=None, *, store, untrusted=(), at=None, crls=(), ocsp_responses=()):
    """Verify a CMS SignedData (DER or PEM bytes, or a path) as gostx cms
    -verify does, content the detached content (bytes-like, a path or a
    binary file, hashed in chunks; None for an attached one). store: a
    gostx.x509.Store whose anchors the signers' chains must reach, or None
    to check no chain (openssl's -noverify: say so explicitly). untrusted:
    more certificates (Certificate or DER/PEM bytes) to build chains with;
    at: the time chains are checked at (datetime or seconds; default now).
    Returns Verified(signers, content), each signer with the CAdES Level
    reached. With a store, an X Long (Type 1) signer's whole path (its
    certificate and every CA above it) is checked by lib/x509 at its
    signature-time-stamp's time, not at `at` (RFC 5126 6.3.2 note 2: its
    certificates may have expired since; a signature-time-stamp's TSA is
    judged at the CAdES-C-time-stamp's time, that one's at `at`), every certificate but the anchor needing
    a status from the signature's revocation values plus crls (DER, PEM or
    paths) and ocsp_responses (DER, gostx.ocsp.Response or paths): an OCSP
    response decides first, then the CRLs (docs/ESIGN.md). Given crls or
    ocsp_responses, any signer's path is checked so (at its earliest
    signature-time-stamp, or at `at` without one). A refusal there is
    Status.CHAIN with x509_status lib/x509's (REVOKED, reason and date in
    why; OCSP_UNKNOWN, OCSP_STALE, NO_REVOCATION_DATA, ...) and depth the
    certificate's (0 the signer). Each timestamp's TSA certificate of such a
    signer is judged the same way (its token's own revocation values, the
    signature's and the caller's; a signature-time-stamp's at the earliest
    CAdES-C-time-stamp's time, a CAdES-C-time-stamp's at `at`): revoked is
    Status.CHAIN, why naming the timestamp; no data for it is let pass, as
    the command does. Raises VerificationError naming the first
    failure (GostxTypeError / GostxValueError for misuse)."""
    if store is not None and not isinstance(store, Store):
        raise GostxTypeError(f"store must be a gostx.x509.Store or None, not {type(store).__name__!r}")
    der = _der(signature)
    sd, st = ffi.new("gostx_cms_signed *"), ffi.new("gostx_cms_status *")
    buf = ffi.from_buffer(der)
    if lib.gostx_cms_signed_parse(buf, len(der), sd, st):
        raise VerificationError(st[0])
    attached = sd.content != ffi.NULL
    if attached and content is not None:
        raise GostxValueError("the signature has its content attached: content must be None")
    if not attached and content is None:
        raise GostxValueError("a detached signature: its content is needed")
    h = ffi.NULL
    if not attached and lib.gostx_cms_signed_hashes(sd):
        h = _hash(content, lib.gostx_cms_signed_hashes(sd))
    more = [_as_cert(c, "untrusted") for c in untrusted]
    certs = ffi.new("gostx_x509_cert[]", max(len(more), 1))
    for i, c in enumerate(more):
        certs[i] = c._c[0]
    now = int(time.time()) if at is None else int(at.timestamp() if hasattr(at, "timestamp") else at)
    params = ffi.new("gostx_cms_verify_params *",
                     [store._h if store is not None else ffi.NULL, certs, len(more), now])
    v = ffi.new("gostx_cms_verdict *")
    one = ffi.new("gostx_cms_signed *", sd[0])  # each signer alone: its own certificate said
    one.n_signers = 1
    signers = []
    # an X Long signer's chain and tokens are judged at the times its
    # timestamps prove (gostx_cades_judged_at_timestamp): checked here
    # without the chain, then by _level and judge_at_timestamp
    no_chain = ffi.new("gostx_cms_verify_params *")
    no_chain[0] = params[0]
    no_chain.store = ffi.NULL
    for i in range(sd.n_signers):
        si = one.signers[0] = sd.signers[i]
        later = store is not None and lib.gostx_cades_judged_at_timestamp(ffi.addressof(sd.signers, i))
        if lib.gostx_cms_signed_verify(one, h, no_chain if later else params, v):
            v.signer = i
            raise _refusal(v)
        cert = Certificate._parse(ffi.buffer(v.signer_cert.der, v.signer_cert.der_len))
        when = _utc(si.signing_time) if si.has_signing_time else None
        times = _timestamps(sd, i, no_chain if later else params)
        extra, held = revocation(i, crls, ocsp_responses) if store is not None else (ffi.NULL, None)
        level, info, tsa_refused = _level(sd, i, params, extra)
        if store is not None and (later or level in (Level.X_LONG, Level.X_LONG_TYPE1) or crls or
                                  ocsp_responses):
            judge_at_timestamp(sd, i, info, cert, store, more, now, crls, ocsp_responses)
        if tsa_refused:
            raise tsa_refused
        del held
        signers.append(Signer(cert, when, times, level))
    return Verified(signers, bytes(ffi.buffer(sd.content, sd.content_len)) if attached else None)


# ---- EnvelopedData ----

_CIPHERS = {("kuznyechik", False): lib.GOSTX_CMS_KUZNYECHIK,
            ("kuznyechik", True): lib.GOSTX_CMS_KUZNYECHIK_OMAC,
            ("magma", False): lib.GOSTX_CMS_MAGMA,
            ("magma", True): lib.GOSTX_CMS_MAGMA_OMAC,
            ("gost89", False): lib.GOSTX_CMS_GOST89}


def encrypt(content, recipients, *, cipher="kuznyechik", omac=False, encoding="DER", kari=False,
            key_id=False):
    """A CMS EnvelopedData of content (bytes-like, a path or a binary file,
    read whole) for each of recipients (gostx.x509.Certificate or DER/PEM
    bytes; GOST R 34.10-2012 256 or 512 keys, 1 to 8 of them), a
    KeyTransRecipientInfo each (KeyTransport2019), or with kari=True a
    KeyAgreeRecipientInfo each (an ephemeral originator key). key_id=True
    names them by subjectKeyIdentifier (openssl cms -keyid), not issuer and
    serial number. cipher: "kuznyechik" or "magma" (CTR-ACPKM); omac=True
    authenticates the content (without it a changed ciphertext decrypts to
    changed bytes). cipher="gost89": GOST 28147-89 CFB (RFC 4490, openssl
    cms -gost89) with RFC 4490's key transport (VKO + CryptoPro key wrap),
    by issuer and serial (no kari, no key_id); it has no OMAC and is not
    authenticated. Returns DER bytes, or PEM ("CMS") with encoding="PEM"."""
    if cipher == "gost89" and omac:
        raise GostxValueError("cipher 'gost89' has no OMAC (CFB is not authenticated)")
    if cipher == "gost89" and (kari or key_id):
        raise GostxValueError("cipher 'gost89' recipients are RFC 4490 key transport "
                              "by issuer and serial (no kari, no key_id)")
    try:
        alg = _CIPHERS[(cipher, bool(omac))]
    except (KeyError, TypeError):
        raise GostxValueError(f"cipher must be 'kuznyechik', 'magma' or 'gost89', not {cipher!r}") from None
    if isinstance(recipients, (Certificate, bytes, bytearray, memoryview)):
        raise GostxTypeError("recipients must be a list of certificates")
    certs = [_as_cert(c, "recipient") for c in recipients]
    if not 1 <= len(certs) <= lib.GOSTX_CMS_MAX_RECIPIENTS:
        raise GostxValueError(f"1 to {lib.GOSTX_CMS_MAX_RECIPIENTS} recipients, not {len(certs)}")
    arr = ffi.new("gostx_x509_cert[]", len(certs))
    for i, c in enumerate(certs):
        arr[i] = c._c[0]
    params = ffi.new("gostx_cms_encrypt_params *",
                     {"cipher": alg, "kari": bool(kari), "key_id": bool(key_id)})
    body = _whole(content)
    need = ffi.new("size_t *")
    rc = lib.gostx_cms_encrypt_with(arr, len(certs), params, body, len(body), ffi.NULL, 0, need)
    if rc == lib.GOSTX_EINVAL:
        raise GostxValueError("a recipient's certificate holds no GOST R 34.10-2012 key" +
                              (" or no subjectKeyIdentifier (key_id)" if key_id else ""))
    check(rc, "cms encrypt")
    out = ffi.new("uint8_t[]", need[0])
    check(lib.gostx_cms_encrypt_with(arr, len(certs), params, body, len(body), out, need[0], need),
          "cms encrypt")
    return _encoded(bytes(ffi.buffer(out, need[0])), encoding)


def _enveloped_der(message):
    try:
        return _der(message)
    except VerificationError as e:
        raise DecryptionError(e.status) from None


def decrypt(message, cert, key, *, originator=None):
    """The content of a CMS EnvelopedData (DER or PEM bytes, or a path) for
    the recipient cert (gostx.x509.Certificate or DER/PEM bytes) whose
    private key is key (a gostx.PrivateKey); cert None: every recipient of
    the key's size is tried (openssl cms -decrypt with -inkey alone).
    originator: a static originator's certificate (a KeyAgreeRecipientInfo
    that names one). Raises DecryptionError: RECIPIENT_NOT_FOUND (cert is
    not a recipient; without cert: none opens with key),
    WRONG_KEY (KImp15's MAC: the encrypted key changed), BAD_MAC (an OMAC
    content changed), MALFORMED, UNKNOWN_ALGORITHM, ...; GostxValueError
    when key is not cert's private key."""
    if not isinstance(key, PrivateKey):
        raise GostxTypeError(f"key must be a gostx PrivateKey, not {type(key).__name__!r}")
    cert_c = ffi.NULL if cert is None else _as_cert(cert, "cert")._c
    orig = ffi.NULL if originator is None else _as_cert(originator, "originator")._c
    der = _enveloped_der(message)
    env, st = ffi.new("gostx_cms_enveloped *"), ffi.new("gostx_cms_status *")
    buf = ffi.from_buffer(der)
    if lib.gostx_cms_enveloped_parse(buf, len(der), env, st):
        raise DecryptionError(st[0])
    out = ffi.new("uint8_t[]", max(env.content.ciphertext_len, 1))
    n = ffi.new("size_t *")
    with held(key), key._token_calls():  # the checks inside: a token's failure named
        k = key._c_key()
        try:
            rc = lib.gostx_cms_enveloped_decrypt(env, cert_c, k, orig, out, len(out), n, st)
        finally:
            lib.gostx_gost3410_key_clear(k)
        if rc == lib.GOSTX_EINVAL:
            raise GostxValueError("key is not the private key of cert")
        if rc in (lib.GOSTX_EAUTH, lib.GOSTX_EFORMAT):
            raise DecryptionError(st[0])
        check(rc, "cms decrypt")
    plain = bytes(ffi.buffer(out, n[0]))
    ffi.memmove(out, b"\0" * len(out), len(out))  # the plaintext's copy we no longer need
    return plain

