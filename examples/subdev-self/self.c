/*
 * self.c - the smallest complete subdevice: a rank's messages to itself.
 *
 * The worked example of doc/hacking.md ("Writing a subdevice"): it is
 * built out of the tree, against nothing but the installed SDI and kit
 * headers (include/, include/multidev-kit/) and libmdkit, and
 * test/kit/out_of_tree.sh loads it into a one-rank job.  A real subdevice
 * moves bytes between processes; this one copies them at send time and
 * delivers them at the next progress() call, which is enough to show every
 * duty the SDI puts on a subdevice: matching (md_mq), the claim of a
 * receive posted on several subdevices, ordering across subdevices
 * (arrival_ok/arrived), synchronous sends, probes, cancel and counters.
 *
 * Device-line parameter (node file: "device self max_msg=4096"):
 *   max_msg   largest message it takes (default: unbounded)
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "md_complete.h"
#include "md_kit.h"
#include "md_mq.h"
#include "md_param.h"
#include "md_sdi.h"

/* A message between its isend and its receive. */
typedef struct self_msg {
    md_mq_msg_t      link;      /* its envelope and its place in a queue */
    void            *data;      /* a copy of the payload */
    md_request_t    *sync_send; /* MD_ENV_F_SYNC: completes when matched */
    struct self_msg *next;      /* in flight, in sending order */
} self_msg_t;

typedef struct self {
    md_mq_t     mq;             /* posted receives and unexpected messages */
    self_msg_t *flight_head, *flight_tail;
    size_t      max_msg;
} self_t;

static self_msg_t *self_msg_of(md_mq_msg_t *link)
{
    return (self_msg_t *)((char *)link - offsetof(self_msg_t, link));
}

static void self_msg_free(self_msg_t *m)
{
    free(m->data);
    free(m);
}

/* Copies m into the receive req and completes both sides. */
static void self_deliver(md_subdev_t *sd, self_msg_t *m, md_request_t *req)
{
    size_t n = m->link.env.size < req->len ? m->link.env.size : req->len;

    memcpy(req->buf, m->data, n);
    md_recv_status_set(req, &m->link.env, n, sd->index);
    if (m->sync_send != NULL)
        md_complete_hand(sd, m->sync_send, 0, -1);
    md_complete_hand(sd, req, 0, -1);
    self_msg_free(m);
}

static int self_init(md_subdev_t *sd, const md_subdev_init_args_t *args, void *card,
                     size_t *card_len)
{
    self_t *s = calloc(1, sizeof(*s));
    const char *max_msg = md_param_get(args, "max_msg");

    (void)card;
    if (s == NULL)
        return MD_ERR_NO_MEMORY;
    md_mq_init(&s->mq);
    s->max_msg = max_msg != NULL ? strtoull(max_msg, NULL, 0) : SIZE_MAX;
    sd->priv = s;
    sd->attr.eager_limit = SIZE_MAX;    /* no handshake, whatever the size */
    *card_len = 0;              /* nothing to tell the other ranks */
    return MD_OK;
}

static int self_connect(md_subdev_t *sd, const md_card_table_t *cards)
{
    (void)sd;
    (void)cards;
    return MD_OK;
}

/* md_mq hands over the messages nobody received (finalize). */
static void self_unexpected_free(void *unused, md_mq_msg_t *u)
{
    (void)unused;
    self_msg_free(self_msg_of(u));
}

static int self_finalize(md_subdev_t *sd)
{
    self_t *s = sd->priv;

    while (s->flight_head != NULL) {
        self_msg_t *m = s->flight_head;
        s->flight_head = m->next;
        self_msg_free(m);
    }
    md_mq_remove_unexpected_if(&s->mq, NULL, NULL, self_unexpected_free, NULL);
    free(s);
    return MD_OK;
}

