/*
 * md_anyq.c - the AnyQueue (P1 §3.3.4): a receive that may be satisfied by
 * more than one subdevice (MPI_ANY_SOURCE, or a peer reachable over several
 * subdevices) is posted as one duplicate per subdevice, all sharing one
 * claim word.  The subdevice that wins the claim delivers; the multidevice
 * then copies the status into the user's request, completes it, and cancels
 * the other duplicates (MULTI_CancelAnyRequest).
 *
 * The losers are cancelled later, from md_progress, never from inside the
 * winner's completion upcall: a subdevice completing a request may hold its
 * own locks, and calling another subdevice's recv_cancel there would order
 * locks across subdevices (P1 §4 warns of exactly this deadlock).  Losers
 * cannot deliver in the meantime, because they lost the claim.
 */
#include "config.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "md_core.h"
#include "md_fwd.h"
#include "md_fail.h"
#include "md_log.h"
#include "md_thread.h"

#define MD_CLAIM_BY_CANCEL MD_MAX_SUBDEVS   /**< the user's MPI_Cancel won */

#define md_req_anyreq(_req) ((_req)->md_any)

static md_anyreq_t *md_anyreq_get(md_t *md)
{
    md_anyreq_t *a = md->any_free;

    if (a != NULL)
        md->any_free = a->next;
    else if ((a = malloc(sizeof(*a))) == NULL)
        return NULL;
    /* the duplicates' storage is filled when posted; clear the rest */
    memset(a->dups, 0, sizeof(a->dups));
    a->orig = NULL;
    a->num_dups = a->num_unresolved = 0;
    a->next = NULL;
    atomic_init(&a->claim.owner, -1);
    md->any_counters.receives++;
    md->any_counters.in_queue++;
    return a;
}

static void md_anyreq_put(md_t *md, md_anyreq_t *a)
{
    md->any_counters.in_queue--;
    a->next = md->any_free;
    md->any_free = a;
}

void md_get_anyq_counters(const md_t *md, md_anyq_counters_t *out)
{
    *out = md->any_counters;
}

static void md_anyreq_forget_dup(md_anyreq_t *a, md_request_t *dup)
{
    for (int i = 0; i < a->num_dups; i++) {
        if (a->dups[i] == dup) {
            a->dups[i] = NULL;
            a->num_unresolved--;
        }
    }
}

/* The user's request waits on a (a->orig set): a failed source can find it. */
static void md_anyreq_live(md_t *md, md_anyreq_t *a)
{
    a->live_prev = NULL;
    a->live_next = md->any_live;
    if (md->any_live != NULL)
        md->any_live->live_prev = a;
    md->any_live = a;
}

/* a->orig has just been cleared: the user's request waits no more. */
static void md_anyreq_unlive(md_t *md, md_anyreq_t *a)
{
    if (a->live_prev != NULL)
        a->live_prev->live_next = a->live_next;
    else if (md->any_live == a)
        md->any_live = a->live_next;
    if (a->live_next != NULL)
        a->live_next->live_prev = a->live_prev;
    a->live_prev = a->live_next = NULL;
}

static void md_anyreq_queue_cancel(md_t *md, md_anyreq_t *a)
{
    a->next = md->any_cancel;
    md->any_cancel = a;
}

int md_anyq_post(md_t *md, md_request_t *req, uint32_t mask, const md_comm_t *comm)
{
    md_anyreq_t *a = md_anyreq_get(md);
    int rc = MD_OK;

    if (a == NULL)
        return MD_ERR_NO_MEMORY;
    a->orig = req;
    a->comm = comm;
    req->subdev = -1;
    md_req_anyreq(req) = a;
    md_anyreq_live(md, a);

    for (int i = 0; i < md->devs.num && rc == MD_OK; i++) {
        md_subdev_t *sd = md_sd(md, i);
        md_request_t *dup;

        if (!(mask & (1u << i)))
            continue;
        if (atomic_load(&a->claim.owner) != -1)
            break;      /* an earlier duplicate matched already */
        dup = &a->dup_store[a->num_dups];
        /* the subdevice sets up its private words in irecv, as for any
         * request: copying them (128 of the request's 300 bytes, twice per
         * receive) was most of this function's time */
        memcpy(dup, req, offsetof(md_request_t, sd_priv));
        dup->internal = 1;
        dup->orig = req;
        dup->claim = &a->claim;
        dup->subdev = i;
        dup->on_complete = NULL;
        atomic_init(&dup->complete, 0);
        md_req_anyreq(dup) = a;
        a->dups[a->num_dups++] = dup;
        a->num_unresolved++;
        md->any_counters.duplicates++;
        rc = sd->ops->irecv(sd, dup);
        if (rc == MD_ERR_PEER_FAILED && req->peer_world >= 0 &&
            md_fwd_stripe_survives(md, md->node_of_rank[req->peer_world], i)) {
            /* a rail lost to the sender's node (md_fwd_stripe.c): the
             * others carry its messages */
            md_fwd_stripe_rail_lost(md, md->node_of_rank[req->peer_world], i);
            md_anyreq_forget_dup(a, dup);
            rc = MD_OK;
            continue;
        }
        if (rc != MD_OK) {
            md_log_error("posting a receive on %s failed: %s", sd->name,
                         md_status_string(rc));
            md_anyreq_forget_dup(a, dup);
        }
    }
    if (rc != MD_OK && a->orig != NULL) {
        /* take back what was posted; the caller reports the error */
        int32_t unclaimed = -1;
        if (atomic_compare_exchange_strong(&a->claim.owner, &unclaimed,
                                           MD_CLAIM_BY_CANCEL)) {
            a->orig = NULL;
            md_anyreq_unlive(md, a);
            md_anyreq_queue_cancel(md, a);
            md_anyq_drain_cancels(md);
            return rc;
        }
        rc = MD_OK;     /* a duplicate won meanwhile: the receive stands */
    }
    return rc;
}

