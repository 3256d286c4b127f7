/* Valid network descriptions parse to the model they describe. */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <string.h>

#include "mdc_desc.h"

static mdc_desc_t *parse_ok(const char *text)
{
    mdc_desc_t *d = NULL;
    char err[MDC_ERR_MAX];

    cr_assert_eq(mdc_desc_parse_buffer(text, strlen(text), "t.net", &d, err,
                                       sizeof(err)), 0, "%s", err);
    return d;
}

static const char *oscar =
    "multidev-network 1\n"
    "type fe subdevice=none\n"
    "type gm sysmsg=yes subdevice=gm2\n"
    "profile mpipro latency=65us bandwidth=93.5MB/s\n"
    "profile mpipro from=8k latency=90us bandwidth=748Mbit/s\n"
    "forward 20us\n"
    "node n[01-08] host=pc[01-08] slots=2\n"
    "node gw forward=mpipro\n"
    "node solo forward=no local=via\n"
    "network sci0 type=sci latency=8us bandwidth=76MB/s dev.mtu=4096 dev.x=a=b\n"
    "network via0 type=via profile=mpipro\n"
    "network fe0 type=fe latency=125us bandwidth=10.3MB/s\n"
    "ring sci0 r0 n[01-04] gw\n"
    "switch via0 sw0 ports=16 n[01-08] gw:12 solo\n"
    "bus fe0 b0 n[01-08] gw\n";

Test(desc_parse, oscar_like)
{
    mdc_desc_t *d = parse_ok(oscar);

    cr_assert_eq(d->num_nodes, 10);
    cr_expect_str_eq(d->nodes[0].name, "n01");
    cr_expect_str_eq(d->nodes[7].host, "pc08");
    cr_expect_eq(d->nodes[7].slots, 2);
    cr_expect_str_eq(d->nodes[8].host, "gw");
    cr_expect_eq(d->nodes[8].slots, 1);
    cr_expect_eq(d->nodes[9].forward, MDC_FWD_NO);
    cr_expect_str_eq(d->types[d->nodes[9].local_type].name, "via");
    cr_expect_eq(d->nodes[0].forward, MDC_FWD_UNSET);
    cr_expect_eq(mdc_desc_node_forward(d, 0), d->forward);
    cr_expect_eq(d->profiles[d->forward].rows[0].lat_fs, 20000000000ULL);

    /* types: 4 built in + 2 */
    cr_assert_eq(d->num_types, 6);
    cr_expect_str_eq(d->types[4].subdev, "");
    cr_expect_str_eq(d->types[5].subdev, "gm2");
    cr_expect_eq(d->types[5].sysmsg, 1);
    cr_expect_eq(d->types[1].sysmsg, 1);

    /* profile rows */
    const mdc_profile_t *mp = &d->profiles[d->networks[1].profile];
    cr_assert_eq(mp->num_rows, 2);
    cr_expect_eq(mp->rows[1].from, 8192);
    cr_expect_eq(mp->rows[0].lat_fs, 65000000000ULL);
    /* 93.5 MB/s = 748 Mbit/s: 1e15 / 93.5e6 fs per byte, rounded */
    cr_expect_eq(mp->rows[0].byte_fs, 10695187);
    cr_expect_eq(mp->rows[1].byte_fs, 10695187);
    cr_expect_eq(d->profiles[d->networks[0].profile].rows[0].byte_fs,
                 13157895);

    /* dev. parameters */
    cr_assert_eq(d->networks[0].num_dev_params, 2);
    cr_expect_str_eq(d->networks[0].dev_params[0].key, "mtu");
    cr_expect_str_eq(d->networks[0].dev_params[1].value, "a=b");
    cr_expect_eq(mdc_desc_network_routable(d, 2), 0);
    cr_expect_eq(mdc_desc_network_routable(d, 1), 1);

    /* segments and ports */
    cr_assert_eq(d->num_segments, 3);
    const mdc_segment_t *sw = &d->segments[1];
    cr_expect_eq(sw->kind, MDC_SEG_SWITCH);
    cr_expect_eq(sw->ports, 16);
    cr_assert_eq(sw->num_members, 10);
    cr_expect_eq(sw->members[8].port, 12);     /* gw:12 */
    cr_expect_eq(sw->members[9].port, 8);      /* solo: next free */
    cr_expect_eq(d->segments[0].members[4].port, 4);  /* ring position */
    const mdc_attach_t *a = mdc_desc_attach(d, 8, 1);
    cr_assert_not_null(a);
    cr_expect_eq(a->port, 12);
    cr_expect_null(mdc_desc_attach(d, 9, 0));
    mdc_desc_free(d);
}

