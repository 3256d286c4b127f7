/*
 * md_fwd_recv.c - the destination of forwarded messages (P1 §3.4 step 4).
 *
 * The forwarding receiver sits in the device list like a subdevice (name
 * "fwd", no module), so receives, probes, ANY_SOURCE duplicates and cancel
 * treat forwarded arrivals exactly like any other.  A message arrives when
 * its first chunk does; it then obeys the sender's sequence numbers like
 * every arrival (held back while an earlier message of the same sender is
 * still on its way), matches a posted receive or waits as unexpected, and
 * collects its remaining chunks straight into the receive buffer once
 * matched.  Chunks of one message may arrive in any order (a subdevice
 * may deliver a small system message before a large one sent earlier), and
 * so may the first chunks of different messages: the sequence numbers put
 * the messages back in order (forwarded arrivals are always checked).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "md_fail.h"
#include "md_fwd_state.h"
#include "md_log.h"
#include "md_sysmsg.h"

typedef enum md_fwd_in_state {
    MD_FWD_IN_SYSMSG,       /* a system message: handled when complete */
    MD_FWD_IN_HELD,         /* waiting for arrival_ok */
    MD_FWD_IN_UNEXPECTED,   /* in the unexpected queue */
    MD_FWD_IN_PROBED,       /* taken by improbe, awaiting imrecv */
    MD_FWD_IN_MATCHED,      /* data goes to req */
} md_fwd_in_state_t;

typedef struct md_fwd_in {
    md_mq_msg_t       mq;           /* original envelope + queue links */
    int32_t           upstream;
    int               up_subdev;
    size_t            received;
    uint8_t          *tmp;          /* data while not matched */
    md_request_t     *req;
    md_fwd_in_state_t state;
    int               acked;
    int               ack_now;      /* MD_FWD_F_ACK_NOW: the origin waits for it */
    int               striped;      /* MD_FWD_F_STRIPED: chunks may come twice */
    uint64_t         *got;          /* striped: offsets of the chunks in, ascending */
    size_t            ngot, cap_got;
    struct md_fwd_in *next;         /* all flows not finished */
    struct md_fwd_in *held_next;
} md_fwd_in_t;

typedef struct md_fwd_recv {
    md_t        *md;
    md_mq_t      q;
    md_fwd_in_t *active;
    md_fwd_in_t *held_head, *held_tail;
} md_fwd_recv_t;

static md_fwd_in_t *md_fwd_in_find(md_fwd_recv_t *fr, int32_t origin,
                                   uint64_t seq)
{
    for (md_fwd_in_t *in = fr->active; in != NULL; in = in->next)
        if (in->mq.env.src_world == origin && in->mq.env.seq == seq)
            return in;
    return NULL;
}

static void md_fwd_in_free(md_fwd_in_t *in)
{
    free(in->got);
    free(in->tmp);
    free(in);
}

/* A striped message's chunk at offset: 1 if it is new (and now recorded),
 * 0 if it came before (sent again after a rail was lost). */
static int md_fwd_in_chunk_new(md_fwd_in_t *in, uint64_t offset)
{
    size_t lo = 0, hi = in->ngot;

    while (lo < hi) {           /* chunks come mostly in order: usually at the end */
        size_t mid = lo + (hi - lo) / 2;
        if (in->got[mid] < offset)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < in->ngot && in->got[lo] == offset)
        return 0;
    if (in->ngot == in->cap_got) {
        size_t cap = in->cap_got ? 2 * in->cap_got : 64;
        uint64_t *g = realloc(in->got, cap * sizeof(*g));
        if (g == NULL) {        /* taken unrecorded: right unless it comes again */
            md_log_error("striping: no memory to record a chunk of rank %d's message",
                         in->mq.env.src_world);
            return 1;
        }
        in->got = g;
        in->cap_got = cap;
    }
    memmove(in->got + lo + 1, in->got + lo, (in->ngot - lo) * sizeof(*in->got));
    in->got[lo] = offset;
    in->ngot++;
    return 1;
}

