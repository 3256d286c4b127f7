/* conntab_test.c - the connection table built from a node configuration:
 * size classes at their exact boundaries, arrival sets, defaults, and
 * unreachable peers reported at init. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "md_core.h"

/* A fake job: ranks 0-1 on n1 (this node, rank 0), 2-3 on n2, 4 on n3. */
static md_t *fake_job(const char *conf_text, const char *const *subdevs,
                      int num_subdevs)
{
    static const char *const nodes[] = { "n1", "n2", "n3" };
    static const int32_t node_of_rank[] = { 0, 0, 1, 1, 2 };
    char err[MD_NODECONF_ERR_MAX];
    md_t *md = calloc(1, sizeof(*md));

    md->rank = 0;
    md->size = 5;
    md->num_nodes = 3;
    md->my_node = 0;
    snprintf(md->node_name, sizeof(md->node_name), "n1");
    md->node_of_rank = malloc(sizeof(node_of_rank));
    memcpy(md->node_of_rank, node_of_rank, sizeof(node_of_rank));
    md->node_names = calloc(3, MD_NAME_MAX);
    md->node_relay_rank = malloc(3 * sizeof(int32_t));
    for (int n = 0; n < 3; n++)
        strcpy(md->node_names[n], nodes[n]);
    md->node_relay_rank[0] = 0;
    md->node_relay_rank[1] = 2;
    md->node_relay_rank[2] = 4;
    for (int i = 0; i < num_subdevs; i++)
        snprintf(md->devs.subdevs[i].name, 32, "%s", subdevs[i]);
    md->devs.num = num_subdevs;
    if (conf_text != NULL)
        cr_assert_eq(md_nodeconf_parse_string(conf_text, "test.conf",
                                              &md->conf, err, sizeof(err)),
                     0, "%s", err);
    return md;
}

static void free_job(md_t *md)
{
    if (md->conf)
        md_nodeconf_free(md->conf);
    md_nodes_free(md);
    free(md->routes);
    free(md);
}

static const char *const three[] = { "shm", "sci", "myri" };

static const char split_conf[] =
    "multidev-node-config 1\n"
    "node n1\n"
    "device shm\n"
    "device sci\n"
    "device myri\n"
    "route n2 0 16383 sci -\n"
    "route n2 16384 inf myri -\n"
    "route n3 0 inf myri -\n"
    "arrive n3 myri sci\n";

Test(conntab, size_classes_switch_at_the_exact_boundary)
{
    md_t *md = fake_job(split_conf, three, 3);

    cr_assert_eq(md_conntab_build(md), MD_OK);
    cr_assert_eq(md_conntab_lookup(md, 2, 0)->subdev, 1);
    cr_assert_eq(md_conntab_lookup(md, 2, 16383)->subdev, 1);
    cr_assert_eq(md_conntab_lookup(md, 3, 16384)->subdev, 2);
    cr_assert_eq(md_conntab_lookup(md, 3, SIZE_MAX)->subdev, 2);
    cr_assert_eq(md_conntab_lookup(md, 4, 1)->subdev, 2);
    free_job(md);
}

Test(conntab, same_node_peers_default_to_shm)
{
    md_t *md = fake_job(split_conf, three, 3);

    cr_assert_eq(md_conntab_build(md), MD_OK);
    cr_assert_eq(md_conntab_lookup(md, 1, 5)->subdev, 0);
    cr_assert_eq(md_conntab_lookup(md, 0, 1 << 30)->subdev, 0, "self too");
    cr_assert_eq(md_conntab_arrive_mask(md, 1), 1u << 0);
    free_job(md);
}

Test(conntab, arrival_sets_come_from_arrive_lines_or_routes)
{
    md_t *md = fake_job(split_conf, three, 3);

    cr_assert_eq(md_conntab_build(md), MD_OK);
    cr_assert_eq(md_conntab_arrive_mask(md, 2), (1u << 1) | (1u << 2),
                 "no arrive line: the route's subdevices");
    cr_assert_eq(md_conntab_arrive_mask(md, 4), (1u << 1) | (1u << 2),
                 "arrive line: exactly its subdevices");
    cr_assert_eq(md->all_mask, 7u);
    free_job(md);
}

Test(conntab, a_node_without_route_is_an_error_at_init)
{
    md_t *md = fake_job("multidev-node-config 1\nnode n1\ndevice shm\n"
                        "device myri\nroute n2 0 inf myri -\n", three, 3);

    cr_assert_eq(md_conntab_build(md), MD_ERR_NO_ROUTE, "n3 (rank 4) has no route");
    free_job(md);
}

Test(conntab, the_default_reaches_only_this_node)
{
    md_t *md = fake_job(NULL, three, 1);

    cr_assert_eq(md_conntab_build(md), MD_ERR_NO_ROUTE);
    free_job(md);
}

