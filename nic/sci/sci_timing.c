/* sci_timing.c - the timing profiles.
 *
 * d310: the Dolphin D310 PCI-SCI bridge in a 450 MHz Pentium III (the
 * testbed of P6, seed 000), component costs only:
 *
 *   PIO write                 780 ns per 64-byte transaction: shared-memory
 *                             write bandwidth 82 MB/s "over all message
 *                             sizes starting at 64 Bytes" (P2 §II.A)
 *   SCI link                  500 MB/s each way: LC-2 at 125 MHz, 1 GB/s
 *                             duplex (P2 §V.F)
 *   link bytes/transaction    90: a 64-byte write request (16-byte header,
 *                             64 data, 2 CRC) and its 8-byte echo (IEEE
 *                             1596 packet formats; our reading, the seed
 *                             gives none)
 *   bridge, per packet        670 ns in each bridge: Dolphin's remote store
 *                             latency of 2.3 us (P3 §7, P7 §3) less one PIO
 *                             transaction (780 ns) and its link time
 *                             (180 ns), split between the two bridges
 *   DMA engine                50 MB/s: the D310's DMA maximum (P2 §II.A)
 *   DMA set-up                2 us per descriptor: our assumption (the
 *                             seed gives none; P2 assumes user-level DMA)
 *   MPI software              3 us per message, the host CPU busy: "the
 *                             lowest raw latencies we could measure on SCI
 *                             shared memory were about 5 us, i.e. MPI
 *                             imposes an overhead of 3 us for very small
 *                             messages" (P6 §III.C, ScaMPI on the PIII
 *                             450); charged at the sender, before the
 *                             message's stores (P6 does not split it).
 *                             Until 2026-11-26 the model had none, and
 *                             SCI's MPI latency was the bridge's alone
 *                             (4.6 us in the model's arithmetic).
 *   receiver's copy           209 MB/s: what a message's data costs the
 *                             receiving CPU to copy out of its SCI memory
 *                             (ScaMPI's eager buffer, the transport's
 *                             staging chunks).  P4 (seed 004, Table 5)
 *                             measured 4 us for copying a 1 KB message on
 *                             a 550 MHz Pentium III (1024 B / 4 us = 256
 *                             MB/s); a copy that fits in the cache is
 *                             bound by the CPU's clock, so on the 450 MHz
 *                             PIII of P6: 256 x 450 / 550 = 209 MB/s (our
 *                             scaling).  Until 2026-11-28 the model had
 *                             none: the eager curve rose to the PIO rate
 *                             (81 MB/s at 16 KB, 1.75x VIA there).
 *
 * With PIO (82 MB/s) faster than this DMA engine (50 MB/s), subdev-sci's
 * transport protocol stores its chunks by PIO (sci_pio_beats_dma,
 * MULTIDEV_SCI_TRANSPORT=auto): ScaMPI reached about 76 MB/s at 4 MB (P6
 * §IV.A.2), more than the D310's DMA engine gives, so it did not use it.
 */
#include "config.h"

#include <string.h>

#include "sci_timing.h"

int sci_timing_profile(const char *name, sci_timing_t *t)
{
    if (name == NULL || strcmp(name, "d310") != 0)
        return -1;
    if (t != NULL) {
        memset(t, 0, sizeof(*t));
        t->enabled = 1;
        t->pio_ns_per_txn = 780;
        t->link_MBps = 500;
        t->txn_wire_bytes = 90;
        t->bridge_ns = 670;
        t->dma_setup_ns = 2000;
        t->dma_MBps = 50;
        t->msg_sw_ns = 3000;
        t->copy_MBps = 209;
    }
    return 0;
}
