/*
 * md_names.h - compact name lists: "n[001-128]", "gw[1,3,5-7]",
 * "r[0-3]n[0-7]" (several groups: every combination, leftmost slowest).
 * A number's width is that of the range's lower bound as written, so
 * n[001-128] gives n001..n128 and n[1-10] gives n1..n10.
 */
#ifndef MD_NAMES_H
#define MD_NAMES_H

#include <stddef.h>

#include "md_nodeconf.h"

#define MD_NAME_MAX MD_NODECONF_NAME_MAX   /* including the NUL */

typedef struct md_names {
    char  (*name)[MD_NAME_MAX];
    size_t count;
} md_names_t;

/* Expands text[0..len) into out (md_names_free).  At most max_count names.
 * On error returns -1 with why = "expected ..." and *err_off = the byte
 * offset in text where the problem is. */
int md_names_expand(const char *text, size_t len, size_t max_count,
                     md_names_t *out, char *why, size_t why_len,
                     size_t *err_off);
void md_names_free(md_names_t *names);

/* The other direction, for writers that compact a sorted list of names
 * into ranges.  Is next the name after prev in a range: the same text but
 * for a trailing number of the same width (1 to 9 digits), one greater?
 * (n0099 -> n0100 yes; n9 -> n10 no: the width changes.) */
int md_names_follows(const char *prev, const char *next);

/* "prefix[first-last]" for a range from first to last (last follows
 * first, repeatedly: md_names_follows); first alone when they are equal.
 * Returns the length written (always NUL terminated), at most
 * MD_NAMES_RANGE_MAX - 1. */
#define MD_NAMES_RANGE_MAX (2 * MD_NAME_MAX + 4)
size_t md_names_range(const char *first, const char *last, char *out);

#endif /* MD_NAMES_H */
