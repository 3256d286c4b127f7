/* myri_gam.c - GAM host library: credits, requests, automatic replies. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "../core/nic_log.h"
#include "myri_gam_impl.h"

static uint32_t next_pow2(uint64_t v)
{
    uint32_t p = 1;
    while (p < v && p < (1u << 16))
        p <<= 1;
    return p;
}

int myri_gam_open(nic_host_t *host, const myri_gam_params_t *p, myri_gam_t **g_p)
{
    myri_gam_t *g;
    myri_ctl_setup_t s;
    uint64_t cq_need;
    int rc;

    if (p->num_vnn <= 0 || p->my_vnn < 0 || p->my_vnn >= p->num_vnn || p->credits == 0)
        return NIC_ERR_INVALID;
    g = calloc(1, sizeof(*g));
    if (g == NULL)
        return NIC_ERR_NO_MEMORY;
    g->my_vnn = p->my_vnn;
    g->num_vnn = p->num_vnn;
    g->credits_init = p->credits;
    g->flush_threshold = p->reply_every ? p->reply_every : (p->credits / 4 ? p->credits / 4 : 1);
    g->flush_ns = p->flush_ns ? p->flush_ns : 20000;
    g->lends = host->inproc != NULL;
    g->yield_ns = g->turn_ns = 2000;
    g->sq_n = next_pow2(p->sq_entries ? p->sq_entries : 256);
    /* In-queue: each node's requests (credits) and replies to my requests
     * (at most credits), plus error reports for my out-queue. */
    cq_need = 2ull * p->credits * (uint64_t)p->num_vnn + g->sq_n;
    if (cq_need > 65536) {
        nic_log_error(&host->log, "%u credits x %d nodes need an in-queue of %llu entries "
                      "(at most 65536): lower the credits", p->credits, p->num_vnn,
                      (unsigned long long)cq_need);
        free(g);
        return NIC_ERR_CONFIG;
    }
    g->cq_n = next_pow2(cq_need);
    g->credits = malloc(sizeof(int32_t) * (size_t)p->num_vnn);
    g->owed = calloc((size_t)p->num_vnn, sizeof(uint32_t));
    g->owed_since = calloc((size_t)p->num_vnn, sizeof(uint64_t));
    g->debtors = malloc(sizeof(int32_t) * (size_t)p->num_vnn);
    g->listed = calloc((size_t)p->num_vnn, 1);
    if (g->credits == NULL || g->owed == NULL || g->owed_since == NULL || g->debtors == NULL ||
        g->listed == NULL) {
        rc = NIC_ERR_NO_MEMORY;
        goto err;
    }
    for (int32_t i = 0; i < p->num_vnn; i++)
        g->credits[i] = (int32_t)p->credits;

    if ((rc = nic_ep_open(host, &p->job, g->sq_n, 0, g->cq_n, &g->ep)) != NIC_OK)
        goto err;
    g->recv_offset = g->sq_n * MYRI_PAGE;
    /* send pages, receive pages, then the timing model's stamps */
    rc = nic_mr_alloc(g->ep, (uint64_t)(g->sq_n + g->cq_n) * MYRI_PAGE +
                                 MYRI_STAMPS_BYTES(g->sq_n, g->cq_n),
                      NIC_MR_LOCAL_READ | NIC_MR_LOCAL_WRITE, &g->copy);
    if (rc != NIC_OK)
        goto err;
    memset(&s, 0, sizeof(s));
    s.my_vnn = p->my_vnn;
    s.num_vnn = (uint32_t)p->num_vnn;
    s.copy_key = g->copy.key;
    s.recv_offset = g->recv_offset;
    s.stamp_offset = (g->sq_n + g->cq_n) * MYRI_PAGE;
    g->sq_stamp = (uint64_t *)((uint8_t *)g->copy.addr + s.stamp_offset);
    g->cq_stamp = g->sq_stamp + g->sq_n;
    if ((rc = nic_ep_ctl(g->ep, MYRI_CTL_SETUP, &s, sizeof(s), NULL, NULL)) != NIC_OK)
        goto err;
    *g_p = g;
    return NIC_OK;
err:
    myri_gam_close(g);
    return rc;
}

int myri_gam_close(myri_gam_t *g)
{
    if (g == NULL)
        return NIC_OK;
    if (g->ep != NULL) {
        nic_mr_free(g->ep, &g->copy);
        nic_ep_close(g->ep);
    }
    free(g->credits);
    free(g->owed);
    free(g->owed_since);
    free(g->debtors);
    free(g->listed);
    free(g);
    return NIC_OK;
}

