/* Derived datatypes: non-contiguous layouts sent and received between rank
 * 0 and rank 1 -- a strided vector into a contiguous buffer and back, an
 * indexed type, a struct of mixed basic types (with its extent resized to
 * an array element), and a 3-D subarray -- every element checked, and the
 * gaps of the receive buffer left untouched. */
#include "mpitest.h"

#define VN 1000     /* vector: VN blocks of 3 doubles every 7 */
#define NX 20
#define NY 30
#define NZ 40

struct rec {
    int id;
    double val;
    char tagc[5];
    long big;
};

static double dval(int i) { return i * 0.5 + 3.0; }

static void vector_test(void)
{
    MPI_Datatype vec;
    MPI_Type_vector(VN, 3, 7, MPI_DOUBLE, &vec);
    MPI_Type_commit(&vec);
    size_t span = (size_t)VN * 7;
    double *strided = mt_malloc(span * sizeof(double));
    double *packed = mt_malloc((size_t)VN * 3 * sizeof(double));
    if (mt_rank == 0) {
        for (size_t k = 0; k < span; k++)
            strided[k] = (k % 7 < 3) ? dval((int)k) : -1.0;
        MPI_Send(strided, 1, vec, 1, 1, MPI_COMM_WORLD);        /* strided -> contiguous */
        MPI_Recv(strided, 1, vec, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        int bad = 0;
        for (size_t k = 0; k < span; k++) {
            double want = (k % 7 < 3) ? 2.0 * dval((int)k) : -1.0;
            bad += strided[k] != want;
        }
        CHECK(bad == 0, "vector: %d wrong elements after contiguous -> strided", bad);
    } else if (mt_rank == 1) {
        MPI_Status st;
        int count = -1;
        MPI_Recv(packed, VN * 3, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_DOUBLE, &count);
        CHECK(count == VN * 3, "vector: count %d doubles, expected %d", count, VN * 3);
        int bad = 0;
        for (int b = 0; b < VN; b++)
            for (int j = 0; j < 3; j++) {
                bad += packed[b * 3 + j] != dval(b * 7 + j);
                packed[b * 3 + j] *= 2.0;
            }
        CHECK(bad == 0, "vector: %d wrong elements after strided -> contiguous", bad);
        MPI_Send(packed, VN * 3, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD);
    }
    free(strided);
    free(packed);
    MPI_Type_free(&vec);
}

static void indexed_test(void)
{
    int blens[4] = {1, 5, 2, 10}, displs[4] = {0, 3, 20, 40};
    MPI_Datatype idx;
    MPI_Type_indexed(4, blens, displs, MPI_INT, &idx);
    MPI_Type_commit(&idx);
    int buf[128]; /* two copies of the type span 100 ints */
    for (int k = 0; k < 128; k++)
        buf[k] = mt_rank == 0 ? 1000 + k : -7;
    if (mt_rank == 0) {
        MPI_Send(buf, 2, idx, 1, 3, MPI_COMM_WORLD); /* two copies: extent 50 ints */
    } else if (mt_rank == 1) {
        int big[128];
        for (int k = 0; k < 128; k++)
            big[k] = -7;
        MPI_Recv(big, 2, idx, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        int bad = 0;
        for (int c = 0; c < 2; c++)
            for (int b = 0; b < 4; b++)
                for (int j = 0; j < blens[b]; j++) {
                    int k = c * 50 + displs[b] + j;
                    bad += big[k] != 1000 + k;
                    big[k] = -7;
                }
        for (int k = 0; k < 128; k++)
            bad += big[k] != -7; /* gaps untouched */
        CHECK(bad == 0, "indexed: %d wrong or stray elements", bad);
    }
    MPI_Type_free(&idx);
}

static void struct_test(void)
{
    struct rec recs[50];
    int blens[4] = {1, 1, 5, 1};
    MPI_Aint displs[4], base;
    MPI_Datatype types[4] = {MPI_INT, MPI_DOUBLE, MPI_CHAR, MPI_LONG}, st_tmp, st_type;
    memset(recs, 0, sizeof recs);
    MPI_Get_address(&recs[0], &base);
    MPI_Get_address(&recs[0].id, &displs[0]);
    MPI_Get_address(&recs[0].val, &displs[1]);
    MPI_Get_address(&recs[0].tagc, &displs[2]);
    MPI_Get_address(&recs[0].big, &displs[3]);
    for (int k = 0; k < 4; k++)
        displs[k] -= base;
    MPI_Type_create_struct(4, blens, displs, types, &st_tmp);
    MPI_Type_create_resized(st_tmp, 0, sizeof(struct rec), &st_type);
    MPI_Type_commit(&st_type);
    if (mt_rank == 0) {
        for (int k = 0; k < 50; k++) {
            recs[k].id = k;
            recs[k].val = dval(k);
            snprintf(recs[k].tagc, sizeof recs[k].tagc, "r%02d", k);
            recs[k].big = 1L << 40 | k;
        }
        MPI_Send(recs, 50, st_type, 1, 4, MPI_COMM_WORLD);
    } else if (mt_rank == 1) {
        MPI_Recv(recs, 50, st_type, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        int bad = 0;
        for (int k = 0; k < 50; k++) {
            char want[5] = {0};   /* the 5th byte is compared too */
            snprintf(want, sizeof want, "r%02d", k);
            bad += recs[k].id != k || recs[k].val != dval(k) ||
                   memcmp(recs[k].tagc, want, 5) != 0 || recs[k].big != (1L << 40 | k);
        }
        CHECK(bad == 0, "struct: %d wrong records", bad);
    }
    MPI_Type_free(&st_tmp);
    MPI_Type_free(&st_type);
}

static void subarray_test(void)
{
    int sizes[3] = {NX, NY, NZ}, sub[3] = {5, 7, 11}, start[3] = {2, 3, 4};
    MPI_Datatype cube;
    MPI_Type_create_subarray(3, sizes, sub, start, MPI_ORDER_C, MPI_FLOAT, &cube);
    MPI_Type_commit(&cube);
    size_t total = (size_t)NX * NY * NZ;
    float *a = mt_malloc(total * sizeof(float));
    for (size_t k = 0; k < total; k++)
        a[k] = mt_rank == 0 ? (float)k : -1.0f;
    if (mt_rank == 0) {
        MPI_Send(a, 1, cube, 1, 5, MPI_COMM_WORLD);
    } else if (mt_rank == 1) {
        MPI_Recv(a, 1, cube, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        int bad = 0;
        for (int x = 0; x < NX; x++)
            for (int y = 0; y < NY; y++)
                for (int z = 0; z < NZ; z++) {
                    size_t k = ((size_t)x * NY + y) * NZ + z;
                    int inside = x >= 2 && x < 7 && y >= 3 && y < 10 && z >= 4 && z < 15;
                    bad += a[k] != (inside ? (float)k : -1.0f);
                }
        CHECK(bad == 0, "subarray: %d wrong elements", bad);
    }
    free(a);
    MPI_Type_free(&cube);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "datatype", 2);
    vector_test();
    indexed_test();
    struct_test();
    subarray_test();
    return mt_finish();
}
