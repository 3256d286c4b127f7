/* test_bridge.c - the emulated PCI-SCI bridge, with its firmwares as
 * threads of the test (seed 000 T-NIC-1, 2, 4, 10, 11). */
#include "config.h"

#include <criterion/criterion.h>
#include <poll.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bridge_pair.h"
#include "core/nic_fw_internal.h"
#include "test_job.h"

#define A 0
#define B 1

static bridge_pair_t bp;

static sci_dev_t *dev(int i) { return bp.node[i].dev; }

static void setup2(void)
{
    cr_assert_eq(bp_start(&bp, 2, NULL, NULL), NIC_OK);
}

static void teardown(void)
{
    bp_stop(&bp);
}

/* A counter of node i's firmware status text (" NAME value"). */
static long status_counter(int i, const char *name)
{
    char text[4096], key[64];
    const char *at;

    cr_assert_eq(nic_host_status(bp.node[i].h, text, sizeof(text)), NIC_OK);
    snprintf(key, sizeof(key), " %s ", name);
    at = strstr(text, key);
    cr_assert_not_null(at, "no counter %s in the status", name);
    return strtol(at + strlen(key), NULL, 10);
}

static sci_stats_t stats(int i)
{
    sci_stats_t s;
    cr_assert_eq(sci_stats(dev(i), &s), NIC_OK);
    return s;
}

/* B exports [off, off + len) of a region; A imports it (size: its view). */
static void export_import(nic_mr_t *mr, uint64_t off, uint64_t len, uint64_t import_len,
                          sci_seg_t *seg, sci_win_t *win)
{
    uint64_t size = off + len > 256 * 1024 ? off + len : 256 * 1024;
    cr_assert_eq(bp_region(&bp, B, size, mr), NIC_OK);
    cr_assert_eq(sci_export_range(dev(B), mr, off, len, 0, SCI_EXP_REMOTE, seg), NIC_OK);
    cr_assert_eq(seg->offset % SCI_UP_PAGE, off % SCI_UP_PAGE, "the offset keeps the alignment");
    cr_assert_eq(sci_import(dev(A), sci_local_node(dev(B)), seg->offset, import_len, 0, win),
                 NIC_OK);
}

static int all(const uint8_t *p, size_t n, uint8_t v)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != v)
            return 0;
    return 1;
}

TestSuite(bridge, .init = setup2, .fini = teardown, .timeout = 30);

/* ------------------------------------------------------------------ */
/* Window translation and clipping (T-NIC-2)                           */

Test(bridge, store_lands_through_three_translations)
{
    nic_mr_t mr;
    sci_seg_t seg;
    sci_win_t win;
    uint8_t data[5000];
    uint64_t flag = 7;

    export_import(&mr, 100, 20000, 20000, &seg, &win);
    for (int i = 0; i < 5000; i++)
        data[i] = (uint8_t)(i * 13);
    cr_assert_eq(sci_store(dev(A), win.addr + 3000, data, sizeof(data), 0, 0), NIC_OK);
    cr_assert_eq(sci_store(dev(A), win.addr + 19992, &flag, 8, 0, 0), NIC_OK);
    uint8_t *m = mr.addr;
    cr_assert_eq(bp_until(m + 100 + 19992, 7, 5000), NIC_OK);
    cr_assert(memcmp(m + 100 + 3000, data, sizeof(data)) == 0);
    cr_assert(all(m, 100 + 3000, 0), "nothing before the store");
}

/* A host asleep on its wake descriptor is woken by a store into its memory
 * (the bridge has no CQ entry to give it), and mem_gen tells one that armed
 * late that something landed. */
Test(bridge, store_wakes_an_armed_host_and_bumps_mem_gen)
{
    nic_mr_t mr;
    sci_seg_t seg;
    sci_win_t win;
    uint64_t flag = 9;
    nic_ep_t *ep_b;

    export_import(&mr, 0, 4096, 4096, &seg, &win);
    ep_b = dev(B)->ep;
    uint32_t gen0 = nic_ep_mem_gen(ep_b);
    int fd = nic_ep_wake_arm(ep_b, 0);
    cr_assert_geq(fd, 0);
    struct pollfd pfd = { .fd = fd, .events = POLLIN };
    cr_assert_eq(poll(&pfd, 1, 0), 0, "nothing stored yet: not readable");
    cr_assert_eq(sci_store(dev(A), win.addr + 64, &flag, 8, 0, 0), NIC_OK);
    cr_assert_eq(poll(&pfd, 1, 5000), 1, "the store woke the armed host");
    cr_assert_eq(bp_until((uint8_t *)mr.addr + 64, 9, 5000), NIC_OK);
    cr_assert_neq(nic_ep_mem_gen(ep_b), gen0, "mem_gen moved");
    nic_ep_wake_disarm(ep_b);
    cr_assert_eq(poll(&pfd, 1, 0), 0, "disarming drained it");
}

