/* nic_host.c - host side: attach (and start nicd), endpoints, regions,
 * liveness. */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "nic_env.h"
#include "nic_ctl_proto.h"
#include "nic_fw_thread.h"
#include "nic_host.h"
#include "nic_log.h"
#include "nic_rundir.h"

#ifndef NIC_NICD_PATH
#define NIC_NICD_PATH "nicd"
#endif

static int host_connect(const char *path)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    int fd;

    if (strlen(path) >= sizeof(sa.sun_path))
        return -1;
    strcpy(sa.sun_path, path);
    fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* One request, one reply; fds received (at most 2) go to fds_out. */
static int host_call(int fd, nic_ctl_msg_t *m, int send_fd, int *fds_out, int *nfds_out)
{
    char cbuf[CMSG_SPACE(sizeof(int) * 2)];
    struct iovec iov = { m, NIC_CTL_HDR_SIZE + m->len };
    struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
    ssize_t n;

    m->abi_version = NIC_ABI_VERSION;
    if (send_fd >= 0) {
        memset(cbuf, 0, sizeof(cbuf));
        mh.msg_control = cbuf;
        mh.msg_controllen = CMSG_SPACE(sizeof(int));
        struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
        cm->cmsg_level = SOL_SOCKET;
        cm->cmsg_type = SCM_RIGHTS;
        cm->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(cm), &send_fd, sizeof(int));
    }
    while ((n = sendmsg(fd, &mh, MSG_NOSIGNAL)) < 0 && errno == EINTR)
        ;
    if (n < 0)
        return NIC_ERR_PEER_FAILED;

    iov.iov_len = sizeof(*m);
    mh.msg_control = cbuf;
    mh.msg_controllen = sizeof(cbuf);
    while ((n = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR)
        ;
    if (n <= 0 || (size_t)n < NIC_CTL_HDR_SIZE)
        return NIC_ERR_PEER_FAILED;
    if (nfds_out != NULL)
        *nfds_out = 0;
    for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
        if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS) {
            int k = (int)((cm->cmsg_len - CMSG_LEN(0)) / sizeof(int));
            if (fds_out != NULL && nfds_out != NULL) {
                memcpy(fds_out, CMSG_DATA(cm), sizeof(int) * (size_t)k);
                *nfds_out = k;
            } else {
                int tmp[2];
                memcpy(tmp, CMSG_DATA(cm), sizeof(int) * (size_t)(k > 2 ? 2 : k));
                for (int i = 0; i < k && i < 2; i++)
                    close(tmp[i]);
            }
        }
    }
    return m->status;
}

/* The daemon keeps no descriptor of its starter beyond stdin, stdout and
 * stderr (which it points at /dev/null and its log) and, until it is up,
 * the pipe of its report (fd 3): a launcher's pipes that a rank inherited
 * would otherwise stay open for the daemon's life, and mpiexec waits for
 * their end before it returns. */
static void host_close_inherited(void)
{
#ifdef SYS_close_range
    if (syscall(SYS_close_range, 4u, ~0u, 0u) == 0)
        return;
#endif
    long max = sysconf(_SC_OPEN_MAX);
    if (max <= 0 || max > 65536)
        max = 65536;
    for (long fd = 4; fd < max; fd++)
        close((int)fd);
}

#define NICD_REPORT_FD 3      /* nicd --ready-fd, in the daemon */
#define NICD_READY     "ok\n"

/* The daemon itself: the grandchild of the starter, in a session of its
 * own, its stdio on /dev/null and the log, the report pipe's write end on
 * NICD_REPORT_FD.  Never returns. */
static void host_exec_nicd(const nic_attach_opts_t *o, const char *path, const char *rundir,
                           const char *log_path, int report_fd)
{
    char *argv[16];
    int a = 0, fd, null;

    /* first, before an open below takes the number 3 */
    if (report_fd == NICD_REPORT_FD)
        fcntl(report_fd, F_SETFD, 0);               /* keep it across exec */
    else
        dup2(report_fd, NICD_REPORT_FD);            /* a dup has no CLOEXEC */
    fd = open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    null = open("/dev/null", O_RDONLY);
    if (null >= 0)
        dup2(null, 0);
    if (fd >= 0) {
        dup2(fd, 1);
        dup2(fd, 2);
    }
    host_close_inherited();
    argv[a++] = (char *)path;
    argv[a++] = "--node";
    argv[a++] = (char *)o->node;
    argv[a++] = "--nic";
    argv[a++] = (char *)o->nic;
    argv[a++] = "--pers";
    argv[a++] = (char *)(o->pers ? o->pers : "myri");
    argv[a++] = "--ready-fd";
    argv[a++] = "3";
    if (rundir != NULL) {
        argv[a++] = "--rundir";
        argv[a++] = (char *)rundir;
    }
    if (o->bind_ip != NULL) {
        argv[a++] = "--addr";
        argv[a++] = (char *)o->bind_ip;
    }
    argv[a] = NULL;
    execv(path, argv);
    dprintf(NICD_REPORT_FD, "cannot execute %s: %s\n", path, strerror(errno));
    _exit(127);
}

