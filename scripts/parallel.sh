# Sourced by the gate scripts (check_ct.sh, check_fuzz.sh, check_pedantic.sh):
# runs independent commands a few at a time, because most of what those gates
# run (valgrind, qemu, a fuzzer, one compiler call) keeps one core busy and
# CI has two.
#   pj_start [N]   begin a batch of at most N at once (default: the cores)
#   pj CMD...      run CMD in the background once a slot is free; its stdout
#                  and stderr go to a file of its own, never interleaved
#   pj_end         wait for the batch; print each command's output in the
#                  order they were started; return 1 if any exited non-zero
# Commands run in subshells: they report through their output, exit status
# and files, not through shell variables.

pj_start() {
  _pj_dir=$(mktemp -d)
  _pj_n=0
  _pj_max=${1:-$(nproc 2>/dev/null || echo 2)}
}

pj() {
  while [ "$(jobs -pr | wc -l)" -ge "$_pj_max" ]; do wait -n || true; done
  _pj_n=$((_pj_n + 1))
  local f
  f=$_pj_dir/$(printf %05d "$_pj_n")
  { set +e; "$@" >"$f.out" 2>&1; echo $? >"$f.rc"; } &
}

pj_end() {
  wait
  local f rc=0
  for f in "$_pj_dir"/*.out; do
    [ -e "$f" ] || continue
    cat "$f"
    [ "$(cat "${f%.out}.rc" 2>/dev/null)" = 0 ] || rc=1
  done
  rm -rf "$_pj_dir"
  return $rc
}
