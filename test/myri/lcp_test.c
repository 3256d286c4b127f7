/* lcp_test.c - the LANai control program and GAM, firmwares in-process. */
#include "config.h"

#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <sched.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/nic_fw_internal.h"
#include "core/nic_log.h"
#include "lcp_pair.h"
#include "test_forge.h"
#include "test_job.h"

static uint64_t now_us(void)
{
    return nic_now_ns() / 1000;
}

/* ------------------------------------------------------------------ */
/* Route bytes through two crossbars                                   */

Test(route, bytes_through_a_two_switch_path, .timeout = 10)
{
    myri_fabric_t fab;
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(1000) };
    struct sockaddr_in b = { .sin_family = AF_INET, .sin_port = htons(2000) }, got;
    uint8_t route[MYRI_MAX_HOPS];
    int hops, len;

    memset(&fab, 0, sizeof(fab));
    a.sin_addr.s_addr = b.sin_addr.s_addr = htonl(0x7f000001);
    myri_fabric_item_t it[] = {
        { .kind = MYRI_FAB_ATTACH, .sw_a = 0, .port_a = 2, .ip = a.sin_addr.s_addr, .udp_port = a.sin_port },
        { .kind = MYRI_FAB_ATTACH, .sw_a = 1, .port_a = 5, .ip = b.sin_addr.s_addr, .udp_port = b.sin_port },
        { .kind = MYRI_FAB_LINK, .sw_a = 0, .port_a = 7, .sw_b = 1, .port_b = 0 },
    };
    for (int i = 0; i < 3; i++)
        cr_assert_eq(myri_fabric_add(&fab, &it[i]), NIC_OK);

    /* A (sw0 port 2) -> out of port 7 (+5) -> sw1 in port 0 -> port 5 (+5) */
    len = myri_fabric_route(&fab, 0, 2, 1, 5, route);
    cr_assert_eq(len, 2);
    cr_assert_eq(route[0], 0x85);
    cr_assert_eq(route[1], 0x85);
    cr_assert_eq(myri_fabric_walk(&fab, 0, 2, route, len, &got, &hops), NIC_OK);
    cr_assert_eq(hops, 2);
    cr_assert_eq(got.sin_port, b.sin_port);
    /* back: 7 - 2 = -5 and 0 - 5 = -5: six-bit two's complement 0x3b */
    len = myri_fabric_route(&fab, 1, 5, 0, 2, route);
    cr_assert_eq(len, 2);
    cr_assert_eq(route[0], 0xbb);
    cr_assert_eq(route[1], 0xbb);
    cr_assert_eq(myri_route_offset(0xbb), -5);
    cr_assert_eq(myri_fabric_walk(&fab, 1, 5, route, len, &got, &hops), NIC_OK);
    cr_assert_eq(got.sin_port, a.sin_port);

    /* what the crossbars refuse */
    uint8_t one[] = { 0x85 };
    cr_assert_eq(myri_fabric_walk(&fab, 0, 2, one, 1, &got, &hops), NIC_ERR_NO_ROUTE,
                 "route ends inside the fabric");
    uint8_t nomsb[] = { 0x05, 0x85 };
    cr_assert_eq(myri_fabric_walk(&fab, 0, 2, nomsb, 2, &got, &hops), NIC_ERR_NO_ROUTE,
                 "a byte without its MSB is no route byte");
    uint8_t unconnected[] = { 0x83, 0x85 };
    cr_assert_eq(myri_fabric_walk(&fab, 0, 2, unconnected, 2, &got, &hops), NIC_ERR_NO_ROUTE);
    uint8_t toolong[] = { 0x85, 0x85, 0x85 };
    cr_assert_eq(myri_fabric_walk(&fab, 0, 2, toolong, 3, &got, &hops), NIC_ERR_NO_ROUTE,
                 "route bytes left when the packet reaches a NIC");
    uint8_t nine[9] = { 0 };
    cr_assert_eq(myri_fabric_walk(&fab, 0, 2, nine, 9, &got, &hops), NIC_ERR_NO_ROUTE);
}

static int got_route;
static uint8_t got_payload[64];
static void h_store(myri_gam_t *g, void *arg, int32_t src, const myri_desc_t *d, const void *p)
{
    got_route++;
    memcpy(got_payload, p, d->len < 64 ? d->len : 64);
}
static int last_error;
static void h_err(myri_gam_t *g, void *arg, const myri_desc_t *d, int status)
{
    last_error = status;
}

