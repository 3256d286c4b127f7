/* vipl_nic.c - the VI user agent: opening the NIC (a NIC handle endpoint
 * of the node's VI firmware), its attributes and address, protection tags,
 * the timing model, and helpers the other vipl_*.c files share. */
#include "config.h"

#include <errno.h>
#include <linux/futex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../core/nic_log.h"
#include "vipl_impl.h"

#define VIPL_MAX_VI 256u   /* = NIC_FW_MAX_EP: endpoint slots of a firmware */

static const char *const vipl_result_names[] = {
    [VIPL_SUCCESS] = "success",
    [VIPL_NOT_DONE] = "not done",
    [VIPL_INVALID_PARAMETER] = "invalid parameter",
    [VIPL_ERROR_RESOURCE] = "out of resources",
    [VIPL_TIMEOUT] = "timeout",
    [VIPL_REJECT] = "connection rejected",
    [VIPL_INVALID_RELIABILITY_LEVEL] = "reliability levels differ",
    [VIPL_INVALID_MTU] = "MTUs differ",
    [VIPL_INVALID_QOS] = "invalid QoS",
    [VIPL_INVALID_PTAG] = "invalid protection tag",
    [VIPL_INVALID_RDMAREAD] = "RDMA read not supported",
    [VIPL_DESCRIPTOR_ERROR] = "descriptor error",
    [VIPL_INVALID_STATE] = "invalid VI state",
    [VIPL_ERROR_NAMESERVICE] = "name service error",
    [VIPL_NO_MATCH] = "no matching connection",
    [VIPL_NOT_REACHABLE] = "not reachable",
    [VIPL_ERROR_NOT_SUPPORTED] = "not supported",
    [VIPL_ERROR] = "error",
};

const char *vipl_result_str(vipl_result_t r)
{
    if ((unsigned)r < sizeof(vipl_result_names) / sizeof(vipl_result_names[0]) &&
        vipl_result_names[r] != NULL)
        return vipl_result_names[r];
    return "unknown";
}

vipl_result_t vipl_from_nic(int status)
{
    switch (status) {
    case NIC_OK:              return VIPL_SUCCESS;
    case NIC_ERR_NO_RESOURCE:
    case NIC_ERR_NO_MEMORY:   return VIPL_ERROR_RESOURCE;
    case NIC_ERR_INVALID:     return VIPL_INVALID_PARAMETER;
    case NIC_ERR_PROTECTION:  return VIPL_INVALID_PTAG;
    case NIC_ERR_UNSUPPORTED: return VIPL_ERROR_NOT_SUPPORTED;
    case NIC_ERR_TIMEOUT:     return VIPL_TIMEOUT;
    case NIC_ERR_NOT_FOUND:   return VIPL_NO_MATCH;
    case NIC_ERR_NO_ROUTE:
    case NIC_ERR_PEER_FAILED: return VIPL_NOT_REACHABLE;
    default:                  return VIPL_ERROR;
    }
}

uint64_t vipl_now_ns(void)
{
    return nic_now_ns();
}

void vipl_charge(uint64_t ns)
{
    if (ns == 0)
        return;
    uint64_t end = vipl_now_ns() + ns;
    while (vipl_now_ns() < end)
        ;
}

void vipl_host_sleeps(vipl_nic_t *nic)
{
    atomic_store(&nic->asleep, 1);
}

int vipl_host_woken(vipl_nic_t *nic)
{
    if (!atomic_exchange(&nic->asleep, 0))
        return 0;
    atomic_fetch_add(&nic->wakeups, 1);
    return 1;
}

void vipl_host_awake(vipl_nic_t *nic)
{
    atomic_store(&nic->asleep, 0);
}

uint64_t vipl_nic_wakeups(vipl_nic_t *nic)
{
    return (uint64_t)atomic_load(&nic->wakeups);
}

void vipl_futex_wait(nic_ep_t *ep, uint32_t seen, int timeout_ms)
{
    nic_ep_shared_t *sh = ep->sh;
    int slice = timeout_ms < 0 || timeout_ms > 5 ? 5 : timeout_ms;
    struct timespec ts = { 0, (long)slice * 1000000L };

    atomic_fetch_add(&sh->host_waiting, 1);
    if (atomic_load(&sh->cq_prod) == seen && atomic_load(&sh->state) == NIC_EP_OPEN)
        syscall(SYS_futex, &sh->cq_prod, FUTEX_WAIT, seen, &ts, NULL, 0);
    atomic_fetch_sub(&sh->host_waiting, 1);
}

