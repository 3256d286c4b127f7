/*
 * test_job.h - jobs for tests, by number: test_job(n) has the same secret
 * (and so the same tag and wire key) in every process of a test, and
 * different numbers are different jobs, as two real jobs are.
 */
#ifndef TEST_JOB_H
#define TEST_JOB_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/nic_job.h"

static inline nic_job_t test_job(uint64_t n)
{
    uint8_t secret[NIC_JOB_SECRET_LEN] = { 't', 'e', 's', 't' };
    nic_job_t job;

    memcpy(secret + 8, &n, sizeof(n));
    if (nic_job_from_secret(&job, secret) != 0)
        abort();
    return job;
}

/* A job secret for a subdevice's init arguments, the same in every rank
 * of a forked test job that names the job alike (FNV-1a of the name,
 * spread over the 32 bytes); valid until the next call in the thread. */
static inline const uint8_t *test_job_secret(const char *job_id)
{
    static __thread uint8_t secret[NIC_JOB_SECRET_LEN];
    uint64_t h = 1469598103934665603ull;

    for (const char *c = job_id; *c; c++) {
        h ^= (uint8_t)*c;
        h *= 1099511628211ull;
    }
    for (unsigned i = 0; i < NIC_JOB_SECRET_LEN; i += 8) {
        h ^= h >> 29;
        h *= 0xbf58476d1ce4e5b9ull;
        memcpy(secret + i, &h, 8);
    }
    return secret;
}

/* The job key the multidevice would hand a subdevice along with
 * test_job_secret(job_id) (md_subdev_init_args_t.job_key). */
static inline uint64_t test_job_key(const char *job_id)
{
    nic_job_t job;

    if (nic_job_from_secret(&job, test_job_secret(job_id)) != 0)
        abort();
    return job.tag;
}

/* test_job(n) where a pointer is wanted (an argument): valid until the
 * eighth call after this one in the same thread. */
static inline const nic_job_t *test_jobp(uint64_t n)
{
    static __thread nic_job_t ring[8];
    static __thread unsigned at;
    nic_job_t *job = &ring[at++ % 8];

    *job = test_job(n);
    return job;
}

#endif /* TEST_JOB_H */