Test(desc_parse, name_lists)
{
    mdc_desc_t *d = parse_ok("multidev-network 1\n"
                             "node r[0-1]n[08-10] host=h\n"
                             "node gw[1,3,5-6]\n");

    cr_assert_eq(d->num_nodes, 10);
    cr_expect_str_eq(d->nodes[0].name, "r0n08");
    cr_expect_str_eq(d->nodes[2].name, "r0n10");
    cr_expect_str_eq(d->nodes[3].name, "r1n08");
    cr_expect_str_eq(d->nodes[5].host, "h");
    cr_expect_str_eq(d->nodes[7].name, "gw3");
    cr_expect_str_eq(d->nodes[9].name, "gw6");
    cr_expect_eq(mdc_desc_find_node(d, "gw5"), 8);
    cr_expect_eq(mdc_desc_find_node(d, "gw2"), -1);
    mdc_desc_free(d);
}

Test(desc_parse, links_trunks_and_units)
{
    mdc_desc_t *d = parse_ok(
        "multidev-network 1\n"
        "node a\nnode b\nnode c\n"
        "network m type=myri latency=0.5us bandwidth=1GiB/s\n"
        "network v type=via latency=300ns bandwidth=inf\n"
        "switch m s1 a\nswitch m s2 b c\n"
        "trunk m s1 s2 latency=1.25us\n"
        "link v a b\nlink v b c\n");

    cr_expect_eq(d->num_trunks, 1);
    cr_expect_eq(d->trunks[0].lat_fs, 1250000000ULL);
    cr_expect_eq(d->profiles[d->networks[0].profile].rows[0].lat_fs,
                 500000000ULL);
    cr_expect_eq(d->profiles[d->networks[0].profile].rows[0].byte_fs,
                 931323);                     /* 1e15 / 2^30 */
    cr_expect_eq(d->profiles[d->networks[1].profile].rows[0].byte_fs, 0);
    cr_expect_eq(d->nodes[1].num_attach, 3);  /* s2, two links */
    cr_expect_eq(d->forward, MDC_FWD_NO);     /* no forward line */
    mdc_desc_free(d);
}

/* Where NICs bind: a network's subnet= or iface=, a node's addr.NET= list
 * (one per node, or one shared by the emulated nodes of one host), given
 * before the network it names. */
Test(desc_parse, subnets_interfaces_and_node_addresses)
{
    mdc_desc_t *d = parse_ok(
        "multidev-network 1\n"
        "node a[1-3] host=h[1-3] addr.myri0=10.0.0.[1-3] addr.sci0=192.168.9.[7,8,9]\n"
        "node e[1-2] host=h4 addr.myri0=10.0.0.4\n"
        "node f host=h5\n"
        "network myri0 type=myri latency=10us subnet=10.0.0.0/16\n"
        "network sci0 type=sci latency=8us iface=eth1:0\n"
        "switch myri0 sw a[1-3] e[1-2] f\n"
        "ring sci0 r a[1-3]\n");

    cr_expect_str_eq(d->networks[0].subnet, "10.0.0.0/16");
    cr_expect_eq(d->networks[0].subnet_prefix, 16u);
    cr_expect_str_eq(d->networks[0].iface, "");
    cr_expect_str_eq(d->networks[1].iface, "eth1:0");
    cr_expect_str_eq(d->networks[1].subnet, "");

    const mdc_node_addr_t *a = mdc_desc_node_addr(d, 1, 0);
    cr_assert_not_null(a);
    cr_expect_eq(a->addr, htonl(0x0a000002), "a2 on myri0: 10.0.0.2");
    a = mdc_desc_node_addr(d, 2, 1);
    cr_assert_not_null(a);
    cr_expect_eq(a->addr, htonl(0xc0a80909), "a3 on sci0: 192.168.9.9");
    cr_expect_eq(mdc_desc_node_addr(d, 3, 0)->addr, mdc_desc_node_addr(d, 4, 0)->addr,
                 "e1 and e2 share host h4's address");
    cr_expect_null(mdc_desc_node_addr(d, 3, 1), "e1 has no address on sci0");
    cr_expect_null(mdc_desc_node_addr(d, 5, 0), "f has none: the runtime picks one");
    mdc_desc_free(d);
}
