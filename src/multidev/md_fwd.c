/*
 * md_fwd.c - indirect communication: set-up, the system-message entry
 * point, internal sends.  See md_fwd.h for the protocol.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "md_fail.h"
#include "md_fwd_state.h"
#include "md_log.h"
#include "md_pool.h"

/* 8 x 64 KiB: smaller chunks let the relay copy and send one while the
 * next arrives (4 MiB through a relay on emulated myri + sci: 350 MB/s
 * against 195-235 with 4 x 256 KiB), and it holds half the memory. */
#define MD_FWD_DEFAULT_CHUNK  (64 * 1024)
#define MD_FWD_DEFAULT_WINDOW 8
/* Acknowledgements gathered per neighbour, and how long one may wait: a
 * standard send does not wait for its acknowledgement (md_fwd_ack.c), so
 * they only hold IndirectQueue entries meanwhile. */
#define MD_FWD_DEFAULT_ACK_BATCH    64
#define MD_FWD_DEFAULT_ACK_DELAY_US 500
/* One Myrinet packet (myri's eager limit); a batch is cut to the
 * subdevice's eager limit anyway. */
#define MD_FWD_DEFAULT_BATCH (4 * 1024)

static int md_fwd_env_size_min(const char *name, size_t def, size_t min, size_t *value)
{
    const char *text = getenv(name);

    *value = def;
    if (text == NULL)
        return MD_OK;
    if (md_parse_size(text, value) != 0 || *value < min) {
        md_log_error("%s='%s' is not %s (bytes, k/m/g suffix)",
                     name, text, min > 0 ? "a positive size" : "a size");
        return MD_ERR_CONFIG;
    }
    return MD_OK;
}

static int md_fwd_env_size(const char *name, size_t def, size_t *value)
{
    return md_fwd_env_size_min(name, def, 1, value);
}

static int md_fwd_env_size_or_zero(const char *name, size_t def, size_t *value)
{
    return md_fwd_env_size_min(name, def, 0, value);
}

/* MULTIDEV_FWD_SEND_DONE: "left" (the default: a standard send completes
 * when its last chunk has left, as after an eager send) or "acked" (when
 * the destination's acknowledgement is back, as in P1 §3.4). */
static const char *const md_fwd_send_done_words[] = { "left", "acked" };

int md_fwd_setup(md_t *md)
{
    md_fwd_state_t *st = calloc(1, sizeof(*st));
    size_t window;
    long long batch = 0, delay_us = 0;
    int rc;

    if (st == NULL)
        return MD_ERR_NO_MEMORY;
    md->fwd = st;
    rc = md_fwd_env_size("MULTIDEV_FWD_CHUNK", MD_FWD_DEFAULT_CHUNK,
                         &st->params.chunk);
    if (rc == MD_OK)
        rc = md_fwd_env_size("MULTIDEV_FWD_WINDOW", MD_FWD_DEFAULT_WINDOW,
                             &window);
    if (rc == MD_OK)
        rc = md_fwd_env_size_or_zero("MULTIDEV_FWD_BATCH", MD_FWD_DEFAULT_BATCH,
                                     &st->params.batch);
    if (rc == MD_OK && (st->params.chunk > (1u << 30) || window > 1024 ||
                        st->params.batch > (1u << 30))) {
        md_log_error("MULTIDEV_FWD_CHUNK and MULTIDEV_FWD_BATCH must be at most 1g and "
                     "MULTIDEV_FWD_WINDOW at most 1024");
        rc = MD_ERR_CONFIG;
    }
    st->params.window = (int)window;
    if (rc == MD_OK)
        rc = md_env_count("MULTIDEV_FWD_ACK_BATCH", MD_FWD_DEFAULT_ACK_BATCH, 1,
                              MD_FWD_ACKQ_MAX, &batch);
    if (rc == MD_OK)
        rc = md_env_count("MULTIDEV_FWD_ACK_DELAY_US", MD_FWD_DEFAULT_ACK_DELAY_US, 0,
                              1000000, &delay_us);
    st->params.ack_batch = (int)batch;
    st->params.ack_delay_ns = (uint64_t)delay_us * 1000u;
    if (rc == MD_OK)
        rc = md_env_choice("MULTIDEV_FWD_SEND_DONE", md_fwd_send_done_words, 2, 0,
                           &st->params.send_waits_ack);
    if (rc == MD_OK)
        rc = md_fwd_watch_setup(md);
    return rc;
}