Test(bridge, store_beyond_the_window_is_clipped_at_the_initiator)
{
    nic_mr_t mr;
    sci_seg_t seg;
    sci_win_t win;
    uint8_t data[300];
    sci_cqe_t c;

    export_import(&mr, 0, 8192, 8192, &seg, &win);
    memset(data, 0xab, sizeof(data));
    cr_assert_eq(sci_store(dev(A), win.addr + 8192 - 100, data, sizeof(data), 0, 42), NIC_OK);
    cr_assert_eq(bp_cqe(&bp, A, &c, 5000), NIC_OK);
    cr_assert_eq(c.status, NIC_ERR_INVALID);
    cr_assert_eq(c.len, 100, "the part inside the window went");
    cr_assert_eq(c.cookie, 42);
    cr_assert_eq(bp_barrier(&bp, A), NIC_OK);
    uint8_t *m = mr.addr;
    cr_assert(all(m + 8192 - 100, 100, 0xab));
    cr_assert(all(m + 8192, 4096, 0), "nothing past the segment");
    cr_assert_eq(stats(A).ep.clipped, 1);
}

Test(bridge, store_beyond_the_segment_is_clipped_at_the_target)
{
    nic_mr_t mr;
    sci_seg_t seg;
    sci_win_t win;
    uint8_t data[200];

    /* The importer claims more than was exported: the exporter's upstream
     * entries still hold only the segment's bytes. */
    export_import(&mr, 1000, 2000, 6000, &seg, &win);
    memset(data, 0x5a, sizeof(data));
    cr_assert_eq(sci_store(dev(A), win.addr + 1900, data, sizeof(data), 0, 0), NIC_OK);
    cr_assert_eq(sci_store(dev(A), win.addr + 4000, data, sizeof(data), 0, 0), NIC_OK);
    cr_assert_eq(bp_barrier(&bp, A), NIC_OK);
    uint8_t *m = mr.addr;
    cr_assert(all(m + 1000 + 1900, 100, 0x5a));
    cr_assert(all(m + 3000, 200 * 1024 - 3000, 0), "nothing outside the segment");
    cr_assert(all(m, 1000, 0));
    sci_stats_t s = stats(B);
    cr_assert_geq(s.fw.rx_clipped, 1);
    cr_assert_geq(s.fw.rx_unmapped, 1, "the second store hit no exported page");
}

Test(bridge, unaligned_non_contiguous_pages_in_segment_order)
{
    nic_mr_t mr;
    sci_seg_t seg;
    sci_win_t win;
    /* Segment pages: region pages 5, 2 and 9, starting 300 bytes in. */
    sci_page_run_t runs[] = { { 0, 1, 5 * 4096 }, { 0, 1, 2 * 4096 }, { 0, 1, 9 * 4096 } };
    uint8_t data[10000];

    cr_assert_eq(bp_region(&bp, B, 64 * 1024, &mr), NIC_OK);
    for (int i = 0; i < 3; i++)
        runs[i].key = mr.key;
    cr_assert_eq(sci_export_pages(dev(B), runs, 3, 300, 10000, 0, SCI_EXP_REMOTE, &seg), NIC_OK);
    cr_assert_eq(seg.offset % 4096, 300);
    cr_assert_eq(sci_import(dev(A), sci_local_node(dev(B)), seg.offset, seg.size, 0, &win),
                 NIC_OK);
    for (int i = 0; i < 10000; i++)
        data[i] = (uint8_t)(i % 251 + 1);
    cr_assert_eq(sci_store(dev(A), win.addr, data, sizeof(data), 0, 0), NIC_OK);
    cr_assert_eq(bp_barrier(&bp, A), NIC_OK);
    uint8_t *m = mr.addr;
    cr_assert(memcmp(m + 5 * 4096 + 300, data, 3796) == 0, "first page, from byte 300");
    cr_assert(memcmp(m + 2 * 4096, data + 3796, 4096) == 0, "second page");
    cr_assert(memcmp(m + 9 * 4096, data + 7892, 10000 - 7892) == 0, "third page, partly");
    cr_assert(all(m + 5 * 4096, 300, 0));
    cr_assert(all(m + 9 * 4096 + 10000 - 7892, 4096 - (10000 - 7892), 0));
    cr_assert(all(m + 3 * 4096, 2 * 4096, 0), "pages in between untouched");
}

