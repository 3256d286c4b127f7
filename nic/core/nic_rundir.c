/* nic_rundir.c - per-node run directories. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nic_log.h"
#include "nic_rundir.h"
#include "nic_status.h"

int nic_name_ok(const char *name)
{
    if (name == NULL || name[0] == '\0' || strlen(name) > 63 || strcmp(name, ".") == 0 ||
        strcmp(name, "..") == 0)
        return 0;
    for (const char *c = name; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
              *c == '_' || *c == '.' || *c == '-'))
            return 0;
    return 1;
}

int nic_rundir_node(const char *rundir, const char *node, char *dir, size_t len)
{
    char base[512];

    if (!nic_name_ok(node)) {
        nic_log_error("node name '%s' is not usable as a directory name", node ? node : "");
        return NIC_ERR_CONFIG;
    }
    if (rundir == NULL)
        rundir = getenv("MULTIDEV_NIC_RUNDIR");
    if (rundir == NULL || rundir[0] == '\0') {
        snprintf(base, sizeof(base), "/dev/shm/multidev-nic-%u", (unsigned)getuid());
        rundir = base;
    }
    if (mkdir(rundir, 0700) != 0 && errno != EEXIST) {
        nic_log_error("cannot create %s: %m", rundir);
        return NIC_ERR_IO;
    }
    if ((size_t)snprintf(dir, len, "%s/%s", rundir, node) >= len)
        return NIC_ERR_CONFIG;
    if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
        nic_log_error("cannot create %s: %m", dir);
        return NIC_ERR_IO;
    }
    return NIC_OK;
}

int nic_rundir_file(const char *dir, const char *nic, const char *suffix, char *path, size_t len)
{
    if (!nic_name_ok(nic))
        return NIC_ERR_CONFIG;
    return (size_t)snprintf(path, len, "%s/%s%s", dir, nic, suffix) < len ? NIC_OK
                                                                           : NIC_ERR_CONFIG;
}