void md_fwd_free(md_t *md)
{
    md_fwd_state_t *st = md->fwd;

    if (st == NULL)
        return;
    md_fwd_batch_discard(md);
    while (st->out != NULL) {
        md_fwd_out_t *o = st->out;
        st->out = o->next;
        md_fwd_stripe_free(o->stripe);
        free(o);
    }
    while (st->relays != NULL) {
        md_fwd_relay_t *r = st->relays;
        st->relays = r->next;
        free(r);
    }
    free(st);
    md->fwd = NULL;
}

int md_fwd_conf_needs_receiver(const md_nodeconf_t *conf)
{
    if (conf == NULL)
        return 0;
    if (conf->num_rails > 0)
        return 1;       /* striped messages are put together there */
    for (size_t i = 0; i < conf->num_routes; i++)
        if (conf->routes[i].next_hop[0] != '\0')
            return 1;
    for (size_t i = 0; i < conf->num_arrives; i++)
        for (size_t k = 0; k < conf->arrives[i].num_subdevs; k++)
            if (strcmp(conf->arrives[i].subdevs[k], MD_NODECONF_FORWARDED) == 0)
                return 1;
    return 0;
}

md_fwd_relay_t *md_fwd_relay_find(md_fwd_state_t *st, int32_t origin,
                                  int32_t dst, uint64_t seq)
{
    for (md_fwd_relay_t *r = st->relays; r != NULL; r = r->next)
        if (r->origin == origin && r->dst == dst && r->seq == seq)
            return r;
    return NULL;
}

int md_fwd_send_raw(md_t *md, md_request_t *req, int subdev, int32_t to,
                    int32_t tag, const void *buf, size_t len)
{
    md_request_reset(req, MD_REQ_SEND);
    req->md_flags |= MD_REQ_F_INTERNAL;
    req->subdev = subdev;
    req->peer_world = to;
    req->buf = (void *)buf;
    req->len = len;
    req->env = (md_envelope_t){ .src_rank = md->rank, .src_world = md->rank,
                                .dst_world = to, .tag = tag, .size = len };
    return md_send_start(md, req);
}

/* From the pool (md_pool.h): at the origin and at every relay a stream
 * takes one such buffer per chunk. */
md_fwd_send_t *md_fwd_chunk_new(md_t *md, const md_fwd_hdr_t *hdr, const void *data,
                                void (*on_complete)(md_request_t *))
{
    size_t hlen = md_fwd_wire_len(hdr->offset, hdr->len, hdr->env.size);
    md_fwd_send_t *s = md_pool_alloc(sizeof(*s) + hlen + hdr->len);

    if (s == NULL)
        return NULL;
    memset(s, 0, sizeof(*s));
    md_fwd_hdr_pack(hdr, s->buf);
    if (hdr->len > 0)                 /* a route probe has no bytes (and no data pointer) */
        memcpy(s->buf + hlen, data, hdr->len);
    s->md = md;
    s->len = hlen + hdr->len;
    s->req.on_complete = on_complete;
    s->req.user = s;
    return s;
}

void md_fwd_chunk_free(md_fwd_send_t *s)
{
    md_pool_release(s);
}

static void md_fwd_ctl_done(md_request_t *req)
{
    md_fwd_send_t *s = req->user;

    s->md->fwd->ctl_inflight--;
    if (req->status.error != MD_OK && req->env.tag == MD_SYSTAG_FWD_ACK)
        md_fwd_stripe_ack_failed(s->md, req->env.dst_world, req->subdev,
                                 (const md_fwd_ctl_t *)s->buf, (int)(s->len / sizeof(md_fwd_ctl_t)));
    free(s);
}

int md_fwd_send_ctl_bytes(md_t *md, int subdev, int32_t to, int32_t tag,
                          const void *payload, size_t len)
{
    md_fwd_send_t *s = calloc(1, sizeof(*s) + len);
    int rc = MD_ERR_NO_MEMORY;

    if (s != NULL) {
        memcpy(s->buf, payload, len);
        s->md = md;
        s->len = len;
        s->req.on_complete = md_fwd_ctl_done;
        s->req.user = s;
        md->fwd->ctl_inflight++;
        rc = md_fwd_send_raw(md, &s->req, subdev, to, tag, s->buf, len);
        if (rc != MD_OK) {
            md->fwd->ctl_inflight--;
            free(s);
        }
    }
    if (rc != MD_OK)
        md_log_error("forwarding: control message %d (%zu bytes) to rank %d failed: %s",
                     tag, len, to, md_status_string(rc));
    return rc;
}

