#!/usr/bin/env bash
# lib/'s file graph keeps its layers (scripts/layers.py): no include, call or
# table-read cycle between files, no such edge from a lower layer up, no mode,
# batch engine, ESP, container or LUKS file reaching past the gostx_cipher
# handle (bulk/lanes.c, the multi-key lanes, excepted), no implementation
# table read outside dispatch.c, lib/tls's strata and x509 under them kept,
# no file of cli/ including a header of lib/ but lib/ike's manager (which
# includes nothing of lib/), no include/call cycle between the files of
# cli/ and no import cycle between python/gostx's modules, beyond the
# script's KNOWN list (empty since issue 82; --strict counts those, and
# passes exactly when the list is empty). Then the script must catch each
# kind when one is planted in a copy of lib/ (and cli/, python/gostx).
. "$(dirname "$0")/cli_common.sh" layers no-gostx
command -v python3 >/dev/null || { echo "python3 not found: skipping"; exit 77; }
root=$(cd "$(dirname "$0")/.." && pwd)
layers="$root/scripts/layers.py"
check "the tree keeps its layers" python3 "$layers" --root "$root"
# --strict counts the known ones: it fails while KNOWN holds any
if grep -q '^    "' <(sed -n '/^KNOWN = {/,/^}/p' "$layers"); then
  if python3 "$layers" --root "$root" --strict --quiet >"$T/out" 2>&1; then
    bad "--strict counts the known cycles: $(cat "$T/out")"
  else
    ok
  fi
else
  check "nothing known: --strict passes" python3 "$layers" --root "$root" --strict --quiet
fi
plant() { # plant NAME FILE LINE: a copy of lib/ with LINE appended to FILE must fail
  # (FILE under lib/; cli/FILE or python/gostx/FILE: in a copy of it beside)
  rm -rf "$T/lib" "$T/cli" "$T/python" && cp -r "$root/lib" "$T/lib"
  case $2 in
    cli/*) cp -r "$root/cli" "$T/cli" && f="$T/$2" ;;
    python/*) mkdir -p "$T/python" && cp -r "$root/python/gostx" "$T/python/" && f="$T/$2" ;;
    *) f="$T/lib/$2" ;;
  esac
  printf '%s\n' "$3" >>"$f"
  if python3 "$layers" --root "$T" --quiet >"$T/out" 2>&1; then
    bad "planted $1 not found: $(cat "$T/out")"
  else
    ok
  fi
}
plant "upward include" magma/magma_portable.c '#include "modes/modes_internal.h"'
plant "upward call" blockops/ctr_fill.c 'void f(void) { gostx__cipher_ctr(0, 0, 0, 0, 0, 0); }'
plant "cycle" modes/ecb.c 'void g(void) { gostx_mode_clear(0); }'
plant "past the handle" modes/cbc.c 'void h(void) { gostx__dispatch(); }'
plant "bulk past the handle" bulk/streams.c 'size_t h2(void) { return gostx__dispatch()->kuz->batch; }'
plant "a kernel table read past the handle" esp/esp.c 'const void *h3(void) { return &gostx_kuz_portable; }'
plant "an upward table read" kuznyechik/kuz_portable.c 'const void *h4(void) { return &gostx__gost89_mesh_c; }'
plant "another ISA file's table" kuznyechik/kuz_ssse3.c 'const void *h5(void) { return &gostx_kuz_avx2; }'
# lib/tls's strata, each kept (keys < TLS 1.2's key exchange < records < io
# < the handshakes' common part < TLS 1.2's < TLS 1.3's common part < its
# sides < its state machine < conn.c; x509 below them): an upward edge in
# each (a cycle, where one comes with it, is caught too)
plant "tls: a key schedule calling the key exchange" tls/tls12_keys.c 'void t1(void) { gostx__tls12_gkt_write(0, 0, 0, 0, 0, 0); }'
plant "tls: the key exchange calling a record" tls/tls12_kx.c 'size_t t2(void) { return gostx__tls12_sealed_len(0, 0); }'
plant "tls: a record calling the handshake's tickets" tls/tls12_record.c 'void t3(void) { gostx__tls_now_ms(0); }'
plant "tls: the tickets calling TLS 1.2's handshake" tls/ticket.c 'void t4(void) { gostx__tls12_on_message(0, 0, 0); }'
plant "tls: io calling the handshakes' common part" tls/io.c 'void t6(void) { gostx__tls_fill_random(0, 0); }'
plant "tls: TLS 1.2's handshake calling TLS 1.3's" tls/handshake12.c 'void t7(void) { gostx__tls13_connected(0); }'
plant "tls: TLS 1.3's common part calling a side" tls/hs13.c 'void t8(void) { gostx__tls13_client_finish(0); }'
plant "tls: a side calling the state machine" tls/handshake_server.c 'void t9(void) { gostx__tls_on_message(0, 0, 0); }'
plant "tls: the state machine calling the API" tls/handshake.c 'const void *t10(void) { return gostx__tls_secret(0, 0); }'
plant "x509 calling tls" x509/verify.c 'void t5(void) { gostx_tls_peer_chain(0, 0); }'
# the tunnel's IKE daemon and any cli file: lib/ike's manager header only,
# by any path; and that header brings in nothing of lib/
plant "the IKE daemon including the engine" cli/tunnel/ike/ike_daemon.c '#include "ike/engine.h"'
plant "the data path including the manager's inside" cli/tunnel/tunnel_install.c '#include "../../lib/ike/mgr_int.h"'
plant "a cli file including lib/'s internal.h" cli/tunnel/tunnel_worker.c '#include "internal.h"'
plant "the manager's header including the engine" ike/manager.h '#include "engine.h"'
# cycles in cli/ (a call back up; a header's inline calling a file that
# includes it) and in python/gostx (at the top, and deferred in a function)
plant "cli: the options calling the command" cli/tls/tls_opts.c 'void p1(void) { cmd_tls(0, 0); }'
plant "cli: a header's inline calling its includer" cli/tunnel/tunnel.h 'static inline void p2(void) { tunnel_worker_run(0); }'
plant "python: an import back" python/gostx/x509.py 'from . import cms  # noqa'
plant "python: a deferred import back" python/gostx/x509.py $'def _p3():\n    from .cms import Status\n    return Status'
finish