static void md_fwd_in_unlink(md_fwd_recv_t *fr, md_fwd_in_t *in)
{
    for (md_fwd_in_t **p = &fr->active; *p != NULL; p = &(*p)->next) {
        if (*p == in) {
            *p = in->next;
            return;
        }
    }
}

static void md_fwd_in_ack(md_t *md, md_fwd_in_t *in)
{
    md_fwd_ctl_t ctl = { .origin = in->mq.env.src_world,
                         .dst = in->mq.env.dst_world, .seq = in->mq.env.seq,
                         .hop_src = md->rank };

    in->acked = 1;
    md_fwd_ack_queue(md, in->striped ? md_fwd_stripe_ack_subdev(md, in->upstream, in->up_subdev)
                                     : in->up_subdev,
                     in->upstream, &ctl, in->ack_now || (in->mq.env.flags & MD_ENV_F_SYNC));
}

/* All data in: acknowledge (a synchronous send only once matched) and
 * complete the receive if there is one. */
static void md_fwd_in_maybe_finish(md_subdev_t *sd, md_fwd_in_t *in)
{
    md_fwd_recv_t *fr = sd->priv;
    md_request_t *req = in->req;
    const md_envelope_t *env = &in->mq.env;

    if (in->received < env->size)
        return;
    if (!in->acked && (in->state == MD_FWD_IN_MATCHED ||
                       !(env->flags & MD_ENV_F_SYNC)))
        md_fwd_in_ack(fr->md, in);
    if (in->state != MD_FWD_IN_MATCHED)
        return;
    md_mq_status_from_env(env, &req->status);
    req->status.size = env->size < req->len ? env->size : req->len;
    req->status.error = env->size > req->len ? MD_ERR_TRUNCATE : MD_OK;
    sd->counters.msgs_recvd++;
    sd->counters.bytes_recvd += req->status.size;
    md_fwd_in_unlink(fr, in);
    md_fwd_in_free(in);
    sd->host->complete(sd, req);
}

/* A forwarded system message is handed to its handler once complete. */
static void md_fwd_in_sysmsg_maybe_finish(md_subdev_t *sd, md_fwd_in_t *in)
{
    md_fwd_recv_t *fr = sd->priv;

    if (in->received < in->mq.env.size)
        return;
    if (in->mq.env.tag != MD_SYSTAG_FWD_PROBE)
        md_fwd_in_ack(fr->md, in);       /* a probe's origin keeps nothing */
    md_fwd_in_unlink(fr, in);
    md_sysmsg_dispatch(fr->md, sd, &in->mq.env, in->tmp);
    md_fwd_in_free(in);
}

static void md_fwd_in_bind(md_subdev_t *sd, md_fwd_in_t *in, md_request_t *req)
{
    /* chunks may have come out of order: copy the whole prefix that fits;
     * parts still missing are written straight to req->buf later */
    size_t have = in->mq.env.size < req->len ? in->mq.env.size : req->len;

    in->state = MD_FWD_IN_MATCHED;
    in->req = req;
    if (have > 0 && in->tmp != NULL)
        memcpy(req->buf, in->tmp, have);
    free(in->tmp);
    in->tmp = NULL;
    md_fwd_in_maybe_finish(sd, in);
}

static void md_fwd_in_arrive(md_subdev_t *sd, md_fwd_in_t *in)
{
    md_fwd_recv_t *fr = sd->priv;
    md_request_t *req = md_mq_take_posted(&fr->q, &in->mq.env, sd->index);

    sd->host->arrived(sd, &in->mq.env);
    if (req != NULL) {
        md_fwd_in_bind(sd, in, req);
        return;
    }
    in->state = MD_FWD_IN_UNEXPECTED;
    sd->counters.unexpected++;
    md_mq_push_unexpected(&fr->q, &in->mq);
    md_fwd_in_maybe_finish(sd, in);
}

/* Takes in off the held list. */
static void md_fwd_in_unhold(md_fwd_recv_t *fr, md_fwd_in_t *in)
{
    md_fwd_in_t *prev = NULL;

    for (md_fwd_in_t *h = fr->held_head; h != NULL; prev = h, h = h->held_next) {
        if (h != in)
            continue;
        if (prev != NULL)
            prev->held_next = in->held_next;
        else
            fr->held_head = in->held_next;
        if (fr->held_tail == in)
            fr->held_tail = prev;
        return;
    }
}

