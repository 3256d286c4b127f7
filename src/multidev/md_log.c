/* md_log.c - level-filtered logging to stderr. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "md_log.h"

int md_log_current_level = MD_LOG_WARN;
static int md_log_rank = -1;

static const char *const md_log_names[] = {
    [MD_LOG_ERROR] = "error", [MD_LOG_WARN] = "warn", [MD_LOG_INFO] = "info",
    [MD_LOG_DEBUG] = "debug", [MD_LOG_TRACE] = "trace",
};

void md_log_init(int world_rank)
{
    const char *env = getenv("MULTIDEV_LOG_LEVEL");

    md_log_rank = world_rank;
    if (env == NULL)
        return;
    for (int l = MD_LOG_ERROR; l <= MD_LOG_TRACE; l++) {
        if (strcasecmp(env, md_log_names[l]) == 0) {
            md_log_current_level = l;
            return;
        }
    }
    md_log_emit(MD_LOG_WARN, "MULTIDEV_LOG_LEVEL='%s' is not one of "
                "error, warn, info, debug, trace; keeping warn", env);
}

void md_log_emit(int level, const char *fmt, ...)
{
    char line[1024];
    int n;
    va_list ap;

    if (md_log_rank >= 0)
        n = snprintf(line, sizeof(line), "multidev[%d] %s: ", md_log_rank,
                     md_log_names[level]);
    else
        n = snprintf(line, sizeof(line), "multidev[pid %d] %s: ",
                     (int)getpid(), md_log_names[level]);
    va_start(ap, fmt);
    vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
    va_end(ap);
    /* one write per line keeps lines of different ranks apart */
    size_t len = strlen(line);
    line[len] = '\n';
    if (write(STDERR_FILENO, line, len + 1) < 0) {
        /* nothing sensible left to do */
    }
}
