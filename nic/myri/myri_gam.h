/*
 * myri_gam.h - Generic Active Messages over the emulated LANai: the host
 * library (user level, as GAM was), on top of the NIC host interface.
 *
 * Requests carry a handler index, five 64-bit arguments and up to 4 kB of
 * payload (a "medium": the handler reads it in place, in the copy-block
 * page of its in-queue entry).  Each request takes one credit toward its
 * destination; credits come back in replies.  The library replies on its
 * own: it owes the sender one credit per request handled and pays either on
 * the next request it sends to that node (piggy-backed in the descriptor's
 * aux field), or in a reply carrying several credits once a quarter of the
 * credits are owed or the oldest debt is older than the flush delay (the
 * batched acknowledgements of Split-C stores, P4).  The in-queue holds
 * 2 x credits entries per node plus the out-queue, so with credits a
 * packet never finds the in-queue full when nothing fails.
 *
 * Handlers run inside myri_gam_poll() and must not block or wait for
 * credits.  Not thread safe: one caller at a time per myri_gam_t.
 */
#ifndef MYRI_GAM_H
#define MYRI_GAM_H

#include <stddef.h>
#include <stdint.h>

#include "../core/nic_host.h"
#include "myri_wire.h"

typedef struct myri_gam myri_gam_t;

/* A request handler; payload is valid only during the call. */
typedef void (*myri_gam_handler_t)(myri_gam_t *g, void *arg, int32_t src,
                                   const myri_desc_t *d, const void *payload);
/* A send the NIC could not deliver (d->peer: destination). */
typedef void (*myri_gam_error_t)(myri_gam_t *g, void *arg, const myri_desc_t *d, int status);

/* Host-side costs of the timing model (0: off): programmed I/O to the NIC
 * and host memory copies, charged by busy-waiting. */
typedef struct myri_host_timing {
    uint32_t pio_write_ns;       /* one word written to NIC SRAM */
    uint32_t pio_read_ns;        /* one word read from NIC SRAM */
    uint32_t pagemap_ns;         /* the page-map register write per access */
    uint32_t mem_ns;             /* one main-memory access by the host CPU */
    uint32_t mem_word;           /* bytes per access in a copy */
    uint32_t entry_words;        /* words per queue entry (8 in LAM) */
} myri_host_timing_t;

typedef struct myri_gam_params {
    nic_job_t job;               /* the job whose endpoint this is */
    int32_t  my_vnn, num_vnn;
    uint32_t credits;            /* per destination */
    uint32_t sq_entries;         /* out-queue (power of two) */
    uint64_t flush_ns;           /* pay owed credits after this long */
    uint32_t reply_every;        /* pay once this many are owed (0: credits/4;
                                    1: a reply per request, as GAM) */
} myri_gam_params_t;

typedef struct myri_gam_stats {
    uint64_t requests, replies, handled, credit_waits, errors;
    uint64_t stall_turns;        /* turns of an in-process firmware that did
                                    work while the timing model stalled the host */
} myri_gam_stats_t;

int  myri_gam_open(nic_host_t *host, const myri_gam_params_t *p, myri_gam_t **g_p);
int  myri_gam_close(myri_gam_t *g);
void myri_gam_set_handler(myri_gam_t *g, unsigned idx, myri_gam_handler_t fn, void *arg);
void myri_gam_set_error(myri_gam_t *g, myri_gam_error_t fn, void *arg);
void myri_gam_set_host_timing(myri_gam_t *g, const myri_host_timing_t *t);
/* Route table (myri_peer_entry_t per vnn, sent in batches) and fabric. */
int  myri_gam_set_peers(myri_gam_t *g, uint32_t first, uint32_t count,
                        const myri_peer_entry_t *e);
int  myri_gam_fabric(myri_gam_t *g, const myri_fabric_item_t *items, size_t n);
int  myri_gam_timing(myri_gam_t *g, const myri_timing_t *t);

/* Send a request; NIC_ERR_NO_RESOURCE when no credit toward dst or the
 * out-queue is full (poll, then try again). */
int  myri_gam_request(myri_gam_t *g, int32_t dst, unsigned handler, const uint64_t args[5],
                      const void *data, uint32_t len);
/* Inside a request handler from dst: reply with a handler of its own (run
 * at dst inside its poll) carrying the credits owed to dst. */
int  myri_gam_reply(myri_gam_t *g, int32_t dst, unsigned handler, const uint64_t args[5],
                    const void *data, uint32_t len);
/* memcpy by the host, charged at the timing model's main-memory speed
 * (a bulk message's copy to its destination). */
void myri_gam_host_copy(myri_gam_t *g, void *dst, const void *src, size_t len);
/* The host computes for ns (a benchmark's delta-time): a deadline; the
 * core is yielded meanwhile while the rest is long, for an emulated NIC or
 * host that shares it, as that one would run on its own processor. */
void myri_gam_host_work(myri_gam_t *g, uint64_t ns);
/* Would a request to dst go out now? */
int  myri_gam_can_request(myri_gam_t *g, int32_t dst);
/* Run handlers for up to max arrivals, pay credits; returns the number of
 * arrivals, or a negative status if the NIC failed.  With the node's
 * firmware in this process (nic_attach_opts_t.inproc) it first lends the
 * firmware a turn (nic_host_lend), and under the timing model the host's
 * modelled stalls (PIO, copies, myri_gam_host_work) lend it turns too. */
int  myri_gam_poll(myri_gam_t *g, int max);
/* Inside a handler, under the timing model: when the message became valid
 * in the in-queue (the LCP's stamp; 0: at once) and when the host's poll
 * found it (CLOCK_MONOTONIC ns; 0 without the host timing). */
void myri_gam_arrival(const myri_gam_t *g, uint64_t *valid_ns, uint64_t *found_ns);
int  myri_gam_credits(myri_gam_t *g, int32_t dst);
nic_ep_t *myri_gam_ep(myri_gam_t *g);
const myri_gam_stats_t *myri_gam_stats(myri_gam_t *g);

#endif /* MYRI_GAM_H */
