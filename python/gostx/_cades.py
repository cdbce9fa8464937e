"""gostx.cms.enhance: the I/O around libgostx's gostx_cades_enhance
(include/gostx/cades.h, docs/ESIGN.md), which holds the policy `gostx cms
-enhance` runs too: the TSA asked through tsa_reply (a callable, a URL, or
one reply's bytes), the CRLs and OCSP responses read here, the library's
report turned into warnings and VerificationError."""
import time
import warnings

from ._cades_verify import _at, _cades_refusal, _crl_ders, _ocsp_ders, _what
from ._native import GostxError, GostxTypeError, GostxValueError, check, ffi, lib
from ._cms_common import Status, VerificationError, _as_cert, _der, _encoded, _hash, _refusal
from .ocsp import post
from .x509 import Status as X509Status
from .x509 import Store

_LEVELS = {"T": lib.GOSTX_CADES_T, "XL1": lib.GOSTX_CADES_X_LONG_TYPE1}


class _Io:
    """One enhancement's side of the callbacks: the TSA, what the library
    handed back, an exception raised in a callback (raised again after)."""

    def __init__(self, tsa_reply):
        self.used, self.error, self.out, self.keep = False, None, None, None
        if callable(tsa_reply):
            self.ask = tsa_reply
        elif isinstance(tsa_reply, str) and tsa_reply.startswith(("http://", "https://")):
            self.ask = lambda q: post(tsa_reply, q, content_type="application/timestamp-query",
                                      accept="application/timestamp-reply")
        elif isinstance(tsa_reply, (bytes, bytearray, memoryview)):
            reply = bytes(tsa_reply)
            self.ask = lambda q: self._once(reply)
        else:
            raise GostxTypeError("tsa_reply must be a callable(query) -> reply, an http(s) URL "
                                 f"or a reply's bytes, not {type(tsa_reply).__name__!r}")

    def _once(self, reply):
        if self.used:
            raise GostxValueError("tsa_reply as bytes answers one timestamp; this enhancement "
                                  "needs two (give a callable or a URL)")
        self.used = True
        return reply


@ffi.def_extern()
def gxpy_cades_tsa(ctx, kind, query, query_len, out, out_len):
    io = ffi.from_handle(ctx)
    try:
        reply = bytes(memoryview(io.ask(bytes(ffi.buffer(query, query_len)))))
    except BaseException as e:  # raised again by enhance, never lost in C
        io.error = e
        return -1
    io.keep = ffi.from_buffer("uint8_t[]", reply)
    out[0], out_len[0] = io.keep, len(reply)
    return 0


@ffi.def_extern()
def gxpy_cades_note(ctx, r):
    v, what = r.v, _what(r.ts_kind, r.ts_index)
    why = ffi.string(v.why).decode(errors="replace")
    if r.what == lib.GOSTX_CADES_R_NO_DATA:
        warnings.warn(f"{what}: no revocation data for the TSA's certificate (depth {v.depth}) in "
                      "crls or ocsp_responses: its token carries none for it", stacklevel=2)
    elif r.what == lib.GOSTX_CADES_R_CHAIN:
        where = f"{what}: the TSA's certificate at {_at(v.at)}" if r.ts_kind else \
            f"at the signature timestamp's time ({_at(v.at)})"
        warnings.warn(f"{where}: depth {v.depth}: {why} (noverify: added anyway)", stacklevel=2)


@ffi.def_extern()
def gxpy_cades_put(ctx, der, n):
    ffi.from_handle(ctx).out = bytes(ffi.buffer(der, n))
    return 0


