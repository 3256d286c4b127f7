/*
 * tnet.c - a test subdevice between processes of one host: AF_UNIX
 * datagram sockets in the abstract namespace, one per rank, named after the
 * job.  Reliable and ordered (the kernel guarantees both for local
 * datagrams), eager only, messages cut into datagrams of at most 32 KiB.
 * It exists so that the multidevice's own logic (forwarding, ordering
 * across subdevices, ANY_SOURCE across processes) can be tested across
 * emulated nodes without depending on the real subdevices.  Parameter
 * reorder=1 swaps each sender's system messages pairwise, as a real
 * subdevice may (an eager one overtaking a rendezvous one).  A peer whose
 * socket is gone (its process died) is found when a send to it is
 * refused: what waits on it fails and the multidevice is told
 * (peer_failed), as a real subdevice does.  Parameter cut_after=N cuts the
 * link under this rank once it has sent N system messages: its socket is
 * closed, so the next one, and everything for another rank after it, fails
 * as if every peer were gone, and the peers find it gone at their next send
 * to it (a rail cut in the middle of a striped stream).  Parameter
 * hold_ms=M keeps every system message in the send queue for M ms before
 * it leaves (a slow rail whose sends complete late: striping passes over a
 * rail with chunks out and no completion for 50 ms).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "md_kit.h"
#include "md_mq.h"
#include "md_param.h"
#include "md_sdi.h"

#define TNET_FRAG 32768

/* Built as tnet, and as tneta/tnetb for two independent networks. */
#ifndef TNET_NAME
#define TNET_NAME tnet
#endif
#define TNET_STR2(x) #x
#define TNET_STR(x) TNET_STR2(x)

typedef struct tnet_frag_hdr {
    md_envelope_t env;
    uint64_t      offset;
    uint32_t      len;
    uint32_t      pad;
} tnet_frag_hdr_t;

typedef struct tnet_msg {       /* an arrived message */
    md_mq_msg_t       mq;
    uint8_t          *data;
    size_t            have;
    struct tnet_msg  *held_next;
} tnet_msg_t;

typedef struct tnet_out {       /* a send in progress */
    md_request_t    *req;
    size_t           sent;
    int              started;
    uint64_t         ready_ns;  /* hold_ms: not before then */
    struct tnet_out *next;
} tnet_out_t;

typedef struct tnet {
    int           fd;
    int           rank, size;
    char          job[64];
    md_mq_t       q;
    tnet_out_t   *out_head, *out_tail;
    tnet_msg_t  **partial;      /* [size] message being reassembled */
    tnet_msg_t  **held;         /* [size] complete, waiting for their turn */
    tnet_msg_t  **sys_held;     /* [size] reorder=1: the system message the
                                   next one overtakes */
    int           reorder;
    long          cut_after;    /* 0: never */
    uint64_t      hold_ns;      /* system messages wait this long; 0: none */
    long          sys_sent;
    uint8_t      *rx;
    uint8_t      *failed;       /* [size] its socket is gone */
} tnet_t;

static socklen_t tnet_addr(const tnet_t *t, int rank, struct sockaddr_un *a)
{
    memset(a, 0, sizeof(*a));
    a->sun_family = AF_UNIX;
    int n = snprintf(a->sun_path + 1, sizeof(a->sun_path) - 1, "md-" TNET_STR(TNET_NAME) "-%s-%d",
                     t->job, rank);
    return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
}