Test(bridge, export_of_unregistered_memory_is_refused)
{
    nic_mr_t mr, ro;
    sci_seg_t seg;
    sci_page_run_t run = { 0, 4, 0 };

    cr_assert_eq(bp_region(&bp, B, 8192, &mr), NIC_OK);
    run.key = mr.key;
    cr_assert_eq(sci_export_pages(dev(B), &run, 1, 0, 4 * 4096, 0, SCI_EXP_REMOTE, &seg),
                 NIC_ERR_PROTECTION, "pages beyond the region");
    run.key = mr.key ^ 0x100;
    run.npages = 1;
    int rc = sci_export_pages(dev(B), &run, 1, 0, 4096, 0, SCI_EXP_REMOTE, &seg);
    cr_assert_eq(rc, NIC_ERR_PROTECTION, "a guessed region key: %d", rc);
    cr_assert_eq(nic_mr_alloc(dev(B)->ep, 8192, NIC_MR_LOCAL_READ, &ro), NIC_OK);
    cr_assert_eq(sci_export_range(dev(B), &ro, 0, 8192, 0, SCI_EXP_REMOTE, &seg),
                 NIC_ERR_PROTECTION, "a region not open to remote writes");
    cr_assert_eq(stats(B).fw.up_used, 0);
}

Test(bridge, unexported_segment_takes_no_more_stores)
{
    nic_mr_t mr;
    sci_seg_t seg;
    sci_win_t win;
    uint64_t v = 5;

    export_import(&mr, 0, 4096, 4096, &seg, &win);
    cr_assert_eq(sci_unexport(dev(B), &seg), NIC_OK);
    cr_assert_eq(sci_store(dev(A), win.addr, &v, 8, 0, 0), NIC_OK);
    cr_assert_eq(bp_barrier(&bp, A), NIC_OK);
    cr_assert(all(mr.addr, 4096, 0));
    cr_assert_geq(stats(B).fw.rx_unmapped, 1);
}

/* ------------------------------------------------------------------ */
/* Ordering (T-NIC-11)                                                 */

enum { ORD_SLOTS = 128, ORD_DATA = 2048 };

/* Looks at every slot once: a flag that is set must come with all of its
 * data.  Returns how many slots showed their flag for the first time. */
static int scan_slots(const nic_mr_t *mr, int *seen)
{
    int fresh = 0;

    for (int s = 0; s < ORD_SLOTS; s++) {
        const uint8_t *at = (const uint8_t *)mr->addr + s * (ORD_DATA + 64);
        uint64_t f = atomic_load_explicit((const _Atomic uint64_t *)(at + ORD_DATA),
                                          memory_order_acquire);
        if (f == 0)
            continue;
        cr_assert_eq(f, (uint64_t)s + 1);
        cr_assert(all(at, ORD_DATA, (uint8_t)(s + 1)), "flag %d seen before its data", s + 1);
        if (!seen[s]) {
            seen[s] = 1;
            fresh++;
        }
    }
    return fresh;
}

Test(bridge, flag_never_visible_before_its_data)
{
    nic_mr_t mr;
    sci_seg_t seg;
    sci_win_t win;
    static uint8_t data[ORD_DATA];
    int seen[ORD_SLOTS] = { 0 }, nseen = 0;

    export_import(&mr, 0, ORD_SLOTS * (ORD_DATA + 64), ORD_SLOTS * (ORD_DATA + 64), &seg, &win);
    for (uint64_t k = 1; k <= ORD_SLOTS; k++) {
        uint64_t base = (k - 1) * (ORD_DATA + 64);
        memset(data, (int)k, ORD_DATA);
        while (sci_store(dev(A), win.addr + base, data, ORD_DATA, 0, 0) == NIC_ERR_NO_RESOURCE)
            ;
        while (sci_store(dev(A), win.addr + base + ORD_DATA, &k, 8, 0, 0) == NIC_ERR_NO_RESOURCE)
            ;
        nseen += scan_slots(&mr, seen);   /* look while the bridges are still writing */
    }
    /* and until every flag has shown up (how many did during the stores
     * depends on scheduling; each one is checked against its data) */
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do {
        nseen += scan_slots(&mr, seen);
        sched_yield();
        clock_gettime(CLOCK_MONOTONIC, &now);
    } while (nseen < ORD_SLOTS && now.tv_sec - t0.tv_sec < 10);
    cr_assert_eq(nseen, ORD_SLOTS, "only %d of %d flags became visible", nseen, ORD_SLOTS);
}

Test(bridge, barrier_completes_after_the_stores_are_visible)
{
    nic_mr_t mr;
    sci_seg_t seg;
    sci_win_t win;
    static uint8_t data[60000];

    export_import(&mr, 0, sizeof(data), sizeof(data), &seg, &win);
    for (int round = 1; round <= 5; round++) {
        memset(data, round, sizeof(data));
        cr_assert_eq(sci_store(dev(A), win.addr, data, sizeof(data), 0, 0), NIC_OK);
        cr_assert_eq(bp_barrier(&bp, A), NIC_OK);
        cr_assert(all(mr.addr, sizeof(data), (uint8_t)round), "round %d not all there", round);
    }
    cr_assert_eq(stats(A).ep.barriers, 5);
    cr_assert_eq(bp_barrier(&bp, B), NIC_OK, "a barrier with nothing stored completes");
}

