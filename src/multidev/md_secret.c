/*
 * md_secret.c - the job's secret: 32 random bytes that rank 0 draws at
 * init and every rank receives through the launcher's allgather (the PMI
 * key-value space: held by the launcher's processes and passed over their
 * sockets, never written to a file, a name or the environment).  The
 * network subdevices give it to their NIC firmware, which authenticates the
 * job's frames with a key derived from it (nic/core/nic_job.h), so nobody
 * outside the job can write into it.  The job key, which isolates the job on
 * a NIC, is derived from it here once for every subdevice (md_job_key.h).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "md_core.h"
#include "md_job_key.h"
#include "md_log.h"

_Static_assert(MD_JOB_SECRET_LEN == MD_JOB_KEY_SECRET_LEN, "the SDI's secret is the key's");

static int md_random(uint8_t *buf, size_t len)
{
    size_t got = 0;

    while (got < len) {
        ssize_t n = getrandom(buf + got, len - got, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        got += (size_t)n;
    }
    return 0;
}

int md_secret_setup(md_t *md)
{
    uint8_t mine[MD_JOB_SECRET_LEN], *all;
    int rc = MD_OK;

    memset(mine, 0, sizeof(mine));
    if (md->rank == 0 && md_random(mine, sizeof(mine)) != 0) {
        md_log_error("drawing the job's secret: the kernel's random source failed");
        rc = MD_ERR_IO;      /* the others learn it in the agreement round */
    }
    all = malloc((size_t)md->size * sizeof(mine));
    if (all == NULL)
        return MD_ERR_NO_MEMORY;
    if (md->bootstrap.allgather(md->bootstrap.ctx, mine, all, sizeof(mine)) != 0) {
        md_log_error("sharing the job's secret through the launcher failed");
        rc = MD_ERR_IO;
    } else {
        memcpy(md->job_secret, all, sizeof(mine));     /* rank 0's */
        if (md_job_key_derive(md->job_secret, &md->job_key) != 0) {
            md_log_error("deriving the job key: the crypto library (libsodium) cannot start");
            rc = MD_ERR_IO;
        }
    }
    /* Only rank 0 put something in; the copies go. */
    memset(all, 0, (size_t)md->size * sizeof(mine));
    memset(mine, 0, sizeof(mine));
    free(all);
    __asm__ __volatile__("" ::: "memory");   /* keep the clearing */
    return rc;
}
