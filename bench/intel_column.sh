#!/usr/bin/env bash
# One column of docs/BENCHMARKS.md's "Headline rows by CPU", on this host, in
# one command: runs the bench scripts behind those rows (bench/peers.sh,
# bench/ossl_speed.sh, bench/net_tunnel.sh TCP x1 with one worker,
# bench/disk_fio.sh, bench/tls_speed.sh's TLS 1.3 bulk and relay,
# bench/tls_mem.sh, and `gostx bench` at every level `gostx info` lists),
# keeps each one's raw output in OUTDIR and prints the rows as one column,
# "row | value", under a header naming the CPU (vendor, family, model,
# stepping, the AVX-512 VBMI/IFMA, GFNI and VAES flags), the date and the
# gostx commit. Every ratio is against a peer measured in the same run, as
# BENCHMARKS.md quotes them. Named for the Intel column it was written to
# fill; it runs on any CPU.
#
# Usage: bash bench/intel_column.sh OUTDIR
#   OUTDIR (new or empty) gets info.txt, peers.txt, ossl.txt, tunnel.txt,
#   disk.txt, tls.txt, tls_mem.txt, gostx-bench-LEVEL.txt (each bench's
#   stdout and stderr), README.md (the commands that made them) and
#   column.txt (what this prints).
#      bash bench/intel_column.sh --reprint DIR
#   prints the column again from DIR's raw outputs (this script's, or files
#   named as it names them, e.g. ../shared/perf/intel-emr-2026-11-29/),
#   running nothing; a file DIR lacks makes its rows "skipped".
# QUICK=1      a smoke run: seconds per bench, figures not to quote (the
#              header says so)
# ONLY="LIST"  the benches to run, of: peers ossl tunnel disk tls tls_mem bench
#              (default all); the others' rows say "not run"
# INSTALL=1    lets bench/peers.sh apt-get the peers it lacks (default:
#              --no-install, a missing peer's rows say so)
# BUILD=DIR    the build to measure (default: build beside bench/; run make
#              build first: the tunnel, the disk and TLS need its bench
#              tools, the nbdkit filter and the OpenSSL provider)
# The tunnel needs root (network namespaces) and iperf3, the disk root (the
# luks row's image); without them their rows say so. A bench that fails or
# lacks a tool or a peer prints "skipped: WHY" for its rows, never a figure
# from elsewhere. GOSTX_IMPL is unset: the column is the default dispatch's
# (the per-level rows set it themselves).
set -u
unset GOSTX_IMPL
root=$(cd "$(dirname "$0")/.." && pwd)
usage() { echo "usage: bash bench/intel_column.sh OUTDIR | --reprint DIR (QUICK=1, ONLY=\"peers ossl tunnel disk tls tls_mem bench\")" >&2; exit 2; }
reprint=0
[ "${1-}" = --reprint ] && reprint=1 && shift
[ $# -eq 1 ] || usage
case $1 in -h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;; -*) usage ;; esac
out=$1
if [ $reprint = 1 ]; then
  [ -f "$out/info.txt" ] || { echo "intel_column: no $out/info.txt (gostx info): not a folder of raw outputs" >&2; exit 2; }
elif [ -e "$out" ] && [ -n "$(ls -A "$out" 2>/dev/null)" ]; then
  echo "intel_column: $out is not empty (each run gets its own folder: its raw outputs stay with its column)" >&2
  exit 2
fi
[ $reprint = 1 ] || mkdir -p "$out" || exit 1
out=$(cd "$out" && pwd)
quick=${QUICK:-0}
all="peers ossl tunnel disk tls tls_mem bench"
only=${ONLY:-$all}
for b in $only; do
  case " $all " in *" $b "*) ;; *) echo "intel_column: ONLY: unknown bench $b (of: $all)" >&2; exit 2 ;; esac
