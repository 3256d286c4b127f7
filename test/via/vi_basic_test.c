/* vi_basic_test.c - the VI NIC's data path between two emulated nodes:
 * send/receive (one and many frames, cross-memory and shared memory),
 * immediate data, RDMA write with and without immediate data, RDMA read,
 * completion by polling and by blocking wait (T-NIC-9), one connection per
 * VI and no sends before it (T-NIC-6), doorbells that belong to one
 * process (T-NIC-5). */
#include "config.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/nic_ctl_proto.h"
#include "core/nic_fw.h"
#include "core/nic_host.h"
#include "core/nic_wire.h"
#include "vi_pair.h"

static vi_pair_t p;

static void setup(void)
{
    cr_assert_eq(vi_pair_start(&p, NULL), 0);
}

static void teardown(void)
{
    vi_pair_stop(&p);
}

TestSuite(vi_basic, .init = setup, .fini = teardown, .timeout = 30);

static void fill(uint8_t *b, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        b[i] = (uint8_t)(i * 7 + seed);
}

static void sendrecv(uint32_t level, size_t len, int shared_data)
{
    vipl_vi_attr_t aa = vi_attr(&p.node[0], level, 0, 0), ba = vi_attr(&p.node[1], level, 0, 0);
    vipl_vi_t *a, *b;
    vi_buf_t da, db, sa, sb;
    via_desc_t *d;

    cr_assert_eq(vi_connect(&p, 0, 1, &aa, &ba, NULL, NULL, &a, &b), VIPL_SUCCESS);
    cr_assert_eq(vi_buf_make(&p.node[0], 4096, 1, 0, 0, &da), VIPL_SUCCESS);
    cr_assert_eq(vi_buf_make(&p.node[1], 4096, 1, 0, 0, &db), VIPL_SUCCESS);
    cr_assert_eq(vi_buf_make(&p.node[0], len + 4096, shared_data, 0, 0, &sa), VIPL_SUCCESS);
    cr_assert_eq(vi_buf_make(&p.node[1], len + 4096, shared_data, 0, 0, &sb), VIPL_SUCCESS);
    fill(sa.mem, len, 3);

    via_desc_t *r = vi_desc(&db, 0);
    vipl_desc_init(r, 0);
    vipl_desc_add_data(r, sb.mem, sb.h, (uint32_t)(len / 2));
    vipl_desc_add_data(r, sb.mem + len / 2, sb.h, (uint32_t)(len - len / 2 + 100));
    cr_assert_eq(vipl_post_recv(b, r, db.h), VIPL_SUCCESS);

    via_desc_t *s = vi_desc(&da, 0);
    vipl_desc_init(s, VIA_CONTROL_OP_SENDRECV);
    vipl_desc_add_data(s, sa.mem, sa.h, (uint32_t)len);
    cr_assert_eq(vipl_post_send(a, s, da.h), VIPL_SUCCESS);

    cr_assert_eq(vi_poll_send(a, 5000, &d), VIPL_SUCCESS);
    cr_assert_eq(d, s);
    cr_assert_eq(atomic_load(&d->cs.status) & VIA_STATUS_ERROR_MASK, 0);
    cr_assert_eq(vi_poll_recv(b, 5000, &d), VIPL_SUCCESS);
    cr_assert_eq(d, r);
    uint32_t st = atomic_load(&d->cs.status);
    cr_assert_eq(st & VIA_STATUS_ERROR_MASK, 0, "status %#x", st);
    cr_assert_eq(st & VIA_STATUS_OP_MASK, VIA_STATUS_OP_RECEIVE);
    cr_assert_eq(d->cs.length, len);
    cr_assert_eq(memcmp(sa.mem, sb.mem, len), 0);
}

/* On a link of 1500 bytes: a reliable message's frames each fit one
 * datagram (the wire cuts none: a frame in pieces is lost with any piece);
 * an unreliable message stays one frame, which the wire cuts. */
static void setup_small_mtu(void)
{
    setenv("MULTIDEV_NIC_MTU", "1500", 1);
    setup();
    unsetenv("MULTIDEV_NIC_MTU");
}

static const nic_wire_stats_t *wire_stats(int node)
{
    return &nic_fw_wire(nic_fw_thread_fw(p.node[node].fw))->st;
}

Test(vi_small_mtu, reliable_frames_fit_a_datagram_unreliable_ones_stay_whole,
     .init = setup_small_mtu, .fini = teardown, .timeout = 30)
{
    sendrecv(VIA_RELIABLE_DELIVERY, 300000, 0);
    cr_assert_eq(nic_fw_wire(nic_fw_thread_fw(p.node[0].fw))->mtu, 1500);
    cr_assert_eq(wire_stats(0)->tx_cut, 0, "%llu frames of a reliable message were cut",
                 (unsigned long long)wire_stats(0)->tx_cut);
    cr_assert_gt(wire_stats(0)->tx_frames, 300000 / 1424);
    sendrecv(VIA_UNRELIABLE, 4000, 1);
    cr_assert_eq(wire_stats(0)->tx_cut, 1, "the unreliable message went as one frame in pieces");
}

Test(vi_basic, send_recv_small_reliable_delivery) { sendrecv(VIA_RELIABLE_DELIVERY, 100, 1); }
Test(vi_basic, send_recv_many_frames_cross_memory) { sendrecv(VIA_RELIABLE_DELIVERY, 300000, 0); }
Test(vi_basic, send_recv_reliable_reception) { sendrecv(VIA_RELIABLE_RECEPTION, 50000, 0); }
Test(vi_basic, send_recv_unreliable) { sendrecv(VIA_UNRELIABLE, 4000, 1); }
Test(vi_basic, send_recv_zero_bytes) { sendrecv(VIA_RELIABLE_DELIVERY, 0, 1); }
