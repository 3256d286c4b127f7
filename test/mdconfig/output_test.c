/*
 * Per-node files: byte-identical for the same input (whatever the thread
 * count or the order of independent lines), readable by the shared parser,
 * consistent with each other; the shipped examples pass --check.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "md_lines.h"
#include "mdc_commands.h"
#include "mdc_nodefile.h"
#include "mdc_test_util.h"
#include "mdc_write.h"

#define CLUSTER_HEAD \
    "multidev-network 1\n" \
    "profile copy latency=5us bandwidth=300MB/s\n" \
    "node s[1-4] slots=2\n" \
    "node m[1-4] slots=2\n" \
    "node gw[1-2] forward=copy\n" \
    "network sci0 type=sci latency=8us bandwidth=76MB/s\n" \
    "network myri0 type=myri latency=10us bandwidth=120MB/s dev.mtu=4k\n" \
    "network via0 type=via latency=65us bandwidth=93.5MB/s\n" \
    "ring sci0 r0 s[1-4] gw[1-2]\n" \
    "switch myri0 sw0 m[1-4] gw[1-2]\n"

static const char *cluster = CLUSTER_HEAD
    "link via0 s1 m1\n"
    "link via0 s2 m2\n";

/* The same with the link lines swapped (and one link's ends too). */
static const char *cluster_swapped = CLUSTER_HEAD
    "link via0 s2 m2\n"
    "link via0 m1 s1\n";

static void write_dir(const char *text, const char *dir, int threads)
{
    mdc_graph_t *g = mdct_graph(text);
    mdc_problems_t p;

    cr_assert_eq(mdc_write_all(g, dir, threads, 1, &p), 0);
    mdct_graph_free(g);
}

static void same_files(const char *a, const char *b, int expect_count)
{
    DIR *d = opendir(a);
    struct dirent *e;
    int n = 0;

    cr_assert_not_null(d);
    while ((e = readdir(d)) != NULL) {
        char pa[512], pb[512];
        size_t la, lb;
        if (e->d_name[0] == '.')
            continue;
        snprintf(pa, sizeof(pa), "%s/%s", a, e->d_name);
        snprintf(pb, sizeof(pb), "%s/%s", b, e->d_name);
        char *x = mdct_slurp(pa, &la), *y = mdct_slurp(pb, &lb);
        cr_expect(la == lb && memcmp(x, y, la) == 0, "%s differs", e->d_name);
        free(x);
        free(y);
        n++;
    }
    closedir(d);
    cr_expect_eq(n, expect_count);
}

Test(output, deterministic_across_runs_threads_and_line_order, .timeout = 60)
{
    char d1[64], d2[64], d3[64];

    mdct_tmpdir(d1, sizeof(d1), "a");
    mdct_tmpdir(d2, sizeof(d2), "b");
    mdct_tmpdir(d3, sizeof(d3), "c");
    write_dir(cluster, d1, 1);
    write_dir(cluster, d2, 4);
    write_dir(cluster_swapped, d3, 2);
    same_files(d1, d2, 10);
    same_files(d1, d3, 10);
    write_dir(cluster, d2, 3);                 /* again, over old files */
    same_files(d1, d2, 10);
    mdct_rm_dir(d1);
    mdct_rm_dir(d2);
    mdct_rm_dir(d3);
}

/* T-CFG-7: the device list holds exactly the subdevices the routes and the
 * rails use;
 * T-CFG-6: what arrives from P is what P's routes to us send on last. */
