/*
 * tloop.c - a loop-back test subdevice: messages a rank sends to itself.
 *
 * Compiled twice (-DTLOOP_NAME=tloopa / tloopb) so one process can load two
 * subdevices and exercise the multidevice's cross-subdevice logic: size
 * split, AnyQueue duplicates, ordering hold-back, cancel, probe, system
 * messages.  Parameter delay=N makes a sent message arrive only after N
 * progress calls, so one subdevice can be made "slower" than the other.
 * Parameter blind_probe=1 makes iprobe report nothing: a message there
 * looks as if it arrived between the multidevice's probe and its post.
 * Messages are copied at send time (eager); MD_ENV_F_SYNC sends complete
 * when matched.  Matching is the kit's md_mq, as in every subdevice.
 */
#include <stdlib.h>
#include <string.h>

#include "md_kit.h"
#include "md_mq.h"
#include "md_param.h"
#include "md_sdi.h"

#define TLOOP_STR2(x) #x
#define TLOOP_STR(x) TLOOP_STR2(x)

typedef struct tloop_msg {
    md_mq_msg_t       mq;          /* first: envelope, unexpected-queue links */
    void             *data;
    int               delay;
    md_request_t     *sync_req;    /* sync send waiting for its match */
    struct tloop_msg *next;        /* in flight */
} tloop_msg_t;

typedef struct tloop_list {
    tloop_msg_t *head, *tail;
} tloop_list_t;

typedef struct tloop {
    int          delay;
    int          blind_probe;
    tloop_list_t in_flight;
    md_mq_t      mq;               /* posted receives, unexpected messages */
} tloop_t;

static void tloop_list_push(tloop_list_t *l, tloop_msg_t *m)
{
    m->next = NULL;
    if (l->tail)
        l->tail->next = m;
    else
        l->head = m;
    l->tail = m;
}

static void tloop_list_pop(tloop_list_t *l)
{
    l->head = l->head->next;
    if (l->head == NULL)
        l->tail = NULL;
}

static void tloop_msg_free(tloop_msg_t *m)
{
    free(m->data);
    free(m);
}

static void tloop_unexpected_free(void *unused, md_mq_msg_t *m)
{
    (void)unused;
    tloop_msg_free((tloop_msg_t *)m);
}

/* Copies a message into a receive and completes both sides. */
static void tloop_deliver(md_subdev_t *sd, tloop_msg_t *m, md_request_t *req)
{
    size_t n = m->mq.env.size < req->len ? m->mq.env.size : req->len;

    memcpy(req->buf, m->data, n);
    req->status.src_rank = m->mq.env.src_rank;
    req->status.src_world = m->mq.env.src_world;
    req->status.tag = m->mq.env.tag;
    req->status.size = n;
    req->status.msg_size = m->mq.env.size;
    req->status.seq = m->mq.env.seq;
    req->status.error = n < m->mq.env.size ? MD_ERR_TRUNCATE : MD_OK;
    sd->counters.msgs_recvd++;
    sd->counters.bytes_recvd += n;
    if (m->sync_req)
        sd->host->complete(sd, m->sync_req);
    sd->host->complete(sd, req);
    tloop_msg_free(m);
}

static int tloop_init(md_subdev_t *sd, const md_subdev_init_args_t *args,
                      void *card, size_t *card_len)
{
    tloop_t *t = calloc(1, sizeof(*t));
    const char *delay = md_param_get(args, "delay");

    (void)card;
    if (t == NULL)
        return MD_ERR_NO_MEMORY;
    t->delay = delay ? atoi(delay) : 0;
    t->blind_probe = md_param_get(args, "blind_probe") != NULL &&
                     atoi(md_param_get(args, "blind_probe")) != 0;
    md_mq_init(&t->mq);
    sd->priv = t;
    sd->attr.eager_limit = SIZE_MAX;
    *card_len = 0;
    return MD_OK;
}

static int tloop_connect(md_subdev_t *sd, const md_card_table_t *cards)
{
    (void)sd; (void)cards;
    return MD_OK;
}

static void tloop_free_list(tloop_list_t *l)
{
    while (l->head) {
        tloop_msg_t *m = l->head;
        l->head = m->next;
        tloop_msg_free(m);
    }
}

static int tloop_finalize(md_subdev_t *sd)
{
    tloop_t *t = sd->priv;

    tloop_free_list(&t->in_flight);
    md_mq_remove_unexpected_if(&t->mq, NULL, NULL, tloop_unexpected_free, NULL);
    free(t);
    return MD_OK;
}

