# Sourced by the OCSP tests (test_ocsp_cli.sh, test_ocsp_tsp_bc.sh): a PKI
# made by gostx ($G) in the current folder.
#   ocsp_pki CA_CURVE CURVE NAME:SERIAL:EXT...
# ca.pem/.key (CN=OCSP test CA, serial 1, on CA_CURVE), then for each
# NAME a key on CURVE and NAME.pem issued by the CA with SERIAL and the
# extensions of EXT.ext: rsp (OCSPSigning), leaf (digitalSignature), tsa
# (critical timeStamping, CA:FALSE). index.txt: serial 1001 good, 1002
# revoked (keyCompromise). Exits 1 when a certificate is missing.
ocsp_pki() {
  local ca_curve=$1 curve=$2 spec name serial ext
  shift 2
  "$G" genpkey -c "$ca_curve" -o ca.key 2>/dev/null
  "$G" req -x509 -ca -key ca.key -subj "/CN=OCSP test CA" -days 30 -set_serial 1 -out ca.pem
  printf 'extendedKeyUsage = OCSPSigning\n' > rsp.ext
  printf 'keyUsage = digitalSignature\n' > leaf.ext
  printf 'basicConstraints = CA:FALSE\nkeyUsage = critical,digitalSignature\nextendedKeyUsage = critical,timeStamping\n' > tsa.ext
  for spec in "$@"; do
    IFS=: read -r name serial ext <<< "$spec"
    "$G" genpkey -c "$curve" -o "$name.key" 2>/dev/null
    "$G" req -new -key "$name.key" -subj "/CN=$name" -out "$name.csr"
    "$G" x509 -req -in "$name.csr" -CA ca.pem -CAkey ca.key -set_serial "$serial" -extfile "$ext.ext" -out "$name.pem"
    [ -s "$name.pem" ] || { echo "FAIL: the PKI ($name)"; exit 1; }
  done
  [ -s ca.pem ] || { echo "FAIL: the PKI (ca)"; exit 1; }
  printf 'V\t301231000000Z\t\t1001\tunknown\t/CN=leaf1\n' > index.txt
  printf 'R\t301231000000Z\t250101000000Z,keyCompromise\t1002\tunknown\t/CN=leaf2\n' >> index.txt
}
