/*
 * md_hosts.h - where the job's ranks run, as far as addresses go: which
 * ranks share a loopback domain (one kernel, one network namespace: they,
 * and only they, reach each other over 127.0.0.1), which IPv4 addresses
 * each host has, and from these the default address of this rank's NICs.
 *
 * Every rank fills a record (md_host_record_fill) that md_nodes_setup
 * allgathers with the node names; md_hosts_setup then turns the records
 * into the md_job_hosts_t handed to every subdevice.
 */
#ifndef MD_HOSTS_H
#define MD_HOSTS_H

#include <stddef.h>
#include <stdint.h>

#include "md_sdi.h"

#define MD_HOST_ADDRS_MAX  8        /**< addresses a rank publishes */
#define MD_HOST_DOMAIN_MAX 80
#define MD_HOST_NAME_MAX   64

/* What every rank publishes about its host. */
typedef struct md_host_record {
    char     domain[MD_HOST_DOMAIN_MAX]; /**< "<boot id>/net:<inode>", or
                                              "host:<name>" without /proc */
    uint32_t addr[MD_HOST_ADDRS_MAX];    /**< up, non-loopback, network order */
    uint8_t  prefix[MD_HOST_ADDRS_MAX];
    char     ifname[MD_HOST_ADDRS_MAX][16];
    uint8_t  num_addrs;
} md_host_record_t;

/* This process's record; host_name is the fallback domain identity. */
void md_host_record_fill(md_host_record_t *rec, const char *host_name);

/* Numbers the loopback domains of n records 0.. in order of their lowest
 * rank into domain_of_rank[n]; returns how many there are. */
int32_t md_hosts_domains(const md_host_record_t *rec, int32_t n, int32_t *domain_of_rank);

/* Asks the kernel which local address its route to dst leaves from (a UDP
 * socket connect()ed to dst, then getsockname()); 0 or -1. */
typedef int (*md_route_source_fn)(uint32_t dst, uint32_t *src, void *arg);
int md_route_source_kernel(uint32_t dst, uint32_t *src, void *arg);

/* The default NIC address of rank me (md_job_hosts_t.default_addr):
 * 127.0.0.1 when all ranks share one loopback domain; else the address of
 * me whose subnet holds addresses of the most other domains; if none holds
 * any, the source address of the kernel's route to another domain's
 * address (asked through route); never a loopback address.  0 with *addr
 * set, or -1; why says how, or why there is none. */
int md_default_addr_choose(const md_host_record_t *rec, const int32_t *domain_of_rank,
                           int32_t n, int32_t num_domains, int32_t me,
                           md_route_source_fn route, void *route_arg, uint32_t *addr,
                           char *why, size_t why_len);

/* The multidevice's copy of all this (in md_t). */
typedef struct md_hosts {
    md_job_hosts_t job;              /**< what subdevices get; points below */
    int32_t       *domain_of_rank;   /**< [size] */
    char         (*host_names)[MD_HOST_NAME_MAX]; /**< [size] */
    const char   **host_ptrs;        /**< [size] */
    const char   **node_ptrs;        /**< [num_nodes] */
    char           default_addr[16];
    char           default_why[256];
} md_hosts_t;

/* Fills hosts from the allgathered records and names (host_names[size],
 * node_names[num_nodes]) and logs the default address (info). */
int  md_hosts_setup(md_hosts_t *hosts, int32_t me, int32_t size, const md_host_record_t *rec,
                    const char (*host_names)[MD_HOST_NAME_MAX],
                    const char (*node_names)[MD_HOST_NAME_MAX], int32_t num_nodes);
void md_hosts_free(md_hosts_t *hosts);

#endif /* MD_HOSTS_H */
