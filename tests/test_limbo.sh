#!/bin/bash
# x509-limbo's path validation cases, re-signed with GOST keys
# (tests/limbo/README.md), through `gostx x509 verify`: tests/limbo/run.py
# fails on a disagreement with the expected result that
# tests/limbo/known-failures.txt does not list, and on a listed one that now
# agrees. Then the gate itself: a case whose expected result is flipped, and
# a passing case listed as known, must each fail run.py.
. "$(dirname "$0")/cli_common.sh" limbo
command -v python3 >/dev/null || { echo "python3 missing: skipping"; exit 77; }
run=$here/limbo/run.py
python3 "$run" --gostx "$G" -v >"$T/all.txt" || bad "limbo: see the lines above the summary"
grep -v '^pass ' "$T/all.txt"

core=$here/limbo/limbo-gost.json.gz
passing=$(sed -n 's/^pass  *\([^ ]*\): .*/\1/p' "$T/all.txt" | grep -v -e '^bettertls::' -e '^crl::' | head -1)
re="^$(printf '%s' "$passing" | sed 's/[.]/[.]/g')\$"
python3 - "$core" "$T/flipped.json.gz" "$passing" <<'EOF'
import gzip, json, sys
d = json.loads(gzip.open(sys.argv[1]).read())
for c in d["cases"]:
    if c["id"] == sys.argv[3]:
        c["expected_result"] = {"SUCCESS": "FAILURE", "FAILURE": "SUCCESS"}[c["expected_result"]]
gzip.open(sys.argv[2], "wb").write(json.dumps(d).encode())
EOF
python3 "$run" --gostx "$G" --data "$T/flipped.json.gz" -k "$re" >"$T/flip.txt"
check "a flipped expectation ($passing) fails the run" test $? = 1
check "and is named as new" grep -q "^FAIL .*$passing" "$T/flip.txt"
{ cat "$here/limbo/known-failures.txt"; echo "$passing planted"; } >"$T/known.txt"
python3 "$run" --gostx "$G" --data "$core" --known "$T/known.txt" -k "$re" >"$T/stale.txt"
check "a passing case listed as known fails the run" test $? = 1
check "and is named as agreeing now" grep -q "^STALE .*$passing" "$T/stale.txt"
finish