Test(route, packets_cross_two_switches_and_bad_routes_fail, .timeout = 30)
{
    lcp_pair_t p;
    lcp_pair_opts_t o = { .n = 2, .topo = LCP_TOPO_TWO_SWITCHES };
    uint64_t args[5] = { 1, 2, 3, 4, 5 };

    cr_assert_eq(lcp_pair_start(&p, &o), 0);
    myri_gam_set_handler(p.node[1].g, 3, h_store, NULL);
    cr_assert_eq(myri_gam_request(p.node[0].g, 1, 3, args, "two switches", 13), NIC_OK);
    uint64_t end = now_us() + 5000000;
    while (got_route == 0 && now_us() < end)
        lcp_pair_poll(&p);
    cr_assert_eq(got_route, 1);
    cr_assert_str_eq((char *)got_payload, "two switches");

    /* A route into an unconnected port: the send fails with NO_ROUTE. */
    myri_peer_entry_t bad = { .ep_id = myri_gam_ep(p.node[1].g)->id, .route_len = 2, .valid = 1,
                              .route = { 0x84, 0x85 } };
    cr_assert_eq(myri_gam_set_peers(p.node[0].g, 1, 1, &bad), NIC_OK);
    myri_gam_set_error(p.node[0].g, h_err, NULL);
    cr_assert_eq(myri_gam_request(p.node[0].g, 1, 3, args, NULL, 0), NIC_OK);
    end = now_us() + 5000000;
    while (last_error == 0 && now_us() < end)
        lcp_pair_poll(&p);
    cr_assert_eq(last_error, NIC_ERR_NO_ROUTE);
    cr_assert_eq(got_route, 1);
    cr_assert_geq(lcp_pair_counter(&p, 0, "route"), 1);
    lcp_pair_stop(&p);
}

/* ------------------------------------------------------------------ */
/* CRC                                                                 */

Test(crc, crc8_check_value, .timeout = 10)
{
    /* CRC-8, polynomial 0x07, init 0: the catalogue check value */
    cr_assert_eq(myri_crc8(0, "123456789", 9), 0xf4);
    uint8_t big[4099];
    for (int i = 0; i < 4099; i++)
        big[i] = (uint8_t)(i * 13);
    /* the eight-table loop equals the bytewise definition */
    uint8_t c = 0;
    for (int i = 0; i < 4099; i++) {
        c ^= big[i];
        for (int b = 0; b < 8; b++)
            c = (uint8_t)((c & 0x80) ? (c << 1) ^ 0x07 : c << 1);
    }
    cr_assert_eq(myri_crc8(0, big, sizeof(big)), c);
}

/* Every path (carry-less multiplication where the CPU has it, the tables)
 * equals the bytewise definition, at every length around the block sizes,
 * any alignment and any initial value. */
Test(crc, crc8_all_paths_agree_with_the_definition, .timeout = 30)
{
    static uint8_t buf[9000 + 16];
    unsigned seed = 12345;
    for (size_t i = 0; i < sizeof(buf); i++) {
        seed = seed * 1103515245u + 12345u;
        buf[i] = (uint8_t)(seed >> 16);
    }
    for (size_t len = 0; len <= 9000; len += len < 300 ? 1 : 97) {
        for (unsigned off = 0; off < 16; off += 5) {
            uint8_t init = (uint8_t)(len * 7 + off), c = init;
            for (size_t i = 0; i < len; i++) {
                c ^= buf[off + i];
                for (int b = 0; b < 8; b++)
                    c = (uint8_t)((c & 0x80) ? (c << 1) ^ 0x07 : c << 1);
            }
            cr_assert_eq(myri_crc8(init, buf + off, len), c, "len %zu off %u", len, off);
            cr_assert_eq(myri_crc8_tables(init, buf + off, len), c, "len %zu off %u", len, off);
        }
    }
}

static int crc_got;
static void h_count(myri_gam_t *g, void *arg, int32_t src, const myri_desc_t *d, const void *p)
{
    crc_got++;
}

/* A well-formed packet of job 1 from a sender the firmware has not heard
 * of (the first of its stream). */
