/* A data path for lib/ike's manager that installs nothing (the tests and
 * bench/ike_speed's gateway rows, where only the IKE side runs): a Child
 * SA's outbound SA is a token, its keys unused; no SA counts anything. */
#ifndef GOSTX_TEST_IKE_MGR_DP_H
#define GOSTX_TEST_IKE_MGR_DP_H

#include "ike/manager.h"

extern const gostx__ike_mgr_dp ike_null_dp;

#endif
