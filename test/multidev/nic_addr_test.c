/*
 * nic_addr_test.c - the subdevice kit's NIC address (md_nic_addr.h): the
 * order of the environment, the device line and the job's default, the
 * errors that name node, network and value, and the connect-time check of
 * loopback addresses published across hosts.  Interfaces and hosts are
 * made up; every test clears the variables it reads first (Criterion runs
 * each test in a process of its own).
 */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "md_log.h"
#include "md_nic_addr.h"

static char last_error[1024];
static int errors;

/* The multidevice's logger would put "myri: " in front. */
static void capture_log(md_subdev_t *sd, int level, const char *fmt, ...)
{
    va_list ap;
    if (level != MD_LOG_ERROR)
        return;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof(last_error), fmt, ap);
    va_end(ap);
    errors++;
}

static md_sdi_host_t host = { .log = capture_log };
static md_subdev_t sd = { .host = &host, .name = "myri" };

static const md_ifaddr_t ifs[] = {
    { .name = "lo", .addr = 0, .prefix = 8, .up = 1, .loopback = 1 },
    { .name = "eth0", .addr = 0, .prefix = 24, .up = 1 },
    { .name = "eth1", .addr = 0, .prefix = 16, .up = 1 },
    { .name = "eth2", .addr = 0, .prefix = 24, .up = 0 },
};
static md_ifaddr_t test_ifs[4];

static uint32_t ip(const char *text)
{
    struct in_addr a;
    cr_assert_eq(inet_pton(AF_INET, text, &a), 1, "%s", text);
    return a.s_addr;
}

static void setup(void)
{
    static const char *const vars[] = { "MULTIDEV_MYRI_ADDR", "MULTIDEV_NIC_ADDR",
                                        "MULTIDEV_MYRI_IFACE", "MULTIDEV_MYRI_SUBNET" };
    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
        unsetenv(vars[i]);
    memcpy(test_ifs, ifs, sizeof(ifs));
    test_ifs[0].addr = ip("127.0.0.1");
    test_ifs[1].addr = ip("10.0.0.5");
    test_ifs[2].addr = ip("172.20.3.4");
    test_ifs[3].addr = ip("192.168.1.5");
    errors = 0;
    last_error[0] = '\0';
}

/* Two hosts, two ranks each: ranks 0 and 1 on node a of host h1, ranks 2
 * and 3 on node c of host h2. */
static const int32_t node_of_rank[] = { 0, 0, 1, 1 };
static const int32_t domain_of_rank[] = { 0, 0, 1, 1 };
static const char *const host_of_rank[] = { "h1", "h1", "h2", "h2" };
static const char *const node_names[] = { "a", "c" };

static md_job_hosts_t two_hosts(const char *default_addr)
{
    return (md_job_hosts_t){ .num_domains = 2, .domain_of_rank = domain_of_rank,
                             .host_of_rank = host_of_rank, .node_names = node_names,
                             .default_addr = default_addr,
                             .default_why = "no shared subnet (test)" };
}

static int choose(const md_param_t *params, size_t n, const md_job_hosts_t *hosts,
                  md_nic_addr_t *out)
{
    md_subdev_init_args_t args = { .world_rank = 0, .world_size = 4,
                                   .node_of_rank = node_of_rank, .node_name = "a",
                                   .params = params, .num_params = n, .hosts = hosts };
    return md_nic_addr_choose_from(&sd, &args, "myri", test_ifs, 4, out);
}

TestSuite(nic_addr, .init = setup);

Test(nic_addr, one_host_keeps_loopback_and_tolerates_a_firmware_bound_elsewhere)
{
    md_job_hosts_t h = two_hosts("127.0.0.1");
    md_nic_addr_t a;

    h.num_domains = 1;
    cr_assert_eq(choose(NULL, 0, &h, &a), MD_OK);
    cr_expect_str_eq(a.text, "127.0.0.1");
    cr_expect_eq(a.ip, ip("127.0.0.1"));
    cr_expect_eq(a.must_match, 0);
    cr_expect_str_eq(a.source, "the job's default");
    cr_assert_eq(choose(NULL, 0, NULL, &a), MD_OK, "a subdevice driven without hosts");
    cr_expect_str_eq(a.text, "127.0.0.1");
    cr_expect_eq(errors, 0);
}