done
abs() { case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
build=$(abs "${BUILD:-$root/build}")
G=$build/gostx
[ $reprint = 1 ] || [ -x "$G" ] || { echo "intel_column: $G not built (make build)" >&2; exit 1; }
cd "$root" || exit 1
declare -A why # bench -> why its rows have no figure
col=$out/column.txt

# ---- the header ----
cpu_field() { awk -F': *' -v k="$1" '$1 ~ "^" k "[ \t]*$" {print $2; exit}' /proc/cpuinfo; }
# gostx info's lines without a colon: "ALGORITHM IMPL", one each
info_impls() { awk 'NR > 1 && !/:/ {$1 = $1; print}' "$out/info.txt" | paste -sd, - | sed 's/,/, /g'; }
has_flag() { grep -m1 '^flags' /proc/cpuinfo | grep -qw "$1" && echo yes || echo no; }
commit=$(git -C "$root" describe --always --dirty --abbrev=10 2>/dev/null || echo "unknown (not a git checkout)")
if [ $reprint = 1 ]; then
  col=/dev/null # DIR is another run's (perhaps read-only): stdout only
  echo "# gostx headline column, reprinted from the raw outputs in $out"
  # each bench names the CPU and the date in its own header
  for f in peers tls disk tunnel ossl; do
    [ -f "$out/$f.txt" ] && grep -m1 -E '^(# [0-9]+ CPUs,|CPU: )' "$out/$f.txt" | sed "s|^|$f.txt: |"
  done
  echo "gostx info: $(info_impls)"
  echo "raw outputs: $out"
  for b in peers:peers ossl:ossl tunnel:tunnel disk:disk tls:tls tls_mem:tls_mem; do
    [ -f "$out/${b#*:}.txt" ] || why[${b%%:*}]="no ${b#*:}.txt in $out"
  done
  only=
fi
[ $reprint = 1 ] || "$G" info >"$out/info.txt" 2>&1
[ $reprint = 1 ] || {
  echo "# gostx headline column$([ "$quick" = 1 ] && echo ", QUICK=1 smoke run: figures not to quote")"
  echo "CPU: $(cpu_field 'model name'), $(cpu_field vendor_id) family $(cpu_field 'cpu family') model" \
    "$(cpu_field model) stepping $(cpu_field stepping), $(nproc) CPUs online"
  echo "flags: avx512f $(has_flag avx512f), avx512bw $(has_flag avx512bw), avx512vbmi $(has_flag avx512vbmi)," \
    "avx512ifma $(has_flag avx512ifma)"
  echo "       gfni $(has_flag gfni), vaes $(has_flag vaes), vpclmulqdq $(has_flag vpclmulqdq)"
  echo "date: $(date -u +%Y-%m-%dT%H:%MZ); load average $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "gostx: $("$G" --version 2>/dev/null | head -1) at $commit; build $build"
  echo "gostx info: $(info_impls)"
  echo "raw outputs: $out"
} >"$col"
[ $reprint = 1 ] || cat "$col"

[ $reprint = 1 ] || {
  echo "# gostx bench outputs, $(date -u +%Y-%m-%d)$([ "$quick" = 1 ] && echo " (QUICK=1 smoke run)")"
  echo
  echo "Made by \`bash bench/intel_column.sh\` at $commit; column.txt is its column, each"
  echo "file below the raw output (stdout and stderr) of the command beside it."
  echo
  echo "- info.txt: \`gostx info\`"
} >"$out/README.md"

# ---- the runs ----
selected() { case " $only " in *" $1 "*) return 0 ;; esac; return 1; }
# run BENCH FILE CMD...: CMD's stdout and stderr into OUTDIR/FILE; a failure
# (nonzero exit) is the bench's reason, with the last line it printed
run() {
  local b=$1 f=$2 rc cmd
  shift 2
  cmd=$(printf '%q ' "$@")
  # shellcheck disable=SC2016 # the backquotes are Markdown's
  printf -- '- %s: `%s`\n' "$f" "${cmd% }" >>"$out/README.md"
  echo "intel_column: $f: ${cmd% }" >&2
  "$@" >"$out/$f" 2>&1
  rc=$?
  [ $rc = 0 ] || why[$b]="$f: exit $rc: $(grep -v '^[[:space:]]*$' "$out/$f" | tail -1)"
  return 0
}
[ $reprint = 1 ] || for b in $all; do selected "$b" || why[$b]="not run (ONLY=\"$only\")"; done

if selected bench; then
  levels=$(awk '$1 == "levels:" {$1 = ""; print}' "$out/info.txt")
  [ -n "$levels" ] || why[bench]="gostx info printed no levels line (info.txt)"
  for l in $levels; do
    # quick: the three rows, thread CPU time (a short run on a shared machine)
    if [ "$quick" = 1 ]; then
      run "bench-$l" "gostx-bench-$l.txt" env GOSTX_IMPL="$l" "$G" bench --clock cpu --repeat 3 --time 20 \
        --filter kuznyechik-ecb-enc,kuznyechik-ctr,kuznyechik-mgm-enc
    else
      run "bench-$l" "gostx-bench-$l.txt" env GOSTX_IMPL="$l" "$G" bench
    fi
  done
