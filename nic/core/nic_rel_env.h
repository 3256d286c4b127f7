/* nic_rel_env.h - the reliable streams' settings a personality's firmware
 * takes from the environment: MULTIDEV_<PERS>_RTO_US, _RTO_MIN_US,
 * _ACK_DELAY_US and _PEER_TIMEOUT_MS, declared for each personality in the table of
 * tunables (src/tunables/md_tun_table.c) and read here for all three. */
#ifndef NIC_REL_ENV_H
#define NIC_REL_ENV_H

#include "nic_log.h"
#include "nic_rel.h"

/* The retransmission timeout doubles up to this. */
#define NIC_REL_RTO_MAX_NS (100 * 1000000ull)

/* Fills cfg's timeouts for personality pers ("myri", "sci", "via"); the
 * frame layout (hdr_off, frame_max, ack_tail) stays the caller's.  NIC_OK,
 * or NIC_ERR_CONFIG after an error line to sink naming the variable at
 * fault.  nic_rel_create calls it for its firmware's personality. */
int nic_rel_settings_read(const nic_log_sink_t *sink, const char *pers, nic_rel_config_t *cfg);

#endif /* NIC_REL_ENV_H */
