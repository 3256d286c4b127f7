/*
 * init_fail_test.c - a failed md_init (MPI_Init) leaves nothing behind
 * (issue 18).  Two emulated nodes of two ranks each run shm and myri; the
 * second subdevice, myri, cannot start on node b (its device line names an
 * address that is not this host's), after shm has made every rank's
 * segment and node a's nicd has been started.  Every rank's md_init fails,
 * and then /dev/shm holds none of the job's segments (though the launcher
 * kills the others as soon as the first rank exits), the nicd started for
 * the job is gone without idling, and the run directory holds no file of
 * a firmware that is not running.
 */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <dirent.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "forkjob.h"

static const char *const nodes[] = { "a", "a", "b", "b" };
static const char *const confs[][2] = {
    { "a", "multidev-node-config 1\nnode a\ndevice shm\ndevice myri\n"
           "route a 0 inf shm -\nroute b 0 inf myri -\n" },
    { "b", "multidev-node-config 1\nnode b\ndevice shm\ndevice myri addr=192.0.2.77\n"
           "route b 0 inf shm -\nroute a 0 inf myri -\n" },
    { NULL, NULL },
};

static void nic_rundir_make(void)
{
    cr_assert_eq(forkjob_nic_rundir_make(), 0, "make check sets MULTIDEV_NICD");
}

TestSuite(init_fail, .init = nic_rundir_make, .fini = forkjob_nic_rundir_remove);

static int never_runs(md_t *md, int rank, int size, forkjob_shared_t *sh, void *arg)
{
    (void)md, (void)rank, (void)size, (void)sh, (void)arg;
    return 99;
}

/* Entries of dir whose names start with prefix (or contain it anywhere,
 * if anywhere); the first one into first. */
static int count_names(const char *dir, const char *prefix, int anywhere, char *first,
                       size_t len)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;

    cr_assert_not_null(d, "%s", dir);
    while ((e = readdir(d)) != NULL) {
        int match = anywhere ? strstr(e->d_name, prefix) != NULL
                             : strncmp(e->d_name, prefix, strlen(prefix)) == 0;
        if (match && n++ == 0)
            snprintf(first, len, "%s", e->d_name);
    }
    closedir(d);
    return n;
}

/* nicd processes serving the test's run directory (zombies have no
 * command line and do not count). */
static int nicds_running(const char *rundir)
{
    DIR *d = opendir("/proc");
    struct dirent *e;
    int n = 0;

    cr_assert_not_null(d);
    while ((e = readdir(d)) != NULL) {
        char path[300], cmd[4096];
        size_t got;
        FILE *f;

        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        snprintf(path, sizeof(path), "/proc/%s/cmdline", e->d_name);
        if ((f = fopen(path, "r")) == NULL)
            continue;
        got = fread(cmd, 1, sizeof(cmd) - 1, f);
        fclose(f);
        for (size_t i = 0; i < got; i++)
            cmd[i] = cmd[i] == '\0' ? ' ' : cmd[i];
        cmd[got] = '\0';
        n += strstr(cmd, "nicd") != NULL && strstr(cmd, rundir) != NULL;
    }
    closedir(d);
    return n;
}

Test(init_fail, a_subdevice_that_cannot_start_leaves_nothing_behind, .timeout = 60)
{
    const char *rundir = getenv("MULTIDEV_NIC_RUNDIR");
    char prefix[64], first[256] = "", node_a[512];
    double t0 = forkjob_now_s();

    /* the job's id is fj<pid>-<time>; its segments mdshm-fj<pid>_... */
    snprintf(prefix, sizeof(prefix), "mdshm-fj%d_", (int)getpid());
    cr_assert_eq(count_names("/dev/shm", prefix, 0, first, sizeof(first)), 0,
                 "segments of an earlier run: %s", first);
    setenv("MULTIDEV_NIC_IDLE_MS", "20000", 1);     /* an idling nicd would be seen */
    cr_assert_eq(forkjob_run(4, nodes, confs, never_runs, NULL, 50), 10,
                 "md_init fails on every rank");
    unsetenv("MULTIDEV_NIC_IDLE_MS");
    cr_expect_lt(forkjob_now_s() - t0, 10.0, "the failure waited for a timeout");

    cr_expect_eq(count_names("/dev/shm", prefix, 0, first, sizeof(first)), 0,
                 "left in /dev/shm: %s", first);
    /* node a's nicd exits with its last process; a moment to see it go */
    for (int i = 0; i < 100 && nicds_running(rundir) > 0; i++)
        usleep(20000);
    cr_expect_eq(nicds_running(rundir), 0, "the nicd started for the job still runs");
    snprintf(node_a, sizeof(node_a), "%s/a", rundir);
    cr_expect_eq(count_names(node_a, ".sock", 1, first, sizeof(first)), 0,
                 "a socket of no firmware: %s", first);
    cr_expect_eq(count_names(node_a, ".p", 1, first, sizeof(first)), 0,
                 "a file of a process's own firmware: %s", first);
}

/* One rank a node: each rank's myri firmware is a thread of its own
 * ("<nic>.p<pid>" in the run directory), and none can bind the port another
 * socket holds.  The own firmwares that could not start leave no file. */
static const char *const solo_nodes[] = { "a", "b" };
static const char *const solo_confs[][2] = {
    { "a", "multidev-node-config 1\nnode a\ndevice shm\ndevice myri\n"
           "route a 0 inf shm -\nroute b 0 inf myri -\n" },
    { "b", "multidev-node-config 1\nnode b\ndevice shm\ndevice myri\n"
           "route b 0 inf shm -\nroute a 0 inf myri -\n" },
    { NULL, NULL },
};

Test(init_fail, own_firmwares_that_cannot_bind_leave_no_file, .timeout = 60)
{
    struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t len = sizeof(sa);
    int holder = socket(AF_INET, SOCK_DGRAM, 0);
    const char *rundir = getenv("MULTIDEV_NIC_RUNDIR");
    char port[16], prefix[64], first[256] = "", dir[512];

    cr_assert_eq(bind(holder, (struct sockaddr *)&sa, sizeof(sa)), 0);
    cr_assert_eq(getsockname(holder, (struct sockaddr *)&sa, &len), 0);
    snprintf(port, sizeof(port), "%u", (unsigned)ntohs(sa.sin_port));
    snprintf(prefix, sizeof(prefix), "mdshm-fj%d_", (int)getpid());
    setenv("MULTIDEV_NIC_PORT", port, 1);
    cr_assert_eq(forkjob_run(2, solo_nodes, solo_confs, never_runs, NULL, 50), 10);
    unsetenv("MULTIDEV_NIC_PORT");
    close(holder);

    cr_expect_eq(count_names("/dev/shm", prefix, 0, first, sizeof(first)), 0,
                 "left in /dev/shm: %s", first);
    for (int n = 0; n < 2; n++) {
        snprintf(dir, sizeof(dir), "%s/%s", rundir, solo_nodes[n]);
        cr_expect_eq(count_names(dir, ".p", 1, first, sizeof(first)), 0,
                     "node %s: a file of a firmware that never ran: %s", solo_nodes[n], first);
        cr_expect_eq(count_names(dir, ".sock", 1, first, sizeof(first)), 0,
                     "node %s: %s", solo_nodes[n], first);
    }
}
