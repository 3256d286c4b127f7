/* md_drain.c - the bounded drain at finalize (md_drain.h). */
#include "config.h"

#include <time.h>

#include "md_drain.h"
#include "md_sdi.h"

static uint64_t md_drain_now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int md_drain(int (*pending)(void *arg), int (*step)(void *arg), void *arg, unsigned limit_ms)
{
    const uint64_t end = md_drain_now_ns() + (uint64_t)limit_ms * 1000000ull;
    int rc;

    while (pending(arg)) {
        if ((rc = step(arg)) < 0)
            return rc;
        if (md_drain_now_ns() > end)
            return MD_ERR_TIMEOUT;
    }
    return MD_OK;
}