void myri_gam_set_handler(myri_gam_t *g, unsigned idx, myri_gam_handler_t fn, void *arg)
{
    if (idx < MYRI_NUM_HANDLERS) {
        g->handler[idx] = fn;
        g->handler_arg[idx] = arg;
    }
}

void myri_gam_set_error(myri_gam_t *g, myri_gam_error_t fn, void *arg)
{
    g->on_error = fn;
    g->error_arg = arg;
}

int myri_gam_set_peers(myri_gam_t *g, uint32_t first, uint32_t count, const myri_peer_entry_t *e)
{
    enum { BATCH = 200 };
    uint8_t buf[sizeof(myri_ctl_peers_t) + BATCH * sizeof(myri_peer_entry_t)];
    myri_ctl_peers_t *m = (myri_ctl_peers_t *)buf;
    int rc = NIC_OK;

    for (uint32_t done = 0; done < count && rc == NIC_OK;) {
        uint32_t n = count - done < BATCH ? count - done : BATCH;
        m->first_vnn = first + done;
        m->count = n;
        memcpy(m->e, e + done, n * sizeof(*e));
        rc = nic_ep_ctl(g->ep, MYRI_CTL_PEERS, m, sizeof(*m) + n * sizeof(*e), NULL, NULL);
        done += n;
    }
    return rc;
}

int myri_gam_fabric(myri_gam_t *g, const myri_fabric_item_t *items, size_t n)
{
    enum { BATCH = 200 };
    int rc = NIC_OK;
    for (size_t done = 0; done < n && rc == NIC_OK; done += BATCH) {
        size_t k = n - done < BATCH ? n - done : BATCH;
        rc = nic_ep_ctl(g->ep, MYRI_CTL_FABRIC, items + done, k * sizeof(*items), NULL, NULL);
    }
    return rc;
}

int myri_gam_timing(myri_gam_t *g, const myri_timing_t *t)
{
    return nic_ep_ctl(g->ep, MYRI_CTL_TIMING, t, sizeof(*t), NULL, NULL);
}

int myri_gam_credits(myri_gam_t *g, int32_t dst)
{
    return (dst >= 0 && dst < g->num_vnn) ? g->credits[dst] : 0;
}

nic_ep_t *myri_gam_ep(myri_gam_t *g) { return g->ep; }
const myri_gam_stats_t *myri_gam_stats(myri_gam_t *g) { return &g->st; }

int myri_gam_can_request(myri_gam_t *g, int32_t dst)
{
    return dst >= 0 && dst < g->num_vnn && g->credits[dst] > 0 && nic_ep_sq_slot(g->ep) != NULL;
}

/* Write one out-queue entry (and its page) and ring the doorbell. */
static int gam_post(myri_gam_t *g, int32_t dst, uint32_t op, unsigned handler,
                    const uint64_t args[5], const void *data, uint32_t len)
{
    nic_entry_t *slot = nic_ep_sq_slot(g->ep);
    myri_desc_t *d;
    uint32_t idx;
    uint64_t ready;

    if (slot == NULL)
        return NIC_ERR_NO_RESOURCE;
    ready = gam_post_ready(g, len);
    idx = nic_ring_index(&g->ep->sq);
    d = (myri_desc_t *)slot;
    if (len > 0)
        memcpy((uint8_t *)g->copy.addr + (size_t)idx * MYRI_PAGE, data, len);
    d->op = op;
    d->peer = dst;
    d->handler = (uint16_t)handler;
    d->len = len;
    d->key = g->copy.key;
    d->offset = idx * MYRI_PAGE;
    if (args != NULL)
        memcpy(d->arg, args, sizeof(d->arg));
    else
        memset(d->arg, 0, sizeof(d->arg));
    /* Pay what we owe this node on the way. */
    uint32_t pay = g->owed[dst] > 0xffff ? 0xffff : g->owed[dst];
    d->aux = (uint16_t)pay;
    g->owed[dst] -= pay;
    /* The doorbell rings at once, the stamp says when the entry would be
     * complete in NIC SRAM: the emulated NIC may take it meanwhile (on
     * another core), as the LANai runs beside the host CPU. */
    g->sq_stamp[idx] = ready;
    nic_ep_sq_post(g->ep);
    gam_wait_until(g, ready, 0);
    return NIC_OK;
}

int myri_gam_request(myri_gam_t *g, int32_t dst, unsigned handler, const uint64_t args[5],
                     const void *data, uint32_t len)
{
    int rc;

    if (dst < 0 || dst >= g->num_vnn || len > MYRI_PAGE || handler >= MYRI_NUM_HANDLERS)
        return NIC_ERR_INVALID;
    if (g->credits[dst] <= 0) {
        g->st.credit_waits++;
        return NIC_ERR_NO_RESOURCE;
    }
    rc = gam_post(g, dst, len ? MYRI_OP_MEDIUM : MYRI_OP_SHORT, handler, args, data, len);
    if (rc == NIC_OK) {
        g->credits[dst]--;
        g->st.requests++;
    }
    return rc;
}

