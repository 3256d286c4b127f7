/* lcp_timing_test.c - the HP-LAM timing model of the LCP and GAM: it never
 * beats its component costs, and the emulation's own delays hide inside
 * the modelled time instead of adding to it (doc/nic.md §8). */
#include "config.h"

#include <criterion/criterion.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "lcp_pair.h"
#include "myri/myri_timing.h"

/* The component costs of one message, from the profile (ns). */
typedef struct costs {
    uint64_t enqueue, poll, dequeue, lcp_send, lcp_recv, wire;
} costs_t;

static void costs_of(const myri_timing_t *t, const myri_host_timing_t *ht, costs_t *c)
{
    c->enqueue = ht->pagemap_ns + ht->entry_words * ht->pio_write_ns;
    c->poll = ht->pagemap_ns + ht->pio_read_ns;
    c->dequeue = (ht->entry_words - 1ull) * ht->pio_read_ns + ht->pio_write_ns;
    c->lcp_send = t->lanai_ns_per_pkt_send;
    c->lcp_recv = t->lanai_ns_per_pkt_recv;
    /* one route byte, the type, the 8-word entry, the CRC: a short message */
    c->wire = (1 + 4 + 32 + 1) * 1000ull / t->link_MBps;
}

static void timing_on(lcp_pair_t *p, costs_t *c)
{
    myri_timing_t t;
    myri_host_timing_t ht;

    cr_assert_eq(myri_timing_profile("hplam", &t, &ht), 0);
    for (int i = 0; i < p->n; i++) {
        cr_assert_eq(myri_gam_timing(p->node[i].g, &t), NIC_OK);
        myri_gam_set_host_timing(p->node[i].g, &ht);
    }
    costs_of(&t, &ht, c);
}

static unsigned pongs, pings;
static uint64_t ping_valid, ping_found;

static void h_ping(myri_gam_t *g, void *a, int32_t src, const myri_desc_t *d, const void *p)
{
    myri_gam_arrival(g, &ping_valid, &ping_found);
    pings++;
    myri_gam_reply(g, src, 10, NULL, NULL, 0);
}

static void h_pong(myri_gam_t *g, void *a, int32_t src, const myri_desc_t *d, const void *p)
{
    pongs++;
}

/* Where each node's firmware runs: a thread of the test, a nicd process,
 * or in-process, lent turns by its host (nic_attach_opts_t.inproc). */
enum { FW_THREAD, FW_NICD, FW_INPROC };

/* Two nodes with the hplam model, node 1 answering pings from node 0. */
static void start_timed(lcp_pair_t *p, uint32_t credits, int place, costs_t *c)
{
    lcp_pair_opts_t o = { .n = 2, .credits = credits, .nicd = place == FW_NICD,
                          .inproc = place == FW_INPROC };

    cr_assert_eq(lcp_pair_start(p, &o), 0);
    timing_on(p, c);
    pongs = pings = 0;
    myri_gam_set_handler(p->node[1].g, 9, h_ping, NULL);
    myri_gam_set_handler(p->node[0].g, 10, h_pong, NULL);
}

/* Poll node i until n pings have arrived there (5 s at most). */
static void poll_for_pings(lcp_pair_t *p, int i, unsigned n)
{
    uint64_t end = nic_now_ns() + 5000000000ull;
    while (pings < n && nic_now_ns() < end)
        myri_gam_poll(p->node[i].g, 64);
    cr_assert_eq(pings, n, "the request never arrived");
}

/* The model can only add time: a round trip never beats the sum of its
 * component costs (each way: the request's PIO, the LCP's send and receive
 * threads, the link, and the rest of the entry read after the poll that
 * finds it the moment it is valid), whatever the load of the machine. */
static void round_trips_cost_at_least_their_components(int place)
{
    lcp_pair_t p;
    costs_t c;

    start_timed(&p, 4, place, &c);
    const int n = 50;
    uint64_t t0 = nic_now_ns();
    for (int i = 0; i < n; i++) {
        while (myri_gam_request(p.node[0].g, 1, 9, NULL, NULL, 0) != NIC_OK)
            lcp_pair_poll(&p);
        while (pongs < (unsigned)i + 1)
            lcp_pair_poll(&p);
    }
    double rtt_us = (double)(nic_now_ns() - t0) / 1000.0 / n;
    double floor_us = 2.0 * (double)(c.enqueue + c.lcp_send + c.wire + c.lcp_recv + c.dequeue) /
                      1000.0;
    cr_assert_geq(rtt_us, floor_us, "round trip %.2f us below the model's %.2f us", rtt_us,
                  floor_us);
    lcp_pair_stop(&p);
}

Test(timing, a_round_trip_costs_at_least_its_components, .timeout = 60)
{
    cr_assert_eq(myri_timing_profile("nonesuch", NULL, NULL), -1);
    round_trips_cost_at_least_their_components(FW_THREAD);
}

/* The same with each node's firmware in its host's process: the turns a
 * host lends it while the model stalls the host take nothing off. */
Test(timing, an_in_process_round_trip_costs_at_least_its_components, .timeout = 60)
{
    round_trips_cost_at_least_their_components(FW_INPROC);
}

