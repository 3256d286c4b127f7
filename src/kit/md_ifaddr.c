/* md_ifaddr.c - this host's IPv4 interface addresses (md_ifaddr.h). */
#include "config.h"

#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "md_ifaddr.h"

static uint8_t prefix_of(const struct sockaddr *mask)
{
    uint32_t m = mask != NULL && mask->sa_family == AF_INET
                     ? ntohl(((const struct sockaddr_in *)(const void *)mask)->sin_addr.s_addr)
                     : 0xffffffffu;
    uint8_t bits = 0;

    while (bits < 32 && (m & (0x80000000u >> bits)) != 0)
        bits++;
    return bits;
}

int md_ifaddr_list(md_ifaddr_t *out, int max)
{
    struct ifaddrs *all;
    int n = 0;

    if (getifaddrs(&all) != 0)
        return -1;
    for (struct ifaddrs *i = all; i != NULL && n < max; i = i->ifa_next) {
        if (i->ifa_addr == NULL || i->ifa_addr->sa_family != AF_INET)
            continue;
        md_ifaddr_t *a = &out[n++];
        memset(a, 0, sizeof(*a));
        snprintf(a->name, sizeof(a->name), "%s", i->ifa_name);
        a->addr = ((const struct sockaddr_in *)(const void *)i->ifa_addr)->sin_addr.s_addr;
        a->prefix = prefix_of(i->ifa_netmask);
        a->up = (i->ifa_flags & IFF_UP) != 0;
        a->loopback = (i->ifa_flags & IFF_LOOPBACK) != 0;
    }
    freeifaddrs(all);
    return n;
}
