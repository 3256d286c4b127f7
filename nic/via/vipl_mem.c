/* vipl_mem.c - memory registration (VipRegisterMem): pin the pages with
 * the LMM (lock counts over mlock), then enter the range into the NIC's
 * TPT under a protection tag with its RDMA enables.  Deregistration undoes
 * both; the pages stay pinned while another registration covers them.
 * Memory from vipl_alloc_mem is shared with the NIC, which then reaches it
 * without a system call. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vipl_impl.h"

vipl_reg_t *vipl_reg_find(vipl_nic_t *nic, uint32_t handle)
{
    vipl_reg_t *r = &nic->regs[handle & (VIA_TPT_MAX - 1)];
    return handle != 0 && r->handle == handle ? r : NULL;
}

static int reg_record(vipl_nic_t *nic, uint32_t handle, uint64_t va, uint64_t len)
{
    nic->regs[handle & (VIA_TPT_MAX - 1)] = (vipl_reg_t){ handle, va, len };
    return 0;
}

/* The shared region holding [va, va+len), if any. */
static vipl_shared_t *shared_of(vipl_nic_t *nic, uint64_t va, uint64_t len)
{
    for (unsigned i = 0; i < VIPL_MAX_SHARED; i++) {
        vipl_shared_t *s = &nic->shared[i];
        uint64_t base = (uint64_t)(uintptr_t)s->mr.addr;
        if (s->mr.addr != NULL && va >= base && len <= s->mr.size && va - base <= s->mr.size - len)
            return s;
    }
    return NULL;
}

static uint64_t pages_of(uint64_t va, uint64_t len)
{
    return ((va + len + 4095) / 4096) - va / 4096;
}

vipl_result_t vipl_register_mem(vipl_nic_t *nic, void *va, size_t len, const vipl_mem_attr_t *a,
                                vipl_mem_handle_t *handle)
{
    via_ctl_mem_reg_t r;
    size_t out = sizeof(*handle);
    vipl_shared_t *sh;
    int rc;

    if (nic == NULL || va == NULL || len == 0 || a == NULL || handle == NULL)
        return VIPL_INVALID_PARAMETER;
    memset(&r, 0, sizeof(r));
    r.va = (uint64_t)(uintptr_t)va;
    r.len = len;
    r.ptag = a->ptag;
    r.flags = (a->enable_rdma_write ? VIA_MR_RDMA_WRITE : 0) |
              (a->enable_rdma_read ? VIA_MR_RDMA_READ : 0);
    pthread_mutex_lock(&nic->lock);
    if ((sh = shared_of(nic, r.va, r.len)) != NULL) {
        r.core_key = sh->mr.key;
        r.core_off = r.va - (uint64_t)(uintptr_t)sh->mr.addr;
    }
    if (via_lmm_lock(&nic->lmm, r.va, r.va + r.len) != 0) {
        pthread_mutex_unlock(&nic->lock);
        return VIPL_ERROR_RESOURCE;
    }
    rc = nic_ep_ctl(nic->ep, VIA_CTL_MEM_REG, &r, sizeof(r), handle, &out);
    if (rc == NIC_OK && (out != sizeof(*handle) || reg_record(nic, *handle, r.va, r.len) != 0)) {
        nic_ep_ctl(nic->ep, VIA_CTL_MEM_DEREG, handle, sizeof(*handle), NULL, NULL);
        rc = NIC_ERR_NO_MEMORY;
    }
    if (rc != NIC_OK)
        via_lmm_unlock(&nic->lmm, r.va, r.va + r.len);
    pthread_mutex_unlock(&nic->lock);
    if (rc == NIC_OK && nic->timing)
        vipl_charge(nic->ht.reg_base_ns + pages_of(r.va, r.len) * nic->ht.reg_page_ns);
    return vipl_from_nic(rc);
}

vipl_result_t vipl_deregister_mem(vipl_nic_t *nic, void *va, vipl_mem_handle_t handle)
{
    vipl_reg_t *reg;
    int rc;

    if (nic == NULL)
        return VIPL_INVALID_PARAMETER;
    pthread_mutex_lock(&nic->lock);
    reg = vipl_reg_find(nic, handle);
    if (reg == NULL || reg->va != (uint64_t)(uintptr_t)va) {
        pthread_mutex_unlock(&nic->lock);
        return VIPL_INVALID_PARAMETER;
    }
    rc = nic_ep_ctl(nic->ep, VIA_CTL_MEM_DEREG, &handle, sizeof(handle), NULL, NULL);
    uint64_t s = reg->va, len = reg->len;
    via_lmm_unlock(&nic->lmm, s, s + len);
    reg->handle = 0;
    pthread_mutex_unlock(&nic->lock);
    if (nic->timing)
        vipl_charge(nic->ht.dereg_base_ns + pages_of(s, len) * nic->ht.dereg_page_ns);
    return rc == NIC_OK || rc == NIC_ERR_NOT_FOUND ? VIPL_SUCCESS : vipl_from_nic(rc);
}

vipl_result_t vipl_alloc_mem(vipl_nic_t *nic, size_t len, const vipl_mem_attr_t *a, void **va,
                             vipl_mem_handle_t *handle)
{
    vipl_shared_t *slot = NULL;
    vipl_result_t r;
    long page = sysconf(_SC_PAGESIZE);

    if (nic == NULL || len == 0 || a == NULL || va == NULL || handle == NULL)
        return VIPL_INVALID_PARAMETER;
    len = (len + (size_t)page - 1) & ~((size_t)page - 1);
    pthread_mutex_lock(&nic->lock);
    for (unsigned i = 0; i < VIPL_MAX_SHARED && slot == NULL; i++)
        if (nic->shared[i].mr.addr == NULL)
            slot = &nic->shared[i];
    if (slot == NULL) {
        pthread_mutex_unlock(&nic->lock);
        return VIPL_ERROR_RESOURCE;
    }
    int rc = nic_mr_alloc(nic->ep, len, NIC_MR_LOCAL_READ | NIC_MR_LOCAL_WRITE, &slot->mr);
    pthread_mutex_unlock(&nic->lock);
    if (rc != NIC_OK)
        return vipl_from_nic(rc);
    r = vipl_register_mem(nic, slot->mr.addr, len, a, &slot->handle);
    if (r != VIPL_SUCCESS) {
        pthread_mutex_lock(&nic->lock);
        nic_mr_free(nic->ep, &slot->mr);
        pthread_mutex_unlock(&nic->lock);
        return r;
    }
    *va = slot->mr.addr;
    *handle = slot->handle;
    return VIPL_SUCCESS;
}

vipl_result_t vipl_free_mem(vipl_nic_t *nic, void *va)
{
    vipl_shared_t *slot = NULL;

    if (nic == NULL || va == NULL)
        return VIPL_INVALID_PARAMETER;
    for (unsigned i = 0; i < VIPL_MAX_SHARED && slot == NULL; i++)
        if (nic->shared[i].mr.addr == va)
            slot = &nic->shared[i];
    if (slot == NULL)
        return VIPL_INVALID_PARAMETER;
    vipl_deregister_mem(nic, va, slot->handle);
    pthread_mutex_lock(&nic->lock);
    nic_mr_free(nic->ep, &slot->mr);
    pthread_mutex_unlock(&nic->lock);
    return VIPL_SUCCESS;
}
