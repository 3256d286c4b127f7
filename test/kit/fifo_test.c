/*
 * fifo_test.c - MD_FIFO_PUSH/MD_FIFO_POP (src/kit/md_fifo.h, private to
 * the kit): nodes leave in the order they came, the queue is empty again
 * (head and tail NULL) after the last, a popped node is unlinked, and the
 * queue works again after it emptied.
 */
#include <criterion/criterion.h>

#include "md_fifo.h"

struct node {
    struct node *next;
    int          value;
};

struct queue {
    struct node *head, *tail;
};

Test(fifo, first_in_first_out_and_empty_again)
{
    struct queue q = { NULL, NULL };
    struct node a = { .value = 1 }, b = { .value = 2 }, c = { .value = 3 }, *out;

    MD_FIFO_PUSH(&q, &a);
    MD_FIFO_PUSH(&q, &b);
    cr_assert_eq(q.head, &a);
    cr_assert_eq(q.tail, &b);
    MD_FIFO_POP(&q, out);
    cr_assert_eq(out, &a);
    cr_assert_null(out->next, "a popped node is unlinked");
    MD_FIFO_POP(&q, out);
    cr_assert_eq(out->value, 2);
    cr_assert_null(q.head);
    cr_assert_null(q.tail);
    MD_FIFO_PUSH(&q, &c);
    cr_assert_eq(q.head, &c);
    cr_assert_eq(q.tail, &c);
    MD_FIFO_POP(&q, out);
    cr_assert_eq(out, &c);
    cr_assert_null(q.tail);
}
