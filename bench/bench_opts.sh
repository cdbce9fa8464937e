# The option loop of the bench scripts, sourced by them (bash):
#   bench_opts "NAME..." "$@"
# sets the variable NAME from each `--NAME VALUE`, prints the script's header
# comment (line 2 up to `set -e`) for -h/--help, and hands any other word to
# the script's own bench_opt function (its flags, its operands), which
# returns 1 for a word it does not know: that word ends the script (exit 2).
# (Its locals are bench_-named: a NAME of the script's own is not shadowed.)
bench_opts() {
  local bench_names=" $1 " bench_me
  bench_me=$(basename "$0")
  shift
  while [ $# -gt 0 ]; do
    case "$1" in
      -h|--help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    esac
    if [[ $1 == --* && $bench_names == *" ${1#--} "* ]]; then
      [ $# -ge 2 ] || { echo "$bench_me: $1 takes a value" >&2; exit 2; }
      printf -v "${1#--}" '%s' "$2"
      shift
    elif ! { declare -F bench_opt >/dev/null && bench_opt "$1"; }; then
      echo "$bench_me: unknown option $1 (try --help)" >&2
      exit 2
    fi
    shift
  done
}
