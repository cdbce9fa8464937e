"""The signer's revocation judged from an X Long signature's own values, at
the time of its signature-time-stamp (RFC 5126 6.3.3, docs/ESIGN.md): what
gostx.cms.verify does for CAdES-X Long and X Long Type 1 signers, offline.
An OCSP value for the signer's certificate, checked (signed by the CA or a
responder it authorised) at its own thisUpdate, decides first: good, or
revoked after the timestamp, passes; revoked at or before it fails. Else
the CRL values decide (gostx_x509_crl_status at the timestamp's time: a
later CRL tells of the past too). With neither, the signature has no
revocation data for its signer and is refused by that name."""
from ._native import ffi, lib
from .cms import Status, VerificationError
from .ocsp import Response
from .ocsp import VerificationError as OCSPError
from .ocsp import check as ocsp_check
from .x509 import Certificate, VerificationError as X509Error
from .x509 import Status as X509Status

_OCSP_BASIC = bytes.fromhex("06092b0601050507300101")  # id-pkix-ocsp-basic


def _tlv(tag, body):
    n = len(body)
    if n < 0x80:
        head = bytes([n])
    else:
        size = n.to_bytes((n.bit_length() + 7) // 8, "big")
        head = bytes([0x80 | len(size)]) + size
    return bytes([tag]) + head + body


def _ocsp_response(basic):
    """A BasicOCSPResponse (what revocation-values carries) as the
    successful OCSPResponse around it (RFC 6960 4.2.1)."""
    bytes_ = _tlv(0x30, _OCSP_BASIC + _tlv(0x04, basic))
    return _tlv(0x30, b"\x0a\x01\x00" + _tlv(0xA0, bytes_))


def _certs(ptrs, lens, n):
    out = []
    for k in range(n):
        try:
            out.append(Certificate._parse(ffi.buffer(ptrs[k], lens[k])))
        except X509Error:
            pass  # one gostx does not read cannot be the GOST issuer
    return out


def _issuer(cert, pool, store, now):
    """cert's issuer: the path store builds (its signature checked), else
    the certificate of that subject."""
    if store is not None:
        path = store.verify(cert, untrusted=[c for c in pool if c != cert], at=now)
        return path[1] if len(path) > 1 else path[0]
    name = bytes(ffi.buffer(cert._c.issuer, cert._c.issuer_len))
    return next((c for c in pool if bytes(ffi.buffer(c._c.subject, c._c.subject_len)) == name), None)


def _utc_text(seconds):
    import datetime
    return datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%SZ")


def _revoked(i, at, reason, when):
    return VerificationError(Status.CHAIN, i, f"the signer's certificate was revoked at "
                             f"{_utc_text(at)} ({reason or 'no reason given'}), not after its "
                             f"signature-time-stamp of {_utc_text(when)}", X509Status.REVOKED, 0)


def _by_ocsp(i, info, cert, issuer, when):
    """True when an OCSP value decides (good, or revoked later); raises
    when it says revoked by then or does not check."""
    for k in range(info.n_ocsps):
        r = Response(_ocsp_response(bytes(ffi.buffer(info.ocsps[k], info.ocsp_len[k]))))
        mine = [s for s in r.responses if s.certid.serial_number == cert.serial_number]
        if not mine:
            continue
        try:
            one = ocsp_check(r, cert, issuer, hash=mine[0].certid.hash, at=mine[0].this_update)
        except OCSPError as e:
            if e.status == e.status.CERT_MISSING:
                continue  # the same serial of another issuer
            raise VerificationError(Status.CHAIN, i, f"revocation-values: OCSP response {k}: "
                                    f"{e.why}") from None
        if one.status == "revoked" and one.revocation_time.timestamp() <= when:
            raise _revoked(i, one.revocation_time.timestamp(), one.revocation_reason, when)
        if one.status != "unknown":
            return True
    return False


def _by_crls(i, info, cert, issuer, when):
    n = info.n_crls
    crls, keep = ffi.new("gostx_x509_crl[]", max(n, 1)), []
    st = ffi.new("gostx_x509_status *")
    for k in range(n):
        keep.append(bytes(ffi.buffer(info.crls[k], info.crl_len[k])))
        if lib.gostx_x509_crl_parse(keep[-1], len(keep[-1]), ffi.addressof(crls, k), st):
            raise VerificationError(Status.CHAIN, i, f"revocation-values: CRL {k}: "
                                    f"{X509Status(st[0]).text}", X509Status(st[0]), 0)
    out = ffi.new("gostx_x509_revocation *")
    got = lib.gostx_x509_crl_status(crls, n, cert._c, issuer._c, when, out)
    if got == lib.GOSTX_X509_REVOKED:
        reason = lib.gostx_x509_crl_reason_name(out.reason)
        raise _revoked(i, out.revocation_date, ffi.string(reason).decode() if reason else None, when)
    if got != lib.GOSTX_X509_OK:
        raise VerificationError(Status.CHAIN, i, "the signer's status at its signature-time-stamp: "
                                f"{X509Status(got).text}", X509Status(got), 0)


def judge(sd, i, info, cert, store, more, now):
    """Signer i of sd (an X Long one, whose CAdES layers verified into
    info) not revoked at its signature-time-stamp's time by its own
    revocation values; raises cms.VerificationError (CHAIN, x509_status
    REVOKED or why no value decides) otherwise."""
    when = min(info.sig_ts_time[k] for k in range(info.n_sig_ts))
    pool = _certs(info.certs, info.cert_len, info.n_certs) + more
    pool += [Certificate._parse(ffi.buffer(sd.certs[k].der, sd.certs[k].der_len))
             for k in range(sd.n_certs)]
    issuer = _issuer(cert, pool, store, now)
    if issuer is None:
        raise VerificationError(Status.CHAIN, i, "no certificate of the signer's issuer in the "
                                "signature", X509Status.UNKNOWN_CA, 1)
    if not _by_ocsp(i, info, cert, issuer, when):
        _by_crls(i, info, cert, issuer, when)
