/* md_ipv4: the one syntax of addresses and subnets that mdconfig and the
 * runtime share. */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <string.h>

#include "md_ipv4.h"

static int parse(const char *text, uint32_t *addr)
{
    char why[160];
    return md_ipv4_parse(text, strlen(text), addr, why, sizeof(why));
}

Test(ipv4, dotted_quads_parse_in_network_order)
{
    uint32_t a;
    char out[MD_IPV4_TEXT_MAX];

    cr_assert_eq(parse("10.1.2.3", &a), 0);
    cr_expect_eq(a, htonl(0x0a010203));
    cr_expect_str_eq(md_ipv4_format(a, out), "10.1.2.3");
    cr_assert_eq(parse("255.255.255.255", &a), 0);
    cr_expect_eq(a, 0xffffffffu);
    cr_assert_eq(parse("0.0.0.0", &a), 0);
    cr_expect_eq(a, 0u);
}

Test(ipv4, malformed_addresses_are_refused_with_what_was_expected)
{
    static const char *const bad[] = { "", "10.0.0", "10.0.0.1.2", "10.0.0.256", "10.0.0.01",
                                       "10..0.1", "10.0.0.1 ", "a.b.c.d", "1000.0.0.1",
                                       "10.0.0.-1", "10.0.0.1/24" };
    char why[160];
    uint32_t a = 7;

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        cr_expect_eq(md_ipv4_parse(bad[i], strlen(bad[i]), &a, why, sizeof(why)), -1,
                     "'%s' parsed", bad[i]);
        cr_expect(strstr(why, "expected an IPv4 address") != NULL, "%s", why);
    }
    cr_expect_eq(a, 7u, "a refused address leaves the output alone");
}

Test(ipv4, subnets_need_a_prefix_length_and_no_host_bits)
{
    char why[160];
    uint32_t net;
    unsigned prefix;

    cr_assert_eq(md_ipv4_parse_subnet("10.20.0.0/16", 12, &net, &prefix, why, sizeof(why)), 0);
    cr_expect_eq(net, htonl(0x0a140000));
    cr_expect_eq(prefix, 16u);
    cr_assert_eq(md_ipv4_parse_subnet("10.0.0.7/32", 11, &net, &prefix, why, sizeof(why)), 0);
    cr_expect_eq(prefix, 32u);

    cr_expect_eq(md_ipv4_parse_subnet("10.0.0.1/24", 11, &net, &prefix, why, sizeof(why)), -1);
    cr_expect_str_eq(why, "expected a subnet without host bits (10.0.0.0/24)");
    static const char *const bad[] = { "10.0.0.0", "10.0.0.0/", "10.0.0.0/0", "10.0.0.0/33",
                                       "10.0.0.0/08", "10.0.0/8", "10.0.0.0/2x" };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        cr_expect_eq(md_ipv4_parse_subnet(bad[i], strlen(bad[i]), &net, &prefix, why,
                                          sizeof(why)), -1, "'%s' parsed", bad[i]);
        cr_expect(strstr(why, "expected a subnet A.B.C.D/N") != NULL, "%s: %s", bad[i], why);
    }
}

Test(ipv4, masks_membership_and_kinds)
{
    uint32_t a, b;

    cr_expect_eq(md_ipv4_mask(24), htonl(0xffffff00));
    cr_expect_eq(md_ipv4_mask(32), 0xffffffffu);
    cr_expect_eq(md_ipv4_mask(1), htonl(0x80000000));
    parse("192.168.7.9", &a);
    parse("192.168.7.0", &b);
    cr_expect(md_ipv4_in_subnet(a, b, 24));
    cr_expect(!md_ipv4_in_subnet(a, b, 30));
    parse("127.4.0.1", &a);
    cr_expect(md_ipv4_is_loopback(a));
    cr_expect(!md_ipv4_is_loopback(b));
    cr_expect(md_ipv4_is_unicast(b));
    parse("0.1.2.3", &a);
    cr_expect(!md_ipv4_is_unicast(a));
    parse("224.0.0.1", &a);
    cr_expect(!md_ipv4_is_unicast(a));
}

Test(ipv4, interface_names)
{
    cr_expect(md_ifname_valid("eth0", 4));
    cr_expect(md_ifname_valid("veth-a.100", 10));
    cr_expect(md_ifname_valid("eth0:1", 6));
    cr_expect(!md_ifname_valid("", 0));
    cr_expect(!md_ifname_valid("..", 2));
    cr_expect(!md_ifname_valid("a/b", 3));
    cr_expect(!md_ifname_valid("0123456789abcdef", 16), "longer than IFNAMSIZ - 1");
    cr_expect(md_ifname_valid("0123456789abcde", 15));
}
