/* start_fail_test.c - a firmware that cannot start says why at once
 * (issue 18).  Its bind fails (an address that is not this host's, a port
 * another socket holds), a variable it reads is malformed, or its program
 * cannot be run: the attaching process gets an error within a fraction of
 * its timeout, and the error line says the firmware's own reason, for a
 * nicd started on demand and for a firmware in the process alike. */
#include "config.h"

#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/nic_host.h"
#include "core/nic_log.h"
#include "test_nic_rundir.h"

static char said[4096];

/* every error line, one after the other */
static void keep_errors(void *arg, int level, const char *text)
{
    size_t used = strlen(said);

    (void)arg;
    if (level == NIC_LOG_ERROR && used < sizeof(said))
        snprintf(said + used, sizeof(said) - used, "%s\n", text);
}

static void setup(void)
{
    cr_assert_not_null(getenv("MULTIDEV_NICD"), "make check sets MULTIDEV_NICD");
    cr_assert_eq(test_nic_rundir("startfail"), 0);
    said[0] = '\0';
}

static void teardown(void)
{
    unsetenv("MULTIDEV_NIC_ADDR");
    unsetenv("MULTIDEV_NIC_PORT");
    unsetenv("MULTIDEV_NIC_FAULT_DROP");
    test_nic_rundir_remove();
}

TestSuite(start_fail, .init = setup, .fini = teardown);

/* Attaches node's NIC (a nicd started on demand, or a thread of this
 * process): the status, after at most a quarter of the 8 s timeout. */
static int attach_fails_fast(const char *node, int inproc)
{
    nic_attach_opts_t o = { .node = node, .nic = "myri0", .pers = "myri", .start = 1,
                            .inproc = inproc, .own_fw = inproc, .timeout_ms = 8000,
                            .log = { keep_errors, NULL } };
    nic_host_t *h = NULL;
    uint64_t t0 = nic_now_ns();
    int rc = nic_host_attach(&o, &h);

    cr_expect_neq(rc, NIC_OK, "the firmware started");
    cr_expect_null(h);
    cr_expect_lt(nic_now_ns() - t0, 2000000000ull, "the failure took %.1f s to arrive",
                 (double)(nic_now_ns() - t0) / 1e9);
    return rc;
}

static void expect_said(const char *what)
{
    cr_expect(strstr(said, what) != NULL, "the error names '%s':\n%s", what, said);
}

Test(start_fail, an_address_not_of_this_host, .timeout = 30)
{
    setenv("MULTIDEV_NIC_ADDR", "192.0.2.77", 1);    /* TEST-NET-1: nobody's */
    attach_fails_fast("addr", 0);
    expect_said("could not start");
    expect_said("192.0.2.77");
    said[0] = '\0';
    attach_fails_fast("addr-t", 1);
    expect_said("192.0.2.77");
}

Test(start_fail, a_port_in_use, .timeout = 30)
{
    struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t len = sizeof(sa);
    int holder = socket(AF_INET, SOCK_DGRAM, 0);
    char port[16];

    cr_assert_eq(bind(holder, (struct sockaddr *)&sa, sizeof(sa)), 0);
    cr_assert_eq(getsockname(holder, (struct sockaddr *)&sa, &len), 0);
    snprintf(port, sizeof(port), "%u", (unsigned)ntohs(sa.sin_port));
    setenv("MULTIDEV_NIC_PORT", port, 1);
    attach_fails_fast("port", 0);
    expect_said("could not start");
    expect_said(port);
    expect_said("in use");
    said[0] = '\0';
    attach_fails_fast("port-t", 1);
    expect_said(port);
    close(holder);
}

Test(start_fail, a_malformed_variable, .timeout = 30)
{
    setenv("MULTIDEV_NIC_FAULT_DROP", "abc", 1);
    attach_fails_fast("var", 0);
    expect_said("MULTIDEV_NIC_FAULT_DROP='abc': expected a probability from 0 to 1");
    said[0] = '\0';
    attach_fails_fast("var-t", 1);
    expect_said("MULTIDEV_NIC_FAULT_DROP='abc'");
}

Test(start_fail, a_program_that_cannot_be_run, .timeout = 30)
{
    nic_attach_opts_t o = { .node = "prog", .nic = "myri0", .pers = "myri", .start = 1,
                            .nicd_path = "/nonexistent/nicd", .timeout_ms = 8000,
                            .log = { keep_errors, NULL } };
    nic_host_t *h = NULL;
    uint64_t t0 = nic_now_ns();

    cr_expect_neq(nic_host_attach(&o, &h), NIC_OK);
    cr_expect_lt(nic_now_ns() - t0, 2000000000ull);
    expect_said("cannot execute /nonexistent/nicd");
}

Test(start_fail, a_second_process_is_told_as_fast, .timeout = 30)
{
    /* the start lock passes from one failed starter to the next */
    setenv("MULTIDEV_NIC_ADDR", "192.0.2.77", 1);
    attach_fails_fast("again", 0);
    said[0] = '\0';
    attach_fails_fast("again", 0);
    expect_said("192.0.2.77");
}
