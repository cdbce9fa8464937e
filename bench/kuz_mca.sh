#!/usr/bin/env bash
# Intel's port model on the AVX-512 Kuznyechik loops (docs/KUZNYECHIK.md,
# "byte-sliced"): compiles a kernel file as the Release build does, cuts each
# loop (label .. backward branch) with at least MIN GFNI instructions, and
# runs llvm-mca on it. Prints per loop: instructions, GFNI ops, llvm-mca's
# cycles per iteration (mca) and the pressure it puts on ports 0, 1, 5; then
# a count of our own (bound), since llvm-mca 14's Ice Lake model lets zmm
# vpternlogq, moves and broadcast loads use port 1, which the CPUs do not
# while 512-bit uops are in flight, and puts zmm GFNI on p0 or p5: the vector
# ALU uops (not loads or stores; register copies counted) over the two
# 512-bit ports, or p0's GFNI + vpmovb2m, or p5's byte shuffles, whichever
# is largest. llvm-mca 14 has no Zen 4 model (znver3 has no AVX-512): AMD's
# side is measured (gostx bench), not modelled; MCA=llvm-mca-19 has Zen 4's
# and Sapphire Rapids' models. Loops whose rounds gcc kept rolled (ECB
# encryption, CTR) come out as one round: bench/kuz_trace_mca.sh models
# those as they run.
#   usage: bench/kuz_mca.sh [FILE.c [MIN [CPU]]]
#   (default lib/kuznyechik/kuz_avx512_sliced.c, 64, icelake-server)
set -euo pipefail
cd "$(dirname "$0")/.."
src=${1:-lib/kuznyechik/kuz_avx512_sliced.c}
min=${2:-64}
cpu=${3:-icelake-server}
mca=${MCA:-$(command -v llvm-mca-14 || command -v llvm-mca)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
${CC:-cc} -O3 -DNDEBUG -fPIC -std=c11 -D_POSIX_C_SOURCE=200809L -Iinclude -Ilib -S "$src" -o "$tmp/k.s"
python3 - "$tmp" "$min" <<'PY'
import re, sys
tmp, lo = sys.argv[1], int(sys.argv[2])
lines = open(tmp + "/k.s").read().split("\n")
lab = {m.group(1): i for i, l in enumerate(lines) if (m := re.match(r"^(\.L\d+):", l))}
n = 0
for i, l in enumerate(lines):
    m = re.match(r"^\s+j\w+\s+(\.L\d+)$", l)
    if not (m and m.group(1) in lab and lab[m.group(1)] < i): continue
    body = [b for b in lines[lab[m.group(1)]:i + 1] if re.match(r"^\s+[a-z]", b)]
    g = sum("gf2p8" in b for b in body)
    if g < lo: continue
    open(f"{tmp}/loop{n}.s", "w").write("\n".join(body) + "\n")
    alu = p0 = p5 = 0
    for b in body:
        op, _, args = b.strip().partition("\t")
        if not op.startswith("v"): continue
        dst = args.split(",")[-1]
        if "(" in dst: continue  # a store
        if (op.startswith("vmov") or op.startswith("vpbroadcast")) and "(" in args: continue  # a load
        alu += 1
        if "gf2p8" in op or op.startswith("vpmovb2m"): p0 += 1
        if op.startswith(("vpshufb", "vpermi2", "vpermt2", "vpermb", "vpermd", "vpunpck", "vshuf")): p5 += 1
    open(f"{tmp}/loop{n}.txt", "w").write(f"{m.group(1)} {len(body)} {g} {max(alu / 2, p0, p5)}\n")
    n += 1
PY
printf '%-8s %6s %5s %9s %8s %8s %8s %9s\n' loop insns gfni mca p0 p1 p5 bound
for f in "$tmp"/loop*.s; do
  [ -e "$f" ] || continue
  read -r name ni ng bound <"${f%.s}.txt"
  out=$("$mca" -mcpu="$cpu" -iterations=50 "$f" 2>/dev/null)
  cyc=$(awk '/^Total Cycles:/{print $3 / 50}' <<<"$out")
  # ports 0, 1, 5 by name (Ice Lake lists dividers first, Sapphire Rapids
  # does not; models without such names, Zen's, print "-")
  read -r p0 p1 p5 < <(awk '
    /^\[[0-9]+\] +- / { n = $3; i = substr($1, 2) + 1
      if (n ~ /Port0?0$/) c0 = i; if (n ~ /Port0?1$/) c1 = i; if (n ~ /Port0?5$/) c5 = i }
    /Resource pressure per iteration/ { getline; getline
      print (c0 ? $c0 : "-"), (c1 ? $c1 : "-"), (c5 ? $c5 : "-"); exit }' <<<"$out")
  printf '%-8s %6s %5s %9.1f %8s %8s %8s %9.1f\n' "$name" "$ni" "$ng" "$cyc" "$p0" "$p1" "$p5" "$bound"
done
