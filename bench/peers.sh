#!/usr/bin/env bash
# The same work on gostx and on its peers from Debian, in one run, one core:
# OpenSSL 3 + gost-engine, libgcrypt, Botan 2. Prints MB/s and gostx/peer ratios.
#
# Every implementation runs through a small driver of ours (bench/peers/drv_*.c,
# against each library's public API) that times one operation over a buffer in
# memory (wall clock, CLOCK_MONOTONIC, after a warm-up pass over the same buffers). Runs are
# interleaved (gostx, peer, peer, ..., gostx, peer, ...) and the median of each
# is reported. Before timing, each peer's output on a 4 KiB input is compared
# with gostx's for the same operation (same key, IV, parameters): a peer whose
# output differs is marked "!" and its ratio is not of the same work.
#
# Usage: bench/peers.sh [--quick] [--mib N] [--runs N] [--no-install] [--build DIR] [--only RE]
#   default: 64 MiB per run, 5 runs; --quick: 4 MiB, 3 runs; --only: the rows
#   whose label matches the extended regex RE (e.g. 'cbc|omac|cfb': the
#   one-block modes).
# Installs what is missing with apt-get (Debian 12 / Ubuntu), builds gostx
# (Release) and the drivers under BUILD/peers. Needs root or sudo to install.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
mib=64 runs=5 install=1 build="$root/build" only=
. "$root/bench/bench_opts.sh"
bench_opt() {
  case "$1" in
    --quick) mib=4 runs=3 ;;
    --no-install) install=0 ;;
    *) return 1 ;;
  esac
}
bench_opts "mib runs build only" "$@"
case "$mib$runs" in *[!0-9]*) echo "peers.sh: --mib and --runs take numbers" >&2; exit 2 ;; esac
if [ "$mib" -lt 1 ] || [ "$runs" -lt 1 ]; then echo "peers.sh: --mib and --runs must be >= 1" >&2; exit 2; fi

# ---- install (only what is missing) ----
pkgs=(gcc g++ make cmake pkg-config openssl libssl-dev libengine-gost-openssl
      libgcrypt20-dev libbotan-2-dev)
if [ $install = 1 ]; then
  missing=()
  for p in "${pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  if [ ${#missing[@]} -gt 0 ]; then
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO=sudo
    echo "installing: ${missing[*]}" >&2
    $SUDO apt-get update -q >&2
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends \
      "${missing[@]}" >&2
  fi
fi

# ---- build gostx and the drivers ----
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j "$(nproc)" --target gostx gostx_cli >/dev/null
bin="$build/peers"
mkdir -p "$bin"
src="$root/bench/peers"
CFLAGS=(-O2 -Wall)
gcc "${CFLAGS[@]}" -I"$root/include" -o "$bin/drv_gostx" "$src/drv_gostx.c" "$build/libgostx.a" -lpthread
peers=()
names=()
try_build() { # id, label, build command...
  local id=$1 label=$2; shift 2
  if "$@" 2> "$bin/$id.log"; then
    peers+=("$id"); names+=("$label")
  else
    echo "note: $label driver did not build (see $bin/$id.log); column left out" >&2
  fi
}
try_build openssl "gost-engine" gcc "${CFLAGS[@]}" -o "$bin/drv_openssl" "$src/drv_openssl.c" -lcrypto
# shellcheck disable=SC2046
try_build gcrypt "libgcrypt" gcc "${CFLAGS[@]}" -o "$bin/drv_gcrypt" "$src/drv_gcrypt.c" \
  $(libgcrypt-config --cflags --libs 2>/dev/null || echo -lgcrypt)
# shellcheck disable=SC2046
try_build botan "Botan" g++ -O2 -Wall -std=c++17 $(pkg-config --cflags botan-2 2>/dev/null) \
  -o "$bin/drv_botan" "$src/drv_botan.cpp" $(pkg-config --libs botan-2 2>/dev/null)