/* ------------------------------------------------------------------ */
/* Protection: tags on DMA, checked on the initiator only (T-NIC-4)     */

typedef struct dma_setup {
    nic_mr_t  src, dst;
    sci_seg_t src_seg, dst_seg;
    sci_win_t win;
    uint32_t  ta, tb, tc;
} dma_setup_t;

/* A exports its source with tag ta and imports B's segment with import_tag;
 * B exported that segment under its own tag tc. */
static void dma_prepare(dma_setup_t *d, int import_with_tb)
{
    cr_assert_eq(sci_tag_alloc(dev(A), &d->ta), NIC_OK);
    cr_assert_eq(sci_tag_alloc(dev(A), &d->tb), NIC_OK);
    cr_assert_eq(sci_tag_alloc(dev(B), &d->tc), NIC_OK);
    cr_assert_neq(d->ta, d->tb);
    cr_assert_eq(bp_region(&bp, A, 65536, &d->src), NIC_OK);
    cr_assert_eq(bp_region(&bp, B, 65536, &d->dst), NIC_OK);
    memset(d->src.addr, 0x77, 65536);
    cr_assert_eq(sci_export_range(dev(A), &d->src, 0, 65536, d->ta, SCI_EXP_DMA, &d->src_seg),
                 NIC_OK);
    cr_assert_eq(sci_export_range(dev(B), &d->dst, 0, 65536, d->tc, SCI_EXP_REMOTE, &d->dst_seg),
                 NIC_OK);
    cr_assert_eq(sci_import(dev(A), sci_local_node(dev(B)), d->dst_seg.offset, 65536,
                            import_with_tb ? d->tb : d->ta, &d->win), NIC_OK);
}

static int dma(dma_setup_t *d, uint64_t len)
{
    sci_cqe_t c;
    cr_assert_eq(sci_post(dev(A), SCI_OP_DMA_WRITE, d->win.addr, d->src_seg.offset, len, 0, 9),
                 NIC_OK);
    cr_assert_eq(bp_cqe(&bp, A, &c, 5000), NIC_OK);
    cr_assert_eq(c.op, SCI_OP_DMA_WRITE);
    cr_assert_eq(c.cookie, 9);
    return c.status;
}

/* A DMA write of len bytes under A's context tag, completed and visible. */
static void dma_with_context_tag(dma_setup_t *d, uint64_t len)
{
    dma_prepare(d, 0);
    cr_assert_eq(sci_set_dma_tag(dev(A), d->ta), NIC_OK);
    cr_assert_eq(dma(d, len), NIC_OK, "the remote segment's own tag is not checked");
    cr_assert_eq(bp_barrier(&bp, A), NIC_OK);
    cr_assert(all(d->dst.addr, len, 0x77));
}

Test(bridge, dma_with_the_context_tag_moves_data)
{
    dma_setup_t d;
    dma_with_context_tag(&d, 40000);
    cr_assert(all((uint8_t *)d.dst.addr + 40000, 65536 - 40000, 0));
}

/* On a link of 1500 bytes a bridge fills its frames only as far as one
 * datagram carries: the wire cuts none of them (a frame in pieces would be
 * lost with any piece), and a DMA larger than many frames still lands. */
static void setup_small_mtu(void)
{
    setenv("MULTIDEV_NIC_MTU", "1500", 1);
    setup2();
    unsetenv("MULTIDEV_NIC_MTU");
}

TestSuite(small_mtu, .init = setup_small_mtu, .fini = teardown, .timeout = 30);

Test(small_mtu, frames_fit_one_datagram_and_a_large_dma_lands)
{
    dma_setup_t d;
    dma_with_context_tag(&d, 40000);
    char text[4096];
    cr_assert_eq(nic_host_status(bp.node[A].h, text, sizeof(text)), NIC_OK);
    cr_assert_not_null(strstr(text, "\nmtu 1500 "), "the firmware took the MTU: %s", text);
    cr_assert_eq(status_counter(A, "cut"), 0, "the wire cut none of A's frames");
    cr_assert_eq(status_counter(B, "cut"), 0, "nor B's");
    const char *tx = strstr(text, "\ntx ");
    cr_assert_not_null(tx);
    cr_assert_gt(strtol(tx + 4, NULL, 10), 40000 / 1424, "the DMA took many datagrams");
}

/* Stores of many frames each (across pages: packets of every size) land
 * whole on such a link, none clipped.  (The room a store asks of the
 * window counts at most a frame per packet when packets are as large as
 * frames; with fewer, MPI's order test across namespace hosts had stores
 * clipped, hosts.sh.) */
