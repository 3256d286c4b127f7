/* test_timing.c - the D310 timing model of the bridge never beats its
 * component costs (nic/sci/sci_timing.c), whether the firmware runs as a
 * thread of its own or on the host's lent turns (in-process firmware: the
 * host lends its modelled PIO stall to the firmware). */
#include "config.h"

#include <criterion/criterion.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "bridge_pair.h"
#include "sci/sci_timing.h"

#define A 0
#define B 1

static bridge_pair_t bp;
static sci_timing_t d310;

static sci_dev_t *dev(int i) { return bp.node[i].dev; }

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void start(int inproc)
{
    cr_assert_eq(sci_timing_profile("d310", &d310), 0);
    cr_assert_eq(bp_start_opts(&bp, 2, inproc), NIC_OK);
    for (int i = 0; i < 2; i++)
        cr_assert_eq(sci_set_timing(dev(i), &d310), NIC_OK);
}

static void setup_thread(void) { start(0); }
static void setup_inproc(void) { start(1); }
static void teardown(void) { bp_stop(&bp); }

/* A store, waiting while the transmit window is full. */
static void store(uint64_t addr, const void *src, uint32_t len)
{
    int rc;
    while ((rc = sci_store(dev(A), addr, src, len, 0, 0)) == NIC_ERR_NO_RESOURCE)
        nic_host_lend(bp.node[A].h);
    cr_assert_eq(rc, NIC_OK);
}

/* B exports a region of 64 kB; A imports it whole. */
static volatile uint64_t *export_import(sci_win_t *win)
{
    nic_mr_t mr;
    sci_seg_t seg;

    cr_assert_eq(bp_region(&bp, B, 65536, &mr), NIC_OK);
    cr_assert_eq(sci_export_range(dev(B), &mr, 0, 65536, 0, SCI_EXP_REMOTE, &seg), NIC_OK);
    cr_assert_eq(sci_import(dev(A), sci_local_node(dev(B)), seg.offset, 65536, 0, win), NIC_OK);
    return mr.addr;
}

/* A message as subdev-sci sends it: its data (len bytes, at a 64-byte
 * boundary), then its 8-byte used flag; the flag is visible at B no earlier
 * than the PIO writes of both, the flag's link time and both bridges after
 * A began.  72 bytes is the 8-byte inline message (info struct and data, 2
 * transactions); 8 kB (128) is where the model, not the emulation, must
 * decide. */
static void message_never_beats_the_model(uint32_t len, int count)
{
    sci_win_t win;
    volatile uint64_t *m = export_import(&win);
    static uint8_t data[8192];
    uint64_t link = (uint64_t)d310.txn_wire_bytes * 1000 / d310.link_MBps;
    uint64_t txns = (len + 63) / 64 + 1, best = UINT64_MAX;
    uint64_t floor_ns = txns * d310.pio_ns_per_txn + link + 2 * d310.bridge_ns;

    cr_assert_leq(len, sizeof(data));
    memset(data, 0x5a, len);
    for (uint64_t id = 1; id <= (uint64_t)count; id++) {
        uint64_t t0 = now_ns();
        store(win.addr + 4096, data, len);
        store(win.addr, &id, sizeof(id));
        while (atomic_load_explicit((_Atomic uint64_t *)m, memory_order_acquire) != id) {
            nic_host_lend(bp.node[B].h);   /* the receiving host polls */
            nic_host_lend(bp.node[A].h);   /* (an in-process firmware needs turns) */
            cr_assert(now_ns() - t0 < 5000000000ull, "message %llu never came",
                      (unsigned long long)id);
        }
        uint64_t t = now_ns() - t0;
        best = t < best ? t : best;
        cr_assert_geq(t, floor_ns, "message %llu visible after %llu ns, the model's floor is %llu",
                      (unsigned long long)id, (unsigned long long)t,
                      (unsigned long long)floor_ns);
    }
    cr_log_info("%u B + flag: best %llu ns, floor %llu ns", len, (unsigned long long)best,
                (unsigned long long)floor_ns);
}

/* The host is busy for its PIO writes: a 640-byte store on a 64-byte
 * boundary is 10 transactions, owed until settled; a store of 4096 (64
 * transactions) owes at most SCI_PIO_OWED_NS when the call returns. */
static void host_is_busy_for_its_writes(void)
{
    sci_win_t win;
    static uint8_t data[640], big[4096];

    export_import(&win);
    for (int i = 0; i < 20; i++) {
        uint64_t t0 = now_ns();
        store(win.addr + 8192, data, sizeof(data));
        sci_pio_settle(dev(A));
        cr_assert_geq(now_ns() - t0, 10 * d310.pio_ns_per_txn);
        t0 = now_ns();
        store(win.addr + 8192, big, sizeof(big));
        cr_assert_geq(now_ns() - t0, 64 * d310.pio_ns_per_txn - SCI_PIO_OWED_NS);
        sci_pio_settle(dev(A));
        cr_assert_geq(now_ns() - t0, 64 * d310.pio_ns_per_txn);
    }
}

/* The MPI software of a message (P6's 3 us) keeps the CPU busy before the
 * message's stores: a store after it is settled no earlier than both. */
static void software_comes_before_the_stores(void)
{
    sci_win_t win;
    static uint8_t data[640];

    cr_assert_eq(d310.msg_sw_ns, 3000);
    export_import(&win);
    for (int i = 0; i < 20; i++) {
        uint64_t t0 = now_ns();
        sci_cpu_software(dev(A));
        store(win.addr + 8192, data, sizeof(data));
        sci_pio_settle(dev(A));
        cr_assert_geq(now_ns() - t0, d310.msg_sw_ns + 10 * d310.pio_ns_per_txn);
    }
}

TestSuite(timing_thread, .init = setup_thread, .fini = teardown, .timeout = 60);
TestSuite(timing_inproc, .init = setup_inproc, .fini = teardown, .timeout = 60);

Test(timing_thread, inline_message_never_beats_the_model) { message_never_beats_the_model(72, 50); }
Test(timing_inproc, inline_message_never_beats_the_model) { message_never_beats_the_model(72, 50); }
Test(timing_thread, eager_message_never_beats_the_model) { message_never_beats_the_model(8192, 50); }
Test(timing_inproc, eager_message_never_beats_the_model) { message_never_beats_the_model(8192, 50); }
Test(timing_thread, host_is_busy_for_its_writes) { host_is_busy_for_its_writes(); }
Test(timing_inproc, host_is_busy_for_its_writes) { host_is_busy_for_its_writes(); }
Test(timing_thread, software_comes_before_the_stores) { software_comes_before_the_stores(); }
Test(timing_inproc, software_comes_before_the_stores) { software_comes_before_the_stores(); }
