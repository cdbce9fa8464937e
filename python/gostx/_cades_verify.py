"""The verify side of gostx.cms's CAdES (docs/ESIGN.md): the caller's CRLs
and OCSP responses read, a signer's path judged at its
signature-time-stamp's time with the revocation values (lib/x509), and a
gostx_cades_verdict about a timestamp's token named, as `gostx cms -verify`
names it. gostx.cms.enhance (_cades.py) reuses the readers and the names."""
import time

from ._native import GostxValueError, ffi, lib
from ._cms_common import Status, VerificationError, _is_path, _refusal
from .ocsp import Response
from .x509 import Status as X509Status

_CRL_MAX = 16 << 20  # a CRL read from PEM at most this large


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


def _at(when):
    return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(when))


def _what(kind, k):
    name = "CAdES-C timestamp" if kind == lib.GOSTX_CADES_TS_ESC else "signature timestamp"
    return f"{name} {k + 1}"


def revocation(i, crls, ocsp_responses):
    """The caller's crls and ocsp_responses (DER, PEM, paths, Responses) as
    a gostx_cades_revocation for gostx_cades_verify_with (the TSAs' paths),
    and what it points into; ffi.NULL when there are none."""
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


def _cades_refusal(v, i):
    """VerificationError from signer i's gostx_cades_verdict."""
    if v.ts_kind:
        return tsa_refusal(v, i)
    why = Status(200 + v.status).text
    if v.status in (lib.GOSTX_CADES_SIGNATURE_TIMESTAMP, lib.GOSTX_CADES_ESC_TIMESTAMP):
        inner = ffi.string(lib.gostx_cms_ts_status_name(v.ts.status)).decode()
        if v.ts.status == lib.GOSTX_CMS_TS_TOKEN:
            inner += ": " + _refusal(v.ts.cms).why
        why += f" {v.index}: {inner}"
    elif v.index:
        why += f" (entry {v.index})"
    return VerificationError(200 + v.status, i, why)
