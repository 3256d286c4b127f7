/* nic_wire_mtu.c - the path MTU of a wire and how a frame is cut for it
 * (see "Path MTU" in nic_wire.h): the link's MTU found from the interface
 * the wire is bound to, or configured; the pieces of a frame; the bytes of
 * one piece out of a frame given as an iovec. */
#include "config.h"

#include <ifaddrs.h>
#include <net/if.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "nic_fw.h"
#include "nic_log.h"
#include "nic_wire.h"

#define WIRE_MTU_MIN      576u     /* the least every IPv4 host must take */
#define WIRE_MTU_MAX      65536u
#define WIRE_MTU_UNKNOWN  1500u    /* Ethernet's, where nothing says otherwise */

static unsigned iface_mtu(int fd, const char *name)
{
    struct ifreq ifr;

    memset(&ifr, 0, sizeof(ifr));
    strncpy(ifr.ifr_name, name, sizeof(ifr.ifr_name) - 1);
    return ioctl(fd, SIOCGIFMTU, &ifr) == 0 && ifr.ifr_mtu > 0 ? (unsigned)ifr.ifr_mtu : 0;
}

/* The MTU of the interface that holds addr; with addr 0.0.0.0 (any), the
 * smallest of the interfaces that are up and not loopback, or loopback's
 * when it is alone. */
static unsigned wire_find_mtu(int fd, struct in_addr addr)
{
    struct ifaddrs *all, *a;
    unsigned found = 0, smallest = 0, loopback = 0;

    if (getifaddrs(&all) != 0)
        return WIRE_MTU_UNKNOWN;
    for (a = all; a != NULL && found == 0; a = a->ifa_next) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)(const void *)a->ifa_addr;
        unsigned mtu;

        if (in == NULL || in->sin_family != AF_INET || !(a->ifa_flags & IFF_UP) ||
            (mtu = iface_mtu(fd, a->ifa_name)) == 0)
            continue;
        if (addr.s_addr != htonl(INADDR_ANY)) {
            if (in->sin_addr.s_addr == addr.s_addr)
                found = mtu;
        } else if (a->ifa_flags & IFF_LOOPBACK) {
            loopback = mtu;
        } else if (smallest == 0 || mtu < smallest) {
            smallest = mtu;
        }
    }
    freeifaddrs(all);
    if (found == 0)
        found = smallest != 0 ? smallest : loopback;
    return found != 0 ? found : WIRE_MTU_UNKNOWN;
}

int nic_wire_set_mtu(nic_wire_t *w, unsigned mtu)
{
    if (mtu != 0 && (mtu < WIRE_MTU_MIN || mtu > WIRE_MTU_MAX)) {
        nic_log_error(w->log, "wire: MTU %u is outside %u .. %u", mtu, WIRE_MTU_MIN, WIRE_MTU_MAX);
        return NIC_ERR_CONFIG;
    }
    if (mtu == 0)
        mtu = wire_find_mtu(w->fd, w->addr.sin_addr);
    if (mtu > WIRE_MTU_MAX)
        mtu = WIRE_MTU_MAX;
    w->mtu = mtu;
    /* What one datagram carries of a frame, a multiple of 8 so that the
     * pieces of a frame line up (and the largest frame fits the pieces a
     * frame may have: 576 leaves 496 bytes, 64 of them make 31 kB). */
    w->piece_max = (mtu - NIC_WIRE_IP_UDP_HDR - NIC_WIRE_OVERHEAD) & ~(size_t)7;
    _Static_assert((WIRE_MTU_MIN - NIC_WIRE_IP_UDP_HDR - NIC_WIRE_OVERHEAD) / 8 * 8 * NIC_WIRE_MAX_PIECES >=
                       NIC_WIRE_MTU,
                   "the largest frame fits its pieces at the least MTU");
    return NIC_OK;
}

unsigned nic_wire_cut_plan(const nic_wire_t *w, size_t len, size_t *piece_len)
{
    unsigned pieces;

    if (len <= w->piece_max || w->piece_max == 0) {
        *piece_len = len;
        return 1;
    }
    /* As few pieces as the MTU allows, all of one length (the last
     * padded): the least MTU and the largest frame leave every piece some
     * bytes of the frame (19 pieces of 480 for 9000 bytes at 576). */
    pieces = (unsigned)((len + w->piece_max - 1) / w->piece_max);
    *piece_len = nic_wire_piece_len(len, pieces);
    return pieces;
}

int nic_wire_iov_slice(const struct iovec *iov, int iovcnt, size_t off, size_t len,
                       struct iovec *out, int max)
{
    int n = 0;

    for (int i = 0; i < iovcnt && len > 0; i++) {
        size_t take;

        if (off >= iov[i].iov_len) {
            off -= iov[i].iov_len;
            continue;
        }
        if (n == max)
            return -1;
        take = iov[i].iov_len - off < len ? iov[i].iov_len - off : len;
        out[n++] = (struct iovec){ (uint8_t *)iov[i].iov_base + off, take };
        len -= take;
        off = 0;
    }
    return len == 0 ? n : -1;
}
