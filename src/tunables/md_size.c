/* md_size.c - parse and write "4096", "8k", "1m", "inf". */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "md_size.h"

int md_parse_size_ex(const char *text, int allow_inf, size_t *value)
{
    size_t v = 0, mult = 1;
    const char *p = text;

    if (text == NULL || *text == '\0')
        return -1;
    if (strcmp(text, "inf") == 0) {
        if (!allow_inf)
            return -1;
        *value = MD_SIZE_INF;
        return 0;
    }
    if (!isdigit((unsigned char)*p))
        return -1;
    for (; isdigit((unsigned char)*p); p++) {
        size_t d = (size_t)(*p - '0');
        if (v > (SIZE_MAX - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    switch (*p) {
    case '\0':           break;
    case 'k': case 'K':  mult = (size_t)1 << 10; p++; break;
    case 'm': case 'M':  mult = (size_t)1 << 20; p++; break;
    case 'g': case 'G':  mult = (size_t)1 << 30; p++; break;
    default:             return -1;
    }
    if (*p != '\0' || (v != 0 && v > (SIZE_MAX - 1) / mult))
        return -1;
    *value = v * mult;
    return 0;
}

void md_size_format(size_t value, char *out, size_t len)
{
    static const char suffix[] = "gmk";

    for (int i = 0; i < 3; i++) {
        size_t unit = (size_t)1 << (10 * (3 - i));
        if (value != 0 && value % unit == 0) {
            snprintf(out, len, "%zu%c", value / unit, suffix[i]);
            return;
        }
    }
    snprintf(out, len, "%zu", value);
}
