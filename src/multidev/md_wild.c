/*
 * md_wild.c - MPI_ANY_SOURCE receives when a rank fails.  A wildcard
 * receive can be satisfied by any member of its communicator, so no
 * subdevice fails it when one of them dies; but it may wait for exactly
 * that rank's message, and then it would wait for ever.  As ULFM asks, once
 * a member of its communicator has failed, a wildcard receive that nothing
 * has matched fails (MD_ERR_PEER_FAILED, naming the failed rank), and a new
 * one fails at once unless a message is already there.
 *
 * The receives posted on one subdevice alone are kept here while they wait
 * (those posted on several are the AnyQueue's, md_anyq.c): a small table,
 * since few wildcard receives wait at once.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "md_core.h"
#include "md_fail.h"
#include "md_log.h"
#include "md_thread.h"

int md_comm_has(const md_comm_t *comm, int32_t rank)
{
    if (comm == NULL || comm->members == NULL)
        return 1;                      /* no communicator: every rank */
    return (comm->members[rank / 8] >> (rank % 8)) & 1;
}

int md_wild_track(md_t *md, md_request_t *req, const md_comm_t *comm)
{
    if (md->nwild == md->wild_cap) {
        int cap = md->wild_cap ? md->wild_cap * 2 : 16;
        md_wild_t *w = realloc(md->wild, (size_t)cap * sizeof(*w));
        if (w == NULL)
            return MD_ERR_NO_MEMORY;
        md->wild = w;
        md->wild_cap = cap;
    }
    md->wild[md->nwild++] = (md_wild_t){ .req = req, .comm = comm };
    req->md_flags |= MD_REQ_F_WILD;
    return MD_OK;
}

/* Entry i leaves the table (the last takes its place). */
static void md_wild_remove(md_t *md, int i)
{
    md->wild[i].req->md_flags &= (uint16_t)~MD_REQ_F_WILD;
    md->wild[i] = md->wild[--md->nwild];
}

void md_wild_untrack(md_t *md, md_request_t *req)
{
    req->md_flags &= (uint16_t)~MD_REQ_F_WILD;
    for (int i = 0; i < md->nwild; i++)
        if (md->wild[i].req == req) {
            md_wild_remove(md, i);
            return;
        }
}

void md_fail_status(md_request_t *req, int32_t rank, int status, int wildcard)
{
    req->status.error = status;
    req->status.src_world = rank;   /* a wildcard's failure names the rank too */
    if (wildcard)
        req->status.src_rank = MD_ANY_SOURCE;
}

void md_wild_fail(md_t *md, int32_t rank, int status)
{
    /* cancel first: the completion upcall changes the table */
    for (int i = 0; i < md->nwild;) {
        md_request_t *req = md->wild[i].req;
        md_subdev_t *sd = md_sd(md, req->subdev);

        if (!md_comm_has(md->wild[i].comm, rank) || sd->ops->recv_cancel(sd, req) != MD_OK) {
            i++;                       /* another communicator's, or matched already */
            continue;
        }
        md_wild_remove(md, i);
        md_fail_status(req, rank, status, 1);
        md_request_done(md, req);
    }
    md_anyq_fail_wildcards(md, rank, status);
}