Test(output, files_are_consistent, .timeout = 60)
{
    static const char *const nodes[] = { "s1", "s2", "s3", "s4", "m1",
                                         "m2", "m3", "m4", "gw1", "gw2" };
    const size_t n = sizeof(nodes) / sizeof(nodes[0]);
    md_nodeconf_t *conf[10];
    char dir[64];

    mdct_tmpdir(dir, sizeof(dir), "c");
    write_dir(cluster, dir, 2);
    for (size_t i = 0; i < n; i++)
        conf[i] = mdct_load(dir, nodes[i]);
    for (size_t i = 0; i < n; i++) {
        md_nodeconf_t *c = conf[i];
        cr_expect_str_eq(c->node, nodes[i]);
        for (size_t k = 0; k < c->num_devices; k++) {
            int used = 0;
            for (size_t r = 0; r < c->num_routes; r++)
                used |= strcmp(c->routes[r].subdev, c->devices[k].name) == 0;
            for (size_t r = 0; r < c->num_rails; r++)
                for (size_t x = 0; x < c->rails[r].num; x++)
                    used |= strcmp(c->rails[r].subdevs[x],
                                   c->devices[k].name) == 0;
            cr_expect(used, "%s loads %s but never uses it", nodes[i],
                      c->devices[k].name);
        }
        for (size_t j = 0; j < n; j++) {
            if (i == j)
                continue;
            const md_nodeconf_arrive_t *a =
                md_nodeconf_find_arrive(c, nodes[j]);
            cr_assert_not_null(a, "%s has no arrive for %s", nodes[i],
                               nodes[j]);
            /* follow each of the peer's routes to us hop by hop, through
             * the relays' own files: it must arrive, and what it arrives
             * on must be on our arrive line for that peer: the last hop's
             * subdevice for a direct route, the forwarding receiver (fwd)
             * for one through relays */
            const md_nodeconf_t *p = conf[j];
            for (size_t r = 0; r < p->num_routes; r++) {
                if (strcmp(p->routes[r].peer, nodes[i]) != 0)
                    continue;
                size_t size = p->routes[r].min, hops = 0;
                const md_nodeconf_t *cur = p;
                const md_nodeconf_route_t *rt;
                while ((rt = md_nodeconf_find_route(cur, nodes[i], size)) !=
                           NULL && rt->next_hop[0] != '\0' && hops++ < n) {
                    size_t k = 0;
                    while (k < n && strcmp(nodes[k], rt->next_hop) != 0)
                        k++;
                    cr_assert_lt(k, n, "unknown relay %s", rt->next_hop);
                    cur = conf[k];
                }
                cr_assert_not_null(rt, "%s's route to %s breaks at %s",
                                   nodes[j], nodes[i], cur->node);
                cr_assert_lt(hops, n, "%s -> %s loops", nodes[j], nodes[i]);
                const char *on = hops > 0 ? MD_NODECONF_FORWARDED : rt->subdev;
                int found = 0;
                for (size_t k = 0; k < a->num_subdevs; k++)
                    found |= strcmp(a->subdevs[k], on) == 0;
                cr_expect(found, "%s's route to %s (%zu bytes) arrives on %s, "
                          "missing from %s's arrive line", nodes[j], nodes[i],
                          size, on, nodes[i]);
            }
        }
        cr_expect_not_null(md_nodeconf_find_route(c, nodes[i], 12345));
        cr_expect_str_eq(md_nodeconf_find_route(c, nodes[i], 0)->subdev,
                         "shm");
    }
    /* a forwarded route: s3 reaches m3 only through a gateway */
    const md_nodeconf_route_t *r = md_nodeconf_find_route(conf[2], "m3", 100);
    cr_assert_not_null(r);
    cr_expect(strcmp(r->next_hop, "gw1") == 0 ||
              strcmp(r->next_hop, "gw2") == 0, "next hop %s", r->next_hop);
    cr_expect_str_eq(md_nodeconf_find_device(conf[4], "myri")->params[3].key,
                     "mtu");
    for (size_t i = 0; i < n; i++)
        md_nodeconf_free(conf[i]);
    mdct_rm_dir(dir);
}

/* mdconfig streams its files without building an md_nodeconf; they must
 * be exactly the canonical form (md_nodeconf_write of what they say), with
 * runs of peers as ranges (rails lines too), and say the same as the
 * expanded form. */