/* Reads the started daemon's report until it says it is up (NIC_OK), its
 * end comes without that (NIC_ERR_CONFIG, its lines in why: it could not
 * start and has exited), or timeout_ms pass (NIC_ERR_TIMEOUT). */
static int host_read_report(int fd, int timeout_ms, char *why, size_t why_len)
{
    uint64_t end = nic_now_ns() + (uint64_t)timeout_ms * 1000000ull;
    size_t used = 0;

    why[0] = '\0';
    for (;;) {
        int64_t left_ms = ((int64_t)end - (int64_t)nic_now_ns()) / 1000000;
        struct pollfd p = { .fd = fd, .events = POLLIN };
        ssize_t n;

        if (left_ms <= 0 || poll(&p, 1, (int)left_ms) == 0)
            return NIC_ERR_TIMEOUT;
        n = read(fd, why + used, why_len - 1 - used);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        used += (size_t)n;
        why[used] = '\0';
        /* its last line; warnings before it are in its log */
        if (strncmp(why, NICD_READY, strlen(NICD_READY)) == 0 ||
            strstr(why, "\n" NICD_READY) != NULL)
            return NIC_OK;
        if (used == why_len - 1)
            used = 0;       /* a flood: keep reading to the end, say its tail */
    }
    /* one line: the daemon's lines joined by "; " */
    while (used > 0 && why[used - 1] == '\n')
        why[--used] = '\0';
    for (char *c = why; (c = strchr(c, '\n')) != NULL && used + 1 < why_len; used++) {
        memmove(c + 2, c + 1, strlen(c + 1) + 1);
        c[0] = ';';
        c[1] = ' ';
    }
    return NIC_ERR_CONFIG;
}

/* Start nicd for this node and NIC, detached from the caller, and wait for
 * its report (nicd --ready-fd): a daemon that cannot start says why at
 * once instead of leaving the caller to wait for a socket that never
 * comes.  NIC_OK when it is up, else the error, said with its reasons. */
static int host_spawn_nicd(const nic_attach_opts_t *o, const char *log_path, int timeout_ms)
{
    const char *path = o->nicd_path, *rundir = o->rundir;
    char why[1024];
    int report[2], status, rc;
    pid_t pid;

    if ((path == NULL && nic_env_text(&o->log, "MULTIDEV_NICD", &path) != NIC_OK) ||
        (rundir == NULL && nic_env_text(&o->log, "MULTIDEV_NIC_RUNDIR", &rundir) != NIC_OK))
        return NIC_ERR_CONFIG;
    if (path == NULL)
        path = NIC_NICD_PATH;
    if (pipe2(report, O_CLOEXEC) != 0) {
        nic_log_error(&o->log,
                      "node %s nic %s: pipe for the firmware's start: %m", o->node, o->nic);
        return NIC_ERR_IO;
    }
    pid = fork();
    if (pid < 0) {
        close(report[0]);
        close(report[1]);
        return NIC_ERR_IO;
    }
    if (pid == 0) {
        /* Child: a new session, then a grandchild that is reparented, so
         * the daemon is nobody's zombie and survives its starter. */
        close(report[0]);
        setsid();
        if (fork() != 0)
            _exit(0);
        host_exec_nicd(o, path, rundir, log_path, report[1]);
    }
    close(report[1]);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    rc = host_read_report(report[0], timeout_ms, why, sizeof(why));
    close(report[0]);
    if (rc == NIC_ERR_CONFIG)
        nic_log_error(&o->log, "the firmware for node %s nic %s could not start: %s (%s, log %s)",
                      o->node, o->nic, why[0] != '\0' ? why : "it exited without a word",
                      path, log_path);
    else if (rc == NIC_ERR_TIMEOUT)
        nic_log_error(&o->log,
                      "the firmware for node %s nic %s did not report its start within %d ms "
                      "(%s, log %s)", o->node, o->nic, timeout_ms, path, log_path);
    return rc;
}