/* Lets held arrivals in once their predecessors have arrived. */
static int md_fwd_release_held(md_subdev_t *sd)
{
    md_fwd_recv_t *fr = sd->priv;
    int released = 0, progress = 1;

    while (progress) {
        progress = 0;
        for (md_fwd_in_t *in = fr->held_head; in != NULL; in = in->held_next) {
            if (!sd->host->arrival_ok(sd, &in->mq.env))
                continue;
            md_fwd_in_unhold(fr, in);
            md_fwd_in_arrive(sd, in);
            released++;
            progress = 1;
            break;      /* the list changed; rescan from the head */
        }
    }
    return released;
}

/* The first chunk of a message to arrive (whichever it is) creates it; a
 * user message then waits in the held list for its turn in the sender's
 * sequence. */
static md_fwd_in_t *md_fwd_in_new(md_fwd_recv_t *fr, md_subdev_t *in_sd,
                                  const md_fwd_hdr_t *hdr)
{
    md_fwd_in_t *in = calloc(1, sizeof(*in));

    /* a system message is handed over from tmp; a user message gets one
     * only for data that comes before its receive (md_fwd_in_store) */
    if (in == NULL ||
        (hdr->env.tag < 0 && (in->tmp = malloc(hdr->env.size ? hdr->env.size : 1)) == NULL)) {
        free(in);
        md_log_error("forwarding: no memory for a %llu-byte message from rank "
                     "%d", (unsigned long long)hdr->env.size, hdr->env.src_world);
        return NULL;
    }
    in->mq.env = hdr->env;
    in->ack_now = !!(hdr->flags & MD_FWD_F_ACK_NOW);
    in->striped = !!(hdr->flags & MD_FWD_F_STRIPED);
    in->upstream = hdr->hop_src;
    in->up_subdev = in_sd->index;
    in->next = fr->active;
    fr->active = in;
    if (hdr->env.tag < 0) {
        in->state = MD_FWD_IN_SYSMSG;
        return in;
    }
    in->state = MD_FWD_IN_HELD;
    if (fr->held_tail != NULL)
        fr->held_tail->held_next = in;
    else
        fr->held_head = in;
    fr->held_tail = in;
    return in;
}

/* A chunk's bytes to their place: the receive's buffer once matched, else
 * the message's own buffer, made at its first bytes; -1 (said) without
 * memory for it. */
static int md_fwd_in_store(md_fwd_in_t *in, const md_fwd_hdr_t *hdr, const void *data)
{
    if (in->state == MD_FWD_IN_MATCHED) {
        if (hdr->offset < in->req->len) {
            size_t n = in->req->len - hdr->offset;
            memcpy((uint8_t *)in->req->buf + hdr->offset, data, n < hdr->len ? n : hdr->len);
        }
        return 0;
    }
    if (hdr->len == 0)
        return 0;
    if (in->tmp == NULL && (in->tmp = malloc(in->mq.env.size)) == NULL) {
        md_log_error("forwarding: no memory for a %llu-byte message from rank %d; its "
                     "chunk is dropped", (unsigned long long)in->mq.env.size,
                     in->mq.env.src_world);
        return -1;
    }
    memcpy(in->tmp + hdr->offset, data, hdr->len);
    return 0;
}

