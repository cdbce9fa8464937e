# Sourced by the CAdES command tests (test_cades_cli.sh, test_cades_tsa_cli.sh)
# in their scratch directory, $G the gostx binary: a CA (ca.key, ca.pem;
# its subject's CN $1), the extension files signer.ext, tsa.ext (critical
# timeStamping) and rsp.ext (OCSPSigning), and issue NAME EXT: NAME.key
# and NAME.pem by `gostx ca` (its line in index.txt).
"$G" genpkey -c 256A -o ca.key 2>/dev/null
"$G" req -x509 -ca -key ca.key -subj "/CN=$1/O=gostx test" -days 3650 -out ca.pem
printf 'keyUsage = critical,digitalSignature,nonRepudiation\n' > signer.ext
printf 'basicConstraints = CA:FALSE\nkeyUsage = critical,digitalSignature\nextendedKeyUsage = critical,timeStamping\n' > tsa.ext
printf 'extendedKeyUsage = OCSPSigning\n' > rsp.ext
issue() {
  "$G" genpkey -c 256A -o "$1.key" 2>/dev/null
  "$G" req -new -key "$1.key" -subj "/CN=$1/O=gostx test" -out "$1.csr"
  "$G" ca -in "$1.csr" -cert ca.pem -keyfile ca.key -index index.txt -days 365 -extfile "$2" -out "$1.pem" 2>/dev/null
}