def _stopped(r, i, rc):
    """The VerificationError (or GostxError) for the report of a failed call."""
    v, what = r.v, _what(r.ts_kind, r.ts_index)
    why = ffi.string(v.why).decode(errors="replace")
    if r.what == lib.GOSTX_CADES_R_STAMP:
        text = ffi.string(lib.gostx_cms_ts_status_name(v.ts.status)).decode()
        if v.ts.status == lib.GOSTX_CMS_TS_TOKEN:
            text += ": " + _refusal(v.ts.cms).why
        return VerificationError(100 + v.ts.status, i, f"the TSA's reply: {text}")
    if r.what == lib.GOSTX_CADES_R_CHAIN:
        where = f"{what}: the TSA's certificate at {_at(v.at)}" if r.ts_kind else \
            f"at the signature timestamp's time ({_at(v.at)})"
        return VerificationError(Status.CHAIN, i, f"{where}: depth {v.depth}: {why}",
                                 X509Status(v.x509), v.depth)
    if r.what == lib.GOSTX_CADES_R_NO_CERT:
        return VerificationError(Status.CHAIN, i, f"{what}: the TSA's certificate is not in the "
                                 "token (nor untrusted)")
    if r.what == lib.GOSTX_CADES_R_BUILD and v.status == lib.GOSTX_CADES_BAD_CRL:
        name = ffi.string(lib.gostx_x509_status_name(v.x509)).decode()
        return VerificationError(Status.CADES_BAD_CRL, i, f"CRL {v.index + 1}: {name}")
    if r.what == lib.GOSTX_CADES_R_BUILD and v.status == lib.GOSTX_CADES_BAD_OCSP:
        name = ffi.string(lib.gostx_ocsp_status_name(lib.GOSTX_OCSP_MALFORMED)).decode()
        return VerificationError(Status.CADES_BAD_OCSP, i, f"OCSP response {v.index + 1}: {name}")
    if r.what in (lib.GOSTX_CADES_R_BUILD, lib.GOSTX_CADES_R_INPUT) and v.status:
        return VerificationError(200 + v.status, i)
    if r.what == lib.GOSTX_CADES_R_INPUT:
        return VerificationError(r.cms, i)
    if r.what == lib.GOSTX_CADES_R_JUDGED:
        return _cades_refusal(v, i)
    if r.what == lib.GOSTX_CADES_R_LEVEL:
        level = ffi.string(lib.gostx_cades_level_name(r.level)).decode()
        return VerificationError(200 + lib.GOSTX_CADES_NO_REFERENCES, i, f"reached {level} only "
                                 "(validation data it had already is not all met)")
    try:
        check(rc, "cades enhance")
    except GostxError as e:
        return e


def _signer_checked(sd, i, h, params):
    """Signer i's signature checked when the content is at hand (h; an
    attached one is in sd); a detached one without it: only its certificate found."""
    one = ffi.new("gostx_cms_signed *", sd[0])
    one.n_signers = 1
    one.signers[0] = sd.signers[i]
    v = ffi.new("gostx_cms_verdict *")
    if lib.gostx_cms_signed_verify(one, h, params, v):
        no_content = h == ffi.NULL and sd.content == ffi.NULL
        if not (no_content and v.status == lib.GOSTX_CMS_NO_CONTENT and v.signer_cert != ffi.NULL):
            v.signer = i
            raise _refusal(v)


def _blobs(items):
    """A list of DER blobs as C arrays: pointers, lengths, and what they point into."""
    keep = [ffi.from_buffer("uint8_t[]", d) for d in items]
    ptrs = ffi.new("const uint8_t *[]", keep or 1)
    return ptrs, ffi.new("size_t[]", [len(d) for d in items] or 1), keep


