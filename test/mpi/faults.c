/*
 * faults.c - a job that keeps checking its results while test/mpi/faults.sh
 * breaks something under it (issue 18: a failure must be an error, never a
 * wrong answer or a hang).  Every iteration:
 *
 *   - MPI_Allreduce of a long: the sum of (rank + i) over the ranks;
 *   - every 4th, MPI_Bcast of 64 ints from root i % size;
 *   - every 8th, an RMA epoch: each rank puts its (rank, i) into its right
 *     neighbour's window and gets its left neighbour's, between fences;
 *   - a point-to-point round trip between rank 0 and rank --pair (default
 *     the last; in a relay set-up, a rank that rank 0 reaches through the
 *     relay: a forwarded send).
 *
 * Each rank checks every result.  It prints, on stdout, one line at the
 * start ("faults: rank R on NODE pid P: started"), a heartbeat every 20
 * iterations, and one line at the end: "... done: N iterations, every
 * result right", or "... error in OP at iteration I: class NAME (C): TEXT"
 * (with --errors-return; under MPI_ERRORS_ARE_FATAL, MPICH prints the error
 * and aborts), or "... WRONG RESULT in OP at iteration I: ..." (exit 3) -
 * the one outcome that must never happen.  After an error a rank waits
 * --grace seconds (so that the others report theirs) and calls MPI_Abort.
 *
 * --bcast-only runs nothing but the MPI_Bcast, every iteration (a receive
 * from a failed root is the one step MPICH's binomial broadcast checks the
 * received size of: the fault must land there).
 *
 * --no-rma leaves the RMA epochs out (and the window, whose creation is a
 * collective of MPICH's own that cannot fail cleanly when the network is
 * broken from the start).
 *
 * Usage: faults [--iters N] [--errors-return] [--grace S] [--pace-us U] [--pair R]
 *               [--no-rma] [--bcast-only]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NBCAST 64

static int me, np, iters = 400, errors_return, grace_s = 5, pace_us = 20000, pair = -1;
static int use_rma = 1, bcast_only;
static char node[64];

static const char *class_name(int cls)
{
    switch (cls) {
    case MPI_SUCCESS:          return "MPI_SUCCESS";
    case MPI_ERR_OTHER:        return "MPI_ERR_OTHER";
    case MPI_ERR_INTERN:       return "MPI_ERR_INTERN";
    case MPI_ERR_TRUNCATE:     return "MPI_ERR_TRUNCATE";
    case MPI_ERR_IN_STATUS:    return "MPI_ERR_IN_STATUS";
    case MPI_ERR_PENDING:      return "MPI_ERR_PENDING";
    case MPI_ERR_RMA_SYNC:     return "MPI_ERR_RMA_SYNC";
    case MPIX_ERR_PROC_FAILED: return "MPIX_ERR_PROC_FAILED";
    case MPIX_ERR_PROC_FAILED_PENDING: return "MPIX_ERR_PROC_FAILED_PENDING";
    case MPIX_ERR_REVOKED:     return "MPIX_ERR_REVOKED";
    default:                   return "another class";
    }
}

/* An MPI call returned rc: report it and end (never go on computing). */
static void failed(int rc, const char *op, int i)
{
    char text[MPI_MAX_ERROR_STRING];
    int cls = 0, len = 0;

    MPI_Error_class(rc, &cls);
    MPI_Error_string(rc, text, &len);
    for (char *c = text; *c; c++)
        if (*c == '\n')
            *c = ' ';
    printf("faults: rank %d on %s: error in %s at iteration %d: class %s (%d): %s\n", me, node,
           op, i, class_name(cls), cls, text);
    fflush(stdout);
    sleep((unsigned)grace_s);
    MPI_Abort(MPI_COMM_WORLD, 2);
}

static void wrong(const char *op, int i, long got, long want)
{
    printf("faults: rank %d on %s: WRONG RESULT in %s at iteration %d: got %ld, expected %ld\n",
           me, node, op, i, got, want);
    fflush(stdout);
    exit(3);
}

#define CALL(op, i, call) \
    do { int rc_ = (call); if (rc_ != MPI_SUCCESS) failed(rc_, op, i); } while (0)