static void crc_packet(const lcp_pair_t *p, uint8_t *frame, size_t len)
{
    myri_hdr_t h;

    memset(&h, 0, sizeof(h));
    h.type[0] = MYRI_TYPE0;
    h.type[1] = MYRI_TYPE1;
    h.type[2] = MYRI_TYPE2;
    h.type[3] = MYRI_TYPE3;
    h.src_fw = 0x1234;
    h.seq = 1;
    h.kind = MYRI_KIND_DATA;
    h.flags = MYRI_F_SYN;
    h.dst_ep = myri_gam_ep(p->node[1].g)->id;
    h.job_key = test_job(1).tag;
    h.d.op = MYRI_OP_MEDIUM;
    h.d.peer = 0;
    h.d.handler = 4;
    h.d.len = 16;
    memcpy(frame, &h, sizeof(h));
    memset(frame + sizeof(h), 0xab, 16);
    frame[len - 1] = myri_crc8(0, frame, len - 1);
}

static void crc_poll_for(lcp_pair_t *p, uint64_t us, int until_got)
{
    uint64_t end = now_us() + us;
    while (now_us() < end && crc_got < until_got)
        lcp_pair_poll(p);
}

Test(crc, a_packet_with_a_bad_crc_is_rejected, .timeout = 30)
{
    lcp_pair_t p;
    lcp_pair_opts_t o = { .n = 2 };
    uint8_t frame[sizeof(myri_hdr_t) + 16 + 1];

    cr_assert_eq(lcp_pair_start(&p, &o), 0);
    myri_gam_set_handler(p.node[1].g, 4, h_count, NULL);
    crc_got = 0;
    /* Sent by a member of the job (the wire's MAC is right), damaged
     * before the MAC was made: only the CRC can tell. */
    crc_packet(&p, frame, sizeof(frame));
    frame[sizeof(myri_hdr_t) + 3] ^= 0x10;
    cr_assert_eq(test_send_as_member(test_jobp(1), &p.node[1].addr, frame, sizeof(frame)), NIC_OK);
    crc_poll_for(&p, 300000, 1);
    cr_assert_eq(crc_got, 0, "a corrupted packet was delivered");
    cr_assert_eq(lcp_pair_counter(&p, 1, "crc"), 1);
    /* the same packet intact is delivered: the rejection was the CRC */
    frame[sizeof(myri_hdr_t) + 3] ^= 0x10;
    cr_assert_eq(test_send_as_member(test_jobp(1), &p.node[1].addr, frame, sizeof(frame)), NIC_OK);
    crc_poll_for(&p, 5000000, 1);
    cr_assert_eq(crc_got, 1);
    lcp_pair_stop(&p);
}

/* The same intact packet (its CRC right) from someone who knows the job's
 * tag but not its key, or without the wire's envelope at all, or sent by a
 * member of another job while naming this one: never delivered, and the
 * firmware keeps no state of the sender. */
Test(auth, a_packet_without_the_jobs_mac_is_dropped_before_the_lcp_sees_it, .timeout = 30)
{
    lcp_pair_t p;
    lcp_pair_opts_t o = { .n = 2 };
    uint8_t frame[sizeof(myri_hdr_t) + 16 + 1];
    unsigned streams;

    cr_assert_eq(lcp_pair_start(&p, &o), 0);
    myri_gam_set_handler(p.node[1].g, 4, h_count, NULL);
    crc_got = 0;
    crc_packet(&p, frame, sizeof(frame));
    streams = (unsigned)lcp_pair_counter(&p, 1, "streams");
    cr_assert_eq(test_send_forged(test_job(1).tag, &p.node[1].addr, frame, sizeof(frame), 0), NIC_OK);
    cr_assert_eq(test_send_forged(test_job(1).tag, &p.node[1].addr, frame, sizeof(frame), 0xa5),
                 NIC_OK);
    cr_assert_eq(test_send_raw(&p.node[1].addr, frame, sizeof(frame)), NIC_OK);
    cr_assert_eq(test_send_as_member(test_jobp(2), &p.node[1].addr, frame, sizeof(frame)), NIC_OK);
    crc_poll_for(&p, 300000, 1);
    cr_assert_eq(crc_got, 0, "a packet without the job's MAC was delivered");
    cr_assert_eq(lcp_pair_counter(&p, 1, "crc"), 0, "the LCP never saw them");
    cr_assert_eq(lcp_pair_counter(&p, 1, "streams"), streams, "no stream was made for them");
    cr_assert_eq(test_send_as_member(test_jobp(1), &p.node[1].addr, frame, sizeof(frame)), NIC_OK);
    crc_poll_for(&p, 5000000, 1);
    cr_assert_eq(crc_got, 1, "the job's own packet is delivered");
    lcp_pair_stop(&p);
}

