/* MPI_ANY_SOURCE from several senders: every rank but 0 sends a run of
 * patterned messages of mixed sizes to rank 0, which receives them all with
 * MPI_ANY_SOURCE (blocking, then nonblocking with several receives posted at
 * once) and checks that each arrives exactly once, from the source its status
 * names, in each sender's sending order, with the right data. */
#include "mpitest.h"

#define PER_SENDER 200
#define MAXSZ 70000

static size_t msg_size(int sender, int seq)
{
    static const size_t choice[] = {0, 4, 64, 1024, 9000, MAXSZ};
    return choice[(unsigned)(sender * 7 + seq * 3) % 6];
}

/* Checks one received message against what its sender must have sent next. */
static void check_msg(const MPI_Status *st, const unsigned char *buf, int *next_seq, int phase)
{
    int src = st->MPI_SOURCE, count = -1;
    CHECK(src > 0 && src < mt_size, "phase %d: bad source %d", phase, src);
    if (src <= 0 || src >= mt_size)
        return;
    int seq = next_seq[src]++;
    CHECK(st->MPI_TAG == phase, "phase %d: tag %d", phase, st->MPI_TAG);
    MPI_Get_count(st, MPI_BYTE, &count);
    size_t want = msg_size(src, seq);
    CHECK(count == (int)want, "from %d seq %d: count %d, expected %zu (order broken?)", src, seq,
          count, want);
    if (count == (int)want) {
        long bad = mt_verify(buf, want, (uint64_t)src, (uint64_t)(phase * 100000 + seq), want);
        CHECK(bad < 0, "from %d seq %d: wrong byte at %ld", src, seq, bad);
    }
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "anysource", 2);
    int nsend = mt_size - 1;
    int *next_seq = calloc((size_t)mt_size, sizeof(int));
    unsigned char *buf = mt_malloc((size_t)MAXSZ * 8);

    for (int phase = 0; phase < 2; phase++) {
        if (mt_rank == 0) {
            memset(next_seq, 0, (size_t)mt_size * sizeof(int));
            int total = nsend * PER_SENDER;
            if (phase == 0) {
                for (int i = 0; i < total; i++) {
                    MPI_Status st;
                    MPI_Recv(buf, MAXSZ, MPI_BYTE, MPI_ANY_SOURCE, phase, MPI_COMM_WORLD, &st);
                    check_msg(&st, buf, next_seq, phase);
                }
            } else {
                /* Eight wildcard receives in flight; completed in posting order
                 * by MPI_Wait, so per-sender order is still observable. */
                MPI_Request req[8];
                MPI_Status st;
                int posted = 0, done = 0;
                for (; posted < 8 && posted < total; posted++)
                    MPI_Irecv(buf + (size_t)posted * MAXSZ, MAXSZ, MPI_BYTE, MPI_ANY_SOURCE,
                              phase, MPI_COMM_WORLD, &req[posted]);
                while (done < total) {
                    int slot = done % 8;
                    MPI_Wait(&req[slot], &st);
                    check_msg(&st, buf + (size_t)slot * MAXSZ, next_seq, phase);
                    done++;
                    if (posted < total) {
                        MPI_Irecv(buf + (size_t)slot * MAXSZ, MAXSZ, MPI_BYTE, MPI_ANY_SOURCE,
                                  phase, MPI_COMM_WORLD, &req[slot]);
                        posted++;
                    }
                }
            }
            for (int s = 1; s < mt_size; s++)
                CHECK(next_seq[s] == PER_SENDER, "phase %d: %d messages from %d, expected %d",
                      phase, next_seq[s], s, PER_SENDER);
        } else {
            for (int seq = 0; seq < PER_SENDER; seq++) {
                size_t n = msg_size(mt_rank, seq);
                mt_fill(buf, n, (uint64_t)mt_rank, (uint64_t)(phase * 100000 + seq), n);
                MPI_Send(buf, (int)n, MPI_BYTE, 0, phase, MPI_COMM_WORLD);
            }
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    free(buf);
    free(next_seq);
    return mt_finish();
}