void md_fwd_recv_data(md_t *md, md_subdev_t *in_sd, const md_fwd_hdr_t *hdr,
                      const void *data)
{
    md_subdev_t *sd = md->fwd_index >= 0 ? md_sd(md, md->fwd_index) : NULL;
    md_fwd_recv_t *fr = sd ? sd->priv : NULL;
    md_fwd_in_t *in;

    if (fr == NULL) {
        md_log_error("a message from rank %d was forwarded to this rank, but "
                     "the node configuration expects no forwarded arrivals "
                     "('fwd' in its arrive lines); dropped", hdr->env.src_world);
        return;
    }
    in = md_fwd_in_find(fr, hdr->env.src_world, hdr->env.seq);
    if (in == NULL)
        in = md_fwd_in_new(fr, in_sd, hdr);
    if (in == NULL)
        return;
    if (in->striped && !md_fwd_in_chunk_new(in, hdr->offset))
        return;         /* a chunk sent again after a rail was lost */
    /* Chunks may come in any order (a subdevice delivers a small system
     * message before a large one sent earlier); each has its own place. */
    if (hdr->offset + hdr->len > in->mq.env.size ||
        in->received + hdr->len > in->mq.env.size) {
        md_log_error("forwarding: chunk [%llu, +%u) of a %llu-byte message "
                     "from rank %d does not fit; dropped",
                     (unsigned long long)hdr->offset, hdr->len,
                     (unsigned long long)in->mq.env.size, hdr->env.src_world);
        return;
    }
    /* a message whose turn has come and whose receive waits takes its bytes
     * straight into the receive (a chunk with bytes cannot finish it here) */
    if (hdr->len > 0 && in->state == MD_FWD_IN_HELD)
        md_fwd_release_held(sd);
    if (md_fwd_in_store(in, hdr, data) != 0)
        return;
    in->received += hdr->len;
    if (in->state == MD_FWD_IN_SYSMSG)
        md_fwd_in_sysmsg_maybe_finish(sd, in);
    else if (in->state == MD_FWD_IN_HELD)
        md_fwd_release_held(sd);
    else
        md_fwd_in_maybe_finish(sd, in);
}


typedef struct md_fwd_fail_ctx {
    md_subdev_t *sd;
    int          status;
} md_fwd_fail_ctx_t;

static void md_fwd_fail_req(void *arg, md_request_t *req)
{
    md_fwd_fail_ctx_t *f = arg;

    req->status.error = f->status;
    f->sd->host->complete(f->sd, req);
}

void md_fwd_recv_fail_source(md_subdev_t *sd, int32_t rank, int status)
{
    md_fwd_recv_t *fr = sd->priv;
    md_fwd_fail_ctx_t f = { sd, status };
    md_reqlist_t gone;
    md_request_t *req;

    if (fr == NULL)
        return;
    /* Messages it had not finished sending: they never will. */
    for (md_fwd_in_t **p = &fr->active; *p != NULL;) {
        md_fwd_in_t *in = *p;
        if (in->mq.env.src_world != rank || in->received >= in->mq.env.size) {
            p = &in->next;
            continue;
        }
        *p = in->next;
        if (in->state == MD_FWD_IN_HELD)
            md_fwd_in_unhold(fr, in);
        else if (in->state == MD_FWD_IN_UNEXPECTED)
            md_mq_remove_unexpected(&fr->q, &in->mq);
        else if (in->state == MD_FWD_IN_MATCHED)
            md_fwd_fail_req(&f, in->req);
        md_fwd_in_free(in);
    }
    /* Receives that only it could match, unless one of its messages that
     * did arrive whole is theirs (md_fwd_recv_irecv takes those). */
    md_mq_remove_posted_from(&fr->q, sd->index, rank, &gone);
    while ((req = md_reqlist_pop(&gone)) != NULL)
        md_fwd_fail_req(&f, req);
}

void md_fwd_recv_foreach_posted(md_subdev_t *sd, void (*fn)(void *arg, md_request_t *req),
                                void *arg)
{
    md_fwd_recv_t *fr = sd->priv;

    if (fr != NULL)
        md_mq_foreach_posted(&fr->q, fn, arg);
}

/* ---- the receiver's SDI operations ---------------------------------- */

static int md_fwd_recv_init(md_subdev_t *sd, const md_subdev_init_args_t *args,
                            void *card, size_t *card_len)
{
    md_fwd_recv_t *fr = calloc(1, sizeof(*fr));

    (void)args; (void)card;
    if (fr == NULL)
        return MD_ERR_NO_MEMORY;
    fr->md = sd->host_ctx;
    md_mq_init(&fr->q);
    sd->priv = fr;
    sd->attr.eager_limit = 0;
    *card_len = 0;
    return MD_OK;
}

