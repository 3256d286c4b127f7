/* Truncation: with MPI_ERRORS_RETURN on the communicator, receiving a
 * message into a buffer that is too small returns an error of class
 * MPI_ERR_TRUNCATE -- for small (eager) and large messages, blocking and
 * nonblocking receives -- and communication goes on normally afterwards. */
#include "mpitest.h"

static const size_t sizes[] = {16, 1000, 100000, 2 << 20};
#define NSIZES (sizeof sizes / sizeof sizes[0])

static void expect_truncate(int rc, const char *how, size_t n)
{
    int cls = MPI_SUCCESS;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_TRUNCATE, "%s of %zu bytes into %zu: error class %d, expected %d "
          "(MPI_ERR_TRUNCATE)", how, n, n / 2, cls, MPI_ERR_TRUNCATE);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "truncate", 2);
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    /* MPICH 4.0.2 raises an error found by MPI_Wait on MPI_COMM_WORLD's
     * handler instead of the request's communicator's, so returning errors
     * are asked for there as well; the test is about the error class. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    unsigned char *buf = mt_malloc(2 << 20);

    for (size_t i = 0; i < NSIZES; i++) {
        size_t n = sizes[i];
        for (int mode = 0; mode < 2; mode++) {
            int tag = (int)(i * 2) + mode;
            if (mt_rank == 1) {
                mt_fill(buf, n, 1, (uint64_t)tag, n);
                CHECK_MPI(MPI_Send(buf, (int)n, MPI_BYTE, 0, tag, comm));
                /* then a normal message, which must arrive intact */
                mt_fill(buf, n, 1, (uint64_t)tag + 1000, n);
                CHECK_MPI(MPI_Send(buf, (int)n, MPI_BYTE, 0, tag, comm));
            } else if (mt_rank == 0) {
                MPI_Status st;
                int rc;
                memset(buf, 0, n);
                if (mode == 0) {
                    rc = MPI_Recv(buf, (int)(n / 2), MPI_BYTE, 1, tag, comm, &st);
                    expect_truncate(rc, "Recv", n);
                } else {
                    MPI_Request r;
                    CHECK_MPI(MPI_Irecv(buf, (int)(n / 2), MPI_BYTE, 1, tag, comm, &r));
                    rc = MPI_Wait(&r, &st);
                    expect_truncate(rc, "Irecv+Wait", n);
                }
                /* Nothing beyond the receive buffer was written. */
                int clean = 1;
                for (size_t k = n / 2; k < n; k++)
                    clean &= buf[k] == 0;
                CHECK(clean, "truncated receive of %zu bytes wrote past its buffer", n);
                int count = -1;
                CHECK_MPI(MPI_Recv(buf, (int)n, MPI_BYTE, 1, tag, comm, &st));
                MPI_Get_count(&st, MPI_BYTE, &count);
                CHECK(count == (int)n, "after truncation: count %d, expected %zu", count, n);
                long bad = mt_verify(buf, n, 1, (uint64_t)tag + 1000, n);
                CHECK(bad < 0, "after truncation (%zu bytes): wrong byte at %ld", n, bad);
            }
        }
    }
    MPI_Barrier(comm);
    free(buf);
    MPI_Comm_free(&comm);
    return mt_finish();
}