/* ------------------------------------------------------------------ */
/* Reliability under injected faults                                   */

#define FAULT_N 3000
static uint32_t next_seq, bad_order, bad_data;
static void h_seq(myri_gam_t *g, void *arg, int32_t src, const myri_desc_t *d, const void *p)
{
    if (d->arg[0] != next_seq)
        bad_order++;
    const uint8_t *b = p;
    for (uint32_t i = 0; i < d->len; i++)
        if (b[i] != (uint8_t)(d->arg[0] + i))
            bad_data++;
    next_seq++;
}

static void run_faults(double drop, double dup, double reorder, double corrupt)
{
    lcp_pair_t p;
    lcp_pair_opts_t o = { .n = 2, .credits = 16,
                          .fault = { .drop = drop, .dup = dup, .reorder = reorder,
                                     .corrupt = corrupt, .seed = 42 } };
    static uint8_t buf[MYRI_PAGE];
    uint32_t sent = 0;

    setenv("MULTIDEV_MYRI_RTO_US", "3000", 1);
    cr_assert_eq(lcp_pair_start(&p, &o), 0);
    next_seq = bad_order = bad_data = 0;
    myri_gam_set_handler(p.node[1].g, 5, h_seq, NULL);
    uint64_t end = now_us() + 60000000;
    while (next_seq < FAULT_N && now_us() < end) {
        if (sent < FAULT_N) {
            uint32_t len = (sent % 5) == 0 ? (sent * 37) % MYRI_PAGE : 0;
            for (uint32_t i = 0; i < len; i++)
                buf[i] = (uint8_t)(sent + i);
            uint64_t args[5] = { sent };
            if (myri_gam_request(p.node[0].g, 1, 5, args, buf, len) == NIC_OK)
                sent++;
        }
        if (lcp_pair_poll(&p) == 0)
            sched_yield();
    }
    cr_assert_eq(next_seq, FAULT_N, "lost messages: %u of %u arrived", next_seq, FAULT_N);
    cr_assert_eq(bad_order, 0, "delivered out of order or twice");
    cr_assert_eq(bad_data, 0, "payload corrupted");
    /* the faults really happened, and the LCP repaired them */
    long retx = lcp_pair_counter(&p, 0, "retransmits") + lcp_pair_counter(&p, 1, "retransmits");
    if (drop > 0) {
        cr_assert_gt(lcp_pair_counter(&p, 0, "drop") + lcp_pair_counter(&p, 1, "drop"), 0);
        cr_assert_gt(retx, 0, "frames were dropped but nothing was retransmitted");
    }
    if (dup > 0) {
        cr_assert_gt(lcp_pair_counter(&p, 0, "dup") + lcp_pair_counter(&p, 1, "dup"), 0);
        /* a copy of a datagram is a replay to the wire, which drops it */
        cr_assert_gt(lcp_pair_counter(&p, 1, "replayed"), 0, "no duplicate was discarded");
    }
    if (reorder > 0)
        cr_assert_gt(lcp_pair_counter(&p, 0, "reorder") + lcp_pair_counter(&p, 1, "reorder"), 0);
    lcp_pair_stop(&p);
    unsetenv("MULTIDEV_MYRI_RTO_US");
}

Test(reliable, zero_loss_in_order_under_5pct_drop, .timeout = 90) { run_faults(0.05, 0, 0, 0); }
Test(reliable, zero_loss_in_order_under_5pct_duplicate, .timeout = 90) { run_faults(0, 0.05, 0, 0); }
Test(reliable, zero_loss_in_order_under_reorder, .timeout = 90) { run_faults(0, 0, 0.05, 0); }
Test(reliable, zero_loss_in_order_under_all_faults, .timeout = 90)
{
    run_faults(0.05, 0.05, 0.05, 0.02);
}

/* A firmware that was stalled itself (a stopped process, a paused VM)
 * must not blame its peer for the time it did not run.  The peer's
 * firmware is held first, so that node 0's frames stay unacknowledged;
 * then node 0's firmware is held for twice the peer timeout; node 0 runs
 * again before the peer does.  Nothing may be declared dead, and the
 * request arrives. */