int myri_gam_reply(myri_gam_t *g, int32_t dst, unsigned handler, const uint64_t args[5],
                   const void *data, uint32_t len)
{
    int rc;

    if (dst < 0 || dst >= g->num_vnn || len > MYRI_PAGE || handler >= MYRI_NUM_HANDLERS)
        return NIC_ERR_INVALID;
    /* The request being handled is owed already (gam_owe runs first). */
    rc = gam_post(g, dst, (len ? MYRI_OP_MEDIUM : MYRI_OP_SHORT) | MYRI_OP_REPLY, handler, args,
                  data, len);
    if (rc == NIC_OK)
        g->st.replies++;
    return rc;
}

static void gam_owe(myri_gam_t *g, int32_t src, uint64_t now)
{
    if (g->owed[src]++ == 0)
        g->owed_since[src] = now;
    if (!g->listed[src]) {
        g->listed[src] = 1;
        g->debtors[g->ndebtors++] = src;
    }
}

/* A reply of its own that carries what this node is owed (the reply
 * GAM sends when a request handler did not). */
static int gam_pay_reply(myri_gam_t *g, int32_t src)
{
    if (gam_post(g, src, MYRI_OP_SHORT | MYRI_OP_REPLY, 0, NULL, NULL, 0) != NIC_OK)
        return 0;
    g->st.replies++;
    return 1;
}

/* Pay owed credits in replies: a quarter of the credits owed, or old debt. */
static void gam_pay(myri_gam_t *g, uint64_t now)
{
    uint32_t keep = 0;
    for (uint32_t i = 0; i < g->ndebtors; i++) {
        int32_t src = g->debtors[i];
        if (g->owed[src] == 0 ||
            ((g->owed[src] >= g->flush_threshold || now - g->owed_since[src] >= g->flush_ns) &&
             gam_pay_reply(g, src))) {
            g->listed[src] = 0;   /* paid (here or on a request) */
            continue;
        }
        g->debtors[keep++] = src;
    }
    g->ndebtors = keep;
}

int myri_gam_poll(myri_gam_t *g, int max)
{
    nic_entry_t *slot;
    uint64_t now = 0;
    int n = 0, rc;

    for (;;) {
        uint64_t found;
        if (n >= max || (slot = gam_poll_entry(g, n == 0, &found)) == NULL)
            break;
        const myri_desc_t *d = (const myri_desc_t *)slot;
        g->cur_valid = g->cq_stamp[nic_ring_index(&g->ep->cq)];
        g->cur_found = found;
        /* a valid entry costs its other 7 words and the write that frees it */
        gam_wait_until(g, found + gam_dequeue_ns(g), 1);
        if (d->op & MYRI_OP_ERROR) {
            g->st.errors++;
            /* the credit of a failed request will not come back */
            if (g->on_error != NULL)
                g->on_error(g, g->error_arg, d, -(int)d->aux);
        } else {
            int32_t src = d->peer;
            if (src >= 0 && src < g->num_vnn) {
                unsigned h = d->handler;
                const void *payload = d->len ? (const uint8_t *)g->copy.addr + d->offset : NULL;
                g->credits[src] += d->aux;
                if (d->len && (d->offset < g->recv_offset ||
                               (uint64_t)d->offset + d->len > g->copy.size))
                    payload = NULL;
                if (!(d->op & MYRI_OP_REPLY)) {
                    if (now == 0)
                        now = nic_now_ns();
                    gam_owe(g, src, now);   /* before the handler: a reply pays it */
                    g->st.handled++;
                }
                if (h != 0 && h < MYRI_NUM_HANDLERS && g->handler[h] != NULL &&
                    (payload != NULL || d->len == 0))
                    g->handler[h](g, g->handler_arg[h], src, d, payload);
                /* Enough owed (with reply_every 1: a request whose handler
                 * did not reply): the reply leaves now, as GAM's did, not
                 * after the rest of the in-queue is handled. */
                if (!(d->op & MYRI_OP_REPLY) && g->owed[src] >= g->flush_threshold)
                    gam_pay_reply(g, src);
            }
        }
        nic_ep_cq_release(g->ep);
        n++;
    }
    if (g->ndebtors > 0)
        gam_pay(g, nic_now_ns());
    if (n == 0 && (rc = nic_ep_check(g->ep)) != NIC_OK)
        return rc;
    return n;
}
