/*
 * md_reqlist.h - a first-in, first-out list of requests, for subdevices.
 *
 * The list is intrusive: a request is linked through the first two words of
 * its sd_priv (md_reqlink_t), so appending, removing any member and popping
 * the head are O(1) and allocate nothing.  A subdevice's own overlay of
 * sd_priv therefore begins with the links (md_mq_req_t, md_mq.h, which
 * holds them), and a request is on at most one list at a time: md_mq's
 * posted list, or one of the subdevice's (done, send queue, ...).
 *
 * Inline, because the shm fast path appends and pops on every message.
 * Not thread-safe: the caller serialises.
 */
#ifndef MD_REQLIST_H
#define MD_REQLIST_H

#include <stddef.h>

#include "md_sdi.h"

typedef struct md_reqlink {
    md_request_t *next, *prev;
} md_reqlink_t;

typedef struct md_reqlist {
    md_request_t *head, *tail;
} md_reqlist_t;

_Static_assert(sizeof(md_reqlink_t) <= sizeof(((md_request_t *)0)->sd_priv),
               "the list links fit sd_priv");

/* The links of req, at the start of its sd_priv. */
static inline md_reqlink_t *md_reqlink(md_request_t *req)
{
    return (md_reqlink_t *)(void *)req->sd_priv;
}

static inline void md_reqlist_init(md_reqlist_t *l)
{
    l->head = l->tail = NULL;
}

static inline int md_reqlist_empty(const md_reqlist_t *l)
{
    return l->head == NULL;
}

/* The member after req, or NULL (for a walk that does not change l). */
static inline md_request_t *md_reqlist_next(md_request_t *req)
{
    return md_reqlink(req)->next;
}

static inline void md_reqlist_append(md_reqlist_t *l, md_request_t *req)
{
    md_reqlink_t *k = md_reqlink(req);

    k->next = NULL;
    k->prev = l->tail;
    if (l->tail != NULL)
        md_reqlink(l->tail)->next = req;
    else
        l->head = req;
    l->tail = req;
}

/* Unlinks req, which must be on l. */
static inline void md_reqlist_remove(md_reqlist_t *l, md_request_t *req)
{
    md_reqlink_t *k = md_reqlink(req);

    if (k->prev != NULL)
        md_reqlink(k->prev)->next = k->next;
    else
        l->head = k->next;
    if (k->next != NULL)
        md_reqlink(k->next)->prev = k->prev;
    else
        l->tail = k->prev;
    k->next = k->prev = NULL;
}

/* Unlinks and returns the head; NULL if l is empty. */
static inline md_request_t *md_reqlist_pop(md_reqlist_t *l)
{
    md_request_t *req = l->head;

    if (req != NULL)
        md_reqlist_remove(l, req);
    return req;
}

#endif /* MD_REQLIST_H */