Test(small_mtu, a_store_of_many_frames_lands_whole)
{
    enum { LEN = 60000 };
    static uint8_t data[LEN];
    nic_mr_t mr;
    sci_seg_t seg;
    sci_win_t win;
    uint64_t flag = 9;

    export_import(&mr, 0, LEN + 4096, LEN + 4096, &seg, &win);
    for (int i = 0; i < LEN; i++)
        data[i] = (uint8_t)(i * 7 + 1);
    for (int k = 0; k < 8; k++) {
        int rc, tries = 0;
        /* a full transmit window: retry once the bridge made progress */
        while ((rc = sci_store(dev(A), win.addr + 24, data, LEN, 0, 0)) == NIC_ERR_NO_RESOURCE &&
               tries++ < 5000)
            usleep(1000);
        cr_assert_eq(rc, NIC_OK, "store %d", k);
    }
    cr_assert_eq(sci_store(dev(A), win.addr + LEN + 1024, &flag, 8, 0, 0), NIC_OK);
    cr_assert_eq(bp_until((uint8_t *)mr.addr + LEN + 1024, 9, 5000), NIC_OK);
    cr_assert(memcmp((uint8_t *)mr.addr + 24, data, LEN) == 0);
    cr_assert_eq(stats(A).ep.clipped, 0, "no store was clipped");
}

Test(bridge, dma_local_tag_mismatch_moves_nothing)
{
    dma_setup_t d;
    dma_prepare(&d, 0);
    cr_assert_eq(sci_set_dma_tag(dev(A), d.tb), NIC_OK);
    cr_assert_eq(dma(&d, 4096), NIC_ERR_PROTECTION);
    cr_assert_eq(bp_barrier(&bp, A), NIC_OK);
    cr_assert(all(d.dst.addr, 65536, 0));
    cr_assert_eq(stats(A).ep.protection, 1);
}

Test(bridge, dma_remote_tag_mismatch_moves_nothing)
{
    dma_setup_t d;
    dma_prepare(&d, 1);   /* the window carries tb */
    cr_assert_eq(sci_set_dma_tag(dev(A), d.ta), NIC_OK);
    cr_assert_eq(dma(&d, 4096), NIC_ERR_PROTECTION);
    cr_assert_eq(bp_barrier(&bp, A), NIC_OK);
    cr_assert(all(d.dst.addr, 65536, 0));
}

Test(bridge, dma_without_a_context_tag_is_refused)
{
    dma_setup_t d;
    dma_prepare(&d, 0);
    cr_assert_eq(dma(&d, 64), NIC_ERR_PROTECTION);
}

Test(bridge, pio_is_not_tag_checked)
{
    dma_setup_t d;
    uint64_t v = 0x1122334455667788ull;
    dma_prepare(&d, 1);   /* the window's tag is not the DMA context's */
    cr_assert_eq(sci_set_dma_tag(dev(A), d.ta), NIC_OK);
    cr_assert_eq(sci_store(dev(A), d.win.addr + 64, &v, 8, 0, 0), NIC_OK);
    cr_assert_eq(bp_until((uint8_t *)d.dst.addr + 64, v, 5000), NIC_OK);
}

Test(bridge, tags_of_another_process_cannot_be_used)
{
    uint32_t tc;
    nic_mr_t mr;
    sci_seg_t seg;
    cr_assert_eq(sci_tag_alloc(dev(B), &tc), NIC_OK);
    cr_assert_eq(sci_set_dma_tag(dev(A), tc), NIC_ERR_PROTECTION);
    cr_assert_eq(bp_region(&bp, A, 4096, &mr), NIC_OK);
    cr_assert_eq(sci_export_range(dev(A), &mr, 0, 4096, tc, SCI_EXP_DMA, &seg),
                 NIC_ERR_PROTECTION);
}

/* ------------------------------------------------------------------ */
/* Remote reads are counted                                            */

Test(bridge, remote_reads_are_counted_on_both_sides)
{
    nic_mr_t mr, local;
    sci_seg_t seg, lseg;
    sci_win_t win;
    sci_cqe_t c;

    export_import(&mr, 0, 16384, 16384, &seg, &win);
    memset(mr.addr, 0x3c, 16384);
    cr_assert_eq(bp_region(&bp, A, 16384, &local), NIC_OK);
    cr_assert_eq(sci_export_range(dev(A), &local, 0, 16384, 0, SCI_EXP_REMOTE, &lseg), NIC_OK);
    cr_assert_eq(stats(A).ep.remote_reads, 0);
    cr_assert_eq(sci_post(dev(A), SCI_OP_PIO_READ, win.addr + 100, lseg.offset, 12000, 0, 3),
                 NIC_OK);
    cr_assert_eq(bp_cqe(&bp, A, &c, 5000), NIC_OK);
    cr_assert_eq(c.status, NIC_OK);
    cr_assert_eq(c.len, 12000);
    cr_assert(all(local.addr, 12000, 0x3c));
    cr_assert(all((uint8_t *)local.addr + 12000, 4384, 0));
    cr_assert_eq(stats(A).ep.remote_reads, 1);
    cr_assert_eq(stats(B).ep.rx_reads_served, 1);
}

