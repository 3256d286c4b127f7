/* pool_test.c - freelists of the shm subdevice (src/subdev-shm/shm_pool.h). */
#include "config.h"

#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "shm_pool.h"

TestSuite(pool, .timeout = 30);

Test(pool, objects_are_aligned_distinct_and_reused)
{
    shm_pool_t pool;
    void *obj[10];

    cr_assert_eq(shm_pool_init(&pool, 40, 4, 0), 0);
    cr_assert_eq(pool.obj_size, 64);
    cr_assert_eq(pool.total, 0);
    for (int i = 0; i < 10; i++) {
        obj[i] = shm_pool_get(&pool);
        cr_assert_not_null(obj[i]);
        cr_assert_eq((uintptr_t)obj[i] % 64, 0);
        memset(obj[i], i, 64);            /* ASan: the whole object is ours */
        for (int j = 0; j < i; j++)
            cr_assert_neq(obj[i], obj[j]);
    }
    cr_assert_eq(pool.total, 12, "three chunks of four");
    cr_assert_eq(pool.in_use, 10);
    shm_pool_put(&pool, obj[3]);
    cr_assert_eq(shm_pool_get(&pool), obj[3], "last returned, first reused");
    for (int i = 0; i < 10; i++)
        shm_pool_put(&pool, obj[i]);
    cr_assert_eq(pool.in_use, 0);
    /* steady state: no growth */
    for (int i = 0; i < 12; i++)
        obj[i % 10] = shm_pool_get(&pool);
    cr_assert_eq(pool.total, 12);
    shm_pool_fini(&pool);
}

Test(pool, prealloc_creates_objects_up_front)
{
    shm_pool_t pool;

    cr_assert_eq(shm_pool_init(&pool, 100, 16, 40), 0);
    cr_assert_eq(pool.total, 48);
    cr_assert_eq(pool.obj_size, 128);
    shm_pool_fini(&pool);
}

Test(pool, size_classes)
{
    cr_assert_eq(shm_bufpool_class(0), 0);
    cr_assert_eq(shm_bufpool_class(1), 0);
    cr_assert_eq(shm_bufpool_class(64), 0);
    cr_assert_eq(shm_bufpool_class(65), 1);
    cr_assert_eq(shm_bufpool_class(128), 1);
    cr_assert_eq(shm_bufpool_class(129), 2);
    cr_assert_eq(shm_bufpool_class(16384), 8);
    cr_assert_eq(shm_bufpool_class(16385), 9);
}

Test(pool, buffers_by_size_class)
{
    shm_bufpool_t bp;
    void *a, *b, *c;

    cr_assert_eq(shm_bufpool_init(&bp, 16384), 0);
    cr_assert_eq(bp.nclasses, 9);
    a = shm_bufpool_get(&bp, 1);
    b = shm_bufpool_get(&bp, 1000);
    c = shm_bufpool_get(&bp, 16384);
    cr_assert(a && b && c);
    memset(a, 1, 64);
    memset(b, 2, 1024);
    memset(c, 3, 16384);
    cr_assert_null(shm_bufpool_get(&bp, 16385), "above the maximum");
    shm_bufpool_put(&bp, b, 1000);
    cr_assert_eq(shm_bufpool_get(&bp, 600), b, "same class, reused");
    shm_bufpool_put(&bp, a, 1);
    shm_bufpool_put(&bp, b, 600);
    shm_bufpool_put(&bp, c, 16384);
    for (unsigned k = 0; k < bp.nclasses; k++)
        cr_assert_eq(bp.cls[k].in_use, 0);
    shm_bufpool_fini(&bp);
}