/* Connect to the node's firmware, starting it under the start lock if no
 * firmware runs.  Exactly one nicd runs per node and NIC: nicd holds
 * <nic>.lock for its lifetime, and starters serialise on <nic>.start. */
static int host_connect_or_start(const nic_attach_opts_t *o, int *fd_p)
{
    char dir[512], sock[600], start[600], lock[600], log[600];
    int timeout_ms = o->timeout_ms > 0 ? o->timeout_ms : 10000;
    int rc, fd;

    if ((rc = nic_rundir_node(&o->log, o->rundir, o->node, dir, sizeof(dir))) != NIC_OK ||
        (rc = nic_rundir_file(dir, o->nic, ".sock", sock, sizeof(sock))) != NIC_OK ||
        (rc = nic_rundir_file(dir, o->nic, ".start", start, sizeof(start))) != NIC_OK ||
        (rc = nic_rundir_file(dir, o->nic, ".lock", lock, sizeof(lock))) != NIC_OK ||
        (rc = nic_rundir_file(dir, o->nic, ".log", log, sizeof(log))) != NIC_OK)
        return rc;
    if ((fd = host_connect(sock)) >= 0) {
        *fd_p = fd;
        return NIC_OK;
    }
    if (!o->start) {
        nic_log_error(&o->log, "no firmware runs for node %s nic %s (socket %s): start it with "
                      "'nicctl start --node %s --nic %s'", o->node, o->nic, sock, o->node, o->nic);
        return NIC_ERR_NOT_FOUND;
    }
    int sfd = open(start, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (sfd < 0 || flock(sfd, LOCK_EX) != 0) {
        nic_log_error(&o->log, "start lock %s: %m", start);
        if (sfd >= 0)
            close(sfd);
        return NIC_ERR_IO;
    }
    fd = host_connect(sock);
    if (fd < 0) {
        /* Is a firmware holding the node lock (still starting, or exiting)? */
        int lfd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
        int running = lfd >= 0 && flock(lfd, LOCK_EX | LOCK_NB) != 0;
        if (lfd >= 0)
            close(lfd);
        rc = running ? NIC_OK : host_spawn_nicd(o, log, timeout_ms);
        uint64_t end = nic_now_ns() + (uint64_t)timeout_ms * 1000000ull;
        while (rc == NIC_OK && (fd = host_connect(sock)) < 0 && nic_now_ns() < end) {
            struct timespec ts = { 0, 2000000 };
            nanosleep(&ts, NULL);
            if (running) {
                /* The old firmware may have exited meanwhile. */
                lfd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
                if (lfd >= 0 && flock(lfd, LOCK_EX | LOCK_NB) == 0) {
                    close(lfd);
                    rc = host_spawn_nicd(o, log, timeout_ms);
                    running = 0;
                } else if (lfd >= 0) {
                    close(lfd);
                }
            }
        }
    }
    flock(sfd, LOCK_UN);
    close(sfd);
    if (rc != NIC_OK)
        return rc;      /* said by host_spawn_nicd */
    if (fd < 0) {
        nic_log_error(&o->log, "firmware for node %s nic %s did not come up within %d ms (see %s)",
                      o->node, o->nic, timeout_ms, log);
        return NIC_ERR_TIMEOUT;
    }
    *fd_p = fd;
    return NIC_OK;
}

/* The firmware as a thread of this process, for the node's only process:
 * no other process to share the NIC with, and a host thread that would
 * idle can run the firmware's turns itself (nic_host_lend) instead of
 * handing the CPU to another process.  If a firmware already holds the
 * node lock, the host attaches to that one as usual.  A firmware that is
 * ours alone (own_fw) runs under a name of this process, "<nic>.p<pid>"
 * (written into own_nic), which *conn (what the host then connects to) is
 * pointed at.  A firmware that cannot start (its address, its port, a
 * malformed variable) has said why, and nicd would fail alike: its error
 * is the attach's. */
static int host_start_inproc(const nic_attach_opts_t *o, nic_host_t *h,
                             nic_attach_opts_t *conn, char *own_nic, size_t own_len)
{
    nic_fw_config_t cfg;
    nic_fw_thread_t *thr;
    int rc;

    if ((rc = nic_fw_config_defaults(&cfg, &h->log)) != NIC_OK)
        return rc;
    cfg.node = o->node;
    cfg.nic = o->nic;
    if (o->own_fw) {
        snprintf(own_nic, own_len, "%s.p%ld", o->nic, (long)getpid());
        cfg.nic = own_nic;
        cfg.own_files = 1;
    }
    if (o->pers != NULL)
        cfg.pers = o->pers;
    cfg.rundir = o->rundir;
    if (o->bind_ip != NULL)
        cfg.bind_ip = o->bind_ip;
    cfg.idle_exit_ms = -1;            /* lives as long as this host */
    rc = nic_fw_thread_start(&cfg, &thr);
    if (rc == NIC_OK) {
        h->inproc = thr;
        conn->nic = cfg.nic;
        conn->start = 0;
    } else if (rc == NIC_ERR_NO_RESOURCE) {
        nic_log_info(&h->log,
                     "%s: a firmware already runs for this node; attaching to it", h->what);
        rc = NIC_OK;
    } else {
        /* its cause was said where it was found; the caller says what failed */
        nic_log_info(&h->log, "%s: the in-process firmware could not start: %s", h->what,
                     nic_status_str(rc));
    }
    return rc;
}

int nic_host_lend(nic_host_t *h)
{
    return h->inproc != NULL ? nic_fw_lend(nic_fw_thread_fw(h->inproc)) : -1;
}

/* A host that lent turns is about to sleep: nobody would run them. */
static void host_stop_lending(nic_host_t *h)
{
    if (h->inproc != NULL)
        nic_fw_unlend(nic_fw_thread_fw(h->inproc));
}

/* The firmware this host attached to may have run before (a nicd of an
 * earlier process of the node, or started by hand), bound to whatever its
 * starter asked.  Its address is what peers will send to. */
static int host_check_bound(const nic_attach_opts_t *o, const nic_host_t *h)
{
    struct in_addr want, have = { .s_addr = h->wire_ip };
    char have_text[INET_ADDRSTRLEN];

    if (o->bind_ip == NULL || inet_pton(AF_INET, o->bind_ip, &want) != 1 ||
        want.s_addr == h->wire_ip)
        return NIC_OK;
    inet_ntop(AF_INET, &have, have_text, sizeof(have_text));
    if (!o->bind_ip_must_match) {
        nic_log_info(&h->log, "%s runs already, bound to %s:%u rather than %s; that address is the "
                     "one published", h->what, have_text, (unsigned)ntohs(h->wire_port),
                     o->bind_ip);
        return NIC_OK;
    }
    nic_log_error(&h->log, "%s runs already, bound to %s:%u, but this process must publish %s: let "
                  "that firmware exit first (nicctl stop --node %s --nic %s) or give both the "
                  "same address", h->what, have_text, (unsigned)ntohs(h->wire_port),
                  o->bind_ip, o->node, o->nic);
    return NIC_ERR_CONFIG;
}

int nic_host_attach(const nic_attach_opts_t *o, nic_host_t **host_p)
{
    nic_ctl_msg_t m;
    static pthread_mutex_t attach_lock = PTHREAD_MUTEX_INITIALIZER;
    nic_host_t *h;
    int fds[2], nfds = 0, rc = NIC_ERR_PEER_FAILED, fd = -1;
    long long watchdog_ms;

    if (o->node == NULL || o->nic == NULL)
        return NIC_ERR_INVALID;
    /* the level of this process's NIC lines: MULTIDEV_LOG_LEVEL, as nicd's */
    if (nic_log_level_read(&o->log) != NIC_OK ||
        nic_env_num(&o->log, "MULTIDEV_NIC_WATCHDOG_MS", &watchdog_ms) != NIC_OK)
        return NIC_ERR_CONFIG;
    h = calloc(1, sizeof(*h));
    if (h == NULL)
        return NIC_ERR_NO_MEMORY;
    h->log = o->log;
    h->lock = malloc(sizeof(pthread_mutex_t));
    pthread_mutex_init(h->lock, NULL);
    h->fd = h->event_fd = -1;
    h->watch_interval_ns = (uint64_t)watchdog_ms * 1000000ull;
    snprintf(h->what, sizeof(h->what), "node %s nic %s", o->node, o->nic);

    nic_attach_opts_t conn = *o;
    char own_nic[96];
    pthread_mutex_lock(&attach_lock);
    if (o->inproc && (rc = host_start_inproc(o, h, &conn, own_nic, sizeof(own_nic))) != NIC_OK) {
        pthread_mutex_unlock(&attach_lock);
        goto err;
    }
    /* A firmware that is exiting (idle) may accept and then close: retry. */
    for (int attempt = 0; attempt < 5; attempt++) {
        if ((rc = host_connect_or_start(&conn, &fd)) != NIC_OK)
            break;
        memset(&m, 0, NIC_CTL_HDR_SIZE);
        m.op = NIC_CTL_HELLO;
        rc = host_call(fd, &m, -1, fds, &nfds);
        if (rc == NIC_OK && nfds == 2)
            break;
        for (int i = 0; i < nfds; i++)
            close(fds[i]);
        close(fd);
        fd = -1;
        if (rc == NIC_ERR_ABI)
            break;
    }
    pthread_mutex_unlock(&attach_lock);
    if (rc != NIC_OK || fd < 0) {
        if (rc == NIC_ERR_ABI)
            nic_log_error(&h->log, "%s: firmware speaks another host/NIC ABI than %u", h->what,
                          NIC_ABI_VERSION);
        else if (rc == NIC_ERR_PEER_FAILED)
            nic_log_error(&h->log, "%s: firmware closed the control connection", h->what);
        goto err;
    }
    h->fd = fd;
    h->event_fd = fds[0];
    h->status = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fds[1], 0);
    close(fds[1]);
    if (h->status == MAP_FAILED || h->status->magic != NIC_STATUS_MAGIC) {
        nic_log_error(&h->log, "%s: bad firmware status page", h->what);
        h->status = NULL;
        rc = NIC_ERR_ABI;
        goto err;
    }
    h->pers_id = (uint32_t)m.arg[0];
    h->wire_ip = (uint32_t)m.arg[1];
    h->wire_port = (uint16_t)m.arg[2];
    if (o->pers != NULL && strcmp((char *)m.data, o->pers) != 0) {
        nic_log_error(&h->log, "%s runs personality %s, not %s", h->what, (char *)m.data, o->pers);
        rc = NIC_ERR_CONFIG;
        goto err;
    }
    if ((rc = host_check_bound(o, h)) != NIC_OK)
        goto err;
    h->watch_ns = nic_now_coarse_ns();
    *host_p = h;
    return NIC_OK;
err:
    nic_host_detach(h);
    return rc;
}

