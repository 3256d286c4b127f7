/* myri_gam_impl.h - inside the GAM host library: its state, and the host
 * side of the timing model (myri_gam_time.c) that myri_gam.c calls. */
#ifndef MYRI_GAM_IMPL_H
#define MYRI_GAM_IMPL_H

#include "myri_gam.h"

struct myri_gam {
    nic_ep_t          *ep;
    nic_mr_t           copy;            /* send pages, then receive pages */
    uint32_t           sq_n, cq_n, recv_offset;
    int32_t            my_vnn, num_vnn;
    uint32_t           credits_init, flush_threshold;
    uint64_t           flush_ns;
    int32_t           *credits;         /* [num_vnn] */
    uint32_t          *owed;            /* [num_vnn] */
    uint64_t          *owed_since;      /* [num_vnn] */
    int32_t           *debtors;         /* vnns that may be owed credits */
    uint8_t           *listed;          /* [num_vnn]: on the debtors list */
    uint32_t           ndebtors;
    myri_gam_handler_t handler[MYRI_NUM_HANDLERS];
    void              *handler_arg[MYRI_NUM_HANDLERS];
    myri_gam_error_t   on_error;
    void              *error_arg;
    myri_host_timing_t t;
    uint64_t          *sq_stamp;        /* [sq_n], then cq_stamp [cq_n]: in the */
    const uint64_t    *cq_stamp;        /* copy block (myri_wire.h, "stamps") */
    uint64_t           polling_since;   /* the host has polled and found nothing
                                           since then (0: it has not) */
    uint64_t           busy_until;      /* the last poll's read ends then */
    uint64_t           cur_valid, cur_found;   /* of the entry being handled */
    int                lends;           /* the firmware runs in this process */
    uint64_t           yield_ns;        /* running mean of a yield */
    uint64_t           turn_ns;         /* running mean of a lent turn that did work */
    myri_gam_stats_t   st;
};

/* The host is stalled until end (CLOCK_MONOTONIC ns; 0: not at all). */
/* lend: an in-process firmware may take turns meanwhile (see there) */
void gam_wait_until(myri_gam_t *g, uint64_t end, int lend);
/* One turn for an in-process firmware; the events it handled (0 if the
 * firmware runs elsewhere). */
int gam_lend(myri_gam_t *g);
/* When an out-queue entry with len bytes of payload, begun now, would be
 * complete in NIC SRAM (0 without the host timing). */
uint64_t gam_post_ready(myri_gam_t *g, size_t len);
/* The next in-queue entry the host's poll finds and when (*found), or NULL;
 * with lend, an in-process firmware gets a turn during the poll's read. */
nic_entry_t *gam_poll_entry(myri_gam_t *g, int lend, uint64_t *found);
/* The rest of a valid entry's read, after the poll that found it. */
uint64_t gam_dequeue_ns(const myri_gam_t *g);

#endif /* MYRI_GAM_IMPL_H */
