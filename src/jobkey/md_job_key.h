/*
 * md_job_key.h - what a job's secret yields, derived in one place for the
 * multidevice core and the NIC firmware alike.
 *
 * Every job draws a random secret at init (src/multidev/md_secret.c).  From
 * it, with a keyed hash (BLAKE2b through libsodium's KDF):
 *
 *   - the job key: 64 public bits, never 0, that isolate the job's
 *     endpoints from other jobs' on one NIC and name the job in every
 *     frame's wire envelope.  The core derives it once and hands it to
 *     every subdevice (md_subdev_init_args_t.job_key); the firmware derives
 *     it again from the secret an endpoint is opened with, so no process
 *     can claim a key whose secret it lacks.  Both must agree bit for bit.
 *   - the wire key: what the job's frames are authenticated with (only the
 *     firmware needs it).
 *
 * Knowing the job key (it travels in the clear) gives no way to the secret
 * or the wire key.
 *
 * Built as a small library of its own (libmdjobkey, hidden symbols) that
 * libmultidev and libmdnic each link, since neither includes the other's
 * headers.
 */
#ifndef MD_JOB_KEY_H
#define MD_JOB_KEY_H

#include <stdint.h>

#define MD_JOB_KEY_SECRET_LEN 32u   /**< bytes of a job's secret */
#define MD_JOB_WIRE_KEY_LEN   32u   /**< bytes of its wire key */

/* The job key of secret into *key_p (never 0).  0, or -1 when the crypto
 * library cannot start. */
int  md_job_key_derive(const uint8_t secret[MD_JOB_KEY_SECRET_LEN], uint64_t *key_p);

/* The wire key of secret.  Call md_job_key_derive first: it starts the
 * crypto library. */
void md_job_wire_key_derive(const uint8_t secret[MD_JOB_KEY_SECRET_LEN],
                            uint8_t key[MD_JOB_WIRE_KEY_LEN]);

#endif /* MD_JOB_KEY_H */
