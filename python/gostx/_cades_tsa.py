"""A timestamp's TSA's own validation data (RFC 5126 Annex B.2; docs/ESIGN.md,
"Where the TSA's validation data goes"), as `gostx cms -enhance` and `-verify`
handle it: enhance puts the CRLs and OCSP responses for the TSA's path into
the token's SignerInfo (gostx_cades_add_tsa_validation) and the token back
into its attribute (gostx_cades_replace_timestamp); verify judges each TSA
certificate with its token's values and the signature's
(gostx_cades_verify_with judges it; here its verdict is named)."""
import time
import warnings

from ._native import GostxValueError, ffi, lib
from .cms import Status, VerificationError
from .x509 import Status as X509Status

_NO_DATA = (lib.GOSTX_X509_NO_REVOCATION_DATA, lib.GOSTX_X509_CRL_UNAVAILABLE)


def _at(when):
    return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(when))


def for_path(path, crl_ders, ocsp_ders, parsed):
    """Of crl_ders and ocsp_ders (parsed: their structs, _parsed_revocation's)
    those for path (gostx_x509_cert pointers, the anchor last): a CRL by the
    issuer of one of its certificates, a response naming one."""
    crl_arr, ocsp_arr = parsed[0], parsed[1]
    issuers = {bytes(ffi.buffer(c.issuer, c.issuer_len)) for c in path[:-1]}
    crls = [d for k, d in enumerate(crl_ders)
            if bytes(ffi.buffer(crl_arr[k].issuer, crl_arr[k].issuer_len)) in issuers]
    ocsps = []
    s, cid = ffi.new("gostx_ocsp_single *"), ffi.new("gostx_ocsp_certid *")
    for k, d in enumerate(ocsp_ders):
        pos, named = ffi.new("size_t *", 0), False
        while not named and lib.gostx_ocsp_single_next(ffi.addressof(ocsp_arr, k), pos, s):
            named = s.id.hash != lib.GOSTX_OCSP_HASH_OTHER and any(
                lib.gostx_ocsp_certid_make(up, c.serial, c.serial_len, s.id.hash, cid) == 0 and
                lib.gostx_ocsp_certid_equal(cid, ffi.addressof(s, "id"))
                for c, up in zip(path, path[1:]))
        if named:
            ocsps.append(d)
    return crls, ocsps


def _token(der):
    """A token parsed (with the buffer its views point into)."""
    buf = ffi.from_buffer("uint8_t[]", der)
    t, st = ffi.new("gostx_cms_ts_token *"), ffi.new("gostx_cms_ts_status *")
    if lib.gostx_cms_ts_parse(buf, len(der), t, st):
        raise VerificationError(100 + st[0])
    return t, buf


def _tsa_cert(t, data, params, i, what):
    """The token's TSA certificate (a gostx_x509_cert pointer), the token
    checked over data as gostx_cades_verify does."""
    v = ffi.new("gostx_cms_ts_verdict *")
    if lib.gostx_cms_ts_verify(t, data, len(data), params, v):
        raise VerificationError(100 + v.status, i, f"{what}: "
                                f"{ffi.string(lib.gostx_cms_ts_status_name(v.status)).decode()}")
    return v.cms.signer_cert


def _ders(ptrs, lens, n):
    return [bytes(ffi.buffer(ptrs[k], lens[k])) for k in range(n)]


def _own(t, i, what):
    """The token's own validation data (gostx_cades_tsa_values: its
    references checked against its values), a gostx_cades_info."""
    tinfo, st = ffi.new("gostx_cades_info *"), ffi.new("gostx_cades_status *")
    idx = ffi.new("size_t *")
    if lib.gostx_cades_tsa_values(t, tinfo, st, idx):
        raise VerificationError(200 + st[0], i, f"{what}: the TSA's validation data in its token: "
                                f"{Status(200 + st[0]).text} (reference {idx[0] + 1})")
    return tinfo


def _tokens(p, i, kind):
    """Signer i's tokens of kind as DER, and the bytes each covers."""
    from ._cades import _esc_data, _info
    info = _info(p, i)
    si = p.sd.signers[i]
    if kind == lib.GOSTX_CADES_TS_ESC:
        data = _esc_data(p, i)
        return [(d, data) for d in _ders(info.esc_ts, info.esc_ts_len, info.n_esc_ts)]
    data = bytes(ffi.buffer(si.signature, si.signature_len))
    return [(d, data) for d in _ders(info.sig_ts, info.sig_ts_len, info.n_sig_ts)]


def _what(kind, k):
    name = "CAdES-C timestamp" if kind == lib.GOSTX_CADES_TS_ESC else "signature timestamp"
    return f"{name} {k + 1}"


