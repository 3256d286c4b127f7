/*
 * mdc_units.h - times and bandwidths as written in a network description.
 *
 * Internally every time is an integer number of femtoseconds and every
 * bandwidth the time one byte takes, in femtoseconds per byte, so that the
 * cost of a message, latency + size / bandwidth, is exact integer
 * arithmetic (128 bits): route costs add up the same in both directions
 * and ties are real ties.
 */
#ifndef MDC_UNITS_H
#define MDC_UNITS_H

#include <stddef.h>
#include <stdint.h>

typedef unsigned __int128 mdc_u128;

#define MDC_FS_PER_S      1000000000000000ULL   /* 1e15 */
#define MDC_TIME_MAX_FS   (1000ULL * MDC_FS_PER_S) /* 1000 s */

/* "8us", "0.5 ms" is two tokens: no; "1.25ms", "300ns", "2s".  Returns 0,
 * or -1 with why = "expected ...". */
int mdc_parse_time(const char *text, size_t len, uint64_t *fs, char *why,
                   size_t why_len);
/* "76MB/s", "93.5MB/s", "1Gbit/s", "512KiB/s", "inf" (0 fs per byte).
 * At least 1 kB/s: with the limits on times and graph size, every route's
 * cost line then fits its types (intercept 128 bits, slope 64 bits). */
int mdc_parse_bandwidth(const char *text, size_t len, uint64_t *fs_per_byte,
                        char *why, size_t why_len);

/* Human forms for --explain: "65.000 us", "93.500 MB/s". */
void mdc_format_time(mdc_u128 fs, char *buf, size_t len);
void mdc_format_bandwidth(uint64_t fs_per_byte, char *buf, size_t len);

#endif /* MDC_UNITS_H */
