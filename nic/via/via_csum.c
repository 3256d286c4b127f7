/* via_csum.c - the frame checksum: two running sums over 32-bit words
 * (Fletcher's scheme with 64-bit accumulators, no modulus).  Any single
 * flipped bit changes the first sum; swapped words change the second.
 * Cheap enough for every frame at memory speed, unlike a byte-wise CRC. */
#include "config.h"

#include <string.h>

#include "via_wire.h"

uint64_t via_csum(const void *data, size_t len)
{
    const uint8_t *p = data;
    uint64_t a = 0x9e3779b9u, b = len;
    size_t i = 0;

    for (; i + 4 <= len; i += 4) {
        uint32_t w;
        memcpy(&w, p + i, 4);
        a += w;
        b += a;
    }
    if (i < len) {
        uint32_t w = 0;
        memcpy(&w, p + i, len - i);
        a += w;
        b += a;
    }
    return (b << 32) ^ a ^ (b >> 32);
}
