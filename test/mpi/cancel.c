/* MPI_Cancel of receives.
 * A: three receives posted (specific, ANY_SOURCE, specific), the middle one
 *    cancelled before anything is sent: it must report cancelled, and the two
 *    messages sent afterwards go to the two others, in posting order.
 * B: a persistent receive started and cancelled, then started again and
 *    used normally.
 * C: a receive whose message has (very likely) arrived is cancelled: either
 *    the cancel fails and the data is there, or it succeeds and the message
 *    is still there for the next receive -- never lost, never both.
 * Rank 1 sends; rank 0 receives; other ranks only watch. */
#include "mpitest.h"

static void part_a(void)
{
    int v1 = -1, v2 = -1, v3 = -1, cancelled = 0;
    MPI_Request r1, r2, r3;
    MPI_Status st;
    if (mt_rank == 0) {
        MPI_Irecv(&v1, 1, MPI_INT, 1, 10, MPI_COMM_WORLD, &r1);
        MPI_Irecv(&v2, 1, MPI_INT, MPI_ANY_SOURCE, 10, MPI_COMM_WORLD, &r2);
        MPI_Irecv(&v3, 1, MPI_INT, 1, 10, MPI_COMM_WORLD, &r3);
        MPI_Cancel(&r2);
        MPI_Wait(&r2, &st);
        MPI_Test_cancelled(&st, &cancelled);
        CHECK(cancelled, "A: unmatched wildcard receive not cancelled");
        CHECK(r2 == MPI_REQUEST_NULL, "A: request not freed by Wait");
    }
    MPI_Barrier(MPI_COMM_WORLD); /* nothing is sent before the cancel is done */
    if (mt_rank == 1) {
        int a = 1001, b = 1002;
        MPI_Send(&a, 1, MPI_INT, 0, 10, MPI_COMM_WORLD);
        MPI_Send(&b, 1, MPI_INT, 0, 10, MPI_COMM_WORLD);
    } else if (mt_rank == 0) {
        MPI_Wait(&r1, &st);
        MPI_Test_cancelled(&st, &cancelled);
        CHECK(!cancelled, "A: first receive reports cancelled");
        MPI_Wait(&r3, &st);
        CHECK(v1 == 1001 && v3 == 1002, "A: got %d and %d, expected 1001 and 1002", v1, v3);
        CHECK(v2 == -1, "A: cancelled receive wrote its buffer (%d)", v2);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

static void part_b(void)
{
    int v = -1, cancelled = 0;
    MPI_Request r;
    MPI_Status st;
    if (mt_rank == 0) {
        MPI_Recv_init(&v, 1, MPI_INT, 1, 11, MPI_COMM_WORLD, &r);
        MPI_Start(&r);
        MPI_Cancel(&r);
        MPI_Wait(&r, &st);
        MPI_Test_cancelled(&st, &cancelled);
        CHECK(cancelled, "B: persistent receive not cancelled");
        CHECK(r != MPI_REQUEST_NULL, "B: persistent request freed by Wait");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (mt_rank == 1) {
        int a = 2002;
        MPI_Send(&a, 1, MPI_INT, 0, 11, MPI_COMM_WORLD);
    } else if (mt_rank == 0) {
        MPI_Start(&r);
        MPI_Wait(&r, &st);
        MPI_Test_cancelled(&st, &cancelled);
        CHECK(!cancelled && v == 2002, "B: restarted receive got %d (cancelled=%d)", v,
              cancelled);
        MPI_Request_free(&r);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

static void part_c(size_t n, int tag)
{
    unsigned char *buf = mt_malloc(n);
    int cancelled = 0, count = -1, marker = 0;
    MPI_Request r;
    MPI_Status st;
    if (mt_rank == 1) {
        mt_fill(buf, n, 1, (uint64_t)tag, n);
        MPI_Send(buf, (int)n, MPI_BYTE, 0, tag, MPI_COMM_WORLD);
        MPI_Send(&marker, 1, MPI_INT, 0, tag + 1, MPI_COMM_WORLD);
    } else if (mt_rank == 0) {
        memset(buf, 0, n);
        MPI_Irecv(buf, (int)n, MPI_BYTE, 1, tag, MPI_COMM_WORLD, &r);
        MPI_Recv(&marker, 1, MPI_INT, 1, tag + 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Cancel(&r);
        MPI_Wait(&r, &st);
        MPI_Test_cancelled(&st, &cancelled);
        if (cancelled) {
            /* The message must still be there for another receive. */
            MPI_Recv(buf, (int)n, MPI_BYTE, 1, tag, MPI_COMM_WORLD, &st);
        }
        MPI_Get_count(&st, MPI_BYTE, &count);
        CHECK(count == (int)n, "C(%zu): count %d (cancelled=%d)", n, count, cancelled);
        long bad = mt_verify(buf, n, 1, (uint64_t)tag, n);
        CHECK(bad < 0, "C(%zu): wrong byte at %ld (cancelled=%d)", n, bad, cancelled);
        int flag = 1;
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
        CHECK(!flag, "C(%zu): a message is left over (tag %d)", n, st.MPI_TAG);
    }
    free(buf);
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "cancel", 2);
    part_a();
    part_b();
    part_c(16, 20);
    part_c(1 << 20, 30);
    return mt_finish();
}