static void allreduce(int i)
{
    long mine = me + i, sum = -1, want = (long)np * (np - 1) / 2 + (long)np * i;
    CALL("MPI_Allreduce", i, MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
    if (sum != want)
        wrong("MPI_Allreduce", i, sum, want);
}

static void bcast(int i)
{
    int buf[NBCAST], root = i % np;
    for (int k = 0; k < NBCAST; k++)
        buf[k] = me == root ? i * 1000 + k : -1;
    CALL("MPI_Bcast", i, MPI_Bcast(buf, NBCAST, MPI_INT, root, MPI_COMM_WORLD));
    for (int k = 0; k < NBCAST; k++)
        if (buf[k] != i * 1000 + k)
            wrong("MPI_Bcast", i, buf[k], i * 1000 + k);
}

static void rma(MPI_Win win, long *winbuf, int i)
{
    long put = (long)me * 100000 + i, got = -1;
    int right = (me + 1) % np, left = (me + np - 1) % np;
    CALL("MPI_Win_fence", i, MPI_Win_fence(0, win));
    CALL("MPI_Put", i, MPI_Put(&put, 1, MPI_LONG, right, 0, 1, MPI_LONG, win));
    CALL("MPI_Win_fence", i, MPI_Win_fence(0, win));
    CALL("MPI_Get", i, MPI_Get(&got, 1, MPI_LONG, left, 0, 1, MPI_LONG, win));
    CALL("MPI_Win_fence", i, MPI_Win_fence(0, win));
    /* my window holds what my left neighbour put; its window, what its
     * left neighbour put */
    if (winbuf[0] != (long)left * 100000 + i)
        wrong("MPI_Put", i, winbuf[0], (long)left * 100000 + i);
    if (got != (long)((left + np - 1) % np) * 100000 + i)
        wrong("MPI_Get", i, got, (long)((left + np - 1) % np) * 100000 + i);
}

/* A round trip between rank 0 and rank pair. */
static void far_pair(int i)
{
    int last = pair, v = i * 7 + 1, got = -1;
    if (last == 0 || (me != 0 && me != last))
        return;
    if (me == 0) {
        CALL("MPI_Send", i, MPI_Send(&v, 1, MPI_INT, last, 5, MPI_COMM_WORLD));
        CALL("MPI_Recv", i, MPI_Recv(&got, 1, MPI_INT, last, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    } else {
        CALL("MPI_Recv", i, MPI_Recv(&got, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CALL("MPI_Send", i, MPI_Send(&got, 1, MPI_INT, 0, 6, MPI_COMM_WORLD));
    }
    if (got != v)
        wrong(me == 0 ? "MPI_Recv (round trip)" : "MPI_Recv (forwarded send)", i, got, v);
}

int main(int argc, char **argv)
{
    MPI_Win win = MPI_WIN_NULL;
    long *winbuf = NULL;

    for (int a = 1; a < argc; a++) {
        if (strcmp(argv[a], "--iters") == 0 && a + 1 < argc)
            iters = atoi(argv[++a]);
        else if (strcmp(argv[a], "--errors-return") == 0)
            errors_return = 1;
        else if (strcmp(argv[a], "--grace") == 0 && a + 1 < argc)
            grace_s = atoi(argv[++a]);
        else if (strcmp(argv[a], "--pace-us") == 0 && a + 1 < argc)
            pace_us = atoi(argv[++a]);
        else if (strcmp(argv[a], "--pair") == 0 && a + 1 < argc)
            pair = atoi(argv[++a]);
        else if (strcmp(argv[a], "--no-rma") == 0)
            use_rma = 0;
        else if (strcmp(argv[a], "--bcast-only") == 0) {
            bcast_only = 1;
            use_rma = 0;
        }
        else {
            fprintf(stderr, "usage: faults [--iters N] [--errors-return] [--grace S] "
                            "[--pace-us U] [--pair R] [--no-rma] [--bcast-only]\n");
            return 2;
        }
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (pair < 0 || pair >= np)
        pair = np - 1;
    snprintf(node, sizeof(node), "%s", getenv("MULTIDEV_NODE") ? getenv("MULTIDEV_NODE") : "?");
    if (errors_return)
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (use_rma) {
        MPI_Win_allocate(sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &winbuf,
                         &win);
        if (errors_return)
            MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
        winbuf[0] = -1;
    }
    printf("faults: rank %d on %s pid %d: started\n", me, node, (int)getpid());
    fflush(stdout);
    for (int i = 0; i < iters; i++) {
        if (bcast_only) {
            bcast(i);
        } else {
            allreduce(i);
            if (i % 4 == 0)
                bcast(i);
            if (use_rma && i % 8 == 0)
                rma(win, winbuf, i);
            far_pair(i);
        }
        if (i % 20 == 0) {
            printf("faults: rank %d on %s: iteration %d\n", me, node, i);
            fflush(stdout);
        }
        if (pace_us > 0)
            usleep((useconds_t)pace_us);   /* leave time for the fault to land mid-job */
    }
    if (use_rma)
        MPI_Win_free(&win);
    printf("faults: rank %d on %s: done: %d iterations, every result right\n", me, node, iters);
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
