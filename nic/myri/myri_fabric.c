/* myri_fabric.c - crossbar switches and source routes. */
#include "config.h"

#include <string.h>

#include "../core/nic_status.h"
#include "myri_fabric.h"

int myri_fabric_add(myri_fabric_t *fab, const myri_fabric_item_t *it)
{
    if (it->kind == MYRI_FAB_ATTACH) {
        if (it->port_a >= MYRI_SWITCH_PORTS)
            return NIC_ERR_INVALID;
        unsigned i;
        for (i = 0; i < fab->nattach; i++)
            if (fab->attach[i].sw == it->sw_a && fab->attach[i].port == it->port_a)
                break;
        if (i == fab->nattach) {
            if (fab->nattach == MYRI_FABRIC_MAX_ATTACH)
                return NIC_ERR_NO_RESOURCE;
            fab->nattach++;
        }
        fab->attach[i].sw = it->sw_a;
        fab->attach[i].port = it->port_a;
        memset(&fab->attach[i].addr, 0, sizeof(fab->attach[i].addr));
        fab->attach[i].addr.sin_family = AF_INET;
        fab->attach[i].addr.sin_addr.s_addr = it->ip;
        fab->attach[i].addr.sin_port = it->udp_port;
        return NIC_OK;
    }
    if (it->kind == MYRI_FAB_LINK) {
        if (it->port_a >= MYRI_SWITCH_PORTS || it->port_b >= MYRI_SWITCH_PORTS)
            return NIC_ERR_INVALID;
        for (unsigned i = 0; i < fab->nlink; i++)
            if (fab->link[i].sw_a == it->sw_a && fab->link[i].port_a == it->port_a &&
                fab->link[i].sw_b == it->sw_b && fab->link[i].port_b == it->port_b)
                return NIC_OK;
        if (fab->nlink == MYRI_FABRIC_MAX_LINK)
            return NIC_ERR_NO_RESOURCE;
        fab->link[fab->nlink].sw_a = it->sw_a;
        fab->link[fab->nlink].port_a = it->port_a;
        fab->link[fab->nlink].sw_b = it->sw_b;
        fab->link[fab->nlink].port_b = it->port_b;
        fab->nlink++;
        return NIC_OK;
    }
    return NIC_ERR_INVALID;
}

int myri_fabric_find(const myri_fabric_t *fab, const struct sockaddr_in *addr, uint16_t *sw,
                     uint8_t *port)
{
    for (unsigned i = 0; i < fab->nattach; i++) {
        if (fab->attach[i].addr.sin_addr.s_addr == addr->sin_addr.s_addr &&
            fab->attach[i].addr.sin_port == addr->sin_port) {
            *sw = fab->attach[i].sw;
            *port = fab->attach[i].port;
            return NIC_OK;
        }
    }
    return NIC_ERR_NOT_FOUND;
}

/* What is plugged into (sw, port): 1 a switch (*sw2, *p2), 2 a NIC (*idx). */
static int fabric_peer(const myri_fabric_t *fab, uint16_t sw, uint8_t port, uint16_t *sw2,
                       uint8_t *p2, unsigned *idx)
{
    for (unsigned i = 0; i < fab->nlink; i++) {
        if (fab->link[i].sw_a == sw && fab->link[i].port_a == port) {
            *sw2 = fab->link[i].sw_b;
            *p2 = fab->link[i].port_b;
            return 1;
        }
        if (fab->link[i].sw_b == sw && fab->link[i].port_b == port) {
            *sw2 = fab->link[i].sw_a;
            *p2 = fab->link[i].port_a;
            return 1;
        }
    }
    for (unsigned i = 0; i < fab->nattach; i++) {
        if (fab->attach[i].sw == sw && fab->attach[i].port == port) {
            *idx = i;
            return 2;
        }
    }
    return 0;
}

int myri_fabric_walk(const myri_fabric_t *fab, uint16_t sw, uint8_t in_port, const uint8_t *route,
                     int len, struct sockaddr_in *dst, int *hops)
{
    int at = 0;

    if (len < 0 || len > MYRI_MAX_HOPS)
        return NIC_ERR_NO_ROUTE;
    for (;;) {
        uint16_t sw2;
        uint8_t p2;
        unsigned idx;
        int out;

        if (at == len || !(route[at] & 0x80))
            return NIC_ERR_NO_ROUTE;     /* no route byte where a switch needs one */
        out = (int)in_port + myri_route_offset(route[at]);
        at++;
        if (out < 0 || out >= MYRI_SWITCH_PORTS)
            return NIC_ERR_NO_ROUTE;
        switch (fabric_peer(fab, sw, (uint8_t)out, &sw2, &p2, &idx)) {
        case 1:
            sw = sw2;
            in_port = p2;
            break;
        case 2:
            if (at != len)
                return NIC_ERR_NO_ROUTE; /* route bytes would reach the NIC */
            *dst = fab->attach[idx].addr;
            *hops = at;
            return NIC_OK;
        default:
            return NIC_ERR_NO_ROUTE;     /* unconnected port */
        }
    }
}

int myri_fabric_route(const myri_fabric_t *fab, uint16_t sw_a, uint8_t port_a, uint16_t sw_b,
                      uint8_t port_b, uint8_t route[MYRI_MAX_HOPS])
{
    /* Breadth-first search over switches; state = (switch, entry port). */
    enum { MAXQ = 4096 };
    static __thread struct { uint16_t sw; uint8_t in; int16_t prev; uint8_t out; } q[MAXQ];
    int head = 0, tail = 0;

    q[tail].sw = sw_a;
    q[tail].in = port_a;
    q[tail].prev = -1;
    tail++;
    while (head < tail) {
        int cur = head++;
        int depth = 0;
        for (int p = cur; q[p].prev >= 0; p = q[p].prev)
            depth++;
        if (depth >= MYRI_MAX_HOPS)
            continue;
        if (q[cur].sw == sw_b) {
            /* Last hop: leave on the destination NIC's port. */
            int n = depth + 1, k = n - 1;
            int off = (int)port_b - (int)q[cur].in;
            route[k--] = myri_route_byte(off);
            for (int p = cur; q[p].prev >= 0; p = q[p].prev) {
                int prev = q[p].prev;
                route[k--] = myri_route_byte((int)q[p].out - (int)q[prev].in);
            }
            return n;
        }
        for (unsigned i = 0; i < fab->nlink && tail < MAXQ; i++) {
            uint16_t nsw;
            uint8_t nin, out;
            if (fab->link[i].sw_a == q[cur].sw) {
                out = fab->link[i].port_a;
                nsw = fab->link[i].sw_b;
                nin = fab->link[i].port_b;
            } else if (fab->link[i].sw_b == q[cur].sw) {
                out = fab->link[i].port_b;
                nsw = fab->link[i].sw_a;
                nin = fab->link[i].port_a;
            } else {
                continue;
            }
            int seen = 0;
            for (int j = 0; j < tail; j++)
                if (q[j].sw == nsw)
                    seen = 1;
            if (seen)
                continue;
            /* q[tail].out is the port taken out of the previous switch */
            q[tail].sw = nsw;
            q[tail].in = nin;
            q[tail].prev = (int16_t)cur;
            q[tail].out = out;
            tail++;
        }
    }
    return NIC_ERR_NO_ROUTE;
}