/* Back-to-back requests within the credits: each costs its PIO. */
Test(timing, a_request_costs_at_least_its_pio, .timeout = 60)
{
    lcp_pair_t p;
    costs_t c;

    start_timed(&p, 8, FW_THREAD, &c);
    uint64_t t0 = nic_now_ns();
    for (int i = 0; i < 8; i++)
        cr_assert_eq(myri_gam_request(p.node[0].g, 1, 9, NULL, NULL, 0), NIC_OK);
    uint64_t took = nic_now_ns() - t0;
    cr_assert_geq(took, 8 * c.enqueue, "8 requests in %llu ns", (unsigned long long)took);
    poll_for_pings(&p, 1, 8);
    lcp_pair_stop(&p);
}

/* The sending NIC takes the entry late (its nicd is stopped for 20 ms),
 * yet the message is valid at the receiver when the hardware would have
 * made it valid: the send thread's time counts from the host's stamp on
 * the entry, not from when the emulation got round to it. */
Test(timing, a_late_pickup_hides_inside_the_model, .timeout = 60)
{
    lcp_pair_t p;
    costs_t c;

    start_timed(&p, 4, FW_NICD, &c);
    pid_t fw = (pid_t)p.node[0].h->status->fw_pid;
    cr_assert_eq(kill(fw, SIGSTOP), 0);
    uint64_t t0 = nic_now_ns();
    int rc = myri_gam_request(p.node[0].g, 1, 9, NULL, NULL, 0);
    uint64_t t1 = nic_now_ns();
    usleep(20000);
    kill(fw, SIGCONT);
    cr_assert_eq(rc, NIC_OK);
    poll_for_pings(&p, 1, 1);
    uint64_t path = c.enqueue + c.lcp_send + c.wire + c.lcp_recv;
    cr_assert_geq(ping_valid, t0 + path, "valid %lld ns after the request began, below %llu",
                  (long long)(ping_valid - t0), (unsigned long long)path);
    cr_assert_leq(ping_valid, t1 + path + 1000000, "valid %.1f us after the request: the stall "
                  "was added", (double)(ping_valid - t1) / 1000.0);
    cr_assert_geq(ping_found, ping_valid);
    lcp_pair_stop(&p);
}

/* A host that polled in vain and then did not run for 5 ms (here: slept;
 * in a benchmark: another process had the core) found the message, in the
 * model, with the first poll after it became valid; a host that did other
 * work in between (a request) finds it only when it polls again. */
Test(timing, a_host_that_polled_all_along_finds_a_message_when_it_became_valid, .timeout = 60)
{
    lcp_pair_t p;
    costs_t c;

    start_timed(&p, 4, FW_THREAD, &c);

    cr_assert_eq(myri_gam_poll(p.node[1].g, 64), 0);    /* starts polling */
    cr_assert_eq(myri_gam_request(p.node[0].g, 1, 9, NULL, NULL, 0), NIC_OK);
    usleep(5000);
    uint64_t t_poll = nic_now_ns();
    poll_for_pings(&p, 1, 1);
    cr_assert_geq(ping_found, ping_valid, "found before it was valid");
    cr_assert_leq(ping_found, ping_valid + c.poll, "found %lld ns after it was valid",
                  (long long)(ping_found - ping_valid));
    cr_assert_lt(ping_found, t_poll, "the wait was not counted as polling");

    cr_assert_eq(myri_gam_poll(p.node[1].g, 64), 0);    /* polls again ... */
    cr_assert_eq(myri_gam_request(p.node[1].g, 0, 10, NULL, NULL, 0), NIC_OK);  /* ... works */
    cr_assert_eq(myri_gam_request(p.node[0].g, 1, 9, NULL, NULL, 0), NIC_OK);
    usleep(5000);
    t_poll = nic_now_ns();
    poll_for_pings(&p, 1, 2);
    cr_assert_geq(ping_found, t_poll, "work between polls counted as polling");
    lcp_pair_stop(&p);
}

/* With the firmware in-process, a host the model stalls (here: host work
 * after each request, which nothing else interrupts) lends the firmware
 * turns meanwhile, as the LANai ran beside the stalled host CPU: the
 * requests leave during the stalls, and the stalls still last their
 * modelled time. */
Test(timing, an_in_process_firmware_works_during_the_hosts_stalls, .timeout = 60)
{
    lcp_pair_t p;
    costs_t c;
    const int n = 20;
    const uint64_t work_ns = 500 * 1000;

    start_timed(&p, 32, FW_INPROC, &c);
    myri_gam_t *g = p.node[0].g;
    uint64_t t0 = nic_now_ns();
    for (int i = 0; i < n; i++) {
        cr_assert_eq(myri_gam_request(g, 1, 9, NULL, NULL, 0), NIC_OK);
        myri_gam_host_work(g, work_ns);
    }
    uint64_t took = nic_now_ns() - t0;
    cr_assert_geq(took, n * (c.enqueue + work_ns), "%d requests and stalls in %llu ns", n,
                  (unsigned long long)took);
    cr_assert_geq(myri_gam_stats(g)->stall_turns, (uint64_t)n / 2,
                  "%llu turns did work during %d stalls",
                  (unsigned long long)myri_gam_stats(g)->stall_turns, n);
    poll_for_pings(&p, 1, n);
    lcp_pair_stop(&p);
}
