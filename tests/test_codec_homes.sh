#!/usr/bin/env bash
# Every codec and shared CLI service in its one home
# (scripts/codec_homes.py): no base64 alphabet or character mapping, no DER
# length encoder in lib/, cli/, integrations/ or python/gostx outside
# lib/asn1, no command's file of cli/ including another command's (what
# they share is cli/common's), and none in the script's KNOWN list. Then the
# script must catch each kind planted in a copy, and let the same text pass
# in lib/asn1, in a comment, and an include where it may stand.
. "$(dirname "$0")/cli_common.sh" codec_homes no-gostx
command -v python3 >/dev/null || { echo "python3 not found: skipping"; exit 77; }
root=$(cd "$(dirname "$0")/.." && pwd)
script="$root/scripts/codec_homes.py"
check "the tree keeps its codecs in lib/asn1" python3 "$script" --root "$root" --quiet
# --strict counts the KNOWN list too: it is empty (cli/ writes its DER
# headers through gostx/der.h), and must stay so
check "nothing known outside lib/asn1 either" python3 "$script" --root "$root" --strict --quiet
mkdir -p "$T/tree/python"
cp -r "$root/lib" "$root/cli" "$root/integrations" "$T/tree/"
cp -r "$root/python/gostx" "$T/tree/python/"
# each row: fail (a planted codec the check must catch) or pass (the same
# text where it may stand), what it is, the new file, its line
abc='ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'
while IFS=$'\t' read -r want what file line; do
  printf '%s\n' "$line" >"$T/tree/$file"
  if python3 "$script" --root "$T/tree" --quiet >"$T/out" 2>&1; then got=pass; else got=fail; fi
  if [ "$got" = "$want" ]; then ok; else bad "$what: $got ($(cat "$T/out"))"; fi
  rm -f "$T/tree/$file"
done <<EOF
fail	an alphabet in integrations/	integrations/xmldsig/b64.c	static const char T[] = "$abc+/";
fail	a URL-safe alphabet in cli/	cli/common/b64url.c	static const char T[] = "$abc-_";
fail	an alphabet in python/gostx	python/gostx/_b64.py	T = "$abc+/"
fail	a character mapping	cli/ocsp/b64.c	int v = c == '+' ? 62 : c == '/' ? 63 : -1;
fail	a lower-case mapping	lib/x509/b64.c	  v = c - 'a' + 26;
fail	a count byte 0x80 | n	lib/cms/len.c	  h[0] = (uint8_t)(0x80 | n);
fail	a long-form byte stored	lib/x509/len.c	  out[1] = 0x82, out[2] = (uint8_t)(len >> 8);
fail	a header sized by 128/256	cli/common/len.c	  size_t hl = len < 128 ? 2 : len < 256 ? 3 : 4;
fail	a known kind in another file	cli/ca/other.c	  one[1] = 0x81;
pass	lib/asn1's own alphabet	lib/asn1/b64.c	static const char T[] = "$abc+/";
pass	an alphabet in a comment	lib/x509/note.c	/* "$abc+/" */
pass	a UTF-8 continuation byte	lib/x509/utf8.c	  u[1] = (uint8_t)(0x80 | (c & 0x3f));
pass	a comparison with 0x81	cli/common/cmp.c	  if (b[1] == 0x81) return 1;
fail	a command including another's	cli/ocsp/inc.c	#include "../tls/tls_cli.h"
fail	a simple command including a folder's	cli/cmd_inc.c	#include "ts/ts_cli.h"
fail	cli/common including a command's	cli/common/inc.c	#include "../cms/cms_cli.h"
fail	a subfolder reaching another command	cli/tunnel/ike/inc.c	#include "../../ocsp/ocsp_cli.h"
pass	a subfolder including its command's	cli/tunnel/ike/inc.c	#include "../tunnel.h"
pass	cli/common's header by name	cli/ocsp/inc.c	#include "crl_file.h"
pass	the subcommand table	cli/xml/inc.c	#include "../commands.h"
pass	a cross-command include in a comment	cli/ocsp/inc.c	/* #include "../tls/tls_cli.h" */
EOF
finish
