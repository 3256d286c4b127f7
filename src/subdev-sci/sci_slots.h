/*
 * sci_slots.h - which peers have a block in a rank's exported segment, and
 * where (sci_layout.h).
 *
 * A rank gives a block to every peer it serves (md_subdev_init_args_t
 * .serves; NULL: every other rank), in the order of their world ranks: the
 * slot of peer q is the number of such peers below q.  The set travels in
 * the rank's card as a bitmap over the world (bit r of byte r / 8), so a
 * peer finds its own block in that rank's segment.  A world too large for
 * the bitmap to fit a card gives every rank a block at its own rank (the
 * map of all ones, sent as no map at all).
 */
#ifndef SCI_SLOTS_H
#define SCI_SLOTS_H

#include <stddef.h>
#include <stdint.h>

/* Bytes of the map of a world. */
static inline size_t sci_slots_map_len(int32_t world)
{
    return ((size_t)world + 7) / 8;
}

/* Fill map (sci_slots_map_len bytes) from serves; all ones when all is
 * set.  The number of blocks. */
uint32_t sci_slots_map(uint8_t *map, const uint8_t *serves, int32_t world, int32_t me, int all);

/* The slot of rank r in a segment with this map, -1 if r has no block
 * there. */
int32_t sci_slot_of(const uint8_t *map, int32_t r);

#endif /* SCI_SLOTS_H */
