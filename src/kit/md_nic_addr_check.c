/* md_nic_addr_check.c - subdevice kit: at connect, a NIC address published
 * to a peer that cannot reach it (md_nic_addr.h).
 *
 * A firmware bound to 127.0.0.1 is reachable only from its own loopback
 * domain.  A peer elsewhere that sends to it sends to its own host's
 * loopback instead: to nobody, or to some other firmware, and the first
 * message waits for the peer timeout.  Every rank has every card and
 * every rank's domain, so both ends of such a pair see it before any
 * frame leaves, and MPI_Init fails with a message naming both. */
#include "config.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "md_ipv4.h"
#include "md_log.h"
#include "md_nic_addr.h"

static void log_pair(md_subdev_t *sd, const md_nic_addr_t *mine,
                     const md_nic_endpoint_t *published, int32_t publisher, int32_t reader)
{
    const md_job_hosts_t *h = mine->hosts;
    const char *pub_host = h->host_of_rank[publisher], *rd_host = h->host_of_rank[reader];
    char ip[MD_IPV4_TEXT_MAX], env[48];

    snprintf(env, sizeof(env), "MULTIDEV_%s_ADDR", mine->subdev);
    for (char *c = env; *c != '\0'; c++)
        *c = (char)toupper((unsigned char)*c);
    /* the host's logger puts the subdevice's name in front */
    sd->host->log(sd, MD_LOG_ERROR, "rank %d (node %s, host %s) published its NIC address %s:%u, "
                  "which rank %d (node %s, host %s) cannot reach from %s; give network %s a "
                  "subnet= or iface= in the description, or set %s on host %s",
                  (int)publisher, h->node_names[mine->node_of_rank[publisher]],
                  pub_host, md_ipv4_format(published[publisher].ip, ip),
                  (unsigned)ntohs(published[publisher].port), (int)reader,
                  h->node_names[mine->node_of_rank[reader]], rd_host,
                  strcmp(pub_host, rd_host) == 0 ? "another network namespace" : "another host",
                  mine->net, env, pub_host);
}

int md_nic_addr_check_peers(md_subdev_t *sd, const md_nic_addr_t *mine,
                            const md_nic_endpoint_t *published, int32_t world_size,
                            const uint8_t *serves, uint8_t *unreachable)
{
    int32_t me = mine->me, bad = 0;
    const int32_t *domain;

    memset(unreachable, 0, (size_t)world_size);
    if (mine->hosts == NULL || mine->hosts->num_domains <= 1)
        return MD_OK;
    domain = mine->hosts->domain_of_rank;
    for (int32_t q = 0; q < world_size; q++) {
        int32_t publisher;
        /* a peer without a card is the subdevice's own error to report */
        if (q == me || !serves[q] || published[q].ip == 0 || domain[q] == domain[me])
            continue;
        if (md_ipv4_is_loopback(published[q].ip))
            publisher = q;
        else if (md_ipv4_is_loopback(published[me].ip))
            publisher = me;
        else
            continue;
        unreachable[q] = 1;
        if (bad++ == 0)
            log_pair(sd, mine, published, publisher, publisher == q ? me : q);
    }
    if (bad > 1)
        sd->host->log(sd, MD_LOG_ERROR,
                      "%d more peers of rank %d on other hosts are in the same case",
                      (int)(bad - 1), (int)me);
    return bad > 0 ? MD_ERR_NO_ROUTE : MD_OK;
}

int md_nic_addr_check_cards(md_subdev_t *sd, const md_nic_addr_t *mine,
                            const md_card_table_t *cards, md_nic_card_addr_fn card_addr,
                            const uint8_t *serves, uint8_t *unreachable)
{
    int32_t n = cards->world_size;
    md_nic_endpoint_t *published = calloc((size_t)n, sizeof(*published));
    uint8_t *scratch = unreachable != NULL ? NULL : malloc((size_t)n);
    int rc = MD_ERR_NO_MEMORY;

    if (published != NULL && (unreachable != NULL || scratch != NULL)) {
        for (int32_t r = 0; r < n; r++)
            published[r] = card_addr(cards, r);
        rc = md_nic_addr_check_peers(sd, mine, published, n, serves,
                                     unreachable != NULL ? unreachable : scratch);
    }
    free(published);
    free(scratch);
    return rc;
}
