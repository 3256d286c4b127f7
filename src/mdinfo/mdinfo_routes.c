/*
 * mdinfo_routes.c - a node file's device list and connection table as
 * tables (mdinfo.h): for every peer node and size class, the subdevice and
 * the next hop, the subdevices each peer's messages arrive on, and the
 * rails large messages to a peer are striped over.  Each row names the
 * line of the file it comes from.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "mdinfo.h"

#define MDINFO_SIZES_MAX 64

static int max_int(int a, int b)
{
    return a > b ? a : b;
}

/* "0 .. 16383", "16k .. inf": a class's sizes as the node file reads them. */
static void class_sizes(const md_nodeconf_route_t *r, char *out, size_t len)
{
    char lo[24], hi[24];

    md_size_format(r->min, lo, sizeof(lo));
    if (r->max == MD_SIZE_INF)
        snprintf(hi, sizeof(hi), "inf");
    else
        md_size_format(r->max, hi, sizeof(hi));
    snprintf(out, len, "%s .. %s", lo, hi);
}

static void print_devices(const md_nodeconf_t *conf)
{
    int wname = (int)strlen("subdevice");

    for (size_t i = 0; i < conf->num_devices; i++)
        wname = max_int(wname, (int)strlen(conf->devices[i].name));
    printf("device list (%zu)\n  %-5s %-*s %-5s %s\n", conf->num_devices, "index", wname,
           "subdevice", "line", "parameters");
    for (size_t i = 0; i < conf->num_devices; i++) {
        const md_nodeconf_device_t *d = &conf->devices[i];

        printf("  %-5zu %-*s %-5d", i, wname, d->name, d->line);
        for (size_t k = 0; k < d->num_params; k++)
            printf(" %s=%s", d->params[k].key, d->params[k].value);
        printf("%s\n", d->num_params == 0 ? " -" : "");
    }
}

static void print_routes(const md_nodeconf_t *conf)
{
    int wpeer = (int)strlen("peer"), wsizes = (int)strlen("bytes"),
        wsub = (int)strlen("subdevice"), whop = (int)strlen("next hop");
    char sizes[MDINFO_SIZES_MAX];

    for (size_t i = 0; i < conf->num_routes; i++) {
        const md_nodeconf_route_t *r = &conf->routes[i];

        class_sizes(r, sizes, sizeof(sizes));
        wpeer = max_int(wpeer, (int)strlen(r->peer));
        wsizes = max_int(wsizes, (int)strlen(sizes));
        wsub = max_int(wsub, (int)strlen(r->subdev));
        whop = max_int(whop, (int)strlen(r->next_hop));
    }
    printf("connection table (%zu routes)\n  %-*s %-*s %-*s %-*s %s\n", conf->num_routes,
           wpeer, "peer", wsizes, "bytes", wsub, "subdevice", whop, "next hop", "line");
    for (size_t i = 0; i < conf->num_routes; i++) {
        const md_nodeconf_route_t *r = &conf->routes[i];
        /* routes are grouped by peer: name it on its first class only */
        int first = i == 0 || strcmp(conf->routes[i - 1].peer, r->peer) != 0;

        class_sizes(r, sizes, sizeof(sizes));
        printf("  %-*s %-*s %-*s %-*s %d\n", wpeer, first ? r->peer : "", wsizes, sizes,
               wsub, r->subdev, whop, r->next_hop[0] != '\0' ? r->next_hop : "direct",
               r->line);
    }
}

static void print_arrivals(const md_nodeconf_t *conf)
{
    int wpeer = (int)strlen("peer");

    if (conf->num_arrives == 0) {
        printf("arrivals: no arrive line (a peer's messages arrive on the subdevices of "
               "its routes)\n");
        return;
    }
    for (size_t i = 0; i < conf->num_arrives; i++)
        wpeer = max_int(wpeer, (int)strlen(conf->arrives[i].peer));
    printf("arrivals\n  %-*s %-5s %s\n", wpeer, "peer", "line", "subdevices");
    for (size_t i = 0; i < conf->num_arrives; i++) {
        const md_nodeconf_arrive_t *a = &conf->arrives[i];

        printf("  %-*s %-5d", wpeer, a->peer, a->line);
        for (size_t k = 0; k < a->num_subdevs; k++)
            printf(" %s", a->subdevs[k]);
        printf("\n");
    }
}

/* Each peer's rails: from which size its messages are striped, and over
 * which subdevices with which weights. */
static void print_rails(const md_nodeconf_t *conf)
{
    int wpeer = (int)strlen("peer"), wfrom = (int)strlen("from");
    char from[24];

    if (conf->num_rails == 0) {
        printf("rails: no rails line (no message is striped over several subdevices)\n");
        return;
    }
    for (size_t i = 0; i < conf->num_rails; i++) {
        md_size_format(conf->rails[i].from, from, sizeof(from));
        wpeer = max_int(wpeer, (int)strlen(conf->rails[i].peer));
        wfrom = max_int(wfrom, (int)strlen(from));
    }
    printf("rails (striped from a size on, shares by weight in MB/s)\n"
           "  %-*s %-*s %-5s %s\n", wpeer, "peer", wfrom, "from", "line",
           "subdevice=weight");
    for (size_t i = 0; i < conf->num_rails; i++) {
        const md_nodeconf_rails_t *r = &conf->rails[i];

        md_size_format(r->from, from, sizeof(from));
        printf("  %-*s %-*s %-5d", wpeer, r->peer, wfrom, from, r->line);
        for (size_t k = 0; k < r->num; k++)
            printf(" %s=%u", r->subdevs[k], (unsigned)r->weights[k]);
        printf("\n");
    }
}

void mdinfo_routes(const md_nodeconf_t *conf)
{
    printf("# node %s (%s)\n\n", conf->node, conf->source);
    print_devices(conf);
    printf("\n");
    print_routes(conf);
    printf("\n");
    print_arrivals(conf);
    printf("\n");
    print_rails(conf);
}
