/* nic_fw_ep.c - endpoints and registered regions, firmware side. */
#include "config.h"

#include <errno.h>
#include <linux/futex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "nic_fw.h"
#include "nic_fw_internal.h"
#include "nic_log.h"

#define NIC_EP_MAX_ENTRIES 65536u

static int is_pow2(uint64_t v)
{
    return v != 0 && (v & (v - 1)) == 0;
}

/* Puts ep (or NULL) in a slot, keeping eps_end (under turn_lock, as every
 * change of the endpoints is). */
static void fw_ep_slot_set(nic_fw_t *fw, uint32_t slot, nic_fw_ep_t *ep)
{
    fw->eps[slot] = ep;
    if (ep != NULL && slot >= fw->eps_end)
        fw->eps_end = slot + 1;
    while (fw->eps_end > 0 && fw->eps[fw->eps_end - 1] == NULL)
        fw->eps_end--;
}

int nic_fw_ep_create(nic_fw_t *fw, uint32_t conn, const nic_job_t *job, uint32_t sq_n,
                     uint32_t rq_n, uint32_t cq_n, nic_fw_ep_t **ep_p)
{
    const uint64_t job_key = job->tag;
    nic_fw_ep_t *ep;
    uint32_t slot;
    size_t seg;
    int rc;

    if (!is_pow2(sq_n) || !is_pow2(cq_n) || (rq_n != 0 && !is_pow2(rq_n)) ||
        sq_n > NIC_EP_MAX_ENTRIES || rq_n > NIC_EP_MAX_ENTRIES || cq_n > NIC_EP_MAX_ENTRIES) {
        nic_log_warn(&fw->cfg.log, "endpoint open refused: ring sizes %u/%u/%u must be powers of "
                     "two <= %u", sq_n, rq_n, cq_n, NIC_EP_MAX_ENTRIES);
        return NIC_ERR_INVALID;
    }
    for (slot = 0; slot < NIC_FW_MAX_EP && fw->eps[slot] != NULL; slot++)
        ;
    if (slot == NIC_FW_MAX_EP) {
        nic_log_warn(&fw->cfg.log, "endpoint open refused: all %u endpoints in use", NIC_FW_MAX_EP);
        return NIC_ERR_NO_RESOURCE;
    }
    /* The job's key first: without it, none of its frames could leave or
     * be taken. */
    if ((rc = nic_wire_job_add(&fw->wire, job)) != NIC_OK)
        return rc;
    ep = calloc(1, sizeof(*ep));
    if (ep == NULL) {
        nic_wire_job_drop(&fw->wire, job_key);
        return NIC_ERR_NO_MEMORY;
    }
    seg = 4096 + (size_t)(sq_n + rq_n + cq_n) * NIC_ENTRY_SIZE;
    seg = (seg + 4095) & ~(size_t)4095;
    ep->memfd = memfd_create("nic-endpoint", MFD_CLOEXEC);
    if (ep->memfd < 0 || ftruncate(ep->memfd, (off_t)seg) != 0) {
        nic_log_error(&fw->cfg.log, "endpoint segment of %zu bytes: %m", seg);
        rc = NIC_ERR_NO_MEMORY;
        goto err_free;
    }
    ep->sh = mmap(NULL, seg, PROT_READ | PROT_WRITE, MAP_SHARED, ep->memfd, 0);
    if (ep->sh == MAP_FAILED) {
        nic_log_error(&fw->cfg.log, "mmap endpoint segment: %m");
        rc = NIC_ERR_NO_MEMORY;
        goto err_free;
    }
    fw->ep_gen[slot]++;
    ep->id = slot | (fw->ep_gen[slot] << 8);
    ep->conn = conn;
    ep->wake_fd = -1;
    ep->job_key = job_key;
    ep->seg_size = seg;

    nic_ep_shared_t *sh = ep->sh;
    sh->magic = NIC_EP_MAGIC;
    sh->abi_version = NIC_ABI_VERSION;
    sh->ep_id = ep->id;
    sh->pers_id = fw->pers->id;
    sh->job_key = job_key;
    sh->sq_entries = sq_n;
    sh->rq_entries = rq_n;
    sh->cq_entries = cq_n;
    sh->sq_off = 4096;
    sh->rq_off = sh->sq_off + (uint64_t)sq_n * NIC_ENTRY_SIZE;
    sh->cq_off = sh->rq_off + (uint64_t)rq_n * NIC_ENTRY_SIZE;
    sh->seg_size = seg;
    atomic_store(&sh->state, NIC_EP_OPEN);

    uint8_t *base = (uint8_t *)sh;
    nic_ring_init(&ep->sq, (nic_entry_t *)(base + sh->sq_off), sq_n, &sh->sq_prod, &sh->sq_cons, 0);
    nic_ring_init(&ep->rq, (nic_entry_t *)(base + sh->rq_off), rq_n ? rq_n : 1,
                  &sh->rq_prod, &sh->rq_cons, 0);
    nic_ring_init(&ep->cq, (nic_entry_t *)(base + sh->cq_off), cq_n, &sh->cq_prod, &sh->cq_cons, 1);

    fw_ep_slot_set(fw, slot, ep);
    if (fw->pers->ep_open != NULL && (rc = fw->pers->ep_open(fw, ep)) != NIC_OK) {
        fw_ep_slot_set(fw, slot, NULL);
        munmap(ep->sh, seg);
        goto err_free;
    }
    nic_log_info(&fw->cfg.log,
                 "endpoint %#x opened (sq %u, rq %u, cq %u)", ep->id, sq_n, rq_n, cq_n);
    *ep_p = ep;
    return NIC_OK;

err_free:
    if (ep->memfd >= 0)
        close(ep->memfd);
    free(ep);
    nic_wire_job_drop(&fw->wire, job_key);
    return rc;
}

