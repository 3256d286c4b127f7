/* mdc_units.c - parse and print times and bandwidths (see mdc_units.h). */
#include <stdio.h>
#include <string.h>

#include "mdc_units.h"

typedef struct unit {
    const char *suffix;
    uint64_t    scale;   /* fs per unit (time) or bytes/s per unit */
} unit_t;

static const unit_t time_units[] = {
    { "ns", 1000000ULL },
    { "us", 1000000000ULL },
    { "ms", 1000000000000ULL },
    { "s",  MDC_FS_PER_S },
    { NULL, 0 },
};

/* bit rates are bytes/s * 8: kept as bits via the divisor below */
static const unit_t bw_units[] = {
    { "B/s",    1ULL },
    { "kB/s",   1000ULL },
    { "KB/s",   1000ULL },
    { "MB/s",   1000000ULL },
    { "GB/s",   1000000000ULL },
    { "KiB/s",  1024ULL },
    { "MiB/s",  1048576ULL },
    { "GiB/s",  1073741824ULL },
    { "bit/s",  1ULL },
    { "kbit/s", 1000ULL },
    { "Mbit/s", 1000000ULL },
    { "Gbit/s", 1000000000ULL },
    { NULL, 0 },
};

/* Splits "12.5us" into mantissa 125, 1 fraction digit, unit "us". */
static int parse_decimal(const char *text, size_t len, uint64_t *mant,
                         unsigned *frac, size_t *unit_at)
{
    size_t i = 0, digits = 0;

    *mant = 0;
    *frac = 0;
    while (i < len && text[i] >= '0' && text[i] <= '9') {
        if (++digits > 15)
            return -1;
        *mant = *mant * 10 + (uint64_t)(text[i++] - '0');
    }
    if (digits == 0)
        return -1;
    if (i < len && text[i] == '.') {
        i++;
        size_t fstart = i;
        while (i < len && text[i] >= '0' && text[i] <= '9') {
            if (++digits > 15 || *frac >= 9)
                return -1;
            *mant = *mant * 10 + (uint64_t)(text[i++] - '0');
            (*frac)++;
        }
        if (i == fstart)
            return -1;
    }
    *unit_at = i;
    return 0;
}

static const unit_t *find_unit(const unit_t *units, const char *s, size_t n)
{
    for (const unit_t *u = units; u->suffix != NULL; u++)
        if (strlen(u->suffix) == n && memcmp(u->suffix, s, n) == 0)
            return u;
    return NULL;
}

static uint64_t pow10u(unsigned n)
{
    uint64_t p = 1;

    while (n-- > 0)
        p *= 10;
    return p;
}

int mdc_parse_time(const char *text, size_t len, uint64_t *fs, char *why,
                   size_t why_len)
{
    uint64_t mant;
    unsigned frac;
    size_t u;
    const unit_t *unit;

    if (parse_decimal(text, len, &mant, &frac, &u) != 0 ||
        (unit = find_unit(time_units, text + u, len - u)) == NULL) {
        snprintf(why, why_len, "expected a time (a number with unit ns, us, "
                 "ms or s, e.g. 8us or 0.5ms)");
        return -1;
    }
    /* round to the nearest femtosecond */
    mdc_u128 v = ((mdc_u128)mant * unit->scale * 2 + pow10u(frac)) /
                 ((mdc_u128)pow10u(frac) * 2);
    if (v > MDC_TIME_MAX_FS) {
        snprintf(why, why_len, "expected a time of at most 1000 s");
        return -1;
    }
    *fs = (uint64_t)v;
    return 0;
}

int mdc_parse_bandwidth(const char *text, size_t len, uint64_t *fs_per_byte,
                        char *why, size_t why_len)
{
    uint64_t mant;
    unsigned frac;
    size_t u;
    const unit_t *unit;

    if (len == 3 && memcmp(text, "inf", 3) == 0) {
        *fs_per_byte = 0;
        return 0;
    }
    if (parse_decimal(text, len, &mant, &frac, &u) != 0 ||
        (unit = find_unit(bw_units, text + u, len - u)) == NULL) {
        snprintf(why, why_len, "expected a bandwidth (a number with unit B/s, "
                 "kB/s, MB/s, GB/s, KiB/s, MiB/s, GiB/s, bit/s, kbit/s, "
                 "Mbit/s or Gbit/s, e.g. 76MB/s; or inf)");
        return -1;
    }
    int bits = strstr(unit->suffix, "bit") != NULL;
    /* fs per byte = 1e15 * 10^frac / (mant * scale), times 8 for bit rates */
    mdc_u128 num = (mdc_u128)MDC_FS_PER_S * pow10u(frac) * (bits ? 8 : 1);
    mdc_u128 den = (mdc_u128)mant * unit->scale;
    if (den == 0) {
        snprintf(why, why_len, "expected a bandwidth above zero");
        return -1;
    }
    mdc_u128 v = (num * 2 + den) / (den * 2);
    if (v > MDC_FS_PER_S / 1000) {
        snprintf(why, why_len, "expected a bandwidth of at least 1 kB/s");
        return -1;
    }
    *fs_per_byte = (uint64_t)v;
    return 0;
}

void mdc_format_time(mdc_u128 fs, char *buf, size_t len)
{
    /* microseconds with three decimals (nanosecond resolution) */
    mdc_u128 ns = (fs + 500000) / 1000000;
    unsigned long long us = (unsigned long long)(ns / 1000);
    unsigned rem = (unsigned)(ns % 1000);

    if (ns / 1000 > (mdc_u128)~0ULL)
        snprintf(buf, len, "huge");
    else
        snprintf(buf, len, "%llu.%03u us", us, rem);
}

void mdc_format_bandwidth(uint64_t fs_per_byte, char *buf, size_t len)
{
    if (fs_per_byte == 0) {
        snprintf(buf, len, "inf");
        return;
    }
    /* MB/s = 1e15 / fs_per_byte / 1e6 = 1e9 / fs_per_byte */
    double mbs = 1e9 / (double)fs_per_byte;
    snprintf(buf, len, "%.3f MB/s", mbs);
}