static int tnet_init(md_subdev_t *sd, const md_subdev_init_args_t *args,
                     void *card, size_t *card_len)
{
    tnet_t *t = calloc(1, sizeof(*t));
    struct sockaddr_un a;
    socklen_t alen;
    int bufsz = 4 << 20;

    (void)card;
    if (t == NULL)
        return MD_ERR_NO_MEMORY;
    t->rank = args->world_rank;
    t->size = args->world_size;
    snprintf(t->job, sizeof(t->job), "%s", args->job_id);
    md_mq_init(&t->q);
    t->partial = calloc((size_t)t->size, sizeof(*t->partial));
    t->held = calloc((size_t)t->size, sizeof(*t->held));
    t->sys_held = calloc((size_t)t->size, sizeof(*t->sys_held));
    t->reorder = md_param_get(args, "reorder") != NULL &&
                 atoi(md_param_get(args, "reorder")) > 0;
    t->cut_after = md_param_get(args, "cut_after") != NULL
                       ? atol(md_param_get(args, "cut_after")) : 0;
    t->hold_ns = md_param_get(args, "hold_ms") != NULL
                     ? (uint64_t)atol(md_param_get(args, "hold_ms")) * 1000000u : 0;
    t->rx = malloc(sizeof(tnet_frag_hdr_t) + TNET_FRAG);
    t->failed = calloc((size_t)t->size, 1);
    t->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (t->partial == NULL || t->held == NULL || t->sys_held == NULL ||
        t->rx == NULL || t->failed == NULL || t->fd < 0)
        goto err;
    setsockopt(t->fd, SOL_SOCKET, SO_RCVBUF, &bufsz, sizeof(bufsz));
    alen = tnet_addr(t, t->rank, &a);
    if (bind(t->fd, (struct sockaddr *)&a, alen) != 0) {
        sd->host->log(sd, 0, "bind %s: %s", a.sun_path + 1, strerror(errno));
        goto err;
    }
    sd->priv = t;
    /* eager_limit= only changes what the multidevice is told (tnet sends
     * every message eagerly): it cuts forwarded chunks by it */
    sd->attr.eager_limit = md_param_get(args, "eager_limit") != NULL
                               ? (size_t)atol(md_param_get(args, "eager_limit"))
                               : SIZE_MAX;
    *card_len = 0;
    return MD_OK;
err:
    if (t->fd >= 0)
        close(t->fd);
    free(t->partial);
    free(t->held);
    free(t->sys_held);
    free(t->rx);
    free(t->failed);
    free(t);
    return MD_ERR_IO;
}

static int tnet_connect(md_subdev_t *sd, const md_card_table_t *cards)
{
    (void)sd; (void)cards;
    return MD_OK;
}

static void tnet_msg_free(tnet_msg_t *m)
{
    free(m->data);
    free(m);
}

static void tnet_unexpected_free(void *unused, md_mq_msg_t *m)
{
    (void)unused;
    tnet_msg_free((tnet_msg_t *)m);
}

/* The peer's socket is gone: its queued sends and the receives only it
 * could match fail, and the multidevice hears of it once. */
static void tnet_fail_peer(md_subdev_t *sd, int peer)
{
    tnet_t *t = sd->priv;
    tnet_out_t **p = &t->out_head, *last = NULL;
    md_reqlist_t gone;
    md_request_t *req;

    if (t->failed[peer])
        return;
    t->failed[peer] = 1;
    sd->host->log(sd, 1, "rank %d is gone (its socket refuses)", peer);
    while (*p != NULL) {
        tnet_out_t *o = *p;
        if (o->req->peer_world != peer) {
            last = o;
            p = &o->next;
            continue;
        }
        *p = o->next;
        o->req->status.error = MD_ERR_PEER_FAILED;
        sd->host->complete(sd, o->req);
        free(o);
    }
    t->out_tail = last;
    md_mq_remove_posted_from(&t->q, sd->index, peer, &gone);
    while ((req = md_reqlist_pop(&gone)) != NULL) {
        req->status.error = MD_ERR_PEER_FAILED;
        sd->host->complete(sd, req);
    }
    sd->host->peer_failed(sd, peer, MD_ERR_PEER_FAILED);
}