static uint32_t stall_got, stall_errors;
static void h_stall(myri_gam_t *g, void *arg, int32_t src, const myri_desc_t *d, const void *p)
{
    stall_got++;
}
static void h_stall_error(myri_gam_t *g, void *arg, const myri_desc_t *d, int status)
{
    stall_errors++;
}

Test(reliable, a_stall_of_our_own_is_no_evidence_against_the_peer, .timeout = 30)
{
    lcp_pair_t p;
    lcp_pair_opts_t o = { .n = 2 };
    uint64_t args[5] = { 7 };

    setenv("MULTIDEV_MYRI_PEER_TIMEOUT_MS", "1000", 1);
    cr_assert_eq(lcp_pair_start(&p, &o), 0);
    unsetenv("MULTIDEV_MYRI_PEER_TIMEOUT_MS");
    stall_got = stall_errors = 0;
    myri_gam_set_handler(p.node[1].g, 7, h_stall, NULL);
    myri_gam_set_error(p.node[0].g, h_stall_error, NULL);
    nic_fw_t *fw0 = nic_fw_thread_fw(p.node[0].fw), *fw1 = nic_fw_thread_fw(p.node[1].fw);

    pthread_mutex_lock(&fw1->turn_lock);            /* the peer cannot answer */
    cr_assert_eq(myri_gam_request(p.node[0].g, 1, 7, args, NULL, 0), NIC_OK);
    uint64_t end = now_us() + 20000;
    while (now_us() < end)
        myri_gam_poll(p.node[0].g, 64);             /* node 0 sends and retransmits */
    pthread_mutex_lock(&fw0->turn_lock);            /* node 0 stalls: 2 s */
    usleep(2000 * 1000);
    pthread_mutex_unlock(&fw0->turn_lock);
    end = now_us() + 100000;                        /* node 0 runs alone: 100 ms */
    while (now_us() < end)
        myri_gam_poll(p.node[0].g, 64);
    pthread_mutex_unlock(&fw1->turn_lock);
    end = now_us() + 5000000;
    while (stall_got == 0 && stall_errors == 0 && now_us() < end)
        lcp_pair_poll(&p);
    cr_assert_eq(stall_errors, 0, "the request to a live peer failed");
    cr_assert_eq(stall_got, 1, "the request did not arrive");
    cr_assert_eq(lcp_pair_counter(&p, 0, "failures"), 0, "a live peer was declared dead");
    cr_assert_gt(lcp_pair_counter(&p, 0, "retransmits"), 0, "nothing was outstanding");
    lcp_pair_stop(&p);
}

/* A firmware that stops (its process finalized or exited, its idle nicd
 * left) says BYE: its peer ends the stream at once, well before the peer
 * timeout (10 s by default), and a send to it fails with NOT_FOUND. */
static int bye_status;
static void h_bye_error(myri_gam_t *g, void *arg, const myri_desc_t *d, int status)
{
    bye_status = status;
}

Test(reliable, a_stopping_firmware_says_bye_and_its_peer_fails_sends_at_once, .timeout = 30)
{
    lcp_pair_t p;
    lcp_pair_opts_t o = { .n = 2 };
    uint64_t args[5] = { 1 };

    cr_assert_eq(lcp_pair_start(&p, &o), 0);
    stall_got = 0;
    bye_status = 0;
    myri_gam_set_handler(p.node[1].g, 7, h_stall, NULL);
    myri_gam_set_error(p.node[0].g, h_bye_error, NULL);
    cr_assert_eq(myri_gam_request(p.node[0].g, 1, 7, args, NULL, 0), NIC_OK);
    uint64_t end = now_us() + 5000000;
    while (stall_got == 0 && now_us() < end)
        lcp_pair_poll(&p);
    cr_assert_eq(stall_got, 1, "the stream was never opened");

    uint64_t t0 = now_us();
    nic_fw_thread_stop(p.node[1].fw);
    p.node[1].fw = NULL;
    end = t0 + 2000000;
    while (lcp_pair_counter(&p, 0, "stopped") != 1 && now_us() < end)
        myri_gam_poll(p.node[0].g, 64);
    cr_assert_eq(lcp_pair_counter(&p, 0, "stopped"), 1, "no BYE arrived in 2 s");
    cr_assert_eq(myri_gam_request(p.node[0].g, 1, 7, args, NULL, 0), NIC_OK);
    while (bye_status == 0 && now_us() < end)
        myri_gam_poll(p.node[0].g, 64);
    cr_assert_eq(bye_status, NIC_ERR_NOT_FOUND, "a send to the stopped peer: status %d",
                 bye_status);
    cr_assert_lt(now_us() - t0, 2000000, "learnt only after %llu us",
                 (unsigned long long)(now_us() - t0));
    cr_assert_eq(lcp_pair_counter(&p, 0, "failures"), 0, "a timeout was taken for a BYE");
    lcp_pair_stop(&p);
}

