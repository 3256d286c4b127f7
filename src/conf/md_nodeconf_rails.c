/*
 * md_nodeconf_rails.c - the rails lines of a configuration in memory:
 * which networks a large message to a peer is striped over, and each
 * one's weight (doc/node-config.md).  Kept sorted by peer, like the
 * arrive lines, so the lookup is a binary search.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "md_nodeconf_internal.h"

static int rails_valid(const char *peer, size_t from,
                       const char *const *subdevs, const uint32_t *weights,
                       size_t num)
{
    if (!md_nodeconf_name_ok(peer) || from == MD_SIZE_INF || num < 2 ||
        num > MD_NODECONF_RAILS_MAX || weights == NULL ||
        !md_nodeconf_subdevs_valid(subdevs, num))
        return 0;
    for (size_t i = 0; i < num; i++)
        if (strcmp(subdevs[i], MD_NODECONF_FORWARDED) == 0 ||
            weights[i] < 1 || weights[i] > MD_NODECONF_RAIL_WEIGHT_MAX)
            return 0;
    return 1;
}

md_nodeconf_rails_t *md_nodeconf_insert_rails(md_nodeconf_t *conf,
                                              const char *peer, size_t from,
                                              const char *const *subdevs,
                                              const uint32_t *weights,
                                              size_t num)
{
    if (conf == NULL || !rails_valid(peer, from, subdevs, weights, num)) {
        errno = EINVAL;
        return NULL;
    }
    char (*names)[MD_NODECONF_NAME_MAX] = calloc(num, sizeof(*names));
    uint32_t *w = calloc(num, sizeof(*w));
    md_nodeconf_rails_t *r = NULL;
    if (names != NULL && w != NULL)
        r = md_nodeconf_peer_slot((void **)&conf->rails, &conf->num_rails,
                                  sizeof(*conf->rails), peer);
    else
        errno = ENOMEM;
    if (r == NULL) {
        free(names);
        free(w);
        return NULL;
    }
    for (size_t i = 0; i < num; i++) {
        strcpy(names[i], subdevs[i]);
        w[i] = weights[i];
    }
    strcpy(r->peer, peer);
    r->from = from;
    r->num = num;
    r->subdevs = names;
    r->weights = w;
    return r;
}

int md_nodeconf_add_rails(md_nodeconf_t *conf, const char *peer, size_t from,
                          const char *const *subdevs, const uint32_t *weights,
                          size_t num)
{
    return md_nodeconf_insert_rails(conf, peer, from, subdevs, weights, num)
               != NULL ? 0 : -1;
}

const md_nodeconf_rails_t *md_nodeconf_find_rails(const md_nodeconf_t *conf,
                                                  const char *peer)
{
    if (conf == NULL)
        return NULL;
    return md_nodeconf_peer_find(conf->rails, conf->num_rails,
                                 sizeof(*conf->rails), peer);
}

void md_nodeconf_free_rails(md_nodeconf_t *conf)
{
    for (size_t i = 0; i < conf->num_rails; i++) {
        free(conf->rails[i].subdevs);
        free(conf->rails[i].weights);
    }
    free(conf->rails);
    conf->rails = NULL;
    conf->num_rails = 0;
}