void nic_host_detach(nic_host_t *h)
{
    if (h == NULL)
        return;
    if (h->status != NULL)
        munmap(h->status, 4096);
    if (h->event_fd >= 0)
        close(h->event_fd);
    if (h->fd >= 0)
        close(h->fd);
    nic_fw_thread_stop(h->inproc);   /* after our connection closed */
    pthread_mutex_destroy(h->lock);
    free(h->lock);
    free(h);
}

void nic_host_kick_slow(nic_host_t *h)
{
    uint64_t one = 1;
    if (write(h->event_fd, &one, sizeof(one)) < 0) {
        /* counter saturated: the firmware is awake anyway */
    }
}

static int host_locked_call(nic_host_t *h, nic_ctl_msg_t *m, int send_fd, int *fds, int *nfds)
{
    int rc;
    if (atomic_load(&h->dead))
        return NIC_ERR_PEER_FAILED;
    pthread_mutex_lock(h->lock);
    rc = host_call(h->fd, m, send_fd, fds, nfds);
    pthread_mutex_unlock(h->lock);
    return rc;
}

void nic_host_start_failed(nic_host_t *h)
{
    nic_ctl_msg_t m;

    if (h == NULL || h->inproc != NULL)
        return;     /* a firmware in this process ends with its detach */
    memset(&m, 0, NIC_CTL_HDR_SIZE);
    m.op = NIC_CTL_START_FAILED;
    host_locked_call(h, &m, -1, NULL, NULL);   /* a dead firmware needs nothing */
}

