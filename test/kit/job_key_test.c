/*
 * job_key_test.c - the job key and the wire key of a job's secret
 * (src/jobkey): pinned to the values the firmware derived before the core
 * took the derivation over (a change would split a job's ranks of two
 * builds), one per secret, never 0; nic_job_from_key, with which a
 * subdevice builds its NIC job from the key the core hands it; and the
 * kit's check that init arguments carry one.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "core/nic_job.h"
#include "core/nic_status.h"
#include "md_firmware.h"
#include "md_job_key.h"
#include "md_log.h"

static void secret_counting(uint8_t s[MD_JOB_KEY_SECRET_LEN], uint8_t from)
{
    for (unsigned i = 0; i < MD_JOB_KEY_SECRET_LEN; i++)
        s[i] = (uint8_t)(from + i);
}

Test(job_key, known_answers_of_the_derivation)
{
    static const uint8_t wire_head[8] = { 0x15, 0xee, 0xd5, 0xb4, 0x09, 0x17, 0xe7, 0xc1 };
    uint8_t s[MD_JOB_KEY_SECRET_LEN], wire[MD_JOB_WIRE_KEY_LEN];
    uint64_t key;

    secret_counting(s, 0);
    cr_assert_eq(md_job_key_derive(s, &key), 0);
    cr_assert_eq(key, 0xeb899bb9c725bc86ull, "key %#llx", (unsigned long long)key);
    md_job_wire_key_derive(s, wire);
    cr_assert_arr_eq(wire, wire_head, sizeof(wire_head));
    memset(s, 0, sizeof(s));
    cr_assert_eq(md_job_key_derive(s, &key), 0);
    cr_assert_eq(key, 0x9a47a2d46a5c5324ull, "key %#llx", (unsigned long long)key);
}

Test(job_key, another_secret_another_key_and_never_0)
{
    uint8_t s[MD_JOB_KEY_SECRET_LEN];
    uint64_t keys[64];

    for (unsigned n = 0; n < 64; n++) {
        secret_counting(s, (uint8_t)n);
        cr_assert_eq(md_job_key_derive(s, &keys[n]), 0);
        cr_assert_neq(keys[n], 0u);
        for (unsigned k = 0; k < n; k++)
            cr_assert_neq(keys[k], keys[n], "secrets %u and %u share a key", k, n);
    }
}

Test(job_key, the_firmware_and_the_core_derive_the_same_tag)
{
    uint8_t s[MD_JOB_KEY_SECRET_LEN];
    uint64_t key;
    nic_job_t from_secret, from_key;

    secret_counting(s, 42);
    cr_assert_eq(md_job_key_derive(s, &key), 0);
    cr_assert_eq(nic_job_from_secret(&from_secret, s), NIC_OK);
    cr_assert_eq(from_secret.tag, key);
    cr_assert_eq(nic_job_from_key(&from_key, key, s), NIC_OK);
    cr_assert_eq(from_key.tag, key);
    cr_assert_arr_eq(from_key.secret, s, sizeof(s));
}

Test(job_key, a_job_without_a_key_is_refused)
{
    uint8_t s[MD_JOB_KEY_SECRET_LEN] = { 0 };
    nic_job_t job;

    cr_assert_eq(nic_job_from_key(&job, 0, s), NIC_ERR_INVALID);
}

static int logged, logged_level;

static void count_log(md_subdev_t *sd, int level, const char *fmt, ...)
{
    (void)sd;
    (void)fmt;
    logged++;
    logged_level = level;
}

Test(job_key, init_arguments_without_a_key_are_refused_with_a_reason)
{
    md_sdi_host_t host = { .log = count_log };
    md_subdev_t sd = { .host = &host };
    md_subdev_init_args_t args = { .job_key = 0 };

    cr_assert_eq(md_firmware_job_key_check(&sd, &args), MD_ERR_INVALID);
    cr_assert_eq(logged, 1);
    cr_assert_eq(logged_level, MD_LOG_ERROR);
    args.job_key = 0xeb899bb9c725bc86ull;
    cr_assert_eq(md_firmware_job_key_check(&sd, &args), MD_OK);
    cr_assert_eq(logged, 1, "a key is no news");
}
