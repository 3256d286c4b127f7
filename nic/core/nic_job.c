/* nic_job.c - tags and wire keys derived from a job's secret (nic_job.h). */
#include "config.h"

#include <sodium.h>
#include <string.h>

#include "nic_job.h"
#include "nic_status.h"

/* libsodium's KDF wants an 8-byte context: ours names the project and the
 * version of this derivation, so a change of scheme cannot collide. */
static const char NIC_JOB_KDF_CONTEXT[crypto_kdf_CONTEXTBYTES] = { 'm', 'd', 'j', 'o', 'b', '0', '0', '1' };

enum { NIC_JOB_SUBKEY_TAG = 1, NIC_JOB_SUBKEY_WIRE = 2 };

_Static_assert(NIC_JOB_SECRET_LEN == crypto_kdf_KEYBYTES, "the secret is a KDF master key");

int nic_job_from_secret(nic_job_t *job, const uint8_t secret[NIC_JOB_SECRET_LEN])
{
    uint8_t sub[crypto_kdf_BYTES_MIN];

    if (sodium_init() < 0)
        return NIC_ERR_IO;
    memcpy(job->secret, secret, NIC_JOB_SECRET_LEN);
    crypto_kdf_derive_from_key(sub, sizeof(sub), NIC_JOB_SUBKEY_TAG, NIC_JOB_KDF_CONTEXT,
                               job->secret);
    memcpy(&job->tag, sub, sizeof(job->tag));
    if (job->tag == 0)
        job->tag = 1;      /* 0 means "no job" in the firmware's tables */
    sodium_memzero(sub, sizeof(sub));
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
    crypto_kdf_derive_from_key(key, NIC_JOB_KEY_LEN, NIC_JOB_SUBKEY_WIRE, NIC_JOB_KDF_CONTEXT,
                               job->secret);
}