/* A stopped firmware's UDP port may be bound again by the next firmware
 * of its node.  The BYE of the old one ended the stream to that address;
 * a new endpoint whose set-up names the address (a new job) must reach the
 * new firmware there, not be refused as if it were the old one. */
Test(reliable, a_new_firmware_on_a_stopped_ones_port_is_reached_by_a_new_job, .timeout = 30)
{
    lcp_pair_t p;
    lcp_pair_opts_t o = { .n = 2 };
    uint64_t args[5] = { 1 };
    nic_fw_config_t cfg;
    char addr[64];

    cr_assert_eq(lcp_pair_start(&p, &o), 0);
    stall_got = 0;
    myri_gam_set_handler(p.node[1].g, 7, h_stall, NULL);
    cr_assert_eq(myri_gam_request(p.node[0].g, 1, 7, args, NULL, 0), NIC_OK);
    uint64_t end = now_us() + 5000000;
    while (stall_got == 0 && now_us() < end)
        lcp_pair_poll(&p);
    cr_assert_eq(stall_got, 1, "the stream was never opened");

    /* node 1 stops (BYE) and comes back on the same port */
    myri_gam_close(p.node[1].g);
    nic_host_detach(p.node[1].h);
    nic_fw_thread_stop(p.node[1].fw);
    end = now_us() + 2000000;
    while (lcp_pair_counter(&p, 0, "stopped") != 1 && now_us() < end)
        myri_gam_poll(p.node[0].g, 64);
    cr_assert_eq(lcp_pair_counter(&p, 0, "stopped"), 1, "no BYE arrived");
    nic_fw_config_defaults(&cfg, NULL);
    cfg.node = "t1";
    cfg.nic = "myri0";
    cfg.pers = "myri";
    cfg.rundir = p.rundir;
    cfg.bind_port = ntohs(p.node[1].addr.sin_port);
    cr_assert_eq(nic_fw_thread_start(&cfg, &p.node[1].fw), NIC_OK, "the port was taken");
    nic_fw_thread_addr(p.node[1].fw, addr, sizeof(addr));
    nic_attach_opts_t ao = { .node = "t1", .nic = "myri0", .pers = "myri", .rundir = p.rundir };
    cr_assert_eq(nic_host_attach(&ao, &p.node[1].h), NIC_OK);
    myri_gam_params_t gp = { .job = test_job(1), .my_vnn = 1, .num_vnn = 2, .credits = 8 };
    cr_assert_eq(myri_gam_open(p.node[1].h, &gp, &p.node[1].g), NIC_OK);

    /* a new job: a new endpoint on node 0, both set up afresh */
    myri_gam_close(p.node[0].g);
    gp.my_vnn = 0;
    cr_assert_eq(myri_gam_open(p.node[0].h, &gp, &p.node[0].g), NIC_OK);
    cr_assert_eq(lcp_pair_wire(&p), 0);
    stall_got = 0;
    bye_status = 0;
    myri_gam_set_handler(p.node[1].g, 7, h_stall, NULL);
    myri_gam_set_error(p.node[0].g, h_bye_error, NULL);
    cr_assert_eq(myri_gam_request(p.node[0].g, 1, 7, args, NULL, 0), NIC_OK);
    end = now_us() + 5000000;
    while (stall_got == 0 && bye_status == 0 && now_us() < end)
        lcp_pair_poll(&p);
    cr_assert_eq(bye_status, 0, "the new job's send was refused: status %d", bye_status);
    cr_assert_eq(stall_got, 1, "the new firmware got nothing");
    lcp_pair_stop(&p);
}

/* ------------------------------------------------------------------ */
/* Credits                                                             */

static uint32_t flood_got[2];
static void h_flood(myri_gam_t *g, void *arg, int32_t src, const myri_desc_t *d, const void *p)
{
    flood_got[(intptr_t)arg]++;
}

