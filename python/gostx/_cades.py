"""gostx.cms.enhance: a CAdES signature made CAdES-T or CAdES-X Long Type 1
(RFC 5126; libgostx's include/gostx/cades.h, docs/ESIGN.md), the steps
`gostx cms -enhance` takes: a signature-time-stamp over the signature
value, then the signer's chain and the CRLs and OCSP responses as
complete references and values, then a CAdES-C-time-stamp over them. Each
TSA reply is checked (imprint, token signature, TSA EKU and chain) before
it is embedded; only the signer's unsigned attributes grow."""
import time
import warnings

from ._native import GostxTypeError, GostxValueError, check, ffi, lib
from .cms import (Status, VerificationError, _as_cert, _der, _encoded, _hash, _is_path,
                  _refusal)
from .ocsp import Response, post
from .x509 import Certificate, Store
from .x509 import Status as X509Status

_LEVELS = ("T", "XL1")
_CRL_MAX = 16 << 20  # a CRL read from PEM at most this large


class _Replies:
    """tsa_reply as a function of the query: a callable, a URL (POSTed as
    application/timestamp-query, RFC 3161 3.4), or one reply's bytes."""

    def __init__(self, tsa_reply):
        self.used = False
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


class _Parsed:
    """A SignedData parsed, with the buffer its views point into."""

    def __init__(self, der):
        self.der = der
        self.buf = ffi.from_buffer("uint8_t[]", der)
        self.sd, st = ffi.new("gostx_cms_signed *"), ffi.new("gostx_cms_status *")
        if lib.gostx_cms_signed_parse(self.buf, len(der), self.sd, st):
            raise VerificationError(st[0])


def _grow(call, *args):
    """A call that writes a new SignedData (out, cap, out_len, then a
    gostx_cades_status but for gostx_cms_ts_embed): its size, then it."""
    n, st = ffi.new("size_t *"), ffi.new("gostx_cades_status *")
    tail = () if call is lib.gostx_cms_ts_embed else (st,)
    rc = call(*args, ffi.NULL, 0, n, *tail)
    if rc == 0:
        out = ffi.new("uint8_t[]", n[0])
        rc = call(*args, out, n[0], n, *tail)
        if rc == 0:
            return bytes(ffi.buffer(out, n[0]))
    if rc == lib.GOSTX_EFORMAT:  # ts_embed names no status: its attributes are malformed
        raise VerificationError(200 + (st[0] or lib.GOSTX_CADES_MALFORMED))
    check(rc, "cades")


def _timestamp(data, digest_len, replies, params):
    """A TSA's token over data, checked: the token's DER."""
    n = ffi.new("size_t *")
    q = ffi.new("uint8_t[]", 256)
    check(lib.gostx_cms_ts_request(data, len(data), digest_len, q, len(q), n), "ts request")
    reply = bytes(memoryview(replies.ask(bytes(ffi.buffer(q, n[0])))))
    t, st = ffi.new("gostx_cms_ts_token *"), ffi.new("gostx_cms_ts_status *")
    if lib.gostx_cms_ts_parse(reply, len(reply), t, st):
        raise VerificationError(100 + st[0], why=f"the TSA's reply: {_ts_text(st[0])}")
    v = ffi.new("gostx_cms_ts_verdict *")
    if lib.gostx_cms_ts_verify(t, data, len(data), params, v):
        why = _ts_text(v.status)
        if v.status == lib.GOSTX_CMS_TS_TOKEN:
            why += ": " + _refusal(v.cms).why
        raise VerificationError(100 + v.status, why=f"the TSA's reply: {why}")
    return bytes(ffi.buffer(t.token, t.token_len))


def _ts_text(status):
    return ffi.string(lib.gostx_cms_ts_status_name(status)).decode()


