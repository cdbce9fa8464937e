#!/usr/bin/env python3
"""gostx's PKCS#11 token through PyKCS11 (a consumer we did not write):
a token made and its PINs set, a GOST R 34.10-2012 key pair on the token,
signatures with and without Streebog inside verified by the token and by
`gostx verify`, a wrong PIN named, GOST R 34.13-2015's CBC examples
encrypted and decrypted by Kuznyechik and Magma keys on the token.
usage: p11_pykcs11.py MODULE GOSTX
(GOSTX_PKCS11_DIR names an empty folder)."""
import json
import os
import subprocess
import sys
import tempfile

import PyKCS11

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import p11_spki  # noqa: E402

# TC 26's vendor range (lib/pkcs11/cryptoki.h); PyKCS11 names none of them
CKK_GOSTR3410_512 = 0xD4321003
CKM_GOSTR3410_512_KEY_PAIR_GEN = 0xD4321005
CKM_GOSTR3410_512 = 0xD4321006
CKM_WITH_12_256 = 0xD4321008
CKM_WITH_12_512 = 0xD4321009
CKA_GOSTR3410_PARAMS = 0x250
CKK_KUZNYECHIK = 0xD4321004
CKK_MAGMA = 0xD4321005
CKM_KUZNYECHIK_CBC = 0xD432101E
CKM_MAGMA_CBC = 0xD4321023
# id-tc26-gost-3410-2012-256-paramSetB (CryptoPro-A) and -512-paramSetA
PARAMS_256 = bytes.fromhex("06072a850302022301")
PARAMS_512 = bytes.fromhex("06092a8503070102010201")

failed = 0


def check(ok, what):
    global failed
    if not ok:
        failed += 1
        print("FAIL:", what)


