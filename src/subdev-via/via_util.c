/* via_util.c - the done list; VIPL results as md statuses. */
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

/* A VIPL call failed for good: the md status that says why.  Never
 * MD_ERR_NO_RESOURCE, which would tell the caller to retry after
 * progress: VIPL_ERROR_RESOURCE is a table or memory that ran out. */
int vsd_status_of_vipl(vipl_result_t r)
{
    switch (r) {
    case VIPL_ERROR_RESOURCE: return MD_ERR_NO_MEMORY;
    case VIPL_NOT_REACHABLE:  return MD_ERR_PEER_FAILED;
    case VIPL_TIMEOUT:        return MD_ERR_TIMEOUT;
    case VIPL_INVALID_PTAG:   return MD_ERR_PROTECTION;
    default:                  return MD_ERR_IO;
    }
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
