/* nic_env.c - the NIC layer's tunables, errors to a NIC's sink (nic_env.h). */
#include "config.h"

#include <stdio.h>

#include "md_tun.h"
#include "nic_env.h"
#include "nic_status.h"

/* md_tun says what is wrong through a function without an argument: the
 * line is kept here, per thread, for the one call that made it. */
static _Thread_local char env_said[MD_TUN_ERR_MAX];

static void env_keep(const char *line)
{
    snprintf(env_said, sizeof(env_said), "%s", line);
}

static int env_result(const nic_log_sink_t *sink, int origin)
{
    if (origin >= 0)
        return NIC_OK;
    nic_log_error(sink, "%s", env_said);
    return NIC_ERR_CONFIG;
}

int nic_env_num(const nic_log_sink_t *sink, const char *name, long long *num)
{
    return env_result(sink, md_tun_env_num(name, num, env_keep));
}

int nic_env_prob(const nic_log_sink_t *sink, const char *name, double *prob)
{
    return env_result(sink, md_tun_env_prob(name, prob, env_keep));
}

int nic_env_text(const nic_log_sink_t *sink, const char *name, const char **text)
{
    return env_result(sink, md_tun_env_text(name, text, env_keep));
}