def enhance(signature, content=None, *, to="XL1", tsa_reply, store, ocsp_responses=(), crls=(),
            certs=None, untrusted=(), at=None, encoding="DER", noverify=False):
    """Every signer of a CAdES signature (DER or PEM bytes, or a path) made
    CAdES-T (to="T": a signature-time-stamp) or CAdES-X Long Type 1
    (to="XL1", the default: also the chain above the signer and the
    revocation data as complete-certificate- and -revocation-references,
    certificate-values and revocation-values, then a CAdES-C-time-stamp),
    by the library's gostx_cades_enhance, as `gostx cms -enhance`. A layer
    already there is kept.

    tsa_reply: the TSA, a callable taking a DER TimeStampReq and returning
    the TimeStampResp (or token), an http(s):// URL (RFC 3161 3.4 over
    urllib), or one reply's bytes (for one timestamp only). store: a
    gostx.x509.Store of the trust anchors the signer's chain and the TSA's
    must reach (None: no chain check, every CRL and response carried).
    content: the detached content (bytes-like, a path or a binary file);
    given, or attached, the signature is verified first. ocsp_responses:
    OCSPResponses (DER, gostx.ocsp Response, or paths), crls: CRLs (DER, PEM
    or paths), certs: the chain above the signer, its issuer first (default:
    the path store builds through the signature's certificates and
    untrusted). at: the time chains are checked at (default now). With a
    store the signer's path is judged at its signature-time-stamp's time
    with crls and ocsp_responses (every certificate but the anchor needs a
    status), each timestamp's TSA's path now: a revocation (or no data for
    the signer's path) raises VerificationError (CHAIN, x509_status the
    lib/x509 status); noverify=True makes those warnings and adds the data
    anyway. The CRLs and responses for the signer's path go into its
    revocation-values, those for a TSA's path into that timestamp's token
    (RFC 5126 Annex B.2; none: a warning). Returns DER, or PEM with
    encoding="PEM". Raises VerificationError (status TS_*: a TSA reply that
    does not check; CADES_BAD_CRL, CADES_BAD_OCSP, CADES_BAD_CERT: an input
    that is none; or the signature's own failure) and GostxValueError /
    GostxTypeError for misuse."""
    if to not in _LEVELS:
        raise GostxValueError(f"to must be 'T' or 'XL1', not {to!r}")
    if store is not None and not isinstance(store, Store):
        raise GostxTypeError(f"store must be a gostx.x509.Store or None, not {type(store).__name__!r}")
    if encoding not in ("DER", "PEM"):
        raise GostxValueError(f"encoding must be 'PEM' or 'DER', not {encoding!r}")
    io = _Io(tsa_reply)
    chain = [] if certs is None else [_as_cert(c, "certs").public_bytes("DER") for c in certs]
    lists = [_blobs(chain), _blobs(_crl_ders(crls)), _blobs(_ocsp_ders(ocsp_responses))]
    have = ffi.new("gostx_cades_validation *", [lists[0][0], lists[1][0], lists[2][0], lists[0][1],
                                                 lists[1][1], lists[2][1], len(lists[0][2]),
                                                 len(lists[1][2]), len(lists[2][2])])
    more = [_as_cert(c, "untrusted") for c in untrusted]
    now = int(time.time()) if at is None else int(at.timestamp() if hasattr(at, "timestamp") else at)
    arr = ffi.new("gostx_x509_cert[]", [c._c[0] for c in more] or 1)
    params = ffi.new("gostx_cms_verify_params *",
                     [store._h if store is not None else ffi.NULL, arr, len(more), now])
    der = _der(signature)
    buf = ffi.from_buffer("uint8_t[]", der)
    sd, st = ffi.new("gostx_cms_signed *"), ffi.new("gostx_cms_status *")
    if lib.gostx_cms_signed_parse(buf, len(der), sd, st):
        raise VerificationError(st[0])
    if sd.content != ffi.NULL and content is not None:
        raise GostxValueError("the signature has its content attached: content must be None")
    h = ffi.NULL
    if sd.content == ffi.NULL and content is not None and lib.gostx_cms_signed_hashes(sd):
        h = _hash(content, lib.gostx_cms_signed_hashes(sd))
    handle = ffi.new_handle(io)
    fetch = ffi.new("gostx_cades_fetch *", {"ctx": handle, "tsa": lib.gxpy_cades_tsa,
                                            "note": lib.gxpy_cades_note, "put": lib.gxpy_cades_put})
    r = ffi.new("gostx_cades_report *")
    for i in range(sd.n_signers):
        _signer_checked(sd, i, h, params)  # sd: the message as it is now
        opts = ffi.new("gostx_cades_enhance_opts *", [i, _LEVELS[to], params, have, bool(noverify)])
        rc = lib.gostx_cades_enhance(buf, len(der), opts, fetch, r)
        if io.error is not None:
            raise io.error
        if rc:
            raise _stopped(r, i, rc)
        der, io.out = io.out, None
        buf = ffi.from_buffer("uint8_t[]", der)
        check(lib.gostx_cms_signed_parse(buf, len(der), sd, st), "cms parse")
    return _encoded(der, encoding)
