/* MPI-IO (ROMIO) on a local file, collectively: every rank writes its
 * blocks of a shared file with MPI_File_write_at_all and through a strided
 * file view with MPI_File_write_all (the ranks' blocks interleaved, so
 * ROMIO's two-phase collective buffering merges them), the file is closed,
 * reopened read-only, and every rank reads back blocks written by other
 * ranks (MPI_File_read_at_all, and MPI_File_read_all through a view shifted
 * by one rank) and checks every byte.  Also checks the file's size, a
 * non-collective write/read pair, MPI_File_sync and MPI_File_delete.
 *
 * The file goes into the directory given as argv[1], else $TMPDIR, else
 * /tmp: all ranks must see the same directory (one machine, or a shared
 * file system). */
#include "mpitest.h"

#include <unistd.h>

#define BLOCK 40000 /* bytes per rank and round; not a multiple of a page */
#define ROUNDS 3

static void check_io(int rc, const char *what)
{
    if (rc != MPI_SUCCESS) {
        char msg[MPI_MAX_ERROR_STRING];
        int len = 0;
        MPI_Error_string(rc, msg, &len);
        CHECK(rc == MPI_SUCCESS, "%s: %s", what, msg);
    }
}

static void check_count(MPI_Status *st, int want, const char *what)
{
    int got = -1;
    MPI_Get_count(st, MPI_BYTE, &got);
    CHECK(got == want, "%s: %d bytes transferred, wanted %d", what, got, want);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "mpiio", 2);
    char path[4096];
    if (mt_rank == 0) {
        const char *dir = argc > 1 ? argv[1] : getenv("TMPDIR");
        if (!dir || !*dir)
            dir = "/tmp";
        snprintf(path, sizeof path, "%s/mpiio-test-%ld-%d.dat", dir, (long)getpid(), mt_size);
    }
    MPI_Bcast(path, sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);

    MPI_File fh;
    MPI_Status st;
    /* errors of file operations are returned (MPI_ERRORS_RETURN is the
     * default handler of files), so every call is checked */
    int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY,
                           MPI_INFO_NULL, &fh);
    check_io(rc, "MPI_File_open for writing");
    if (rc != MPI_SUCCESS)
        return mt_finish();

    unsigned char *buf = mt_malloc(BLOCK);
    /* part 1: explicit offsets, rank r's block of round k at (k * size + r) * BLOCK */
    for (int k = 0; k < ROUNDS; k++) {
        mt_fill(buf, BLOCK, (uint64_t)mt_rank, 1, (uint64_t)k);
        MPI_Offset off = ((MPI_Offset)k * mt_size + mt_rank) * BLOCK;
        check_io(MPI_File_write_at_all(fh, off, buf, BLOCK, MPI_BYTE, &st), "write_at_all");
        check_count(&st, BLOCK, "write_at_all");
    }
    /* part 2: after it, a strided view: rank r sees every size-th block of
     * BLOCK bytes starting at block r, so one write_all of ROUNDS blocks
     * interleaves with the other ranks' */
    MPI_Offset base = (MPI_Offset)ROUNDS * mt_size * BLOCK;
    MPI_Datatype blk, strided;
    MPI_Type_contiguous(BLOCK, MPI_BYTE, &blk);
    MPI_Type_create_resized(blk, 0, (MPI_Aint)mt_size * BLOCK, &strided);
    MPI_Type_commit(&strided);
    check_io(MPI_File_set_view(fh, base + (MPI_Offset)mt_rank * BLOCK, MPI_BYTE, strided,
                               "native", MPI_INFO_NULL), "set_view for writing");
    unsigned char *many = mt_malloc((size_t)ROUNDS * BLOCK);
    for (int k = 0; k < ROUNDS; k++)
        mt_fill(many + (size_t)k * BLOCK, BLOCK, (uint64_t)mt_rank, 2, (uint64_t)k);
    check_io(MPI_File_write_all(fh, many, ROUNDS * BLOCK, MPI_BYTE, &st), "write_all");
    check_count(&st, ROUNDS * BLOCK, "write_all");
    /* part 3: independent I/O: the last rank appends a trailer alone */
    check_io(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL),
             "set_view back to bytes");
    MPI_Offset trailer = base + (MPI_Offset)ROUNDS * mt_size * BLOCK;
    if (mt_rank == mt_size - 1) {
        mt_fill(buf, 1000, 99, 3, 0);
        check_io(MPI_File_write_at(fh, trailer, buf, 1000, MPI_BYTE, &st), "write_at");
        check_count(&st, 1000, "write_at");
    }
    check_io(MPI_File_sync(fh), "sync");
    check_io(MPI_File_close(&fh), "close after writing");

    rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    check_io(rc, "MPI_File_open for reading");
    if (rc == MPI_SUCCESS) {
        MPI_Offset size = -1;
        check_io(MPI_File_get_size(fh, &size), "get_size");
        CHECK(size == trailer + 1000, "file size %lld, wanted %lld", (long long)size,
              (long long)(trailer + 1000));
        /* part 1 back: each rank reads the blocks of the next rank */
        int other = (mt_rank + 1) % mt_size;
        for (int k = 0; k < ROUNDS; k++) {
            memset(buf, 0, BLOCK);
            MPI_Offset off = ((MPI_Offset)k * mt_size + other) * BLOCK;
            check_io(MPI_File_read_at_all(fh, off, buf, BLOCK, MPI_BYTE, &st), "read_at_all");
            check_count(&st, BLOCK, "read_at_all");
            long bad = mt_verify(buf, BLOCK, (uint64_t)other, 1, (uint64_t)k);
            CHECK(bad < 0, "round %d: block of rank %d read back wrong at byte %ld", k, other,
                  bad);
        }
        /* part 2 back: the strided view of the previous rank */
        int prev = (mt_rank + mt_size - 1) % mt_size;
        check_io(MPI_File_set_view(fh, base + (MPI_Offset)prev * BLOCK, MPI_BYTE, strided,
                                   "native", MPI_INFO_NULL), "set_view for reading");
        memset(many, 0, (size_t)ROUNDS * BLOCK);
        check_io(MPI_File_read_all(fh, many, ROUNDS * BLOCK, MPI_BYTE, &st), "read_all");
        check_count(&st, ROUNDS * BLOCK, "read_all");
        for (int k = 0; k < ROUNDS; k++) {
            long bad = mt_verify(many + (size_t)k * BLOCK, BLOCK, (uint64_t)prev, 2, (uint64_t)k);
            CHECK(bad < 0, "view round %d: block of rank %d read back wrong at byte %ld", k, prev,
                  bad);
        }
        /* part 3 back, by rank 0 alone */
        check_io(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL),
                 "set_view back to bytes");
        if (mt_rank == 0) {
            memset(buf, 0, 1000);
            check_io(MPI_File_read_at(fh, trailer, buf, 1000, MPI_BYTE, &st), "read_at");
            check_count(&st, 1000, "read_at");
            CHECK(mt_verify(buf, 1000, 99, 3, 0) < 0, "trailer read back wrong");
        }
        check_io(MPI_File_close(&fh), "close after reading");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (mt_rank == 0) {
        check_io(MPI_File_delete(path, MPI_INFO_NULL), "delete");
        CHECK(access(path, F_OK) != 0, "%s still exists after MPI_File_delete", path);
        printf("mpiio: %d ranks wrote and read back %lld bytes of %s\n", mt_size,
               (long long)(trailer + 1000), path);
    }
    MPI_Type_free(&strided);
    MPI_Type_free(&blk);
    free(many);
    free(buf);
    return mt_finish();
}
