# Sourced by the BouncyCastle interop tests after cli_common.sh: skips
# (77) without java (a JDK: java runs a source file) or one of Debian's
# jars named (bcprov, bcutil: libbcprov-java; bcpkix: libbcpkix-java);
# sets $bc_cp, their class path.
#   usage: bc_jars bcprov bcutil bcpkix
bc_jars() {
  command -v java >/dev/null || { echo "java not found: skipping"; exit 77; }
  local j bc=/usr/share/java
  bc_cp=
  for j in "$@"; do
    [ -f $bc/$j.jar ] || { echo "$bc/$j.jar not installed (libbcprov-java, libbcpkix-java): skipping"; exit 77; }
    bc_cp=${bc_cp:+$bc_cp:}$bc/$j.jar
  done
}