/* A bridge that was stalled itself (a stopped process, a paused VM) must
 * not time out a read for the time it did not run.  B's firmware is held
 * first, so that A's read stays unanswered; then A's firmware is held for
 * twice MULTIDEV_SCI_TIMEOUT_MS; A runs again before B does.  The read
 * must complete, with the data. */
Test(stall, a_stall_of_our_own_does_not_time_out_a_remote_read, .timeout = 30)
{
    nic_mr_t mr, local;
    sci_seg_t seg, lseg;
    sci_win_t win;
    sci_cqe_t c;
    struct timespec ms20 = { 0, 20 * 1000000 }, ms100 = { 0, 100 * 1000000 }, s2 = { 2, 0 };

    setenv("MULTIDEV_SCI_TIMEOUT_MS", "1000", 1);
    cr_assert_eq(bp_start(&bp, 2, NULL, NULL), NIC_OK);
    unsetenv("MULTIDEV_SCI_TIMEOUT_MS");
    export_import(&mr, 0, 16384, 16384, &seg, &win);
    memset(mr.addr, 0x5a, 16384);
    cr_assert_eq(bp_region(&bp, A, 16384, &local), NIC_OK);
    cr_assert_eq(sci_export_range(dev(A), &local, 0, 16384, 0, SCI_EXP_REMOTE, &lseg), NIC_OK);
    nic_fw_t *fa = nic_fw_thread_fw(bp.node[A].fw), *fb = nic_fw_thread_fw(bp.node[B].fw);

    pthread_mutex_lock(&fb->turn_lock);             /* B cannot answer */
    cr_assert_eq(sci_post(dev(A), SCI_OP_PIO_READ, win.addr, lseg.offset, 12000, 0, 4),
                 NIC_OK);
    nanosleep(&ms20, NULL);                         /* A sends the request */
    pthread_mutex_lock(&fa->turn_lock);             /* A stalls: 2 s */
    nanosleep(&s2, NULL);
    pthread_mutex_unlock(&fa->turn_lock);
    nanosleep(&ms100, NULL);                        /* A runs alone: 100 ms */
    pthread_mutex_unlock(&fb->turn_lock);
    cr_assert_eq(bp_cqe(&bp, A, &c, 5000), NIC_OK);
    cr_assert_eq(c.status, NIC_OK, "the read of a live bridge failed: %d", c.status);
    cr_assert_eq(c.len, 12000);
    cr_assert(all(local.addr, 12000, 0x5a));
    bp_stop(&bp);
}

/* A bridge whose firmware stops says BYE: a remote read and a store
 * barrier waiting on it fail at once, with NOT_FOUND, not after
 * MULTIDEV_SCI_TIMEOUT_MS (10 s here) as for a bridge that died.  A's
 * transmissions are dropped once the stream is open, so B can answer
 * neither request; then B stops. */
Test(gone, a_read_and_a_barrier_waiting_on_a_bridge_that_stops_fail_at_once, .timeout = 30)
{
    nic_mr_t mr, local;
    sci_seg_t seg, lseg;
    sci_win_t win;
    sci_cqe_t c[2];
    uint8_t data[64];
    struct timespec ms50 = { 0, 50 * 1000000 };

    cr_assert_eq(bp_start(&bp, 2, NULL, NULL), NIC_OK);
    export_import(&mr, 0, 16384, 16384, &seg, &win);
    cr_assert_eq(bp_region(&bp, A, 16384, &local), NIC_OK);
    cr_assert_eq(sci_export_range(dev(A), &local, 0, 16384, 0, SCI_EXP_REMOTE, &lseg), NIC_OK);
    memset(data, 1, sizeof(data));
    cr_assert_eq(sci_store(dev(A), win.addr, data, sizeof(data), 0, 0), NIC_OK);
    cr_assert_eq(bp_barrier(&bp, A), NIC_OK, "the stream to B works");

    nic_fw_t *fa = nic_fw_thread_fw(bp.node[A].fw);
    pthread_mutex_lock(&fa->turn_lock);
    nic_fw_wire(fa)->fault.drop = 1.0;              /* nothing of A's reaches B */
    pthread_mutex_unlock(&fa->turn_lock);
    cr_assert_eq(sci_post(dev(A), SCI_OP_PIO_READ, win.addr, lseg.offset, 4096, 0, 5), NIC_OK);
    cr_assert_eq(sci_store(dev(A), win.addr, data, sizeof(data), 0, 0), NIC_OK);
    cr_assert_eq(sci_post(dev(A), SCI_OP_BARRIER, 0, 0, 0, 0, 6), NIC_OK);
    nanosleep(&ms50, NULL);
    cr_assert_eq(bp_cqe(&bp, A, &c[0], 0), NIC_ERR_TIMEOUT, "answered although dropped");

    uint64_t t0 = nic_now_ns();
    nic_fw_thread_stop(bp.node[B].fw);
    bp.node[B].fw = NULL;
    for (int i = 0; i < 2; i++)
        cr_assert_eq(bp_cqe(&bp, A, &c[i], 5000), NIC_OK, "request %d still waits", i);
    uint64_t took = (nic_now_ns() - t0) / 1000;
    for (int i = 0; i < 2; i++) {
        cr_assert_eq(c[i].status, NIC_ERR_NOT_FOUND, "cookie %llu: status %d",
                     (unsigned long long)c[i].cookie, c[i].status);
        cr_assert_eq(c[i].op, c[i].cookie == 5 ? SCI_OP_PIO_READ : SCI_OP_BARRIER);
    }
    cr_assert_neq(c[0].cookie, c[1].cookie);
    cr_assert_lt(took, 2000000, "failed only after %llu us", (unsigned long long)took);
    bp_stop(&bp);
}