static int md_fwd_recv_connect(md_subdev_t *sd, const md_card_table_t *cards)
{
    (void)sd; (void)cards;
    return MD_OK;
}

static int md_fwd_recv_finalize(md_subdev_t *sd)
{
    md_fwd_recv_t *fr = sd->priv;

    while (fr->active != NULL) {
        md_fwd_in_t *in = fr->active;
        fr->active = in->next;
        md_fwd_in_free(in);
    }
    free(fr);
    sd->priv = NULL;
    return MD_OK;
}

static int md_fwd_recv_isend(md_subdev_t *sd, md_request_t *req)
{
    (void)req;
    sd->host->log(sd, MD_LOG_ERROR, "the forwarding receiver sends nothing itself");
    return MD_ERR_UNSUPPORTED;
}

static int md_fwd_recv_irecv(md_subdev_t *sd, md_request_t *req)
{
    md_fwd_recv_t *fr = sd->priv;
    md_mq_msg_t *m = md_mq_take_unexpected(&fr->q, req, sd->index);
    int failed;

    if (m != NULL) {
        md_fwd_in_bind(sd, (md_fwd_in_t *)m, req);
        return MD_OK;
    }
    if (md_mq_dropped(req))
        return MD_OK;                   /* another subdevice has it */
    failed = req->match.src_rank != MD_ANY_SOURCE ? md_rank_failed(fr->md, req->peer_world)
                                                  : MD_OK;
    if (failed != MD_OK) {
        if (md_mq_claim(req, sd->index)) {
            req->status.error = failed;  /* nothing of it here, and nothing will come */
            sd->host->complete(sd, req);
        }
        return MD_OK;
    }
    md_mq_post(&fr->q, req);
    return MD_OK;
}

static int md_fwd_recv_cancel(md_subdev_t *sd, md_request_t *req)
{
    md_fwd_recv_t *fr = sd->priv;

    return md_mq_cancel_posted(&fr->q, req);
}

static int md_fwd_recv_iprobe(md_subdev_t *sd, const md_match_t *match,
                              int *flag, md_recv_status_t *status)
{
    md_fwd_recv_t *fr = sd->priv;

    md_mq_probe(&fr->q, match, sd->index, flag, status);
    return MD_OK;
}

static int md_fwd_recv_improbe(md_subdev_t *sd, const md_match_t *match,
                               int *flag, md_request_t *msg)
{
    md_fwd_recv_t *fr = sd->priv;
    md_fwd_in_t *in = (md_fwd_in_t *)md_mq_improbe(&fr->q, match, sd->index, flag, &msg->status);

    if (in == NULL)
        return MD_OK;
    in->state = MD_FWD_IN_PROBED;
    memcpy(&msg->sd_priv[0], &in, sizeof(in));
    return MD_OK;
}

static int md_fwd_recv_imrecv(md_subdev_t *sd, md_request_t *msg,
                              md_request_t *req)
{
    md_fwd_in_t *in;

    memcpy(&in, &msg->sd_priv[0], sizeof(in));
    md_fwd_in_bind(sd, in, req);
    return MD_OK;
}

static int md_fwd_recv_progress(md_subdev_t *sd)
{
    md_fwd_recv_t *fr = sd->priv;

    return fr->held_head != NULL ? md_fwd_release_held(sd) : 0;
}

const md_subdev_ops_t md_fwd_recv_ops = {
    .abi_version = MD_SDI_ABI_VERSION,
    .name = MD_NODECONF_FORWARDED,
    .init = md_fwd_recv_init,
    .connect = md_fwd_recv_connect,
    .finalize = md_fwd_recv_finalize,
    .isend = md_fwd_recv_isend,
    .irecv = md_fwd_recv_irecv,
    .recv_cancel = md_fwd_recv_cancel,
    .iprobe = md_fwd_recv_iprobe,
    .improbe = md_fwd_recv_improbe,
    .imrecv = md_fwd_recv_imrecv,
    .progress = md_fwd_recv_progress,
};
