#!/usr/bin/env bash
# `gostx cms` of two builds compared on generated argument sets (issue 68:
# a refactor proves it changed nothing). OLD and NEW each run every case on
# random contents of 0, 1, 4095, 4096 and 1 MiB + 1 bytes, from a file and
# from a pipe:
#   -sign (detached and -nodetach; PEM and DER; a 256-bit, a 512-bit and
#     both signers; none, -cades, -noattr, -nocerts, -no_signing_time, all
#     three, -cades with -noattr): the exit status and stderr the same; the
#     messages' DER structure the same with what is random or the clock's
#     masked (signature values, signingTime; encryption's keys and
#     ciphertext below); OLD verifies NEW's message and NEW OLD's, the
#     content back;
#   -verify (-noverify, -content when detached), -cmsout, -cmsout -print of
#     each message, and of it with one byte flipped: stdout, stderr, exit
#     status byte for byte;
#   -encrypt (-kuznyechik, -magma, -gost89; -omac; -kari; -keyid; PEM and
#     DER) and -EncryptedData_encrypt: the masked structure the same, each
#     decrypts the other's; -decrypt of one message by both: byte for byte;
#   -digest_create (streebog256 and 512), -digest_verify: byte for byte.
# Then, with --speed SIZE (e.g. 100M), `-sign -nodetach` and `-sign` of a SIZE file,
# OLD and NEW in turns (RUNS, default 5), medians and NEW/OLD.
# The keys: R 1323565.1.025-2019's sender and recipient keys
# (tests/vectors/tc26_cms), no openssl needed.
#
# Usage: scripts/same_behaviour_cms.sh OLD_GOSTX NEW_GOSTX [--speed SIZE [--runs N]] [--no-compare]
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
OLD=${1:?usage: same_behaviour_cms.sh OLD_GOSTX NEW_GOSTX}
NEW=${2:?usage: same_behaviour_cms.sh OLD_GOSTX NEW_GOSTX}
shift 2
speed='' runs=5 compare=1
while [ $# -gt 0 ]; do
  case "$1" in
    --speed) speed=${2:?--speed SIZE}; shift ;;
    --runs) runs=${2:?--runs N}; shift ;;
    --no-compare) compare=0 ;;
    *) echo "same_behaviour_cms.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
v=$root/tests/vectors/tc26_cms
T=$(mktemp -d "${TMPDIR:-/tmp}/same_cms.XXXXXX")
trap 'rm -rf "$T"' EXIT
cases=0 same=0 differ=0

# mask FILE: the message's BER/DER tree as text, what is random masked
mask() {
  python3 - "$1" <<'EOF'
import sys, base64
data = open(sys.argv[1], 'rb').read()
if data[:5] == b'-----':
    lines = [l for l in data.decode().splitlines() if l and not l.startswith('-----')]
    data = base64.b64decode(''.join(lines))
out = []
def walk(p, end, depth):
    while p < end:
        if data[p] == 0 and data[p + 1] == 0:
            out.append('  ' * depth + 'EOC'); return p + 2
        tag = data[p]; l = data[p + 1]; p += 2
        if l == 0x80:
            out.append('  ' * depth + '%02x indef' % tag); p = walk(p, len(data), depth + 1); continue
        if l & 0x80:
            k = l & 0x7f; form = 'long%d' % k
            l = int.from_bytes(data[p:p + k], 'big'); p += k
        else:
            form = 'short'
        body = data[p:p + l]
        if tag & 0x20:
            out.append('  ' * depth + '%02x %s %d' % (tag, form, l)); walk(p, p + l, depth + 1)
        elif tag in (0x02, 0x06, 0x01, 0x05):  # INTEGER, OID, BOOLEAN, NULL: kept
            out.append('  ' * depth + '%02x %s %s' % (tag, form, body.hex()))
        else:  # strings (signatures, keys, ciphertext, content), times: length only
            out.append('  ' * depth + '%02x %s len %d' % (tag, form, l))
        p += l
    return p
walk(0, len(data), 0)
print('\n'.join(out))
EOF
}

