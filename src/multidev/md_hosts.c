/* md_hosts.c - the job's loopback domains and this rank's default NIC
 * address, kept for the subdevices (md_hosts.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "md_hosts.h"
#include "md_ipv4.h"
#include "md_log.h"

int md_hosts_setup(md_hosts_t *h, int32_t me, int32_t size, const md_host_record_t *rec,
                   const char (*host_names)[MD_HOST_NAME_MAX],
                   const char (*node_names)[MD_HOST_NAME_MAX], int32_t num_nodes)
{
    uint32_t addr;

    memset(h, 0, sizeof(*h));
    h->domain_of_rank = calloc((size_t)size, sizeof(*h->domain_of_rank));
    h->host_names = calloc((size_t)size, sizeof(*h->host_names));
    h->host_ptrs = calloc((size_t)size, sizeof(*h->host_ptrs));
    h->node_ptrs = calloc((size_t)num_nodes, sizeof(*h->node_ptrs));
    if (h->domain_of_rank == NULL || h->host_names == NULL || h->host_ptrs == NULL ||
        h->node_ptrs == NULL) {
        md_hosts_free(h);
        return MD_ERR_NO_MEMORY;
    }
    memcpy(h->host_names, host_names, (size_t)size * sizeof(*h->host_names));
    for (int32_t r = 0; r < size; r++)
        h->host_ptrs[r] = h->host_names[r];
    for (int32_t n = 0; n < num_nodes; n++)
        h->node_ptrs[n] = node_names[n];

    h->job.num_domains = md_hosts_domains(rec, size, h->domain_of_rank);
    if (md_default_addr_choose(rec, h->domain_of_rank, size, h->job.num_domains, me,
                               md_route_source_kernel, NULL, &addr, h->default_why,
                               sizeof(h->default_why)) == 0) {
        md_ipv4_format(addr, h->default_addr);
        md_log_info("hosts: %d loopback domain%s in the job; default NIC address %s: %s",
                    (int)h->job.num_domains, h->job.num_domains == 1 ? "" : "s",
                    h->default_addr, h->default_why);
    } else {
        /* Not an error yet: only a NIC that needs it and is given no
         * address in the description fails (md_nic_addr_choose). */
        md_log_info("hosts: %d loopback domains in the job; no default NIC address: %s",
                    (int)h->job.num_domains, h->default_why);
    }
    h->job.domain_of_rank = h->domain_of_rank;
    h->job.host_of_rank = h->host_ptrs;
    h->job.node_names = h->node_ptrs;
    h->job.default_addr = h->default_addr;
    h->job.default_why = h->default_why;
    return MD_OK;
}

void md_hosts_free(md_hosts_t *h)
{
    free(h->domain_of_rank);
    free(h->host_names);
    free(h->host_ptrs);
    free(h->node_ptrs);
    memset(h, 0, sizeof(*h));
}
