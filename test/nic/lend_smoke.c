/* lend_smoke.c - (plain C, for ThreadSanitizer) the echo firmware in this
 * process (nic_host_attach with inproc), driven at once by its own thread
 * and by two host threads that lend it turns, while the main thread posts
 * and reaps 200000 entries and now and then sleeps in nic_ep_wait, which
 * hands the data path back to the firmware thread, or in poll() on the
 * wire as the process's only poller (nic_ep_wake_arm with sole); then
 * 2000 more with the main thread alone lending turns. */
#include "config.h"

#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/nic_host.h"
#include "test_job.h"
#include "echo_order.h"

static atomic_int stop;
static atomic_long lent;

static void *lender(void *arg)
{
    nic_host_t *h = arg;
    while (!atomic_load(&stop)) {
        int n = nic_host_lend(h);
        if (n < 0)
            return (void *)1;          /* not in-process after all */
        atomic_fetch_add(&lent, n);
        if (n == 0)
            usleep(10);
    }
    return NULL;
}

typedef struct lend_ctx {
    nic_host_t *h;
    nic_ep_t   *ep;
} lend_ctx_t;

/* A turn lent by the main thread counts as one too: with the firmware
 * thread busy, the lenders' trylock may lose nearly every time. */
static int lend_counted(nic_host_t *h)
{
    int n = nic_host_lend(h);

    if (n > 0)
        atomic_fetch_add(&lent, n);
    return n;
}

static void lend_only(void *arg, uint32_t got)
{
    (void)got;
    lend_counted(arg);
}

static void lend_or_wait(void *arg, uint32_t got)
{
    lend_ctx_t *c = arg;
    if (lend_counted(c->h) != 0)
        return;
    if (got % 7 == 0) {
        nic_ep_wait(c->ep, 100);  /* the firmware thread takes over */
    } else if (got % 11 == 0) {
        /* asleep on the wire, then a lent turn as a woken host does */
        struct pollfd p = { .fd = nic_ep_wake_arm(c->ep, 1), .events = POLLIN };
        if (p.fd >= 0)
            poll(&p, 1, 1);
        nic_ep_wake_disarm(c->ep);
        lend_counted(c->h);
    }
}

int main(void)
{
    char dir[] = "/tmp/lend-smoke-XXXXXX";
    nic_host_t *h;
    nic_ep_t *ep;
    pthread_t t[2];
    uint32_t got, n = 200000;
    void *ret[2];

    if (mkdtemp(dir) == NULL)
        return 1;
    nic_attach_opts_t o = { .node = "s", .nic = "nic0", .pers = "echo", .rundir = dir,
                            .inproc = 1 };
    if (nic_host_attach(&o, &h) != NIC_OK || h->inproc == NULL ||
        nic_ep_open(h, test_jobp(1), 64, 0, 64, &ep) != NIC_OK)
        return 2;
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, lender, h);
    got = echo_in_order(ep, n, lend_or_wait, NULL, &(lend_ctx_t){ h, ep });
    if (got != n)
        return 3;
    atomic_store(&stop, 1);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], &ret[i]);
    if (ret[0] != NULL || ret[1] != NULL)
        return 4;
    /* Then the main thread alone lends turns whenever nothing came back:
     * while a host lends, the firmware thread naps, so these entries are
     * echoed in lent turns even where, above, a busy firmware thread won
     * every trylock (a loaded machine). */
    if (echo_in_order(ep, 2000, lend_only, NULL, h) != 2000)
        return 3;
    nic_ep_close(ep);
    nic_host_detach(h);
    remove_rundir(dir);
    printf("lend_smoke: %u entries echoed in order, %ld of them in lent turns\n", got,
           atomic_load(&lent));
    return atomic_load(&lent) > 0 ? 0 : 5;
}