Test(credits, exhaustion_without_deadlock_or_drops, .timeout = 60)
{
    lcp_pair_t p;
    lcp_pair_opts_t o = { .n = 2, .credits = 2 };
    uint32_t sent[2] = { 0, 0 };
    const uint32_t N = 2000;

    cr_assert_eq(lcp_pair_start(&p, &o), 0);
    myri_gam_set_handler(p.node[0].g, 6, h_flood, (void *)0);
    myri_gam_set_handler(p.node[1].g, 6, h_flood, (void *)1);
    /* Both flood each other; node 1 polls only every 20th turn. */
    uint64_t end = now_us() + 50000000;
    for (unsigned turn = 0; (flood_got[0] < N || flood_got[1] < N) && now_us() < end; turn++) {
        for (int i = 0; i < 2; i++)
            while (sent[i] < N && myri_gam_request(p.node[i].g, 1 - i, 6, NULL, "x", 1) == NIC_OK)
                sent[i]++;
        myri_gam_poll(p.node[0].g, 64);
        if (turn % 20 == 0)
            myri_gam_poll(p.node[1].g, 64);
        cr_assert_leq(myri_gam_credits(p.node[0].g, 1), 2);
    }
    cr_assert_eq(flood_got[0], N);
    cr_assert_eq(flood_got[1], N);
    cr_assert_gt(myri_gam_stats(p.node[0].g)->credit_waits, 0, "credits never ran out");
    /* credits sized the in-queue: the firmware never had to push back */
    cr_assert_eq(lcp_pair_counter(&p, 0, "backpressure"), 0);
    cr_assert_eq(lcp_pair_counter(&p, 1, "backpressure"), 0);
    lcp_pair_stop(&p);
}

/* A request whose handler does not reply is answered (its credit paid)
 * as soon as enough is owed, before the next arrival's handler runs, as
 * GAM's automatic reply left; not after the whole in-queue. */
static uint64_t replies_seen[2];
static int quiet_calls;
static void h_quiet(myri_gam_t *g, void *arg, int32_t src, const myri_desc_t *d, const void *p)
{
    if (quiet_calls < 2)
        replies_seen[quiet_calls] = myri_gam_stats(g)->replies;
    quiet_calls++;
}

Test(credits, an_unanswered_request_is_paid_before_the_next_handler, .timeout = 30)
{
    lcp_pair_t p;
    lcp_pair_opts_t o = { .n = 2, .credits = 4 };   /* a reply per request owed */

    cr_assert_eq(lcp_pair_start(&p, &o), 0);
    myri_gam_set_handler(p.node[1].g, 7, h_quiet, NULL);
    cr_assert_eq(myri_gam_request(p.node[0].g, 1, 7, NULL, NULL, 0), NIC_OK);
    cr_assert_eq(myri_gam_request(p.node[0].g, 1, 7, NULL, NULL, 0), NIC_OK);
    usleep(100000);   /* both in node 1's in-queue: one poll handles them */
    cr_assert_eq(myri_gam_poll(p.node[1].g, 64), 2);
    cr_assert_eq(replies_seen[0], 0);
    cr_assert_eq(replies_seen[1], 1, "the first request was answered after the second's handler");
    cr_assert_eq(myri_gam_stats(p.node[1].g)->replies, 2);
    lcp_pair_stop(&p);
}

/* ------------------------------------------------------------------ */
/* Protection                                                          */

static int prot_got;
static void h_prot(myri_gam_t *g, void *arg, int32_t src, const myri_desc_t *d, const void *p)
{
    prot_got++;
}
static int prot_err;
static void h_prot_err(myri_gam_t *g, void *arg, const myri_desc_t *d, int status)
{
    prot_err = status;
}

