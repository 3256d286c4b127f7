/* via_fw_tpt.c - protection tags and the translation and protection table
 * (TPT).  A memory handle names one registration: a range of the owning
 * process's virtual memory, its protection tag and its RDMA enables.  The
 * same range may be registered any number of times (each registration is
 * its own handle); keeping the pages pinned across them is the host's LMM
 * (via_lmm.c).  Every access the NIC makes on behalf of a descriptor or of
 * an incoming RDMA passes via_tpt_check: handle, bounds, tag, enables. */
#include "config.h"

#include <string.h>

#include "../core/nic_log.h"
#include "via_fw.h"

int via_ptag_create(via_fw_t *v, uint32_t owner, uint32_t *ptag)
{
    for (unsigned i = 0; i < VIA_PTAG_MAX; i++) {
        if (v->ptag[i].value != 0)
            continue;
        uint32_t t;
        int unique;
        do {
            t = via_random(v);
            unique = t != 0;
            for (unsigned j = 0; j < VIA_PTAG_MAX && unique; j++)
                unique = v->ptag[j].value != t;
        } while (!unique);
        v->ptag[i].value = t;
        v->ptag[i].owner = owner;
        *ptag = t;
        return NIC_OK;
    }
    return NIC_ERR_NO_RESOURCE;
}

int via_ptag_destroy(via_fw_t *v, uint32_t owner, uint32_t ptag)
{
    for (unsigned i = 0; i < VIA_PTAG_MAX; i++) {
        if (v->ptag[i].value == ptag && ptag != 0) {
            if (v->ptag[i].owner != owner)
                return NIC_ERR_PROTECTION;
            memset(&v->ptag[i], 0, sizeof(v->ptag[i]));
            return NIC_OK;
        }
    }
    return NIC_ERR_NOT_FOUND;
}

uint32_t via_ptag_owner(const via_fw_t *v, uint32_t ptag)
{
    for (unsigned i = 0; i < VIA_PTAG_MAX; i++)
        if (v->ptag[i].value == ptag && ptag != 0)
            return v->ptag[i].owner;
    return 0;
}

int via_tpt_register(via_fw_t *v, nic_fw_ep_t *nic_ep, const via_ctl_mem_reg_t *r,
                     uint32_t *handle)
{
    unsigned slot;

    if (r->len == 0 || r->va + r->len < r->va || (r->flags & ~(VIA_MR_RDMA_WRITE | VIA_MR_RDMA_READ)))
        return NIC_ERR_INVALID;
    if (via_ptag_owner(v, r->ptag) != nic_ep->id) {
        nic_log_info(nic_fw_log(v->fw), "registration refused: protection tag %#x is not this "
                     "process's", r->ptag);
        return NIC_ERR_PROTECTION;
    }
    if (r->core_key != 0) {
        /* Memory the host shares with the NIC: reached without a system
         * call.  The core checks that the region is this endpoint's. */
        if (nic_fw_mr_lookup(nic_ep, r->core_key, r->core_off, r->len, 0) == NULL)
            return NIC_ERR_PROTECTION;
    }
    for (slot = 1; slot < VIA_TPT_MAX && v->tpt[slot].handle != 0; slot++)
        ;
    if (slot == VIA_TPT_MAX)
        return NIC_ERR_NO_RESOURCE;
    via_tpt_entry_t *e = &v->tpt[slot];
    uint32_t rnd;
    do {
        rnd = via_random(v) >> VIA_TPT_BITS;
    } while (rnd == 0);
    e->handle = slot | (rnd << VIA_TPT_BITS);
    e->ptag = r->ptag;
    e->owner = nic_ep->id;
    e->flags = r->flags;
    e->va = r->va;
    e->len = r->len;
    e->core_key = r->core_key;
    e->core_off = r->core_off;
    e->pid = via_ep(nic_ep)->pid;
    *handle = e->handle;
    return NIC_OK;
}

uint8_t *via_tpt_map(via_fw_t *v, const via_tpt_entry_t *e, int *gone)
{
    uint8_t *base;

    *gone = 0;
    if (e->core_key == 0)
        return NULL;
    nic_fw_ep_t *owner = nic_fw_ep_lookup(v->fw, e->owner);
    base = owner ? nic_fw_mr_lookup(owner, e->core_key, e->core_off, e->len, 0) : NULL;
    *gone = base == NULL;
    return base;
}

static via_tpt_entry_t *tpt_slot(via_fw_t *v, uint32_t handle)
{
    uint32_t slot = handle & (VIA_TPT_MAX - 1);
    if (handle == 0 || slot == 0 || v->tpt[slot].handle != handle)
        return NULL;
    return &v->tpt[slot];
}

int via_tpt_deregister(via_fw_t *v, uint32_t owner, uint32_t handle)
{
    via_tpt_entry_t *e = tpt_slot(v, handle);
    if (e == NULL)
        return NIC_ERR_NOT_FOUND;
    if (e->owner != owner)
        return NIC_ERR_PROTECTION;
    memset(e, 0, sizeof(*e));
    return NIC_OK;
}

void via_tpt_reclaim(via_fw_t *v, uint32_t owner)
{
    for (unsigned i = 1; i < VIA_TPT_MAX; i++)
        if (v->tpt[i].handle != 0 && v->tpt[i].owner == owner)
            memset(&v->tpt[i], 0, sizeof(v->tpt[i]));
}

via_tpt_entry_t *via_tpt_check(via_fw_t *v, uint32_t handle, uint64_t va, uint64_t len,
                               uint32_t ptag, uint32_t need, uint32_t *status)
{
    via_tpt_entry_t *e = tpt_slot(v, handle);

    *status = VIA_STATUS_PROTECTION_ERROR;
    if (e == NULL || e->ptag != ptag || va < e->va || len > e->len ||
        va - e->va > e->len - len) {
        v->c.protection++;
        return NULL;
    }
    if ((e->flags & need) != need) {
        *status = VIA_STATUS_RDMA_PROT_ERROR;
        v->c.protection++;
        return NULL;
    }
    *status = 0;
    return e;
}
