/*
 * myri_fabric.h - emulated Myrinet crossbar switches.
 *
 * Switches are stateless, as on Myrinet: all the fabric knows is which NIC
 * is plugged into which switch port and which ports are cabled together.
 * myri_fabric_walk() moves a packet's route bytes through that graph the way
 * the crossbars would (strip a byte, leave on port in + offset) and says
 * which NIC the packet reaches; myri_fabric_route() computes the route
 * bytes from one NIC to another (shortest path over switches).
 */
#ifndef MYRI_FABRIC_H
#define MYRI_FABRIC_H

#include <netinet/in.h>
#include <stdint.h>

#include "myri_wire.h"

#define MYRI_FABRIC_MAX_ATTACH 1024
#define MYRI_FABRIC_MAX_LINK   256

typedef struct myri_fabric {
    struct {
        uint16_t sw;
        uint8_t  port;
        struct sockaddr_in addr;
    } attach[MYRI_FABRIC_MAX_ATTACH];
    unsigned nattach;
    struct {
        uint16_t sw_a, sw_b;
        uint8_t  port_a, port_b;
    } link[MYRI_FABRIC_MAX_LINK];
    unsigned nlink;
} myri_fabric_t;

/* Add an ATTACH or LINK item; an attachment replaces the one on the same
 * port.  NIC_ERR_INVALID for a port beyond the switch, NIC_ERR_NO_RESOURCE
 * when full. */
int myri_fabric_add(myri_fabric_t *fab, const myri_fabric_item_t *item);
/* Where the NIC with this wire address is plugged in. */
int myri_fabric_find(const myri_fabric_t *fab, const struct sockaddr_in *addr,
                     uint16_t *sw, uint8_t *port);
/* Route the bytes from (sw, in_port): NIC_OK and the reached NIC's address
 * and the number of switches crossed, or NIC_ERR_NO_ROUTE (a byte without
 * its MSB, a port out of range or unconnected, bytes left at a NIC, bytes
 * exhausted inside the fabric). */
int myri_fabric_walk(const myri_fabric_t *fab, uint16_t sw, uint8_t in_port,
                     const uint8_t *route, int len, struct sockaddr_in *dst, int *hops);
/* Route bytes from the NIC on (sw_a, port_a) to the NIC on (sw_b, port_b):
 * the route length (1..8), or NIC_ERR_NO_ROUTE. */
int myri_fabric_route(const myri_fabric_t *fab, uint16_t sw_a, uint8_t port_a,
                      uint16_t sw_b, uint8_t port_b, uint8_t route[MYRI_MAX_HOPS]);

#endif /* MYRI_FABRIC_H */
