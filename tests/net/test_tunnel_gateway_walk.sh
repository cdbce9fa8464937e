#!/usr/bin/env bash
# docs/TUNNEL.md's "A gateway from empty folders", run as written: its
# shell blocks in order, each in the folder of the host its first line
# names ("# on HOST"): ca (no network), gw, branch and anna, each a
# namespace of its own with the walk's addresses (the gateway
# 198.51.100.1/30 to the branch, 203.0.113.1/30 to Anna). A block that
# starts a tunnel in the background is followed by a wait for its "up"
# line (the doc's "once it is up"). Checked: every block exits 0; Anna's
# device has an address of the pool (her tunnel put it there); her
# pings to the gateway's host and to the branch are all answered; the
# gateway's --status lists the branch and Anna (her ID) with packets
# received from each. The doc and the test cannot drift apart: edit the
# doc and this runs the edit. Needs root and /dev/net/tun (77 without).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/netns.sh"
NA=gxwg$$ NB=gxwb$$ VA=gxwv0$$ VB=gxwv1$$ NU=gxwu$$
G=$(realpath "${GOSTX:-build/gostx}")
DOC=$HERE/../../docs/TUNNEL.md
walk_end() {
  local ns
  for ns in $NA $NB $NU; do PIDS+=($(ip netns pids $ns 2>/dev/null)); done
  netns_test_end
}
netns_test_begin ping
trap walk_end EXIT
# the walk's outer addresses (beside netns.sh's own on the pair)
ip -n $NA addr add 198.51.100.1/30 dev $VA && ip -n $NB addr add 198.51.100.2/30 dev $VB &&
  netns_spoke $NU 203.0.113.1/30 203.0.113.2/30 || { bad "the walk's namespaces"; finish; }
ip netns exec $NA sysctl -qw net.ipv4.conf.all.rp_filter=0

# gostx on the blocks' PATH; the four empty folders
mkdir "$T/bin" "$T/ca" "$T/gw" "$T/branch" "$T/anna"
ln -s "$G" "$T/bin/gostx"
# the section's ```sh blocks, one file each
awk -v dir="$T" '
  /^### A gateway from empty folders/ { on = 1; next }
  on && /^##/ { exit }
  on && /^```sh$/ { n++; f = sprintf("%s/block%02d.sh", dir, n); inb = 1; next }
  on && inb && /^```$/ { inb = 0; close(f); next }
  inb { print > f }
' "$DOC"
blocks=("$T"/block*.sh)
[ ${#blocks[@]} -ge 10 ] && ok "the walk has ${#blocks[@]} shell blocks" ||
  { bad "the walk's blocks not found in $DOC (${#blocks[@]})"; finish; }

ns_of() { case $1 in gw) echo $NA ;; branch) echo $NB ;; anna) echo $NU ;; esac; }
for b in "${blocks[@]}"; do
  host=$(sed -n '1s/^# on \([a-z]*\).*/\1/p' "$b")
  what=$(head -1 "$b")
  case $host in
  ca) run=() ;;
  gw | branch | anna) run=(ip netns exec $(ns_of $host)) ;;
  *) bad "$(basename "$b"): no '# on HOST' first line: $what"; finish ;;
  esac
  (cd "$T/$host" && PATH=$T/bin:$PATH "${run[@]}" bash -e -o pipefail "$b") \
    >"$b.out" 2>>"$T/$host.log" </dev/null
  rc=$?
  [ $rc = 0 ] && ok "$what" || { bad "$what: exit $rc: $(tail -3 "$T/$host.log")"; finish; }
  if grep -q '^gostx tunnel -c .*&' "$b"; then # the doc's "once it is up"
    for _ in $(seq $(bound 100)); do grep -q ' up, ' "$T/$host.log" && break; sleep 0.05; done
    grep -q ' up, ' "$T/$host.log" && ok "$host: up" || { bad "$host not up: $(tail -3 "$T/$host.log")"; finish; }
  fi
done

# the address on Anna's device (the tunnel's doing), the pings (the anna
# block that sends them) and the gateway's status
inet=$(grep -ho 'inet 10\.200\.0\.[0-9]*/32' "$T"/block*.sh.out)
[ -n "$inet" ] && ok "Anna's device: $inet of the pool, put there by her tunnel" ||
  bad "no pool address on anna0: $(cat "$T"/block*.sh.out | grep inet)"
pings=$(grep -h 'packets transmitted' "$T"/block*.sh.out)
[ "$(grep -c ' 3 received' <<<"$pings")" = 2 ] && ok "Anna's pings to the gateway and the branch: all answered" ||
  bad "Anna's pings: $pings"
status=$(cat "${blocks[-1]}.out")
line_of() { grep "$1" <<<"$status"; }
rx() { awk '{ for (i = 1; i < NF; i++) if ($i == "rx_packets") print $(i + 1) }' <<<"$1"; }
br=$(line_of '^peer branch ')
an=$(line_of '^peer users\..* id C=RU, O=Example, CN=anna.users.example.ru$')
[ -n "$br" ] && [ "$(rx "$br")" -gt 0 ] && ok "the gateway's status: the branch, packets from it" ||
  bad "the branch's status line: $status"
[ -n "$an" ] && [ "$(rx "$an")" -gt 0 ] && ok "the gateway's status: Anna by her ID, packets from her" ||
  bad "Anna's status line: $status"
finish