void nic_fw_ep_destroy(nic_fw_t *fw, nic_fw_ep_t *ep)
{
    uint32_t slot = ep->id & 0xff;
    uint64_t job = ep->job_key;

    if (fw->pers->ep_close != NULL)
        fw->pers->ep_close(fw, ep);
    if (nic_wire_job_refs(&fw->wire, job) == 1 && fw->pers->job_end != NULL)
        fw->pers->job_end(fw, job);      /* its last endpoint here */
    nic_wire_job_drop(&fw->wire, job);
    fw_ep_slot_set(fw, slot, NULL);
    atomic_store(&ep->sh->state, NIC_EP_CLOSED);
    for (unsigned i = 0; i < NIC_FW_MAX_MR; i++)
        if (ep->mr[i].key != 0)
            munmap(ep->mr[i].base, ep->mr[i].size);
    munmap(ep->sh, ep->seg_size);
    close(ep->memfd);
    if (ep->wake_fd >= 0)
        close(ep->wake_fd);
    nic_log_info(&fw->cfg.log, "endpoint %#x closed", ep->id);
    free(ep);
}

nic_fw_ep_t *nic_fw_ep_lookup(nic_fw_t *fw, uint32_t ep_id)
{
    nic_fw_ep_t *ep = fw->eps[ep_id & 0xff];
    return (ep != NULL && ep->id == ep_id) ? ep : NULL;
}

pid_t nic_fw_ep_pid(nic_fw_t *fw, const nic_fw_ep_t *ep)
{
    return ep->conn < NIC_FW_MAX_CONN ? fw->conns[ep->conn].pid : 0;
}

void nic_fw_ep_foreach(nic_fw_t *fw, void (*fn)(nic_fw_t *, nic_fw_ep_t *, void *), void *arg)
{
    for (unsigned i = 0; i < fw->eps_end; i++)
        if (fw->eps[i] != NULL)
            fn(fw, fw->eps[i], arg);
}

