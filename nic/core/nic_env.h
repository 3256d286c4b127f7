/*
 * nic_env.h - the NIC layer's tunables (src/tunables/md_tun_table.c), read
 * with the error line of a malformed one said to the sink of the NIC it
 * concerns (nic_log.h).  Each returns NIC_OK with the value (the declared
 * default when unset), or NIC_ERR_CONFIG after that line.
 */
#ifndef NIC_ENV_H
#define NIC_ENV_H

#include "nic_log.h"

int nic_env_num(const nic_log_sink_t *sink, const char *name, long long *num);
int nic_env_prob(const nic_log_sink_t *sink, const char *name, double *prob);
int nic_env_text(const nic_log_sink_t *sink, const char *name, const char **text);

#endif /* NIC_ENV_H */
