/*
 * mdc_names.h - compact name lists: "n[001-128]", "gw[1,3,5-7]",
 * "r[0-3]n[0-7]" (several groups: every combination, leftmost slowest).
 * A number's width is that of the range's lower bound as written, so
 * n[001-128] gives n001..n128 and n[1-10] gives n1..n10.
 */
#ifndef MDC_NAMES_H
#define MDC_NAMES_H

#include <stddef.h>

#include "md_nodeconf.h"

#define MDC_NAME_MAX MD_NODECONF_NAME_MAX   /* including the NUL */

typedef struct mdc_names {
    char  (*name)[MDC_NAME_MAX];
    size_t count;
} mdc_names_t;

/* Expands text[0..len) into out (mdc_names_free).  At most max_count names.
 * On error returns -1 with why = "expected ..." and *err_off = the byte
 * offset in text where the problem is. */
int mdc_names_expand(const char *text, size_t len, size_t max_count,
                     mdc_names_t *out, char *why, size_t why_len,
                     size_t *err_off);
void mdc_names_free(mdc_names_t *names);

#endif /* MDC_NAMES_H */
