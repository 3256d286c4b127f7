/* vi_err_test.c - errors at the target (T-NIC-7, VI-E4, E5, E11): a send
 * that finds the receive queue empty breaks a reliable connection,
 * observably on both sides (VI state, asynchronous error, flushed
 * descriptors, the NIC's counter), and is dropped silently on an
 * unreliable one; under reliable reception the sender's descriptor carries
 * the cause; a message longer than the receive buffers is a length error;
 * a disconnect flushes what was posted. */
#include "config.h"

#include <criterion/criterion.h>
#include <sched.h>
#include <string.h>

#include "vi_pair.h"

static vi_pair_t p;
static vipl_vi_t *a, *b;
static vi_buf_t da, db;

static void setup(void)
{
    cr_assert_eq(vi_pair_start(&p, NULL), 0);
}

static void teardown(void)
{
    vi_pair_stop(&p);
}

TestSuite(vi_err, .init = setup, .fini = teardown, .timeout = 30);

static void connect_level(uint32_t level)
{
    vipl_vi_attr_t aa = vi_attr(&p.node[0], level, 0, 0);
    vipl_vi_attr_t ba = vi_attr(&p.node[1], level, 0, 0);
    cr_assert_eq(vi_connect(&p, 0, 1, &aa, &ba, NULL, NULL, &a, &b), VIPL_SUCCESS);
    cr_assert_eq(vi_buf_make(&p.node[0], 16384, 1, 0, 0, &da), VIPL_SUCCESS);
    cr_assert_eq(vi_buf_make(&p.node[1], 16384, 1, 0, 0, &db), VIPL_SUCCESS);
}

static via_desc_t *post_send(int i, uint32_t len)
{
    via_desc_t *s = vi_desc(&da, i);
    vipl_desc_init(s, 0);
    vipl_desc_add_data(s, da.mem + 8192, da.h, len);
    cr_assert_eq(vipl_post_send(a, s, da.h), VIPL_SUCCESS);
    return s;
}

static via_desc_t *post_recv(int i, uint32_t len)
{
    via_desc_t *r = vi_desc(&db, i);
    vipl_desc_init(r, 0);
    vipl_desc_add_data(r, db.mem + 8192, db.h, len);
    cr_assert_eq(vipl_post_recv(b, r, db.h), VIPL_SUCCESS);
    return r;
}

static uint32_t wait_state(vipl_vi_t *vi, uint32_t state)
{
    vipl_vi_info_t info;
    uint64_t end = vi_now_us() + 5000000;
    do {
        vipl_query_vi(vi, &info);
        if (info.state == state)
            break;
        sched_yield();
    } while (vi_now_us() < end);
    return info.state;
}

Test(vi_err, empty_receive_queue_breaks_reliable_delivery)
{
    via_desc_t *d;
    vipl_vi_info_t ia, ib;

    connect_level(VIA_RELIABLE_DELIVERY);
    post_send(0, 100);
    /* Reliable delivery: the send completed once the data left. */
    cr_assert_eq(vi_poll_send(a, 5000, &d), VIPL_SUCCESS);
    cr_assert_eq(atomic_load(&d->cs.status) & VIA_STATUS_ERROR_MASK, 0);
    /* The receiver's side broke ... */
    cr_assert_eq(wait_state(b, VIA_VI_ERROR), VIA_VI_ERROR);
    vipl_query_vi(b, &ib);
    cr_assert_eq(ib.async_error, VIA_AERR_RECVQ_EMPTY);
    cr_assert_geq(ib.async_count, 1);
    /* ... and the sender learns the connection is lost. */
    cr_assert_eq(wait_state(a, VIA_VI_ERROR), VIA_VI_ERROR);
    vipl_query_vi(a, &ia);
    cr_assert_eq(ia.async_error, VIA_AERR_CONN_LOST);
    cr_assert_eq(vi_counter(&p, 1, "recvq-empty"), 1);
    /* Nothing more goes on this connection. */
    via_desc_t *s = vi_desc(&da, 1);
    vipl_desc_init(s, 0);
    cr_assert_eq(vipl_post_send(a, s, da.h), VIPL_INVALID_STATE);
    via_desc_t *r = post_recv(0, 4096);
    cr_assert_eq(vi_poll_recv(b, 5000, &d), VIPL_SUCCESS);
    cr_assert_eq(d, r);
    cr_assert(atomic_load(&d->cs.status) & VIA_STATUS_DESC_FLUSHED_ERROR);
}