void md_anyq_dup_complete(md_t *md, md_request_t *dup)
{
    md_anyreq_t *a = (md_anyreq_t *)dup->md_any;
    md_request_t *orig = a->orig;

    /* A rail lost under a receive from a rank still reached over the other
     * rails (md_fwd_stripe.c): this duplicate drops out, giving back the
     * claim its subdevice took to fail it (nothing ran in between: one
     * call at a time), and the others wait on. */
    if (orig != NULL && dup->status.error == MD_ERR_PEER_FAILED && orig->peer_world >= 0 &&
        a->num_unresolved > 1 &&
        md_fwd_stripe_survives(md, md->node_of_rank[orig->peer_world], dup->subdev)) {
        int32_t mine = dup->subdev;
        md_fwd_stripe_rail_lost(md, md->node_of_rank[orig->peer_world], dup->subdev);
        atomic_compare_exchange_strong(&a->claim.owner, &mine, -1);
        md_anyreq_forget_dup(a, dup);
        return;
    }

    if (orig != NULL) {
        orig->status = dup->status;
        a->orig = NULL;
        md_anyreq_unlive(md, a);
        md_anyreq_forget_dup(a, dup);
        md_anyreq_queue_cancel(md, a);
        md_request_done(md, orig);
    } else {
        /* a loser completed although it lost the claim: a subdevice bug */
        md_log_error("subdevice %d completed a duplicate receive that another "
                     "subdevice had claimed", dup->subdev);
        md_anyreq_forget_dup(a, dup);
    }
}

int md_anyq_cancel(md_t *md, md_request_t *req)
{
    md_anyreq_t *a = req->md_any;
    int32_t unclaimed = -1;

    if (!atomic_compare_exchange_strong(&a->claim.owner, &unclaimed,
                                        MD_CLAIM_BY_CANCEL))
        return MD_ERR_NOT_FOUND;    /* a subdevice matched it first */
    a->orig = NULL;
    md_anyreq_unlive(md, a);
    md_anyreq_queue_cancel(md, a);
    md_anyq_drain_cancels(md);
    req->status.cancelled = 1;
    md_request_done(md, req);
    return MD_OK;
}

void md_anyq_drain_cancels(md_t *md)
{
    md_anyreq_t *a = md->any_cancel, *keep = NULL;

    md->any_cancel = NULL;
    while (a != NULL) {
        md_anyreq_t *next = a->next;

        for (int i = 0; i < a->num_dups; i++) {
            md_request_t *dup = a->dups[i];
            md_subdev_t *sd;
            int rc;

            if (dup == NULL)
                continue;
            sd = md_sd(md, dup->subdev);
            rc = sd->ops->recv_cancel(sd, dup);
            if (rc == MD_OK)
                md_anyreq_forget_dup(a, dup);
            else if (rc != MD_ERR_NOT_FOUND)
                md_log_error("cancelling a duplicate receive on %s failed: %s",
                             sd->name, md_status_string(rc));
        }
        if (a->num_unresolved == 0) {
            md_anyreq_put(md, a);
        } else {
            a->next = keep;     /* retry on the next progress */
            keep = a;
        }
        a = next;
    }
    while (keep != NULL) {
        md_anyreq_t *next = keep->next;
        md_anyreq_queue_cancel(md, keep);
        keep = next;
    }
}

/* Whether rank's failure ends the waiting receive orig: one naming rank
 * (wild 0), or a wildcard one of a communicator that holds it (wild 1). */
static int md_anyq_ended_by(const md_anyreq_t *a, const md_request_t *orig, int32_t rank,
                            int wild)
{
    if (wild)
        return orig->match.src_rank == MD_ANY_SOURCE && md_comm_has(a->comm, rank);
    return orig->match.src_rank != MD_ANY_SOURCE && orig->peer_world == rank;
}

/* The waiting receives that rank's failure ends fail (one that a subdevice
 * has claimed already gets its message), their duplicates are cancelled. */
static void md_anyq_fail(md_t *md, int32_t rank, int status, int wild)
{
    md_anyreq_t *a = md->any_live;

    while (a != NULL) {
        md_anyreq_t *next = a->live_next;
        md_request_t *orig = a->orig;
        int32_t unclaimed = -1;

        if (orig != NULL && md_anyq_ended_by(a, orig, rank, wild) &&
            atomic_compare_exchange_strong(&a->claim.owner, &unclaimed, MD_CLAIM_BY_CANCEL)) {
            a->orig = NULL;
            md_anyreq_unlive(md, a);
            md_anyreq_queue_cancel(md, a);
            md_fail_status(orig, rank, status, wild);
            md_request_done(md, orig);
        }
        a = next;
    }
    md_anyq_drain_cancels(md);
}

void md_anyq_fail_source(md_t *md, int32_t rank, int status)
{
    md_anyq_fail(md, rank, status, 0);
}

void md_anyq_fail_wildcards(md_t *md, int32_t rank, int status)
{
    md_anyq_fail(md, rank, status, 1);
}

void md_anyq_free_all(md_t *md)
{
    md_anyq_drain_cancels(md);
    while (md->any_cancel != NULL) {     /* abandoned: subdevices are gone */
        md_anyreq_t *a = md->any_cancel;
        md->any_cancel = a->next;
        free(a);
    }
    while (md->any_free != NULL) {
        md_anyreq_t *a = md->any_free;
        md->any_free = a->next;
        free(a);
    }
}