static int tnet_finalize(md_subdev_t *sd)
{
    tnet_t *t = sd->priv;

    md_mq_remove_unexpected_if(&t->q, NULL, NULL, tnet_unexpected_free, NULL);
    for (int r = 0; r < t->size; r++) {
        if (t->partial[r] != NULL)
            tnet_msg_free(t->partial[r]);
        if (t->sys_held[r] != NULL)
            tnet_msg_free(t->sys_held[r]);
        while (t->held[r] != NULL) {
            tnet_msg_t *m = t->held[r];
            t->held[r] = m->held_next;
            tnet_msg_free(m);
        }
    }
    while (t->out_head != NULL) {
        tnet_out_t *o = t->out_head;
        t->out_head = o->next;
        free(o);
    }
    if (t->fd >= 0)
        close(t->fd);
    free(t->partial);
    free(t->held);
    free(t->sys_held);
    free(t->rx);
    free(t->failed);
    free(t);
    return MD_OK;
}

/* cut_after: the link is cut; every other rank is gone for this rank. */
static int tnet_cut(md_subdev_t *sd)
{
    tnet_t *t = sd->priv;

    sd->host->log(sd, 1, "cut_after=%ld: the link is cut", t->cut_after);
    close(t->fd);
    t->fd = -1;
    for (int r = 0; r < t->size; r++)
        if (r != t->rank)
            tnet_fail_peer(sd, r);
    return 1;
}

static uint64_t tnet_now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Pushes queued sends out until the socket is full.  Sends leave in posting
 * order, whole, so a receiver sees each sender's fragments in sequence. */
static int tnet_push(md_subdev_t *sd)
{
    tnet_t *t = sd->priv;
    int events = 0;

    while (t->out_head != NULL) {
        tnet_out_t *o = t->out_head;
        md_request_t *req = o->req;
        struct sockaddr_un a;
        socklen_t alen = tnet_addr(t, req->peer_world, &a);

        if (o->ready_ns != 0 && tnet_now_ns() < o->ready_ns)
            return events;                       /* hold_ms: not yet */
        if (t->cut_after > 0 && req->env.tag < 0 && !o->started &&
            ++t->sys_sent > t->cut_after)
            return events + tnet_cut(sd);        /* fails req too */
        while (o->sent < req->len || !o->started) {
            size_t n = req->len - o->sent > TNET_FRAG ? TNET_FRAG : req->len - o->sent;
            tnet_frag_hdr_t h = { .env = req->env, .offset = o->sent, .len = (uint32_t)n };
            struct iovec iov[2] = {
                { &h, sizeof(h) }, { (uint8_t *)req->buf + o->sent, n } };
            struct msghdr mh = { .msg_name = &a, .msg_namelen = alen,
                                 .msg_iov = iov, .msg_iovlen = 2 };
            if (sendmsg(t->fd, &mh, 0) < 0) {
                if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS)
                    return events;
                if (errno == ECONNREFUSED) {
                    tnet_fail_peer(sd, req->peer_world);    /* fails req too */
                    return events + 1;
                }
                sd->host->log(sd, 0, "sendmsg to rank %d: %s", req->peer_world,
                              strerror(errno));
                req->status.error = MD_ERR_IO;
                break;
            }
            o->sent += n;
            o->started = 1;
        }
        t->out_head = o->next;
        if (t->out_head == NULL)
            t->out_tail = NULL;
        free(o);
        md_counters_complete(&sd->counters, req);    /* a system message apart */
        sd->counters.eager_sent += req->env.tag >= 0;
        /* and its bytes too, unlike the real subdevices: stripe_test reads
         * each rail's share of the chunks (system messages) from them */
        if (req->env.tag < 0)
            sd->counters.bytes_sent += req->len;
        sd->host->complete(sd, req);
        events++;
    }
    return events;
}

