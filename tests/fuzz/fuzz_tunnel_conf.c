/* libFuzzer harness: the `gostx tunnel -c FILE` reader (cli/tunnel/tunnel_config.c),
 * in process: the input is the file. Only the reading and its checks: no key
 * file, device or socket is opened (what the config names is the command's
 * business at start, after this).
 *
 * Finds: crashes, ASan/UBSan reports, leaks and hangs in the lines, the
 * [peer NAME] sections (static and IKEv2) and [pool NAME], their prefixes,
 * patterns and lists.
 * Checked besides: a refusal leaves nothing allocated; a file taken has its
 * peers named, each with at least one prefix of a sane length and its
 * section's line within the file. stderr is closed by run_fuzz.sh
 * (-close_fd_mask=2). */
#define _GNU_SOURCE /* tunnel.h's struct mmsghdr */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../cli/tunnel/tunnel.h"
#define FUZZ_NAME "fuzz_tunnel_conf"
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 1 << 16) return 0;
  size_t lines;
  const char *path = fuzz_input_file(data, size, &lines);
  static struct tunnel_config cfg; /* large: not on the stack */
  memset(&cfg, 0, sizeof cfg);
  int rc = tunnel_config_read(path, &cfg);
  if (rc != 0 && (cfg.peers || cfg.npeers || cfg.pool)) bug("a refusal left a peer table or a pool");
  if (rc != 0) return 0;
  size_t sites = 0; /* the IKEv2 peers, after every static one (tunnel.h) */
  for (size_t i = 0; i < cfg.npeers; i++) {
    const struct tunnel_peer_config *p = &cfg.peers[i];
    if (p->ike) sites++;
    else if (sites) bug("a static peer after an IKEv2 one");
    if (!p->name[0]) bug("a peer without a name");
    if (!p->line || p->line > lines) bug("a peer's section line outside the file");
    if (!p->nts || p->nts > TUNNEL_TS_MAX) bug("a peer without prefixes, or too many");
    for (size_t j = 0; j < p->nts; j++)
      if (p->ts[j].len > (p->ts[j].family == 4 ? 32 : 128)) bug("a prefix longer than its address");
  }
  if (sites != cfg.nsites) bug("nsites is not the count of IKEv2 peers");
  tunnel_config_free(&cfg);
  return 0;
}