/* ------------------------------------------------------------------ */
/* Job isolation, interrupts, manual packets (T-NIC-10)                */

Test(bridge, stores_of_another_job_are_dropped)
{
    nic_mr_t mr;
    sci_seg_t seg;
    sci_win_t win;
    sci_dev_t *other;
    uint64_t v = 1;

    sci_dev_t *other_b;

    export_import(&mr, 0, 4096, 4096, &seg, &win);
    cr_assert_eq(sci_open(bp.node[A].h, test_jobp(777), 64, 64, &other), NIC_OK);
    /* Job 777 has an endpoint on B too, so its frames pass B's wire: the
     * bridge itself must refuse a store into job 1's segment. */
    cr_assert_eq(sci_open(bp.node[B].h, test_jobp(777), 64, 64, &other_b), NIC_OK);
    sci_win_t w2;
    cr_assert_eq(sci_import(other, sci_local_node(dev(B)), seg.offset, 4096, 0, &w2), NIC_OK);
    cr_assert_eq(sci_store(other, w2.addr, &v, 8, 0, 0), NIC_OK);
    cr_assert_eq(sci_store(dev(A), win.addr + 8, &v, 8, 0, 0), NIC_OK);
    cr_assert_eq(bp_until((uint8_t *)mr.addr + 8, 1, 5000), NIC_OK);
    cr_assert_eq(*(uint64_t *)mr.addr, 0, "the other job's store was dropped");
    cr_assert_eq(stats(B).fw.rx_foreign_job, 1);
    /* Without an endpoint of job 777 on B, its frames do not even get past
     * B's wire (no key): nothing lands, the bridge sees nothing. */
    sci_close(other_b);
    v = 2;
    cr_assert_eq(sci_store(other, w2.addr, &v, 8, 0, 0), NIC_OK);
    cr_assert_eq(sci_store(dev(A), win.addr + 8, &v, 8, 0, 0), NIC_OK);
    cr_assert_eq(bp_until((uint8_t *)mr.addr + 8, 2, 5000), NIC_OK);
    cr_assert_eq(*(uint64_t *)mr.addr, 0, "the other job's store was dropped");
    cr_assert_eq(stats(B).fw.rx_foreign_job, 1);
    sci_close(other);
}

Test(bridge, remote_interrupt_reaches_its_creator)
{
    uint32_t no;
    sci_cqe_t c;

    cr_assert_eq(sci_intr_create(dev(B), &no), NIC_OK);
    cr_assert_eq(sci_post(dev(A), SCI_OP_INTR, sci_node_pack(sci_local_node(dev(B))),
                          no | (uint64_t)1234 << 32, 0, 0, 0), NIC_OK);
    cr_assert_eq(bp_cqe(&bp, B, &c, 5000), NIC_OK);
    cr_assert_eq(c.kind, SCI_CQ_INTR);
    cr_assert_eq(c.intr_no, no);
    cr_assert_eq(c.intr_data, 1234);
    cr_assert_eq(c.from, sci_node_pack(sci_local_node(dev(A))));
    /* a number nobody created raises nothing */
    cr_assert_eq(sci_post(dev(A), SCI_OP_INTR, sci_node_pack(sci_local_node(dev(B))), no + 1,
                          0, 0, 0), NIC_OK);
    cr_assert_eq(bp_barrier(&bp, A), NIC_OK);
    cr_assert_eq(bp_cqe(&bp, B, &c, 100), NIC_ERR_TIMEOUT);
    cr_assert_eq(stats(B).ep.rx_intr, 1);
}