int nic_host_status(nic_host_t *h, char *buf, size_t len)
{
    nic_ctl_msg_t *m = calloc(1, sizeof(*m));
    int rc;
    if (m == NULL)
        return NIC_ERR_NO_MEMORY;
    m->op = NIC_CTL_STATUS;
    rc = host_locked_call(h, m, -1, NULL, NULL);
    if (rc == NIC_OK)
        snprintf(buf, len, "%.*s", (int)m->len, (char *)m->data);
    free(m);
    return rc;
}

int nic_host_shutdown(nic_host_t *h)
{
    nic_ctl_msg_t m;
    memset(&m, 0, NIC_CTL_HDR_SIZE);
    m.op = NIC_CTL_SHUTDOWN;
    return host_locked_call(h, &m, -1, NULL, NULL);
}

int nic_host_ctl_raw(nic_host_t *h, uint32_t op, uint32_t ep_id, uint64_t job_key,
                     uint32_t pers_op, const void *in, size_t in_len)
{
    nic_ctl_msg_t *m = calloc(1, sizeof(*m));
    int rc;
    if (m == NULL)
        return NIC_ERR_NO_MEMORY;
    if (in_len > NIC_CTL_DATA_MAX) {
        free(m);
        return NIC_ERR_INVALID;
    }
    m->op = op;
    m->ep_id = ep_id;
    m->job_key = job_key;
    m->pers_op = pers_op;
    m->len = (uint32_t)in_len;
    if (in_len)
        memcpy(m->data, in, in_len);
    rc = host_locked_call(h, m, -1, NULL, NULL);
    free(m);
    return rc;
}

