/* myri_crc8.c - the link CRC: CRC-8, polynomial 0x07, MSB first, initial 0.
 *
 * It is computed twice for every 4 kB piece on the data path, so it must
 * be cheap.
 *
 * Tables: eight tables fold eight bytes per step; and since the CRC is
 * linear, a long buffer is cut into four blocks whose CRCs are computed
 * side by side (four independent dependency chains) and then joined:
 * crc(A B) = Z(crc(A)) ^ crc(B), where Z advances a CRC over |B| zero
 * bytes (one more table).
 *
 * Carry-less multiplication (x86 PCLMULQDQ, when the CPU has it): the data
 * is a polynomial M over GF(2), read most significant byte first, and the
 * CRC is M(x) x^8 mod P(x).  Four 128-bit accumulators each take every
 * fourth 16-byte block; a step replaces an accumulator A = H x^64 + L by
 * H (x^576 mod P) + L (x^512 mod P) plus its next block, which is the same
 * polynomial mod P, moved 64 bytes on, and never wider than 128 bits (the
 * constants have degree < 8).  The four are joined the same way with
 * x^192 and x^128, and the 16 bytes left are finished by the tables.  An
 * initial CRC c is the same as c XORed into the first byte. */
#include "config.h"

#include <pthread.h>
#include <string.h>
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define CRC_HAVE_CLMUL 1
#endif

#include "myri_wire.h"

#define CRC_BLOCK 256u   /* bytes per block in the four-way loop */

static uint8_t crc_tab[8][256];
static uint8_t crc_zero_block[256];   /* Z: a CRC advanced over CRC_BLOCK zeros */
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;
#ifdef CRC_HAVE_CLMUL
static uint64_t crc_x128, crc_x192, crc_x512, crc_x576;   /* x^n mod P */
static int crc_clmul_ok;
#endif

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
#ifdef CRC_HAVE_CLMUL
    /* x^n mod P: the CRC of the byte 0x01 followed by n/8 - 1 zero bytes
     * is x^(8 (n/8 - 1)) x^8 mod P = x^n mod P */
    uint64_t *k[] = { &crc_x128, &crc_x192, &crc_x512, &crc_x576 };
    const unsigned n[] = { 128, 192, 512, 576 };
    for (unsigned j = 0; j < 4; j++) {
        uint8_t c = crc_tab[0][1];
        for (unsigned z = 0; z < n[j] / 8 - 1; z++)
            c = crc_tab[0][c];
        *k[j] = c;
    }
    __builtin_cpu_init();
    crc_clmul_ok = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("ssse3");
#endif
}

static inline uint8_t crc_step8(uint8_t crc, const uint8_t *p)
{
    return (uint8_t)(crc_tab[7][p[0] ^ crc] ^ crc_tab[6][p[1]] ^ crc_tab[5][p[2]] ^
                     crc_tab[4][p[3]] ^ crc_tab[3][p[4]] ^ crc_tab[2][p[5]] ^
                     crc_tab[1][p[6]] ^ crc_tab[0][p[7]]);
}

static uint8_t crc_tables(uint8_t crc, const uint8_t *p, size_t len);

#ifdef CRC_HAVE_CLMUL
/* Byte order reversed: the first byte becomes the most significant. */
__attribute__((target("pclmul,ssse3")))
static inline __m128i clmul_bswap(__m128i v)
{
    return _mm_shuffle_epi8(v, _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
}

__attribute__((target("pclmul,ssse3")))
static inline __m128i clmul_load(const uint8_t *p)
{
    return clmul_bswap(_mm_loadu_si128((const __m128i *)(const void *)p));
}

/* a = H x^64 + L moved on: H k_hi + L k_lo, with k = (k_hi, k_lo) */
__attribute__((target("pclmul,ssse3")))
static inline __m128i clmul_fold(__m128i a, __m128i k)
{
    return _mm_xor_si128(_mm_clmulepi64_si128(a, k, 0x11), _mm_clmulepi64_si128(a, k, 0x00));
}

/* len >= 64 */
__attribute__((target("pclmul,ssse3")))
static uint8_t crc_clmul(uint8_t crc, const uint8_t *p, size_t len)
{
    const __m128i k64 = _mm_set_epi64x((long long)crc_x576, (long long)crc_x512);
    const __m128i k16 = _mm_set_epi64x((long long)crc_x192, (long long)crc_x128);
    __m128i a0 = _mm_xor_si128(clmul_load(p), _mm_set_epi64x((long long)((uint64_t)crc << 56), 0));
    __m128i a1 = clmul_load(p + 16), a2 = clmul_load(p + 32), a3 = clmul_load(p + 48);
    uint8_t out[16];

    p += 64;
    len -= 64;
    for (; len >= 64; p += 64, len -= 64) {
        a0 = _mm_xor_si128(clmul_fold(a0, k64), clmul_load(p));
        a1 = _mm_xor_si128(clmul_fold(a1, k64), clmul_load(p + 16));
        a2 = _mm_xor_si128(clmul_fold(a2, k64), clmul_load(p + 32));
        a3 = _mm_xor_si128(clmul_fold(a3, k64), clmul_load(p + 48));
    }
    a0 = _mm_xor_si128(clmul_fold(a0, k16), a1);
    a0 = _mm_xor_si128(clmul_fold(a0, k16), a2);
    a0 = _mm_xor_si128(clmul_fold(a0, k16), a3);
    for (; len >= 16; p += 16, len -= 16)
        a0 = _mm_xor_si128(clmul_fold(a0, k16), clmul_load(p));
    /* back to bytes, most significant first */
    _mm_storeu_si128((__m128i *)(void *)out, clmul_bswap(a0));
    return crc_tables(crc_tables(0, out, sizeof(out)), p, len);
}
#endif

uint8_t myri_crc8(uint8_t crc, const void *data, size_t len)
{
    pthread_once(&crc_once, crc_init);
#ifdef CRC_HAVE_CLMUL
    if (crc_clmul_ok && len >= 64)
        return crc_clmul(crc, data, len);
#endif
    return crc_tables(crc, data, len);
}

uint8_t myri_crc8_tables(uint8_t crc, const void *data, size_t len)
{
    pthread_once(&crc_once, crc_init);
    return crc_tables(crc, data, len);
}

static uint8_t crc_tables(uint8_t crc, const uint8_t *p, size_t len)
{
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