vipl_result_t vipl_open_nic(const vipl_nic_opts_t *o, vipl_nic_t **nic_p)
{
    vipl_nic_t *nic;
    size_t len = sizeof(via_nic_attr_t);
    int rc;

    if (o == NULL || o->node == NULL || nic_p == NULL)
        return VIPL_INVALID_PARAMETER;
    nic = calloc(1, sizeof(*nic));
    if (nic == NULL)
        return VIPL_ERROR_RESOURCE;
    nic->vis = calloc(VIPL_MAX_VI, sizeof(*nic->vis));
    nic->regs = calloc(VIA_TPT_MAX, sizeof(*nic->regs));
    if (nic->vis == NULL || nic->regs == NULL) {
        free(nic->vis);
        free(nic->regs);
        free(nic);
        return VIPL_ERROR_RESOURCE;
    }
    pthread_mutex_init(&nic->lock, NULL);
    nic->log = o->log;
    if ((rc = via_lmm_init(&nic->lmm, NULL, NULL, &nic->log)) != NIC_OK)
        goto err;
    if (o->job != NULL)
        nic->job = *o->job;
    else if ((rc = nic_job_random(&nic->job)) != NIC_OK)
        goto err;
    nic->job_key = nic->job.tag;
    nic_attach_opts_t ao = {
        .node = o->node, .nic = o->nic ? o->nic : "via0", .pers = "via", .rundir = o->rundir,
        .bind_ip = o->bind_ip, .bind_ip_must_match = o->bind_ip_must_match,
        .start = o->start, .inproc = o->inproc,
        .own_fw = o->own_fw, .timeout_ms = 10000, .log = o->log,
    };
    if ((rc = nic_host_attach(&ao, &nic->host)) != NIC_OK)
        goto err;
    if ((rc = nic_ep_open(nic->host, &nic->job, 1, 0, 1, &nic->ep)) != NIC_OK)
        goto err;
    if ((rc = nic_ep_ctl(nic->ep, VIA_CTL_NIC_OPEN, NULL, 0, &nic->attr, &len)) != NIC_OK)
        goto err;
    if (len != sizeof(nic->attr)) {
        rc = NIC_ERR_ABI;
        goto err;
    }
#ifdef PR_SET_PTRACER
    /* Let the firmware "DMA" into this process (cross-memory attach) even
     * under Yama's restricted ptrace. */
    prctl(PR_SET_PTRACER, (unsigned long)nic->attr.fw_pid, 0, 0, 0);
#endif
    *nic_p = nic;
    return VIPL_SUCCESS;
err:
    vipl_close_nic(nic);
    return vipl_from_nic(rc);
}

vipl_result_t vipl_close_nic(vipl_nic_t *nic)
{
    if (nic == NULL)
        return VIPL_INVALID_PARAMETER;
    /* The NIC handle first: the firmware drops our TPT entries and tags and
     * unmaps the shared regions; then our side of them. */
    if (nic->ep != NULL)
        nic_ep_close(nic->ep);
    for (unsigned i = 0; i < VIPL_MAX_SHARED; i++)
        if (nic->shared[i].mr.addr != NULL)
            nic_mr_free(NULL, &nic->shared[i].mr);
    if (nic->host != NULL)
        nic_host_detach(nic->host);
    via_lmm_fini(&nic->lmm);
    pthread_mutex_destroy(&nic->lock);
    free(nic->regs);
    free(nic->vis);
    free(nic);
    return VIPL_SUCCESS;
}

void vipl_nic_start_failed(vipl_nic_t *nic)
{
    nic_host_start_failed(nic->host);
}

vipl_result_t vipl_query_nic(vipl_nic_t *nic, via_nic_attr_t *attr)
{
    if (nic == NULL || attr == NULL)
        return VIPL_INVALID_PARAMETER;
    *attr = nic->attr;
    return VIPL_SUCCESS;
}

int vipl_nic_check(vipl_nic_t *nic)
{
    return nic_ep_check(nic->ep);
}

int vipl_nic_lend(vipl_nic_t *nic)
{
    return nic_host_lend(nic->host);
}

vipl_result_t vipl_set_timing(vipl_nic_t *nic, const char *profile)
{
    via_timing_t t;
    via_host_timing_t ht;
    int rc;

    memset(&t, 0, sizeof(t));
    memset(&ht, 0, sizeof(ht));
    if (profile != NULL && strcmp(profile, "off") != 0 && via_timing_profile(profile, &t, &ht) != 0)
        return VIPL_INVALID_PARAMETER;
    if ((rc = nic_ep_ctl(nic->ep, VIA_CTL_TIMING, &t, sizeof(t), NULL, NULL)) != NIC_OK)
        return vipl_from_nic(rc);
    nic->ht = ht;
    nic->timing = t.enabled;
    nic->attr.native_mtu = t.enabled ? t.mtu : nic->attr.native_mtu;
    return VIPL_SUCCESS;
}

vipl_result_t vipl_nic_address(vipl_nic_t *nic, vipl_net_addr_t *addr)
{
    if (nic == NULL || addr == NULL)
        return VIPL_INVALID_PARAMETER;
    memset(addr, 0, sizeof(*addr));
    addr->host_len = VIA_ADDR_LEN;
    memcpy(addr->host, &nic->attr.ip, 4);
    memcpy(addr->host + 4, &nic->attr.port, 2);
    return VIPL_SUCCESS;
}

vipl_result_t vipl_addr_set_disc(vipl_net_addr_t *addr, const void *disc, size_t len)
{
    if (addr == NULL || len > VIA_DISC_MAX || (len > 0 && disc == NULL))
        return VIPL_INVALID_PARAMETER;
    addr->disc_len = (uint16_t)len;
    memcpy(addr->disc, disc, len);
    return VIPL_SUCCESS;
}

vipl_result_t vipl_create_ptag(vipl_nic_t *nic, vipl_ptag_t *ptag)
{
    size_t len = sizeof(*ptag);
    int rc = nic_ep_ctl(nic->ep, VIA_CTL_PTAG_CREATE, NULL, 0, ptag, &len);
    return rc == NIC_OK && len == sizeof(*ptag) ? VIPL_SUCCESS : vipl_from_nic(rc ? rc : NIC_ERR_IO);
}

vipl_result_t vipl_destroy_ptag(vipl_nic_t *nic, vipl_ptag_t ptag)
{
    int rc = nic_ep_ctl(nic->ep, VIA_CTL_PTAG_DESTROY, &ptag, sizeof(ptag), NULL, NULL);
    return rc == NIC_ERR_NOT_FOUND ? VIPL_INVALID_PTAG : vipl_from_nic(rc);
}

vipl_vi_t *vipl_vi_lookup(vipl_nic_t *nic, uint32_t ep_id)
{
    vipl_vi_t *vi = nic->vis[ep_id & (VIPL_MAX_VI - 1)];
    return vi != NULL && vi->ep->id == ep_id ? vi : NULL;
}
