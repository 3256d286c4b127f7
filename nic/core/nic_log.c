/* nic_log.c - the NIC layer's logger (nic_log.h). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nic_env.h"
#include "nic_log.h"
#include "nic_status.h"

_Atomic int nic_log_level = NIC_LOG_WARN;
/* set once by a program's nic_log_init, before it starts a thread */
static char log_who[64] = "nic";
static _Atomic int log_tee_fd = -1;

static const char *const log_level_names[] = {
    [NIC_LOG_ERROR] = "error", [NIC_LOG_WARN] = "warn", [NIC_LOG_INFO] = "info",
    [NIC_LOG_DEBUG] = "debug", [NIC_LOG_TRACE] = "trace",
};

int nic_log_init(const char *who)
{
    if (who != NULL)
        snprintf(log_who, sizeof(log_who), "%s", who);
    return nic_log_level_read(NULL);
}

int nic_log_level_read(const nic_log_sink_t *sink)
{
    long long level;

    /* the words of MULTIDEV_LOG_LEVEL are the levels, in order */
    if (nic_env_num(sink, "MULTIDEV_LOG_LEVEL", &level) != NIC_OK)
        return NIC_ERR_CONFIG;
    atomic_store_explicit(&nic_log_level, (int)level, memory_order_relaxed);
    return NIC_OK;
}

void nic_log_tee(int fd)
{
    atomic_store(&log_tee_fd, fd);
}

void nic_log_emit(const nic_log_sink_t *sink, int level, const char *fmt, ...)
{
    int saved = errno, tee_fd = atomic_load(&log_tee_fd);
    char text[1024];
    va_list ap;

    if (level < NIC_LOG_ERROR)
        level = NIC_LOG_ERROR;
    else if (level > NIC_LOG_TRACE)
        level = NIC_LOG_TRACE;
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    if (sink != NULL && sink->fn != NULL)
        sink->fn(sink->arg, level, text);
    else
        fprintf(stderr, "%s %s: %s\n", log_who, log_level_names[level], text);
    if (tee_fd >= 0 && level <= NIC_LOG_WARN)
        dprintf(tee_fd, "%s\n", text);
    errno = saved;
}
