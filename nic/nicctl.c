/* nicctl - start, stop and show the emulated NIC firmware of a node.
 *
 *   nicctl start  --node NAME [--nic myri0] [--pers myri] [--rundir DIR]
 *   nicctl stop   --node NAME [--nic myri0] [--rundir DIR]
 *   nicctl status --node NAME [--nic myri0] [--rundir DIR]
 *
 * start leaves the firmware running until it has been idle for
 * MULTIDEV_NIC_IDLE_MS (set it to -1 for a firmware that stays). */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "core/nic_host.h"
#include "core/nic_log.h"

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        { "node", required_argument, 0, 'n' }, { "nic", required_argument, 0, 'i' },
        { "pers", required_argument, 0, 'p' }, { "rundir", required_argument, 0, 'r' },
        { "nicd", required_argument, 0, 'd' }, { 0, 0, 0, 0 }
    };
    nic_attach_opts_t o = { .nic = "myri0", .timeout_ms = 10000 };
    const char *cmd;
    nic_host_t *h;
    char text[4096];
    int c, rc;

    if (nic_log_init("nicctl") != NIC_OK)
        return 2;
    if (argc < 2) {
        fprintf(stderr, "usage: nicctl start|stop|status --node NAME [--nic NIC] "
                        "[--pers PERS] [--rundir DIR]\n");
        return 2;
    }
    cmd = argv[1];
    optind = 2;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'n': o.node = optarg; break;
        case 'i': o.nic = optarg; break;
        case 'p': o.pers = optarg; break;
        case 'r': o.rundir = optarg; break;
        case 'd': o.nicd_path = optarg; break;
        default: return 2;
        }
    }
    if (o.node == NULL) {
        fprintf(stderr, "nicctl: --node is required\n");
        return 2;
    }
    o.start = strcmp(cmd, "start") == 0;
    if (!o.start && strcmp(cmd, "stop") != 0 && strcmp(cmd, "status") != 0) {
        fprintf(stderr, "nicctl: unknown command '%s'\n", cmd);
        return 2;
    }
    rc = nic_host_attach(&o, &h);
    if (rc != NIC_OK) {
        if (!o.start)
            printf("node %s nic %s: not running\n", o.node, o.nic);
        return o.start ? 1 : 3;
    }
    if (strcmp(cmd, "stop") == 0) {
        rc = nic_host_shutdown(h);
        printf("node %s nic %s: stopping\n", o.node, o.nic);
    } else {
        rc = nic_host_status(h, text, sizeof(text));
        if (rc == NIC_OK)
            fputs(text, stdout);
    }
    nic_host_detach(h);
    return rc == NIC_OK ? 0 : 1;
}