def _crl_ders(crls):
    """Each CRL as DER: DER bytes, PEM ("X509 CRL" blocks, each taken) or a path."""
    out = []
    for c in crls:
        if _is_path(c):
            with open(c, "rb") as f:
                c = f.read(_CRL_MAX + 1)
        data = bytes(memoryview(c))
        if not data.lstrip().startswith(b"-----"):
            out.append(data)
            continue
        src, pos = ffi.from_buffer("char[]", data), ffi.new("size_t *", 0)
        der, n = ffi.new("uint8_t[]", len(data)), ffi.new("size_t *")
        found = 0
        while (rc := lib.gostx_x509_crl_pem_next(src, len(data), pos, der, len(der), n)) == 1:
            out.append(bytes(ffi.buffer(der, n[0])))
            found += 1
        if rc != 0 or not found:
            raise VerificationError(Status.CADES_BAD_CRL, why="a CRL's PEM block is malformed")
    return out


def _ocsp_ders(responses):
    out = []
    for r in responses:
        if isinstance(r, Response):
            out.append(r.der)
        elif _is_path(r):
            with open(r, "rb") as f:
                out.append(f.read())
        else:
            out.append(bytes(memoryview(r)))
    return out


def _blobs(items):
    keep = [ffi.from_buffer("uint8_t[]", d) for d in items]
    ptrs = ffi.new("const uint8_t *[]", max(len(keep), 1))
    lens = ffi.new("size_t[]", max(len(keep), 1))
    for i, (p, d) in enumerate(zip(keep, items)):
        ptrs[i], lens[i] = p, len(d)
    return keep, ptrs, lens, len(items)


def _validation_struct(chain, crls, ocsps):
    """A gostx_cades_validation of DER lists (chain: the certificates above,
    its issuer first), and what it points into."""
    if max(len(chain), len(crls), len(ocsps)) > lib.GOSTX_CADES_MAX:
        raise GostxValueError(f"at most {lib.GOSTX_CADES_MAX} certificates, CRLs and OCSP "
                              "responses each")
    v = ffi.new("gostx_cades_validation *")
    hold = []
    for name, items in (("cert", chain), ("crl", crls), ("ocsp", ocsps)):
        keep, ptrs, lens, n = _blobs(items)
        hold += [keep, ptrs, lens]
        setattr(v, name + "s", ptrs)
        setattr(v, name + "_len", lens)
        setattr(v, "n_" + name + "s", n)
    return v, hold


def _validation(p, i, signer_cert, chain, crls, ocsps):
    """p's signer i with complete references and values (X Long)."""
    v, hold = _validation_struct([c.public_bytes("DER") for c in chain], crls, ocsps)
    return _grow(lib.gostx_cades_add_validation, p.sd, i, signer_cert._c, v,
                 lib.GOSTX_CADES_REFS | lib.GOSTX_CADES_VALUES)


def _signer_cert(p, i, h, params):
    """Signer i's certificate, its signature checked first when the
    content is at hand (h; an attached one is in p)."""
    one = ffi.new("gostx_cms_signed *", p.sd[0])
    one.n_signers = 1
    one.signers[0] = p.sd.signers[i]
    v = ffi.new("gostx_cms_verdict *")
    if lib.gostx_cms_signed_verify(one, h, params, v):
        no_content = h == ffi.NULL and p.sd.content == ffi.NULL
        if not (no_content and v.status == lib.GOSTX_CMS_NO_CONTENT and v.signer_cert != ffi.NULL):
            v.signer = i
            raise _refusal(v)
    return Certificate._parse(ffi.buffer(v.signer_cert.der, v.signer_cert.der_len))


def _chain_above(cert, p, more, store, now):
    """The certificates above cert, its issuer first: the path store builds."""
    if store is None:
        return []
    pool = [Certificate._parse(ffi.buffer(p.sd.certs[k].der, p.sd.certs[k].der_len))
            for k in range(p.sd.n_certs)] + more
    return store.verify(cert, untrusted=[c for c in pool if c != cert], at=now)[1:]


def _info(p, i):
    info, st = ffi.new("gostx_cades_info *"), ffi.new("gostx_cades_status *")
    if lib.gostx_cades_parse(ffi.addressof(p.sd.signers, i), info, st):
        raise VerificationError(200 + st[0], i)
    return info


