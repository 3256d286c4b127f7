/*
 * md_nodeconf_write.c - the canonical text form of a configuration in
 * memory: lines in the stored (canonical) order, and consecutive peers
 * whose lines are the same apart from the peer written once as a range
 * ("route n[0104-4095] 0 inf myri -"), peers in a range being names that
 * follow each other (md_names_follows) in the sorted order.  A range
 * holds at most MD_NODECONF_RANGE_MAX peers.
 */
#include <errno.h>
#include <string.h>

#include "md_names.h"
#include "md_nodeconf_out.h"

/* The routes of the peer starting at routes[i]: their count. */
static size_t route_block(const md_nodeconf_t *c, size_t i)
{
    size_t j = i + 1;

    while (j < c->num_routes && strcmp(c->routes[j].peer, c->routes[i].peer) == 0)
        j++;
    return j - i;
}

static int same_routes(const md_nodeconf_route_t *x,
                       const md_nodeconf_route_t *y, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (x[k].min != y[k].min || x[k].max != y[k].max ||
            strcmp(x[k].subdev, y[k].subdev) != 0 ||
            strcmp(x[k].next_hop, y[k].next_hop) != 0)
            return 0;
    return 1;
}

static void write_routes(md_nodeconf_out_t *o, const md_nodeconf_t *c)
{
    for (size_t i = 0; i < c->num_routes;) {
        const md_nodeconf_route_t *first = &c->routes[i];
        size_t n = route_block(c, i), peers = 1, j = i + n;
        const char *last = first->peer;
        while (j < c->num_routes && peers < MD_NODECONF_RANGE_MAX &&
               md_names_follows(last, c->routes[j].peer) &&
               route_block(c, j) == n && same_routes(first, &c->routes[j], n)) {
            last = c->routes[j].peer;
            peers++;
            j += n;
        }
        for (size_t k = 0; k < n; k++)
            md_nodeconf_out_route(o, first->peer, last, first[k].min,
                                  first[k].max, first[k].subdev,
                                  first[k].next_hop);
        i = j;
    }
}

/* Arrive and rails lines are sorted by peer, one per peer: the end of the
 * run starting at index i of the n stride-sized items at base (peer
 * names first) whose peers follow each other and whose lines are the
 * same (same(x, y)) apart from the peer. */
static size_t peer_run_end(const void *base, size_t n, size_t stride,
                           size_t i, int (*same)(const void *, const void *))
{
    const char *first = (const char *)base + i * stride;
    size_t j = i + 1;

    while (j < n && j - i < MD_NODECONF_RANGE_MAX &&
           md_names_follows(first + (j - 1 - i) * stride,
                            first + (j - i) * stride) &&
           same(first, first + (j - i) * stride))
        j++;
    return j;
}

static int same_arrive(const void *xp, const void *yp)
{
    const md_nodeconf_arrive_t *x = xp, *y = yp;

    if (x->num_subdevs != y->num_subdevs)
        return 0;
    for (size_t k = 0; k < x->num_subdevs; k++)
        if (strcmp(x->subdevs[k], y->subdevs[k]) != 0)
            return 0;
    return 1;
}

static void write_arrives(md_nodeconf_out_t *o, const md_nodeconf_t *c)
{
    for (size_t i = 0; i < c->num_arrives;) {
        const md_nodeconf_arrive_t *a = &c->arrives[i];
        size_t j = peer_run_end(c->arrives, c->num_arrives, sizeof(*a), i,
                                same_arrive);
        md_nodeconf_out_arrive(o, a->peer, c->arrives[j - 1].peer);
        for (size_t k = 0; k < a->num_subdevs; k++)
            md_nodeconf_out_word(o, a->subdevs[k]);
        md_nodeconf_out_end_line(o);
        i = j;
    }
}

static int same_rails(const void *xp, const void *yp)
{
    const md_nodeconf_rails_t *x = xp, *y = yp;

    if (x->from != y->from || x->num != y->num)
        return 0;
    for (size_t k = 0; k < x->num; k++)
        if (x->weights[k] != y->weights[k] ||
            strcmp(x->subdevs[k], y->subdevs[k]) != 0)
            return 0;
    return 1;
}

static void write_rails(md_nodeconf_out_t *o, const md_nodeconf_t *c)
{
    for (size_t i = 0; i < c->num_rails;) {
        const md_nodeconf_rails_t *r = &c->rails[i];
        size_t j = peer_run_end(c->rails, c->num_rails, sizeof(*r), i,
                                same_rails);
        md_nodeconf_out_rails(o, r->peer, c->rails[j - 1].peer, r->from);
        for (size_t k = 0; k < r->num; k++)
            md_nodeconf_out_rail(o, r->subdevs[k], r->weights[k]);
        md_nodeconf_out_end_line(o);
        i = j;
    }
}

int md_nodeconf_write(FILE *f, const md_nodeconf_t *conf)
{
    md_nodeconf_out_t *o;

    if (f == NULL || conf == NULL || conf->node[0] == '\0') {
        errno = EINVAL;
        return -1;
    }
    o = md_nodeconf_out_new(f);
    if (o == NULL)
        return -1;
    md_nodeconf_out_head(o, conf);
    write_routes(o, conf);
    write_arrives(o, conf);
    write_rails(o, conf);
    return md_nodeconf_out_finish(o);
}
