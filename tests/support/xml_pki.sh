# Sourced by the gostx xml tests (after cli_common.sh, in $T): a CA and a
# leaf made by gostx itself, and expect for gostx xml verify's answers.
#   pki NAME CURVE: NAME.key, NAME.pem issued by NAME-ca (NAME-ca.pem/.key)
#   expect NAME WANT_RC GREP verify-args...: gostx xml verify exits WANT_RC
#     and says GREP on stderr (its stdout in ./out, stderr in ./err)
printf 'basicConstraints = critical, CA:TRUE\nkeyUsage = critical, keyCertSign\n' >ca.ext
printf 'basicConstraints = CA:FALSE\nkeyUsage = digitalSignature\n' >leaf.ext
pki() {
  "$G" genpkey -c "$2" -o "$1-ca.key" && "$G" req -x509 -ca -key "$1-ca.key" -subj "/CN=$1 CA" \
    -days 30 -out "$1-ca.pem" && "$G" genpkey -c "$2" -o "$1.key" &&
    "$G" req -new -key "$1.key" -subj "/CN=$1" -out "$1.csr" &&
    "$G" x509 -req -in "$1.csr" -CA "$1-ca.pem" -CAkey "$1-ca.key" -days 10 -extfile leaf.ext \
      -out "$1.pem" || bad "pki $1"
} 2>/dev/null
expect() {
  local name=$1 want=$2 grep=$3
  shift 3
  "$G" xml verify "$@" >out 2>err
  local rc=$?
  if [ $rc != "$want" ] || ! grep -q -- "$grep" err; then bad "$name: rc $rc, $(cat err)"; else ok; fi
}
