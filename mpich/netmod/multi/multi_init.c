/*
 * multi_init.c - bringing libmultidev up and down with MPICH.
 *
 * md_init is collective over MPI_COMM_WORLD and needs the launcher's
 * services (allgather, barrier), which MPICH offers over PMI; it runs when
 * ch4 builds the world (init_world).
 */
/* mpidimpl.h first: it pulls in our inline headers (netmod_inline.h) */
#include <mpidimpl.h>
#include "multi_impl.h"
#include "multi_noinline.h"

MPIDI_MULTI_global_t MPIDI_MULTI_global;

/* Default of MULTIDEV_SPIN_POLLS, libmultidev's (md_idle) and ours for
 * threaded MPI (MPIDI_MULTI_idle): empty polls in a row before a waiting
 * rank gives its core away. */
#define MPIDI_MULTI_SPIN_POLLS_DEFAULT 64

/* A job of one rank needs nobody: a program started without mpiexec (a
 * singleton, whose PMI has no key-value space to exchange through) must
 * run as it does with any MPI. */
static int bootstrap_allgather(void *ctx, const void *in, void *out, size_t len)
{
    if (MPIR_Process.size == 1) {
        memcpy(out, in, len);
        return MD_OK;
    }
    int mpi_errno = MPIR_pmi_allgather(in, (int) len, out, (int) len, MPIR_PMI_DOMAIN_ALL);
    return mpi_errno == MPI_SUCCESS ? MD_OK : MD_ERR_IO;
}

static int bootstrap_barrier(void *ctx)
{
    if (MPIR_Process.size == 1)
        return MD_OK;
    return MPIR_pmi_barrier() == MPI_SUCCESS ? MD_OK : MD_ERR_IO;
}

static int env_int(const char *name, int def, int min)
{
    const char *s = getenv(name);
    if (s == NULL || *s == '\0')
        return def;
    char *end;
    long v = strtol(s, &end, 10);
    if (*end != '\0' || v < min || v > INT_MAX) {
        fprintf(stderr, "multidev: ignoring %s=%s (expected an integer >= %d); using %d\n",
                name, s, min, def);
        return def;
    }
    return (int) v;
}

int MPIDI_MULTI_init_local(int *tag_bits)
{
    memset(&MPIDI_MULTI_global, 0, sizeof(MPIDI_MULTI_global));
    MPIDI_MULTI_global.spin_polls =
        env_int("MULTIDEV_SPIN_POLLS", MPIDI_MULTI_SPIN_POLLS_DEFAULT, 0);
    /* The envelope carries a full 32-bit signed tag and matches it exactly:
     * take every bit ch4 allows. */
    *tag_bits = MPIR_TAG_BITS_DEFAULT;
    return MPI_SUCCESS;
}

int MPIDI_MULTI_init_world(void)
{
    int mpi_errno = MPI_SUCCESS;
    int32_t *node_of_rank = NULL;
    int rc;

    MPIR_FUNC_ENTER;

    int size = MPIR_Process.size;
    node_of_rank = MPL_malloc(sizeof(int32_t) * size, MPL_MEM_OTHER);
    MPIR_ERR_CHKANDJUMP2(node_of_rank == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem2",
                         "**nomem2 %d %s", (int) (sizeof(int32_t) * size), "node map");
    for (int i = 0; i < size; i++)
        node_of_rank[i] = MPIR_Process.node_map[i];

    md_init_params_t params = {
        .world_rank = MPIR_Process.rank,
        .world_size = size,
        .job_id = MPIR_pmi_job_id(),
        .launcher_node_of_rank = node_of_rank,
        .bootstrap = {
                      .allgather = bootstrap_allgather,
                      .barrier = bootstrap_barrier,
                      .ctx = NULL,
                      },
        /* NULL: libmultidev reads MULTIDEV_CONFIG, MULTIDEV_NODE and
         * MULTIDEV_MODULE_PATH itself */
        .config_path = NULL,
        .node_name = NULL,
        .module_path = NULL,
    };
    rc = md_init(&params, &MPIDI_MULTI_global.md);
    if (rc < 0 || MPIDI_MULTI_global.md == NULL) {
        MPIDI_MULTI_global.md = NULL;
        MPIR_ERR_SETANDJUMP2(mpi_errno, MPI_ERR_OTHER, "**multi_init", "**multi_init %s %d",
                             md_status_string(rc), rc);
    }

    mpi_errno = MPIDI_MULTI_am_order_init(md_world_size(MPIDI_MULTI_global.md));
    MPIR_ERR_CHECK(mpi_errno);
    rc = md_sysmsg_register(MPIDI_MULTI_global.md, MPIDI_MULTI_AM_SYSTAG, MPIDI_MULTI_am_recv,
                            NULL);
    if (rc < 0) {
        mpi_errno = MPIDI_MULTI_md_error(rc, "registration of the active-message handler");
        goto fn_fail;
    }

  fn_exit:
    MPL_free(node_of_rank);
    MPIR_FUNC_EXIT;
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int MPIDI_MULTI_post_init(void)
{
    return MPI_SUCCESS;
}

int MPIDI_MULTI_mpi_finalize_hook(void)
{
    int mpi_errno = MPI_SUCCESS;

    MPIR_FUNC_ENTER;

    if (MPIDI_MULTI_global.md) {
        /* No rank may tear its transports down while a peer could still be
         * reading from them. */
        mpi_errno = MPIR_pmi_barrier();
        MPIR_ERR_CHECK(mpi_errno);

        int rc = md_finalize(MPIDI_MULTI_global.md);
        MPIDI_MULTI_global.md = NULL;
        if (rc < 0) {
            mpi_errno = MPIDI_MULTI_md_error(rc, "finalize");
            goto fn_fail;
        }
    }
    MPL_free(MPIDI_MULTI_global.spare_msg);
    MPIDI_MULTI_global.spare_msg = NULL;
    MPIDI_MULTI_am_order_fini();

  fn_exit:
    MPIR_FUNC_EXIT;
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int MPIDI_MULTI_comm_set_hints(MPIR_Comm * comm_ptr, MPIR_Info * info)
{
    return MPI_SUCCESS;
}

/* Dynamic processes (MPI_Comm_spawn, MPI_Comm_connect/accept) need
 * libmultidev to add peers after md_init, which it cannot do yet. */
static int dynamic_unsupported(const char *what)
{
    return MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, __func__, __LINE__,
                                MPI_ERR_SPAWN, "**multi_notsup", "**multi_notsup %s", what);
}

int MPIDI_MULTI_get_local_upids(MPIR_Comm * comm, int **local_upid_size, char **local_upids)
{
    return dynamic_unsupported("dynamic processes (process addresses)");
}

int MPIDI_MULTI_upids_to_gpids(int size, int *remote_upid_size, char *remote_upids,
                               uint64_t * remote_gpids)
{
    return dynamic_unsupported("dynamic processes (process addresses)");
}

int MPIDI_MULTI_dynamic_send(uint64_t remote_gpid, int tag, const void *buf, int size,
                             int timeout)
{
    return dynamic_unsupported("dynamic processes (connect/accept)");
}

int MPIDI_MULTI_dynamic_recv(int tag, void *buf, int size, int timeout)
{
    return dynamic_unsupported("dynamic processes (connect/accept)");
}
