/* nicd - one emulated NIC's firmware for one node.
 *
 *   nicd --node NAME [--nic myri0] [--pers myri] [--rundir DIR]
 *        [--addr IP] [--port N] [--idle-ms N] [--spin-us N]
 *        [--fault-drop P] [--fault-dup P] [--fault-reorder P]
 *        [--fault-corrupt P] [--fault-seed N] [--ready-fd FD]
 *   nicd --status --node NAME [--nic myri0]
 *
 * Normally started by the first process of the node that attaches
 * (nic_host_attach), and gone once no process has been attached for
 * --idle-ms (default MULTIDEV_NIC_IDLE_MS or 2000; -1: never).  Exactly one
 * runs per node and NIC: it holds <rundir>/<node>/<nic>.lock.  Each
 * option with a value but the names is the command-line form of a
 * MULTIDEV_NIC_* variable (doc/environment.md).  --ready-fd: the pipe its
 * starter reads, "ok" once it is up, else why it could not start. */
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
#include "md_tun.h"

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
            "            [--fault-corrupt P] [--fault-seed N] [--ready-fd FD]\n"
            "       nicd --status --node NAME [--nic NIC] [--rundir DIR]\n");
}

/* The options that set a tunable are its command-line form: parsed by the
 * variable's declaration (src/tunables/md_tun_table.c), and winning over
 * the environment as an option should. */
static const struct {
    const char *option, *variable;
} tunable_options[] = {
    { "port", "MULTIDEV_NIC_PORT" },
    { "idle-ms", "MULTIDEV_NIC_IDLE_MS" },
    { "spin-us", "MULTIDEV_NIC_SPIN_US" },
    { "fault-drop", "MULTIDEV_NIC_FAULT_DROP" },
    { "fault-dup", "MULTIDEV_NIC_FAULT_DUP" },
    { "fault-reorder", "MULTIDEV_NIC_FAULT_REORDER" },
    { "fault-corrupt", "MULTIDEV_NIC_FAULT_CORRUPT" },
    { "fault-seed", "MULTIDEV_NIC_FAULT_SEED" },
};
#define NICD_TUNABLE_OPTS ((int)(sizeof(tunable_options) / sizeof(tunable_options[0])))
#define NICD_TUNABLE_VAL  1000     /* getopt's val of tunable_options[0] */

static int apply_option(nic_fw_config_t *cfg, int which, const char *text)
{
    const md_tun_t *t = md_tun_find(tunable_options[which].variable);
    char allowed[MD_TUN_ERR_MAX];
    md_tun_value_t v;

    if (md_tun_parse(t, text, &v, allowed, sizeof(allowed)) != 0) {
        nic_log_error(NULL, "--%s '%s': expected %s", tunable_options[which].option, text, allowed);
        return -1;
    }
    switch (which) {
    case 0: cfg->bind_port = (uint16_t)v.num; break;
    case 1: cfg->idle_exit_ms = (int)v.num; break;
    case 2: cfg->spin_us = (int)v.num; break;
    case 3: cfg->fault.drop = v.prob; break;
    case 4: cfg->fault.dup = v.prob; break;
    case 5: cfg->fault.reorder = v.prob; break;
    case 6: cfg->fault.corrupt = v.prob; break;
    case 7: cfg->fault.seed = (uint64_t)v.num; break;
    }
    return 0;
}

/* Its starter waits on the report fd (nic_host.c) for "ok" (this daemon,
 * or another one of the node and NIC, is up) or for its end (it could not
 * start: the error lines, teed there, say why). */
static void report_ready(int *report_fd)
{
    if (*report_fd < 0)
        return;
    nic_log_tee(-1);
    if (write(*report_fd, "ok\n", 3) != 3) {
        /* the starter is gone: nobody to tell */
    }
    close(*report_fd);
    *report_fd = -1;
}