int nic_ep_open(nic_host_t *h, const nic_job_t *job, uint32_t sq_n, uint32_t rq_n, uint32_t cq_n,
                nic_ep_t **ep_p)
{
    nic_ctl_msg_t m;
    int fds[2], nfds = 0, rc;
    nic_ep_t *ep;

    memset(&m, 0, NIC_CTL_HDR_SIZE);
    m.op = NIC_CTL_EP_OPEN;
    m.job_key = job->tag;
    m.arg[0] = sq_n;
    m.arg[1] = rq_n;
    m.arg[2] = cq_n;
    m.len = NIC_JOB_SECRET_LEN;
    memcpy(m.data, job->secret, NIC_JOB_SECRET_LEN);
    rc = host_locked_call(h, &m, -1, fds, &nfds);
    memset(m.data, 0, NIC_JOB_SECRET_LEN);
    if (rc != NIC_OK || nfds != 1) {
        nic_log_error(&h->log, "%s: opening an endpoint failed: %s", h->what, nic_status_str(rc));
        return rc != NIC_OK ? rc : NIC_ERR_IO;
    }
    ep = calloc(1, sizeof(*ep));
    if (ep == NULL) {
        close(fds[0]);
        return NIC_ERR_NO_MEMORY;
    }
    ep->host = h;
    ep->wake_fd = ep->sleep_fd = -1;
    ep->id = m.ep_id;
    ep->job_key = job->tag;
    ep->seg_size = m.arg[3];
    ep->sh = mmap(NULL, ep->seg_size, PROT_READ | PROT_WRITE, MAP_SHARED, fds[0], 0);
    close(fds[0]);
    if (ep->sh == MAP_FAILED || ep->sh->magic != NIC_EP_MAGIC ||
        ep->sh->abi_version != NIC_ABI_VERSION) {
        nic_log_error(&h->log, "%s: endpoint segment has a bad header", h->what);
        free(ep);
        return NIC_ERR_ABI;
    }
    nic_ep_shared_t *sh = ep->sh;
    uint8_t *base = (uint8_t *)sh;
    nic_ring_init(&ep->sq, (nic_entry_t *)(base + sh->sq_off), sh->sq_entries, &sh->sq_prod,
                  &sh->sq_cons, 1);
    nic_ring_init(&ep->rq, (nic_entry_t *)(base + sh->rq_off), sh->rq_entries ? sh->rq_entries : 1,
                  &sh->rq_prod, &sh->rq_cons, 1);
    nic_ring_init(&ep->cq, (nic_entry_t *)(base + sh->cq_off), sh->cq_entries, &sh->cq_prod,
                  &sh->cq_cons, 0);
    *ep_p = ep;
    return NIC_OK;
}

int nic_ep_close(nic_ep_t *ep)
{
    nic_ctl_msg_t m;
    int rc;

    if (ep == NULL)
        return NIC_OK;
    memset(&m, 0, NIC_CTL_HDR_SIZE);
    m.op = NIC_CTL_EP_CLOSE;
    m.ep_id = ep->id;
    m.job_key = ep->job_key;
    rc = host_locked_call(ep->host, &m, -1, NULL, NULL);
    munmap(ep->sh, ep->seg_size);
    if (ep->wake_fd >= 0)
        close(ep->wake_fd);
    if (ep->sleep_fd >= 0)
        close(ep->sleep_fd);
    free(ep);
    return rc;
}

int nic_ep_ctl(nic_ep_t *ep, uint32_t op, const void *in, size_t in_len, void *out,
               size_t *out_len)
{
    nic_ctl_msg_t *m;
    int rc;

    if (in_len > NIC_CTL_DATA_MAX)
        return NIC_ERR_INVALID;
    m = calloc(1, sizeof(*m));
    if (m == NULL)
        return NIC_ERR_NO_MEMORY;
    m->op = NIC_CTL_PERS;
    m->ep_id = ep->id;
    m->job_key = ep->job_key;
    m->pers_op = op;
    m->len = (uint32_t)in_len;
    if (in_len)
        memcpy(m->data, in, in_len);
    rc = host_locked_call(ep->host, m, -1, NULL, NULL);
    if (out != NULL && out_len != NULL) {
        size_t n = m->len < *out_len ? m->len : *out_len;
        memcpy(out, m->data, n);
        *out_len = n;
    }
    free(m);
    return rc;
}

