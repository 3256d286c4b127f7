/* vi_conn_test.c - connection management (seed 002-004 VI-E10, T-NIC-6):
 * reject, timeout on both sides, reliability levels that differ, job
 * isolation, a VI connects to exactly one VI, sends need a connection. */
#include "config.h"

#include <criterion/criterion.h>
#include <string.h>

#include "vi_pair.h"

static vi_pair_t p;

static void setup(void)
{
    vi_pair_opts_t o = { .n = 3, .job = { 1, 1, 2 } };   /* node 2 is another job */
    cr_assert_eq(vi_pair_start(&p, &o), 0);
}

static void teardown(void)
{
    vi_pair_stop(&p);
}

TestSuite(vi_conn, .init = setup, .fini = teardown, .timeout = 30);

static void addr_of(int node, uint32_t disc, vipl_net_addr_t *a)
{
    vipl_nic_address(p.node[node].nic, a);
    vipl_addr_set_disc(a, &disc, sizeof(disc));
}

Test(vi_conn, reject)
{
    vipl_vi_attr_t at = vi_attr(&p.node[0], VIA_RELIABLE_DELIVERY, 0, 0);
    vipl_net_addr_t remote, local;
    vipl_conn_t conn;
    vipl_vi_t *a;

    cr_assert_eq(vipl_create_vi(p.node[0].nic, &at, NULL, NULL, &a), VIPL_SUCCESS);
    addr_of(1, 7, &remote);
    addr_of(1, 7, &local);
    cr_assert_eq(vipl_connect_start(a, &remote, 5000), VIPL_SUCCESS);
    cr_assert_eq(vipl_connect_wait(p.node[1].nic, &local, 5000, &conn), VIPL_SUCCESS);
    cr_assert_eq(conn.remote_attr.reliability, VIA_RELIABLE_DELIVERY);
    cr_assert_eq(vipl_connect_reject(&conn), VIPL_SUCCESS);
    vipl_result_t r;
    uint64_t end = vi_now_us() + 5000000;
    while ((r = vipl_connect_poll(a)) == VIPL_NOT_DONE && vi_now_us() < end)
        ;
    cr_assert_eq(r, VIPL_REJECT);
    cr_assert_eq(vi_counter(&p, 1, "rejected"), 1);
    /* The VI is idle again and may try once more. */
    cr_assert_eq(vipl_connect_start(a, &remote, 100), VIPL_SUCCESS);
}

Test(vi_conn, client_timeout_when_nobody_waits)
{
    vipl_vi_attr_t at = vi_attr(&p.node[0], VIA_RELIABLE_DELIVERY, 0, 0);
    vipl_net_addr_t remote;
    vipl_vi_t *a;

    cr_assert_eq(vipl_create_vi(p.node[0].nic, &at, NULL, NULL, &a), VIPL_SUCCESS);
    addr_of(1, 8, &remote);
    uint64_t t0 = vi_now_us();
    cr_assert_eq(vipl_connect_request(a, &remote, 300, NULL), VIPL_TIMEOUT);
    uint64_t dt = vi_now_us() - t0;
    cr_assert_geq(dt, 250000);
    cr_assert_lt(dt, 3000000);
    cr_assert_eq(vi_counter(&p, 0, "timed-out"), 1);
}

Test(vi_conn, server_timeout_when_nobody_asks)
{
    vipl_net_addr_t local;
    vipl_conn_t conn;

    addr_of(1, 9, &local);
    uint64_t t0 = vi_now_us();
    cr_assert_eq(vipl_connect_wait(p.node[1].nic, &local, 200, &conn), VIPL_TIMEOUT);
    cr_assert_geq(vi_now_us() - t0, 190000);
}

