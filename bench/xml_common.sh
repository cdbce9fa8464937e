# Sourced by bench/xml_speed.sh and bench/xml_stream.sh once their options
# are read ($root, $size, $build; XML_TARGETS: what to build): $bytes, the
# Release build with libgostx-xmldsig, $G, a scratch directory $T removed
# on exit; then xml_pki makes $T the working directory with a CA (ca.key,
# ca.pem) and a signer under it (k.key, k.pem), both GOST 256A.
name=$(basename "$0" .sh)
bytes=$(numfmt --from=iec "$size") || { echo "$name.sh: --size: $size is no size" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "$name.sh: /usr/bin/time is needed (apt-get install time)" >&2; exit 1; }
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DGOSTX_XMLDSIG=ON >/dev/null
# shellcheck disable=SC2086 # XML_TARGETS: one word a target
cmake --build "$build" -j "$(nproc)" --target $XML_TARGETS >/dev/null
G=$build/gostx
T=$(mktemp -d "${TMPDIR:-/tmp}/$name.XXXXXX")
trap 'rm -rf "$T"' EXIT

xml_pki() {
  cd "$T"
  { "$G" genpkey -c 256A -o ca.key && "$G" req -x509 -ca -key ca.key -subj "/CN=$name CA" -days 2 -out ca.pem &&
    "$G" genpkey -c 256A -o k.key && "$G" req -new -key k.key -subj "/CN=$name" -out k.csr &&
    printf 'basicConstraints = CA:FALSE\nkeyUsage = digitalSignature\n' >leaf.ext &&
    "$G" x509 -req -in k.csr -CA ca.pem -CAkey ca.key -days 1 -extfile leaf.ext -out k.pem; } 2>/dev/null
}
