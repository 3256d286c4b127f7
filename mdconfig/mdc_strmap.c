/* mdc_strmap.c - string -> int map with linear probing. */
#include <stdlib.h>
#include <string.h>

#include "mdc_strmap.h"

uint64_t mdc_hash_bytes(const void *data, size_t len, uint64_t seed)
{
    const unsigned char *p = data;
    uint64_t h = 1469598103934665603ULL ^ seed;

    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 1099511628211ULL;
    }
    /* final avalanche so that nearby names spread over the table */
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return h;
}

void mdc_strmap_init(mdc_strmap_t *m)
{
    memset(m, 0, sizeof(*m));
}

void mdc_strmap_fini(mdc_strmap_t *m)
{
    for (size_t i = 0; i < m->cap; i++)
        free(m->keys[i]);
    free(m->keys);
    free(m->values);
    memset(m, 0, sizeof(*m));
}

static size_t find_slot(const mdc_strmap_t *m, const char *key, size_t len)
{
    size_t i = (size_t)mdc_hash_bytes(key, len, 0) & (m->cap - 1);

    while (m->keys[i] != NULL &&
           !(strlen(m->keys[i]) == len && memcmp(m->keys[i], key, len) == 0))
        i = (i + 1) & (m->cap - 1);
    return i;
}

int mdc_strmap_getn(const mdc_strmap_t *m, const char *key, size_t len)
{
    if (m->cap == 0)
        return -1;
    size_t i = find_slot(m, key, len);
    return m->keys[i] != NULL ? m->values[i] : -1;
}

int mdc_strmap_get(const mdc_strmap_t *m, const char *key)
{
    return mdc_strmap_getn(m, key, strlen(key));
}

static int rehash(mdc_strmap_t *m)
{
    mdc_strmap_t n;

    n.cap = m->cap != 0 ? 2 * m->cap : 64;
    n.count = m->count;
    n.keys = calloc(n.cap, sizeof(*n.keys));
    n.values = calloc(n.cap, sizeof(*n.values));
    if (n.keys == NULL || n.values == NULL) {
        free(n.keys);
        free(n.values);
        return -1;
    }
    for (size_t i = 0; i < m->cap; i++) {
        if (m->keys[i] == NULL)
            continue;
        size_t j = find_slot(&n, m->keys[i], strlen(m->keys[i]));
        n.keys[j] = m->keys[i];
        n.values[j] = m->values[i];
    }
    free(m->keys);
    free(m->values);
    *m = n;
    return 0;
}

int mdc_strmap_put(mdc_strmap_t *m, const char *key, int value)
{
    size_t len = strlen(key), i;

    if ((m->count + 1) * 2 > m->cap && rehash(m) != 0)
        return -1;
    i = find_slot(m, key, len);
    if (m->keys[i] == NULL) {
        m->keys[i] = strdup(key);
        if (m->keys[i] == NULL)
            return -1;
        m->count++;
    }
    m->values[i] = value;
    return 0;
}
