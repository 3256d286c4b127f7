/* via_timing.c - timing profiles of the emulated VI NIC: component costs
 * only.  End-to-end figures (half round trip, bandwidth) are what the
 * benchmark measures and compares with the papers; they are not here.
 *
 * lanai7 - the Berkeley VI firmware on Myrinet LANai 7 (P4, seed 004):
 *   link               80 MB/s  "Myrinet links are full-duplex ... capable
 *                               of carrying 80 MB/sec of bandwidth in each
 *                               direction" (P2 [L144]), the only Myrinet
 *                               link rate the papers give; P4 gives none.
 *                               Background knowledge says the LANai 7's
 *                               Myrinet-1280 links carried twice that; until
 *                               2026-11-26 we took 160 MB/s from it, and the
 *                               raw VI stream came out link-bound at 2.3x
 *                               P4's 68.3 MB/s.
 *   packet payload    4096 B    NativeMTU (seed 002-004 §5.3; P4 fn. 2)
 *   switch            300 ns    cut-through crossbar ([BG]; P2 gives none)
 *   DMA set-up        2500 ns   "a null DMA transaction requires 2-3 usec"
 *                               (P4 §7.1)
 *   DMA rate          264 MB/s  the host's 64-bit/33 MHz PCI bus (P4's
 *                               LANai 7 hosts, P4 [L87], seed 002-004 §3.6): the
 *                               papers give no rate for the LANai 7's DMA
 *                               engine, so we take the bus's (an upper
 *                               bound).  Was 82 MB/s, set from P4 Table 1's
 *                               streaming throughput, the figure the model
 *                               is to reproduce.
 *   NIC recv work     7000 ns   P4 Table 5: a short receive occupies the
 *                               NIC 14.5 us; minus its three DMAs
 *                               (descriptor, data, status: 3 x 2.5 us)
 *   NIC send work     7000 ns   the same: P4 derives the 14.5 us from the
 *                               one-sided VI stream of 32 B messages (2.2
 *                               MB/s) "assuming a receive occupies the same
 *                               interface time as a send" (P4 [L302]); a send
 *                               also fetches its descriptor, reads its data
 *                               and writes its Status.  Until 2026-11-26 it
 *                               was 4000 ns, an assumption, and a send wrote
 *                               no Status.
 *   descriptors and status by DMA, completion queue in NIC SRAM (P4 §7.1)
 *   host: VipPostSend 0.3 us, VipSendDone/RecvDone 0.3 us, VipCQDone 1.0 us
 *         (derived from P4 Tables 3-4 with 2 us = 44 %, seed 002-004 §3.8);
 *         blocking wake-up 10 us (assumption for the 550 MHz Xeons of P4:
 *         interrupt + scheduler; compare clan's, from seed 001);
 *         registration 5.3 us + 1.43 us per 4 kB page, deregistration
 *         3.1 us + 0.41 us per page (P8 Table 1, linear fit, seed-000 §3.6)
 *
 * clan - Giganet cLAN 1000 under MPI/Pro (P6, seed 000): a VI NIC in
 * hardware (no firmware processor), 32-bit/33 MHz PCI hosts (PIII 450):
 *   link              125 MB/s  1 Gbit/s of data on the 1.25 Gbaud link
 *   packet payload    4096 B    (assumption)
 *   switch            300 ns    cLAN5000 ([BG])
 *   DMA set-up        1000 ns   (assumption: hardware DMA engine)
 *   DMA rate          100 MB/s  32-bit/33 MHz PCI (132 MB/s peak) as
 *                               "approx. 100 MBytes/s" (P2 §VII)
 *   NIC work          500 ns per packet each way (assumption: ASIC)
 *   host: as lanai7 but blocking wake-up 25 us: the interrupt service
 *         routine starts 4 us after the NIC's interrupt and the blocked
 *         process runs 21 us after the wake-up (seed 001 Table 2.4: 233 MHz
 *         Pentium, Linux 2.0, the nearest machine to P6's PIII 450 under
 *         Linux the papers measured; 180 MHz Pentium Pro: 4 + 24 us; we
 *         read the two as consecutive).  P6 blames part of MPI/Pro's 65 us
 *         on its blocking completion mode.  (Was 20 us, unsourced.)
 */
#include "config.h"

#include <string.h>

#include "via_wire.h"

int via_timing_profile(const char *name, via_timing_t *t, via_host_timing_t *ht)
{
    via_timing_t tt;
    via_host_timing_t hh;

    if (name == NULL)
        return -1;
    memset(&tt, 0, sizeof(tt));
    memset(&hh, 0, sizeof(hh));
    tt.enabled = 1;
    tt.desc_dma = 1;
    tt.status_dma = 1;
    hh.doorbell_ns = 300;
    hh.done_ns = 300;
    hh.cq_done_ns = 1000;
    hh.reg_base_ns = 5300;
    hh.reg_page_ns = 1430;
    hh.dereg_base_ns = 3100;
    hh.dereg_page_ns = 410;
    if (strcmp(name, "lanai7") == 0) {
        tt.link_MBps = 80;
        tt.mtu = 4096;
        tt.switch_ns = 300;
        tt.dma_MBps = 264;
        tt.dma_setup_ns = 2500;
        tt.nic_send_ns = 7000;
        tt.nic_recv_ns = 7000;
        hh.wake_ns = 10000;
    } else if (strcmp(name, "clan") == 0) {
        tt.link_MBps = 125;
        tt.mtu = 4096;
        tt.switch_ns = 300;
        tt.dma_MBps = 100;
        tt.dma_setup_ns = 1000;
        tt.nic_send_ns = 500;
        tt.nic_recv_ns = 500;
        hh.wake_ns = 25000;
    } else {
        return -1;
    }
    if (t != NULL)
        *t = tt;
    if (ht != NULL)
        *ht = hh;
    return 0;
}
