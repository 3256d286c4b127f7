/* myri_timing.c - the timing profiles.
 *
 * hplam, from P2 (Krumbein, HP-LAM, 1996):
 *   PIO write to NIC SRAM       183 ns   Table 4.1 ("local memory", write)
 *   PIO read from NIC SRAM      691 ns   Table 4.1 ("local memory", read)
 *   page-map register write     183 ns   Table 4.1 (glue chip, write): one per
 *                                        queue-entry access (P2 §4.1)
 *   queue entry                 8 words  P2 §4.1
 *   host main-memory access     20 ns    Table 4.1; copies move 8-byte words
 *                                        (PA-7200 floating-point loads/stores:
 *                                        our assumption)
 *   link                        80 MB/s  P2 §1 (each direction)
 *   host DMA (GSC+)             160 MB/s P2 §4.1, the bus's nominal rate
 *   LCP work per packet         100 LANai cycles per thread at 40 MHz
 *                               (clock: P2 §4.2; the cycle count is our
 *                               assumption: P2 gives none)
 *   switch                      0 ns     (P2 gives no switch latency)
 */
#include "config.h"

#include <string.h>

#include "myri_timing.h"

int myri_timing_profile(const char *name, myri_timing_t *t, myri_host_timing_t *ht)
{
    if (name == NULL || strcmp(name, "hplam") != 0)
        return -1;
    if (t != NULL) {
        memset(t, 0, sizeof(*t));
        t->enabled = 1;
        t->link_MBps = 80;
        t->lanai_ns_per_pkt_send = 100 * 25;   /* 100 cycles of 25 ns */
        t->lanai_ns_per_pkt_recv = 100 * 25;
        t->switch_ns = 0;
        t->dma_MBps = 160;
        t->dma_ns_per_burst = 0;
    }
    if (ht != NULL) {
        memset(ht, 0, sizeof(*ht));
        ht->pio_write_ns = 183;
        ht->pio_read_ns = 691;
        ht->pagemap_ns = 183;
        ht->mem_ns = 20;
        ht->mem_word = 8;
        ht->entry_words = 8;
    }
    return 0;
}
