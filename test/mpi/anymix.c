/* Wildcard and specific receives interleaved: posting order decides.
 * Rank 0 posts a list of receives, some from a given source and some with
 * MPI_ANY_SOURCE, then lets ranks 1 and 2 send one message at a time (each
 * waits for a "go"), so the arrival order is known.  Every message must
 * complete the earliest-posted pending receive that matches it, which rank 0
 * checks with MPI_Waitany.  Then the same with persistent receives, one of
 * them a wildcard, restarted between messages. */
#include "mpitest.h"

#define GO_TAG 1
#define DATA_TAG 2
#define STOP (-1)

/* Sender side: waits for go(step), answers with the step as payload. */
static void serve(void)
{
    for (;;) {
        int step;
        MPI_Recv(&step, 1, MPI_INT, 0, GO_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (step == STOP)
            return;
        MPI_Send(&step, 1, MPI_INT, 0, DATA_TAG, MPI_COMM_WORLD);
    }
}

static void stop_senders(void)
{
    int stop = STOP;
    for (int r = 1; r < mt_size; r++)
        MPI_Send(&stop, 1, MPI_INT, r, GO_TAG, MPI_COMM_WORLD);
}

/* Lets `sender` send message `step`, waits for any of reqs to complete and
 * checks it is `want` with the right payload and source. */
static void step_and_check(int step, int sender, MPI_Request *reqs, int nreq, const int *vals,
                           int want, const char *what)
{
    int idx = -1;
    MPI_Status st;
    MPI_Send(&step, 1, MPI_INT, sender, GO_TAG, MPI_COMM_WORLD);
    MPI_Waitany(nreq, reqs, &idx, &st);
    CHECK(idx == want, "%s step %d (from %d): completed receive %d, expected %d", what, step,
          sender, idx, want);
    if (idx >= 0 && idx < nreq) {
        CHECK(vals[idx] == step, "%s step %d: payload %d", what, step, vals[idx]);
        CHECK(st.MPI_SOURCE == sender, "%s step %d: source %d, expected %d", what, step,
              st.MPI_SOURCE, sender);
    }
}

static void posted_order(void)
{
    /* receive i: source (-1 = ANY_SOURCE) */
    static const int src[6] = {1, -1, 2, -1, 1, 2};
    /* step: which rank sends, and which receive it must complete */
    static const int sender[6] = {2, 2, 1, 1, 2, 1};
    static const int want[6] = {1, 2, 0, 3, 5, 4};
    MPI_Request reqs[6];
    int vals[6];
    for (int i = 0; i < 6; i++) {
        vals[i] = -100;
        MPI_Irecv(&vals[i], 1, MPI_INT, src[i] < 0 ? MPI_ANY_SOURCE : src[i], DATA_TAG,
                  MPI_COMM_WORLD, &reqs[i]);
    }
    for (int s = 0; s < 6; s++)
        step_and_check(s, sender[s], reqs, 6, vals, want[s], "posted");
}

static void persistent_order(void)
{
    MPI_Request p[2];
    int vals[2] = {-100, -100};
    MPI_Recv_init(&vals[0], 1, MPI_INT, MPI_ANY_SOURCE, DATA_TAG, MPI_COMM_WORLD, &p[0]);
    MPI_Recv_init(&vals[1], 1, MPI_INT, 1, DATA_TAG, MPI_COMM_WORLD, &p[1]);
    MPI_Start(&p[0]);
    MPI_Start(&p[1]);
    /* from 1: the wildcard was posted first */
    step_and_check(100, 1, p, 2, vals, 0, "persistent");
    MPI_Start(&p[0]); /* now the specific one is older */
    step_and_check(101, 1, p, 2, vals, 1, "persistent");
    step_and_check(102, 2, p, 2, vals, 0, "persistent");
    MPI_Start(&p[0]);
    MPI_Start(&p[1]);
    step_and_check(103, 2, p, 2, vals, 0, "persistent");
    step_and_check(104, 1, p, 2, vals, 1, "persistent");
    MPI_Request_free(&p[0]);
    MPI_Request_free(&p[1]);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "anymix", 3);
    if (mt_rank == 0) {
        posted_order();
        persistent_order();
        stop_senders();
    } else {
        serve();
    }
    return mt_finish();
}
