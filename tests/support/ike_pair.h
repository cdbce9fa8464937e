/* Two engines' configurations for a PSK exchange between them (the tests
 * of lib/ike: test_ike_engine, test_ike_rekey, test_ike_outside): one
 * shared key, FQDN IDs "IKE-Initiator" and "IKE-Responder", any IPv4
 * traffic selectors. */
#ifndef GOSTX_TEST_IKE_PAIR_H
#define GOSTX_TEST_IKE_PAIR_H

#include <stdint.h>

#include "ike/engine.h"

/* ci for the initiator, cr (a mirror: roles and IDs swapped) for the
 * responder; both use encr, the initiator offers group. The key and IDs
 * they point to live as long as the program. */
void ike_psk_pair(gostx_ike_conf *ci, gostx_ike_conf *cr, uint16_t encr, uint16_t group);

/* e (all zeros, or an engine used before: the tests' engines are static)
 * cleared, its buffers freed, and started for cf: gostx__ike_engine_init's
 * result. */
int ike_engine_fresh(gostx_ike_engine *e, const gostx_ike_conf *cf);

#endif