int nic_mr_alloc(nic_ep_t *ep, uint64_t size, uint32_t access, nic_mr_t *mr)
{
    nic_ctl_msg_t m;
    int rc;

    memset(mr, 0, sizeof(*mr));
    mr->fd = memfd_create("nic-region", MFD_CLOEXEC);
    if (mr->fd < 0 || ftruncate(mr->fd, (off_t)size) != 0) {
        nic_log_error(&ep->host->log, "region of %llu bytes: %m", (unsigned long long)size);
        if (mr->fd >= 0)
            close(mr->fd);
        return NIC_ERR_NO_MEMORY;
    }
    mr->addr = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, mr->fd, 0);
    if (mr->addr == MAP_FAILED) {
        close(mr->fd);
        return NIC_ERR_NO_MEMORY;
    }
    mr->size = size;
    memset(&m, 0, NIC_CTL_HDR_SIZE);
    m.op = NIC_CTL_MR_REG;
    m.ep_id = ep->id;
    m.job_key = ep->job_key;
    m.arg[0] = size;
    m.arg[1] = access;
    rc = host_locked_call(ep->host, &m, mr->fd, NULL, NULL);
    if (rc != NIC_OK) {
        munmap(mr->addr, size);
        close(mr->fd);
        memset(mr, 0, sizeof(*mr));
        return rc;
    }
    mr->key = (uint32_t)m.arg[0];
    return NIC_OK;
}

int nic_mr_free(nic_ep_t *ep, nic_mr_t *mr)
{
    nic_ctl_msg_t m;
    int rc = NIC_OK;

    if (mr->addr == NULL)
        return NIC_OK;
    if (ep != NULL) {
        memset(&m, 0, NIC_CTL_HDR_SIZE);
        m.op = NIC_CTL_MR_DEREG;
        m.ep_id = ep->id;
        m.job_key = ep->job_key;
        m.arg[0] = mr->key;
        rc = host_locked_call(ep->host, &m, -1, NULL, NULL);
    }
    munmap(mr->addr, mr->size);
    close(mr->fd);
    memset(mr, 0, sizeof(*mr));
    return rc;
}

static int host_watchdog(nic_host_t *h)
{
    struct pollfd p = { .fd = h->fd, .events = POLLIN };
    char c;

    if (atomic_load(&h->dead))
        return NIC_ERR_PEER_FAILED;
    if (pthread_mutex_trylock(h->lock) != 0)
        return NIC_OK;   /* a control call is running: it will see a death */
    /* No reply is pending outside a call, so anything readable is EOF. */
    if (poll(&p, 1, 0) > 0 &&
        ((p.revents & (POLLHUP | POLLERR)) || recv(h->fd, &c, 1, MSG_PEEK | MSG_DONTWAIT) <= 0)) {
        atomic_store(&h->dead, 1);
    }
    if (!atomic_load(&h->dead) && !atomic_load(&h->status->fw_alive))
        atomic_store(&h->dead, 1);
    pthread_mutex_unlock(h->lock);
    if (atomic_load(&h->dead)) {
        nic_log_error(&h->log, "%s: the NIC firmware (pid %u) died; every endpoint on it is lost",
                      h->what, h->status->fw_pid);
        return NIC_ERR_PEER_FAILED;
    }
    return NIC_OK;
}

int nic_ep_check(nic_ep_t *ep)
{
    nic_host_t *h = ep->host;
    uint32_t state = atomic_load_explicit(&ep->sh->state, memory_order_acquire);
    uint64_t now;

    if (atomic_load_explicit(&h->dead, memory_order_relaxed))
        return NIC_ERR_PEER_FAILED;
    if (state == NIC_EP_ERROR)
        return atomic_load(&ep->sh->error);
    if (state != NIC_EP_OPEN)
        return NIC_ERR_PEER_FAILED;
    now = nic_now_coarse_ns();      /* every progress pass: no counter read */
    if (now - h->watch_ns < h->watch_interval_ns)
        return NIC_OK;
    h->watch_ns = now;
    return host_watchdog(h);
}

