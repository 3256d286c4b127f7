/*
 * md_serves.h - for network subdevices: whether a send's peer is one this
 * subdevice carries traffic to (serves[], the copy of
 * md_subdev_init_args_t.serves it keeps: world_size entries, non-zero for
 * a peer it serves), and the error for one it does not.
 */
#ifndef MD_SERVES_H
#define MD_SERVES_H

#include <stdint.h>

#include "md_sdi.h"

/* 1 if world rank peer is in range and served.  Inline: every send asks. */
static inline int md_serves(const uint8_t *serves, int32_t world_size, int32_t peer)
{
    return peer >= 0 && peer < world_size && serves[peer];
}

/* A send to a peer this subdevice cannot reach: logged through sd's host
 * ("no route to rank <peer>: this subdevice does not serve it"); returns
 * MD_ERR_NO_ROUTE for isend to return. */
int md_serves_refuse(md_subdev_t *sd, int32_t peer);

#endif /* MD_SERVES_H */
