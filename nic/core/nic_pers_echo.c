/* nic_pers_echo.c - the "echo" personality: every send-queue entry comes
 * back as a completion-queue entry, unchanged.  It exercises the core alone
 * (rings, doorbells, sleeping and waking, reclaim) in tests and in
 * `nicctl`; when the CQ is full it leaves the SQ entry in place, which is
 * the back-pressure every personality must apply. */
#include "config.h"

#include <string.h>

#include "nic_fw.h"

static int echo_fw_init(nic_fw_t *fw, void **state)
{
    static int dummy;
    *state = &dummy;
    return NIC_OK;
}

static int echo_ep_service(nic_fw_t *fw, nic_fw_ep_t *ep)
{
    int n = 0;
    nic_entry_t *in, *out;

    while ((in = nic_ring_peek(&ep->sq)) != NULL && (out = nic_ring_slot(&ep->cq)) != NULL) {
        memcpy(out, in, sizeof(*out));
        nic_ring_release(&ep->sq);
        nic_fw_cq_commit(ep);
        n++;
    }
    return n;
}

static void echo_rx_frame(nic_fw_t *fw, const struct sockaddr_in *from, uint64_t job,
                          uint8_t *frame, size_t len)
{
}

static int echo_poll(nic_fw_t *fw, uint64_t now, uint64_t *next)
{
    return 0;
}

const nic_pers_ops_t nic_pers_echo_ops = {
    .name = "echo",
    .id = 0,
    .fw_init = echo_fw_init,
    .ep_service = echo_ep_service,
    .rx_frame = echo_rx_frame,
    .poll = echo_poll,
};
