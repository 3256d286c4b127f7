/*
 * md_conntab.c - the connection table (P1 §3.3.1): for every peer node and
 * message-size class, the subdevice and the next hop; and the subdevices a
 * peer's messages arrive on.
 *
 * Built once at init from the node configuration (or the default: shm for
 * this node, nothing else).  A peer that cannot be reached is an error here,
 * at init, not at its first send.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "md_core.h"
#include "md_log.h"

static int md_conntab_first_rank(const md_t *md, int32_t node)
{
    return md->node_relay_rank[node];
}

static const char *md_conntab_source(const md_t *md)
{
    return md->conf ? md->conf->source : "the default configuration";
}

/* The default for this node when the file has no route to itself. */
static int md_conntab_local_default(md_t *md, md_node_route_t *r)
{
    int shm = md_devlist_index(md, "shm");

    if (shm < 0) {
        md_log_error("%s: no route for same-node peers and messages to self, "
                     "and no shm device to use by default",
                     md_conntab_source(md));
        return MD_ERR_NO_ROUTE;
    }
    r->num_classes = 1;
    r->classes[0] = (md_route_class_t){ .max = MD_SIZE_INF, .subdev = shm,
                                        .next_hop_node = -1 };
    r->arrive_mask = 1u << shm;
    return MD_OK;
}

/* A subdevice that reaches same-node peers only (MD_CAP_LOCAL_ONLY, known
 * since it loaded) cannot carry a class whose first hop is another node:
 * said here, naming the line, rather than at its first send. */
static int md_conntab_hop_reachable(const md_t *md, const md_nodeconf_route_t *cr,
                                    const md_route_class_t *c, int32_t node)
{
    int32_t hop = c->next_hop_node >= 0 ? c->next_hop_node : node;

    if (hop == md->my_node || !(md->devs.ops[c->subdev].caps & MD_CAP_LOCAL_ONLY))
        return 1;
    md_log_error("%s:%d: the route to node %s goes over %s to node %s, but %s "
                 "reaches same-node peers only", md->conf->source, cr->line,
                 cr->peer, cr->subdev, md->node_names[hop], cr->subdev);
    return 0;
}

/* The node file's rails to node (MULTIDEV_RAILS=off: none): the
 * subdevices a large message to it is striped over, with their weights. */
static int md_conntab_rails(md_t *md, int32_t node, md_node_route_t *r, int rails_on)
{
    const md_nodeconf_rails_t *cr = md_nodeconf_find_rails(md->conf, md->node_names[node]);

    if (cr == NULL || node == md->my_node || !rails_on)
        return MD_OK;
    for (size_t k = 0; k < cr->num && k < MD_MAX_RAILS; k++) {
        int sd = md_devlist_index(md, cr->subdevs[k]);
        if (sd < 0 || (md->devs.ops[sd].caps & MD_CAP_LOCAL_ONLY) || md->fwd_index < 0) {
            md_log_error("%s:%d: rail %s to node %s: %s", md->conf->source, cr->line,
                         cr->subdevs[k], cr->peer,
                         sd < 0 ? "no such subdevice loaded"
                         : md->fwd_index < 0 ? "there is no forwarding receiver"
                                             : "it reaches same-node peers only");
            return MD_ERR_CONFIG;
        }
        r->rails[k] = (md_rail_t){ .subdev = sd, .weight = cr->weights[k] };
    }
    r->num_rails = (int32_t)(cr->num < MD_MAX_RAILS ? cr->num : MD_MAX_RAILS);
    r->stripe_from = cr->from;
    r->arrive_mask |= 1u << md->fwd_index;      /* striped messages come through it */
    return MD_OK;
}

static int md_conntab_from_conf(md_t *md, int32_t node, md_node_route_t *r, int rails_on)
{
    const char *name = md->node_names[node];
    const md_nodeconf_arrive_t *arrive;

    for (size_t i = 0; i < md->conf->num_routes; i++) {
        const md_nodeconf_route_t *cr = &md->conf->routes[i];
        md_route_class_t *c;

        if (strcmp(cr->peer, name) != 0)
            continue;
        if (r->num_classes == MD_MAX_CLASSES) {
            md_log_error("%s:%d: more than %d size classes for node %s",
                         md->conf->source, cr->line, MD_MAX_CLASSES, name);
            return MD_ERR_CONFIG;
        }
        c = &r->classes[r->num_classes++];
        c->max = cr->max;
        c->subdev = md_devlist_index(md, cr->subdev);
        c->next_hop_node = -1;
        if (cr->next_hop[0] != '\0') {
            c->next_hop_node = md_node_index(md, cr->next_hop);
            if (c->next_hop_node < 0) {
                md_log_error("%s:%d: the route to %s forwards through node %s, "
                             "which has no rank in this job", md->conf->source,
                             cr->line, name, cr->next_hop);
                return MD_ERR_NO_ROUTE;
            }
        }
        if (!md_conntab_hop_reachable(md, cr, c, node))
            return MD_ERR_CONFIG;
        if (c->next_hop_node >= 0) {
            /* symmetric default: its messages come back forwarded too */
            if (md->fwd_index >= 0)
                r->arrive_mask |= 1u << md->fwd_index;
            continue;
        }
        r->arrive_mask |= 1u << c->subdev;
    }
    if (r->num_classes == 0)
        return node == md->my_node ? md_conntab_local_default(md, r) : MD_OK;

    arrive = md_nodeconf_find_arrive(md->conf, name);
    if (arrive != NULL) {
        r->arrive_mask = 0;
        for (size_t k = 0; k < arrive->num_subdevs; k++)
            r->arrive_mask |= 1u << md_devlist_index(md, arrive->subdevs[k]);
    }
    return md_conntab_rails(md, node, r, rails_on);
}

