/* md_size.h - sizes as written in configuration files and variables. */
#ifndef MD_SIZE_H
#define MD_SIZE_H

#include <stddef.h>
#include <stdint.h>

#define MD_SIZE_INF SIZE_MAX   /**< "inf": no upper bound */

/* Parses a decimal byte count with an optional suffix k, m or g (powers of
 * 1024, either case); "inf" gives MD_SIZE_INF when allow_inf is set.
 * Returns 0, or -1 on malformed input or overflow (value untouched). */
int md_parse_size_ex(const char *text, int allow_inf, size_t *value);

static inline int md_parse_size(const char *text, size_t *value)
{
    return md_parse_size_ex(text, 0, value);
}

/* Writes value as md_parse_size reads it, with the largest suffix that
 * keeps it whole ("4096" is "4k", "1000" stays "1000"). */
void md_size_format(size_t value, char *out, size_t len);

#endif /* MD_SIZE_H */