Test(nic_addr, across_hosts_the_default_must_be_what_the_firmware_binds)
{
    md_job_hosts_t h = two_hosts("10.0.0.5");
    md_nic_addr_t a;

    cr_assert_eq(choose(NULL, 0, &h, &a), MD_OK);
    cr_expect_str_eq(a.text, "10.0.0.5");
    cr_expect_eq(a.must_match, 1);
}

Test(nic_addr, precedence_env_subdev_then_env_nic_then_addr_iface_subnet_default)
{
    md_param_t p[] = { { "net", "myri0" }, { "addr", "10.0.0.5" }, { "iface", "eth1" },
                       { "subnet", "127.0.0.0/8" } };
    md_job_hosts_t h = two_hosts("192.168.1.5");
    md_nic_addr_t a;

    setenv("MULTIDEV_MYRI_ADDR", "127.0.0.3", 1);
    setenv("MULTIDEV_NIC_ADDR", "127.0.0.2", 1);
    setenv("MULTIDEV_MYRI_IFACE", "lo", 1);
    setenv("MULTIDEV_MYRI_SUBNET", "172.20.0.0/16", 1);
    cr_assert_eq(choose(p, 4, &h, &a), MD_OK);
    cr_expect_str_eq(a.text, "127.0.0.3");
    cr_expect_str_eq(a.source, "MULTIDEV_MYRI_ADDR=127.0.0.3");
    cr_expect_eq(a.must_match, 1);
    cr_expect_str_eq(a.net, "myri0");

    unsetenv("MULTIDEV_MYRI_ADDR");
    cr_assert_eq(choose(p, 4, &h, &a), MD_OK);
    cr_expect_str_eq(a.text, "127.0.0.2");
    cr_expect_str_eq(a.source, "MULTIDEV_NIC_ADDR=127.0.0.2");

    unsetenv("MULTIDEV_NIC_ADDR");
    cr_assert_eq(choose(p, 4, &h, &a), MD_OK);
    cr_expect_str_eq(a.text, "127.0.0.1", "MULTIDEV_MYRI_IFACE=lo");

    unsetenv("MULTIDEV_MYRI_IFACE");
    cr_assert_eq(choose(p, 4, &h, &a), MD_OK);
    cr_expect_str_eq(a.text, "172.20.3.4", "MULTIDEV_MYRI_SUBNET beats the device line");

    unsetenv("MULTIDEV_MYRI_SUBNET");
    cr_assert_eq(choose(p, 4, &h, &a), MD_OK);
    cr_expect_str_eq(a.text, "10.0.0.5");
    cr_expect_str_eq(a.source, "addr=10.0.0.5");

    cr_assert_eq(choose(p + 2, 2, &h, &a), MD_OK);
    cr_expect_str_eq(a.text, "172.20.3.4");
    cr_expect_str_eq(a.source, "iface=eth1");
    cr_expect_str_eq(a.net, "myri", "no net= on the line: the subdevice names it");

    cr_assert_eq(choose(p + 3, 1, &h, &a), MD_OK);
    cr_expect_str_eq(a.text, "127.0.0.1", "the loopback interface serves a 127/8 subnet");
    cr_expect_str_eq(a.source, "subnet=127.0.0.0/8");

    cr_assert_eq(choose(p, 1, &h, &a), MD_OK);
    cr_expect_str_eq(a.text, "192.168.1.5");
    cr_expect_str_eq(a.source, "the job's default");
    cr_expect_eq(errors, 0, "%s", last_error);

    setenv("MULTIDEV_NIC_ADDR", "", 1);
    cr_assert_eq(choose(p, 2, &h, &a), MD_OK);
    cr_expect_str_eq(a.text, "10.0.0.5", "an empty variable counts as unset");
}

Test(nic_addr, subnet_picks_the_local_address_inside_it_never_loopback_for_others)
{
    md_param_t p[] = { { "net", "myri0" }, { "subnet", "0.0.0.0/1" } };
    md_nic_addr_t a;

    cr_assert_eq(choose(p, 2, NULL, &a), MD_OK);
    cr_expect_str_eq(a.text, "10.0.0.5", "127.0.0.1 is in 0/1 too, but loopback");
    p[1].value = "172.20.0.0/16";
    cr_assert_eq(choose(p, 2, NULL, &a), MD_OK);
    cr_expect_str_eq(a.text, "172.20.3.4");
}

