/* vipl_conn.c - connection set-up (client/server, by discriminator),
 * accept, reject, disconnect.  VipConnectWait polls the NIC for a request
 * (a control call each turn, backing off to 1 ms); a client waits on its
 * VI's state, which the NIC publishes in the endpoint segment. */
#include "config.h"

#include <string.h>
#include <time.h>

#include "vipl_impl.h"

static void backoff(unsigned *us)
{
    struct timespec ts = { 0, (long)*us * 1000L };
    nanosleep(&ts, NULL);
    if (*us < 1000)
        *us *= 2;
}

static void attr_from_info(const via_conn_info_t *i, vipl_vi_attr_t *a)
{
    memset(a, 0, sizeof(*a));
    a->reliability = i->level;
    a->max_transfer = i->max_transfer;
    a->enable_rdma_write = (i->rdma_flags & VIA_MR_RDMA_WRITE) != 0;
    a->enable_rdma_read = (i->rdma_flags & VIA_MR_RDMA_READ) != 0;
}

vipl_result_t vipl_connect_wait(vipl_nic_t *nic, const vipl_net_addr_t *local, int timeout_ms,
                                vipl_conn_t *conn)
{
    uint64_t end = timeout_ms < 0 ? UINT64_MAX : vipl_now_ns() + (uint64_t)timeout_ms * 1000000ull;
    unsigned us = 20;

    if (nic == NULL || local == NULL || conn == NULL || local->disc_len > VIA_DISC_MAX)
        return VIPL_INVALID_PARAMETER;
    for (;;) {
        via_ctl_conn_req_t req;
        size_t len = sizeof(req);
        int rc = nic_ep_ctl(nic->ep, VIA_CTL_CONN_TAKE, local->disc, local->disc_len, &req, &len);
        if (rc == NIC_OK && len == sizeof(req)) {
            memset(conn, 0, sizeof(*conn));
            conn->nic = nic;
            conn->handle = req.conn;
            conn->remote.host_len = VIA_ADDR_LEN;
            memcpy(conn->remote.host, &req.ip, 4);
            memcpy(conn->remote.host + 4, &req.port, 2);
            conn->remote.disc_len = req.info.disc_len;
            memcpy(conn->remote.disc, req.info.disc, req.info.disc_len);
            attr_from_info(&req.info, &conn->remote_attr);
            return VIPL_SUCCESS;
        }
        if (rc != NIC_ERR_NOT_FOUND)
            return vipl_from_nic(rc);
        if (vipl_now_ns() >= end)
            return VIPL_TIMEOUT;
        backoff(&us);
    }
}

vipl_result_t vipl_connect_accept(vipl_conn_t *conn, vipl_vi_t *vi)
{
    unsigned us = 20;

    if (conn == NULL || vi == NULL)
        return VIPL_INVALID_PARAMETER;
    for (int tries = 0;; tries++) {
        uint32_t reason = VIA_CONN_NONE;
        size_t len = sizeof(reason);
        int rc = nic_ep_ctl(vi->ep, VIA_CTL_CONN_ACCEPT, &conn->handle, sizeof(conn->handle),
                            &reason, &len);
        if (rc == NIC_ERR_NO_RESOURCE && tries < 1000) {
            backoff(&us);               /* the stream to the client is full */
            continue;
        }
        if (rc == NIC_ERR_NOT_FOUND)
            return VIPL_INVALID_PARAMETER;
        if (rc != NIC_OK)
            return rc == NIC_ERR_INVALID ? VIPL_INVALID_STATE : vipl_from_nic(rc);
        switch (reason) {
        case VIA_CONN_OK:        return VIPL_SUCCESS;
        case VIA_CONN_BAD_LEVEL: return VIPL_INVALID_RELIABILITY_LEVEL;
        case VIA_CONN_BAD_MTU:   return VIPL_INVALID_MTU;
        default:                 return VIPL_ERROR;
        }
    }
}