static int tnet_isend(md_subdev_t *sd, md_request_t *req)
{
    tnet_t *t = sd->priv;
    tnet_out_t *o = calloc(1, sizeof(*o));

    if (o == NULL)
        return MD_ERR_NO_MEMORY;
    if (req->env.flags & MD_ENV_F_SYNC) {
        free(o);
        sd->host->log(sd, 0, "tnet has no synchronous sends");
        return MD_ERR_UNSUPPORTED;
    }
    if (t->failed[req->peer_world]) {
        free(o);
        return MD_ERR_PEER_FAILED;
    }
    o->req = req;
    if (t->hold_ns > 0 && req->env.tag < 0)
        o->ready_ns = tnet_now_ns() + t->hold_ns;
    if (t->out_tail != NULL)
        t->out_tail->next = o;
    else
        t->out_head = o;
    t->out_tail = o;
    tnet_push(sd);
    return MD_OK;
}

static void tnet_fill_status(tnet_msg_t *m, md_request_t *req)
{
    md_mq_status_from_env(&m->mq.env, &req->status);
    req->status.size = m->mq.env.size < req->len ? m->mq.env.size : req->len;
    req->status.error = m->mq.env.size > req->len ? MD_ERR_TRUNCATE : MD_OK;
}

static void tnet_deliver(md_subdev_t *sd, tnet_msg_t *m, md_request_t *req)
{
    tnet_fill_status(m, req);
    memcpy(req->buf, m->data, req->status.size);
    sd->counters.msgs_recvd++;
    sd->counters.bytes_recvd += req->status.size;
    tnet_msg_free(m);
    sd->host->complete(sd, req);
}

/* Matches a user message whose turn has come, or queues it unexpected. */
static void tnet_match(md_subdev_t *sd, tnet_msg_t *m)
{
    tnet_t *t = sd->priv;
    md_request_t *req = md_mq_take_posted(&t->q, &m->mq.env, sd->index);

    sd->host->arrived(sd, &m->mq.env);
    if (req != NULL) {
        tnet_deliver(sd, m, req);
    } else {
        sd->counters.unexpected++;
        md_mq_push_unexpected(&t->q, &m->mq);
    }
}

/* Lets a sender's held messages in, in order, while their turn has come. */
static int tnet_release(md_subdev_t *sd, int src)
{
    tnet_t *t = sd->priv;
    int events = 0;

    while (t->held[src] != NULL && sd->host->arrival_ok(sd, &t->held[src]->mq.env)) {
        tnet_msg_t *m = t->held[src];
        t->held[src] = m->held_next;
        tnet_match(sd, m);
        events++;
    }
    return events;
}

static void tnet_sysmsg(md_subdev_t *sd, tnet_msg_t *m)
{
    sd->counters.sysmsgs_recvd++;
    sd->host->sysmsg(sd, &m->mq.env, m->data);
    tnet_msg_free(m);
}

/* A complete message from the socket: a system message is handled at once;
 * a user message joins its sender's queue, which is released in sequence
 * (arrival_ok), so a message that overtook another on a different
 * subdevice waits for it. */
static int tnet_arrive(md_subdev_t *sd, int src, tnet_msg_t *m)
{
    tnet_t *t = sd->priv;
    tnet_msg_t **tail = &t->held[src];

    if (m->mq.env.tag < 0) {
        if (t->reorder && t->sys_held[src] == NULL) {
            t->sys_held[src] = m;       /* the next one goes first */
            return 0;
        }
        tnet_sysmsg(sd, m);
        if (t->sys_held[src] != NULL) {
            tnet_sysmsg(sd, t->sys_held[src]);
            t->sys_held[src] = NULL;
        }
        return 1;
    }
    while (*tail != NULL)
        tail = &(*tail)->held_next;
    m->held_next = NULL;
    *tail = m;
    return tnet_release(sd, src);
}