fi
if selected peers; then
  inst=--no-install
  [ "${INSTALL:-0}" = 1 ] && inst=
  if [ "$quick" = 1 ]; then
    run peers peers.txt bash bench/peers.sh $inst --build "$build" --mib 1 --runs 1 \
      --only '^(kuznyechik-(ecb|ctr|cbc-enc|omac|mgm-enc)|magma-(cbc-enc|omac)|gost89-cfb.*)$'
  else
    run peers peers.txt bash bench/peers.sh $inst --build "$build"
  fi
fi
if selected ossl; then
  if [ "$quick" = 1 ]; then
    run ossl ossl.txt bash bench/ossl_speed.sh --build "$build" --runs 1 --seconds 1 kuznyechik-cbc magma-cbc
  else
    run ossl ossl.txt bash bench/ossl_speed.sh --build "$build" --runs 3
  fi
fi
if selected tunnel; then
  if [ "$(id -u)" != 0 ]; then
    why[tunnel]="needs root (network namespaces): run as root"
  elif ! command -v iperf3 >/dev/null; then
    why[tunnel]="iperf3 is not installed (apt-get install iperf3)"
  elif [ "$quick" = 1 ]; then
    run tunnel tunnel.txt env GOSTX="$G" ONLY="tcp x1" THREADS=1 IKEV2=0 CRYPTO=0 SPLIT=0 \
      bash bench/net_tunnel.sh 1 1
  else
    run tunnel tunnel.txt env GOSTX="$G" ONLY="tcp x1" THREADS=1 IKEV2=0 bash bench/net_tunnel.sh 4 5
  fi
fi
if selected disk; then
  # disk_fio.sh takes its build relative to the checkout
  rel=$(realpath --relative-to="$root" "$build")
  if [ "$(id -u)" != 0 ]; then
    # as another user qemu-img's LUKS image failed ("Unable to get accurate CPU usage")
    why[disk]="needs root (qemu-img's LUKS image for the luks row): run as root"
  elif [ "$quick" = 1 ]; then
    run disk disk.txt bash bench/disk_fio.sh --build "$rel" --seconds 1 --reps 1
  else
    run disk disk.txt bash bench/disk_fio.sh --build "$rel" --seconds 4 --reps 3
  fi
fi
if selected tls; then
  if [ "$quick" = 1 ]; then
    run tls tls.txt env BUILD="$build" TLS_SPEED_PART=bulk13 TLS_SPEED_STRACE=0 \
      TLS_SPEED_SUITES="KUZNYECHIK_MGM_L MAGMA_MGM_L" bash bench/tls_speed.sh 1 1
  else
    run tls tls.txt env BUILD="$build" TLS_SPEED_PART=bulk13 bash bench/tls_speed.sh 3 3
  fi
fi
if selected tls_mem; then
  if [ "$quick" = 1 ]; then
    run tls_mem tls_mem.txt env BUILD="$build" bash bench/tls_mem.sh 200 1
  else
    run tls_mem tls_mem.txt env BUILD="$build" bash bench/tls_mem.sh 10000 3
  fi
fi

[ $reprint = 1 ] || for b in "${!why[@]}"; do echo "- $b: skipped: ${why[$b]}"; done | sort >>"$out/README.md"

# ---- the column ----
# row LABEL BENCH VALUE: one line; an empty VALUE is the bench's reason, or
# the file's missing line (never silently empty)
row() {
  local v=$3
  if [ -n "${why[$2]-}" ]; then v="skipped: ${why[$2]}"
  elif [ -z "$v" ]; then
    local f=$2.txt
    [ "$2" = bench ] && f="gostx-bench-*.txt"
    v="skipped: no figure for it in $f (see $out)"
  fi
  printf '%-66s | %s\n' "$1" "$v" | tee -a "$col"
}
echo | tee -a "$col"
printf '%-66s | %s\n' "row" "value" | tee -a "$col"

