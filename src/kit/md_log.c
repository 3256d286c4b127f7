/* md_log.c - level-filtered logging to stderr. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "md_log.h"
#include "md_tun.h"

int md_log_current_level = MD_LOG_WARN;
static int md_log_rank = -1;

static const char *const md_log_names[] = {
    [MD_LOG_ERROR] = "error", [MD_LOG_WARN] = "warn", [MD_LOG_INFO] = "info",
    [MD_LOG_DEBUG] = "debug", [MD_LOG_TRACE] = "trace",
};

int md_log_init(int world_rank)
{
    long long level;

    md_log_rank = world_rank;
    /* the words of MULTIDEV_LOG_LEVEL are the levels, in order */
    if (md_tun_env_num("MULTIDEV_LOG_LEVEL", &level, md_log_say_error) < 0)
        return -1;
    md_log_current_level = (int)level;
    return 0;
}

void md_log_say_error(const char *line)
{
    md_log_error("%s", line);
}

void md_log_say_warning(const char *line)
{
    md_log_warn("%s", line);
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