Test(output, files_are_the_canonical_compact_form, .timeout = 60)
{
    char dir[64];
    size_t ranges = 0, rails = 0;

    for (int pass = 0; pass < 2; pass++) {
        mdct_tmpdir(dir, sizeof(dir), "k");
        write_dir(pass == 0 ? mdct_switches_and_rings : cluster, dir, 2);
        DIR *d = opendir(dir);
        struct dirent *e;
        cr_assert_not_null(d);
        while ((e = readdir(d)) != NULL) {
            char path[512], *out = NULL;
            size_t len, out_len = 0;
            if (e->d_name[0] == '.')
                continue;
            snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
            char *raw = mdct_slurp(path, &len);
            char *text = strndup(raw, len);          /* raw has no NUL */
            free(raw);
            cr_assert_not_null(text);
            const char *body = strchr(text, '\n');   /* after the comment */
            cr_assert_not_null(body);
            body++;
            char node[64];
            snprintf(node, sizeof(node), "%.*s",
                     (int)(strlen(e->d_name) - strlen(".conf")), e->d_name);
            md_nodeconf_t *c = mdct_load(dir, node);
            FILE *f = open_memstream(&out, &out_len);
            cr_assert_eq(md_nodeconf_write(f, c), 0);
            fclose(f);
            cr_expect_str_eq(body, out, "%s", path);
            for (const char *p = body; (p = strstr(p, "route n[")) != NULL; p++)
                ranges++;
            for (const char *p = body; (p = strstr(p, "\nrails ")) != NULL; p++)
                rails++;
            free(out);
            free(text);
            md_nodeconf_free(c);
        }
        closedir(d);
        mdct_rm_dir(dir);
    }
    cr_expect_gt(ranges, 32, "files of the 32-node cluster use ranges");
    cr_expect_gt(rails, 32, "and have rails lines (myri and sci rings)");
}

/* --node: one node's file alone, the same bytes as in the full run. */
Test(output, one_node_file_is_the_same_as_in_the_full_run, .timeout = 60)
{
    char all[64], one[64], a[512], b[512];
    mdc_graph_t *g = mdct_graph(cluster);
    mdc_problems_t p;
    size_t la, lb;

    mdct_tmpdir(all, sizeof(all), "all");
    mdct_tmpdir(one, sizeof(one), "one");
    write_dir(cluster, all, 2);
    cr_assert_eq(mdc_write_node(g, one, mdct_node(g, "s3"), 1, &p), 0);
    cr_expect_eq(p.unreachable, 0);
    snprintf(a, sizeof(a), "%s/s3.conf", all);
    snprintf(b, sizeof(b), "%s/s3.conf", one);
    char *x = mdct_slurp(a, &la), *y = mdct_slurp(b, &lb);
    cr_expect(la == lb && memcmp(x, y, la) == 0, "%s and %s differ", a, b);
    free(x);
    free(y);
    same_files(one, one, 1);                   /* nothing else written */
    mdct_graph_free(g);
    mdct_rm_dir(all);
    mdct_rm_dir(one);
}

Test(output, nothing_is_written_when_a_node_is_unreachable)
{
    char dir[64];
    mdc_graph_t *g = mdct_graph("multidev-network 1\nnode a b c\n"
                                "network v type=via latency=1us\n"
                                "link v a b\n");
    mdc_problems_t p;

    mdct_tmpdir(dir, sizeof(dir), "u");
    cr_expect_eq(mdc_write_all(g, dir, 2, 1, &p), 1);
    cr_expect_eq(p.unreachable, 4);
    DIR *d = opendir(dir);
    struct dirent *e;
    int files = 0;
    while ((e = readdir(d)) != NULL)
        files += e->d_name[0] != '.' || strstr(e->d_name, ".tmp") != NULL;
    closedir(d);
    cr_expect_eq(files, 0);
    mdct_graph_free(g);
    mdct_rm_dir(dir);
}

/* One node and no network: its routes have no segment at all, and its file
 * has only shm.  (fuzz_desc, built with clang's UBSan, found such routes
 * taken at a null base: NULL + 0; GCC's UBSan does not check that.) */
