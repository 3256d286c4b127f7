/* myri_util.c - the held-back arrivals' queue, envelope packing. */
#include "config.h"

#include <string.h>

#include "myri_impl.h"

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
