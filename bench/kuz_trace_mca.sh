#!/usr/bin/env bash
# Intel's and AMD's port models on the avx512 Kuznyechik kernels as they run:
# gdb single-steps one call of each (ECB encryption and decryption, CTR,
# MGM's H stream and its multiply-accumulate, through the public API at
# GOSTX_IMPL=avx512, on a CPU with AVX-512 VBMI + GFNI: Zen 4 here), the
# steady state of its loop (one 64-block group with its round loop run as
# it ran, calls included; bench/mca/trace_period.py) goes to llvm-mca for
# each CPU. bench/kuz_mca.sh cuts loops from the assembly instead, which
# gives one round where the round loop is rolled (ECB encryption and CTR
# are), so its largest loop is XTS decryption's, not ECB's.
# Prints cycles per 64 blocks (1 KiB) and the ratios the targets are set
# in: CTR / ECB as ecb / ctr, MGM / ECB as ecb / (ctr + H + 8 multiplies of
# 8 blocks), the per-1024-block call overhead left out.
#   usage: bench/kuz_trace_mca.sh [CPU...]  (default: sapphirerapids
#   emeraldrapids znver4; MCA=llvm-mca-19, BUILD=build with libgostx.a)
set -euo pipefail
cd "$(dirname "$0")/.."
mca=${MCA:-$(command -v llvm-mca-19 || command -v llvm-mca)}
build=${BUILD:-build}
cpus=("$@")
[ ${#cpus[@]} -gt 0 ] || cpus=(sapphirerapids emeraldrapids znver4)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
${CC:-cc} -O2 -Iinclude bench/mca/trace_drv.c "$build/libgostx.a" -lpthread -o "$tmp/drv"
export GOSTX_IMPL=avx512
# name, driver mode, where to stop, steps
targets=(
  "ecb-enc ecb gostx__kuz_avx512_sliced 30000"
  "ecb-dec ecbd gostx__kuz_avx512_sliced 30000"
  "ctr ctr gostx__kuz_avx512_sliced_ctr 30000"
  "mgm-h mgm gostx__kuz_avx512_sliced_ctr 30000"
  "mgm-mul mgm *(*(long*)((char*)&gostx_mgm_avx512+8)) 3000"
)
for t in "${targets[@]}"; do
  read -r name mode fn steps <<<"$t"
  FN=$fn OUTF="$tmp/$name.pcs" MAXSTEPS=$steps gdb -q -batch -x bench/mca/trace_gdb.py \
    --args "$tmp/drv" "$mode" >"$tmp/$name.gdb" 2>&1 || { cat "$tmp/$name.gdb" >&2; exit 1; }
  python3 bench/mca/trace_period.py "$tmp/$name.pcs" "$tmp/drv" "$tmp/$name.s" >"$tmp/$name.info"
done
printf '%-16s' cpu; for t in "${targets[@]}"; do printf '%15s' "${t%% *}"; done
printf '%9s %9s\n' CTR/ECB MGM/ECB
printf '%-16s' "insns/gfni/clmul"
for t in "${targets[@]}"; do read -r ni ng nc <"$tmp/${t%% *}.info"; printf '%15s' "$ni/$ng/$nc"; done
echo
for cpu in "${cpus[@]}"; do
  declare -A cyc=()
  for t in "${targets[@]}"; do
    name=${t%% *}
    cyc[$name]=$("$mca" -mcpu="$cpu" -iterations=20 "$tmp/$name.s" 2>/dev/null |
      awk '/^Total Cycles:/{print $3 / 20}')
  done
  # the multiply loop takes 8 blocks an iteration: 8 of them per group
  printf '%-16s' "$cpu"
  for t in "${targets[@]}"; do
    name=${t%% *}
    [ "$name" = mgm-mul ] && printf '%15.1f' "$(echo "${cyc[$name]} * 8" | bc -l)" ||
      printf '%15.1f' "${cyc[$name]}"
  done
  printf '%9.3f %9.3f\n' "$(echo "${cyc[ecb-enc]} / ${cyc[ctr]}" | bc -l)" \
    "$(echo "${cyc[ecb-enc]} / (${cyc[ctr]} + ${cyc[mgm-h]} + 8 * ${cyc[mgm-mul]})" | bc -l)"
  unset cyc
done