def add_tsa_values(p, i, kind, ctx):
    """p with each of signer i's tokens of kind that has no data of its own
    given its TSA's: the chain above the TSA certificate and those of
    ctx.crls / ctx.ocsps for its path, the path judged with them at ctx.now
    (revoked: VerificationError, a warning with ctx.noverify; no data: a
    warning). Returns the new _Parsed."""
    from ._cades import _Parsed, _grow, _judge, _validation_struct
    for k in range(len(_tokens(p, i, kind))):
        der, data = _tokens(p, i, kind)[k]  # afresh: p changes with each token
        t, buf = _token(der)
        what = _what(kind, k)
        tinfo = _own(t, i, what)
        if tinfo.has_cert_refs or tinfo.has_cert_values or tinfo.has_rev_refs or \
                tinfo.has_rev_values:
            continue  # its data is there
        tsa = _tsa_cert(t, data, ctx.params, i, what)
        pool = [tsa[0]] + [t.sd.certs[c] for c in range(t.sd.n_certs)] + ctx.pool
        xs, res, keep = _judge(ctx.store, pool, [], ctx.now, ctx.crls, ctx.ocsps, i)
        path = [res.path[c] for c in range(res.path_len)]
        if xs != lib.GOSTX_X509_OK:
            why = ffi.string(res.why).decode(errors="replace")
            if xs in _NO_DATA:
                warnings.warn(f"{what}: no revocation data for the TSA's certificate (depth "
                              f"{res.depth}) in crls or ocsp_responses: its token carries none "
                              "for it", stacklevel=3)
            elif ctx.noverify:
                warnings.warn(f"{what}: the TSA's certificate at {_at(ctx.now)}: depth "
                              f"{res.depth}: {why} (noverify: added anyway)", stacklevel=3)
            else:
                raise VerificationError(Status.CHAIN, i, f"{what}: the TSA's certificate at "
                                        f"{_at(ctx.now)}: depth {res.depth}: {why}", X509Status(xs),
                                        res.depth)
        crls, ocsps = for_path(path, ctx.crls, ctx.ocsps, keep)
        if not crls and not ocsps:
            continue
        chain = [bytes(ffi.buffer(c.der, c.der_len)) for c in path[1:]]
        v, hold = _validation_struct(chain, crls, ocsps)
        token = _grow(lib.gostx_cades_add_tsa_validation, t, tsa, v)
        p = _Parsed(_grow(lib.gostx_cades_replace_timestamp, p.sd,
                                ffi.new("gostx_cades_ts_at *", [i, kind, k]), token, len(token)))
        del hold, buf
    return p


def revocation(i, crls, ocsp_responses):
    """The caller's crls and ocsp_responses (DER, PEM, paths, Responses) as
    a gostx_cades_revocation for gostx_cades_verify_with (the TSAs' paths),
    and what it points into; ffi.NULL when there are none."""
    from ._cades import _crl_ders, _ocsp_ders, _parsed_revocation
    crl_ders, ocsp_ders = _crl_ders(crls), _ocsp_ders(ocsp_responses)
    if not crl_ders and not ocsp_ders:
        return ffi.NULL, None
    if len(crl_ders) > lib.GOSTX_CADES_MAX or len(ocsp_ders) > lib.GOSTX_CADES_MAX:
        raise GostxValueError(f"at most {lib.GOSTX_CADES_MAX} crls and {lib.GOSTX_CADES_MAX} "
                              "ocsp_responses")
    crl_arr, ocsp_arr, keep = _parsed_revocation(i, crl_ders, ocsp_ders)
    more = ffi.new("gostx_cades_revocation *", [crl_arr, len(crl_ders), ocsp_arr, len(ocsp_ders)])
    return more, (crl_arr, ocsp_arr, keep)


def tsa_refusal(v, i):
    """The VerificationError for a gostx_cades_verdict about a timestamp's
    token (v.ts_kind set): its TSA's path (TSA_PATH: Status.CHAIN, named as
    `gostx cms -verify` names it) or its own validation data."""
    what = _what(v.ts_kind, v.ts_index)
    if v.status == lib.GOSTX_CADES_TSA_PATH:
        why = ffi.string(v.why).decode(errors="replace")
        return VerificationError(Status.CHAIN, i, f"{what}: the TSA's certificate at {_at(v.at)}: "
                                 f"depth {v.depth}: {why}", X509Status(v.x509), v.depth)
    return VerificationError(200 + v.status, i, f"{what}: the TSA's validation data in its token: "
                             f"{Status(200 + v.status).text} (reference {v.index + 1})")
