/* tun_parse_test.c - the one parser: each type takes what it says it
 * takes, within the declared range, and says what it allows otherwise. */
#include <criterion/criterion.h>
#include <string.h>

#include "md_tun.h"

/* text as the value of variable name: 0 or -1, the value, why not. */
static int parse(const char *name, const char *text, md_tun_value_t *v, char *why)
{
    const md_tun_t *t = md_tun_find(name);

    cr_assert_not_null(t, "%s is declared", name);
    return md_tun_parse(t, text, v, why, MD_TUN_ERR_MAX);
}

static void refused(const char *name, const char *text, const char *allowed)
{
    md_tun_value_t v;
    char why[MD_TUN_ERR_MAX] = "";

    cr_expect_eq(parse(name, text, &v, why), -1, "%s='%s' is refused", name, text);
    cr_expect(strstr(why, allowed) != NULL, "%s='%s': says '%s', not '%s'", name, text, why,
              allowed);
}

static long long taken(const char *name, const char *text)
{
    md_tun_value_t v;
    char why[MD_TUN_ERR_MAX] = "";

    cr_assert_eq(parse(name, text, &v, why), 0, "%s='%s' is taken (%s)", name, text, why);
    return v.num;
}

Test(parse, a_count_is_whole_and_inside_its_range)
{
    cr_expect_eq(taken("MULTIDEV_NIC_PORT", "0"), 0);
    cr_expect_eq(taken("MULTIDEV_NIC_PORT", "65535"), 65535);
    /* 70000 used to wrap to 4464 */
    refused("MULTIDEV_NIC_PORT", "70000", "a whole number from 0 to 65535");
    refused("MULTIDEV_NIC_PORT", "-1", "from 0 to 65535");
    refused("MULTIDEV_NIC_PORT", "12x", "a whole number");
    refused("MULTIDEV_NIC_PORT", "abc", "a whole number");
    refused("MULTIDEV_NIC_PORT", " 5", "a whole number");
    refused("MULTIDEV_NIC_PORT", "0x10", "a whole number");
    refused("MULTIDEV_NIC_PORT", "99999999999999999999", "a whole number");
    cr_expect_eq(taken("MULTIDEV_NIC_IDLE_MS", "-1"), -1, "-1: never");
}

Test(parse, a_size_takes_suffixes_and_its_range)
{
    cr_expect_eq(taken("MULTIDEV_MYRI_EAGER_LIMIT", "4k"), 4096);
    cr_expect_eq(taken("MULTIDEV_MYRI_EAGER_LIMIT", "100"), 100);
    cr_expect_eq(taken("MULTIDEV_FWD_CHUNK", "1g"), 1LL << 30);
    refused("MULTIDEV_MYRI_EAGER_LIMIT", "5k", "a size from 0 to 4k");
    refused("MULTIDEV_FWD_CHUNK", "0", "a size from 1 to 1g");
    refused("MULTIDEV_FWD_CHUNK", "2g", "to 1g");
    refused("MULTIDEV_FWD_CHUNK", "64kb", "a size");
    refused("MULTIDEV_FWD_CHUNK", "-64k", "a size");
}

Test(parse, a_time_is_whole_units)
{
    cr_expect_eq(taken("MULTIDEV_YIELD_US", "0"), 0);
    refused("MULTIDEV_YIELD_US", "10000001", "a time in us from 0 to 10000000");
    refused("MULTIDEV_YIELD_US", "1.5", "a time in us");
    refused("MULTIDEV_NIC_WATCHDOG_MS", "0", "a time in ms from 1");
}

Test(parse, a_probability_is_from_0_to_1)
{
    md_tun_value_t v;
    char why[MD_TUN_ERR_MAX];

    cr_assert_eq(parse("MULTIDEV_NIC_FAULT_DROP", "0.25", &v, why), 0);
    cr_expect_float_eq(v.prob, 0.25, 1e-12);
    cr_assert_eq(parse("MULTIDEV_NIC_FAULT_DROP", "1e-3", &v, why), 0);
    cr_expect_float_eq(v.prob, 0.001, 1e-12);
    /* abc used to be 0, and 2 to drop everything */
    refused("MULTIDEV_NIC_FAULT_DROP", "abc", "a probability from 0 to 1");
    refused("MULTIDEV_NIC_FAULT_DROP", "2", "a probability from 0 to 1");
    refused("MULTIDEV_NIC_FAULT_DROP", "-0.1", "a probability");
    refused("MULTIDEV_NIC_FAULT_DROP", "nan", "a probability");
    refused("MULTIDEV_NIC_FAULT_DROP", "0.5%", "a probability");
}

Test(parse, a_bool_is_0_or_1)
{
    cr_expect_eq(taken("MULTIDEV_STATS", "1"), 1);
    cr_expect_eq(taken("MULTIDEV_STATS", "0"), 0);
    refused("MULTIDEV_STATS", "2", "0 or 1");
    refused("MULTIDEV_STATS", "yes", "0 or 1");
}

Test(parse, a_choice_is_one_of_its_words_in_any_case)
{
    cr_expect_eq(taken("MULTIDEV_IDLE", "auto"), 0);
    cr_expect_eq(taken("MULTIDEV_IDLE", "BLOCK"), 3);
    refused("MULTIDEV_IDLE", "sleep", "auto, spin, yield or block");
    refused("MULTIDEV_IDLE", "bloc", "auto, spin, yield or block");
    refused("MULTIDEV_FWD_SEND_DONE", "", "left or acked");
}

Test(parse, text_is_taken_as_written)
{
    md_tun_value_t v;
    char why[MD_TUN_ERR_MAX];

    cr_assert_eq(parse("MULTIDEV_MYRI_LINKS", "sw0:1-sw1:2", &v, why), 0);
    cr_expect_str_eq(v.text, "sw0:1-sw1:2");
    /* an address is checked against the host where it is used */
    cr_assert_eq(parse("MULTIDEV_NIC_ADDR", "10.9.9.9", &v, why), 0);
    cr_expect_str_eq(v.text, "10.9.9.9");
}