int md_fwd_send_ctl(md_t *md, int subdev, int32_t to, int32_t tag,
                    const md_fwd_ctl_t *ctl, int n)
{
    return md_fwd_send_ctl_bytes(md, subdev, to, tag, ctl, (size_t)n * sizeof(*ctl));
}

static int md_fwd_payload_ok(const md_envelope_t *env, size_t need)
{
    if (env->size >= need)
        return 1;
    md_log_error("forwarding: system message %d from rank %d has %llu bytes, "
                 "expected at least %zu; dropped", env->tag, env->src_world,
                 (unsigned long long)env->size, need);
    return 0;
}

void md_fwd_data_arrived(md_t *md, md_subdev_t *sd, const md_envelope_t *env,
                         const void *payload)
{
    md_fwd_hdr_t hdr;
    size_t hlen = md_fwd_hdr_unpack(env, payload, &hdr);

    if (hlen == 0)
        return;
    if (hdr.env.dst_world == md->rank)
        md_fwd_recv_data(md, sd, &hdr, (const uint8_t *)payload + hlen);
    else
        md_fwd_relay_data(md, sd, &hdr, (const uint8_t *)payload + hlen);
}

void md_fwd_dispatch(md_t *md, md_subdev_t *sd, const md_envelope_t *env,
                     const void *payload)
{
    md_fwd_ctl_t ctl;

    switch (env->tag) {
    case MD_SYSTAG_FWD_DATA:
        md_fwd_data_arrived(md, sd, env, payload);
        return;
    case MD_SYSTAG_FWD_BATCH:
        md_fwd_batch_arrived(md, sd, env, payload);
        return;
    case MD_SYSTAG_FWD_CREDIT:
        if (!md_fwd_payload_ok(env, sizeof(ctl)))
            return;
        memcpy(&ctl, payload, sizeof(ctl));
        md_fwd_on_credit(md, &ctl);
        return;
    case MD_SYSTAG_FWD_UNREACH:
        if (!md_fwd_payload_ok(env, sizeof(ctl)))
            return;
        memcpy(&ctl, payload, sizeof(ctl));
        md_fail_unreach_received(md, env->src_world, ctl.origin, ctl.status);
        return;
    case MD_SYSTAG_FWD_PROBE:
        return;          /* it came through: the route lives */
    case MD_SYSTAG_FWD_RAIL_LOST:
        md_fwd_stripe_rail_news(md, env->src_world, payload, env->size);
        return;
    case MD_SYSTAG_FWD_ACK:
        if (!md_fwd_payload_ok(env, sizeof(ctl)))
            return;
        if (env->size % sizeof(ctl) != 0)
            md_log_error("forwarding: acknowledgement message from rank %d has "
                         "%llu bytes, not whole entries; the rest is dropped",
                         env->src_world, (unsigned long long)env->size);
        md_fwd_on_acks(md, payload, env->size);
        return;
    default:
        md_log_error("system message with reserved tag %d from rank %d has no "
                     "handler; dropped", env->tag, env->src_world);
    }
}

void md_get_fwd_counters(const md_t *md, md_fwd_counters_t *out)
{
    const md_fwd_state_t *st = md->fwd;

    *out = st ? st->counters : (md_fwd_counters_t){0};
    if (md->fwd_index >= 0) {
        const md_subdev_counters_t *c = &md->devs.subdevs[md->fwd_index].counters;
        out->delivered_msgs = c->msgs_recvd;
        out->delivered_bytes = c->bytes_recvd;
    }
}

/* Under the lock: the progress thread finishes flows and frees them (an
 * acknowledgement arriving while this walked the list was read after its
 * free, ASan in fwd_test).  Only the lock: a query runs nothing queued. */
int md_indirect_in_flight(const md_t *md)
{
    pthread_mutex_t *lock = (pthread_mutex_t *)&md->thr.lock;
    const md_fwd_state_t *st = md->fwd;
    int n = 0;

    if (md->thr.enabled)
        pthread_mutex_lock(lock);
    for (const md_fwd_out_t *o = st ? st->out : NULL; o != NULL; o = o->next)
        n++;
    for (const md_fwd_relay_t *r = st ? st->relays : NULL; r != NULL; r = r->next)
        n++;
    if (md->thr.enabled)
        pthread_mutex_unlock(lock);
    return n;
}