# run TAG BIN ARGS...: stdout, stderr, exit status into $T/TAG.{out,err,rc}
run() {
  local tag=$1 bin=$2
  shift 2
  "$bin" cms "$@" >"$T/$tag.out" 2>"$T/$tag.err"
  echo $? >"$T/$tag.rc"
}
# runin TAG BIN FILE ARGS...: as run, -in - read from a pipe of FILE
runin() {
  local tag=$1 bin=$2 f=$3
  shift 3
  cat "$f" | "$bin" cms "$@" >"$T/$tag.out" 2>"$T/$tag.err"
  echo $? >"$T/$tag.rc"
}
# make_pair SRC EXT ARGS...: OLD and NEW run ARGS on in.bin (SRC file, or
# pipe: -in -) into $T/o.EXT and $T/n.EXT
make_pair() {
  local src=$1 ext=$2 w bin
  shift 2
  for w in o n; do
    bin=$OLD; [ $w = n ] && bin=$NEW
    rm -f "$T/$w.$ext"
    if [ "$src" = file ]; then
      run $w "$bin" "$@" -in "$T/in.bin" -out "$T/$w.$ext"
    else
      runin $w "$bin" "$T/in.bin" "$@" -in - -out "$T/$w.$ext"
    fi
  done
}
# the binaries' names in messages are the same: the files' names are
norm() { sed "s|$T/||g" "$1"; }
verdict() { # verdict NAME COND...: one case counted
  cases=$((cases + 1))
  if "${@:2}"; then same=$((same + 1)); else differ=$((differ + 1)); echo "DIFFER: $1"; fi
}
same_run() { # o and n ran: the same status and messages
  [ "$(cat "$T/o.rc")" = "$(cat "$T/n.rc")" ] && cmp -s <(norm "$T/o.err") <(norm "$T/n.err") &&
    cmp -s "$T/o.out" "$T/n.out"
}
same_file() { cmp -s "$1" "$2"; }
same_mask() { cmp -s <(mask "$1") <(mask "$2"); }

# one command by both on the same input: byte for byte (stdout, stderr, -out, rc)
both() { # both NAME ARGS... (-out $T/X.res where X is o / n: written as @OUT@)
  local name=$1
  shift
  run o "$OLD" "${@//@OUT@/$T/o.res}"
  run n "$NEW" "${@//@OUT@/$T/n.res}"
  verdict "$name" same_pair
}
same_pair() {
  same_run || return 1
  [ -e "$T/o.res" ] || [ -e "$T/n.res" ] || return 0
  cmp -s "$T/o.res" "$T/n.res"
}

# Each build reads the other's output with `cms ARGS -in FILE -out $T/x.out`
# and the content ($T/in.bin) comes back: NEW reads $T/o.EXT (verdict
# NAME: NEW_SAYS), OLD $T/n.EXT (NAME: OLD_SAYS).
#   each_reads_other NAME NEW_SAYS OLD_SAYS EXT ARGS...
each_reads_other() {
  local name=$1 new_says=$2 old_says=$3 ext=$4 side bin says
  shift 4
  for side in o n; do
    if [ $side = o ]; then bin=$NEW says=$new_says; else bin=$OLD says=$old_says; fi
    rm -f "$T/x.out"
    "$bin" cms "$@" -in "$T/$side.$ext" -out "$T/x.out" 2>"$T/x.err"
    verdict "$name: $says" same_file "$T/in.bin" "$T/x.out"
  done
}

s256=(-signer "$v/sender256_cert.pem" -inkey "$v/sender256_key.pem")
s512=(-signer "$v/sender512_cert.pem" -inkey "$v/sender512_key.pem")
# SIZES="1 4096": a shorter run
read -r -a sizes <<<"${SIZES:-0 1 4095 4096 $((1024 * 1024 + 1))}"

