/*
 * sci_host.h - the host side of the emulated PCI-SCI bridge: what a
 * subdevice (or a test) links.  A SISCI-like interface.
 *
 * Slow path (a control call to the firmware each): protection tags,
 * export of local memory (upstream ATT), import of remote segments
 * (downstream ATT), remote interrupts, counters, the timing model.
 *
 * Fast path (no system call): sci_store writes into the mapped transmit
 * window (the endpoint's send queue, 64-byte entries) and rings the
 * doorbell; the bridge drains it in 64-byte SCI transactions.  Stores to
 * one remote bridge become visible there in the order they were issued; a
 * store's own bytes in no particular order (so write data, then the flag
 * that announces it, as two stores).  sci_post issues DMA, reads, barriers
 * and interrupts; sci_poll reads completions.
 *
 * One thread at a time per sci_dev_t (the caller's lock).
 */
#ifndef SCI_HOST_H
#define SCI_HOST_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "../core/nic_host.h"
#include "sci_wire.h"

typedef struct sci_dev {
    nic_host_t   *nic;        /* not owned */
    nic_ep_t     *ep;
    sci_timing_t  timing;     /* host-side costs (PIO writes) */
    uint64_t      pio_until;  /* timing: the CPU's PIO writes end then */
} sci_dev_t;

/* An exported segment: remote bridges reach it at offset. */
typedef struct sci_seg { uint64_t offset, size; } sci_seg_t;
/* An imported segment: its bytes are downstream addresses addr + [0, size). */
typedef struct sci_win { uint64_t addr, size; } sci_win_t;

int  sci_open(nic_host_t *nic, const nic_job_t *job, uint32_t sq_entries, uint32_t cq_entries,
              sci_dev_t **dev_p);
void sci_close(sci_dev_t *dev);
/* This bridge's node id (its wire address). */
sci_node_t sci_local_node(const sci_dev_t *dev);

int  sci_tag_alloc(sci_dev_t *dev, uint32_t *tag);
/* The DMA context tag: DMA may only touch entries carrying it. */
int  sci_set_dma_tag(sci_dev_t *dev, uint32_t tag);

/* Export pages (any pages of registered regions, in segment order); the
 * segment starts first_off bytes into the first page. */
int  sci_export_pages(sci_dev_t *dev, const sci_page_run_t *runs, uint32_t nruns,
                      uint32_t first_off, uint64_t size, uint32_t tag, uint32_t flags,
                      sci_seg_t *seg);
/* Export bytes [off, off + len) of a region (any alignment). */
int  sci_export_range(sci_dev_t *dev, const nic_mr_t *mr, uint64_t off, uint64_t len,
                      uint32_t tag, uint32_t flags, sci_seg_t *seg);
int  sci_unexport(sci_dev_t *dev, const sci_seg_t *seg);
int  sci_import(sci_dev_t *dev, sci_node_t node, uint64_t remote_off, uint64_t size,
                uint32_t tag, sci_win_t *win);
int  sci_unimport(sci_dev_t *dev, const sci_win_t *win);
int  sci_intr_create(sci_dev_t *dev, uint32_t *no);
int  sci_intr_remove(sci_dev_t *dev, uint32_t no);
int  sci_stats(sci_dev_t *dev, sci_stats_t *st);
/* Timing model of the bridge and of this host's PIO (enabled 0: off). */
int  sci_set_timing(sci_dev_t *dev, const sci_timing_t *t);

/* --- fast path --- */

/* Store the bytes of iov (concatenated) at downstream address addr.
 * NIC_ERR_NO_RESOURCE: the transmit window is full, retry after progress.
 * flags SCI_SQF_COMPLETE asks for a CQE (cookie) on success too; a store
 * beyond its window completes with NIC_ERR_INVALID (clipped). */
int  sci_storev(sci_dev_t *dev, uint64_t addr, const struct iovec *iov, int iovcnt,
                uint32_t flags, uint64_t cookie);
int  sci_store(sci_dev_t *dev, uint64_t addr, const void *src, uint32_t len, uint32_t flags,
               uint64_t cookie);
/* One request entry: SCI_OP_BARRIER, SCI_OP_DMA_WRITE / DMA_READ /
 * PIO_READ (addr downstream, local upstream), SCI_OP_INTR (addr =
 * sci_node_pack, local = number | data << 32). */
int  sci_post(sci_dev_t *dev, uint32_t op, uint64_t addr, uint64_t local, uint64_t len,
              uint32_t flags, uint64_t cookie);
/* A hand-built packet (sci_pkt_hdr_t and its data) to node. */
int  sci_manual(sci_dev_t *dev, sci_node_t node, const void *pkt, uint32_t len,
                uint32_t flags, uint64_t cookie);
/* Timing model: the CPU is busy with the PIO writes of its stores.  A
 * store is stamped with when its last write ends (each store's writes begin
 * when the previous store's end) and handed to the bridge at once; the CPU
 * time is owed, not spent, up to SCI_PIO_OWED_NS (a store that would owe
 * more waits inside the call).  sci_pio_settle pays what is owed: it waits
 * until the writes end, lending the wait to an in-process firmware (its
 * turns send the stores meanwhile).  Call it before anything that depends
 * on the CPU having finished (the host's next poll of its memory for an
 * answer); every other request (DMA, barrier, reads, interrupts) settles
 * first itself. */
#define SCI_PIO_OWED_NS 20000u
void sci_pio_settle(sci_dev_t *dev);
/* Timing model: the CPU runs the MPI library's software for one message
 * (msg_sw_ns) before the stores that follow, owed as PIO time is. */
void sci_cpu_software(sci_dev_t *dev);
/* Timing model: the CPU copies n bytes out of its SCI memory (the eager
 * ring, a transport's staging chunk) at copy_MBps, owed the same way. */
void sci_cpu_copy(sci_dev_t *dev, uint64_t n);
/* Timing model: the bridge's PIO writes are faster than its DMA engine, so
 * an MPI library on it moves long messages by PIO too (as ScaMPI did, P6). */
int  sci_pio_beats_dma(const sci_dev_t *dev);
/* Entries free in the transmit window. */
uint32_t sci_window_space(sci_dev_t *dev);
/* 1 and *c: a completion; 0: none; < 0: the firmware is gone. */
int  sci_poll(sci_dev_t *dev, sci_cqe_t *c);

#endif /* SCI_HOST_H */
