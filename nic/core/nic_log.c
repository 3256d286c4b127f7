/* nic_log.c - the NIC layer's logger. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "md_tun.h"
#include "nic_log.h"
#include "nic_status.h"

int nic_log_level = NIC_LOG_WARN;
static char log_who[64] = "nic";
static nic_log_sink_t log_sink;
static void *log_sink_arg;
static int log_tee_fd = -1;

int nic_log_init(const char *who)
{
    long long level;

    if (who != NULL)
        snprintf(log_who, sizeof(log_who), "%s", who);
    /* the words of MULTIDEV_LOG_LEVEL are the levels, in order */
    if (md_tun_env_num("MULTIDEV_LOG_LEVEL", &level, nic_log_say_error) < 0)
        return NIC_ERR_CONFIG;
    nic_log_level = (int)level;
    return NIC_OK;
}

void nic_log_say_error(const char *line)
{
    nic_log_error("%s", line);
}

void nic_log_set_sink(nic_log_sink_t sink, void *arg)
{
    log_sink = sink;
    log_sink_arg = arg;
}

void nic_log_tee(int fd)
{
    log_tee_fd = fd;
}

void nic_log_emit(int level, const char *fmt, ...)
{
    static const char *names[] = { "error", "warn", "info", "debug", "trace" };
    int saved = errno;
    char text[1024];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    if (log_sink != NULL)
        log_sink(log_sink_arg, level, text);
    else
        fprintf(stderr, "%s %s: %s\n", log_who, names[level < 5 ? level : 4], text);
    if (log_tee_fd >= 0 && level <= NIC_LOG_WARN)
        dprintf(log_tee_fd, "%s\n", text);
    errno = saved;
}
