#!/usr/bin/env bash
# The systemd units the Debian package installs (integrations/systemd/:
# gostx-tls@.service, gostx-tunnel@.service) pass `systemd-analyze verify`
# with nothing said: no unknown or misspelt setting, a command that exists.
# Each is checked as an instance (NAME = demo), ExecStart pointed at the
# gostx under test (the package's /usr/bin/gostx is not there in a build
# tree); the hardening each must keep is checked by name. Skipped (77)
# without systemd-analyze.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/cli_common.sh" systemd_units
command -v systemd-analyze >/dev/null || { echo "SKIP: systemd-analyze missing (apt-get install systemd)"; exit 77; }
UNITS=$HERE/../integrations/systemd
for u in gostx-tls@.service gostx-tunnel@.service; do
  sed "s|/usr/bin/gostx |$(cd "$(dirname "$G")" && pwd)/$(basename "$G") |" "$UNITS/$u" >"$T/$u"
  ln -s "$u" "$T/${u/@/@demo}"
  # verify reads the unit and what it names; any line it prints is a fault
  (cd "$T" && timeout 30 systemd-analyze verify "${u/@/@demo}") >"$T/out" 2>&1
  rc=$?
  [ $rc = 0 ] && [ ! -s "$T/out" ] && ok || bad "systemd-analyze verify $u (rc $rc): $(cat "$T/out")"
done
# has UNIT SETTING...: each SETTING is a line of UNIT
has() {
  local u=$1 s
  shift
  for s in "$@"; do grep -qxF -- "$s" "$UNITS/$u" && ok || bad "$u: no '$s'"; done
}
hardening=(NoNewPrivileges=yes ProtectSystem=strict ProtectHome=yes PrivateTmp=yes
  RestrictNamespaces=yes MemoryDenyWriteExecute=yes SystemCallFilter=@system-service)
has gostx-tls@.service "${hardening[@]}" \
  'ExecStart=/usr/bin/gostx tls serve -c /etc/gostx/tls/%i.conf' \
  'ExecReload=/bin/kill -HUP $MAINPID' CapabilityBoundingSet=CAP_NET_BIND_SERVICE \
  'RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX' PrivateDevices=yes
has gostx-tunnel@.service "${hardening[@]}" \
  'ExecStart=/usr/bin/gostx tunnel -c /etc/gostx/tunnel/%i.conf' \
  CapabilityBoundingSet=CAP_NET_ADMIN 'DeviceAllow=/dev/net/tun rw' DevicePolicy=closed \
  StateDirectory=gostx RuntimeDirectory=gostx
finish
