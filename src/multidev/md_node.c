/*
 * md_node.c - which rank runs on which node.
 *
 * Every rank publishes its node name (MULTIDEV_NODE, the node of its
 * configuration file, or the host name) in one allgather.  Without an
 * explicit name, the launcher's node map decides membership; names then only
 * label the nodes.  Emulated nodes on one host are simply distinct names.
 * The same allgather carries each rank's host record (md_hosts.h).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "md_core.h"
#include "md_log.h"

int32_t md_node_index(const md_t *md, const char *name)
{
    for (int32_t n = 0; n < md->num_nodes; n++)
        if (strcmp(md->node_names[n], name) == 0)
            return n;
    return -1;
}

/* Numbers nodes 0.. in order of their lowest rank. */
static int md_nodes_from_names(md_t *md, char (*names)[MD_NAME_MAX])
{
    for (int32_t r = 0; r < md->size; r++) {
        int32_t n = md_node_index(md, names[r]);
        if (n < 0) {
            n = md->num_nodes++;
            memcpy(md->node_names[n], names[r], MD_NAME_MAX);
        }
        md->node_of_rank[r] = n;
    }
    return MD_OK;
}

static int md_nodes_from_launcher(md_t *md, const int32_t *launcher,
                                  char (*names)[MD_NAME_MAX])
{
    int32_t *seen = malloc(sizeof(*seen) * (size_t)md->size);

    if (seen == NULL)
        return MD_ERR_NO_MEMORY;
    for (int32_t r = 0; r < md->size; r++) {
        int32_t n = -1;
        for (int32_t k = 0; k < md->num_nodes; k++)
            if (seen[k] == launcher[r])
                n = k;
        if (n < 0) {
            n = md->num_nodes++;
            seen[n] = launcher[r];
            memcpy(md->node_names[n], names[r], MD_NAME_MAX);
        }
        md->node_of_rank[r] = n;
    }
    free(seen);
    return MD_OK;
}

/* What every rank publishes: its node (emulated or real), the host it
 * really runs on (ranks of several emulated nodes share one host's cores)
 * and that host's loopback domain and addresses (for the NIC addresses). */
typedef struct md_node_record {
    char node[MD_NAME_MAX];
    char host[MD_NAME_MAX];
    md_host_record_t where;
} md_node_record_t;

_Static_assert(MD_NAME_MAX == MD_HOST_NAME_MAX, "md_hosts.h takes names of MD_NAME_MAX bytes");

/* Hands the host records and names to md_hosts_setup, once the nodes are
 * known. */
static int md_nodes_hosts(md_t *md, const md_node_record_t *all)
{
    md_host_record_t *rec = calloc((size_t)md->size, sizeof(*rec));
    char (*hosts)[MD_NAME_MAX] = calloc((size_t)md->size, MD_NAME_MAX);
    int rc = MD_ERR_NO_MEMORY;

    if (rec != NULL && hosts != NULL) {
        for (int32_t r = 0; r < md->size; r++) {
            rec[r] = all[r].where;
            rec[r].domain[MD_HOST_DOMAIN_MAX - 1] = '\0';
            memcpy(hosts[r], all[r].host, MD_NAME_MAX);
        }
        rc = md_hosts_setup(&md->hosts, md->rank, md->size, rec,
                            (const char (*)[MD_NAME_MAX])hosts,
                            (const char (*)[MD_NAME_MAX])md->node_names, md->num_nodes);
    }
    free(rec);
    free(hosts);
    return rc;
}

int md_nodes_setup(md_t *md, const md_init_params_t *p)
{
    md_node_record_t mine, *all;
    char (*names)[MD_NAME_MAX];
    int explicit_name = md->node_name[0] != '\0';
    int rc;

    memset(&mine, 0, sizeof(mine));
    if (gethostname(mine.host, MD_NAME_MAX - 1) != 0)
        snprintf(mine.host, MD_NAME_MAX, "localhost");
    if (!explicit_name)
        memcpy(md->node_name, mine.host, MD_NAME_MAX);
    md->node_name[MD_NAME_MAX - 1] = '\0';
    memcpy(mine.node, md->node_name, MD_NAME_MAX);
    md_host_record_fill(&mine.where, mine.host);

    all = calloc((size_t)md->size, sizeof(*all));
    names = calloc((size_t)md->size, MD_NAME_MAX);
    md->node_of_rank = calloc((size_t)md->size, sizeof(int32_t));
    md->node_names = calloc((size_t)md->size, MD_NAME_MAX);
    md->node_relay_rank = calloc((size_t)md->size, sizeof(int32_t));
    if (!all || !names || !md->node_of_rank || !md->node_names ||
        !md->node_relay_rank) {
        free(all);
        free(names);
        return MD_ERR_NO_MEMORY;
    }

    rc = p->bootstrap.allgather(p->bootstrap.ctx, &mine, all, sizeof(mine));
    if (rc != 0) {
        md_log_error("exchanging node names with the launcher failed (%d)", rc);
        free(all);
        free(names);
        return MD_ERR_IO;
    }
    md->host_ranks = 0;
    for (int32_t r = 0; r < md->size; r++) {
        all[r].node[MD_NAME_MAX - 1] = all[r].host[MD_NAME_MAX - 1] = '\0';
        memcpy(names[r], all[r].node, MD_NAME_MAX);
        md->host_ranks += strcmp(all[r].host, mine.host) == 0;
    }

    if (!explicit_name && p->launcher_node_of_rank != NULL)
        rc = md_nodes_from_launcher(md, p->launcher_node_of_rank, names);
    else
        rc = md_nodes_from_names(md, names);
    free(names);
    if (rc != MD_OK) {
        free(all);
        return rc;
    }

    md->my_node = md->node_of_rank[md->rank];
    for (int32_t n = 0; n < md->num_nodes; n++)
        md->node_relay_rank[n] = -1;
    for (int32_t r = md->size - 1; r >= 0; r--)
        md->node_relay_rank[md->node_of_rank[r]] = r;

    md_log_info("node %s (%d of %d nodes), %d ranks in the job, %d on this "
                "host", md->node_name, md->my_node, md->num_nodes, md->size,
                md->host_ranks);
    rc = md_nodes_hosts(md, all);
    free(all);
    return rc;
}

void md_nodes_free(md_t *md)
{
    md_hosts_free(&md->hosts);
    free(md->node_of_rank);
    free(md->node_names);
    free(md->node_relay_rank);
    md->node_of_rank = NULL;
    md->node_names = NULL;
    md->node_relay_rank = NULL;
}
