/* test_nic_rundir.h - a run directory of the test process's own for the
 * emulated NICs (MULTIDEV_NIC_RUNDIR): the subdevices under test start
 * their node's nicd there on demand, and the daemons leave by themselves
 * MULTIDEV_NIC_IDLE_MS (500 unless set) after their last rank.  Made once
 * per process as /tmp/<prefix>-nic-XXXXXX, and removed when the process
 * that made it exits (its ranks leave with _exit and do not) or asks.
 * Its state is static: include it in one source file of a program. */
#ifndef TEST_NIC_RUNDIR_H
#define TEST_NIC_RUNDIR_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>
#include <unistd.h>

static char  test_nic_rundir_path[64];
static pid_t test_nic_rundir_owner;

static inline void test_nic_rundir_remove(void)
{
    char cmd[128];

    if (test_nic_rundir_path[0] == '\0' || getpid() != test_nic_rundir_owner)
        return;
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", test_nic_rundir_path);
    if (system(cmd) != 0)
        fprintf(stderr, "%s is left behind\n", test_nic_rundir_path);
    test_nic_rundir_path[0] = '\0';
}

/* 0, or -1 if the directory cannot be made. */
static inline int test_nic_rundir(const char *prefix)
{
    static int cleanup_registered;

    if (test_nic_rundir_path[0] == '\0') {
        snprintf(test_nic_rundir_path, sizeof(test_nic_rundir_path), "/tmp/%s-nic-XXXXXX",
                 prefix);
        if (mkdtemp(test_nic_rundir_path) == NULL) {
            test_nic_rundir_path[0] = '\0';
            return -1;
        }
        test_nic_rundir_owner = getpid();
        if (!cleanup_registered)
            cleanup_registered = atexit(test_nic_rundir_remove) == 0;
    }
    setenv("MULTIDEV_NIC_RUNDIR", test_nic_rundir_path, 1);
    if (getenv("MULTIDEV_NIC_IDLE_MS") == NULL)
        setenv("MULTIDEV_NIC_IDLE_MS", "500", 1);
    return 0;
}

#endif
