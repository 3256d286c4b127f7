/* nic_rundir.c - per-node run directories. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nic_env.h"
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

/* A run directory holds the control sockets through which processes hand
 * their NIC the job's secret and their memory: it must be the user's own
 * directory that nobody else may enter or write, as ssh-agent and
 * XDG_RUNTIME_DIR require, or another user who made it first could take
 * the ranks' requests.  Refused with the reason, never repaired. */
static int rundir_private(const nic_log_sink_t *sink, const char *dir)
{
    struct stat st;

    if (lstat(dir, &st) != 0) {
        nic_log_error(sink, "run directory %s: %m", dir);
        return NIC_ERR_IO;
    }
    if (S_ISLNK(st.st_mode) || !S_ISDIR(st.st_mode)) {
        nic_log_error(sink, "run directory %s is %s, not a directory: refused (remove it, or set "
                      "MULTIDEV_NIC_RUNDIR to a directory of your own)", dir,
                      S_ISLNK(st.st_mode) ? "a symbolic link" : "another kind of file");
        return NIC_ERR_PROTECTION;
    }
    if (st.st_uid != geteuid()) {
        nic_log_error(sink, "run directory %s belongs to uid %u, not to you (uid %u): refused, "
                      "since its owner could receive your processes' requests to the NIC "
                      "(remove it, or set MULTIDEV_NIC_RUNDIR to a directory of your own)",
                      dir, (unsigned)st.st_uid, (unsigned)geteuid());
        return NIC_ERR_PROTECTION;
    }
    if ((st.st_mode & 077) != 0) {
        nic_log_error(sink, "run directory %s is open to group or others (mode %03o): refused "
                      "(chmod 700 it, or set MULTIDEV_NIC_RUNDIR to a private directory)",
                      dir, (unsigned)(st.st_mode & 0777));
        return NIC_ERR_PROTECTION;
    }
    return NIC_OK;
}

int nic_rundir_node(const nic_log_sink_t *sink, const char *rundir, const char *node,
                    char *dir, size_t len)
{
    int rc;

    char base[512];

    if (!nic_name_ok(node)) {
        nic_log_error(sink, "node name '%s' is not usable as a directory name",
                      node ? node : "");
        return NIC_ERR_CONFIG;
    }
    if (rundir == NULL && nic_env_text(sink, "MULTIDEV_NIC_RUNDIR", &rundir) != NIC_OK)
        return NIC_ERR_CONFIG;
    if (rundir == NULL || rundir[0] == '\0') {
        snprintf(base, sizeof(base), "/dev/shm/multidev-nic-%u", (unsigned)getuid());
        rundir = base;
    }
    if (mkdir(rundir, 0700) != 0 && errno != EEXIST) {
        nic_log_error(sink, "cannot create %s: %m", rundir);
        return NIC_ERR_IO;
    }
    if ((rc = rundir_private(sink, rundir)) != NIC_OK)
        return rc;
    if ((size_t)snprintf(dir, len, "%s/%s", rundir, node) >= len)
        return NIC_ERR_CONFIG;
    if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
        nic_log_error(sink, "cannot create %s: %m", dir);
        return NIC_ERR_IO;
    }
    return rundir_private(sink, dir);
}

int nic_rundir_file(const char *dir, const char *nic, const char *suffix, char *path, size_t len)
{
    if (!nic_name_ok(nic))
        return NIC_ERR_CONFIG;
    return (size_t)snprintf(path, len, "%s/%s%s", dir, nic, suffix) < len ? NIC_OK
                                                                           : NIC_ERR_CONFIG;
}