def _esc_data(p, i):
    """The bytes signer i's CAdES-C-time-stamp covers (RFC 5126 6.3.5)."""
    n, st = ffi.new("size_t *"), ffi.new("gostx_cades_status *")
    si = ffi.addressof(p.sd.signers, i)
    if lib.gostx_cades_ts_data(si, lib.GOSTX_CADES_TS_ESC, ffi.NULL, 0, n, st) == 0:
        data = ffi.new("uint8_t[]", n[0])
        rc = lib.gostx_cades_ts_data(si, lib.GOSTX_CADES_TS_ESC, data, n[0], n, st)
    else:
        rc = lib.GOSTX_EFORMAT
    if rc:
        raise VerificationError(200 + st[0], i)
    return bytes(ffi.buffer(data, n[0]))


class _Sources:
    """What enhance judges paths with and takes validation data from."""

    def __init__(self, store, pool, now, crls, ocsps, params, noverify):
        self.store, self.pool, self.now, self.params = store, pool, now, params
        self.crls, self.ocsps, self.noverify = crls, ocsps, noverify


def _signer_values(p, i, cert, above, ctx):
    """The signer's path judged at its signature-time-stamp's time with the
    CRLs and responses (a refusal raised, a warning with noverify), and those
    of them for its path (all of them without a store: no path is built)."""
    if ctx.store is None:
        return ctx.crls, ctx.ocsps
    from ._cades_tsa import for_path
    info = _info(p, i)
    when = min((_token_time(info.sig_ts[k], info.sig_ts_len[k]) for k in range(info.n_sig_ts)),
               default=ctx.now)
    pool = [cert._c[0]] + [c._c[0] for c in above] + ctx.pool
    st, res, keep = _judge(ctx.store, pool, [], when, ctx.crls, ctx.ocsps, i)
    if st != lib.GOSTX_X509_OK:
        err = _chain_error(i, st, res, when, True)
        if not ctx.noverify:
            raise err
        warnings.warn(f"{err.why} (noverify: added anyway)", stacklevel=3)
    return for_path([res.path[k] for k in range(res.path_len)], ctx.crls, ctx.ocsps, keep)


def _token_time(der, n):
    t = ffi.new("gostx_cms_ts_token *")
    check(lib.gostx_cms_ts_parse(der, n, t, ffi.NULL), "ts parse")
    return t.gen_time