vipl_result_t vipl_connect_reject(vipl_conn_t *conn)
{
    if (conn == NULL || conn->nic == NULL)
        return VIPL_INVALID_PARAMETER;
    int rc = nic_ep_ctl(conn->nic->ep, VIA_CTL_CONN_REJECT, &conn->handle, sizeof(conn->handle),
                        NULL, NULL);
    return rc == NIC_ERR_NOT_FOUND ? VIPL_INVALID_PARAMETER : vipl_from_nic(rc);
}

vipl_result_t vipl_connect_start(vipl_vi_t *vi, const vipl_net_addr_t *remote, int timeout_ms)
{
    via_ctl_connect_t c;
    unsigned us = 20;
    int rc;

    if (vi == NULL || remote == NULL || remote->host_len != VIA_ADDR_LEN ||
        remote->disc_len > VIA_DISC_MAX)
        return VIPL_INVALID_PARAMETER;
    if (atomic_load(&vi->sh->state) != VIA_VI_IDLE)
        return VIPL_INVALID_STATE;
    memset(&c, 0, sizeof(c));
    memcpy(&c.ip, remote->host, 4);
    memcpy(&c.port, remote->host + 4, 2);
    c.disc_len = remote->disc_len;
    memcpy(c.disc, remote->disc, remote->disc_len);
    c.timeout_ms = timeout_ms < 0 ? 24u * 3600 * 1000 : (uint32_t)timeout_ms;
    for (int tries = 0; (rc = nic_ep_ctl(vi->ep, VIA_CTL_CONNECT, &c, sizeof(c), NULL, NULL)) ==
                        NIC_ERR_NO_RESOURCE && tries < 1000; tries++)
        backoff(&us);
    return rc == NIC_ERR_INVALID ? VIPL_INVALID_STATE : vipl_from_nic(rc);
}

vipl_result_t vipl_connect_poll(vipl_vi_t *vi)
{
    uint32_t state = atomic_load(&vi->sh->state);

    if (state == VIA_VI_CONNECT_PENDING)
        return VIPL_NOT_DONE;
    if (state == VIA_VI_CONNECTED)
        return VIPL_SUCCESS;
    switch (atomic_load(&vi->sh->conn_result)) {
    case VIA_CONN_REJECTED:    return VIPL_REJECT;
    case VIA_CONN_TIMEOUT:     return VIPL_TIMEOUT;
    case VIA_CONN_BAD_LEVEL:   return VIPL_INVALID_RELIABILITY_LEVEL;
    case VIA_CONN_BAD_MTU:     return VIPL_INVALID_MTU;
    case VIA_CONN_UNREACHABLE: return VIPL_NOT_REACHABLE;
    default:                   return VIPL_INVALID_STATE;
    }
}

vipl_result_t vipl_connect_request(vipl_vi_t *vi, const vipl_net_addr_t *remote, int timeout_ms,
                                   vipl_vi_attr_t *remote_attr)
{
    vipl_result_t r = vipl_connect_start(vi, remote, timeout_ms);

    if (r != VIPL_SUCCESS)
        return r;
    while ((r = vipl_connect_poll(vi)) == VIPL_NOT_DONE) {
        uint32_t seen = atomic_load(&vi->ep->sh->cq_prod);
        int rc;
        if (atomic_load(&vi->sh->state) != VIA_VI_CONNECT_PENDING)
            continue;
        if ((rc = nic_ep_check(vi->ep)) != NIC_OK)
            return vipl_from_nic(rc);
        vipl_futex_wait(vi->ep, seen, 5);   /* the NIC bounds the wait by the timeout */
    }
    if (r == VIPL_SUCCESS && remote_attr != NULL) {
        vipl_vi_info_t info;
        vipl_query_vi(vi, &info);
        *remote_attr = info.remote;
    }
    return r;
}

vipl_result_t vipl_disconnect(vipl_vi_t *vi)
{
    if (vi == NULL)
        return VIPL_INVALID_PARAMETER;
    return vipl_from_nic(nic_ep_ctl(vi->ep, VIA_CTL_DISCONNECT, NULL, 0, NULL, NULL));
}