def main():
    module, gostx = sys.argv[1], sys.argv[2]
    lib = PyKCS11.PyKCS11Lib()
    lib.load(module)
    slot = lib.getSlotList()[0]
    lib.initToken(slot, "so-pin-1", "python")
    s = lib.openSession(slot, PyKCS11.CKF_SERIAL_SESSION | PyKCS11.CKF_RW_SESSION)
    s.login("so-pin-1", PyKCS11.CKU_SO)
    s.initPin("user-pin")
    s.logout()
    try:
        s.login("wrong-pin")
        check(False, "a wrong PIN was accepted")
    except PyKCS11.PyKCS11Error as e:
        check(e.value == PyKCS11.CKR_PIN_INCORRECT, "wrong PIN named: %s" % e)
    check(lib.getTokenInfo(slot).flags & PyKCS11.CKF_USER_PIN_COUNT_LOW, "count low")
    s.login("user-pin")

    data = os.urandom(500)
    tmp = tempfile.mkdtemp()
    for bits, kt, gen, params, with_hash, raw in (
        (256, PyKCS11.CKK_GOSTR3410, PyKCS11.CKM_GOSTR3410_KEY_PAIR_GEN, PARAMS_256,
         CKM_WITH_12_256, PyKCS11.CKM_GOSTR3410),
        (512, CKK_GOSTR3410_512, CKM_GOSTR3410_512_KEY_PAIR_GEN, PARAMS_512,
         CKM_WITH_12_512, CKM_GOSTR3410_512)):
        key_id = bytes([bits // 256])
        pub_t = [(PyKCS11.CKA_CLASS, PyKCS11.CKO_PUBLIC_KEY), (PyKCS11.CKA_KEY_TYPE, kt),
                 (PyKCS11.CKA_TOKEN, True), (CKA_GOSTR3410_PARAMS, params),
                 (PyKCS11.CKA_VERIFY, True), (PyKCS11.CKA_ID, key_id)]
        priv_t = [(PyKCS11.CKA_CLASS, PyKCS11.CKO_PRIVATE_KEY), (PyKCS11.CKA_KEY_TYPE, kt),
                  (PyKCS11.CKA_TOKEN, True), (PyKCS11.CKA_SIGN, True),
                  (PyKCS11.CKA_ID, key_id)]
        pub, priv = s.generateKeyPair(pub_t, priv_t, PyKCS11.Mechanism(gen, None))
        sig = bytes(s.sign(priv, data, PyKCS11.Mechanism(with_hash, None)))
        check(len(sig) == bits // 4, "%d: signature length %d" % (bits, len(sig)))
        check(s.verify(pub, data, sig, PyKCS11.Mechanism(with_hash, None)), "%d: token verifies" % bits)
        bad_sig = bytes([sig[0] ^ 1]) + sig[1:]
        check(not s.verify(pub, data, bad_sig, PyKCS11.Mechanism(with_hash, None)),
              "%d: a changed signature refused" % bits)
        value = bytes(s.getAttributeValue(pub, [PyKCS11.CKA_VALUE])[0])
        pem = os.path.join(tmp, "pub%d.pem" % bits)
        sys.argv = ["p11_spki.py", value.hex(), params.hex(), pem]
        p11_spki.main()
        for name, blob in (("data", data), ("sig", sig)):
            with open(os.path.join(tmp, name), "wb") as f:
                f.write(blob)
        r = subprocess.run([gostx, "verify", "-p", pem, "-s", os.path.join(tmp, "sig"),
                            os.path.join(tmp, "data")], capture_output=True)
        check(r.returncode == 0, "%d: gostx verifies PyKCS11's signature: %s" % (bits, r.stdout))
        # the raw mechanism over the digest the token computes
        digest = bytes(s.digest(data, PyKCS11.Mechanism(0xD4321012 if bits == 256 else 0xD4321013, None)))
        raw_sig = bytes(s.sign(priv, digest, PyKCS11.Mechanism(raw, None)))
        check(s.verify(pub, data, raw_sig, PyKCS11.Mechanism(with_hash, None)),
              "%d: raw signature over the digest = signature over the data" % bits)
        # PyKCS11 answers None for a value the token keeps (CKR_ATTRIBUTE_SENSITIVE)
        check(s.getAttributeValue(priv, [PyKCS11.CKA_VALUE])[0] is None,
              "%d: private value kept" % bits)
    cbc(s)
    s.logout()
    s.closeSession()
    print("%s" % ("ok" if not failed else "%d failed" % failed))
    return 1 if failed else 0


def cbc(s):
    """CBC with the IV as the mechanism's parameter (m = 2n and 3n: the
    standard's examples), as PyKCS11 passes a byte string."""
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "..", "vectors", "modes-3413.json")) as f:
        cases = [c for c in json.load(f)["cases"] if c["mode"] == "CBC"]
    check(len(cases) == 2, "two CBC examples")
    for c in cases:
        magma = c["cipher"] == "magma"
        key = s.createObject([(PyKCS11.CKA_CLASS, PyKCS11.CKO_SECRET_KEY),
                              (PyKCS11.CKA_KEY_TYPE, CKK_MAGMA if magma else CKK_KUZNYECHIK),
                              (PyKCS11.CKA_VALUE, bytes.fromhex(c["key"])),
                              (PyKCS11.CKA_ENCRYPT, True), (PyKCS11.CKA_DECRYPT, True)])
        mech = PyKCS11.Mechanism(CKM_MAGMA_CBC if magma else CKM_KUZNYECHIK_CBC,
                                 bytes.fromhex(c["iv"]))
        pt, ct = bytes.fromhex(c["plaintext"]), bytes.fromhex(c["ciphertext"])
        check(bytes(s.encrypt(key, pt, mech)) == ct, c["name"] + ": the example's ciphertext")
        check(bytes(s.decrypt(key, ct, mech)) == pt, c["name"] + ": decrypts")
        try:
            s.encrypt(key, pt[:-1], mech)
            check(False, c["name"] + ": a partial block was encrypted")
        except PyKCS11.PyKCS11Error as e:
            check(e.value == PyKCS11.CKR_DATA_LEN_RANGE, c["name"] + ": partial block: %s" % e)
        s.destroyObject(key)


if __name__ == "__main__":
    sys.exit(main())