Test(output, a_lone_node_gets_a_file_with_shm_only)
{
    char dir[64], path[128];
    mdc_graph_t *g = mdct_graph("multidev-network 1\nnode solo\n");
    mdc_router_t *r = mdc_router_new(g);
    mdc_routes_t routes;
    mdc_problems_t p;
    size_t len;

    memset(&routes, 0, sizeof(routes));
    cr_assert_not_null(r);
    cr_assert_eq(mdc_route_source(r, 0, &routes), 0);
    cr_expect_eq(routes.num_runs, 1, "one run: the node itself");
    mdc_routes_fini(&routes);
    mdc_router_free(r);
    mdct_tmpdir(dir, sizeof(dir), "solo");
    cr_assert_eq(mdc_write_all(g, dir, 2, 1, &p), 0);
    snprintf(path, sizeof(path), "%s/solo.conf", dir);
    char *text = mdct_slurp(path, &len);
    cr_assert_not_null(text);
    cr_expect_not_null(strstr(text, "\ndevice shm\nroute solo 0 inf shm -\narrive solo shm\n"),
                       "%s", text);
    free(text);
    mdct_graph_free(g);
    mdct_rm_dir(dir);
}

Test(output, examples_parse_and_pass_check, .timeout = 60)
{
    DIR *d = opendir(MDC_EXAMPLES_DIR);
    struct dirent *e;
    int n = 0;

    cr_assert_not_null(d, "%s", MDC_EXAMPLES_DIR);
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".net") != 0)
            continue;
        char path[512], err[MDC_ERR_MAX];
        mdc_desc_t *desc = NULL;
        snprintf(path, sizeof(path), "%s/%s", MDC_EXAMPLES_DIR, e->d_name);
        cr_assert_eq(mdc_desc_parse_file(path, &desc, err, sizeof(err)), 0,
                     "%s", err);
        mdc_graph_t *g = mdc_graph_build(desc);
        FILE *out = fopen("/dev/null", "w");
        cr_expect_eq(mdc_check(out, g, 2), 0, "%s fails --check", path);
        fclose(out);
        mdc_graph_free(g);
        mdc_desc_free(desc);
        n++;
    }
    closedir(d);
    cr_expect_geq(n, 4);
}

/* The device line says where the NIC binds: the network's subnet= or
 * iface=, then the node's own addr=, before the dev. parameters; each
 * network's line carries its own. */
Test(output, device_lines_carry_subnet_iface_and_the_nodes_address)
{
    mdc_graph_t *g = mdct_graph(
        "multidev-network 1\n"
        "node a b host=h[1-2] addr.myri0=10.0.0.[1-2]\n"
        "network myri0 type=myri latency=10us bandwidth=1GB/s subnet=10.0.0.0/24 dev.mtu=4k\n"
        "network sci0 type=sci latency=5us bandwidth=10MB/s iface=eth1\n"
        "switch myri0 sw0 a b\n"
        "ring sci0 r0 a b\n");
    mdc_peer_order_t order;
    mdc_routes_t r;
    char *text = NULL;
    size_t len = 0;

    cr_assert_eq(mdc_peer_order_init(&order, g->desc), 0);
    mdct_routes(g, mdct_node(g, "b"), &r);
    FILE *f = open_memstream(&text, &len);
    cr_assert_eq(mdc_nodefile_write(f, g, &r, &order, NULL, NULL), 0);
    fclose(f);
    cr_expect(strstr(text, "\ndevice myri net=myri0 switch=sw0 port=1 subnet=10.0.0.0/24 "
                           "addr=10.0.0.2 mtu=4k\n") != NULL, "%s", text);
    cr_expect(strstr(text, "\ndevice sci net=sci0 ring=r0 pos=1 iface=eth1\n") != NULL,
              "%s", text);
    free(text);
    mdc_routes_fini(&r);
    mdc_peer_order_fini(&order);
    mdct_graph_free(g);
}
