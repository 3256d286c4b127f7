/* nic_fw_thread.c - in-process firmware, and the node lock. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "nic_fw_internal.h"
#include "nic_fw_thread.h"
#include "nic_log.h"
#include "nic_rundir.h"

struct nic_fw_thread {
    nic_fw_t *fw;
    pthread_t tid;
    int       lock_fd;
    char      own_lock[600];    /* removed at stop (own_files), else "" */
};

int nic_fw_lock(const nic_log_sink_t *sink, const char *rundir, const char *node,
                const char *nic, int *fd_p, char *path_out, size_t path_len)
{
    char dir[512], path[600];
    int rc, fd;

    if ((rc = nic_rundir_node(sink, rundir, node, dir, sizeof(dir))) != NIC_OK ||
        (rc = nic_rundir_file(dir, nic, ".lock", path, sizeof(path))) != NIC_OK)
        return rc;
    if (path_out != NULL)
        snprintf(path_out, path_len, "%s", path);
    fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0)
        return NIC_ERR_IO;
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        close(fd);
        return NIC_ERR_NO_RESOURCE;
    }
    *fd_p = fd;
    return NIC_OK;
}

/* The pid in "<nic>.p<pid>.lock", the lock file of a process's own
 * firmware; 0 for any other name. */
static pid_t own_lock_pid(const char *name)
{
    size_t n = strlen(name);
    const char *p;

    if (n < 8 || strcmp(name + n - 5, ".lock") != 0)
        return 0;
    p = name + n - 5;
    while (p > name && p[-1] >= '0' && p[-1] <= '9')
        p--;
    if (p == name + n - 5 || p - name < 3 || p[-1] != 'p' || p[-2] != '.')
        return 0;
    return (pid_t)strtol(p, NULL, 10);
}

/* A process's own firmware removes its files when it stops; one whose
 * process was killed leaves them behind.  Whoever starts an own firmware
 * removes those of its node whose process is gone and whose lock nobody
 * holds (a child may have inherited it).  A process that is alive is never
 * touched: taking the lock of one that is starting would make its own
 * flock fail. */
static void fw_sweep_stale_own(const nic_log_sink_t *sink, const char *rundir,
                               const char *node)
{
    char dir[512], nic[64], lock[600], sock[600];
    struct dirent *e;
    unsigned swept = 0;
    DIR *d;

    if (nic_rundir_node(sink, rundir, node, dir, sizeof(dir)) != NIC_OK ||
        (d = opendir(dir)) == NULL)
        return;
    while ((e = readdir(d)) != NULL) {
        pid_t pid = own_lock_pid(e->d_name);
        size_t n = strlen(e->d_name) - 5;         /* "<nic>.p<pid>" before ".lock" */
        if (pid <= 0 || n >= sizeof(nic) || kill(pid, 0) == 0 || errno != ESRCH)
            continue;
        memcpy(nic, e->d_name, n);
        nic[n] = '\0';
        if (nic_rundir_file(dir, nic, ".lock", lock, sizeof(lock)) != NIC_OK ||
            nic_rundir_file(dir, nic, ".sock", sock, sizeof(sock)) != NIC_OK)
            continue;
        int fd = open(lock, O_RDWR | O_CLOEXEC);
        if (fd < 0)
            continue;
        if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
            unlink(lock);
            unlink(sock);
            swept++;
        }
        close(fd);
    }
    closedir(d);
    if (swept > 0)
        nic_log_info(sink,
                     "node %s: removed the files of %u firmware(s) of processes that are gone",
                     node, swept);
}

static void *fw_thread_main(void *arg)
{
    nic_fw_thread_t *thr = arg;
    char name[16];

    /* "nicfw <nic>", cut to the 15 characters a thread name holds: top -H
     * and perf tell the firmware from its host */
    snprintf(name, sizeof(name), "nicfw %.9s", thr->fw->nic);
    pthread_setname_np(pthread_self(), name);
    nic_fw_run(thr->fw);
    return NULL;
}

int nic_fw_thread_start(const nic_fw_config_t *cfg, nic_fw_thread_t **thr_p)
{
    nic_fw_thread_t *thr = calloc(1, sizeof(*thr));
    int rc;

    if (thr == NULL)
        return NIC_ERR_NO_MEMORY;
    if ((rc = nic_fw_lock(&cfg->log, cfg->rundir, cfg->node, cfg->nic, &thr->lock_fd,
                          cfg->own_files ? thr->own_lock : NULL, sizeof(thr->own_lock))) !=
        NIC_OK) {
        free(thr);
        return rc;
    }
    if (cfg->own_files)
        fw_sweep_stale_own(&cfg->log, cfg->rundir, cfg->node);
    if ((rc = nic_fw_create(cfg, &thr->fw)) != NIC_OK)
        goto err;
    if (pthread_create(&thr->tid, NULL, fw_thread_main, thr) != 0) {
        nic_fw_destroy(thr->fw);
        rc = NIC_ERR_IO;
        goto err;
    }
    *thr_p = thr;
    return NIC_OK;
err:
    /* a firmware that could not start leaves no file of its own behind */
    if (thr->own_lock[0] != '\0')
        unlink(thr->own_lock);
    close(thr->lock_fd);
    free(thr);
    return rc;
}

void nic_fw_thread_addr(nic_fw_thread_t *thr, char *buf, size_t len)
{
    nic_addr_format(&thr->fw->wire.addr, buf, len);
}

nic_fw_t *nic_fw_thread_fw(nic_fw_thread_t *thr)
{
    return thr->fw;
}

void nic_fw_thread_stop(nic_fw_thread_t *thr)
{
    if (thr == NULL)
        return;
    nic_fw_stop(thr->fw);
    pthread_join(thr->tid, NULL);
    nic_fw_destroy(thr->fw);
    if (thr->own_lock[0] != '\0')
        unlink(thr->own_lock);     /* a name nobody else uses */
    close(thr->lock_fd);
    free(thr);
}