Test(vi_err, empty_receive_queue_under_reliable_reception_reports_to_sender)
{
    via_desc_t *d;

    connect_level(VIA_RELIABLE_RECEPTION);
    post_send(0, 100);
    post_send(1, 100);
    cr_assert_eq(vi_poll_send(a, 5000, &d), VIPL_SUCCESS);
    cr_assert(atomic_load(&d->cs.status) & VIA_STATUS_REMOTE_DESC_ERROR, "status %#x",
              atomic_load(&d->cs.status));
    cr_assert_eq(vi_poll_send(a, 5000, &d), VIPL_SUCCESS);
    cr_assert(atomic_load(&d->cs.status) & VIA_STATUS_DESC_FLUSHED_ERROR);
    cr_assert_eq(wait_state(a, VIA_VI_ERROR), VIA_VI_ERROR);
    cr_assert_eq(wait_state(b, VIA_VI_ERROR), VIA_VI_ERROR);
}

Test(vi_err, empty_receive_queue_unreliable_drops_silently)
{
    via_desc_t *d;
    vipl_vi_info_t ia, ib;

    connect_level(VIA_UNRELIABLE);
    memcpy(da.mem + 8192, "first", 5);
    post_send(0, 5);
    cr_assert_eq(vi_poll_send(a, 5000, &d), VIPL_SUCCESS);
    uint64_t end = vi_now_us() + 2000000;
    while (vi_counter(&p, 1, "unreliable-dropped") < 1 && vi_now_us() < end)
        sched_yield();
    cr_assert_eq(vi_counter(&p, 1, "unreliable-dropped"), 1);
    vipl_query_vi(a, &ia);
    vipl_query_vi(b, &ib);
    cr_assert_eq(ia.state, VIA_VI_CONNECTED);
    cr_assert_eq(ib.state, VIA_VI_CONNECTED);
    cr_assert_eq(ib.async_count, 0);
    /* The connection still works. */
    post_recv(0, 4096);
    memcpy(da.mem + 8192, "second", 6);
    post_send(1, 6);
    cr_assert_eq(vi_poll_recv(b, 5000, &d), VIPL_SUCCESS);
    cr_assert_eq(memcmp(db.mem + 8192, "second", 6), 0);
}

Test(vi_err, message_longer_than_receive_buffer_is_a_length_error)
{
    via_desc_t *d;

    connect_level(VIA_RELIABLE_DELIVERY);
    post_recv(0, 100);
    post_send(0, 200);
    cr_assert_eq(vi_poll_recv(b, 5000, &d), VIPL_SUCCESS);
    cr_assert(atomic_load(&d->cs.status) & VIA_STATUS_LENGTH_ERROR);
    cr_assert_eq(wait_state(b, VIA_VI_ERROR), VIA_VI_ERROR);
    cr_assert_eq(wait_state(a, VIA_VI_ERROR), VIA_VI_ERROR);
    cr_assert_eq(vi_counter(&p, 1, "length"), 1);
}

Test(vi_err, disconnect_flushes_posted_descriptors)
{
    via_desc_t *d;
    vipl_vi_info_t ia, ib;

    connect_level(VIA_RELIABLE_DELIVERY);
    for (int i = 0; i < 3; i++)
        post_recv(i, 100);
    cr_assert_eq(vipl_disconnect(a), VIPL_SUCCESS);
    for (int i = 0; i < 3; i++) {
        cr_assert_eq(vi_poll_recv(b, 5000, &d), VIPL_SUCCESS);
        cr_assert(atomic_load(&d->cs.status) & VIA_STATUS_DESC_FLUSHED_ERROR);
    }
    vipl_query_vi(a, &ia);
    vipl_query_vi(b, &ib);
    cr_assert_eq(ia.state, VIA_VI_IDLE);
    cr_assert_eq(ib.state, VIA_VI_ERROR);
    cr_assert_eq(ib.async_error, VIA_AERR_CONN_LOST);
}

/* A peer firmware that stops says BYE (nic_rel): a connection to it breaks
 * at once, even with nothing in flight, instead of at the next frame that
 * goes unanswered for the peer timeout (10 s), and its asynchronous error
 * says why: the peer stopped, it did not fail. */
Test(vi_err, a_stopping_peer_firmware_breaks_an_idle_connection_at_once)
{
    vipl_vi_info_t ia;

    connect_level(VIA_RELIABLE_DELIVERY);
    uint64_t t0 = vi_now_us();
    nic_fw_thread_stop(p.node[1].fw);
    p.node[1].fw = NULL;
    cr_assert_eq(wait_state(a, VIA_VI_ERROR), VIA_VI_ERROR, "the connection stayed up");
    cr_assert_lt(vi_now_us() - t0, 2000000, "broken only after %llu us",
                 (unsigned long long)(vi_now_us() - t0));
    vipl_query_vi(a, &ia);
    cr_assert_eq(ia.async_error, VIA_AERR_PEER_STOPPED);
}

