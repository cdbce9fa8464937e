# Sourced by tests/net/test_tunnel.sh and bench/net_tunnel.sh: two network
# namespaces $NA and $NB joined by the veth pair $VA / $VB, addressed
# 10.231.0.1/30 and 10.231.0.2/30, IPv6 off (no router solicitations in the
# tunnels), loopback up. Returns 1 when namespaces cannot be made here.
netns_pair() {
  ip netns add $NA 2>/dev/null || return 1
  ip netns add $NB || return 1
  ip link add $VA netns $NA type veth peer name $VB netns $NB || return 1
  local ns
  for ns in $NA $NB; do
    ip netns exec $ns sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
    ip -n $ns link set lo up
  done
  ip -n $NA addr add 10.231.0.1/30 dev $VA && ip -n $NA link set $VA up &&
    ip -n $NB addr add 10.231.0.2/30 dev $VB && ip -n $NB link set $VB up
}