typedef struct bad_case {
    const char *key, *value, *env;  /* env: set this variable to value instead */
    const char *error;              /* the whole expected line */
} bad_case_t;

Test(nic_addr, errors_name_node_network_and_value)
{
    static const bad_case_t cases[] = {
        { "iface", "eth9", NULL, "node a, network myri0: iface=eth9: host h1 has no "
          "interface of that name with an IPv4 address (its IPv4 addresses: lo 127.0.0.1/8, "
          "eth0 10.0.0.5/24, eth1 172.20.3.4/16, eth2 192.168.1.5/24 (down))" },
        { "iface", "eth2", NULL, "node a, network myri0: iface=eth2: the interface is "
          "down" },
        { "subnet", "10.9.0.0/16", NULL, "node a, network myri0: subnet=10.9.0.0/16: "
          "no address of host h1 lies in it (its IPv4 addresses: lo 127.0.0.1/8, eth0 "
          "10.0.0.5/24, eth1 172.20.3.4/16, eth2 192.168.1.5/24 (down))" },
        { "subnet", "10.0.0.5/24", NULL, "node a, network myri0: subnet='10.0.0.5/24': "
          "expected a subnet without host bits (10.0.0.0/24)" },
        { "subnet", "10.0.0.0", "MULTIDEV_MYRI_SUBNET", "node a, network myri0: "
          "MULTIDEV_MYRI_SUBNET='10.0.0.0': expected a subnet A.B.C.D/N (an IPv4 address, "
          "then a prefix length from 1 to 32, e.g. 10.0.0.0/24)" },
        { "addr", "10.0.0.256", NULL, "node a, network myri0: addr='10.0.0.256': "
          "expected an IPv4 address (four numbers 0-255 joined by dots, e.g. 10.0.0.1)" },
        { "addr", "eth0", "MULTIDEV_NIC_ADDR", "node a, network myri0: "
          "MULTIDEV_NIC_ADDR='eth0': expected an IPv4 address (four numbers 0-255 joined by "
          "dots, e.g. 10.0.0.1)" },
        { "addr", "0.0.0.0", "MULTIDEV_MYRI_ADDR", "node a, network myri0: "
          "MULTIDEV_MYRI_ADDR=0.0.0.0: expected a unicast address (not 0.x.x.x, not "
          "224.0.0.0 or above)" },
        { "addr", "10.0.0.6", NULL, "node a, network myri0: addr=10.0.0.6 is not an "
          "address of host h1 (its IPv4 addresses: lo 127.0.0.1/8, eth0 10.0.0.5/24, eth1 "
          "172.20.3.4/16, eth2 192.168.1.5/24 (down))" },
    };
    md_job_hosts_t h = two_hosts("10.0.0.5");

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        md_param_t p[] = { { "net", "myri0" }, { cases[i].key, cases[i].value } };
        md_nic_addr_t a;
        setup();
        if (cases[i].env != NULL)
            setenv(cases[i].env, cases[i].value, 1);
        cr_expect_eq(choose(p, cases[i].env != NULL ? 1 : 2, &h, &a), MD_ERR_CONFIG,
                     "case %zu accepted", i);
        cr_expect_eq(errors, 1, "case %zu: %d error lines", i, errors);
        cr_expect_str_eq(last_error, cases[i].error, "case %zu", i);
    }
}

Test(nic_addr, a_job_across_hosts_without_any_address_says_what_to_add)
{
    md_param_t p[] = { { "net", "myri0" } };
    md_job_hosts_t h = two_hosts("");
    md_nic_addr_t a;

    cr_expect_eq(choose(p, 1, &h, &a), MD_ERR_CONFIG);
    cr_expect_str_eq(last_error, "node a, network myri0: no address given "
                     "(MULTIDEV_MYRI_ADDR, addr=, iface= or subnet=), and the job spans hosts "
                     "but none of this host's addresses is known to reach them (no shared "
                     "subnet (test)); give network myri0 a subnet= or iface= in the "
                     "description");
}

/* --- connect: loopback published across hosts --- */

static md_nic_addr_t mine_as(int32_t me, const md_job_hosts_t *h)
{
    md_nic_addr_t m;

    memset(&m, 0, sizeof(m));
    snprintf(m.subdev, sizeof(m.subdev), "myri");
    snprintf(m.net, sizeof(m.net), "myri0");
    m.me = me;
    m.node_of_rank = node_of_rank;
    m.hosts = h;
    return m;
}