int main(int argc, char **argv)
{
    static const struct option names[] = {
        { "node", required_argument, 0, 'n' },   { "nic", required_argument, 0, 'i' },
        { "pers", required_argument, 0, 'p' },   { "rundir", required_argument, 0, 'r' },
        { "addr", required_argument, 0, 'a' },   { "ready-fd", required_argument, 0, 'R' },
        { "status", no_argument, 0, 's' },       { "help", no_argument, 0, 'h' },
    };
    enum { NAMES = sizeof(names) / sizeof(names[0]) };
    struct option opts[NAMES + NICD_TUNABLE_OPTS + 1];
    const char *tunable_text[NICD_TUNABLE_OPTS] = { 0 };
    const char *node = NULL, *nic = NULL, *pers = NULL, *rundir = NULL, *addr = NULL;
    nic_fw_config_t cfg;
    int c, status_only = 0, report_fd = -1, lock_fd, rc;
    char who[160];

    memcpy(opts, names, sizeof(names));
    for (int i = 0; i < NICD_TUNABLE_OPTS; i++)
        opts[NAMES + i] = (struct option){ tunable_options[i].option, required_argument, 0,
                                           NICD_TUNABLE_VAL + i };
    opts[NAMES + NICD_TUNABLE_OPTS] = (struct option){ 0, 0, 0, 0 };
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'n': node = optarg; break;
        case 'i': nic = optarg; break;
        case 'p': pers = optarg; break;
        case 'r': rundir = optarg; break;
        case 'a': addr = optarg; break;
        case 'R': report_fd = atoi(optarg); break;
        case 's': status_only = 1; break;
        default:
            if (c >= NICD_TUNABLE_VAL && c < NICD_TUNABLE_VAL + NICD_TUNABLE_OPTS) {
                tunable_text[c - NICD_TUNABLE_VAL] = optarg;
                break;
            }
            usage();
            return c == 'h' ? 0 : 2;
        }
    }
    if (node == NULL) {
        usage();
        return 2;
    }
    /* from here every error and warning also reaches the starter */
    if (report_fd >= 0)
        nic_log_tee(report_fd);
    snprintf(who, sizeof(who), "nicd[%s/%s]", node, nic != NULL ? nic : "myri0");
    if (nic_log_init(who) != NIC_OK || nic_fw_config_defaults(&cfg, NULL) != NIC_OK)
        return 1;
    cfg.node = node;
    cfg.nic = nic != NULL ? nic : cfg.nic;
    cfg.pers = pers != NULL ? pers : cfg.pers;
    cfg.rundir = rundir;
    cfg.bind_ip = addr != NULL ? addr : cfg.bind_ip;
    cfg.on_demand = report_fd >= 0;
    for (int i = 0; i < NICD_TUNABLE_OPTS; i++)
        if (tunable_text[i] != NULL && apply_option(&cfg, i, tunable_text[i]) != 0)
            return 2;

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

    rc = nic_fw_lock(NULL, cfg.rundir, cfg.node, cfg.nic, &lock_fd, NULL, 0);
    if (rc == NIC_ERR_NO_RESOURCE) {
        nic_log_info(NULL, "a firmware already runs for node %s nic %s", cfg.node, cfg.nic);
        report_ready(&report_fd);
        return 0;
    }
    if (rc != NIC_OK) {
        nic_log_error(NULL, "cannot take the node lock: %s", nic_status_str(rc));
        return 1;
    }
    if ((rc = nic_fw_create(&cfg, &the_fw)) != NIC_OK) {
        nic_log_error(NULL, "firmware start failed: %s", nic_status_str(rc));
        return 1;
    }
    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);
    signal(SIGPIPE, SIG_IGN);
    nic_log_info(NULL, "running (pid %d)", (int)getpid());
    report_ready(&report_fd);
    nic_fw_run(the_fw);
    nic_fw_destroy(the_fw);
    close(lock_fd);
    return 0;
}
