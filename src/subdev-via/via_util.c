/* via_util.c - the done list. */
#include "config.h"

#include "via_impl.h"

void vsd_reqlist_append(vsd_reqlist_t *l, md_request_t *r)
{
    vsd_rp(r)->next = NULL;
    vsd_rp(r)->prev = l->tail;
    if (l->tail != NULL)
        vsd_rp(l->tail)->next = r;
    else
        l->head = r;
    l->tail = r;
}

md_request_t *vsd_reqlist_pop(vsd_reqlist_t *l)
{
    md_request_t *r = l->head;
    if (r == NULL)
        return NULL;
    l->head = vsd_rp(r)->next;
    if (l->head == NULL)
        l->tail = NULL;
    else
        vsd_rp(l->head)->prev = NULL;
    vsd_rp(r)->next = vsd_rp(r)->prev = NULL;
    return r;
}
