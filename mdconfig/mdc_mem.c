/* mdc_mem.c - growing arrays, arrays allocated together (mdc_mem.h). */
#include <stdlib.h>
#include <string.h>

#include "mdc_mem.h"

int mdc_reserve(void **array, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t c = *cap ? 2 * *cap : 16;
    while (c < need)
        c *= 2;
    void *p = realloc(*array, c * elem);
    if (p == NULL)
        return -1;
    *array = p;
    *cap = c;
    return 0;
}

int mdc_arrays_alloc(const mdc_array_t *a, size_t count, size_t n)
{
    for (size_t i = 0; i < count; i++)
        if ((*a[i].ptr = malloc(n * a[i].elem + 1)) == NULL) {
            mdc_arrays_free(a, i);
            return -1;
        }
    return 0;
}

void mdc_arrays_free(const mdc_array_t *a, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        free(*a[i].ptr);
        *a[i].ptr = NULL;
    }
}

size_t mdc_run_index(const void *runs, size_t num, size_t stride, uint32_t key)
{
    const unsigned char *base = runs;
    size_t lo = 0, hi = num;

    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        uint32_t first;
        memcpy(&first, base + mid * stride, sizeof(first));
        if (first <= key)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}