# ---- the work: label | gostx op | peer:op ... ----
rows=(
  "kuznyechik-ecb|kuznyechik-ecb|openssl:kuznyechik-ecb"
  "kuznyechik-ctr|kuznyechik-ctr|openssl:kuznyechik-ctr"
  "kuznyechik-cbc-enc|kuznyechik-cbc|openssl:kuznyechik-cbc"
  "kuznyechik-omac|kuznyechik-omac|openssl:kuznyechik-omac"
  "kuznyechik-mgm-enc|kuznyechik-mgm|"
  "magma-ecb|magma-ecb|"
  "magma-ctr|magma-ctr|openssl:magma-ctr"
  "magma-cbc-enc|magma-cbc|openssl:magma-cbc gcrypt:magma-cbc"
  "magma-omac|magma-omac|gcrypt:magma-omac"
  "gost89-ecb (test S-box)|gost89-ecb-test|gcrypt:gost89-ecb-test botan:gost89-ecb-test"
  "gost89-cnt mesh (CP-A)|gost89-cnt-mesh-cpa|openssl:gost89-cnt-mesh-cpa"
  "gost89-cfb mesh (CP-A)|gost89-cfb-mesh-cpa|openssl:gost89-cfb-mesh-cpa gcrypt:gost89-cfb-mesh-cpa"
  "gost89-cfb (test S-box)|gost89-cfb-test|gcrypt:gost89-cfb-test botan:gost89-cfb-test"
  "streebog256|streebog256|openssl:streebog256 gcrypt:streebog256 botan:streebog256"
  "streebog512|streebog512|openssl:streebog512 gcrypt:streebog512 botan:streebog512"
  "hmac-streebog256|hmac-streebog256|openssl:hmac-streebog256 gcrypt:hmac-streebog256 botan:hmac-streebog256"
)
if [ -n "$only" ]; then
  kept=()
  for row in "${rows[@]}"; do [[ ${row%%|*} =~ $only ]] && kept+=("$row"); done
  [ ${#kept[@]} -gt 0 ] || { echo "peers.sh: no row matches --only $only" >&2; exit 2; }
  rows=("${kept[@]}")
fi
have_peer() { local p; for p in "${peers[@]}"; do [ "$p" = "$1" ] && return 0; done; return 1; }

# ---- same output? ----
declare -A mark
for row in "${rows[@]}"; do
  IFS='|' read -r _ _ specs <<< "$row"
  for spec in $specs; do
    p=${spec%%:*} op=${spec#*:}
    have_peer "$p" || continue
    want=$("$bin/drv_gostx" check "$op")
    got=$("$bin/drv_$p" check "$op" 2>/dev/null || echo failed)
    if [ "$got" = "$want" ]; then mark[$p:$op]=""
    elif [ "$got" = failed ]; then mark[$p:$op]="?"
    else mark[$p:$op]="!"
    fi
  done
done

# ---- interleaved runs ----
bytes=$((mib << 20))
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
run1() { "$bin/drv_$1" run "$2" "$bytes" 2>/dev/null || echo "fail fail"; }
peer_op() { # peer, specs -> op or ""
  local spec
  for spec in $2; do [ "${spec%%:*}" = "$1" ] && { echo "${spec#*:}"; return; }; done
  echo ""
}
# shellcheck disable=SC2034 # read through the nameref in table()
declare -A W C   # medians: wall and CPU seconds, key "row:impl"
nrows=${#rows[@]}
for i in "${!rows[@]}"; do
  IFS='|' read -r label gop specs <<< "${rows[$i]}"
  echo "running $((i + 1))/$nrows: $label" >&2
  declare -A tw=() tc=()
  for _ in $(seq "$runs"); do
    for p in gostx "${peers[@]}"; do
      if [ "$p" = gostx ]; then op=$gop; else op=$(peer_op "$p" "$specs"); fi
      [ -n "$op" ] || continue
      [ "$p" != gostx ] && [ "${mark[$p:$op]-}" = "?" ] && continue
      read -r w c <<< "$(run1 "$p" "$op")"
      if [ "$w" = fail ]; then
        [ "$p" = gostx ] && { echo "peers.sh: gostx driver failed on $op" >&2; exit 1; }
        mark[$p:$op]="?"; continue
      fi
      tw[$p]+="$w "; tc[$p]+="$c "
    done
  done
  for p in "${!tw[@]}"; do
    # shellcheck disable=SC2086,SC2034 # word lists on purpose; read through a nameref
    W[$i:$p]=$(median ${tw[$p]})
    # shellcheck disable=SC2086,SC2034
    C[$i:$p]=$(median ${tc[$p]})
  done
  unset tw tc
done

ver() { dpkg-query -W -f '${Version}' "$1" 2>/dev/null || echo '?'; }
table() { # title, array name (W or C)
  local -n T=$2
  echo
  echo "$1"
  local hdr n i p line
  hdr=$(printf '%-25s %9s' "work" "gostx")
  for n in "${names[@]}"; do hdr+=$(printf ' %13s %6s' "$n" "x"); done
  echo "$hdr"
  for i in "${!rows[@]}"; do
    IFS='|' read -r label gop specs <<< "${rows[$i]}"
    local gt=${T[$i:gostx]}
    line=$(printf '%-25s %9s' "$label" "$(awk -v b="$bytes" -v t="$gt" 'BEGIN{printf "%.1f", b/t/1e6}')")
    for p in "${peers[@]}"; do
      local op m pt
      op=$(peer_op "$p" "$specs")
      if [ -z "$op" ]; then line+=$(printf ' %13s %6s' "-" ""); continue; fi
      m=${mark[$p:$op]-}
      pt=${T[$i:$p]-}
      if [ "$m" = "?" ] || [ -z "$pt" ]; then line+=$(printf ' %13s %6s' "?" ""); continue; fi
      line+=$(printf ' %13s %6s' "$(awk -v b="$bytes" -v t="$pt" 'BEGIN{printf "%.1f", b/t/1e6}')$m" \
        "$(awk -v a="$pt" -v g="$gt" 'BEGIN{printf "%.2f", a/g}')")
    done
    echo "$line"
  done
}

echo "gostx vs peers: same work, one core, $mib MiB in memory per run, median of $runs interleaved runs"
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //') ($(nproc) online), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "gostx $("$build/gostx" --version | cut -d' ' -f2): $("$build/gostx" info | sed -n '2,$p' | tr -s ' ' | tr '\n' ';' | sed 's/;$//; s/;/; /g')"
echo "peers: gost-engine $(ver libengine-gost-openssl) on OpenSSL $(ver openssl), libgcrypt $(ver libgcrypt20), Botan $(ver libbotan-2-19)"
echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ); MB/s = 10^6 B/s; x = gostx/peer speed (above 1: gostx faster)"
echo "marks: ! output differs from gostx (not the same work), ? peer failed, - the peer lacks the operation"
table "wall clock (CLOCK_MONOTONIC):" W
table "thread CPU time (CLOCK_THREAD_CPUTIME_ID; less disturbed by other load on a shared machine):" C
