#!/usr/bin/env bash
# CLI test of `gostx bench`: the tool works and its output has the promised
# shape (every row, valid JSON, positive numbers, the implementation named).
# It checks correctness of the tool, not speed. Env: GOSTX (the binary). 77 = skip.
set -u
here=$(cd "$(dirname "$0")" && pwd)
: "${GOSTX:=$here/../build/gostx}"
if [ ! -x "$GOSTX" ]; then
  echo "gostx binary not found at $GOSTX: skipping"
  exit 77
fi
if ! command -v python3 >/dev/null 2>&1; then
  echo "python3 not found: skipping"
  exit 77
fi
fail=0
err() { echo "FAIL: $*"; fail=1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# --help, and usage errors: exit 2 with one line on stderr.
"$GOSTX" bench --help > "$tmp/help" || err "--help exit status"
grep -q -- '--threads' "$tmp/help" || err "--help does not mention --threads"
"$GOSTX" --help | grep -q '^  bench ' || err "gostx --help does not list bench"
for bad in "--bogus" "--size 12Q" "--size 0" "--threads 0" "--threads 1,,2" "--repeat 0" \
           "--filter no-such-row" "--time -1" "--clock sundial" "extra" "--engine fast" \
           "--gpu-size 1" "--device -1" "--batch 0" "--batch 2M"; do
  # shellcheck disable=SC2086
  "$GOSTX" bench $bad > "$tmp/out" 2> "$tmp/err"
  rc=$?
  [ $rc -eq 2 ] || err "bench $bad: exit $rc, want 2"
  [ "$(wc -l < "$tmp/err")" -eq 1 ] || err "bench $bad: stderr is not one line: $(cat "$tmp/err")"
  [ -s "$tmp/out" ] && err "bench $bad: wrote to stdout"
done

# The list of rows: every algorithm and mode the articles tabulate.
"$GOSTX" bench --list > "$tmp/list" || err "--list exit status"
expected="kuznyechik-ecb-enc kuznyechik-ecb-dec kuznyechik-cbc-enc kuznyechik-cbc-dec
kuznyechik-cfb-enc kuznyechik-cfb-dec kuznyechik-ofb kuznyechik-ctr kuznyechik-ctr-acpkm
kuznyechik-omac kuznyechik-mgm-enc kuznyechik-mgm-dec kuznyechik-xts-enc kuznyechik-xts-dec
kuznyechik-xts-enc-512 kuznyechik-xts-dec-512 kuznyechik-xts-batch-enc kuznyechik-xts-batch-dec
kuznyechik-xts-batch-enc-512 kuznyechik-xts-batch-dec-512 kuznyechik-xts-keyed-enc
kuznyechik-xts-keyed-dec kuznyechik-xts-keyed-enc-512 kuznyechik-xts-keyed-dec-512
magma-ecb-enc magma-ecb-dec magma-cbc-enc magma-cbc-dec magma-cfb-enc magma-cfb-dec magma-ofb
magma-ctr magma-ctr-acpkm magma-omac magma-mgm-enc magma-mgm-dec gost89-cnt gost89-cfb-enc
streebog256-hash streebog512-hash hmac-streebog256-mac hmac-streebog512-mac"
for r in $expected; do
  grep -qx "$r" "$tmp/list" || err "--list lacks $r"
done

# Text table, a filtered subset, two thread counts.
"$GOSTX" bench --size 4K --time 1 --repeat 2 --threads 1,2 --filter kuznyechik-ctr,streebog256 \
  > "$tmp/text" 2> "$tmp/err" || err "text run failed: $(cat "$tmp/err")"
grep -q '^CPU: ' "$tmp/text" || err "text: no CPU line"
grep -q '^cycles: ' "$tmp/text" || err "text: no cycles line"
[ "$(grep -c '^threads: ' "$tmp/text")" -eq 2 ] || err "text: want two thread tables"
[ "$(grep -c '^kuznyechik  *ctr ' "$tmp/text")" -eq 2 ] || err "text: kuznyechik ctr rows"
[ "$(grep -c '^kuznyechik  *ctr-acpkm ' "$tmp/text")" -eq 2 ] || err "text: ctr-acpkm rows"
[ "$(grep -c '^streebog256  *hash ' "$tmp/text")" -eq 2 ] || err "text: streebog256 rows"
grep -q '^magma' "$tmp/text" && err "text: filter let magma through"
# 2 threads: ctr goes through the bulk engine's pool, hashes run as streams;
# both have a scaling figure against the 1-thread table.
grep -Eq '^kuznyechik +ctr .* pool +[0-9.]+x \([0-9]+%\)$' "$tmp/text" || err "text: ctr not on the pool"
grep -Eq '^streebog256 +hash .* streams +[0-9.]+x \([0-9]+%\)$' "$tmp/text" || err "text: hash not as streams"
# --engine streams: every row as independent streams.
"$GOSTX" bench --engine streams --size 4K --time 1 --repeat 1 --threads 2 --filter kuznyechik-ctr \
  > "$tmp/streams" 2> "$tmp/err" || err "--engine streams failed: $(cat "$tmp/err")"
grep -Eq '^kuznyechik +ctr .* streams +-$' "$tmp/streams" || err "--engine streams: ctr row"

# --interleave: the same rows, repetitions taken row by row in turn.
"$GOSTX" bench --interleave --size 4K --time 1 --repeat 2 --filter kuznyechik-ecb-enc,kuznyechik-xts \
  > "$tmp/inter" 2> "$tmp/err" || err "--interleave failed: $(cat "$tmp/err")"
grep -q 'rows interleaved' "$tmp/inter" || err "--interleave: header does not say so"
for m in ecb-enc xts-enc xts-enc-512 xts-batch-enc xts-keyed-enc-512; do
  awk -v m="$m" '$1 == "kuznyechik" && $2 == m && $4 > 0 && $5 > 0 {ok = 1} END {exit !ok}' "$tmp/inter" \
    || err "--interleave: no positive $m row"
done

# --gpu: without the CUDA backend, or without a GPU, one line and exit 1.
# (tests/gpu_mock/bench_gpu_mock.sh runs it through the mock driver.)
if [ -z "${GOSTX_CUDA_DRIVER:-}" ]; then
  "$GOSTX" bench --gpu --gpu-size 64K --repeat 1 > "$tmp/out" 2> "$tmp/err"
  rc=$?
  if [ $rc -eq 0 ]; then
    echo "note: --gpu ran (a GPU is present): $(grep -c . "$tmp/out") lines"
  else
    [ $rc -eq 1 ] || err "--gpu without GPU: exit $rc, want 1"
    grep -Eq 'CUDA backend|no GPU' "$tmp/err" || err "--gpu without GPU: $(cat "$tmp/err")"
    [ "$(wc -l < "$tmp/err")" -eq 1 ] || err "--gpu without GPU: stderr not one line"
  fi
fi

# --clock cpu: same shape, says so in the header.
"$GOSTX" bench --clock cpu --size 4K --time 1 --repeat 1 --threads 2 --filter magma-ctr \
  > "$tmp/cpu" 2> "$tmp/err" || err "--clock cpu run failed: $(cat "$tmp/err")"
grep -q '^clock: each thread' "$tmp/cpu" || err "--clock cpu: header does not say so"
awk '$1 == "magma" && $2 == "ctr" && $4 > 0 && $5 > 0 {ok = 1} END {exit !ok}' "$tmp/cpu" \
  || err "--clock cpu: no positive magma ctr row"

# JSON of every row (tiny work per row), checked field by field.
"$GOSTX" bench --json --size 4K --time 1 --repeat 1 --impl portable > "$tmp/json" 2> "$tmp/err" \
  || err "json run failed: $(cat "$tmp/err")"
python3 - "$tmp/json" "$tmp/list" <<'EOF' || fail=1
import json, sys
doc = json.load(open(sys.argv[1]))
names = [l.strip() for l in open(sys.argv[2]) if l.strip()]
bad = []
for k in ("gostx", "cpu", "features", "date", "cycles_source", "rows"):
    if k not in doc: bad.append("header lacks " + k)
if doc.get("gostx_impl_env") != "portable": bad.append("GOSTX_IMPL not recorded")
rows = doc.get("rows", [])
seen = set()
for r in rows:
    name = r["algorithm"] + "-" + r["mode"]
    seen.add(name)
    for k in ("mbps_aligned", "mbps_unaligned"):
        if not (isinstance(r[k], (int, float)) and r[k] > 0): bad.append(f"{name}: {k} = {r[k]}")
    if r["cycles_source"] != "none" and not (isinstance(r["cycles_per_byte"], (int, float)) and r["cycles_per_byte"] > 0):
        bad.append(f"{name}: cycles_per_byte = {r['cycles_per_byte']}")
    if r["cycles_source"] not in ("perf", "tsc", "none"): bad.append(f"{name}: cycles_source")
    if r["bytes"] != 4096 or r["threads"] != 1: bad.append(f"{name}: bytes/threads")
    if r.get("clock") != "wall": bad.append(f"{name}: clock {r.get('clock')}")
    if r["impl"] != "portable": bad.append(f"{name}: impl {r['impl']} under --impl portable")
    if r.get("engine") != "single" or r.get("scaling") != 1.0: bad.append(f"{name}: engine/scaling")
for n in names:
    if n not in seen: bad.append("json lacks row " + n)
if len(rows) != len(names): bad.append(f"{len(rows)} rows, want {len(names)}")
for b in bad: print("FAIL: json:", b)
sys.exit(1 if bad else 0)
EOF

# JSON with two thread counts: scaling and efficiency of the 2-thread rows.
"$GOSTX" bench --json --size 4K --time 1 --repeat 1 --threads 1,2 --filter magma-ctr,magma-omac \
  > "$tmp/json2" 2> "$tmp/err" || err "json --threads 1,2 failed: $(cat "$tmp/err")"
python3 - "$tmp/json2" <<'EOF' || fail=1
import json, sys
doc = json.load(open(sys.argv[1]))
bad = []
if doc.get("engine") != "pool": bad.append("header engine")
two = {r["mode"]: r for r in doc["rows"] if r["threads"] == 2}
want = {"ctr": "pool", "ctr-acpkm": "pool", "omac": "streams"}
for mode, eng in want.items():
    r = two.get(mode)
    if not r: bad.append(f"no 2-thread {mode} row"); continue
    if r["engine"] != eng: bad.append(f"{mode}: engine {r['engine']}, want {eng}")
    if not (r["scaling"] > 0 and abs(r["efficiency"] - r["scaling"] / 2) < 1e-3):
        bad.append(f"{mode}: scaling {r['scaling']} efficiency {r['efficiency']}")
for b in bad: print("FAIL: json2:", b)
sys.exit(1 if bad else 0)
EOF

# --batch: the stream-batch table, text and JSON.
"$GOSTX" bench --batch 64 --time 1 --repeat 1 --filter magma-cbc > "$tmp/batch" 2> "$tmp/err" \
  || err "--batch run failed: $(cat "$tmp/err")"
grep -q '^stream batches: 1024 streams of 64 bytes' "$tmp/batch" || err "--batch: no header"
awk '$1 == "magma" && $2 == "cbc-enc" && $3 > 0 && $4 > 0 && $5 > 0 && $7 > 0 {ok = 1}
     END {exit !ok}' "$tmp/batch" || err "--batch: no magma cbc-enc row with positive MB/s"
grep -q '^kuznyechik' "$tmp/batch" && err "--batch: filter let kuznyechik through"
"$GOSTX" bench --batch 40 --json --time 1 --repeat 1 --filter gost89 > "$tmp/bjson" 2> "$tmp/err" \
  || err "--batch --json failed: $(cat "$tmp/err")"
python3 - "$tmp/bjson" <<'EOF' || fail=1
import json, sys
b = json.load(open(sys.argv[1]))["batch"]
bad = []
if b["stream_bytes"] != 40 or b["streams_per_call"] != 1024: bad.append("header")
modes = sorted(r["mode"] for r in b["rows"])
if modes != ["cfb-enc", "cnt", "imit"]: bad.append("modes %s" % modes)
for r in b["rows"]:
    for f in ("single_mbps", "onekey_mbps", "keyed_mbps", "keyed_all_mbps"):
        if not r[f] > 0: bad.append("%s %s = %s" % (r["mode"], f, r[f]))
for x in bad: print("FAIL: batch json:", x)
sys.exit(1 if bad else 0)
EOF

# --gost3410: the GOST R 34.10-2012 table (ops/s per curve and operation).
"$GOSTX" bench --gost3410 --list > "$tmp/glist" || err "--gost3410 --list exit status"
[ "$(wc -l < "$tmp/glist")" -eq 28 ] || err "--gost3410 --list: $(wc -l < "$tmp/glist") rows, want 28"
for r in gost3410-256a-sign gost3410-256b-verify gost3410-512c-vko gost3410-512a-keygen; do
  grep -qx "$r" "$tmp/glist" || err "--gost3410 --list lacks $r"
done
"$GOSTX" bench --gost3410 --time 1 --repeat 1 --filter 256b > "$tmp/g" 2> "$tmp/err" \
  || err "--gost3410 run failed: $(cat "$tmp/err")"
[ "$(awk '$1 ~ /^gost3410-256b-/ && $2 > 0 && $3 > 0' "$tmp/g" | wc -l)" -eq 4 ] \
  || err "--gost3410: want 4 gost3410-256b rows with positive ops/s"
grep -q '^gost3410-256a' "$tmp/g" && err "--gost3410: filter let 256a through"
"$GOSTX" bench --gost3410 --json --time 1 --repeat 1 --filter 512c-sign > "$tmp/gjson" 2> "$tmp/err" \
  || err "--gost3410 --json failed: $(cat "$tmp/err")"
python3 - "$tmp/gjson" <<'EOF' || fail=1
import json, sys
rows = json.load(open(sys.argv[1]))["gost3410"]
ok = len(rows) == 1 and rows[0]["row"] == "gost3410-512c-sign" and rows[0]["ops_per_s"] > 0
ok = ok and rows[0]["curve"] == "id-tc26-gost-3410-2012-512-paramSetC"
if not ok: print("FAIL: gost3410 json:", rows)
sys.exit(0 if ok else 1)
EOF
rc=0
"$GOSTX" bench --gost3410 --batch 64 > "$tmp/out" 2> "$tmp/err" || rc=$?
[ $rc -eq 2 ] && [ ! -s "$tmp/out" ] || err "--gost3410 --batch: exit $rc, want a usage error (2)"

[ $fail -eq 0 ] && echo "bench CLI: ok"
exit $fail