Test(vi_conn, reliability_levels_must_agree)
{
    vipl_vi_attr_t at = vi_attr(&p.node[0], VIA_RELIABLE_DELIVERY, 0, 0);
    vipl_vi_attr_t bt = vi_attr(&p.node[1], VIA_RELIABLE_RECEPTION, 0, 0);
    vipl_net_addr_t remote, local;
    vipl_conn_t conn;
    vipl_vi_t *a, *b;

    cr_assert_eq(vipl_create_vi(p.node[0].nic, &at, NULL, NULL, &a), VIPL_SUCCESS);
    cr_assert_eq(vipl_create_vi(p.node[1].nic, &bt, NULL, NULL, &b), VIPL_SUCCESS);
    addr_of(1, 10, &remote);
    addr_of(1, 10, &local);
    cr_assert_eq(vipl_connect_start(a, &remote, 5000), VIPL_SUCCESS);
    cr_assert_eq(vipl_connect_wait(p.node[1].nic, &local, 5000, &conn), VIPL_SUCCESS);
    cr_assert_eq(vipl_connect_accept(&conn, b), VIPL_INVALID_RELIABILITY_LEVEL);
    vipl_result_t r;
    uint64_t end = vi_now_us() + 5000000;
    while ((r = vipl_connect_poll(a)) == VIPL_NOT_DONE && vi_now_us() < end)
        ;
    cr_assert_eq(r, VIPL_INVALID_RELIABILITY_LEVEL);
}

Test(vi_conn, another_job_cannot_take_the_request)
{
    vipl_vi_attr_t at = vi_attr(&p.node[0], VIA_RELIABLE_DELIVERY, 0, 0);
    vipl_net_addr_t remote, local;
    vipl_conn_t conn;
    vipl_vi_t *a;

    cr_assert_eq(vipl_create_vi(p.node[0].nic, &at, NULL, NULL, &a), VIPL_SUCCESS);
    addr_of(2, 11, &remote);             /* node 2 runs job 2 */
    addr_of(2, 11, &local);
    cr_assert_eq(vipl_connect_start(a, &remote, 400), VIPL_SUCCESS);
    cr_assert_eq(vipl_connect_wait(p.node[2].nic, &local, 300, &conn), VIPL_TIMEOUT);
    vipl_result_t r;
    uint64_t end = vi_now_us() + 5000000;
    while ((r = vipl_connect_poll(a)) == VIPL_NOT_DONE && vi_now_us() < end)
        ;
    cr_assert_eq(r, VIPL_TIMEOUT);
}

Test(vi_conn, one_connection_per_vi_and_no_send_before_it)
{
    vipl_vi_attr_t at = vi_attr(&p.node[0], VIA_RELIABLE_DELIVERY, 0, 0);
    vipl_vi_attr_t bt = vi_attr(&p.node[1], VIA_RELIABLE_DELIVERY, 0, 0);
    vipl_vi_t *a, *b, *idle;
    vipl_net_addr_t remote;
    vi_buf_t da;

    cr_assert_eq(vi_buf_make(&p.node[0], 4096, 1, 0, 0, &da), VIPL_SUCCESS);
    cr_assert_eq(vipl_create_vi(p.node[0].nic, &at, NULL, NULL, &idle), VIPL_SUCCESS);
    via_desc_t *s = vi_desc(&da, 0);
    vipl_desc_init(s, 0);
    cr_assert_eq(vipl_post_send(idle, s, da.h), VIPL_INVALID_STATE, "not connected");
    cr_assert_eq(vipl_post_recv(idle, vi_desc(&da, 1), da.h), VIPL_SUCCESS,
                 "receives may be posted before the connection");

    cr_assert_eq(vi_connect(&p, 0, 1, &at, &bt, NULL, NULL, &a, &b), VIPL_SUCCESS);
    addr_of(1, 99, &remote);
    cr_assert_eq(vipl_connect_start(a, &remote, 100), VIPL_INVALID_STATE, "already connected");
    cr_assert_eq(vipl_connect_start(b, &remote, 100), VIPL_INVALID_STATE);
}
