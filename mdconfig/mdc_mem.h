/*
 * mdc_mem.h - growing arrays, and allocating a structure's arrays all at
 * once: the bookkeeping the router's structures share.
 */
#ifndef MDC_MEM_H
#define MDC_MEM_H

#include <stddef.h>
#include <stdint.h>

/* Makes *array (of *cap elements of elem bytes) hold at least need,
 * doubling; 0, or -1 on out of memory (the array is then unchanged). */
int mdc_reserve(void **array, size_t *cap, size_t need, size_t elem);

/* One array of a structure: where its pointer lives, its element size. */
typedef struct mdc_array {
    void  **ptr;
    size_t  elem;
} mdc_array_t;

/* Allocates every array of a[0..count) with n elements (uninitialized);
 * 0, or -1 on out of memory with none of them allocated. */
int mdc_arrays_alloc(const mdc_array_t *a, size_t count, size_t n);
void mdc_arrays_free(const mdc_array_t *a, size_t count);

/* Runs of peers sorted by their first member, a uint32_t lo, that cover
 * every peer from 0 (num >= 1): the index of the run that holds key. */
size_t mdc_run_index(const void *runs, size_t num, size_t stride, uint32_t key);

#endif /* MDC_MEM_H */
