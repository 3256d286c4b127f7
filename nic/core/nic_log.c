/* nic_log.c - the NIC layer's logger. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "nic_log.h"

int nic_log_level = NIC_LOG_WARN;
static char log_who[64] = "nic";
static nic_log_sink_t log_sink;
static void *log_sink_arg;

void nic_log_init(const char *who)
{
    static const char *names[] = { "error", "warn", "info", "debug", "trace" };
    const char *env = getenv("MULTIDEV_LOG_LEVEL");

    if (who != NULL)
        snprintf(log_who, sizeof(log_who), "%s", who);
    if (env == NULL)
        return;
    for (int i = 0; i < 5; i++)
        if (strcasecmp(env, names[i]) == 0)
            nic_log_level = i;
}

void nic_log_set_sink(nic_log_sink_t sink, void *arg)
{
    log_sink = sink;
    log_sink_arg = arg;
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
    errno = saved;
}