def enhance(signature, content=None, *, to="XL1", tsa_reply, store, ocsp_responses=(), crls=(),
            certs=None, untrusted=(), at=None, encoding="DER", noverify=False):
    """Every signer of a CAdES signature (DER or PEM bytes, or a path) made
    CAdES-T (to="T": a signature-time-stamp) or CAdES-X Long Type 1
    (to="XL1", the default: also the chain above the signer and the
    revocation data as complete-certificate- and -revocation-references,
    certificate-values and revocation-values, then a CAdES-C-time-stamp),
    as `gostx cms -enhance` does. A layer already there is kept.

    tsa_reply: the TSA, a callable taking a DER TimeStampReq and returning
    the TimeStampResp (or token), an http(s):// URL (RFC 3161 3.4 over
    urllib), or one reply's bytes (for one timestamp only). store: a
    gostx.x509.Store of the trust anchors the signer's chain and the TSA's
    must reach (None: no chain check, as verify's). content: the detached
    content (bytes-like, a path or a binary file); given, or attached, the
    signature is verified first; None for a detached one: only the signer's
    certificate is found. ocsp_responses: OCSPResponses (DER, gostx.ocsp
    Response, or paths), crls: CRLs (DER, PEM or paths), certs: the chain
    above the signer, its issuer first (default: the path store builds
    through the signature's certificates and untrusted). at: the time
    chains are checked at (default now). With a store the signer's whole
    path is judged at its signature-time-stamp's time with crls and
    ocsp_responses (every certificate but the anchor needs a status), and
    each timestamp's TSA's path now, as `gostx cms -enhance` does: a
    revocation (or no data for the signer's path) raises VerificationError
    (CHAIN, x509_status the lib/x509 status); noverify=True makes those
    warnings and adds the data anyway. The CRLs and responses for the
    signer's path go into its revocation-values, those for a TSA's path
    into that timestamp's token (RFC 5126 Annex B.2; none: a warning).
    Returns DER, or PEM with encoding="PEM". Raises VerificationError (status TS_*: a TSA reply that
    does not check; CADES_BAD_CRL, CADES_BAD_OCSP, CADES_BAD_CERT: an input
    that is none; or the signature's own failure) and GostxValueError /
    GostxTypeError for misuse."""
    if to not in _LEVELS:
        raise GostxValueError(f"to must be 'T' or 'XL1', not {to!r}")
    if store is not None and not isinstance(store, Store):
        raise GostxTypeError(f"store must be a gostx.x509.Store or None, not {type(store).__name__!r}")
    if encoding not in ("DER", "PEM"):
        raise GostxValueError(f"encoding must be 'PEM' or 'DER', not {encoding!r}")
    replies = _Replies(tsa_reply)
    crl_ders, ocsp_ders = _crl_ders(crls), _ocsp_ders(ocsp_responses)
    chain = None if certs is None else [_as_cert(c, "certs") for c in certs]
    more = [_as_cert(c, "untrusted") for c in untrusted]
    p = _Parsed(_der(signature))
    if p.sd.content != ffi.NULL and content is not None:
        raise GostxValueError("the signature has its content attached: content must be None")
    h = ffi.NULL
    if p.sd.content == ffi.NULL and content is not None and lib.gostx_cms_signed_hashes(p.sd):
        h = _hash(content, lib.gostx_cms_signed_hashes(p.sd))
    now = int(time.time()) if at is None else int(at.timestamp() if hasattr(at, "timestamp") else at)
    arr = ffi.new("gostx_x509_cert[]", max(len(more), 1))
    for k, c in enumerate(more):
        arr[k] = c._c[0]
    params = ffi.new("gostx_cms_verify_params *",
                     [store._h if store is not None else ffi.NULL, arr, len(more), now])
    ctx = _Sources(store, [c._c[0] for c in more], now, crl_ders, ocsp_ders, params, noverify)
    for i in range(p.sd.n_signers):
        cert = _signer_cert(p, i, h, params)
        si = p.sd.signers[i]
        if not _info(p, i).n_sig_ts:
            token = _timestamp(ffi.buffer(si.signature, si.signature_len)[:], si.digest_len,
                               replies, params)
            p = _Parsed(_grow(lib.gostx_cms_ts_embed, p.sd, i, token, len(token)))
        if to == "T":
            continue
        info = _info(p, i)
        if info.n_esc_ts:
            continue  # X Type 1 already: its references are timestamped as they are
        if not info.has_cert_refs:
            above = chain if chain is not None else _chain_above(cert, p, more, store, now)
            use_crls, use_ocsps = _signer_values(p, i, cert, above, ctx)
            p = _Parsed(_validation(p, i, cert, above, use_crls, use_ocsps))
            if store is not None:  # before the CAdES-C-time-stamp covers the token
                p = add_tsa_values(p, i, lib.GOSTX_CADES_TS_SIGNATURE, ctx)
        si = p.sd.signers[i]
        token = _timestamp(_esc_data(p, i), si.digest_len, replies, params)
        p = _Parsed(_grow(lib.gostx_cades_add_timestamp, p.sd, i, lib.GOSTX_CADES_TS_ESC, token,
                          len(token)))
        if store is not None:
            p = add_tsa_values(p, i, lib.GOSTX_CADES_TS_ESC, ctx)
    return _encoded(p.der, encoding)


# ---- verify: the chain at the signature-time-stamp's time (lib/x509) ----

def _parsed_revocation(i, crl_ders, ocsp_ders):
    """The CRLs and OCSP responses parsed for gostx_x509_verify_opts (the
    structs point into the DER kept with them); one that does not parse is
    refused by name."""
    crls = ffi.new("gostx_x509_crl[]", max(len(crl_ders), 1))
    ocsps = ffi.new("gostx_ocsp_response[]", max(len(ocsp_ders), 1))
    keep = [ffi.from_buffer("uint8_t[]", d) for d in crl_ders + ocsp_ders]
    st = ffi.new("gostx_x509_status *")
    for k, d in enumerate(crl_ders):
        if lib.gostx_x509_crl_parse(keep[k], len(d), ffi.addressof(crls, k), st):
            raise VerificationError(Status.CADES_BAD_CRL, i, f"CRL {k + 1}: "
                                    f"{ffi.string(lib.gostx_x509_status_name(st[0])).decode()}")
    for k, d in enumerate(ocsp_ders):
        if lib.gostx_ocsp_response_parse(keep[len(crl_ders) + k], len(d), ffi.addressof(ocsps, k)):
            raise VerificationError(Status.CADES_BAD_OCSP, i, f"OCSP response {k + 1}: "
                                    f"{_ocsp_text(lib.GOSTX_OCSP_MALFORMED)}")
    return crls, ocsps, keep


