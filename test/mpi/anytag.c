/* MPI_ANY_TAG: rank 1 sends messages with assorted tags to rank 0.
 * (a) all received with ANY_TAG: they come in sending order, each status
 *     naming the tag it was sent with;
 * (b) one tag picked out first by specific receives, then the rest with
 *     ANY_TAG: both subsequences keep sending order;
 * (c) ANY_SOURCE and ANY_TAG together.  Other ranks only watch. */
#include "mpitest.h"

#define NMSG 300

static int tag_of(int i) { return (i * 7) % 13; }

static void check_int_msg(const MPI_Status *st, const int *payload, int want_i, const char *what)
{
    CHECK(payload[0] == want_i, "%s: got message %d, expected %d", what, payload[0], want_i);
    CHECK(payload[1] == want_i * 31 + 5, "%s: message %d: payload %d", what, want_i,
          payload[1]);
    CHECK(st->MPI_TAG == tag_of(want_i), "%s: message %d: tag %d, expected %d", what, want_i,
          st->MPI_TAG, tag_of(want_i));
    CHECK(st->MPI_SOURCE == 1, "%s: source %d", what, st->MPI_SOURCE);
}

static void send_all(void)
{
    for (int i = 0; i < NMSG; i++) {
        int payload[2] = {i, i * 31 + 5};
        MPI_Send(payload, 2, MPI_INT, 0, tag_of(i), MPI_COMM_WORLD);
    }
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "anytag", 2);
    int payload[2];
    MPI_Status st;
    for (int phase = 0; phase < 3; phase++) {
        if (mt_rank == 1) {
            send_all();
        } else if (mt_rank == 0) {
            if (phase == 0) {
                for (int i = 0; i < NMSG; i++) {
                    MPI_Recv(payload, 2, MPI_INT, 1, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
                    check_int_msg(&st, payload, i, "any-tag");
                }
            } else if (phase == 1) {
                const int pick = 5;
                for (int i = 0; i < NMSG; i++) {
                    if (tag_of(i) != pick)
                        continue;
                    MPI_Recv(payload, 2, MPI_INT, 1, pick, MPI_COMM_WORLD, &st);
                    check_int_msg(&st, payload, i, "specific tag first");
                }
                for (int i = 0; i < NMSG; i++) {
                    if (tag_of(i) == pick)
                        continue;
                    MPI_Recv(payload, 2, MPI_INT, 1, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
                    check_int_msg(&st, payload, i, "any-tag after specific");
                }
            } else {
                for (int i = 0; i < NMSG; i++) {
                    MPI_Recv(payload, 2, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
                             &st);
                    check_int_msg(&st, payload, i, "any-source any-tag");
                }
            }
            int flag = 1;
            MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
            CHECK(!flag, "phase %d: a message is left over (tag %d)", phase, st.MPI_TAG);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    return mt_finish();
}
