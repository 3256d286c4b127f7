/*
 * mdc_strmap.h - a string -> int map (open addressing, FNV-1a).  Names of
 * nodes, networks, types, profiles: looked up once per reference while
 * parsing a description of up to MDC_MAX_NODES nodes.
 */
#ifndef MDC_STRMAP_H
#define MDC_STRMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct mdc_strmap {
    char  **keys;                /* owned copies; NULL = empty slot */
    int    *values;
    size_t  cap;                 /* power of two */
    size_t  count;
} mdc_strmap_t;

void mdc_strmap_init(mdc_strmap_t *m);
void mdc_strmap_fini(mdc_strmap_t *m);
/* -1 if absent. */
int mdc_strmap_get(const mdc_strmap_t *m, const char *key);
int mdc_strmap_getn(const mdc_strmap_t *m, const char *key, size_t len);
/* 0, or -1 out of memory.  Replaces an existing value. */
int mdc_strmap_put(mdc_strmap_t *m, const char *key, int value);

uint64_t mdc_hash_bytes(const void *data, size_t len, uint64_t seed);

#endif /* MDC_STRMAP_H */