if [ $compare = 1 ]; then
  for size in "${sizes[@]}"; do
    head -c "$size" /dev/urandom >"$T/in.bin"
    for who in 256 512 both; do
      case $who in 256) signers=("${s256[@]}") ;; 512) signers=("${s512[@]}") ;; both) signers=("${s256[@]}" "${s512[@]}") ;; esac
      for opts in "" "-cades" "-noattr" "-nocerts" "-no_signing_time" "-cades -nocerts -no_signing_time" "-cades -noattr"; do
        for mode in "" -nodetach; do
          for form in PEM DER; do
            for src in file pipe; do
              name="sign $size $who [$opts] ${mode:-detached} $form $src"
              args=(-sign $mode $opts "${signers[@]}" -outform $form)
              make_pair $src sig "${args[@]}"
              verdict "$name: status and messages" same_run
              [ "$(cat "$T/o.rc")" = 0 ] && [ -e "$T/o.sig" ] && [ -e "$T/n.sig" ] || continue
              verdict "$name: structure, random parts masked" same_mask "$T/o.sig" "$T/n.sig"
              content=(-certfile "$v/sender256_cert.pem" -certfile "$v/sender512_cert.pem") # for -nocerts
              [ -z "$mode" ] && content+=(-content "$T/in.bin")
              each_reads_other "$name" "new verifies old's" "old verifies new's" sig \
                -verify -noverify "${content[@]}"
              # deterministic commands on NEW's message, and on it with a byte flipped
              [ "$size" -le 4096 ] || [ "$src" = file ] || continue
              rm -f "$T/o.res" "$T/n.res"
              both "$name: -verify" -verify -noverify -in "$T/n.sig" "${content[@]}" -out @OUT@
              rm -f "$T/o.res" "$T/n.res"
              both "$name: -cmsout -print" -cmsout -print -in "$T/n.sig" -out @OUT@
              rm -f "$T/o.res" "$T/n.res"
              both "$name: -cmsout" -cmsout -in "$T/n.sig" -outform DER -out @OUT@
              cp "$T/n.sig" "$T/bad.sig"
              len=$(stat -c %s "$T/bad.sig")
              at=$(( (len * 7 / 11) ))
              b=$(od -An -tu1 -j"$at" -N1 "$T/bad.sig")
              printf "\\$(printf %03o $((b ^ 1)))" | dd of="$T/bad.sig" bs=1 seek="$at" conv=notrunc status=none
              rm -f "$T/o.res" "$T/n.res"
              both "$name: -verify of a flipped byte" -verify -noverify -in "$T/bad.sig" "${content[@]}" -out @OUT@
            done
          done
        done
      done
    done
    # encryption
    r256=(-recip "$v/recipient256_cert.pem") r512=(-recip "$v/recipient512_cert.pem")
    for cipher in -kuznyechik -magma -gost89; do
      for opts in "" -omac -kari -keyid "-kari -keyid -omac"; do
        [ $cipher = -gost89 ] && [[ "$opts" == *omac* ]] && continue
        for form in PEM DER; do
          for src in file pipe; do
            name="encrypt $size $cipher [$opts] $form $src"
            args=(-encrypt $cipher $opts "${r256[@]}" "${r512[@]}" -outform $form)
            make_pair $src p7m "${args[@]}"
            verdict "$name: status and messages" same_run
            [ "$(cat "$T/o.rc")" = 0 ] || continue
            verdict "$name: structure, random parts masked" same_mask "$T/o.p7m" "$T/n.p7m"
            each_reads_other "$name" "the other decrypts it" "the other decrypts it" p7m \
              -decrypt -inkey "$v/recipient512_key.pem"
            rm -f "$T/o.res" "$T/n.res"
            both "$name: -decrypt" -decrypt -recip "$v/recipient256_cert.pem" -inkey "$v/recipient256_key.pem" \
              -in "$T/n.p7m" -out @OUT@
          done
        done
      done
      key=$(head -c 32 /dev/urandom | od -An -tx1 -v | tr -d ' \n')
      for opts in "" -omac; do
        [ $cipher = -gost89 ] && [ -n "$opts" ] && continue
        name="EncryptedData $size $cipher [$opts]"
        run o "$OLD" -EncryptedData_encrypt -secretkey "$key" $cipher $opts -in "$T/in.bin" -outform DER -out "$T/o.ed"
        run n "$NEW" -EncryptedData_encrypt -secretkey "$key" $cipher $opts -in "$T/in.bin" -outform DER -out "$T/n.ed"
        verdict "$name: status and messages" same_run
        verdict "$name: structure, random parts masked" same_mask "$T/o.ed" "$T/n.ed"
        each_reads_other "$name" "the other decrypts it" "the other decrypts it" ed \
          -EncryptedData_decrypt -secretkey "$key"
      done
    done
    for md in streebog256 streebog512; do
      rm -f "$T/o.res" "$T/n.res"
      both "digest_create $size $md" -digest_create -md $md -in "$T/in.bin" -outform DER -out @OUT@
      cp "$T/n.res" "$T/dd.der" 2>/dev/null
      rm -f "$T/o.res" "$T/n.res"
      both "digest_verify $size $md" -digest_verify -in "$T/dd.der" -out @OUT@
    done
  done
  echo "same_behaviour_cms: $cases cases, $same the same, $differ differ"
fi

if [ -n "$speed" ]; then
  bytes=$(numfmt --from=iec "$speed")
  head -c "$bytes" /dev/urandom >"$T/big.bin"
  med() { printf '%s\n' "$@" | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
  for mode in -nodetach ""; do
    to=() tn=()
    for ((i = 0; i < runs; i++)); do
      for w in o n; do
        bin=$OLD; [ $w = n ] && bin=$NEW
        t0=$(date +%s%N)
        "$bin" cms -sign $mode "${s256[@]}" -in "$T/big.bin" -outform DER -out "$T/big.sig" || exit 1
        t=$((($(date +%s%N) - t0) / 1000000))
        if [ $w = o ]; then to+=("$t"); else tn+=("$t"); fi
      done
    done
    mo=$(med "${to[@]}") mn=$(med "${tn[@]}")
    echo "speed: -sign ${mode:-(detached)} of $speed, $runs runs in turns: old ${to[*]} ms (median $mo)," \
      "new ${tn[*]} ms (median $mn); new/old speed $(awk -v a="$mn" -v b="$mo" 'BEGIN {printf "%.3f", b / a}')x"
  done
fi
[ "$differ" = 0 ]
