/* sci_slots.c - the peers with a block in a segment (sci_slots.h). */
#include "config.h"

#include <string.h>

#include "sci_slots.h"

uint32_t sci_slots_map(uint8_t *map, const uint8_t *serves, int32_t world, int32_t me, int all)
{
    uint32_t n = 0;

    memset(map, 0, sci_slots_map_len(world));
    for (int32_t r = 0; r < world; r++) {
        if (all || (r != me && (serves == NULL || serves[r]))) {
            map[r / 8] |= (uint8_t)(1u << (r % 8));
            n++;
        }
    }
    return n;
}

int32_t sci_slot_of(const uint8_t *map, int32_t r)
{
    int32_t n = 0;

    if (!(map[r / 8] & (1u << (r % 8))))
        return -1;
    for (int32_t i = 0; i < r / 8; i++)
        n += __builtin_popcount(map[i]);
    return n + __builtin_popcount(map[r / 8] & ((1u << (r % 8)) - 1u));
}
