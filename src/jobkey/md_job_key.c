/* md_job_key.c - the job key and the wire key of a job's secret
 * (md_job_key.h). */
#include "config.h"

#include <sodium.h>
#include <string.h>

#include "md_job_key.h"

/* libsodium's KDF wants an 8-byte context: ours names the project and the
 * version of this derivation, so a change of scheme cannot collide.  The
 * context and the subkey numbers are the wire's meaning: changing them
 * makes a job's ranks of two builds unable to talk. */
static const char MD_JOB_KDF_CONTEXT[crypto_kdf_CONTEXTBYTES] = {
    'm', 'd', 'j', 'o', 'b', '0', '0', '1'
};

enum { MD_JOB_SUBKEY_TAG = 1, MD_JOB_SUBKEY_WIRE = 2 };

_Static_assert(MD_JOB_KEY_SECRET_LEN == crypto_kdf_KEYBYTES, "the secret is a KDF master key");
_Static_assert(MD_JOB_WIRE_KEY_LEN >= crypto_kdf_BYTES_MIN &&
               MD_JOB_WIRE_KEY_LEN <= crypto_kdf_BYTES_MAX, "a KDF subkey length");

int md_job_key_derive(const uint8_t secret[MD_JOB_KEY_SECRET_LEN], uint64_t *key_p)
{
    uint8_t sub[crypto_kdf_BYTES_MIN];
    uint64_t key;

    if (sodium_init() < 0)
        return -1;
    crypto_kdf_derive_from_key(sub, sizeof(sub), MD_JOB_SUBKEY_TAG, MD_JOB_KDF_CONTEXT, secret);
    memcpy(&key, sub, sizeof(key));
    sodium_memzero(sub, sizeof(sub));
    *key_p = key != 0 ? key : 1;     /* 0 means "no job" in the firmware's tables */
    return 0;
}

void md_job_wire_key_derive(const uint8_t secret[MD_JOB_KEY_SECRET_LEN],
                            uint8_t key[MD_JOB_WIRE_KEY_LEN])
{
    crypto_kdf_derive_from_key(key, MD_JOB_WIRE_KEY_LEN, MD_JOB_SUBKEY_WIRE, MD_JOB_KDF_CONTEXT,
                               secret);
}
