"""gostx.ocsp against the gostx command's PKI (esign_pki.py): requests
read by `gostx ocsp` and `openssl ocsp` (gost-engine) as responders, and
theirs read here; responses parsed (good, revoked with time and reason)
and checked, over HTTP too (`gostx ocsp -port` on 127.0.0.1); each refusal
a named ocsp.VerificationError: another certificate, unsigned, a responder
without OCSPSigning, stale, another nonce, truncated DER."""
import datetime
import subprocess
import time

import pytest

import gostx
from gostx import ocsp

from conftest import read_port
from esign_pki import openssl_gost


def _now():
    return datetime.datetime.now(datetime.timezone.utc)


@pytest.mark.parametrize("hash_name", ["sha1", "streebog256", "streebog512"])
def test_request_answered_by_gostx(esign, hash_name):
    signer, ca = esign.cert("signer"), esign.cert("ca")
    req = ocsp.request(signer, ca, hash=hash_name)
    parsed = ocsp.parse_request(req)
    assert len(parsed.nonce) == 16 and len(parsed.certids) == 1
    cid = parsed.certids[0]
    assert cid.hash == hash_name and cid.serial_number == signer.serial_number
    resp = esign.ocsp_respond(req, f"r_{hash_name}")
    r = ocsp.parse_response(resp)
    assert r.status == ocsp.ResponseStatus.SUCCESSFUL and r.nonce == parsed.nonce
    assert abs((_now() - r.produced_at).total_seconds()) < 120
    assert [c.subject for c in r.certificates] == ["CN=rsp"] and r.responder_name == "CN=rsp"
    one = ocsp.check(resp, signer, ca, request=req)
    assert one.status == "good" and one.certid == cid and one.revocation_time is None
    assert one.next_update - one.this_update == datetime.timedelta(minutes=5)
    assert ocsp.check(r, signer, ca, nonce=parsed.nonce) == one


def test_revoked_and_the_commands_request(esign):
    ca, revoked = esign.cert("ca"), esign.cert("revoked")
    esign.run("ocsp", "-issuer", "ca.pem", "-cert", "revoked.pem", "-cert", "signer.pem",
              "-md_gost12_256", "-reqout", "cmd.req")
    req = (esign.d / "cmd.req").read_bytes()
    parsed = ocsp.parse_request(req)
    assert [c.serial_number for c in parsed.certids] == [revoked.serial_number,
                                                         esign.cert("signer").serial_number]
    assert {c.hash for c in parsed.certids} == {"streebog256"}
    assert parsed.certids[0] == ocsp.parse_request(ocsp.request(revoked, ca, hash="streebog256")).certids[0]
    resp = esign.ocsp_respond(req, "r_cmd")
    one = ocsp.check(resp, revoked, ca, request=req)
    assert one.status == "revoked" and one.revocation_reason == "keyCompromise"
    assert abs((_now() - one.revocation_time).total_seconds()) < 3600
    assert [s.status for s in ocsp.parse_response(resp).responses] == ["revoked", "good"]
    both = ocsp.request([revoked, esign.cert("signer")], ca, nonce=False)
    assert ocsp.parse_request(both).nonce is None and len(ocsp.parse_request(both).certids) == 2


