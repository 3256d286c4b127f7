/* ring_test.c - the SPSC record ring (src/subdev-shm/shm_ring.h). */
#include "config.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "ring_threads.h"
#include "shm_ring.h"

#define T_TYPE 5

TestSuite(ring, .timeout = 60);

static void *ring_new(size_t size, shm_ring_producer_t *p, shm_ring_consumer_t *c)
{
    void *mem = aligned_alloc(64, shm_ring_footprint(size));

    cr_assert_not_null(mem);
    memset(mem, 0, shm_ring_footprint(size));
    shm_ring_format(mem, size);
    cr_assert_eq(shm_ring_producer_attach(p, mem), 0);
    cr_assert_eq(shm_ring_consumer_attach(c, mem), 0);
    return mem;
}

/* Writes one record of len bytes whose body is (uint8_t)(seed + i). */
static int put(shm_ring_producer_t *p, uint32_t len, uint8_t seed)
{
    uint8_t *rec = shm_ring_reserve(p, len);

    if (rec == NULL)
        return 0;
    for (uint32_t i = sizeof(shm_ring_rec_t); i < len; i++)
        rec[i] = (uint8_t)(seed + i);
    shm_ring_commit(p, rec, T_TYPE, len);
    return 1;
}

static void get(shm_ring_consumer_t *c, uint32_t len, uint8_t seed)
{
    shm_ring_rec_t *rec = shm_ring_peek(c);
    const uint8_t *b = (const uint8_t *)rec;

    cr_assert_not_null(rec, "expected a record of %u bytes", len);
    cr_assert_eq(rec->type, T_TYPE);
    cr_assert_eq(rec->len, len);
    for (uint32_t i = sizeof(shm_ring_rec_t); i < len; i++)
        cr_assert_eq(b[i], (uint8_t)(seed + i), "byte %u", i);
    shm_ring_release(c, rec);
}

Test(ring, empty_ring_has_nothing)
{
    shm_ring_producer_t p;
    shm_ring_consumer_t c;
    void *mem = ring_new(4096, &p, &c);

    cr_assert_null(shm_ring_peek(&c));
    cr_assert(shm_ring_empty(&c));
    cr_assert(put(&p, 100, 1));
    cr_assert_not(shm_ring_empty(&c));
    get(&c, 100, 1);
    cr_assert_null(shm_ring_peek(&c));
    cr_assert(shm_ring_empty(&c));
    free(mem);
}

Test(ring, rejects_bad_control_block)
{
    uint8_t mem[512] = { 0 };
    shm_ring_producer_t p;
    shm_ring_consumer_t c;

    ((shm_ring_ctrl_t *)mem)->size = 1000;   /* not a power of two */
    cr_assert_eq(shm_ring_producer_attach(&p, mem), -1);
    cr_assert_eq(shm_ring_consumer_attach(&c, mem), -1);
}

Test(ring, full_ring_refuses_then_accepts_after_release)
{
    shm_ring_producer_t p;
    shm_ring_consumer_t c;
    void *mem = ring_new(4096, &p, &c);
    int n = 0;

    /* 128-byte records: 4096 bytes hold 32, one line of slack is kept */
    while (put(&p, 128, (uint8_t)n))
        n++;
    cr_assert_eq(n, 31, "records in a full ring: %d", n);
    cr_assert_not(put(&p, 128, 0));
    get(&c, 128, 0);
    cr_assert(put(&p, 128, 200));
    cr_assert_not(put(&p, 128, 201));
    cr_assert(put(&p, 64, 99), "one line still fits");
    cr_assert_not(put(&p, 64, 98));
    for (int i = 1; i < n; i++)
        get(&c, 128, (uint8_t)i);
    get(&c, 128, 200);
    get(&c, 64, 99);
    cr_assert_null(shm_ring_peek(&c));
    free(mem);
}

Test(ring, wraps_with_padding_for_many_laps)
{
    shm_ring_producer_t p;
    shm_ring_consumer_t c;
    void *mem = ring_new(4096, &p, &c);
    const uint32_t lens[] = { 17, 700, 64, 65, 1500, 200, 1999, 24 };
    uint64_t start_tail = c.tail;

    for (int i = 0; i < 5000; i++) {
        uint32_t len = lens[i % 8];

        cr_assert(put(&p, len, (uint8_t)i), "record %d", i);
        get(&c, len, (uint8_t)i);
    }
    cr_assert_gt(c.tail - start_tail, 100 * 4096, "did not wrap many times");
    cr_assert_eq(p.head, c.tail);
    free(mem);
}

Test(ring, largest_record_fits_at_every_offset)
{
    shm_ring_producer_t p;
    shm_ring_consumer_t c;
    void *mem = ring_new(4096, &p, &c);
    uint32_t max = (uint32_t)shm_ring_max_record(4096);

    cr_assert_geq(max, 1900);
    for (int off = 0; off < 4096 / 64; off++) {
        cr_assert(put(&p, max, (uint8_t)off), "at line %d", off);
        get(&c, max, (uint8_t)off);
        /* move the start one line on */
        cr_assert(put(&p, 64, 0));
        get(&c, 64, 0);
    }
    free(mem);
}

/* Payload bytes that look exactly like the stamp a record would carry at
 * that place one lap later must not be taken for a record. */
Test(ring, stale_payload_is_never_a_record)
{
    shm_ring_producer_t p;
    shm_ring_consumer_t c;
    void *mem = ring_new(4096, &p, &c);
    uint32_t len = 1024;

    for (int lap = 0; lap < 8; lap++) {
        for (int k = 0; k < 3; k++) {
            uint8_t *rec = shm_ring_reserve(&p, len);
            uint64_t pos = p.head;

            cr_assert_not_null(rec);
            for (uint32_t off = 64; off + 8 <= len; off += 64) {
                uint64_t fake = pos + off + 4096 + 1;   /* next lap's stamp */
                memcpy(rec + off, &fake, sizeof(fake));
                fake = pos + off + 1;                   /* this lap's */
                memcpy(rec + off + 8, &fake, sizeof(fake));
            }
            shm_ring_commit(&p, rec, T_TYPE, len);
            shm_ring_rec_t *got = shm_ring_peek(&c);
            cr_assert_not_null(got);
            cr_assert_eq(got->len, len);
            shm_ring_release(&c, got);
            cr_assert_null(shm_ring_peek(&c), "phantom record lap %d", lap);
        }
    }
    free(mem);
}

Test(ring, producer_and_consumer_threads, .timeout = 60)
{
    cr_assert_eq(ring_threads_run(4096, 100000, 700), 0);
    cr_assert_eq(ring_threads_run(1 << 16, 50000, 20000), 0);
}