static int self_isend(md_subdev_t *sd, md_request_t *req)
{
    self_t *s = sd->priv;
    self_msg_t *m;

    if (req->peer_world != req->env.src_world || req->env.tag < 0)
        return MD_ERR_UNSUPPORTED;      /* only to itself, no system messages */
    if (req->len > s->max_msg)
        return MD_ERR_INVALID;
    m = calloc(1, sizeof(*m));
    if (m == NULL || (m->data = malloc(req->len ? req->len : 1)) == NULL) {
        free(m);
        return MD_ERR_NO_MEMORY;
    }
    memcpy(m->data, req->buf, req->len);
    m->link.env = req->env;
    if (req->env.flags & MD_ENV_F_SYNC)
        m->sync_send = req;
    if (s->flight_tail != NULL)
        s->flight_tail->next = m;
    else
        s->flight_head = m;
    s->flight_tail = m;
    sd->counters.eager_sent++;
    if (m->sync_send == NULL)
        md_complete_hand(sd, req, 0, -1);   /* the payload is copied */
    return MD_OK;
}

/* Delivers what is in flight, in sending order, as far as the multidevice's
 * ordering across subdevices allows. */
static int self_progress(md_subdev_t *sd)
{
    self_t *s = sd->priv;
    int events = 0;

    while (s->flight_head != NULL) {
        self_msg_t *m = s->flight_head;
        md_request_t *req;

        if (!sd->host->arrival_ok(sd, &m->link.env))
            break;      /* an earlier message of this pair is on another subdevice */
        s->flight_head = m->next;
        if (s->flight_head == NULL)
            s->flight_tail = NULL;
        events++;
        req = md_mq_take_posted(&s->mq, &m->link.env, sd->index);
        sd->host->arrived(sd, &m->link.env);
        if (req != NULL) {
            self_deliver(sd, m, req);
        } else {
            sd->counters.unexpected++;
            md_mq_push_unexpected(&s->mq, &m->link);
        }
    }
    return events;
}

static int self_irecv(md_subdev_t *sd, md_request_t *req)
{
    self_t *s = sd->priv;
    md_mq_msg_t *u = md_mq_take_unexpected(&s->mq, req, sd->index);

    if (u != NULL)
        self_deliver(sd, self_msg_of(u), req);
    else if (!md_mq_dropped(req))
        md_mq_post(&s->mq, req);
    /* else: a duplicate whose claim another subdevice won; it is done here
     * (recv_cancel answers MD_OK for it) */
    return MD_OK;
}

static int self_recv_cancel(md_subdev_t *sd, md_request_t *req)
{
    return md_mq_cancel_posted(&((self_t *)sd->priv)->mq, req);
}

static int self_iprobe(md_subdev_t *sd, const md_match_t *match, int *flag,
                       md_recv_status_t *st)
{
    md_mq_probe(&((self_t *)sd->priv)->mq, match, sd->index, flag, st);
    return MD_OK;
}

static int self_improbe(md_subdev_t *sd, const md_match_t *match, int *flag,
                        md_request_t *msg)
{
    md_mq_msg_t *u = md_mq_improbe(&((self_t *)sd->priv)->mq, match, sd->index, flag,
                                   &msg->status);

    if (u == NULL)
        return MD_OK;
    msg->sd_priv[0] = (uint64_t)(uintptr_t)self_msg_of(u);
    return MD_OK;
}

static int self_imrecv(md_subdev_t *sd, md_request_t *msg, md_request_t *req)
{
    self_deliver(sd, (self_msg_t *)(uintptr_t)msg->sd_priv[0], req);
    return MD_OK;
}

/* The function table: <name>_LoadDevicePtr hands out a copy. */
static const md_subdev_ops_t self_ops = {
    MD_SUBDEV_OPS_HEADER("self"),
    .caps = MD_CAP_LOCAL_ONLY,      /* a route to another node over it is refused */
    .init = self_init,
    .connect = self_connect,
    .finalize = self_finalize,
    .isend = self_isend,
    .irecv = self_irecv,
    .recv_cancel = self_recv_cancel,
    .iprobe = self_iprobe,
    .improbe = self_improbe,
    .imrecv = self_imrecv,
    .progress = self_progress,
};

MD_LOAD_DEVICE_PTR(self);
MD_LOAD_DEVICE_PTR(self)
{
    *ops = self_ops;
    return MD_OK;
}
