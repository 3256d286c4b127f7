/* mdc_desc.c - the description model: built-in types, lookups, freeing. */
#include <stdlib.h>
#include <string.h>

#include "md_nodeconf_internal.h"
#include "mdc_parse_int.h"

static const char *const builtin_types[] = { "shm", "sci", "via", "myri" };

/* Every description starts with the four subdevices of the project; all
 * of them carry system messages (they run a progress thread). */
int mdc_desc_init_builtins(mdc_desc_t *d)
{
    size_t n = sizeof(builtin_types) / sizeof(builtin_types[0]);

    for (size_t i = 0; i < n; i++) {
        mdc_type_t *t = mdc_grow((void **)&d->types, &d->num_types,
                                 sizeof(*t));
        if (t == NULL)
            return -1;
        strcpy(t->name, builtin_types[i]);
        strcpy(t->subdev, builtin_types[i]);
        t->sysmsg = 1;
        if (mdc_strmap_put(&d->type_map, builtin_types[i], (int)i) != 0)
            return -1;
    }
    return 0;
}

void mdc_desc_free(mdc_desc_t *d)
{
    if (d == NULL)
        return;
    for (size_t i = 0; i < d->num_profiles; i++)
        free(d->profiles[i].rows);
    for (size_t i = 0; i < d->num_nodes; i++) {
        free(d->nodes[i].attach);
        free(d->nodes[i].addrs);
    }
    for (size_t i = 0; i < d->num_networks; i++)
        md_nodeconf_free_params(d->networks[i].dev_params,
                                d->networks[i].num_dev_params);
    for (size_t i = 0; i < d->num_segments; i++)
        free(d->segments[i].members);
    free(d->types);
    free(d->profiles);
    free(d->nodes);
    free(d->networks);
    free(d->segments);
    free(d->trunks);
    mdc_strmap_fini(&d->type_map);
    mdc_strmap_fini(&d->profile_map);
    mdc_strmap_fini(&d->node_map);
    mdc_strmap_fini(&d->network_map);
    mdc_strmap_fini(&d->segment_map);
    free(d);
}

int mdc_desc_node_forward(const mdc_desc_t *d, int node)
{
    int f = d->nodes[node].forward;

    return f == MDC_FWD_UNSET ? d->forward : f;
}

int mdc_desc_find_node(const mdc_desc_t *d, const char *name)
{
    return mdc_strmap_get(&d->node_map, name);
}

int mdc_desc_network_routable(const mdc_desc_t *d, int network)
{
    return d->types[d->networks[network].type].subdev[0] != '\0';
}

const mdc_attach_t *mdc_desc_attach(const mdc_desc_t *d, int node,
                                    int network)
{
    const mdc_node_t *n = &d->nodes[node];

    for (size_t i = 0; i < n->num_attach; i++)
        if (n->attach[i].network == network)
            return &n->attach[i];
    return NULL;
}

const mdc_node_addr_t *mdc_desc_node_addr(const mdc_desc_t *d, int node,
                                          int network)
{
    const mdc_node_t *n = &d->nodes[node];

    for (size_t i = 0; i < n->num_addrs; i++)
        if (n->addrs[i].network == network)
            return &n->addrs[i];
    return NULL;
}