def _ocsp_text(status):
    return ffi.string(lib.gostx_ocsp_status_name(status)).decode()


def _judge(store, pool, ders, when, crl_ders, ocsp_ders, i):
    """gostx_x509_verify_with at when, every certificate but the anchor
    needing a status from the CRLs and responses: pool (gostx_x509_cert
    structs, the leaf first) and ders (certificates' DER; one gostx does not
    read cannot be a GOST CA of the path). Returns the status, the result
    and what its path and the parsed CRLs and responses point into (the
    CRL and response arrays first)."""
    crl_arr, ocsp_arr, keep = _parsed_revocation(i, crl_ders, ocsp_ders)
    chain = ffi.new("gostx_x509_cert[]", len(pool) + len(ders))
    for n, c in enumerate(pool):
        chain[n] = c
    n = len(pool)
    for d in ders:
        keep.append(ffi.from_buffer("uint8_t[]", d))
        if lib.gostx_x509_parse(keep[-1], len(d), ffi.addressof(chain, n), ffi.NULL) == 0:
            n += 1
    opts, res = ffi.new("gostx_x509_verify_opts *"), ffi.new("gostx_x509_verify_result *")
    lib.gostx_x509_verify_opts_init(opts, when)
    opts.crls, opts.n_crls = crl_arr, len(crl_ders)
    opts.ocsps, opts.n_ocsps = ocsp_arr, len(ocsp_ders)
    opts.crl_check = lib.GOSTX_X509_CRL_CHECK_ALL
    st = lib.gostx_x509_verify_with(store._h, chain, n, opts, res)
    return st, res, (crl_arr, ocsp_arr, keep, chain)


def _chain_error(i, st, res, when, at_timestamp):
    at = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(when))
    at = f"at the signature timestamp's time ({at})" if at_timestamp else f"at {at}"
    return VerificationError(Status.CHAIN, i, f"{at}: "
                             f"depth {res.depth}: {ffi.string(res.why).decode(errors='replace')}",
                             X509Status(st), res.depth)


def judge_at_timestamp(sd, i, info, cert, store, more, now, crls=(), ocsp_responses=()):
    """Signer i's whole path (its certificate, every CA above it, the
    anchor from store) checked by gostx_x509_verify_with at its earliest
    signature-time-stamp's time (now when it has none), every certificate but the anchor with a
    status from the revocation values in info plus the caller's crls and
    ocsp_responses, as `gostx cms -verify` does for an X Long signer. Raises
    VerificationError (CHAIN, x509_status the lib/x509 status: REVOKED with
    reason and date in why, OCSP_UNKNOWN, OCSP_STALE, NO_REVOCATION_DATA, ...)."""
    when = min((info.sig_ts_time[k] for k in range(info.n_sig_ts)), default=now)
    crl_ders = [bytes(ffi.buffer(info.crls[k], info.crl_len[k])) for k in range(info.n_crls)]
    ocsp_ders = [bytes(ffi.buffer(info.ocsps[k], info.ocsp_len[k])) for k in range(info.n_ocsps)]
    crl_ders += _crl_ders(crls)
    ocsp_ders += _ocsp_ders(ocsp_responses)
    values = [bytes(ffi.buffer(info.certs[k], info.cert_len[k])) for k in range(info.n_certs)]
    pool = [cert._c[0]] + [sd.certs[k] for k in range(sd.n_certs)] + [c._c[0] for c in more]
    st, res, _ = _judge(store, pool, values, when, crl_ders, ocsp_ders, i)
    if st != lib.GOSTX_X509_OK:
        raise _chain_error(i, st, res, when, info.n_sig_ts)


from ._cades_tsa import add_tsa_values  # noqa: E402 (it builds on the helpers above)
