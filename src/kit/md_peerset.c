/* md_peerset.c - the peers with work of one kind (md_peerset.h). */
#include "config.h"

#include <stdlib.h>

#include "md_peerset.h"

int md_peerset_init(md_peerset_t *s, int32_t world_size)
{
    s->peer = malloc(sizeof(*s->peer) * (size_t)world_size);
    s->in = calloc((size_t)world_size, 1);
    s->n = 0;
    if (s->peer == NULL || s->in == NULL) {
        md_peerset_fini(s);
        return MD_ERR_NO_MEMORY;
    }
    return MD_OK;
}

void md_peerset_fini(md_peerset_t *s)
{
    free(s->peer);
    free(s->in);
    s->peer = NULL;
    s->in = NULL;
    s->n = 0;
}

void md_peerset_add(md_peerset_t *s, int32_t q)
{
    if (!s->in[q]) {
        s->in[q] = 1;
        s->peer[s->n++] = q;
    }
}

void md_peerset_clear(md_peerset_t *s)
{
    for (uint32_t k = 0; k < s->n; k++)
        s->in[s->peer[k]] = 0;
    s->n = 0;
}

int md_peerset_sweep(md_peerset_t *s, int (*work)(void *arg, int32_t q, int *events),
                     void *arg)
{
    uint32_t keep = 0;
    int events = 0;

    /* s->n is read again each turn: work may add members, which come
     * after the ones kept so far (keep <= k) */
    for (uint32_t k = 0; k < s->n; k++) {
        int32_t q = s->peer[k];
        if (work(arg, q, &events))
            s->peer[keep++] = q;
        else
            s->in[q] = 0;
    }
    s->n = keep;
    return events;
}
