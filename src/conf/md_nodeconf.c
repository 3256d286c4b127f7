/*
 * md_nodeconf.c - the in-memory per-node configuration: building it,
 * freeing it, looking things up.  Parsing is md_nodeconf_parse.c, writing
 * md_nodeconf_write.c.  The arrays stay in canonical order (see
 * md_nodeconf_internal.h) so that every lookup is a binary search.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "md_lines.h"
#include "md_nodeconf_internal.h"

static int name_ok(const char *name)
{
    return name != NULL &&
           md_name_valid(name, strlen(name), MD_NODECONF_NAME_LEN);
}

/* Makes room in *array (of elem-sized items, n in use) for one more.  The
 * capacity is implicit: 8, then doubled whenever n reaches a power of two,
 * so no capacity field is needed in the public structs. */
static int grow(void **array, size_t n, size_t elem)
{
    size_t cap;
    void *p;

    if (n == 0)
        cap = 8;
    else if (n >= 8 && (n & (n - 1)) == 0)
        cap = 2 * n;
    else
        return 0;
    p = realloc(*array, cap * elem);
    if (p == NULL) {
        errno = ENOMEM;
        return -1;
    }
    *array = p;
    return 0;
}

int md_nodeconf_name_ok(const char *name)
{
    return name_ok(name);
}

md_nodeconf_t *md_nodeconf_new(const char *node)
{
    md_nodeconf_t *conf;

    if (node != NULL && node[0] != '\0' && !name_ok(node)) {
        errno = EINVAL;
        return NULL;
    }
    conf = calloc(1, sizeof(*conf));
    if (conf == NULL) {
        errno = ENOMEM;
        return NULL;
    }
    conf->version = MD_NODECONF_VERSION;
    if (node != NULL)
        strcpy(conf->node, node);
    strcpy(conf->source, "<memory>");
    return conf;
}

int md_nodeconf_value_valid(const char *value)
{
    for (const char *p = value; *p != '\0'; p++)
        if (*p <= ' ' || *p >= 0x7f || *p == '#')
            return 0;
    return 1;
}

void md_nodeconf_free_params(md_nodeconf_kv_t *params, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(params[i].key);
        free(params[i].value);
    }
    free(params);
}

static int copy_params(md_nodeconf_device_t *dev,
                       const md_nodeconf_kv_t *params, size_t n)
{
    dev->params = NULL;
    dev->num_params = 0;
    if (n == 0)
        return 0;
    dev->params = calloc(n, sizeof(*dev->params));
    if (dev->params == NULL)
        return -1;
    for (size_t i = 0; i < n; i++) {
        dev->params[i].key = strdup(params[i].key);
        dev->params[i].value = strdup(params[i].value);
        dev->num_params = i + 1;
        if (dev->params[i].key == NULL || dev->params[i].value == NULL) {
            md_nodeconf_free_params(dev->params, dev->num_params);
            dev->params = NULL;
            dev->num_params = 0;
            return -1;
        }
    }
    return 0;
}

static int params_valid(const md_nodeconf_kv_t *params, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (params[i].key == NULL || params[i].value == NULL ||
            !name_ok(params[i].key) ||
            !md_nodeconf_value_valid(params[i].value))
            return 0;
        for (size_t j = 0; j < i; j++)
            if (strcmp(params[i].key, params[j].key) == 0)
                return 0;
    }
    return 1;
}

md_nodeconf_device_t *md_nodeconf_insert_device(md_nodeconf_t *conf,
                                                const char *name,
                                                const md_nodeconf_kv_t *params,
                                                size_t num_params)
{
    md_nodeconf_device_t *dev;

    if (!name_ok(name) || (num_params > 0 && params == NULL) ||
        !params_valid(params, num_params)) {
        errno = EINVAL;
        return NULL;
    }
    if (md_nodeconf_find_device(conf, name) != NULL) {
        errno = EEXIST;
        return NULL;
    }
    if (grow((void **)&conf->devices, conf->num_devices,
             sizeof(*conf->devices)) != 0)
        return NULL;
    dev = &conf->devices[conf->num_devices];
    memset(dev, 0, sizeof(*dev));
    strcpy(dev->name, name);
    if (copy_params(dev, params, num_params) != 0) {
        errno = ENOMEM;
        return NULL;
    }
    conf->num_devices++;
    return dev;
}

