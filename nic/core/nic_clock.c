/* nic_clock.c - see nic_clock.h. */
#include "config.h"

#include <time.h>

#include "nic_clock.h"

uint64_t nic_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t nic_now_coarse_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void nic_spin_ns(uint64_t ns)
{
    uint64_t end = nic_now_ns() + ns;
    while (nic_now_ns() < end)
        ;
}