static int tnet_progress(md_subdev_t *sd)
{
    tnet_t *t = sd->priv;
    int events = tnet_push(sd);

    for (int r = 0; r < t->size; r++)
        if (t->held[r] != NULL)
            events += tnet_release(sd, r);
    for (;;) {
        ssize_t n = recv(t->fd, t->rx, sizeof(tnet_frag_hdr_t) + TNET_FRAG, 0);
        tnet_frag_hdr_t h;
        tnet_msg_t *m;
        int src;

        if (n < (ssize_t)sizeof(h))
            break;
        memcpy(&h, t->rx, sizeof(h));
        src = h.env.src_world;      /* the process that sent the datagram */
        m = t->partial[src];
        if (m == NULL) {
            m = calloc(1, sizeof(*m));
            m->data = malloc(h.env.size ? h.env.size : 1);
            m->mq.env = h.env;
            t->partial[src] = m;
        }
        memcpy(m->data + h.offset, t->rx + sizeof(h), h.len);
        m->have += h.len;
        if (m->have == m->mq.env.size) {
            t->partial[src] = NULL;
            tnet_arrive(sd, src, m);
        }
        events++;
    }
    if (events == 0)            /* quiet: nothing left to overtake them */
        for (int r = 0; r < t->size; r++)
            if (t->sys_held[r] != NULL) {
                tnet_sysmsg(sd, t->sys_held[r]);
                t->sys_held[r] = NULL;
                events++;
            }
    return events;
}

static int tnet_irecv(md_subdev_t *sd, md_request_t *req)
{
    tnet_t *t = sd->priv;
    md_mq_msg_t *m = md_mq_take_unexpected(&t->q, req, sd->index);

    if (m != NULL)
        tnet_deliver(sd, (tnet_msg_t *)m, req);
    else if (!md_mq_dropped(req))       /* dropped: another subdevice has it */
        md_mq_post(&t->q, req);
    return MD_OK;
}

static int tnet_recv_cancel(md_subdev_t *sd, md_request_t *req)
{
    return md_mq_cancel_posted(&((tnet_t *)sd->priv)->q, req);
}

static int tnet_iprobe(md_subdev_t *sd, const md_match_t *match, int *flag,
                       md_recv_status_t *st)
{
    md_mq_probe(&((tnet_t *)sd->priv)->q, match, sd->index, flag, st);
    return MD_OK;
}

static int tnet_improbe(md_subdev_t *sd, const md_match_t *match, int *flag,
                        md_request_t *msg)
{
    tnet_t *t = sd->priv;
    md_mq_msg_t *m = md_mq_improbe(&t->q, match, sd->index, flag, &msg->status);

    if (m == NULL)
        return MD_OK;
    memcpy(&msg->sd_priv[0], &m, sizeof(m));
    return MD_OK;
}

static int tnet_imrecv(md_subdev_t *sd, md_request_t *msg, md_request_t *req)
{
    tnet_msg_t *m;

    memcpy(&m, &msg->sd_priv[0], sizeof(m));
    tnet_deliver(sd, m, req);
    return MD_OK;
}

/* Sleep on the socket, unless sends are waiting for room (then poll). */
static int tnet_wait_fd(md_subdev_t *sd, unsigned flags)
{
    tnet_t *t = sd->priv;
    int held = 0;

    (void)flags;

    for (int r = 0; r < t->size && t->reorder; r++)
        held |= t->sys_held[r] != NULL;
    return t->out_head != NULL || held ? -1 : t->fd;
}

MD_LOAD_DEVICE_PTR(TNET_NAME);
MD_LOAD_DEVICE_PTR(TNET_NAME)
{
    ops->abi_version = MD_SDI_ABI_VERSION;
    ops->kit_abi_version = MD_KIT_ABI_VERSION;   /* it uses md_mq */
    ops->name = TNET_STR(TNET_NAME);
    ops->init = tnet_init;
    ops->connect = tnet_connect;
    ops->finalize = tnet_finalize;
    ops->isend = tnet_isend;
    ops->irecv = tnet_irecv;
    ops->recv_cancel = tnet_recv_cancel;
    ops->iprobe = tnet_iprobe;
    ops->improbe = tnet_improbe;
    ops->imrecv = tnet_imrecv;
    ops->progress = tnet_progress;
    ops->wait_fd = tnet_wait_fd;
    return MD_OK;
}
