/* fw_smoke.c - (plain C, for ThreadSanitizer) the echo firmware as a
 * thread and a host posting and reaping 200000 entries through the rings,
 * with the firmware free to fall asleep between bursts. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/nic_fw_thread.h"
#include "core/nic_host.h"
#include "test_job.h"
#include "echo_order.h"

static void wait_for_echo(void *ep, uint32_t got)
{
    (void)got;
    nic_ep_wait(ep, 100);
}

static void pause_now_and_then(void *ep, uint32_t got)
{
    (void)ep;
    if (got % 50000 == 0)
        usleep(2000);   /* let it sleep */
}

int main(void)
{
    char dir[] = "/tmp/fw-smoke-XXXXXX";
    nic_fw_config_t cfg;
    nic_fw_thread_t *thr;
    nic_host_t *h;
    nic_ep_t *ep;
    uint32_t got, n = 200000;

    if (mkdtemp(dir) == NULL)
        return 1;
    nic_fw_config_defaults(&cfg, NULL);
    cfg.node = "s";
    cfg.nic = "nic0";
    cfg.pers = "echo";
    cfg.rundir = dir;
    cfg.spin_us = 20;
    if (nic_fw_thread_start(&cfg, &thr) != NIC_OK)
        return 2;
    nic_attach_opts_t o = { .node = "s", .nic = "nic0", .rundir = dir };
    if (nic_host_attach(&o, &h) != NIC_OK || nic_ep_open(h, test_jobp(1), 64, 0, 64, &ep) != NIC_OK)
        return 3;
    if ((got = echo_in_order(ep, n, wait_for_echo, pause_now_and_then, ep)) != n)
        return 4;
    nic_ep_close(ep);
    nic_host_detach(h);
    nic_fw_thread_stop(thr);
    remove_rundir(dir);
    printf("fw_smoke: %u entries echoed in order\n", got);
    return 0;
}
