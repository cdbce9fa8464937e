#!/usr/bin/env bash
# docs/DESIGN.md against the tree (scripts/design_doc.py): every lib/ and cli/
# folder, public header and source file named, every path it names there.
# Then the check must catch each kind of drift planted in a copy.
. "$(dirname "$0")/cli_common.sh" design_doc no-gostx
command -v python3 >/dev/null || { echo "python3 not found: skipping"; exit 77; }
root=$(cd "$(dirname "$0")/.." && pwd)
script="$root/scripts/design_doc.py"
check "DESIGN.md names the tree and nothing else" python3 "$script" --root "$root"
copy() {
  rm -rf "$T/tree" && mkdir -p "$T/tree/docs"
  cp -r "$root/lib" "$root/cli" "$root/include" "$T/tree/"
  for d in tests bench integrations python scripts; do ln -s "$root/$d" "$T/tree/$d"; done
  cp "$root/docs/DESIGN.md" "$T/tree/docs/"
}
planted() { # planted WHAT: the check must fail on the copy
  if python3 "$script" --root "$T/tree" --quiet >"$T/out" 2>&1; then
    bad "planted $1 not found"
  else
    ok
  fi
}
copy; : >"$T/tree/lib/x509/unnamed_file.c"; planted "an unnamed lib/ file"
copy; mkdir "$T/tree/lib/newfolder"; planted "an unnamed lib/ folder"
copy; : >"$T/tree/include/gostx/newarea.h"; planted "an unnamed public header"
copy; : >"$T/tree/cli/tunnel/unnamed.c"; planted "an unnamed cli/ file"
copy; echo 'lib/gone/ is mentioned' >>"$T/tree/docs/DESIGN.md"; planted "a folder that does not exist"
copy; rm "$T/tree/lib/x509/policy.c"; planted "a named file removed"
finish
