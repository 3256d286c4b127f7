/* nic_rel_env.c - the reliable streams' settings from the environment
 * (nic_rel_env.h). */
#include "config.h"

#include <ctype.h>
#include <stdio.h>

#include "nic_env.h"
#include "nic_rel_env.h"

/* MULTIDEV_<PERS>_<what>, in its declared unit. */
static int rel_env(const nic_log_sink_t *sink, const char *pers, const char *what,
                   long long *value)
{
    char name[64];
    int n = snprintf(name, sizeof(name), "MULTIDEV_%s_%s", pers, what);

    for (int i = 0; i < n && i < (int)sizeof(name); i++)
        name[i] = (char)toupper((unsigned char)name[i]);
    return nic_env_num(sink, name, value);
}

int nic_rel_settings_read(const nic_log_sink_t *sink, const char *pers, nic_rel_config_t *cfg)
{
    long long rto_us, rto_min_us, ack_delay_us, peer_timeout_ms;

    if (rel_env(sink, pers, "RTO_US", &rto_us) != NIC_OK ||
        rel_env(sink, pers, "RTO_MIN_US", &rto_min_us) != NIC_OK ||
        rel_env(sink, pers, "ACK_DELAY_US", &ack_delay_us) != NIC_OK ||
        rel_env(sink, pers, "PEER_TIMEOUT_MS", &peer_timeout_ms) != NIC_OK)
        return NIC_ERR_CONFIG;
    cfg->rto_init_ns = (uint64_t)rto_us * 1000u;
    cfg->rto_min_ns = (uint64_t)rto_min_us * 1000u;
    cfg->rto_max_ns = NIC_REL_RTO_MAX_NS;
    cfg->ack_delay_ns = (uint64_t)ack_delay_us * 1000u;
    cfg->peer_timeout_ns = (uint64_t)peer_timeout_ms * 1000000u;
    return NIC_OK;
}
