/*
 * md_nic_addr.h - subdevice kit: the UDP address an emulated NIC's firmware
 * binds, and so the address the subdevice's card publishes.  One choice for
 * every subdevice that drives a NIC (myri, via, sci), in this order:
 *
 *   1. MULTIDEV_<SUBDEV>_ADDR     (environment, this subdevice)
 *   2. MULTIDEV_NIC_ADDR          (environment, every NIC)
 *   3. MULTIDEV_<SUBDEV>_IFACE, MULTIDEV_<SUBDEV>_SUBNET (environment)
 *   4. addr=    on the device line (mdconfig: node attribute addr.NET=)
 *   5. iface=   the IPv4 address of that interface (network attribute)
 *   6. subnet=  the local address inside that subnet (network attribute)
 *   7. the job's default (md_job_hosts_t.default_addr): 127.0.0.1 when
 *      every rank is on one host, else the address that reaches the others
 *
 * Then, at connect, md_nic_addr_check_peers() turns a loopback address
 * published to a peer on another host into an error naming both, instead
 * of a first message that times out.
 */
#ifndef MD_NIC_ADDR_H
#define MD_NIC_ADDR_H

#include <stdint.h>

#include "md_ifaddr.h"
#include "md_sdi.h"

typedef struct md_nic_addr {
    char     text[16];              /**< the address to bind, dotted quad */
    uint32_t ip;                    /**< the same, network order */
    char     source[96];            /**< where it came from, for messages:
                                         "MULTIDEV_MYRI_ADDR", "iface=eth1",
                                         "the job's default", ... */
    int      must_match;            /**< a firmware that already runs bound
                                         to another address is an error
                                         (nic_attach_opts_t.bind_ip_must_match):
                                         everything but the one-host default */
    /* What md_nic_addr_check_peers needs of the init arguments. */
    char     subdev[16];
    char     net[64];               /**< the device line's net=, else subdev */
    int32_t  me;
    const int32_t        *node_of_rank;
    const md_job_hosts_t *hosts;    /**< NULL: every rank on one host */
} md_nic_addr_t;

/* Chooses the address for subdevice subdev ("myri") from the environment,
 * args' device line and hosts, and this host's interfaces.  MD_OK, or
 * MD_ERR_CONFIG after one error line (through sd->host->log) naming the
 * node, the network and the value at fault. */
int md_nic_addr_choose(md_subdev_t *sd, const md_subdev_init_args_t *args,
                       const char *subdev, md_nic_addr_t *out);
/* The same with the interfaces given (tests); num_ifs -1: unknown. */
int md_nic_addr_choose_from(md_subdev_t *sd, const md_subdev_init_args_t *args,
                            const char *subdev, const md_ifaddr_t *ifs, int num_ifs,
                            md_nic_addr_t *out);

/* The UDP address a rank's card publishes (0.0.0.0 if none). */
typedef struct md_nic_endpoint {
    uint32_t ip;                    /**< network order */
    uint16_t port;                  /**< network order */
} md_nic_endpoint_t;

/* At connect: for every rank q that serves[q] names (q != me), is the pair
 * (me, q) unable to talk because one of them published a loopback address
 * and they are in different loopback domains?  Both ends of such a pair
 * see it, since each checks both addresses.  unreachable[q] is set for
 * those (the subdevice must not try them: a loopback address leads to
 * some other process of the local host); the first is logged naming both
 * ranks, nodes and hosts and what to change, the others counted.
 * Returns MD_OK or MD_ERR_NO_ROUTE. */
int md_nic_addr_check_peers(md_subdev_t *sd, const md_nic_addr_t *mine,
                            const md_nic_endpoint_t *published, int32_t world_size,
                            const uint8_t *serves, uint8_t *unreachable);

/* The address in rank r's card, or 0.0.0.0 if r published none: each
 * subdevice knows where its cards keep it. */
typedef md_nic_endpoint_t (*md_nic_card_addr_fn)(const md_card_table_t *cards, int32_t r);

/* md_nic_addr_check_peers over the card table handed to connect().
 * unreachable ([world_size]) may be NULL when the caller gives up at the
 * first error anyway. */
int md_nic_addr_check_cards(md_subdev_t *sd, const md_nic_addr_t *mine,
                            const md_card_table_t *cards, md_nic_card_addr_fn card_addr,
                            const uint8_t *serves, uint8_t *unreachable);

#endif /* MD_NIC_ADDR_H */
