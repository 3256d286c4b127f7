/*
 * default_addr_test.c - loopback domains and the default NIC address
 * (md_hosts.h), from made-up host records: one host keeps 127.0.0.1, hosts
 * that share a subnet use it, routed hosts ask the kernel.
 */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "md_hosts.h"

static uint32_t ip(const char *text)
{
    struct in_addr a;
    cr_assert_eq(inet_pton(AF_INET, text, &a), 1, "%s", text);
    return a.s_addr;
}

static const char *text(uint32_t addr)
{
    static char buf[INET_ADDRSTRLEN];
    struct in_addr a = { .s_addr = addr };
    return inet_ntop(AF_INET, &a, buf, sizeof(buf));
}

/* A record of domain dom with addresses "a/len" ... (NULL-terminated). */
static void record(md_host_record_t *r, const char *dom, const char *const *addrs)
{
    memset(r, 0, sizeof(*r));
    snprintf(r->domain, sizeof(r->domain), "%s", dom);
    for (int k = 0; addrs != NULL && addrs[k] != NULL; k++) {
        char a[32];
        unsigned len;
        cr_assert_eq(sscanf(addrs[k], "%31[^/]/%u", a, &len), 2);
        r->addr[k] = ip(a);
        r->prefix[k] = (uint8_t)len;
        snprintf(r->ifname[k], sizeof(r->ifname[k]), "if%d", k);
        r->num_addrs = (uint8_t)(k + 1);
    }
}

typedef struct route_log {
    int      calls;
    uint32_t asked[8];
    uint32_t answer;                /* 0: no route */
} route_log_t;

static int fake_route(uint32_t dst, uint32_t *src, void *arg)
{
    route_log_t *l = arg;
    if (l->calls < 8)
        l->asked[l->calls] = dst;
    l->calls++;
    if (l->answer == 0)
        return -1;
    *src = l->answer;
    return 0;
}

Test(domains, ranks_of_one_domain_share_an_index_numbered_by_lowest_rank)
{
    md_host_record_t r[5];
    int32_t dom[5];

    record(&r[0], "boot-b/net:1", NULL);
    record(&r[1], "boot-a/net:1", NULL);
    record(&r[2], "boot-b/net:1", NULL);
    record(&r[3], "boot-b/net:2", NULL);     /* same kernel, other namespace */
    record(&r[4], "boot-a/net:1", NULL);
    cr_assert_eq(md_hosts_domains(r, 5, dom), 3);
    cr_expect_eq(dom[0], 0);
    cr_expect_eq(dom[1], 1);
    cr_expect_eq(dom[2], 0);
    cr_expect_eq(dom[3], 2);
    cr_expect_eq(dom[4], 1);
}

Test(default_addr, one_loopback_domain_keeps_127_0_0_1_whatever_the_interfaces)
{
    static const char *const a[] = { "10.0.0.1/24", NULL };
    md_host_record_t r[3];
    int32_t dom[3];
    route_log_t l = { .answer = 0 };
    uint32_t addr = 0;
    char why[256];

    for (int i = 0; i < 3; i++)
        record(&r[i], "boot/net:1", a);
    cr_assert_eq(md_hosts_domains(r, 3, dom), 1);
    cr_assert_eq(md_default_addr_choose(r, dom, 3, 1, 2, fake_route, &l, &addr, why,
                                        sizeof(why)), 0);
    cr_expect_str_eq(text(addr), "127.0.0.1");
    cr_expect_eq(l.calls, 0, "one host needs no route");
    cr_expect(strstr(why, "loopback domain") != NULL, "%s", why);
}

Test(default_addr, the_subnet_shared_with_the_other_host_wins_over_the_first_interface)
{
    static const char *const a[] = { "192.168.5.1/24", "10.0.0.1/24", NULL };
    static const char *const b[] = { "10.0.0.2/24", "172.16.0.2/16", NULL };
    md_host_record_t r[4];
    int32_t dom[4];
    route_log_t l = { .answer = ip("192.168.5.1") };
    uint32_t addr = 0;
    char why[256];

    record(&r[0], "A", a);
    record(&r[1], "A", a);
    record(&r[2], "B", b);
    record(&r[3], "B", b);
    cr_assert_eq(md_hosts_domains(r, 4, dom), 2);
    cr_assert_eq(md_default_addr_choose(r, dom, 4, 2, 1, fake_route, &l, &addr, why,
                                        sizeof(why)), 0);
    cr_expect_str_eq(text(addr), "10.0.0.1");
    cr_expect_eq(l.calls, 0, "a shared subnet needs no kernel route");
    cr_expect(strstr(why, "10.0.0.0/24") != NULL && strstr(why, "1 of the 1") != NULL,
              "%s", why);
    /* and from the other side */
    cr_assert_eq(md_default_addr_choose(r, dom, 4, 2, 3, fake_route, &l, &addr, why,
                                        sizeof(why)), 0);
    cr_expect_str_eq(text(addr), "10.0.0.2");
}

