/* Malformed descriptions: each error names file:line:col and what was
 * expected. */
#include <criterion/criterion.h>
#include <string.h>

#include "mdc_desc.h"

typedef struct bad {
    const char *text;
    const char *error;
} bad_t;

#define M "multidev-network 1\n"
#define N M "node n[1-4]\nnetwork my type=myri latency=9us\n"

static const bad_t bad[] = {
    { "", "t.net:1:1: expected 'multidev-network 1', got end of file" },
    { "multidev-network 2\n",
      "t.net:1:18: expected the format version 1, got '2'" },
    { "node a\n", "t.net:1:1: expected 'multidev-network 1' as the first "
                  "line, got 'node'" },
    { M, "t.net:2:1: expected at least one 'node' line, got end of file" },
    { M "nodes a\n", "t.net:2:1: expected a statement (type, profile, "
      "forward, node, network, switch, ring, bus, link, trunk), got 'nodes'" },
    /* names and lists */
    { M "node\n", "t.net:2:5: expected node names (e.g. n1 or n[001-128]), "
      "got end of line" },
    { M "node n[3-1]\n", "t.net:2:10: expected an upper bound of at least 3, "
      "got 1" },
    { M "node n[1-3\n", "t.net:2:11: expected ',', '-' or ']' in the range, "
      "got end of name" },
    { M "node n[]\n", "t.net:2:8: expected a number of at most 9 digits in "
      "the range, got ']'" },
    { M "node n*\n", "t.net:2:7: expected a name character ([A-Za-z0-9_.-]) "
      "or '[', got '*'" },
    { M "node n[0-70000]\n", "t.net:2:6: expected at most 65536 names in one "
      "list" },
    { M "node a b a\n", "t.net:2:6: duplicate node 'a' (first at line 2)" },
    { M "node a slots=0\n", "t.net:2:14: expected a whole number from 1 to "
      "65536, got '0'" },
    { M "node a slots=\n", "t.net:2:14: expected a value after 'slots=', got "
      "end of token" },
    { M "node a slots=1 slots=2\n", "t.net:2:16: duplicate 'slots=' (expected "
      "each attribute once)" },
    { M "node a[1-3] host=h[1-2]\n", "t.net:2:18: expected 1 or 3 host names, "
      "got 2" },
    { M "node a\nnode a\n", "t.net:3:6: duplicate node 'a' (first at line 2)" },
    { M "node a forward=fast\n", "t.net:2:16: expected no, a time (e.g. "
      "20us) or a declared profile, got 'fast'" },
    { M "node a local=sci\n", "t.net:2:14: expected a type node 'a' has a "
      "NIC for, got 'sci' (no network of that type reaches it)" },
    { M "type fe subdevice=none\nnode a local=fe\n", "t.net:3:14: expected a "
      "type with a subdevice, got 'fe' (subdevice=none)" },
    /* types and profiles */
    { M "type sci\n", "t.net:2:6: expected a new type name, got 'sci' (built "
      "in)" },
    { M "type x\ntype x\n", "t.net:3:6: duplicate type 'x' (first at line 2)" },
    { M "type x sysmsg=maybe\n", "t.net:2:15: expected yes or no, got "
      "'maybe'" },
    { M "profile p bandwidth=1MB/s\n", "t.net:2:26: expected latency=TIME, "
      "got end of line" },
    { M "profile p from=8 latency=1us\n", "t.net:2:16: expected the first row "
      "of profile 'p' to start at 0, got 8" },
    { M "profile p latency=1us\nprofile p latency=2us\n", "t.net:3:22: "
      "expected from=SIZE for a further row of profile 'p' (first at line 2), "
      "got end of line" },
    { M "profile p latency=1us\nprofile p from=0 latency=2us\n", "t.net:3:16: "
      "expected from= above 0 (the previous row of 'p'), got 0" },
    { M "profile p latency=8\n", "t.net:2:19: expected a time (a number with "
      "unit ns, us, ms or s, e.g. 8us or 0.5ms), got '8'" },
    { M "profile p latency=1us bandwidth=0MB/s\n", "t.net:2:33: expected a "
      "bandwidth above zero, got '0MB/s'" },
    { M "profile p latency=2000s\n", "t.net:2:19: expected a time of at most "
      "1000 s, got '2000s'" },
    { M "forward\n", "t.net:2:8: expected no, a time (e.g. 20us) or a "
      "declared profile, got end of line" },
    { M "forward 1us\nforward no\n", "t.net:3:1: duplicate 'forward' line "
      "(first at line 2)" },
    { M "forward 1us 2us\n", "t.net:2:13: expected end of line after the "
      "forwarding cost, got '2us'" },
    /* networks */
    { N "network my type=via latency=1us\n", "t.net:4:9: duplicate network "
      "'my' (first at line 3)" },
    { N "network v latency=1us\n", "t.net:4:22: expected type=TYPE, got end "
      "of line" },
    { N "network v type=gm latency=1us\n", "t.net:4:16: expected a declared "
      "type (shm, sci, via, myri or one of a 'type' line), got 'gm'" },
    { N "network v type=shm latency=1us\n", "t.net:4:16: expected a network "
      "type other than shm (shared memory is inside a node; every node has "
      "it)" },
    { N "network v type=via\n", "t.net:4:19: expected latency=TIME or "
      "profile=NAME, got end of line" },
    { N "network v type=via profile=p\n", "t.net:4:28: expected a declared "
      "profile, got 'p'" },
    { N "network v type=via latency=1us speed=3\n", "t.net:4:32: expected "
      "latency=, bandwidth=, profile=, type=, subnet=, iface= or dev.KEY=, got "
      "'speed=3'" },
    { N "network v type=via latency=1us dev.=3\n", "t.net:4:32: expected "
      "latency=, bandwidth=, profile=, type=, subnet=, iface= or dev.KEY=, got "
      "'dev.=3'" },
    { N "network v type=via latency=1us dev.a=1 dev.a=2\n", "t.net:4:40: "
      "duplicate 'dev.a=' (expected each attribute once)" },
    /* topology */
    { N "switch x s n1\n", "t.net:4:8: expected a declared network, got 'x'" },
    { N "switch my\n", "t.net:4:10: expected a segment name, got end of line" },
    { N "bus my s\n", "t.net:4:9: expected at least 2 member node names "
      "(e.g. n[01-16]), got end of line" },
    { N "switch my s n[1-5]\n", "t.net:4:13: expected a declared node, got "
      "'n5' (from 'n[1-5]')" },
    { N "switch my s n1\nswitch my s n2\n", "t.net:5:11: duplicate segment 's' "
      "in network my (first at line 4)" },
    { N "switch my s ports=2 n[1-3]\n", "t.net:4:21: expected at most 2 "
      "members on switch s, got more" },
    { N "switch my s ports=2 n1:2\n", "t.net:4:21: expected a port below 2 "
      "(ports=), got 2" },
    { N "switch my s n1:x\n", "t.net:4:16: expected a whole number from 0 to "
      "65535, got 'x'" },
    { N "switch my s n9:1\n", "t.net:4:13: expected a declared node before "
      "':', got 'n9'" },
    { N "switch my s n1 n2:0\n", "t.net:4:16: expected a free port, got 0 "
      "(taken by n1)" },
    { N "switch my s n1 n1\n", "t.net:4:16: expected each node once per "
      "network, got 'n1' again (already on switch s of network my, line 4)" },
    { N "switch my s n1\nswitch my t n1\n", "t.net:5:13: expected each node "
      "once per network, got 'n1' again (already on switch s of network my, "
      "line 4)" },
    { N "network m2 type=myri latency=1us\nswitch my s n1\nswitch m2 t n1\n",
      "t.net:6:13: expected one network of type myri per node, got 'n1' on my "
      "and m2" },
    { N "ring my r n1\n", "t.net:4:11: expected at least 2 members in a "
      "ring, got 1" },
    { N "ring my r n1:3 n2\n", "t.net:4:13: expected a name character "
      "([A-Za-z0-9_.-]) or '[', got ':'" },
    { N "ring my r n1 n2 ports=3\n", "t.net:4:17: expected no attributes, got "
      "'ports=3'" },
    { N "link my n1\n", "t.net:4:11: expected a node name, got end of line" },
    { N "link my n1 n1\n", "t.net:4:12: expected a node other than 'n1' at "
      "the other end" },
    { N "link my n1 n2 n3\n", "t.net:4:15: expected no attributes, got 'n3'" },
    { N "link my n1 n2\nlink my n2 n1\n", "t.net:5:9: duplicate link between "
      "n2 and n1 in network my (first at line 4)" },
    { N "switch my s n1\ntrunk my s t\n", "t.net:5:12: expected a switch of "
      "network my, got 't'" },
    { N "switch my s n1\nring my r n2 n3\ntrunk my s r\n", "t.net:6:12: "
      "expected a switch of network my, got 'r'" },
    { N "switch my s n1\ntrunk my s s\n", "t.net:5:12: expected a switch "
      "other than 's' at the other end" },
    /* where NICs bind: subnet=, iface=, addr.NET= */
    { N "network v type=via latency=1us subnet=10.0.0.1/24\n", "t.net:4:39: expected a "
      "subnet without host bits (10.0.0.0/24), got '10.0.0.1/24'" },
    { N "network v type=via latency=1us subnet=10.0.0.0\n", "t.net:4:39: expected a "
      "subnet A.B.C.D/N (an IPv4 address, then a prefix length from 1 to 32, e.g. "
      "10.0.0.0/24), got '10.0.0.0'" },
    { N "network v type=via latency=1us subnet=10.0.0.0/8 iface=eth0\n", "t.net:4:50: "
      "expected either subnet= or iface=, got both" },
    { N "network v type=via latency=1us iface=a/b\n", "t.net:4:38: expected an interface "
      "name (1 to 15 characters of [A-Za-z0-9_.:-]), got 'a/b'" },
    { N "network v type=via latency=1us dev.subnet=10.0.0.0/8\n", "t.net:4:32: expected "
      "subnet=A.B.C.D/N (a network attribute), not dev.subnet=" },
    { N "network v type=via latency=1us dev.addr=10.0.0.1\n", "t.net:4:32: expected "
      "addr.NET=A.B.C.D on the node lines, not dev.addr=" },
    { M "node a addr.m=10.0.0.256\n", "t.net:2:15: expected an IPv4 address (four numbers "
      "0-255 joined by dots, e.g. 10.0.0.1), got '10.0.0.256'" },
    { M "node a[1-3] addr.m=10.0.0.[254-256]\n", "t.net:2:20: expected an IPv4 address "
      "(four numbers 0-255 joined by dots, e.g. 10.0.0.1), got '10.0.0.256' (from "
      "'10.0.0.[254-256]')" },
    { M "node a addr.m=224.0.0.1\n", "t.net:2:15: expected a unicast address (not 0.x.x.x, "
      "not 224.0.0.0 or above), got '224.0.0.1'" },
    { M "node a[1-3] addr.m=10.0.0.[1-2]\n", "t.net:2:20: expected 1 or 3 addresses, got "
      "2" },
    { M "node a[1-2] host=h[1-2] addr.m=10.0.0.1\n", "t.net:2:32: expected 2 addresses, "
      "one per node (the nodes run on different hosts: h1, h2), got 1" },
    { M "node a addr.m=10.0.0.1 addr.m=10.0.0.2\n", "t.net:2:24: duplicate 'addr.m=' "
      "(expected each attribute once)" },
    { M "node a addr.=10.0.0.1\n", "t.net:2:8: expected host=, slots=, forward=, local= or "
      "addr.NET=, got 'addr.=10.0.0.1'" },
    { M "node a addr.m=10.0.0.1\n", "t.net:2:13: expected a declared network after "
      "'addr.', got 'm'" },
    { N "node a addr.my=10.0.0.1\nswitch my s n1\n", "t.net:4:13: expected a network "
      "node 'a' has a NIC on, got 'my' (no segment of it holds 'a')" },
    { M "node a b addr.my=10.1.0.[1-2]\nnetwork my type=myri latency=1us "
      "subnet=10.0.0.0/16\nswitch my s a b\n", "t.net:2:18: expected an address in subnet "
      "10.0.0.0/16 of network my (line 3), got '10.1.0.1' for node 'a'" },
    { M "node a host=h1 addr.my=10.0.0.1\nnode b host=h2 addr.my=10.0.0.1\n"
      "network my type=myri latency=1us\nswitch my s a b\n", "t.net:3:24: expected an "
      "address of host h2 alone, got '10.0.0.1' for node 'b', which node 'a' of host h1 has "
      "on network my (line 2)" },
    /* bytes */
    { M "node a\x01\n", "t.net:2:7: unexpected control character 0x01 "
      "(expected text)" },
};

Test(desc_errors, every_malformed_case_reports_its_position)
{
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        mdc_desc_t *d = (mdc_desc_t *)0x1;
        char err[MDC_ERR_MAX] = "untouched";
        int rc = mdc_desc_parse_buffer(bad[i].text, strlen(bad[i].text),
                                       "t.net", &d, err, sizeof(err));
        cr_expect_eq(rc, -1, "case %zu parsed", i);
        cr_expect_eq(d, (mdc_desc_t *)0x1, "case %zu set *desc_p", i);
        cr_expect_str_eq(err, bad[i].error, "case %zu: got\n  %s\nexpected\n"
                         "  %s", i, err, bad[i].error);
    }
}

Test(desc_errors, missing_file)
{
    mdc_desc_t *d = NULL;
    char err[MDC_ERR_MAX];

    cr_expect_eq(mdc_desc_parse_file("/nonexistent.net", &d, err, sizeof(err)),
                 -1);
    cr_expect_str_eq(err, "/nonexistent.net: cannot read: No such file or "
                          "directory");
}