/* Routes are ordered by (peer, min). */
static int route_cmp(const md_nodeconf_route_t *r, const char *peer,
                     size_t min)
{
    int c = strcmp(r->peer, peer);

    if (c != 0)
        return c;
    return r->min < min ? -1 : r->min > min ? 1 : 0;
}

/* Index of the first route not ordered before (peer, min). */
static size_t route_lower_bound(const md_nodeconf_t *conf, const char *peer,
                                size_t min)
{
    size_t lo = 0, hi = conf->num_routes;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (route_cmp(&conf->routes[mid], peer, min) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

md_nodeconf_route_t *md_nodeconf_insert_route(md_nodeconf_t *conf,
                                              const char *peer, size_t min,
                                              size_t max, const char *subdev,
                                              const char *next_hop)
{
    md_nodeconf_route_t *r;
    size_t at;

    if (next_hop == NULL || strcmp(next_hop, "-") == 0)
        next_hop = "";                   /* direct, as in the text form */
    /* names equal to the previous route's were checked already (mdconfig
     * adds millions of routes, most repeating the previous names) */
    const md_nodeconf_route_t *prev =
        conf->num_routes > 0 ? &conf->routes[conf->num_routes - 1] : NULL;
    if ((prev == NULL || strcmp(prev->peer, peer) != 0 ? !name_ok(peer) : 0) ||
        (prev == NULL || strcmp(prev->subdev, subdev) != 0 ? !name_ok(subdev)
                                                           : 0) ||
        (next_hop[0] != '\0' && !name_ok(next_hop)) || min > max ||
        min == MD_SIZE_INF) {
        errno = EINVAL;
        return NULL;
    }
    /* appending in order is the common case (mdconfig, its own files) */
    if (conf->num_routes == 0 ||
        route_cmp(&conf->routes[conf->num_routes - 1], peer, min) < 0)
        at = conf->num_routes;
    else
        at = route_lower_bound(conf, peer, min);
    if (at < conf->num_routes &&
        route_cmp(&conf->routes[at], peer, min) == 0) {
        errno = EEXIST;
        return NULL;
    }
    if (grow((void **)&conf->routes, conf->num_routes,
             sizeof(*conf->routes)) != 0)
        return NULL;
    memmove(&conf->routes[at + 1], &conf->routes[at],
            (conf->num_routes - at) * sizeof(*conf->routes));
    conf->num_routes++;
    r = &conf->routes[at];
    memset(r, 0, sizeof(*r));
    strcpy(r->peer, peer);
    r->min = min;
    r->max = max;
    strcpy(r->subdev, subdev);
    strcpy(r->next_hop, next_hop);
    return r;
}

size_t md_nodeconf_peer_lower_bound(const void *base, size_t n, size_t stride,
                                    const char *peer)
{
    size_t lo = 0, hi = n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp((const char *)base + mid * stride, peer) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

const void *md_nodeconf_peer_find(const void *base, size_t n, size_t stride,
                                  const char *peer)
{
    if (peer == NULL || n == 0)        /* base may be NULL then */
        return NULL;
    size_t at = md_nodeconf_peer_lower_bound(base, n, stride, peer);
    if (at == n)
        return NULL;
    const char *item = (const char *)base + at * stride;
    return strcmp(item, peer) == 0 ? item : NULL;
}

int md_nodeconf_subdevs_valid(const char *const *subdevs, size_t n)
{
    if (n == 0 || subdevs == NULL)
        return 0;
    for (size_t i = 0; i < n; i++) {
        if (!name_ok(subdevs[i]))
            return 0;
        for (size_t j = 0; j < i; j++)
            if (strcmp(subdevs[i], subdevs[j]) == 0)
                return 0;
    }
    return 1;
}

void *md_nodeconf_peer_slot(void **array, size_t *n, size_t stride,
                            const char *peer)
{
    char *base = *array;
    size_t at;

    /* appending in order is the common case (mdconfig, its own files) */
    if (*n == 0 || strcmp(base + (*n - 1) * stride, peer) < 0)
        at = *n;
    else
        at = md_nodeconf_peer_lower_bound(base, *n, stride, peer);
    if (at < *n && strcmp(base + at * stride, peer) == 0) {
        errno = EEXIST;
        return NULL;
    }
    if (grow(array, *n, stride) != 0)
        return NULL;
    base = *array;
    memmove(base + (at + 1) * stride, base + at * stride, (*n - at) * stride);
    (*n)++;
    memset(base + at * stride, 0, stride);
    return base + at * stride;
}

md_nodeconf_arrive_t *md_nodeconf_insert_arrive(md_nodeconf_t *conf,
                                                const char *peer,
                                                const char *const *subdevs,
                                                size_t num_subdevs)
{
    md_nodeconf_arrive_t *a;

    if (!name_ok(peer) || !md_nodeconf_subdevs_valid(subdevs, num_subdevs)) {
        errno = EINVAL;
        return NULL;
    }
    char (*list)[MD_NODECONF_NAME_MAX] = calloc(num_subdevs, sizeof(*list));
    if (list == NULL) {
        errno = ENOMEM;
        return NULL;
    }
    a = md_nodeconf_peer_slot((void **)&conf->arrives, &conf->num_arrives,
                              sizeof(*conf->arrives), peer);
    if (a == NULL) {
        free(list);
        return NULL;
    }
    for (size_t i = 0; i < num_subdevs; i++)
        strcpy(list[i], subdevs[i]);
    strcpy(a->peer, peer);
    a->subdevs = list;
    a->num_subdevs = num_subdevs;
    return a;
}

int md_nodeconf_add_device(md_nodeconf_t *conf, const char *name,
                           const md_nodeconf_kv_t *params, size_t num_params)
{
    return md_nodeconf_insert_device(conf, name, params, num_params) != NULL
               ? 0 : -1;
}

int md_nodeconf_add_route(md_nodeconf_t *conf, const char *peer, size_t min,
                          size_t max, const char *subdev, const char *next_hop)
{
    return md_nodeconf_insert_route(conf, peer, min, max, subdev, next_hop)
               != NULL ? 0 : -1;
}

int md_nodeconf_add_arrive(md_nodeconf_t *conf, const char *peer,
                           const char *const *subdevs, size_t num_subdevs)
{
    return md_nodeconf_insert_arrive(conf, peer, subdevs, num_subdevs) != NULL
               ? 0 : -1;
}

void md_nodeconf_free(md_nodeconf_t *conf)
{
    if (conf == NULL)
        return;
    for (size_t i = 0; i < conf->num_devices; i++)
        md_nodeconf_free_params(conf->devices[i].params,
                                conf->devices[i].num_params);
    for (size_t i = 0; i < conf->num_arrives; i++)
        free(conf->arrives[i].subdevs);
    md_nodeconf_free_rails(conf);
    free(conf->devices);
    free(conf->routes);
    free(conf->arrives);
    free(conf);
}

const md_nodeconf_device_t *md_nodeconf_find_device(const md_nodeconf_t *conf,
                                                    const char *name)
{
    /* few devices (one per subdevice type): a scan is the fastest */
    if (conf == NULL || name == NULL)
        return NULL;
    for (size_t i = 0; i < conf->num_devices; i++)
        if (strcmp(conf->devices[i].name, name) == 0)
            return &conf->devices[i];
    return NULL;
}

const md_nodeconf_route_t *md_nodeconf_find_route(const md_nodeconf_t *conf,
                                                  const char *peer,
                                                  size_t size)
{
    size_t at;

    if (conf == NULL || peer == NULL || conf->num_routes == 0)
        return NULL;
    /* the route holding size is the last one with min <= size */
    at = route_lower_bound(conf, peer, size);
    if (at < conf->num_routes &&
        route_cmp(&conf->routes[at], peer, size) == 0)
        return &conf->routes[at];
    if (at == 0)
        return NULL;
    const md_nodeconf_route_t *r = &conf->routes[at - 1];
    if (strcmp(r->peer, peer) != 0 || size > r->max)
        return NULL;
    return r;
}

const md_nodeconf_route_t *md_nodeconf_last_route(const md_nodeconf_t *conf,
                                                  const char *peer)
{
    size_t at = route_lower_bound(conf, peer, MD_SIZE_INF);

    if (at < conf->num_routes && strcmp(conf->routes[at].peer, peer) == 0)
        return &conf->routes[at];         /* min == MD_SIZE_INF: impossible */
    if (at == 0 || strcmp(conf->routes[at - 1].peer, peer) != 0)
        return NULL;
    return &conf->routes[at - 1];
}

const md_nodeconf_arrive_t *md_nodeconf_find_arrive(const md_nodeconf_t *conf,
                                                    const char *peer)
{
    if (conf == NULL)
        return NULL;
    return md_nodeconf_peer_find(conf->arrives, conf->num_arrives,
                                 sizeof(*conf->arrives), peer);
}
