/* vipl_cq.c - completion queues: a core endpoint whose CQ ring the NIC
 * fills with (VI, queue) entries for every VI queue bound to it.  As in
 * VIA, an entry only says where to look: the caller reaps the descriptor
 * with vipl_send_done / vipl_recv_done.  An overflowed CQ is in the error
 * state: VIPL_ERROR_RESOURCE once its remaining entries are taken. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "vipl_impl.h"

vipl_result_t vipl_create_cq(vipl_nic_t *nic, uint32_t entries, vipl_cq_t **cq_p)
{
    vipl_cq_t *cq;
    int rc;

    if (nic == NULL || cq_p == NULL || entries == 0 || (entries & (entries - 1)) != 0)
        return VIPL_INVALID_PARAMETER;
    cq = calloc(1, sizeof(*cq));
    if (cq == NULL)
        return VIPL_ERROR_RESOURCE;
    cq->nic = nic;
    pthread_mutex_init(&cq->lock, NULL);
    if ((rc = nic_ep_open(nic->host, &nic->job, 1, 0, entries, &cq->ep)) != NIC_OK ||
        (rc = nic_ep_ctl(cq->ep, VIA_CTL_CQ_CREATE, NULL, 0, NULL, NULL)) != NIC_OK) {
        vipl_destroy_cq(cq);
        return vipl_from_nic(rc);
    }
    *cq_p = cq;
    return VIPL_SUCCESS;
}

vipl_result_t vipl_destroy_cq(vipl_cq_t *cq)
{
    if (cq == NULL)
        return VIPL_INVALID_PARAMETER;
    if (cq->ep != NULL)
        nic_ep_close(cq->ep);
    pthread_mutex_destroy(&cq->lock);
    free(cq);
    return VIPL_SUCCESS;
}

vipl_result_t vipl_cq_done(vipl_cq_t *cq, vipl_vi_t **vi, int *is_recv)
{
    nic_entry_t *e;
    via_cqe_t c;
    int rc, woken;

    pthread_mutex_lock(&cq->lock);
    e = nic_ep_cq_peek(cq->ep);
    if (e == NULL) {
        pthread_mutex_unlock(&cq->lock);
        if (cq->nic->timing)
            vipl_charge(cq->nic->ht.cq_done_ns);
        rc = nic_ep_check(cq->ep);
        return rc == NIC_OK ? VIPL_NOT_DONE : vipl_from_nic(rc);
    }
    memcpy(&c, e, sizeof(c));
    nic_ep_cq_release(cq->ep);
    woken = cq->waiting && vipl_host_woken(cq->nic);
    cq->waiting = 0;
    cq->wakeups += (uint64_t)woken;
    pthread_mutex_unlock(&cq->lock);
    /* A host that waited was asleep in the kernel: the NIC's interrupt and
     * the scheduler wake it before it reads the CQ. */
    if (cq->nic->timing)
        vipl_charge(cq->nic->ht.cq_done_ns + (woken ? cq->nic->ht.wake_ns : 0));
    if (vi != NULL)
        *vi = vipl_vi_lookup(cq->nic, c.vi_id);
    if (is_recv != NULL)
        *is_recv = (int)c.is_recv;
    return VIPL_SUCCESS;
}

int vipl_cq_wake_fd(vipl_cq_t *cq, int sole)
{
    int fd;
    pthread_mutex_lock(&cq->lock);
    fd = nic_ep_wake_arm(cq->ep, sole);
    pthread_mutex_unlock(&cq->lock);
    return fd;
}

void vipl_cq_wake_done(vipl_cq_t *cq)
{
    pthread_mutex_lock(&cq->lock);
    nic_ep_wake_disarm(cq->ep);
    pthread_mutex_unlock(&cq->lock);
}

void vipl_cq_wait_begin(vipl_cq_t *cq)
{
    pthread_mutex_lock(&cq->lock);
    cq->waiting = 1;
    pthread_mutex_unlock(&cq->lock);
    vipl_host_sleeps(cq->nic);
}

uint64_t vipl_cq_wakeups(vipl_cq_t *cq)
{
    uint64_t n;
    pthread_mutex_lock(&cq->lock);
    n = cq->wakeups;
    pthread_mutex_unlock(&cq->lock);
    return n;
}

/* A wait that ends without a completion woke nobody for one. */
static vipl_result_t wait_ended(vipl_cq_t *cq, vipl_result_t r)
{
    pthread_mutex_lock(&cq->lock);
    cq->waiting = 0;
    pthread_mutex_unlock(&cq->lock);
    vipl_host_awake(cq->nic);
    return r;
}

vipl_result_t vipl_cq_wait(vipl_cq_t *cq, int timeout_ms, vipl_vi_t **vi, int *is_recv)
{
    uint64_t end = timeout_ms < 0 ? UINT64_MAX : vipl_now_ns() + (uint64_t)timeout_ms * 1000000ull;

    for (;;) {
        uint32_t seen = atomic_load(&cq->ep->sh->cq_prod);
        vipl_result_t r = vipl_cq_done(cq, vi, is_recv);   /* charges the wake-up */
        uint64_t now;

        if (r == VIPL_SUCCESS)
            return r;
        if (r != VIPL_NOT_DONE)
            return wait_ended(cq, r);
        now = vipl_now_ns();
        if (now >= end)
            return wait_ended(cq, VIPL_TIMEOUT);
        vipl_cq_wait_begin(cq);
        vipl_futex_wait(cq->ep, seen, end == UINT64_MAX ? -1 : (int)((end - now) / 1000000ull) + 1);
    }
}