Test(nic_addr, a_peer_on_another_host_that_published_loopback_is_named_with_both_ends)
{
    md_job_hosts_t h = two_hosts("10.0.0.5");
    md_nic_endpoint_t pub[4] = { { ip("10.0.0.5"), htons(1000) }, { ip("10.0.0.5"), htons(1001) },
                                 { ip("127.0.0.1"), htons(40121) },
                                 { ip("10.0.0.6"), htons(1003) } };
    uint8_t serves[4] = { 1, 1, 1, 1 }, bad[4];
    md_nic_addr_t m0 = mine_as(0, &h), m2 = mine_as(2, &h), m3 = mine_as(3, &h);

    cr_expect_eq(md_nic_addr_check_peers(&sd, &m0, pub, 4, serves, bad), MD_ERR_NO_ROUTE);
    cr_expect_eq(bad[0] + bad[1] + bad[3], 0);
    cr_expect_eq(bad[2], 1);
    cr_expect_str_eq(last_error, "rank 2 (node c, host h2) published its NIC address "
                     "127.0.0.1:40121, which rank 0 (node a, host h1) cannot reach from "
                     "another host; give network myri0 a subnet= or iface= in the "
                     "description, or set MULTIDEV_MYRI_ADDR on host h2");

    /* the publisher sees it too, for both peers on the other host */
    errors = 0;
    cr_expect_eq(md_nic_addr_check_peers(&sd, &m2, pub, 4, serves, bad), MD_ERR_NO_ROUTE);
    cr_expect(bad[0] && bad[1] && !bad[3], "rank 3 shares rank 2's loopback");
    cr_expect_eq(errors, 2, "the first pair in full, then a count");
    cr_expect_str_eq(last_error, "1 more peers of rank 2 on other hosts are in the "
                     "same case");

    /* its neighbour on the same host published a real address: no pair of it is bad */
    cr_expect_eq(md_nic_addr_check_peers(&sd, &m3, pub, 4, serves, bad), MD_OK);
    cr_expect_eq(bad[0] + bad[1] + bad[2] + bad[3], 0);
}

Test(nic_addr, loopback_is_fine_within_a_domain_and_for_peers_not_served)
{
    md_job_hosts_t h = two_hosts("127.0.0.1");
    md_nic_endpoint_t pub[4] = { { ip("127.0.0.1"), 1 }, { ip("127.0.0.1"), 2 },
                                 { ip("127.0.0.1"), 3 }, { ip("127.0.0.1"), 4 } };
    uint8_t serves[4] = { 1, 1, 0, 0 }, bad[4];
    md_nic_addr_t m0 = mine_as(0, &h);

    cr_expect_eq(md_nic_addr_check_peers(&sd, &m0, pub, 4, serves, bad), MD_OK,
                 "ranks 2 and 3 are elsewhere but not served by this subdevice");
    h.num_domains = 1;
    serves[2] = serves[3] = 1;
    cr_expect_eq(md_nic_addr_check_peers(&sd, &m0, pub, 4, serves, bad), MD_OK);
    m0.hosts = NULL;
    cr_expect_eq(md_nic_addr_check_peers(&sd, &m0, pub, 4, serves, bad), MD_OK);
    cr_expect_eq(errors, 0);
}

Test(nic_addr, namespaces_of_one_host_are_told_apart_from_hosts)
{
    static const char *const same_host[] = { "h1", "h1", "h1", "h1" };
    md_job_hosts_t h = two_hosts("10.0.0.5");
    md_nic_endpoint_t pub[4] = { { ip("127.0.0.1"), htons(7) }, { 0, 0 },
                                 { ip("10.0.0.6"), htons(9) }, { 0, 0 } };
    uint8_t serves[4] = { 0, 1, 1, 1 }, bad[4];
    md_nic_addr_t m2;

    h.host_of_rank = same_host;
    m2 = mine_as(2, &h);
    cr_expect_eq(md_nic_addr_check_peers(&sd, &m2, pub, 4, serves, bad), MD_OK,
                 "rank 0 is not served; ranks 1 and 3 published no card");
    serves[0] = 1;
    cr_expect_eq(md_nic_addr_check_peers(&sd, &m2, pub, 4, serves, bad), MD_ERR_NO_ROUTE);
    cr_expect(strstr(last_error, "cannot reach from another network namespace;") != NULL,
              "%s", last_error);
}