def test_refusals_are_named(esign):
    signer, ca, rsp = esign.cert("signer"), esign.cert("ca"), esign.cert("rsp")
    req = ocsp.request(signer, ca)
    resp = esign.ocsp_respond(req, "r_ref")

    def refused(status, *args, **kw):
        with pytest.raises(ocsp.VerificationError) as e:
            ocsp.check(*args, **kw)
        assert e.value.status == status, e.value
        assert isinstance(e.value, gostx.GostxError) and isinstance(e.value, ValueError)
        return e.value

    e = refused(ocsp.Status.CERT_MISSING, resp, esign.cert("revoked"), ca)
    assert "no status for the certificate" in str(e)
    refused(ocsp.Status.NONCE_MISMATCH, resp, signer, ca, nonce=b"another nonce")
    refused(ocsp.Status.NONCE_MISMATCH, resp, signer, ca, request=ocsp.request(signer, ca))
    refused(ocsp.Status.STALE, resp, signer, ca, request=req, at=time.time() + 900)
    # gostx ocsp starts only for a CA whose responder may answer: norsp
    # (no OCSPSigning) answers posing as its own CA
    noeku = esign.ocsp_respond(req, "r_noeku", "norsp", ca="norsp")
    refused(ocsp.Status.NOT_AUTHORIZED, noeku, signer, ca, request=req)
    bare = esign.ocsp_respond(req, "r_bare", "rsp", "-resp_no_certs")
    assert ocsp.check(bare, signer, ca, request=req, trusted=[rsp]).status == "good"
    refused(ocsp.Status.UNKNOWN_RESPONDER, bare, signer, ca, request=req)
    unsigned = bare[:-64] + bytes(64)
    refused(ocsp.Status.UNSIGNED, unsigned, signer, ca, request=req, trusted=[rsp])
    badsig = bytearray(bare)
    badsig[-10] ^= 1
    refused(ocsp.Status.BAD_SIGNATURE, bytes(badsig), signer, ca, request=req, trusted=[rsp])
    for cut in (b"", resp[:100], resp + b"\0"):
        with pytest.raises(ocsp.VerificationError) as e:
            ocsp.parse_response(cut)
        assert e.value.status == ocsp.Status.MALFORMED
    with pytest.raises(ocsp.VerificationError) as e:
        ocsp.parse_request(req[:-3])
    assert e.value.status == ocsp.Status.MALFORMED
    error = ocsp.parse_response(b"\x30\x03\x0a\x01\x01")
    assert error.status == ocsp.ResponseStatus.MALFORMED_REQUEST and error.responses == []
    refused(ocsp.Status.NOT_SUCCESSFUL, error, signer, ca)
    with pytest.raises(gostx.GostxValueError):
        ocsp.request(signer, ca, hash="md5")
    with pytest.raises(gostx.GostxValueError):
        ocsp.request(signer, ca, nonce=bytes(33))
    with pytest.raises(gostx.GostxTypeError):
        ocsp.request("signer.pem", ca)
    with pytest.raises(gostx.GostxTypeError):
        ocsp.parse_response("not bytes")


def test_over_http_to_the_command(esign):
    signer, ca = esign.cert("signer"), esign.cert("ca")
    srv = subprocess.Popen([esign.cli, "ocsp", "-index", "index.txt", "-CA", "ca.pem", "-rsigner",
                            "rsp.pem", "-rkey", "rsp.key", "-bind", "127.0.0.1", "-port", "0",
                            "-nmin", "5", "-threads", "1", "-nrequest", "1"],
                           cwd=esign.d, stderr=subprocess.PIPE, text=True)
    try:
        port = read_port(srv, r"on port (\d+)")
        req = ocsp.request(signer, ca)
        resp = ocsp.post(f"http://127.0.0.1:{port}/", req, timeout=20)
        assert ocsp.check(resp, signer, ca, request=req).status == "good"
    finally:
        srv.kill()
        srv.wait()
    with pytest.raises(gostx.GostxValueError):
        ocsp.post("ftp://127.0.0.1/", req)


def test_openssl_ocsp_both_ways(esign):
    env = openssl_gost()
    if env is None:
        pytest.skip("openssl with gost-engine is needed")
    signer, ca = esign.cert("signer"), esign.cert("ca")
    req = ocsp.request(signer, ca, hash="streebog256")
    (esign.d / "o.req").write_bytes(req)
    subprocess.run(["openssl", "ocsp", "-index", "index.txt", "-CA", "ca.pem", "-rsigner", "rsp.pem",
                    "-rkey", "rsp.key", "-nmin", "5", "-reqin", "o.req", "-respout", "o.resp"],
                   cwd=esign.d, env=env, check=True, capture_output=True, timeout=60)
    one = ocsp.check((esign.d / "o.resp").read_bytes(), signer, ca, request=req)
    assert one.status == "good"
    # openssl's request (SHA-1, its nonce) answered by gostx, read here
    subprocess.run(["openssl", "ocsp", "-issuer", "ca.pem", "-cert", "revoked.pem", "-reqout",
                    "o2.req"], cwd=esign.d, env=env, check=True, capture_output=True, timeout=60)
    req2 = (esign.d / "o2.req").read_bytes()
    assert ocsp.parse_request(req2).certids[0].hash == "sha1"
    got = ocsp.check(esign.ocsp_respond(req2, "o2"), esign.cert("revoked"), ca, request=req2)
    assert got.status == "revoked"
