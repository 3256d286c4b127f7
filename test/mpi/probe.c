/* Probe family: rank 1 sends messages of sizes rank 0 does not know in
 * advance; rank 0 learns each size by MPI_Probe, MPI_Iprobe (polling),
 * MPI_Mprobe + MPI_Mrecv and MPI_Improbe + MPI_Imrecv, receives it into a
 * buffer of exactly that size and checks data and status.  Also: a probe
 * does not consume the message (probe twice, same answer), a matched probe's
 * message cannot be taken by another receive, and Iprobe on an empty queue
 * says no. */
#include "mpitest.h"

#define NMSG 40

static size_t size_of(int i)
{
    static const size_t s[] = {0, 3, 100, 4096, 20000, 300000};
    return s[i % 6];
}

static void verify(const unsigned char *buf, int count, int i, const MPI_Status *st,
                   const char *how)
{
    size_t n = size_of(i);
    CHECK(count == (int)n, "%s message %d: count %d, expected %zu", how, i, count, n);
    CHECK(st->MPI_SOURCE == 1 && st->MPI_TAG == i, "%s message %d: status %d/%d", how, i,
          st->MPI_SOURCE, st->MPI_TAG);
    if (count == (int)n) {
        long bad = mt_verify(buf, n, 1, (uint64_t)i, n);
        CHECK(bad < 0, "%s message %d: wrong byte at %ld", how, i, bad);
    }
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "probe", 2);
    int flag;
    MPI_Status st, st2;

    if (mt_rank == 0) {
        MPI_Iprobe(1, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
        CHECK(!flag, "Iprobe found a message before any was sent (tag %d)", st.MPI_TAG);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    if (mt_rank == 1) {
        unsigned char *buf = mt_malloc(300000);
        for (int i = 0; i < NMSG; i++) {
            size_t n = size_of(i);
            mt_fill(buf, n, 1, (uint64_t)i, n);
            MPI_Send(buf, (int)n, MPI_BYTE, 0, i, MPI_COMM_WORLD);
        }
        free(buf);
    } else if (mt_rank == 0) {
        for (int i = 0; i < NMSG; i++) {
            int count = -1, count2 = -1;
            unsigned char *buf;
            switch (i % 4) {
            case 0: /* Probe twice, then Recv */
                MPI_Probe(1, i, MPI_COMM_WORLD, &st);
                MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st2);
                MPI_Get_count(&st, MPI_BYTE, &count);
                MPI_Get_count(&st2, MPI_BYTE, &count2);
                CHECK(count == count2 && st2.MPI_TAG == i,
                      "second probe of message %d saw tag %d count %d (first: count %d)", i,
                      st2.MPI_TAG, count2, count);
                buf = mt_malloc((size_t)count);
                MPI_Recv(buf, count, MPI_BYTE, 1, i, MPI_COMM_WORLD, &st);
                MPI_Get_count(&st, MPI_BYTE, &count);
                verify(buf, count, i, &st, "Probe");
                break;
            case 1: /* Iprobe until found */
                flag = 0;
                while (!flag)
                    MPI_Iprobe(MPI_ANY_SOURCE, i, MPI_COMM_WORLD, &flag, &st);
                MPI_Get_count(&st, MPI_BYTE, &count);
                buf = mt_malloc((size_t)count);
                MPI_Recv(buf, count, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &st);
                MPI_Get_count(&st, MPI_BYTE, &count);
                verify(buf, count, i, &st, "Iprobe");
                break;
            case 2: { /* Mprobe: the matched message is ours alone */
                MPI_Message msg;
                MPI_Mprobe(1, MPI_ANY_TAG, MPI_COMM_WORLD, &msg, &st);
                CHECK(st.MPI_TAG == i, "Mprobe: tag %d, expected %d", st.MPI_TAG, i);
                MPI_Get_count(&st, MPI_BYTE, &count);
                /* The next message (i+1) may already be here; this one must not
                 * be visible to a probe any more. */
                MPI_Iprobe(1, i, MPI_COMM_WORLD, &flag, &st2);
                CHECK(!flag, "message %d still visible after Mprobe", i);
                buf = mt_malloc((size_t)count);
                MPI_Mrecv(buf, count, MPI_BYTE, &msg, &st);
                CHECK(msg == MPI_MESSAGE_NULL, "Mrecv did not reset the message handle");
                MPI_Get_count(&st, MPI_BYTE, &count);
                verify(buf, count, i, &st, "Mprobe");
                break;
            }
            default: { /* Improbe + Imrecv */
                MPI_Message msg;
                MPI_Request req;
                flag = 0;
                while (!flag)
                    MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &msg, &st);
                CHECK(st.MPI_TAG == i, "Improbe: tag %d, expected %d", st.MPI_TAG, i);
                MPI_Get_count(&st, MPI_BYTE, &count);
                buf = mt_malloc((size_t)count);
                MPI_Imrecv(buf, count, MPI_BYTE, &msg, &req);
                MPI_Wait(&req, &st);
                MPI_Get_count(&st, MPI_BYTE, &count);
                verify(buf, count, i, &st, "Improbe");
                break;
            }
            }
            free(buf);
        }
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
        CHECK(!flag, "a message is left over (tag %d)", st.MPI_TAG);
    }
    return mt_finish();
}