int nic_ep_wait(nic_ep_t *ep, int timeout_ms)
{
    nic_ep_shared_t *sh = ep->sh;
    uint32_t seen = atomic_load(&sh->cq_prod);
    struct timespec ts = { timeout_ms / 1000, (long)(timeout_ms % 1000) * 1000000L };
    int rc;

    if (seen != ep->cq.local)
        return NIC_OK;
    host_stop_lending(ep->host);
    atomic_store(&sh->host_waiting, 1);
    if (atomic_load(&sh->cq_prod) == seen && atomic_load(&sh->state) == NIC_EP_OPEN)
        syscall(SYS_futex, &sh->cq_prod, FUTEX_WAIT, seen, &ts, NULL, 0);
    atomic_store(&sh->host_waiting, 0);
    rc = nic_ep_check(ep);
    if (rc != NIC_OK)
        return rc;
    return atomic_load(&sh->cq_prod) != ep->cq.local ? NIC_OK : NIC_ERR_TIMEOUT;
}

/* With the firmware in this process, a host that is its process's only
 * poller sleeps on the endpoint's wake-up eventfd and on the wire socket at
 * once (one epoll descriptor, made on first use), and the firmware thread
 * leaves the wire to it: an arrival then wakes one thread, the host, which
 * lends the turn that receives it, where it used to wake the firmware
 * thread, which woke the host (a wake-up of an idle CPU costs 30-50 us on a
 * virtual machine).  A host that sleeps beside a polling thread keeps the
 * wire out of its set: the poller receives, the sleeper would only be
 * woken for nothing.  The descriptor, or -1 if it cannot be made. */
static int ep_sleep_fd(nic_ep_t *ep, int on_wire)
{
    int wire_fd = nic_fw_wire(nic_fw_thread_fw(ep->host->inproc))->fd;
    struct epoll_event ev = { .events = EPOLLIN };

    if (ep->sleep_fd < 0) {
        int fd = epoll_create1(EPOLL_CLOEXEC);

        if (fd < 0)
            return -1;
        if (epoll_ctl(fd, EPOLL_CTL_ADD, ep->wake_fd, &ev) != 0) {
            close(fd);
            return -1;
        }
        ep->sleep_fd = fd;
        ep->on_wire = 0;
    }
    if (on_wire != ep->on_wire) {
        if (epoll_ctl(ep->sleep_fd, on_wire ? EPOLL_CTL_ADD : EPOLL_CTL_DEL, wire_fd,
                      &ev) != 0)
            return -1;
        ep->on_wire = on_wire;
    }
    return ep->sleep_fd;
}

int nic_ep_wake_arm(nic_ep_t *ep, int sole)
{
    int sleep_fd = -1;

    if (ep->wake_fd < 0) {
        nic_ctl_msg_t m;
        int fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
        if (fd < 0)
            return -1;
        memset(&m, 0, NIC_CTL_HDR_SIZE);
        m.op = NIC_CTL_EP_WAKEFD;
        m.ep_id = ep->id;
        m.job_key = ep->job_key;
        if (host_locked_call(ep->host, &m, fd, NULL, NULL) != NIC_OK) {
            close(fd);
            return -1;
        }
        ep->wake_fd = fd;
    }
    ep->armed = 1;
    if (ep->host->inproc != NULL)
        sleep_fd = ep_sleep_fd(ep, sole);
    if (sleep_fd < 0) {
        /* the eventfd alone: the firmware thread must watch the wire */
        if (sole)
            host_stop_lending(ep->host);
        sleep_fd = ep->wake_fd;
    } else if (sole) {
        nic_fw_host_on_wire(nic_fw_thread_fw(ep->host->inproc));
    }
    atomic_store(&ep->sh->host_waiting, 1);
    /* Work already there, or a dead firmware: be readable at once. */
    if (atomic_load(&ep->sh->cq_prod) != ep->cq.local ||
        atomic_load(&ep->sh->mem_gen) != ep->mem_gen_seen ||
        atomic_load(&ep->sh->state) != NIC_EP_OPEN || atomic_load(&ep->host->dead)) {
        uint64_t one = 1;
        if (write(ep->wake_fd, &one, sizeof(one)) < 0) {
            /* saturated: readable anyway */
        }
    }
    return sleep_fd;
}

void nic_ep_wake_disarm(nic_ep_t *ep)
{
    uint64_t v;
    ep->mem_gen_seen = atomic_load(&ep->sh->mem_gen);   /* the caller looks next */
    if (!ep->armed)
        return;
    ep->armed = 0;
    atomic_store(&ep->sh->host_waiting, 0);
    if (read(ep->wake_fd, &v, sizeof(v)) < 0) {
        /* nothing pending */
    }
}