static int tloop_isend(md_subdev_t *sd, md_request_t *req)
{
    tloop_t *t = sd->priv;
    tloop_msg_t *m = calloc(1, sizeof(*m));

    if (m == NULL || (m->data = malloc(req->len ? req->len : 1)) == NULL) {
        free(m);
        return MD_ERR_NO_MEMORY;
    }
    memcpy(m->data, req->buf, req->len);
    m->mq.env = req->env;
    m->delay = t->delay;
    md_counters_complete(&sd->counters, req);    /* a system message apart */
    sd->counters.eager_sent += req->env.tag >= 0;
    if (req->env.tag >= 0 && (req->env.flags & MD_ENV_F_SYNC))
        m->sync_req = req;
    tloop_list_push(&t->in_flight, m);
    if (m->sync_req == NULL)
        sd->host->complete(sd, req);
    return MD_OK;
}

static int tloop_progress(md_subdev_t *sd)
{
    tloop_t *t = sd->priv;
    int events = 0;

    for (tloop_msg_t *m = t->in_flight.head; m; m = m->next)
        if (m->delay > 0)
            m->delay--;
    while (t->in_flight.head && t->in_flight.head->delay == 0) {
        tloop_msg_t *m = t->in_flight.head;
        md_request_t *req;

        if (m->mq.env.tag >= 0 && !sd->host->arrival_ok(sd, &m->mq.env))
            break;      /* an earlier message is on another subdevice */
        tloop_list_pop(&t->in_flight);
        events++;
        if (m->mq.env.tag < 0) {
            sd->counters.sysmsgs_recvd++;
            sd->host->sysmsg(sd, &m->mq.env, m->data);
            tloop_msg_free(m);
            continue;
        }
        req = md_mq_take_posted(&t->mq, &m->mq.env, sd->index);
        sd->host->arrived(sd, &m->mq.env);
        if (req != NULL) {
            tloop_deliver(sd, m, req);
        } else {
            sd->counters.unexpected++;
            md_mq_push_unexpected(&t->mq, &m->mq);
        }
    }
    return events;
}

static int tloop_irecv(md_subdev_t *sd, md_request_t *req)
{
    tloop_t *t = sd->priv;
    md_mq_msg_t *m = md_mq_take_unexpected(&t->mq, req, sd->index);

    if (m != NULL)
        tloop_deliver(sd, (tloop_msg_t *)m, req);
    else if (!md_mq_dropped(req))       /* dropped: another subdevice has it */
        md_mq_post(&t->mq, req);
    return MD_OK;
}

static int tloop_recv_cancel(md_subdev_t *sd, md_request_t *req)
{
    return md_mq_cancel_posted(&((tloop_t *)sd->priv)->mq, req);
}

static int tloop_iprobe(md_subdev_t *sd, const md_match_t *match, int *flag,
                        md_recv_status_t *st)
{
    tloop_t *t = sd->priv;

    if (t->blind_probe)
        *flag = 0;
    else
        md_mq_probe(&t->mq, match, sd->index, flag, st);
    return MD_OK;
}

static int tloop_improbe(md_subdev_t *sd, const md_match_t *match, int *flag,
                         md_request_t *msg)
{
    md_mq_msg_t *m = md_mq_improbe(&((tloop_t *)sd->priv)->mq, match, sd->index, flag,
                                   &msg->status);

    if (m != NULL)
        msg->sd_priv[0] = (uint64_t)(uintptr_t)m;
    return MD_OK;
}

static int tloop_imrecv(md_subdev_t *sd, md_request_t *msg, md_request_t *req)
{
    tloop_deliver(sd, (tloop_msg_t *)(uintptr_t)msg->sd_priv[0], req);
    return MD_OK;
}

#define TLOOP_CAT2(a, b) a##b
#define TLOOP_CAT(a, b) TLOOP_CAT2(a, b)

MD_LOAD_DEVICE_PTR(TLOOP_NAME);
MD_LOAD_DEVICE_PTR(TLOOP_NAME)
{
    ops->abi_version = MD_SDI_ABI_VERSION;
    ops->kit_abi_version = MD_KIT_ABI_VERSION;   /* it uses md_mq */
    ops->name = TLOOP_STR(TLOOP_NAME);
    ops->init = tloop_init;
    ops->connect = tloop_connect;
    ops->finalize = tloop_finalize;
    ops->isend = tloop_isend;
    ops->irecv = tloop_irecv;
    ops->recv_cancel = tloop_recv_cancel;
    ops->iprobe = tloop_iprobe;
    ops->improbe = tloop_improbe;
    ops->imrecv = tloop_imrecv;
    ops->progress = tloop_progress;
    return MD_OK;
}