Test(conntab, same_node_traffic_needs_shm_or_a_route)
{
    static const char *const only_myri[] = { "myri" };
    md_t *md = fake_job("multidev-node-config 1\nnode n1\ndevice myri\n"
                        "route n2 0 inf myri -\nroute n3 0 inf myri -\n",
                        only_myri, 1);

    cr_assert_eq(md_conntab_build(md), MD_ERR_NO_ROUTE);
    free_job(md);
}

Test(conntab, an_explicit_route_to_this_node_overrides_shm)
{
    md_t *md = fake_job("multidev-node-config 1\nnode n1\ndevice shm\n"
                        "device sci\ndevice myri\nroute n1 0 inf myri -\n"
                        "route n2 0 inf myri -\nroute n3 0 inf myri -\n",
                        three, 3);

    cr_assert_eq(md_conntab_build(md), MD_OK);
    cr_assert_eq(md_conntab_lookup(md, 1, 8)->subdev, 2);
    free_job(md);
}

Test(conntab, a_subdevice_serves_relays_not_the_ranks_behind_them)
{
    md_t *md = fake_job("multidev-node-config 1\nnode n1\ndevice shm\n"
                        "device sci\ndevice myri\n"
                        "route n2 0 inf myri -\nroute n3 0 inf myri n2\n"
                        "arrive n3 sci\n", three, 3);
    uint8_t serves[5];

    md->fwd_index = -1;
    cr_assert_eq(md_conntab_build(md), MD_OK);
    md_wireup_serves(md, 2, serves);    /* myri */
    cr_assert_eq(serves[2], 1, "n2's ranks are reached directly");
    cr_assert_eq(serves[3], 1);
    cr_assert_eq(serves[4], 0, "n3 is only reached through n2's relay");
    cr_assert_eq(serves[0] | serves[1], 0, "same-node ranks use shm");
    md_wireup_serves(md, 1, serves);    /* sci: only what arrives on it */
    cr_assert_eq(serves[4], 1);
    cr_assert_eq(serves[2] | serves[3], 0);
    free_job(md);
}

/* A rail that carries no route (slower than the others at every size) is
 * still a way to the peer: its subdevice serves it, or striped chunks over
 * it fail with "does not serve" (bench/stripe.sh with measured weights). */
Test(conntab, a_subdevice_serves_the_peers_it_is_a_rail_to)
{
    static const char conf[] = "multidev-node-config 1\nnode n1\ndevice shm\n"
                               "device sci\ndevice myri\n"
                               "route n2 0 inf sci -\nroute n3 0 inf sci -\n"
                               "rails n2 65536 sci=60 myri=30\n";
    static const char *const four[] = { "shm", "sci", "myri", "fwd" };
    uint8_t serves[5];

    for (int off = 0; off < 2; off++) {
        md_t *md = fake_job(conf, four, 4);

        md->fwd_index = 3;      /* striped messages arrive through it */
        if (off)
            setenv("MULTIDEV_RAILS", "off", 1);
        cr_assert_eq(md_conntab_build(md), MD_OK);
        unsetenv("MULTIDEV_RAILS");
        md_wireup_serves(md, 2, serves);    /* myri: a rail to n2, no route */
        if (off)
            cr_assert_eq(serves[2] | serves[3], 0, "rails off: myri serves nobody");
        else
            cr_assert_eq(serves[2] & serves[3], 1, "myri is a rail to n2's ranks");
        cr_assert_eq(serves[0] | serves[1] | serves[4], 0, "and to nothing else");
        free_job(md);
    }
}

/* shm says MD_CAP_LOCAL_ONLY when it loads: a node file that sends to
 * another node over it, directly or to a relay, is refused at init. */
Test(conntab, a_local_only_subdevice_carries_no_route_to_another_node)
{
    static const char *const confs[] = {
        "multidev-node-config 1\nnode n1\ndevice shm\ndevice myri\n"
        "route n2 0 1023 shm -\nroute n2 1024 inf myri -\nroute n3 0 inf myri -\n",
        "multidev-node-config 1\nnode n1\ndevice shm\ndevice myri\n"
        "route n2 0 inf myri -\nroute n3 0 inf shm n2\n",
    };
    static const char *const two[] = { "shm", "myri" };

    for (size_t i = 0; i < sizeof(confs) / sizeof(confs[0]); i++) {
        md_t *md = fake_job(confs[i], two, 2);

        md->fwd_index = -1;
        md->devs.ops[0].caps = MD_CAP_LOCAL_ONLY;
        cr_assert_eq(md_conntab_build(md), MD_ERR_CONFIG, "conf %zu", i);
        free_job(md);

        md = fake_job(confs[i], two, 2);
        md->fwd_index = -1;
        cr_assert_eq(md_conntab_build(md), MD_OK, "conf %zu without the cap", i);
        free_job(md);
    }
}
