/* via_csum.c - the frame checksum: the sum of the frame's 64-bit words
 * (four independent lanes, so it runs at memory speed), the tail bytes and
 * the length folded in.  A flipped bit changes one word by a power of two,
 * which no sum modulo 2^64 can hide: every single-bit error is detected.
 * The wire's fault injector flips one bit; CRCs would catch more but cost
 * a byte-wise pass over every frame twice. */
#include "config.h"

#include <string.h>

#include "via_wire.h"

uint64_t via_csum(const void *data, size_t len)
{
    const uint8_t *p = data;
    uint64_t a0 = 0, a1 = 0, a2 = 0, a3 = 0, w[4], tail = 0;
    size_t i = 0;

    for (; i + 32 <= len; i += 32) {
        memcpy(w, p + i, 32);
        a0 += w[0];
        a1 += w[1];
        a2 += w[2];
        a3 += w[3];
    }
    for (; i + 8 <= len; i += 8) {
        memcpy(w, p + i, 8);
        a0 += w[0];
    }
    if (i < len)
        memcpy(&tail, p + i, len - i);
    /* lanes rotated apart so that a word cannot cancel in another lane */
    uint64_t s = a0 + (a1 << 1 | a1 >> 63) + (a2 << 2 | a2 >> 62) + (a3 << 3 | a3 >> 61);
    return s + tail + ((uint64_t)len << 48) + 0x9e3779b97f4a7c15ull;
}