# peers.txt, thread CPU table (fixed columns: the label in 25, gostx in 9,
# then per peer its MB/s in 13 and the ratio in 6): "gostx peer x" of LABEL
peer_fig() { # LABEL PEER
  awk -v want="$1" -v peer="$2" '
    function trim(s) { gsub(/^ +| +$/, "", s); return s }
    /^thread CPU time/ {t = 1; next}
    t && /^work / { for (k = 0; (n = trim(substr($0, 37 + 21 * k, 13))) != ""; k++) col[n] = k; next }
    t && trim(substr($0, 1, 25)) == want {
      g = trim(substr($0, 27, 9))
      if (!(peer in col)) { print g; exit }
      k = col[peer]
      print g, trim(substr($0, 37 + 21 * k, 13)), trim(substr($0, 51 + 21 * k, 6)); exit }' "$out/peers.txt"
}
slashed() { local IFS=/ s; s="$*"; echo "${s//\// / }"; } # a / b / c
# peer_row TITLE PEER LABEL...: "g1 / g2 MB/s; PEER p1 / p2: x1x / x2x"
peer_row() {
  local title=$1 peer=$2 l g=() p=() x=() f v=
  shift 2
  if [ -z "${why[peers]-}" ]; then
    for l in "$@"; do
      read -r -a f <<<"$(peer_fig "$l" "$peer")"
      [ ${#f[@]} -ge 1 ] || { v="skipped: no row \"$l\" in peers.txt"; break; }
      [ ${#f[@]} -ge 2 ] || { v="skipped: no $peer column in peers.txt (its driver did not build: see the note there)"; break; }
      case ${f[1]} in -) v="skipped: $peer lacks $l"; break ;; "?") v="skipped: $peer failed on $l (peers.txt)"; break ;; esac
      g+=("${f[0]}") p+=("${f[1]}") x+=("${f[2]}x")
    done
    if [ -z "$v" ]; then
      v="$(slashed "${g[@]}") MB/s; $peer $(slashed "${p[@]}"): $(slashed "${x[@]}")"
      case $v in *!*) v+=" (! = the peer's output differs: not the same work)" ;; esac
    fi
  fi
  row "$title" peers "$v"
}
v=
if [ -z "${why[peers]-}" ]; then
  e=$(peer_fig kuznyechik-ecb "" | cut -d' ' -f1) c=$(peer_fig kuznyechik-ctr "" | cut -d' ' -f1)
  m=$(peer_fig kuznyechik-mgm-enc "" | cut -d' ' -f1)
  [ -n "$e" ] && [ -n "$c" ] && [ -n "$m" ] && v=$(awk -v e="$e" -v c="$c" -v m="$m" \
    'BEGIN {printf "%s / %s / %s MB/s; CTR/ECB %.2fx, MGM/ECB %.2fx", e, c, m, c / e, m / e}')
fi
row "Kuznyechik ECB / CTR / MGM-enc (peers.sh, thread CPU)" peers "$v"
peer_row "Kuznyechik ECB / CTR vs gost-engine" gost-engine kuznyechik-ecb kuznyechik-ctr
peer_row "Kuznyechik CBC-enc / OMAC vs gost-engine" gost-engine kuznyechik-cbc-enc kuznyechik-omac
peer_row "Magma CBC-enc / OMAC vs libgcrypt" libgcrypt magma-cbc-enc magma-omac
peer_row "GOST 28147-89 CFB meshing / test S-box vs libgcrypt" libgcrypt "gost89-cfb mesh (CP-A)" "gost89-cfb (test S-box)"

v=
if [ -z "${why[ossl]-}" ]; then
  v=$(awk '$1 == "kuznyechik-cbc" {k = $2 " " $3 " " $4} $1 == "magma-cbc" {m = $2 " " $3 " " $4}
    END {if (k != "" && m != "") {split(k, a, " "); split(m, b, " ")
      printf "%s / %s MB/s; gostprov %s / %s: %sx / %sx", a[1], b[1], a[2], b[2], a[3], b[3]}}' "$out/ossl.txt")
fi
row "provider 16-byte kuznyechik-cbc / magma-cbc vs gostprov" ossl "$v"

levels=$(awk '$1 == "levels:" {$1 = ""; print}' "$out/info.txt")
for l in $levels; do
  v=
  if [ -n "${why[bench-$l]-}" ]; then v="skipped: ${why[bench-$l]}"
  elif [ ! -f "$out/gostx-bench-$l.txt" ]; then v="skipped: no gostx-bench-$l.txt in $out"
  elif [ -n "${why[bench]-}" ]; then :
  else
    v=$(awk '$1 == "kuznyechik" && $2 == "ecb-enc" && !e {e = $4; i = $3}
      $1 == "kuznyechik" && $2 == "ctr" && !c {c = $4}
      $1 == "kuznyechik" && $2 == "mgm-enc" && !m {m = $4}
      END {if (e && c && m) printf "%s / %s / %s MB/s (impl %s); CTR/ECB %.2fx, MGM/ECB %.2fx", e, c, m, i, c / e, m / e}' \
      "$out/gostx-bench-$l.txt")
  fi
  row "gostx bench $l: Kuznyechik ECB / CTR / MGM-enc, 1 MiB calls" bench "$v"
done
[ -n "$levels" ] || row "gostx bench per level" bench ""

# tunnel.txt: "setup (44) test (11) Gbit/s kpps cpu s/GB sys s/GB"
tun_row() { # TITLE TRANSFORM
  local v=
  if [ -z "${why[tunnel]-}" ]; then
    v=$(awk -v tr="$2" '
      function trim(s) { gsub(/^ +| +$/, "", s); return s }
      /^wireguard-go.*(today|both).*skipped/ && wgskip == "" {wgskip = $0}
      !(i = index($0, " tcp x1 ")) {next}
      {s = trim(substr($0, 1, i)); split(substr($0, i + 8), f, " ")}
      s == "gostx " tr " t1" {g = f[1]; c = f[3]}
      s ~ /^wireguard-go .*today/ {wg = s; wgg = f[1]; wgc = f[3]}
      END {
        if (g == "") exit
        printf "%s ; %s", g, c
        if (wg != "" && wgg > 0 && c > 0) printf "; %s %s ; %s: %.2fx ; %.2fx", wg, wgg, wgc, g / wgg, wgc / c
        else printf "; no wireguard-go row: %s", (wgskip != "" ? wgskip : "see tunnel.txt") }' "$out/tunnel.txt")
  fi
  row "$1" tunnel "$v"
}
tun_row "tunnel TCP x1, one worker, Kuznyechik-MGM: Gbit/s ; CPU s/GB" kuznyechik-mgm-ktree
tun_row "tunnel TCP x1, one worker, Magma-MGM: Gbit/s ; CPU s/GB" magma-mgm-ktree

# tls.txt: the rows of its two TLS 1.3 bulk tables, "SUITE wall seal open enc / dec x / x"
tls_row() { # TITLE SECTION-START
  local v=
  if [ -z "${why[tls]-}" ]; then
    v=$(awk -v sect="$2" '
      index($0, sect) == 1 {t = 1; next}
      t && /^$/ {t = 0}
      t && ($1 == "KUZNYECHIK_MGM_L" || $1 == "MAGMA_MGM_L") && $6 == "/" {r[$1] = $3; x[$1] = $8}
      t && $6 == "/" {last = $1}
      # the split line under a relay row: "serve per MB: N us = kernel K + ..."
      t && $1 == "serve" && $2 == "per" && $7 == "kernel" {k[last] = $8}
      END {
        if (r["KUZNYECHIK_MGM_L"] == "" || r["MAGMA_MGM_L"] == "") exit
        printf "%s / %s MB/CPU-s: %s / %s raw MGM", r["KUZNYECHIK_MGM_L"], r["MAGMA_MGM_L"], x["KUZNYECHIK_MGM_L"], x["MAGMA_MGM_L"]
        if (k["KUZNYECHIK_MGM_L"] != "") printf "; serve kernel %s / %s us per MB", k["KUZNYECHIK_MGM_L"], k["MAGMA_MGM_L"] }' "$out/tls.txt")
  fi
  row "$1" tls "$v"
}
tls_row "TLS 1.3 bulk, library to library, K / M MGM_L, seal" "Bulk through one connection"
tls_row "TLS relay through gostx tls serve, K / M MGM_L, seal" "Bulk through the relay"

v=
if [ -z "${why[tls_mem]-}" ]; then
  v=$(awk '$1 == "method:" {n = $2}
    $1 == "gostx" && $2 == "tls" && $3 == "serve," && $4 == "ours:" {i = $(NF - 1); a = $NF}
    END {if (a != "") printf "%.1f KiB (%s B) after traffic, %.1f KiB idle after the handshake; %s connections", a / 1024, a, i / 1024, n}' \
    "$out/tls_mem.txt")
fi
row "gostx tls serve memory per used idle connection (tls_mem.sh)" tls_mem "$v"

# disk.txt: "| profile | config | IOPS | ... | vs luks IOPS | vs plain IOPS |"
v='' w=''
if [ -z "${why[disk]-}" ]; then
  v=$(awk -F' *[|] *' '$3 == "gostx" {g[$2] = $4; x[$2] = $8} $3 == "luks" {l[$2] = $4}
    END {if (g["randread 4k"] != "" && g["read 4k"] != "")
      printf "%s / %s IOPS; luks %s / %s: %s / %s", g["randread 4k"], g["read 4k"], l["randread 4k"], l["read 4k"], x["randread 4k"], x["read 4k"]}' "$out/disk.txt")
  w=$(awk -F' *[|] *' '$3 == "gostx" && $2 != "randread 4k" && $2 != "read 4k" {printf "%s%s %s", (n++ ? ", " : ""), $2, $8}' "$out/disk.txt")
fi
row "encrypted disk, fio via nbdkit, randread / read 4k vs AES-XTS luks" disk "$v"
row "encrypted disk, the other profiles vs AES-XTS luks" disk "$w"
exit 0