int nic_fw_mr_register(nic_fw_t *fw, nic_fw_ep_t *ep, int fd, uint64_t size,
                       uint32_t access, uint32_t *key_p)
{
    struct stat st;
    unsigned slot;
    void *base;

    if (size == 0 || fstat(fd, &st) != 0 || (uint64_t)st.st_size < size) {
        nic_log_warn(&fw->cfg.log, "region registration refused: the descriptor does not hold "
                     "%llu bytes", (unsigned long long)size);
        return NIC_ERR_INVALID;
    }
    for (slot = 0; slot < NIC_FW_MAX_MR && ep->mr[slot].key != 0; slot++)
        ;
    if (slot == NIC_FW_MAX_MR)
        return NIC_ERR_NO_RESOURCE;
    base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (base == MAP_FAILED) {
        nic_log_error(&fw->cfg.log, "mmap region of %llu bytes: %m", (unsigned long long)size);
        return NIC_ERR_NO_MEMORY;
    }
    /* The key carries 24 random bits so that a guessed key is refused. */
    uint32_t tag;
    do {
        tag = (uint32_t)(nic_fw_random(fw) & 0xffffff);
    } while (tag == 0);
    ep->mr[slot].key = (tag << 8) | slot;
    ep->mr[slot].access = access;
    ep->mr[slot].base = base;
    ep->mr[slot].size = size;
    *key_p = ep->mr[slot].key;
    return NIC_OK;
}

int nic_fw_mr_deregister(nic_fw_ep_t *ep, uint32_t key)
{
    unsigned slot = key & 0xff;
    if (slot >= NIC_FW_MAX_MR || ep->mr[slot].key != key || key == 0)
        return NIC_ERR_PROTECTION;
    munmap(ep->mr[slot].base, ep->mr[slot].size);
    memset(&ep->mr[slot], 0, sizeof(ep->mr[slot]));
    return NIC_OK;
}

void *nic_fw_mr_lookup(nic_fw_ep_t *ep, uint32_t key, uint64_t off, uint64_t len,
                       uint32_t access)
{
    unsigned slot = key & 0xff;
    nic_fw_mr_t *mr;

    if (slot >= NIC_FW_MAX_MR || key == 0)
        return NULL;
    mr = &ep->mr[slot];
    if (mr->key != key || (mr->access & access) != access)
        return NULL;
    if (off > mr->size || len > mr->size - off)
        return NULL;
    return mr->base + off;
}

/* A host that sleeps (futex on cq_prod, or poll on its wake eventfd)
 * set host_waiting before its last look at the CQ; the commit is
 * sequentially consistent, so one of the two sees the other. */
static void fw_ep_wake(nic_fw_ep_t *ep)
{
    uint64_t one = 1;
    syscall(SYS_futex, &ep->sh->cq_prod, FUTEX_WAKE, 1, NULL, NULL, 0);
    if (ep->wake_fd >= 0 && write(ep->wake_fd, &one, sizeof(one)) < 0) {
        /* counter saturated: the host will look anyway */
    }
}

void nic_fw_cq_commit(nic_fw_ep_t *ep)
{
    nic_ring_commit(&ep->cq);
    if (atomic_load(&ep->sh->host_waiting))
        fw_ep_wake(ep);
}

void nic_fw_ep_mem_written(nic_fw_ep_t *ep)
{
    /* The stores are done; the read-modify-write orders them before the
     * look at host_waiting (the host stores host_waiting, then reads
     * mem_gen: one of the two sees the other). */
    atomic_fetch_add(&ep->sh->mem_gen, 1);
    if (atomic_load(&ep->sh->host_waiting))
        fw_ep_wake(ep);
}

void nic_fw_ep_fail(nic_fw_ep_t *ep, int status)
{
    atomic_store(&ep->sh->error, status);
    atomic_store(&ep->sh->state, NIC_EP_ERROR);
    if (atomic_load(&ep->sh->host_waiting))
        fw_ep_wake(ep);
}
