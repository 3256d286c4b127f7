/* via_fw_dma.c - the VI NIC's "DMA" into host memory.  A registration of
 * memory the host shares with the NIC (a core region) is reached with
 * memcpy; any other registered range of the owning process with
 * process_vm_readv/writev (cross-memory attach), which needs the firmware
 * to be allowed to trace the process (same user; Yama ptrace_scope 0, or
 * the host's prctl(PR_SET_PTRACER) naming the firmware).  Every caller
 * has checked the range against the TPT first. */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/uio.h>

#include "../core/nic_log.h"
#include "via_fw.h"

static int dma_cma(via_fw_t *v, pid_t pid, uint64_t va, void *local, size_t len, int write)
{
    size_t done = 0;

    while (done < len) {
        struct iovec l = { (uint8_t *)local + done, len - done };
        struct iovec r = { (void *)(uintptr_t)(va + done), len - done };
        ssize_t n = write ? process_vm_writev(pid, &l, 1, &r, 1, 0)
                          : process_vm_readv(pid, &l, 1, &r, 1, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            v->c.dma_errors++;
            if (!v->cma_warned) {
                v->cma_warned = 1;
                nic_log_warn("DMA %s process %d failed: %s (cross-memory attach needs the "
                             "firmware to be allowed to trace the process)",
                             write ? "into" : "from", (int)pid, n < 0 ? strerror(errno) : "short");
            }
            return NIC_ERR_IO;
        }
        done += (size_t)n;
    }
    return NIC_OK;
}

int via_dma_read(via_fw_t *v, const via_tpt_entry_t *e, uint64_t va, void *dst, size_t len)
{
    if (len == 0)
        return NIC_OK;
    if (e->map != NULL) {
        memcpy(dst, e->map + (va - e->va), len);
        return NIC_OK;
    }
    return dma_cma(v, e->pid, va, dst, len, 0);
}

int via_dma_write(via_fw_t *v, const via_tpt_entry_t *e, uint64_t va, const void *src, size_t len)
{
    if (len == 0)
        return NIC_OK;
    if (e->map != NULL) {
        memcpy(e->map + (va - e->va), src, len);
        return NIC_OK;
    }
    return dma_cma(v, e->pid, va, (void *)src, len, 1);
}

/* Walk the data segments from byte off, calling the engine on each piece. */
static int dma_segments(via_fw_t *v, const via_work_t *w, uint32_t ptag, uint64_t off,
                        uint8_t *buf, size_t len, int write)
{
    for (unsigned i = 0; i < w->nsegs && len > 0; i++) {
        const via_seg_ref_t *s = &w->seg[i];
        uint32_t status;
        if (off >= s->len) {
            off -= s->len;
            continue;
        }
        size_t n = s->len - off < len ? (size_t)(s->len - off) : len;
        /* Checked again: the host may have deregistered meanwhile. */
        via_tpt_entry_t *e = via_tpt_check(v, s->handle, s->va + off, n, ptag, 0, &status);
        int rc;
        if (e == NULL)
            return NIC_ERR_PROTECTION;
        rc = write ? via_dma_write(v, e, s->va + off, buf, n) : via_dma_read(v, e, s->va + off, buf, n);
        if (rc != NIC_OK)
            return rc;
        buf += n;
        len -= n;
        off = 0;
    }
    return len == 0 ? NIC_OK : NIC_ERR_INVALID;
}

int via_dma_gather(via_fw_t *v, const via_work_t *w, uint32_t ptag, uint64_t off, void *dst,
                   size_t len)
{
    return dma_segments(v, w, ptag, off, dst, len, 0);
}

int via_dma_scatter(via_fw_t *v, const via_work_t *w, uint32_t ptag, uint64_t off,
                    const void *src, size_t len)
{
    return dma_segments(v, w, ptag, off, (uint8_t *)src, len, 1);
}
