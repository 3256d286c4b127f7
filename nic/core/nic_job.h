/*
 * nic_job.h - a job's identity on the emulated networks.
 *
 * Every job gets a random secret when it starts (libmultidev draws it at
 * MPI_Init and hands it to the ranks through the launcher, never through a
 * file, a file name or the environment).  Its processes give the secret to
 * their NIC firmware when they open an endpoint, over the firmware's
 * control socket (a Unix socket in a run directory only the user can
 * enter).  From it both derive, with a keyed hash (BLAKE2b through
 * libsodium's KDF, src/jobkey/md_job_key.c):
 *
 *   - the tag: 64 public bits that name the job in endpoints and in every
 *     frame's wire envelope (which key to check it with);
 *   - the wire key: what the frames of the job are authenticated with
 *     (nic_wire.h).
 *
 * Knowing a tag (it travels in the clear) gives no way to the key.
 */
#ifndef NIC_JOB_H
#define NIC_JOB_H

#include <stdint.h>

#define NIC_JOB_SECRET_LEN 32u
#define NIC_JOB_KEY_LEN    32u

typedef struct nic_job {
    uint64_t tag;                          /* never 0 */
    uint8_t  secret[NIC_JOB_SECRET_LEN];
} nic_job_t;

/* The job of a secret: copies it and derives the tag.  NIC_OK, or
 * NIC_ERR_IO when the crypto library cannot start. */
int  nic_job_from_secret(nic_job_t *job, const uint8_t secret[NIC_JOB_SECRET_LEN]);
/* The job of a secret whose tag is derived already (a subdevice's
 * md_subdev_init_args_t.job_key, which the multidevice derives once with
 * the same function, src/jobkey/md_job_key.h): copies both.  NIC_OK, or
 * NIC_ERR_INVALID for tag 0.  The firmware derives the tag again when an
 * endpoint opens, and refuses requests that name another. */
int  nic_job_from_key(nic_job_t *job, uint64_t tag, const uint8_t secret[NIC_JOB_SECRET_LEN]);
/* A job with a fresh random secret (tests, tools, a process that is a job
 * of its own). */
int  nic_job_random(nic_job_t *job);
/* The key that authenticates the job's frames on the wire. */
void nic_job_wire_key(const nic_job_t *job, uint8_t key[NIC_JOB_KEY_LEN]);

#endif /* NIC_JOB_H */
