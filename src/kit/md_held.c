/* md_held.c - arrivals held back by the ordering across subdevices
 * (md_held.h). */
#include "config.h"

#include <stdlib.h>

#include "md_fifo.h"
#include "md_held.h"

int md_held_must_wait(const md_held_t *h, md_subdev_t *sd, const md_envelope_t *env)
{
    return !md_held_empty(h) || !sd->host->arrival_ok(sd, env);
}

void md_held_push(md_held_t *h, md_held_link_t *link, void *msg, const md_envelope_t *env)
{
    link->msg = msg;
    link->env = env;
    MD_FIFO_PUSH(h, link);
}

static md_held_link_t *md_held_pop(md_held_t *h)
{
    md_held_link_t *link;

    MD_FIFO_POP(h, link);
    return link;
}

int md_held_release(md_held_t *h, md_subdev_t *sd, void (*accept)(void *arg, void *msg),
                    void *arg)
{
    int n = 0;

    while (h->head != NULL && sd->host->arrival_ok(sd, h->head->env)) {
        accept(arg, md_held_pop(h)->msg);
        n++;
    }
    return n;
}

void md_held_drop(md_held_t *h)
{
    while (h->head != NULL)
        free(md_held_pop(h)->msg);
}

int md_held_set_init(md_held_set_t *s, int32_t world_size)
{
    s->peer = calloc((size_t)world_size, sizeof(*s->peer));
    if (s->peer == NULL || md_peerset_init(&s->waiting, world_size) != MD_OK) {
        free(s->peer);
        s->peer = NULL;
        return MD_ERR_NO_MEMORY;
    }
    return MD_OK;
}

void md_held_set_drop_all(md_held_set_t *s)
{
    for (uint32_t k = 0; k < s->waiting.n; k++)
        md_held_drop(&s->peer[s->waiting.peer[k]]);
    md_peerset_clear(&s->waiting);
}

void md_held_set_fini(md_held_set_t *s)
{
    if (s->peer != NULL)
        md_held_set_drop_all(s);
    free(s->peer);
    s->peer = NULL;
    md_peerset_fini(&s->waiting);
}

void md_held_set_hold(md_held_set_t *s, int32_t q, md_held_link_t *link, void *msg,
                      const md_envelope_t *env)
{
    md_peerset_add(&s->waiting, q);
    md_held_push(&s->peer[q], link, msg, env);
}

typedef struct md_held_sweep {
    md_held_set_t       *s;
    md_subdev_t         *sd;
    const md_held_ops_t *ops;
    void                *arg;
} md_held_sweep_t;

/* Peer q's turn in md_held_set_retry: 1 while some of its messages wait. */
static int md_held_retry_peer(void *arg, int32_t q, int *events)
{
    md_held_sweep_t *w = arg;
    md_held_t *h = &w->s->peer[q];

    *events += md_held_release(h, w->sd, w->ops->accept, w->arg);
    if (!md_held_empty(h))
        return 1;
    if (w->ops->drained != NULL)
        w->ops->drained(w->arg, q);
    return 0;
}

int md_held_set_retry(md_held_set_t *s, md_subdev_t *sd, const md_held_ops_t *ops, void *arg)
{
    md_held_sweep_t w = { s, sd, ops, arg };

    return md_peerset_sweep(&s->waiting, md_held_retry_peer, &w);
}
