/* cutlink: what ranks see when a link is cut under them (DESIGN.md,
 * invariant 3: a cut link ends in a clear error, never a hang).
 *
 * Ranks pair up (0-1, 2-3, ...) and make round trips, one message each way,
 * alternately 8 B and 32 KiB (so a pair whose traffic is split by size uses
 * both of its subdevices), checking the data, with a 1 ms pause between
 * round trips (the test runs more ranks and firmwares than cores).  Pair
 * 0-1 makes --trips N round trips (default 1000000: it runs until the link
 * goes), the other pairs --others N (default 200).  Counts, not times: both
 * ranks of a pair must agree on when to stop.  test/mpi/hosts.sh runs it
 * across namespace hosts and cuts a link that pair 0-1 needs while it runs.
 *
 * Every rank prints on stdout, each line starting "cutlink: rank R on HOST":
 *   "exchanging with rank P on HOSTP"   after the pair's first round trip
 *   "waiting for rank P on HOSTP for N s, no error yet"   every 5 s that a
 *       round trip does not complete (so that a rank that would hang says so)
 *   "done: N round trips with rank P in T s"   all its round trips made
 *   "exchange with rank P on HOSTP failed after N round trips, T s into the
 *       loop, W s after the last one completed: ERROR"   an MPI call
 *       returned an error (MPI_ERRORS_RETURN)
 * A wrong byte is reported the same way ("wrong data").  After a failure
 * the rank waits --grace S seconds (default 5), so that the other ranks the
 * fault touches can report theirs, then calls MPI_Abort (status 3, 4 for
 * wrong data): hydra 4.0.2 ends a job when a rank is killed by a signal or
 * aborts, not when one exits with an error status (pmiserv_cb.c cleans up
 * only for !WIFEXITED), and the ranks that finished wait for the missing
 * ones in MPI_Finalize's PMI barrier. */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BIG (32 * 1024)
#define TAG 7
#define WAIT_REPORT_S 5.0

static int rank;
static char host[MPI_MAX_PROCESSOR_NAME];

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* One line, written whole: hydra merges the ranks' output as it reads it,
 * and a line written in pieces can come out interleaved with another
 * rank's (which the test's parsing of these lines cannot take). */
static void say(const char *fmt, ...)
{
    char line[8192];
    int n = snprintf(line, sizeof(line), "cutlink: rank %d on %s: ", rank, host);
    va_list ap;

    va_start(ap, fmt);
    if (n > 0 && (size_t)n < sizeof(line))
        vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
    va_end(ap);
    fprintf(stdout, "%s\n", line);
    fflush(stdout);
}

static void end_after_failure(double grace, int code)
{
    struct timespec t = {(time_t)grace, (long)((grace - (time_t)grace) * 1e9)};
    nanosleep(&t, NULL);
    MPI_Abort(MPI_COMM_WORLD, code);
    exit(code);
}

static void fill(unsigned char *b, int n, long trip, int from)
{
    for (int i = 0; i < n; i++)
        b[i] = (unsigned char)(trip * 31 + from * 7 + i);
}

static int check(const unsigned char *b, int n, long trip, int from)
{
    for (int i = 0; i < n; i++)
        if (b[i] != (unsigned char)(trip * 31 + from * 7 + i))
            return i;
    return -1;
}

int main(int argc, char **argv)
{
    long trips_01 = 1000000, trips_others = 200;
    double grace = 5;
    int size, len;

    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--trips") == 0)
            trips_01 = atol(argv[i + 1]);
        else if (strcmp(argv[i], "--others") == 0)
            trips_others = atol(argv[i + 1]);
        else if (strcmp(argv[i], "--grace") == 0)
            grace = atof(argv[i + 1]);
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Get_processor_name(host, &len);
    if (size % 2 != 0) {
        if (rank == 0)
            fprintf(stderr, "cutlink: needs an even number of ranks, got %d\n", size);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char (*hosts)[MPI_MAX_PROCESSOR_NAME] = malloc((size_t)size * MPI_MAX_PROCESSOR_NAME);
    unsigned char *out = malloc(BIG), *in = malloc(BIG);
    if (!hosts || !out || !in)
        MPI_Abort(MPI_COMM_WORLD, 2);
    MPI_Allgather(host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, hosts, MPI_MAX_PROCESSOR_NAME,
                  MPI_CHAR, MPI_COMM_WORLD);

    int peer = rank ^ 1;
    long limit = rank < 2 ? trips_01 : trips_others;
    const struct timespec pause = {0, 1000000};
    long trips = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime(), last = t0;
    while (trips < limit) {
        int n = trips % 2 ? BIG : 8, done = 0, rc, bad, count;
        MPI_Request req[2];
        MPI_Status st[2];
        fill(out, n, trips, rank);
        rc = MPI_Irecv(in, BIG, MPI_BYTE, peer, TAG, MPI_COMM_WORLD, &req[0]);
        if (rc == MPI_SUCCESS)
            rc = MPI_Isend(out, n, MPI_BYTE, peer, TAG, MPI_COMM_WORLD, &req[1]);
        double next_report = MPI_Wtime() + WAIT_REPORT_S;
        while (rc == MPI_SUCCESS && !done) {
            rc = MPI_Testall(2, req, &done, st);
            if (rc == MPI_SUCCESS && !done && MPI_Wtime() > next_report) {
                say("waiting for rank %d on %s for %.0f s, no error yet", peer, hosts[peer],
                    MPI_Wtime() - last);
                next_report += WAIT_REPORT_S;
            }
        }
        if (rc != MPI_SUCCESS) {
            char err[MPI_MAX_ERROR_STRING];
            int elen, i;
            /* MPI_ERR_IN_STATUS: the request's own error says more */
            if (rc == MPI_ERR_IN_STATUS)
                for (i = 0; i < 2; i++)
                    if (st[i].MPI_ERROR != MPI_SUCCESS && st[i].MPI_ERROR != MPI_ERR_PENDING) {
                        rc = st[i].MPI_ERROR;
                        break;
                    }
            MPI_Error_string(rc, err, &elen);
            say("exchange with rank %d on %s failed after %ld round trips, %.1f s into the "
                "loop, %.1f s after the last one completed: %s",
                peer, hosts[peer], trips, MPI_Wtime() - t0, MPI_Wtime() - last, err);
            end_after_failure(grace, 3);
        }
        MPI_Get_count(&st[0], MPI_BYTE, &count);
        bad = count == n ? check(in, n, trips, peer) : 0;
        if (bad >= 0) {
            say("exchange with rank %d on %s failed after %ld round trips: wrong data "
                "(%d bytes, first wrong byte %d)", peer, hosts[peer], trips, count, bad);
            end_after_failure(grace, 4);
        }
        if (trips++ == 0)
            say("exchanging with rank %d on %s", peer, hosts[peer]);
        last = MPI_Wtime();
        nanosleep(&pause, NULL);
    }
    say("done: %ld round trips with rank %d in %.1f s", trips, peer, MPI_Wtime() - t0);
    free(hosts);
    free(out);
    free(in);
    MPI_Finalize();
    return 0;
}
