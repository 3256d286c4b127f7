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
                nic_log_warn(nic_fw_log(v->fw), "DMA %s process %d failed: %s (cross-memory "
                             "attach needs the firmware to be allowed to trace the process)",
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
    int gone;
    uint8_t *map;

    if (len == 0)
        return NIC_OK;
    if ((map = via_tpt_map(v, e, &gone)) != NULL) {
        memcpy(dst, map + (va - e->va), len);
        return NIC_OK;
    }
    return gone ? NIC_ERR_PROTECTION : dma_cma(v, e->pid, va, dst, len, 0);
}

int via_dma_write(via_fw_t *v, const via_tpt_entry_t *e, uint64_t va, const void *src, size_t len)
{
    int gone;
    uint8_t *map;

    if (len == 0)
        return NIC_OK;
    if ((map = via_tpt_map(v, e, &gone)) != NULL) {
        memcpy(map + (va - e->va), src, len);
        return NIC_OK;
    }
    return gone ? NIC_ERR_PROTECTION : dma_cma(v, e->pid, va, (void *)src, len, 1);
}

void via_dma_flush(via_fw_t *v)
{
    via_wcomb_t *wc = &v->wc;

    if (wc->n == 0)
        return;
    struct iovec r = { (void *)(uintptr_t)wc->va, wc->len };
    ssize_t put = process_vm_writev(wc->pid, wc->local, wc->n, &r, 1, 0);
    if (put != (ssize_t)wc->len) {
        /* only if the process unmapped memory it had registered */
        v->c.dma_errors++;
        nic_log_warn(nic_fw_log(v->fw), "RDMA write of %llu bytes into process %d failed: %s",
                     (unsigned long long)wc->len, (int)wc->pid,
                     put < 0 ? strerror(errno) : "short");
    }
    wc->n = 0;
    wc->len = 0;
}

int via_dma_write_frame(via_fw_t *v, const via_tpt_entry_t *e, uint64_t va, const uint8_t *src,
                        size_t len)
{
    via_wcomb_t *wc = &v->wc;
    const nic_wire_t *w = nic_fw_wire(v->fw);

    if (len == 0)
        return NIC_OK;
    /* Only payloads in the wire's receive buffers can wait (not the timing
     * model's delay queue, nor shared memory). */
    if (e->core_key != 0 || v->timing.enabled || !nic_wire_rx_holds(w, src))
        return via_dma_write(v, e, va, src, len);
    if (wc->n > 0 && (wc->pid != e->pid || wc->va + wc->len != va || wc->n == VIA_WC_MAX))
        via_dma_flush(v);
    if (wc->n == 0) {
        wc->pid = e->pid;
        wc->va = va;
    }
    wc->local[wc->n].iov_base = (void *)src;
    wc->local[wc->n].iov_len = len;
    wc->n++;
    wc->len += len;
    return NIC_OK;
}

int via_dma_read_scatter(via_fw_t *v, const via_tpt_entry_t *e, uint64_t va,
                         const struct iovec *local, unsigned n)
{
    size_t total = 0;

    int gone;
    uint8_t *map;

    for (unsigned i = 0; i < n; i++)
        total += local[i].iov_len;
    if ((map = via_tpt_map(v, e, &gone)) != NULL || gone) {
        if (gone)
            return NIC_ERR_PROTECTION;
        const uint8_t *src = map + (va - e->va);
        for (unsigned i = 0; i < n; i++) {
            memcpy(local[i].iov_base, src, local[i].iov_len);
            src += local[i].iov_len;
        }
        return NIC_OK;
    }
    struct iovec r = { (void *)(uintptr_t)va, total };
    ssize_t got = process_vm_readv(e->pid, local, n, &r, 1, 0);
    if (got == (ssize_t)total)
        return NIC_OK;
    v->c.dma_errors += got < 0;
    return NIC_ERR_IO;                  /* the caller takes the slow path */
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
