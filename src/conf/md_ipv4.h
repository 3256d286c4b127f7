/*
 * md_ipv4.h - IPv4 addresses and subnets as the network description, the
 * per-node file and the MULTIDEV_*_ADDR variables write them.
 *
 * One strict syntax for all of them, so that mdconfig refuses exactly what
 * the runtime would refuse: four decimal numbers 0-255 without leading
 * zeros, and a subnet A.B.C.D/N whose host bits are zero.  Addresses are
 * kept in network byte order (as in struct in_addr).
 */
#ifndef MD_IPV4_H
#define MD_IPV4_H

#include <stddef.h>
#include <stdint.h>

#define MD_IPV4_TEXT_MAX 16         /**< "255.255.255.255" and its NUL */

/* text[0..len) as a dotted quad; 0, or -1 with why = what was expected. */
int md_ipv4_parse(const char *text, size_t len, uint32_t *addr, char *why,
                  size_t why_len);
/* text[0..len) as A.B.C.D/N (N 1..32, no host bits); 0 or -1 with why. */
int md_ipv4_parse_subnet(const char *text, size_t len, uint32_t *net,
                         unsigned *prefix, char *why, size_t why_len);

/* The netmask of a prefix length, network order. */
uint32_t md_ipv4_mask(unsigned prefix);
int md_ipv4_in_subnet(uint32_t addr, uint32_t net, unsigned prefix);
/* 127.0.0.0/8: reachable only inside one network namespace. */
int md_ipv4_is_loopback(uint32_t addr);
/* An address one host can bind and another can send to: not 0.0.0.0/8,
 * not multicast, reserved or broadcast (224.0.0.0 and above). */
int md_ipv4_is_unicast(uint32_t addr);
/* Dotted quad into out (MD_IPV4_TEXT_MAX bytes). */
const char *md_ipv4_format(uint32_t addr, char *out);

#define MD_IFNAME_MAX 16            /**< Linux IFNAMSIZ, NUL included */
/* A network interface name as iface= gives it: 1 to 15 characters of
 * [A-Za-z0-9_.:-] (':' for address labels such as eth0:1), not "." or "..". */
int md_ifname_valid(const char *text, size_t len);

#endif /* MD_IPV4_H */
