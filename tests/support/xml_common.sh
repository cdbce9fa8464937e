# Sourced by the `gostx xml` tests after cli_common.sh: skips (77) without
# `gostx xml`, works in $T, takes pki and expect from xml_pki.sh, and adds
# sign args... (gostx xml sign, which must succeed) and tamper.
"$G" xml --help >/dev/null 2>&1 || { echo "gostx built without libxml2 (no gostx xml): skipping"; exit 77; }
cd "$T" || exit 1
. "$(dirname "${BASH_SOURCE[0]}")/xml_pki.sh"
sign() { "$G" xml sign "$@" 2>err || bad "sign $*: $(cat err)"; }
# tamper NAME WANT_RC GREP SED FILE CA: FILE edited by the sed expression,
# then expect NAME WANT_RC GREP of it (t.xml) against CA
tamper() {
  sed "$4" "$5" >t.xml
  expect "$1" "$2" "$3" -in t.xml -CAfile "$6"
}