Test(bridge, manual_packet_is_taken_as_an_automatic_one)
{
    nic_mr_t mr;
    sci_seg_t seg;
    sci_win_t win;
    struct {
        sci_pkt_hdr_t h;
        uint8_t       data[104];
    } pkt;
    sci_cqe_t c;

    export_import(&mr, 0, 8192, 8192, &seg, &win);
    sci_stats_t before = stats(B);
    memset(&pkt, 0, sizeof(pkt));
    pkt.h.cmd = SCI_CMD_WRITE;
    pkt.h.len = 100;
    pkt.h.addr = seg.offset + 50;      /* a global SCI address: node + offset */
    pkt.h.job_key = 0xdead;            /* the bridge puts its endpoint's own */
    memset(pkt.data, 0xe1, 100);
    cr_assert_eq(sci_manual(dev(A), sci_local_node(dev(B)), &pkt, sizeof(pkt), 0, 0), NIC_OK);
    cr_assert_eq(bp_barrier(&bp, A), NIC_OK);
    cr_assert(all((uint8_t *)mr.addr + 50, 100, 0xe1));
    cr_assert(all(mr.addr, 50, 0));
    sci_stats_t after = stats(B);
    cr_assert_eq(after.ep.rx_writes, before.ep.rx_writes + 1, "counted as an ordinary write");
    cr_assert_eq(stats(A).ep.manual_sent, 1);
    cr_assert_eq(stats(A).ep.stores, 0, "the bridge made no packet of its own");
    /* a packet the receiver could not take is refused at the sender */
    pkt.h.cmd = SCI_CMD_READ_RESP;
    cr_assert_eq(sci_manual(dev(A), sci_local_node(dev(B)), &pkt, sizeof(pkt), 0, 5), NIC_OK);
    cr_assert_eq(bp_cqe(&bp, A, &c, 5000), NIC_OK);
    cr_assert_eq(c.status, NIC_ERR_INVALID);
}

/* ------------------------------------------------------------------ */
/* Loss, duplication, reordering and corruption on the wire: the stream
 * under the bridges delivers every store once and in order. */

static void setup_faults(void)
{
    nic_fault_t f = { .drop = 0.05, .dup = 0.05, .reorder = 0.05, .corrupt = 0.05, .seed = 7 };
    setenv("MULTIDEV_SCI_RTO_US", "2000", 1);
    cr_assert_eq(bp_start(&bp, 2, NULL, &f), NIC_OK);
}

TestSuite(faults, .init = setup_faults, .fini = teardown, .timeout = 60);

Test(faults, every_store_once_and_in_order)
{
    enum { N = 600, BLOCK = 3000 };
    nic_mr_t mr;
    sci_seg_t seg;
    sci_win_t win;
    static uint8_t block[BLOCK];
    uint64_t size = 8 + (uint64_t)N * 8 + BLOCK;

    cr_assert_eq(bp_region(&bp, B, size, &mr), NIC_OK);
    cr_assert_eq(sci_export_range(dev(B), &mr, 0, size, 0, SCI_EXP_REMOTE, &seg), NIC_OK);
    cr_assert_eq(sci_import(dev(A), sci_local_node(dev(B)), seg.offset, size, 0, &win), NIC_OK);
    const uint8_t *m = mr.addr;
    for (uint64_t k = 1; k <= N; k++) {
        /* a block that later stores overwrite, a log entry, then the flag */
        memset(block, (int)k, BLOCK);
        while (sci_store(dev(A), win.addr + 8 + N * 8, block, BLOCK, 0, 0) == NIC_ERR_NO_RESOURCE)
            ;
        while (sci_store(dev(A), win.addr + 8 + (k - 1) * 8, &k, 8, 0, 0) == NIC_ERR_NO_RESOURCE)
            ;
        while (sci_store(dev(A), win.addr, &k, 8, 0, 0) == NIC_ERR_NO_RESOURCE)
            ;
        uint64_t f = atomic_load_explicit((const _Atomic uint64_t *)m, memory_order_acquire);
        for (uint64_t i = 1; i <= f; i++)
            cr_assert_eq(((const uint64_t *)(m + 8))[i - 1], i, "flag %llu before log %llu",
                         (unsigned long long)f, (unsigned long long)i);
    }
    cr_assert_eq(bp_until(m, N, 30000), NIC_OK);
    for (uint64_t i = 1; i <= N; i++)
        cr_assert_eq(((const uint64_t *)(m + 8))[i - 1], i);
    cr_assert(all(m + 8 + N * 8, BLOCK, (uint8_t)N), "the last block is the last one written");
    cr_assert_eq(bp_barrier(&bp, A), NIC_OK);
    sci_stats_t s = stats(A);
    cr_assert_gt(s.fw.retransmits, 0, "the faults were real");
    cr_assert_gt(status_counter(B, "badmac"), 0, "corrupted frames were dropped by the wire");
}
