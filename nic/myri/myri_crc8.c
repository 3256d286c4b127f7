/* myri_crc8.c - the link CRC: CRC-8, polynomial 0x07, MSB first, initial 0.
 *
 * It is computed twice for every 4 kB piece on the data path, so it must
 * be cheap.  Eight tables fold eight bytes per step; and since the CRC is
 * linear, a long buffer is cut into four blocks whose CRCs are computed
 * side by side (four independent dependency chains) and then joined:
 * crc(A B) = Z(crc(A)) ^ crc(B), where Z advances a CRC over |B| zero
 * bytes (one more table). */
#include "config.h"

#include <pthread.h>
#include <string.h>

#include "myri_wire.h"

#define CRC_BLOCK 256u   /* bytes per block in the four-way loop */

static uint8_t crc_tab[8][256];
static uint8_t crc_zero_block[256];   /* Z: a CRC advanced over CRC_BLOCK zeros */
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

static void crc_init(void)
{
    for (unsigned i = 0; i < 256; i++) {
        uint8_t c = (uint8_t)i;
        for (int b = 0; b < 8; b++)
            c = (uint8_t)((c & 0x80) ? (c << 1) ^ 0x07 : c << 1);
        crc_tab[0][i] = c;
    }
    /* crc_tab[k][x]: CRC of byte x followed by k zero bytes. */
    for (unsigned k = 1; k < 8; k++)
        for (unsigned i = 0; i < 256; i++)
            crc_tab[k][i] = crc_tab[0][crc_tab[k - 1][i]];
    for (unsigned i = 0; i < 256; i++) {
        uint8_t c = (uint8_t)i;
        for (unsigned k = 0; k < CRC_BLOCK; k++)
            c = crc_tab[0][c];
        crc_zero_block[i] = c;
    }
}

static inline uint8_t crc_step8(uint8_t crc, const uint8_t *p)
{
    return (uint8_t)(crc_tab[7][p[0] ^ crc] ^ crc_tab[6][p[1]] ^ crc_tab[5][p[2]] ^
                     crc_tab[4][p[3]] ^ crc_tab[3][p[4]] ^ crc_tab[2][p[5]] ^
                     crc_tab[1][p[6]] ^ crc_tab[0][p[7]]);
}

uint8_t myri_crc8(uint8_t crc, const void *data, size_t len)
{
    const uint8_t *p = data;

    pthread_once(&crc_once, crc_init);
    while (len >= 4 * CRC_BLOCK) {
        uint8_t a = crc, b = 0, c = 0, d = 0;
        for (unsigned j = 0; j < CRC_BLOCK; j += 8) {
            a = crc_step8(a, p + j);
            b = crc_step8(b, p + CRC_BLOCK + j);
            c = crc_step8(c, p + 2 * CRC_BLOCK + j);
            d = crc_step8(d, p + 3 * CRC_BLOCK + j);
        }
        crc = (uint8_t)(crc_zero_block[crc_zero_block[crc_zero_block[a] ^ b] ^ c] ^ d);
        p += 4 * CRC_BLOCK;
        len -= 4 * CRC_BLOCK;
    }
    while (len >= 8) {
        crc = crc_step8(crc, p);
        p += 8;
        len -= 8;
    }
    while (len--)
        crc = crc_tab[0][crc ^ *p++];
    return crc;
}
