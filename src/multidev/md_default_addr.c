/*
 * md_default_addr.c - the address a rank's NIC firmwares bind when neither
 * the environment nor the description names one (md_hosts.h).
 *
 * On one host (one loopback domain) that is 127.0.0.1, as it always was:
 * the emulated nodes of a test talk over loopback and need no interface.
 * A job that spans hosts needs an address the other hosts can reach; the
 * best evidence is a subnet shared with them, so the address whose subnet
 * holds addresses of the most other domains wins.  Where no subnet is
 * shared (routed hosts), the kernel knows which address its route to them
 * leaves from.
 */
#include "config.h"

#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "md_hosts.h"
#include "md_ipv4.h"

/* How many domains other than mine have an address in subnet/prefix. */
static int32_t domains_in_subnet(const md_host_record_t *rec, const int32_t *domain_of_rank,
                                 int32_t n, int32_t num_domains, int32_t me, uint32_t subnet,
                                 unsigned prefix, uint8_t *seen)
{
    int32_t count = 0;

    memset(seen, 0, (size_t)num_domains);
    for (int32_t r = 0; r < n; r++) {
        int32_t d = domain_of_rank[r];
        if (d == domain_of_rank[me] || seen[d])
            continue;
        for (unsigned k = 0; k < rec[r].num_addrs && k < MD_HOST_ADDRS_MAX; k++) {
            if (md_ipv4_in_subnet(rec[r].addr[k], subnet, prefix)) {
                seen[d] = 1;
                count++;
                break;
            }
        }
    }
    return count;
}

/* The first address of another domain the kernel routes to from a
 * non-loopback address of mine. */
static int ask_kernel(const md_host_record_t *rec, const int32_t *domain_of_rank, int32_t n,
                      int32_t me, md_route_source_fn route, void *route_arg, uint32_t *addr,
                      char *why, size_t why_len)
{
    char dst[MD_IPV4_TEXT_MAX];

    for (int32_t r = 0; r < n; r++) {
        if (domain_of_rank[r] == domain_of_rank[me])
            continue;
        for (unsigned k = 0; k < rec[r].num_addrs && k < MD_HOST_ADDRS_MAX; k++) {
            uint32_t src;
            if (route(rec[r].addr[k], &src, route_arg) != 0 || md_ipv4_is_loopback(src) ||
                !md_ipv4_is_unicast(src))
                continue;
            *addr = src;
            snprintf(why, why_len, "no subnet of this host holds another host's address; "
                     "the kernel's route to %s (rank %d) leaves from it",
                     md_ipv4_format(rec[r].addr[k], dst), (int)r);
            return 0;
        }
    }
    snprintf(why, why_len, "no address of this host shares a subnet with the other hosts "
             "of the job, and the kernel routes to none of their addresses");
    return -1;
}

int md_default_addr_choose(const md_host_record_t *rec, const int32_t *domain_of_rank,
                           int32_t n, int32_t num_domains, int32_t me,
                           md_route_source_fn route, void *route_arg, uint32_t *addr,
                           char *why, size_t why_len)
{
    const md_host_record_t *mine = &rec[me];
    int32_t best = 0, best_count = 0;
    char net[MD_IPV4_TEXT_MAX];
    uint8_t *seen;

    if (num_domains <= 1) {
        *addr = htonl(INADDR_LOOPBACK);
        snprintf(why, why_len, "every rank of the job is in this host's loopback domain");
        return 0;
    }
    seen = malloc((size_t)num_domains);
    if (seen == NULL) {
        snprintf(why, why_len, "out of memory");
        return -1;
    }
    for (unsigned k = 0; k < mine->num_addrs && k < MD_HOST_ADDRS_MAX; k++) {
        uint32_t subnet = mine->addr[k] & md_ipv4_mask(mine->prefix[k]);
        int32_t count = domains_in_subnet(rec, domain_of_rank, n, num_domains, me, subnet,
                                          mine->prefix[k], seen);
        if (count > best_count) {
            best = (int32_t)k;
            best_count = count;
        }
    }
    free(seen);
    if (best_count == 0)
        return ask_kernel(rec, domain_of_rank, n, me, route, route_arg, addr, why, why_len);
    *addr = mine->addr[best];
    snprintf(why, why_len, "its subnet %s/%u (%.16s) holds addresses of %d of the %d other "
             "loopback domains of the job",
             md_ipv4_format(*addr & md_ipv4_mask(mine->prefix[best]), net),
             (unsigned)mine->prefix[best], mine->ifname[best], (int)best_count,
             (int)(num_domains - 1));
    return 0;
}
