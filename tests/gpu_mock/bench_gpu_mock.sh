#!/usr/bin/env bash
# `gostx bench --gpu` through the mock CUDA driver (GOSTX_CUDA_DRIVER points at
# it; kernels run on the host): the command works end to end and prints every
# row with the copy bandwidth, the kernel/e2e figures and the CPU column, in
# text and JSON. Timings through the mock mean nothing; only the shape is
# checked. Usage: bench_gpu_mock.sh GOSTX_BINARY
set -u
gostx=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
err() { echo "FAIL: $*"; fail=1; }
common=(--gpu --gpu-size 256K --size 64K --repeat 1 --time 1)
"$gostx" bench "${common[@]}" > "$tmp/text" 2> "$tmp/err" || err "text run: $(cat "$tmp/err")"
grep -q '^GPU: .*mock' "$tmp/text" || err "no GPU line naming the mock"
grep -Eq '^pinned copies .*H2D [0-9.]+ GB/s, D2H [0-9.]+ GB/s, both at once [0-9.]+ GB/s' \
  "$tmp/text" || err "no copy bandwidth line"
for r in "kuznyechik ctr" "kuznyechik ecb-enc" "kuznyechik ecb-dec" "kuznyechik xts-enc" \
         "kuznyechik xts-dec" "magma ctr" "magma ecb-enc" "magma ecb-dec" "gost89 cnt"; do
  set -- $r
  awk -v a="$1" -v m="$2" '$1 == a && $2 == m && $3 > 0 && $4 > 0 && $6 > 0 && $9 > 0 {ok = 1}
       END {exit !ok}' "$tmp/text" || err "row $r missing or not positive"
done
grep -q '^many streams, each with its own key and IV: [0-9]* streams x 512 B' "$tmp/text" ||
  err "no batch section"
for r in "kuznyechik ctr" "magma ctr" "gost89 cnt"; do
  [ "$(grep -c "^${r%% *} *${r##* } " "$tmp/text")" -ge 2 ] || err "batch row $r missing"
done
grep -q '^GPU + CPU at once' "$tmp/text" || err "no split section"
"$gostx" bench --json "${common[@]}" > "$tmp/json" 2> "$tmp/err" || err "json run: $(cat "$tmp/err")"
python3 - "$tmp/json" <<'PY' || fail=1
import json, sys
doc = json.load(open(sys.argv[1]))
g = doc["gpu"]
bad = []
if not g["mock"]: bad.append("mock flag")
for k in ("h2d_gbps", "d2h_gbps", "both_gbps"):
    if not g[k] > 0: bad.append(k)
if len(g["rows"]) != 9: bad.append(f"{len(g['rows'])} rows")
for r in g["rows"]:
    for k in ("kernel_gbps", "e2e_gbps", "e2e_kernel_gbps", "e2e_registered_gbps", "cpu_all_cores_gbps"):
        if not (isinstance(r.get(k), (int, float)) and r[k] > 0): bad.append(f"{r['algorithm']} {r['mode']}: {k}")
if len(g["batch"]["rows"]) != 3: bad.append("batch rows")
for r in g["batch"]["rows"]:
    for k in ("kernel_gbps", "e2e_gbps", "e2e_registered_gbps"):
        if not (isinstance(r.get(k), (int, float)) and r[k] > 0): bad.append(f"batch {r['algorithm']}: {k}")
for r in g["split"]:
    for k in ("gpu_share", "together_gbps"):
        if not (isinstance(r.get(k), (int, float)) and r[k] > 0): bad.append(f"split {r['algorithm']}: {k}")
for b in bad: print("FAIL: json:", b)
sys.exit(1 if bad else 0)
PY
[ $fail -eq 0 ] && echo "bench --gpu (mock): ok"
exit $fail
