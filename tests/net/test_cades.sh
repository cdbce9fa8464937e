#!/usr/bin/env bash
# CAdES-X Long Type 1 across two network namespaces: the services' ($NA,
# 10.231.0.1: `gostx ca` issues and revokes, `gostx ocsp -port` and
# `gostx ts serve` answer) and the signer's ($NB): `gostx cms -sign -cades`,
# `-enhance -to XL1 -tsa URL -ocsp URL` over the veth; then the services
# stopped and their namespace removed (the signer's has no link left) and
# `gostx cms -verify` there, offline, with only the CA: a signer revoked
# after the signature timestamp verifies, one revoked before does not
# (-enhance refuses it; made with -noverify, -verify refuses it).
# Needs root (exit 77, skipped, without it); tests/test_cades_cli.sh is
# the same on loopback without root.
set -u
G=${GOSTX:-build/gostx}
HERE=$(cd "$(dirname "$0")" && pwd)
NA=gxca$$ NB=gxcb$$ VA=gxcva$$ VB=gxcvb$$
. "$HERE/netns.sh"
netns_test_begin timeout
cd "$T" || exit 1
B() { ip netns exec $NB "$@"; }

# the CA and its certificates (in $NA's files)
"$G" genpkey -c 256A -o ca.key 2>/dev/null
"$G" req -x509 -ca -key ca.key -subj "/CN=Qualified CA/O=gostx net test" -days 3650 -out ca.pem
printf 'keyUsage = critical,digitalSignature,nonRepudiation\n' > signer.ext
printf 'basicConstraints = CA:FALSE\nkeyUsage = critical,digitalSignature\nextendedKeyUsage = critical,timeStamping\n' > tsa.ext
printf 'extendedKeyUsage = OCSPSigning\n' > rsp.ext
for u in after before tsa rsp; do
  ext=signer.ext
  [ $u = tsa ] || [ $u = rsp ] && ext=$u.ext
  "$G" genpkey -c 256A -o $u.key 2>/dev/null
  "$G" req -new -key $u.key -subj "/CN=$u" -out $u.csr
  "$G" ca -in $u.csr -cert ca.pem -keyfile ca.key -index index.txt -days 365 -extfile $ext -out $u.pem 2>/dev/null
done
[ "$(grep -c '^V' index.txt)" = 4 ] && ok "gostx ca issued 4" || bad "gostx ca issued 4"
echo "a document, $RANDOM" > doc.txt

ip netns exec $NA timeout 120 "$G" ts serve -bind 10.231.0.1 -port 0 -signer tsa.pem -inkey tsa.key -serial tsa.serial \
  -threads 2 > ts.out 2> ts.log &
PIDS+=($!)
ip netns exec $NA timeout 120 "$G" ocsp -index index.txt -CA ca.pem -rsigner rsp.pem -rkey rsp.key -bind 10.231.0.1 \
  -port 0 -threads 2 > ocsp.out 2> ocsp.log &
PIDS+=($!)
for _ in $(seq $(bound 50)); do
  tp=$(sed -n 's/.*listening on 10.231.0.1:\([0-9]*\)$/\1/p' ts.log)
  op=$(sed -n 's/.*on port \([0-9]*\) .*/\1/p' ocsp.log)
  [ -n "$tp" ] && [ -n "$op" ] && break
  sleep 0.1
done
[ -n "$tp" ] && [ -n "$op" ] && ok "services up in $NA" || { bad "services: $(cat ts.log ocsp.log)"; finish; }
net=(-tsa "http://10.231.0.1:$tp/" -ocsp "http://10.231.0.1:$op/" -CAfile ca.pem)
said() { # said RC PATTERN FILE WHAT
  if [ "$rc" = "$1" ] && grep -q -- "$2" "$3"; then ok "$4"; else bad "$4 (rc $rc)"; sed 's/^/  /' "$3"; fi
}

# revoked after the signature timestamp
"$G" cms -sign -cades -in doc.txt -signer after.pem -inkey after.key -out after.bes
B "$G" cms -enhance -in after.bes -to T -tsa "http://10.231.0.1:$tp/" -CAfile ca.pem -out after.t 2> e1
rc=$?; said 0 "^level: CAdES-T$" e1 "BES -> T from $NB"
sleep 1.1 # revoked a second after the timestamp (times in whole seconds)
"$G" ca -revoke after.pem -index index.txt -cert ca.pem -crl_reason keyCompromise 2>/dev/null
sleep 1.1 # the responder reads index.txt again at most once a second
B "$G" cms -enhance -in after.t -to XL1 "${net[@]}" -out after.xl1 2> e2
rc=$?; said 0 "^level: CAdES-X Long Type 1$" e2 "T -> XL1 from $NB (revoked after)"

# revoked before
"$G" ca -revoke before.pem -index index.txt -cert ca.pem -crl_reason superseded 2>/dev/null
sleep 1.1 # signed a second after the revocation
"$G" cms -sign -cades -in doc.txt -signer before.pem -inkey before.key -out before.bes
B "$G" cms -enhance -in before.bes -to XL1 "${net[@]}" -out before.xl1 2> e3
rc=$?; said 4 "certificate revoked (reason: superseded" e3 "revoked before: -enhance refuses"
B "$G" cms -enhance -in before.bes -to XL1 "${net[@]}" -noverify -out before.xl1 2> e4
rc=$?; said 0 "^level: CAdES-X Long Type 1$" e4 "revoked before: made with -noverify"

# the services gone, their namespace removed
pids_stop
ip -n $NA link del $VA # the veth pair at once (a namespace's removal frees it later)
ip netns del $NA
if ip -n $NB -o link show $VB >/dev/null 2>&1; then bad "$NB still has $VB"; else ok "$NA removed, $NB has no link"; fi
B "$G" cms -verify -in after.xl1 -content doc.txt -CAfile ca.pem 2> v1
rc=$?; said 0 "^level: CAdES-X Long Type 1$" v1 "offline: revoked after the timestamp verifies"
B "$G" cms -verify -in before.xl1 -content doc.txt -CAfile ca.pem 2> v2
rc=$?; said 4 "certificate revoked (reason: superseded" v2 "offline: revoked before fails, named"
finish
