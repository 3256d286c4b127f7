/* myri_crc8.c - the link CRC: CRC-8, polynomial 0x07, MSB first, initial 0.
 * Eight tables let the loop fold eight bytes per step, since the CRC is
 * computed twice for every 4 kB piece on the data path. */
#include "config.h"

#include <pthread.h>
#include <string.h>

#include "myri_wire.h"

static uint8_t crc_tab[8][256];
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
}

uint8_t myri_crc8(uint8_t crc, const void *data, size_t len)
{
    const uint8_t *p = data;

    pthread_once(&crc_once, crc_init);
    while (len >= 8) {
        crc = (uint8_t)(crc_tab[7][p[0] ^ crc] ^ crc_tab[6][p[1]] ^ crc_tab[5][p[2]] ^
                        crc_tab[4][p[3]] ^ crc_tab[3][p[4]] ^ crc_tab[2][p[5]] ^
                        crc_tab[1][p[6]] ^ crc_tab[0][p[7]]);
        p += 8;
        len -= 8;
    }
    while (len--)
        crc = crc_tab[0][crc ^ *p++];
    return crc;
}
