/* nic_job.c - a job's tag and wire key, derived from its secret by
 * src/jobkey/md_job_key.c (nic_job.h). */
#include "config.h"

#include <sodium.h>
#include <string.h>

#include "md_job_key.h"
#include "nic_job.h"
#include "nic_status.h"

_Static_assert(NIC_JOB_SECRET_LEN == MD_JOB_KEY_SECRET_LEN, "one secret length");
_Static_assert(NIC_JOB_KEY_LEN == MD_JOB_WIRE_KEY_LEN, "one wire key length");

int nic_job_from_secret(nic_job_t *job, const uint8_t secret[NIC_JOB_SECRET_LEN])
{
    uint64_t tag;

    if (md_job_key_derive(secret, &tag) != 0)
        return NIC_ERR_IO;
    return nic_job_from_key(job, tag, secret);
}

int nic_job_from_key(nic_job_t *job, uint64_t tag, const uint8_t secret[NIC_JOB_SECRET_LEN])
{
    if (tag == 0)
        return NIC_ERR_INVALID;
    job->tag = tag;
    memcpy(job->secret, secret, NIC_JOB_SECRET_LEN);
    return NIC_OK;
}

int nic_job_random(nic_job_t *job)
{
    uint8_t secret[NIC_JOB_SECRET_LEN];
    int rc;

    if (sodium_init() < 0)
        return NIC_ERR_IO;
    randombytes_buf(secret, sizeof(secret));
    rc = nic_job_from_secret(job, secret);
    sodium_memzero(secret, sizeof(secret));
    return rc;
}

void nic_job_wire_key(const nic_job_t *job, uint8_t key[NIC_JOB_KEY_LEN])
{
    md_job_wire_key_derive(job->secret, key);
}
