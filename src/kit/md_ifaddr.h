/*
 * md_ifaddr.h - subdevice kit: this host's IPv4 interface addresses, as the
 * NIC address choice (md_nic_addr.h) and the multidevice's host record
 * read them.  A list of plain values, so that tests can hand in made-up
 * interfaces.
 */
#ifndef MD_IFADDR_H
#define MD_IFADDR_H

#include <stdint.h>

#define MD_IFADDR_MAX 64            /**< addresses md_ifaddr_list reads */

typedef struct md_ifaddr {
    char     name[16];              /**< interface (or address label), e.g. eth0 */
    uint32_t addr;                  /**< network order */
    uint8_t  prefix;                /**< prefix length of its subnet */
    uint8_t  up;                    /**< the interface is up */
    uint8_t  loopback;              /**< the loopback interface */
} md_ifaddr_t;

/* The IPv4 addresses of this host's interfaces (in the kernel's order), at
 * most max of them; returns how many, or -1 (errno set) if the kernel would
 * not say. */
int md_ifaddr_list(md_ifaddr_t *out, int max);

#endif /* MD_IFADDR_H */