Test(protection, another_jobs_endpoint_is_refused, .timeout = 30)
{
    lcp_pair_t p;
    lcp_pair_opts_t o = { .n = 2, .job = { 111, 222 } };   /* two jobs */

    cr_assert_eq(lcp_pair_start(&p, &o), 0);
    /* Job 111 has an endpoint on node 1 too, so node 1 holds its key and
     * its frames pass the wire: the LCP must refuse the packet for job
     * 222's endpoint.  (Without it, node 1's wire drops them unread.) */
    myri_gam_params_t gp = { .job = test_job(111), .my_vnn = 1, .num_vnn = 2, .credits = 8 };
    myri_gam_t *job111_on_1;
    cr_assert_eq(myri_gam_open(p.node[1].h, &gp, &job111_on_1), NIC_OK);
    myri_gam_set_handler(p.node[1].g, 7, h_prot, NULL);
    myri_gam_set_error(p.node[0].g, h_prot_err, NULL);
    cr_assert_eq(myri_gam_request(p.node[0].g, 1, 7, NULL, "intrude", 8), NIC_OK);
    uint64_t end = now_us() + 5000000;
    while (prot_err == 0 && now_us() < end)
        lcp_pair_poll(&p);
    cr_assert_eq(prot_err, NIC_ERR_PROTECTION);
    cr_assert_eq(prot_got, 0, "a foreign job's packet reached the endpoint");
    cr_assert_geq(lcp_pair_counter(&p, 1, "protection"), 1);

    /* Control path: another process (connection) cannot close or
     * configure the endpoint, with or without the right key. */
    nic_attach_opts_t ao = { .node = "t1", .nic = "myri0", .rundir = p.rundir };
    nic_host_t *other;
    nic_ep_t *ep1 = myri_gam_ep(p.node[1].g);
    cr_assert_eq(nic_host_attach(&ao, &other), NIC_OK);
    cr_assert_eq(nic_host_ctl_raw(other, 3 /* EP_CLOSE */, ep1->id, 222, 0, NULL, 0),
                 NIC_ERR_PROTECTION);
    cr_assert_eq(nic_host_ctl_raw(other, 3, ep1->id, 999, 0, NULL, 0), NIC_ERR_PROTECTION);
    myri_ctl_setup_t s = { 0 };
    cr_assert_eq(nic_host_ctl_raw(other, 6 /* PERS */, ep1->id, 222, MYRI_CTL_SETUP, &s, sizeof(s)),
                 NIC_ERR_PROTECTION);
    nic_host_detach(other);
    /* the endpoint still works for its owner */
    cr_assert_eq(nic_ep_check(ep1), NIC_OK);
    myri_gam_close(job111_on_1);
    lcp_pair_stop(&p);
}

Test(protection, unregistered_memory_is_refused, .timeout = 30)
{
    lcp_pair_t p;
    lcp_pair_opts_t o = { .n = 2 };

    cr_assert_eq(lcp_pair_start(&p, &o), 0);
    nic_ep_t *ep = myri_gam_ep(p.node[0].g);
    uint32_t keys[3], offs[3];
    /* a guessed key, a key of no region, an offset beyond the copy block */
    nic_entry_t *probe = nic_ep_sq_slot(ep);
    cr_assert_not_null(probe);
    /* learn the copy block's key from a real post */
    myri_gam_set_handler(p.node[1].g, 8, h_prot, NULL);
    cr_assert_eq(myri_gam_request(p.node[0].g, 1, 8, NULL, "ok", 3), NIC_OK);
    uint32_t real = ((myri_desc_t *)&ep->sq.slots[(ep->sq.local - 1) & ep->sq.mask])->key;
    keys[0] = real ^ 0x100;     offs[0] = 0;
    keys[1] = 0x12345600 | 9;   offs[1] = 0;
    keys[2] = real;             offs[2] = 0x7fffffff;
    for (int i = 0; i < 3; i++) {
        nic_entry_t *e = nic_ep_sq_slot(ep);
        cr_assert_not_null(e, "out-queue full after %d forged posts", i);
        myri_desc_t *d = (myri_desc_t *)e;
        memset(d, 0, sizeof(*d));
        d->op = MYRI_OP_MEDIUM;
        d->peer = 1;
        d->handler = 8;
        d->len = 100;
        d->key = keys[i];
        d->offset = offs[i];
        nic_ep_sq_post(ep);
    }
    int errors = 0;
    uint64_t end = now_us() + 5000000;
    while (errors < 3 && now_us() < end) {
        nic_entry_t *c = nic_ep_cq_peek(ep);
        if (c == NULL) {
            myri_gam_poll(p.node[1].g, 64);
            continue;
        }
        myri_desc_t *d = (myri_desc_t *)c;
        if (d->op & MYRI_OP_ERROR) {
            cr_assert_eq(-(int)d->aux, NIC_ERR_PROTECTION);
            errors++;
        }
        nic_ep_cq_release(ep);
    }
    cr_assert_eq(errors, 3);
    end = now_us() + 300000;
    while (now_us() < end)
        myri_gam_poll(p.node[1].g, 64);
    cr_assert_eq(prot_got, 1, "only the legitimate send arrived");
    lcp_pair_stop(&p);
}
