#!/usr/bin/env bash
# The README's two commands (the indented lines with `make demo` and
# `.ci/run`) as a newcomer runs them on a fresh Debian machine: as root where
# there is no sudo, and as a user with sudo; packages missing or all there.
# They run for real against stand-ins on PATH (tests do not install
# packages): id (the uid), dpkg-query (what is installed), sudo, apt-get and
# make log what they were asked and succeed; scripts/ci_cuda.sh,
# scripts/check_install.sh, scripts/check_debs.sh and scripts/ci_python.sh are logged
# instead of run. Checked: apt-get runs directly as root and through sudo
# otherwise, only for missing packages, before make; without root and sudo
# the command stops with a message.
# Env: none needed.
. "$(dirname "$0")/cli_common.sh" setup no-gostx
root=$(cd "$here/.." && pwd)
real_bash=$(command -v bash)

demo_cmd=$(grep -E '^    .*make demo$' "$root/README.md" | head -1 | sed 's/^    //')
ci_cmd=$(grep -E '^    .*\.ci/run$' "$root/README.md" | head -1 | sed 's/^    //')
if [ -z "$demo_cmd" ] || [ -z "$ci_cmd" ]; then
  bad "README: the two commands not found"
  finish
fi

# ---- stand-ins ----
S=$T/bin
mkdir "$S"
for t in env dirname cat grep; do ln -s "$(command -v $t)" "$S/$t"; done
stub() { # stub NAME BODY
  printf '#!%s\n%s\n' "$real_bash" "$2" >"$S/$1"
  chmod +x "$S/$1"
}
stub bash 'case "${1:-}" in scripts/ci_cuda.sh|scripts/check_install.sh|scripts/check_debs.sh|scripts/ci_python.sh) echo "bash $*" >>"$STUB_LOG"; exit 0 ;; esac
exec '"$real_bash"' "$@"'
stub id '[ "${1:-}" = -u ] && { echo "$STUB_UID"; exit 0; }; echo "uid=$STUB_UID"'
stub dpkg-query 'p=${!#}
case " $STUB_MISSING " in " ALL "|*" $p "*) exit 1 ;; *) printf "install ok installed" ;; esac'
stub apt-get 'echo "apt-get $*" >>"$STUB_LOG"'
stub make 'echo "make $*" >>"$STUB_LOG"'
sudo_stub='echo "sudo $*" >>"$STUB_LOG"; exec "$@"'

# scenario NAME UID SUDO(yes/no) MISSING COMMAND: runs the command from the
# repository root with only the stand-ins on PATH, the packages MISSING (ALL:
# every one) not installed; log in $T/log, exit status in $rc.
scenario() {
  local name=$1 uid=$2 sudo=$3 missing=$4 cmd=$5
  rm -f "$S/sudo" "$T/log"
  : >"$T/log"
  [ "$sudo" = yes ] && stub sudo "$sudo_stub"
  (cd "$root" && PATH=$S STUB_LOG=$T/log STUB_UID=$uid STUB_MISSING=$missing \
    "$real_bash" -c "$cmd") >"$T/out" 2>&1
  rc=$?
  what="$name: '$cmd'"
}
has() { grep -qxE "$1" "$T/log"; }
not_has_sudo() { ! grep -q '^sudo' "$T/log"; }
not_has_apt() { ! grep -q '^apt-get' "$T/log"; }
before() { # before A B: the first line matching A comes before the first matching B
  local a b
  a=$(grep -nE "^$1\$" "$T/log" | head -1 | cut -d: -f1)
  b=$(grep -nE "^$2\$" "$T/log" | head -1 | cut -d: -f1)
  [ -n "$a" ] && [ -n "$b" ] && [ "$a" -lt "$b" ]
}
expect() { # expect DESCRIPTION TEST...
  local d=$1; shift
  if "$@"; then ok; else bad "$what: $d (rc $rc; log: $(tr '\n' '|' <"$T/log"); output: $(head -c 300 "$T/out"))"; fi
}

for cmdname in demo ci; do
  if [ $cmdname = demo ]; then cmd=$demo_cmd; final='make demo'; else cmd=$ci_cmd; final='make check'; fi
  scenario "root, no sudo, nothing installed" 0 no ALL "$cmd"
  expect "succeeds" [ $rc = 0 ]
  expect "runs apt-get install itself" has 'apt-get .*install .*cmake.*'
  expect "never sudo" not_has_sudo
  expect "installs before $final" before 'apt-get .*install .*' "$final"
  scenario "user with sudo, nothing installed" 1000 yes ALL "$cmd"
  expect "succeeds" [ $rc = 0 ]
  expect "installs through sudo" has 'sudo (env .*)?apt-get .*install .*cmake.*'
  expect "then $final" before 'apt-get .*install .*' "$final"
  scenario "user without sudo, nothing installed" 1000 no ALL "$cmd"
  expect "fails" [ $rc != 0 ]
  expect "says why" grep -q "not root and no sudo" "$T/out"
  expect "runs nothing" [ ! -s "$T/log" ]
  scenario "user without sudo, everything installed" 1000 no "" "$cmd"
  expect "succeeds" [ $rc = 0 ]
  expect "installs nothing" not_has_apt
  expect "runs $final" has "$final"
  scenario "root, only cmake missing" 0 no cmake "$cmd"
  expect "installs only cmake" has 'apt-get .*install( -[a-z-]+)* cmake'
done

finish