Test(default_addr, the_subnet_holding_the_most_other_domains_wins)
{
    static const char *const a[] = { "10.1.0.1/16", "10.2.0.1/16", NULL };
    static const char *const b[] = { "10.1.0.2/16", "10.2.0.2/16", NULL };
    static const char *const c[] = { "10.2.0.3/16", NULL };
    md_host_record_t r[3];
    int32_t dom[3];
    route_log_t l = { 0 };
    uint32_t addr = 0;
    char why[256];

    record(&r[0], "A", a);
    record(&r[1], "B", b);
    record(&r[2], "C", c);
    cr_assert_eq(md_hosts_domains(r, 3, dom), 3);
    cr_assert_eq(md_default_addr_choose(r, dom, 3, 3, 0, fake_route, &l, &addr, why,
                                        sizeof(why)), 0);
    cr_expect_str_eq(text(addr), "10.2.0.1", "10.2/16 reaches B and C, 10.1/16 only B");
    cr_expect(strstr(why, "2 of the 2") != NULL, "%s", why);
}

Test(default_addr, without_a_shared_subnet_the_kernel_route_decides)
{
    static const char *const a[] = { "10.0.0.1/24", "172.16.0.9/24", NULL };
    static const char *const b[] = { "192.168.9.2/24", NULL };
    md_host_record_t r[2];
    int32_t dom[2];
    route_log_t l = { .answer = ip("172.16.0.9") };
    uint32_t addr = 0;
    char why[256];

    record(&r[0], "A", a);
    record(&r[1], "B", b);
    md_hosts_domains(r, 2, dom);
    cr_assert_eq(md_default_addr_choose(r, dom, 2, 2, 0, fake_route, &l, &addr, why,
                                        sizeof(why)), 0);
    cr_expect_str_eq(text(addr), "172.16.0.9");
    cr_assert_eq(l.calls, 1);
    cr_expect_str_eq(text(l.asked[0]), "192.168.9.2", "the route to the other host");
    cr_expect(strstr(why, "kernel's route to 192.168.9.2") != NULL, "%s", why);
}

Test(default_addr, never_loopback_when_the_job_spans_hosts)
{
    static const char *const a[] = { "10.0.0.1/24", NULL };
    static const char *const b[] = { "192.168.9.2/24", NULL };
    md_host_record_t r[2];
    int32_t dom[2];
    route_log_t l = { .answer = ip("127.0.0.1") };
    uint32_t addr = 0;
    char why[256];

    record(&r[0], "A", a);
    record(&r[1], "B", b);
    md_hosts_domains(r, 2, dom);
    cr_expect_eq(md_default_addr_choose(r, dom, 2, 2, 0, fake_route, &l, &addr, why,
                                        sizeof(why)), -1, "a route out of loopback is none");
    cr_expect_eq(addr, 0u);
    cr_expect(strstr(why, "routes to none") != NULL, "%s", why);
    /* no addresses at all on the other host: nothing to route to */
    record(&r[1], "B", NULL);
    l.calls = 0;
    cr_expect_eq(md_default_addr_choose(r, dom, 2, 2, 0, fake_route, &l, &addr, why,
                                        sizeof(why)), -1);
    cr_expect_eq(l.calls, 0);
}

Test(default_addr, this_hosts_own_record_has_a_domain_and_no_loopback_address)
{
    md_host_record_t r;

    md_host_record_fill(&r, "somehost");
    cr_expect_neq(r.domain[0], '\0');
    cr_expect_leq(r.num_addrs, MD_HOST_ADDRS_MAX);
    for (unsigned k = 0; k < r.num_addrs; k++)
        cr_expect_neq(ntohl(r.addr[k]) >> 24, 127u, "%s published", text(r.addr[k]));
}
