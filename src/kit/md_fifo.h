/*
 * md_fifo.h - push and pop of an intrusive first-in, first-out queue, for
 * the kit's queues of different node types (md_held's links, md_opq's
 * operations): a queue is any struct with the members head and tail, a
 * node any struct with the member next, so each keeps its own typed
 * fields.  Macros, because the types differ; they allocate nothing.
 * Not thread-safe: the caller serialises.
 */
#ifndef MD_FIFO_H
#define MD_FIFO_H

#include <stddef.h>

/* Appends node to queue q. */
#define MD_FIFO_PUSH(q, node)              \
    do {                                   \
        (node)->next = NULL;               \
        if ((q)->tail != NULL)             \
            (q)->tail->next = (node);      \
        else                               \
            (q)->head = (node);            \
        (q)->tail = (node);                \
    } while (0)

/* Unlinks the first node of the non-empty queue q into out (its next is
 * cleared: it belongs to no queue any more). */
#define MD_FIFO_POP(q, out)                \
    do {                                   \
        (out) = (q)->head;                 \
        (q)->head = (out)->next;           \
        if ((q)->head == NULL)             \
            (q)->tail = NULL;              \
        (out)->next = NULL;                \
    } while (0)

#endif /* MD_FIFO_H */
