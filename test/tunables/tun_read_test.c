/* tun_read_test.c - where a value comes from: the environment, a device
 * line, a fallback variable, the default; and the one line said when it
 * is wrong, naming the variable (or key), the value and what is allowed. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "md_tun.h"

static char said[8][MD_TUN_ERR_MAX];
static int nsaid;

static void say(const char *line)
{
    if (nsaid < 8)
        snprintf(said[nsaid], sizeof(said[nsaid]), "%s", line);
    nsaid++;
}

static void clear(void)
{
    nsaid = 0;
    memset(said, 0, sizeof(said));
    unsetenv("MULTIDEV_NIC_PORT");
    unsetenv("MULTIDEV_NIC_FIRMWARE");
    unsetenv("MULTIDEV_MYRI_FIRMWARE");
    unsetenv("MULTIDEV_MYRI_EAGER_LIMIT");
    unsetenv("MULTIDEV_NIC_FAULT_DROP");
    unsetenv("MULTIDEV_NO_SUCH_THING");
}

TestSuite(read, .init = clear, .fini = clear);

Test(read, unset_and_empty_give_the_default)
{
    long long port = -7;

    cr_expect_eq(md_tun_env_num("MULTIDEV_NIC_PORT", &port, say), MD_TUN_DEFAULT);
    cr_expect_eq(port, 0);
    setenv("MULTIDEV_NIC_PORT", "", 1);
    port = -7;
    cr_expect_eq(md_tun_env_num("MULTIDEV_NIC_PORT", &port, say), MD_TUN_DEFAULT);
    cr_expect_eq(port, 0);
    cr_expect_eq(nsaid, 0);
}

Test(read, the_environment_wins)
{
    long long port = 0;

    setenv("MULTIDEV_NIC_PORT", "4242", 1);
    cr_expect_eq(md_tun_env_num("MULTIDEV_NIC_PORT", &port, say), MD_TUN_ENV);
    cr_expect_eq(port, 4242);
}

Test(read, a_bad_value_fails_with_one_line_naming_it)
{
    long long port = 123;
    double p = 0.5;

    setenv("MULTIDEV_NIC_PORT", "70000", 1);
    cr_expect_eq(md_tun_env_num("MULTIDEV_NIC_PORT", &port, say), -1);
    cr_expect_eq(port, 123, "left alone");
    setenv("MULTIDEV_NIC_FAULT_DROP", "abc", 1);
    cr_expect_eq(md_tun_env_prob("MULTIDEV_NIC_FAULT_DROP", &p, say), -1);
    cr_assert_eq(nsaid, 2);
    cr_expect_str_eq(said[0], "MULTIDEV_NIC_PORT='70000': expected a whole number from 0 to 65535");
    cr_expect_str_eq(said[1], "MULTIDEV_NIC_FAULT_DROP='abc': expected a probability from 0 to 1");
}

Test(read, a_fallback_variable_comes_before_the_default)
{
    md_tun_value_t v;

    cr_expect_eq(md_tun_env("MULTIDEV_MYRI_FIRMWARE", &v, say), MD_TUN_DEFAULT);
    cr_expect_eq(v.num, 0, "auto");
    setenv("MULTIDEV_NIC_FIRMWARE", "thread", 1);
    cr_expect_eq(md_tun_env("MULTIDEV_MYRI_FIRMWARE", &v, say), MD_TUN_FALLBACK);
    cr_expect_eq(v.num, 1, "thread");
    setenv("MULTIDEV_MYRI_FIRMWARE", "nicd", 1);
    cr_expect_eq(md_tun_env("MULTIDEV_MYRI_FIRMWARE", &v, say), MD_TUN_ENV);
    cr_expect_eq(v.num, 2, "nicd");
    setenv("MULTIDEV_MYRI_FIRMWARE", "", 1);
    setenv("MULTIDEV_NIC_FIRMWARE", "daemon", 1);
    cr_expect_eq(md_tun_env("MULTIDEV_MYRI_FIRMWARE", &v, say), -1);
    cr_expect(strstr(said[0], "MULTIDEV_NIC_FIRMWARE='daemon'") != NULL, "%s", said[0]);
}

Test(read, a_parameter_takes_environment_then_line_then_default)
{
    md_tun_value_t v;

    cr_expect_eq(md_tun_param("myri", "eager_limit", NULL, &v, say), MD_TUN_DEFAULT);
    cr_expect_eq(v.num, 4096);
    cr_expect_eq(md_tun_param("myri", "eager_limit", "1k", &v, say), MD_TUN_LINE);
    cr_expect_eq(v.num, 1024);
    setenv("MULTIDEV_MYRI_EAGER_LIMIT", "2k", 1);
    cr_expect_eq(md_tun_param("myri", "eager_limit", "1k", &v, say), MD_TUN_ENV);
    cr_expect_eq(v.num, 2048);
    cr_expect_eq(nsaid, 0);
}

Test(read, a_bad_device_line_value_names_the_key_and_the_line)
{
    md_tun_value_t v;

    cr_expect_eq(md_tun_param("myri", "eager_limit", "8k", &v, say), -1);
    cr_assert_eq(nsaid, 1);
    cr_expect_str_eq(said[0], "eager_limit='8k' on the myri device line: expected a size from "
                              "0 to 4k (bytes, or with a k, m or g suffix)");
}

Test(read, an_undeclared_name_is_an_error)
{
    long long n;
    md_tun_value_t v;

    cr_expect_eq(md_tun_env_num("MULTIDEV_NO_SUCH_THING", &n, say), -1);
    cr_expect_eq(md_tun_param("myri", "no_such_key", "1", &v, say), -1);
    cr_assert_eq(nsaid, 2);
    cr_expect(strstr(said[0], "not declared") != NULL, "%s", said[0]);
    cr_expect(strstr(said[1], "no_such_key") != NULL, "%s", said[1]);
}

Test(read, a_variable_set_but_not_declared_is_said)
{
    setenv("MULTIDEV_NO_SUCH_THING", "1", 1);
    cr_expect_eq(md_tun_check_environ(say), 1);
    cr_expect(strstr(said[0], "MULTIDEV_NO_SUCH_THING is set") != NULL, "%s", said[0]);
}