static int md_conntab_check_reachable(const md_t *md)
{
    for (int32_t n = 0; n < md->num_nodes; n++) {
        if (md->routes[n].num_classes > 0)
            continue;
        if (md->conf == NULL)
            md_log_error("rank %d runs on node %s, not on this node (%s), and "
                         "no node configuration says how to reach it: set "
                         "MULTIDEV_CONFIG to mdconfig's output (only "
                         "single-node jobs work without one)",
                         md_conntab_first_rank(md, n), md->node_names[n],
                         md->node_name);
        else
            md_log_error("%s: no route to node %s, where rank %d runs",
                         md->conf->source, md->node_names[n],
                         md_conntab_first_rank(md, n));
        return MD_ERR_NO_ROUTE;
    }
    return MD_OK;
}

int md_conntab_build(md_t *md)
{
    int rc, rails = 0;      /* 0: on, 1: off */

    rc = md_env_choice("MULTIDEV_RAILS", (const char *const[]){ "on", "off" }, 2, 0, &rails);
    if (rc != MD_OK)
        return rc;
    md->routes = calloc((size_t)md->num_nodes, sizeof(*md->routes));
    if (md->routes == NULL)
        return MD_ERR_NO_MEMORY;
    for (int32_t n = 0; n < md->num_nodes && rc == MD_OK; n++) {
        if (md->conf != NULL)
            rc = md_conntab_from_conf(md, n, &md->routes[n], rails == 0);
        else if (n == md->my_node)
            rc = md_conntab_local_default(md, &md->routes[n]);
    }
    if (rc == MD_OK)
        rc = md_conntab_check_reachable(md);
    md->all_mask = 0;
    for (int32_t n = 0; n < md->num_nodes && rc == MD_OK; n++)
        md->all_mask |= md->routes[n].arrive_mask;
    return rc;
}

const md_route_class_t *md_conntab_lookup(const md_t *md, int32_t dst_world,
                                          size_t len)
{
    const md_node_route_t *r = &md->routes[md->node_of_rank[dst_world]];

    for (int32_t i = 0; i < r->num_classes; i++)
        if (len <= r->classes[i].max)
            return &r->classes[i];
    return NULL;
}

uint32_t md_conntab_arrive_mask(const md_t *md, int32_t src_world)
{
    return md->routes[md->node_of_rank[src_world]].arrive_mask;
}

static void md_conntab_format_mask(const md_t *md, uint32_t mask, char *buf,
                                   size_t len)
{
    size_t used = 0;

    buf[0] = '\0';
    for (int i = 0; i < md->devs.num && used < len; i++)
        if (mask & (1u << i))
            used += (size_t)snprintf(buf + used, len - used, "%s%s",
                                     used ? "," : "", md->devs.subdevs[i].name);
}

void md_conntab_print(const md_t *md)
{
    char line[1024], mask[256];

    for (int32_t n = 0; n < md->num_nodes; n++) {
        const md_node_route_t *r = &md->routes[n];
        size_t used = (size_t)snprintf(line, sizeof(line), "route to node %s:",
                                       md->node_names[n]);
        for (int32_t i = 0; i < r->num_classes && used < sizeof(line); i++) {
            const md_route_class_t *c = &r->classes[i];
            size_t lo = i == 0 ? 0 : r->classes[i - 1].max + 1;
            char hi[32];

            if (c->max == MD_SIZE_INF)
                snprintf(hi, sizeof(hi), "inf");
            else
                snprintf(hi, sizeof(hi), "%zu", c->max);
            used += (size_t)snprintf(line + used, sizeof(line) - used,
                                     " [%zu..%s] %s%s%s", lo, hi,
                                     md->devs.subdevs[c->subdev].name,
                                     c->next_hop_node >= 0 ? " via " : "",
                                     c->next_hop_node >= 0
                                         ? md->node_names[c->next_hop_node] : "");
        }
        if (r->num_rails > 0 && used < sizeof(line))
            used += (size_t)snprintf(line + used, sizeof(line) - used,
                                     "; striped from %zu bytes over", r->stripe_from);
        for (int32_t k = 0; k < r->num_rails && used < sizeof(line); k++)
            used += (size_t)snprintf(line + used, sizeof(line) - used, " %s=%u%s",
                                     md->devs.subdevs[r->rails[k].subdev].name,
                                     r->rails[k].weight,
                                     (r->rails_down & (1u << k)) ? "(lost)" : "");
        md_conntab_format_mask(md, r->arrive_mask, mask, sizeof(mask));
        md_log_info("%s; arrives on %s", line, mask[0] ? mask : "(nothing)");
    }
}
