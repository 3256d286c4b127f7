/* myri_util.c - request and message lists, envelope packing. */
#include "config.h"

#include <string.h>

#include "myri_impl.h"

void myri_reqlist_append(myri_reqlist_t *l, md_request_t *r)
{
    myri_rp(r)->next = NULL;
    myri_rp(r)->prev = l->tail;
    if (l->tail != NULL)
        myri_rp(l->tail)->next = r;
    else
        l->head = r;
    l->tail = r;
}

void myri_reqlist_remove(myri_reqlist_t *l, md_request_t *r)
{
    myri_rpriv_t *p = myri_rp(r);
    if (p->prev != NULL)
        myri_rp(p->prev)->next = p->next;
    else
        l->head = p->next;
    if (p->next != NULL)
        myri_rp(p->next)->prev = p->prev;
    else
        l->tail = p->prev;
    p->next = p->prev = NULL;
}

md_request_t *myri_reqlist_pop(myri_reqlist_t *l)
{
    md_request_t *r = l->head;
    if (r != NULL)
        myri_reqlist_remove(l, r);
    return r;
}

void myri_msgq_append(myri_msgq_t *q, myri_msg_t *m)
{
    m->next = NULL;
    m->prev = q->tail;
    if (q->tail != NULL)
        q->tail->next = m;
    else
        q->head = m;
    q->tail = m;
}

void myri_msgq_remove(myri_msgq_t *q, myri_msg_t *m)
{
    if (m->prev != NULL)
        m->prev->next = m->next;
    else
        q->head = m->next;
    if (m->next != NULL)
        m->next->prev = m->prev;
    else
        q->tail = m->prev;
    m->next = m->prev = NULL;
}

_Static_assert(sizeof(md_envelope_t) == 5 * sizeof(uint64_t), "envelope fits the GAM arguments");

void myri_env_pack(const md_envelope_t *env, uint64_t args[5])
{
    memcpy(args, env, sizeof(*env));
}

void myri_env_unpack(const uint64_t args[5], md_envelope_t *env)
{
    memcpy(env, args, sizeof(*env));
}
