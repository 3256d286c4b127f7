/* nicd - one emulated NIC's firmware for one node.
 *
 *   nicd --node NAME [--nic myri0] [--pers myri] [--rundir DIR]
 *        [--addr IP] [--port N] [--idle-ms N] [--spin-us N]
 *        [--fault-drop P] [--fault-dup P] [--fault-reorder P]
 *        [--fault-corrupt P] [--fault-seed N]
 *   nicd --status --node NAME [--nic myri0]
 *
 * Normally started by the first process of the node that attaches
 * (nic_host_attach), and gone once no process has been attached for
 * --idle-ms (default MULTIDEV_NIC_IDLE_MS or 2000; -1: never).  Exactly one
 * runs per node and NIC: it holds <rundir>/<node>/<nic>.lock. */
#include "config.h"

#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/nic_fw.h"
#include "core/nic_fw_thread.h"
#include "core/nic_host.h"
#include "core/nic_log.h"

static nic_fw_t *the_fw;

static void on_signal(int sig)
{
    (void)sig;
    if (the_fw != NULL)
        nic_fw_stop(the_fw);
}

static void usage(void)
{
    fprintf(stderr,
            "usage: nicd --node NAME [--nic NIC] [--pers myri|echo] [--rundir DIR]\n"
            "            [--addr IP] [--port N] [--idle-ms N] [--spin-us N]\n"
            "            [--fault-drop P] [--fault-dup P] [--fault-reorder P]\n"
            "            [--fault-corrupt P] [--fault-seed N]\n"
            "       nicd --status --node NAME [--nic NIC] [--rundir DIR]\n");
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        { "node", required_argument, 0, 'n' },   { "nic", required_argument, 0, 'i' },
        { "pers", required_argument, 0, 'p' },   { "rundir", required_argument, 0, 'r' },
        { "addr", required_argument, 0, 'a' },   { "port", required_argument, 0, 'P' },
        { "idle-ms", required_argument, 0, 'I' }, { "spin-us", required_argument, 0, 'S' },
        { "fault-drop", required_argument, 0, 1 }, { "fault-dup", required_argument, 0, 2 },
        { "fault-reorder", required_argument, 0, 3 },
        { "fault-corrupt", required_argument, 0, 4 },
        { "fault-seed", required_argument, 0, 5 }, { "status", no_argument, 0, 's' },
        { "help", no_argument, 0, 'h' },          { 0, 0, 0, 0 }
    };
    nic_fw_config_t cfg;
    int c, status_only = 0, lock_fd, rc;
    char who[160];

    nic_fw_config_defaults(&cfg);
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'n': cfg.node = optarg; break;
        case 'i': cfg.nic = optarg; break;
        case 'p': cfg.pers = optarg; break;
        case 'r': cfg.rundir = optarg; break;
        case 'a': cfg.bind_ip = optarg; break;
        case 'P': cfg.bind_port = (uint16_t)atoi(optarg); break;
        case 'I': cfg.idle_exit_ms = atoi(optarg); break;
        case 'S': cfg.spin_us = atoi(optarg); break;
        case 1: cfg.fault.drop = atof(optarg); break;
        case 2: cfg.fault.dup = atof(optarg); break;
        case 3: cfg.fault.reorder = atof(optarg); break;
        case 4: cfg.fault.corrupt = atof(optarg); break;
        case 5: cfg.fault.seed = strtoull(optarg, NULL, 0); break;
        case 's': status_only = 1; break;
        default: usage(); return c == 'h' ? 0 : 2;
        }
    }
    if (cfg.node == NULL) {
        usage();
        return 2;
    }
    snprintf(who, sizeof(who), "nicd[%s/%s]", cfg.node, cfg.nic);
    nic_log_init(who);

    if (status_only) {
        nic_attach_opts_t o = { .node = cfg.node, .nic = cfg.nic, .rundir = cfg.rundir };
        nic_host_t *h;
        char text[4096];
        if (nic_host_attach(&o, &h) != NIC_OK)
            return 1;
        rc = nic_host_status(h, text, sizeof(text));
        if (rc == NIC_OK)
            fputs(text, stdout);
        nic_host_detach(h);
        return rc == NIC_OK ? 0 : 1;
    }

    rc = nic_fw_lock(cfg.rundir, cfg.node, cfg.nic, &lock_fd, NULL, 0);
    if (rc == NIC_ERR_NO_RESOURCE) {
        nic_log_info("a firmware already runs for node %s nic %s", cfg.node, cfg.nic);
        return 0;
    }
    if (rc != NIC_OK) {
        nic_log_error("cannot take the node lock: %s", nic_status_str(rc));
        return 1;
    }
    if ((rc = nic_fw_create(&cfg, &the_fw)) != NIC_OK) {
        nic_log_error("firmware start failed: %s", nic_status_str(rc));
        return 1;
    }
    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);
    signal(SIGPIPE, SIG_IGN);
    nic_log_info("running (pid %d)", (int)getpid());
    nic_fw_run(the_fw);
    nic_fw_destroy(the_fw);
    close(lock_fd);
    return 0;
}
