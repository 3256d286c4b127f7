/* echo_order.h - for the plain-C smoke programs of test/nic: post n
 * counters through an endpoint of the echo firmware and check that they
 * come back in order. */
#ifndef TEST_NIC_ECHO_ORDER_H
#define TEST_NIC_ECHO_ORDER_H

#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/nic_host.h"

static inline int remove_entry(const char *path, const struct stat *st, int type,
                               struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    return type == FTW_DP ? rmdir(path) : unlink(path);
}

/* The smoke program's run directory goes (lock files and all) when it ends. */
static inline void remove_rundir(const char *dir)
{
    if (nftw(dir, remove_entry, 8, FTW_DEPTH | FTW_PHYS) != 0)
        perror(dir);
}

/* idle(arg, got) runs whenever the completion queue is empty, received
 * (arg, got) (if not NULL) after each entry reaped.  Returns the number of
 * entries echoed in order: n, or fewer if one came back out of order. */
static inline uint32_t echo_in_order(nic_ep_t *ep, uint32_t n,
                                     void (*idle)(void *arg, uint32_t got),
                                     void (*received)(void *arg, uint32_t got), void *arg)
{
    uint32_t posted = 0, got = 0;

    while (got < n) {
        nic_entry_t *e;
        while (posted < n && (e = nic_ep_sq_slot(ep)) != NULL) {
            memcpy(e->bytes, &posted, 4);
            nic_ep_sq_post(ep);
            posted++;
        }
        nic_entry_t *c = nic_ep_cq_peek(ep);
        if (c == NULL) {
            idle(arg, got);
            continue;
        }
        uint32_t v;
        memcpy(&v, c->bytes, 4);
        if (v != got)
            return got;
        nic_ep_cq_release(ep);
        got++;
        if (received != NULL)
            received(arg, got);
    }
    return got;
}

#endif /* TEST_NIC_ECHO_ORDER_H */
