/* nic_fw_ctl.c - the firmware's control socket: attach, open and close
 * endpoints, register regions, personality configuration, and reclaiming
 * everything a process owned when it goes away. */
#include "config.h"

#include <errno.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "nic_ctl_proto.h"
#include "nic_fw_internal.h"
#include "nic_log.h"

static int pidfd_open_compat(pid_t pid)
{
#ifdef SYS_pidfd_open
    return (int)syscall(SYS_pidfd_open, pid, 0);
#else
    (void)pid;
    errno = ENOSYS;
    return -1;
#endif
}

int nic_fw_ctl_accept(nic_fw_t *fw)
{
    struct ucred cred;
    socklen_t clen = sizeof(cred);
    struct epoll_event ev;
    unsigned c;
    int fd = accept4(fw->listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

    if (fd < 0)
        return 0;
    for (c = 0; c < NIC_FW_MAX_CONN && fw->conns[c].fd >= 0; c++)
        ;
    if (c == NIC_FW_MAX_CONN) {
        nic_log_warn(&fw->cfg.log, "refusing a process: %u already attached", NIC_FW_MAX_CONN);
        close(fd);
        return 1;
    }
    fw->conns[c].fd = fd;
    fw->conns[c].pid = 0;
    fw->conns[c].pidfd = -1;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) == 0) {
        fw->conns[c].pid = cred.pid;
        /* The socket can outlive the process (an inherited descriptor), so
         * the pidfd is what tells that the process is gone. */
        fw->conns[c].pidfd = pidfd_open_compat(cred.pid);
    }
    ev.events = EPOLLIN;
    ev.data.u64 = ((uint64_t)NIC_EV_CONN << 32) | c;
    epoll_ctl(fw->epoll_fd, EPOLL_CTL_ADD, fd, &ev);
    if (fw->conns[c].pidfd >= 0) {
        ev.data.u64 = ((uint64_t)NIC_EV_PIDFD << 32) | c;
        epoll_ctl(fw->epoll_fd, EPOLL_CTL_ADD, fw->conns[c].pidfd, &ev);
    }
    fw->nconns++;
    fw->exit_when_idle = 0;     /* a newcomer wants this firmware */
    nic_log_info(&fw->cfg.log, "process %d attached", (int)fw->conns[c].pid);
    return 1;
}

void nic_fw_conn_drop(nic_fw_t *fw, unsigned c, const char *why)
{
    unsigned reclaimed = 0;

    if (fw->conns[c].fd < 0)
        return;
    for (unsigned i = 0; i < NIC_FW_MAX_EP; i++) {
        if (fw->eps[i] != NULL && fw->eps[i]->conn == c) {
            nic_fw_ep_destroy(fw, fw->eps[i]);
            reclaimed++;
        }
    }
    if (reclaimed > 0)
        nic_log_info(&fw->cfg.log, "process %d %s: reclaimed %u endpoint(s)", (int)fw->conns[c].pid,
                     why, reclaimed);
    epoll_ctl(fw->epoll_fd, EPOLL_CTL_DEL, fw->conns[c].fd, NULL);
    close(fw->conns[c].fd);
    if (fw->conns[c].pidfd >= 0) {
        epoll_ctl(fw->epoll_fd, EPOLL_CTL_DEL, fw->conns[c].pidfd, NULL);
        close(fw->conns[c].pidfd);
    }
    fw->conns[c].fd = -1;
    fw->conns[c].pidfd = -1;
    fw->nconns--;
    if (fw->nconns == 0)
        fw->idle_since_ns = nic_now_ns();
}

static void ctl_reply(int fd, nic_ctl_msg_t *m, const int *fds, int nfds)
{
    char cbuf[CMSG_SPACE(sizeof(int) * 2)];
    struct iovec iov = { m, NIC_CTL_HDR_SIZE + m->len };
    struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

    m->abi_version = NIC_ABI_VERSION;
    if (nfds > 0) {
        memset(cbuf, 0, sizeof(cbuf));
        mh.msg_control = cbuf;
        mh.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)nfds);
        struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
        cm->cmsg_level = SOL_SOCKET;
        cm->cmsg_type = SCM_RIGHTS;
        cm->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)nfds);
        memcpy(CMSG_DATA(cm), fds, sizeof(int) * (size_t)nfds);
    }
    while (sendmsg(fd, &mh, MSG_NOSIGNAL) < 0 && errno == EINTR)
        ;
}

/* The endpoint named by a request, if this connection owns it and the key
 * matches; NULL (and the reason in *rc) otherwise. */
static nic_fw_ep_t *ctl_owned_ep(nic_fw_t *fw, unsigned c, const nic_ctl_msg_t *m, int *rc)
{
    nic_fw_ep_t *ep = nic_fw_ep_lookup(fw, m->ep_id);
    if (ep == NULL) {
        *rc = NIC_ERR_NOT_FOUND;
        return NULL;
    }
    if (ep->conn != c || ep->job_key != m->job_key) {
        nic_log_warn(&fw->cfg.log, "process %d named endpoint %#x it does not own: refused",
                     (int)fw->conns[c].pid, m->ep_id);
        *rc = NIC_ERR_PROTECTION;
        return NULL;
    }
    return ep;
}

void nic_fw_ctl_handle(nic_fw_t *fw, unsigned c)
{
    nic_ctl_msg_t *mp = &fw->ctl_msg;
#define m (*mp)
    char cbuf[CMSG_SPACE(sizeof(int))];
    struct iovec iov = { &m, sizeof(m) };
    struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
                         .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
    int in_fd = -1, fds[2], nfds = 0, rc = NIC_OK;
    nic_fw_ep_t *ep;
    ssize_t n;

    n = recvmsg(fw->conns[c].fd, &mh, MSG_CMSG_CLOEXEC);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
        nic_fw_conn_drop(fw, c, "detached");
        return;
    }
    if (n < 0)
        return;
    for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm))
        if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS)
            memcpy(&in_fd, CMSG_DATA(cm), sizeof(int));
    if ((size_t)n < NIC_CTL_HDR_SIZE || m.len > NIC_CTL_DATA_MAX ||
        (size_t)n < NIC_CTL_HDR_SIZE + m.len) {
        nic_fw_conn_drop(fw, c, "sent a malformed request");
        goto out;
    }
    if (m.abi_version != NIC_ABI_VERSION) {
        nic_log_warn(&fw->cfg.log,
                     "process %d speaks NIC ABI %u, firmware %u", (int)fw->conns[c].pid,
                     m.abi_version, NIC_ABI_VERSION);
        m.status = NIC_ERR_ABI;
        m.len = 0;
        ctl_reply(fw->conns[c].fd, &m, NULL, 0);
        goto out;
    }

    switch (m.op) {
    case NIC_CTL_HELLO:
        fds[0] = fw->event_fd;
        fds[1] = fw->status_fd;
        nfds = 2;
        m.arg[0] = fw->pers->id;
        m.arg[1] = fw->wire.addr.sin_addr.s_addr;   /* network order */
        m.arg[2] = fw->wire.addr.sin_port;
        m.len = (uint32_t)snprintf((char *)m.data, NIC_CTL_DATA_MAX, "%s", fw->pers->name) + 1;
        break;
    case NIC_CTL_EP_OPEN: {
        nic_job_t job;
        /* The job's secret comes with the request; the tag is ours to
         * derive, so no process can claim a tag whose key it lacks. */
        if (m.len != NIC_JOB_SECRET_LEN || nic_job_from_secret(&job, m.data) != NIC_OK) {
            rc = NIC_ERR_INVALID;
            m.len = 0;
            break;
        }
        rc = nic_fw_ep_create(fw, c, &job, (uint32_t)m.arg[0], (uint32_t)m.arg[1],
                              (uint32_t)m.arg[2], &ep);
        sodium_memzero(&job, sizeof(job));
        sodium_memzero(m.data, NIC_JOB_SECRET_LEN);
        if (rc == NIC_OK) {
            m.ep_id = ep->id;
            m.job_key = ep->job_key;
            m.arg[3] = ep->seg_size;
            fds[0] = ep->memfd;
            nfds = 1;
        }
        m.len = 0;
        break;
    }
    case NIC_CTL_EP_CLOSE:
        if ((ep = ctl_owned_ep(fw, c, &m, &rc)) != NULL)
            nic_fw_ep_destroy(fw, ep);
        m.len = 0;
        break;
    case NIC_CTL_MR_REG: {
        uint32_t key = 0;
        if ((ep = ctl_owned_ep(fw, c, &m, &rc)) != NULL)
            rc = in_fd < 0 ? NIC_ERR_INVALID
                           : nic_fw_mr_register(fw, ep, in_fd, m.arg[0], (uint32_t)m.arg[1], &key);
        m.arg[0] = key;
        m.len = 0;
        break;
    }
    case NIC_CTL_MR_DEREG:
        if ((ep = ctl_owned_ep(fw, c, &m, &rc)) != NULL)
            rc = nic_fw_mr_deregister(ep, (uint32_t)m.arg[0]);
        m.len = 0;
        break;
    case NIC_CTL_PERS: {
        uint8_t *out = fw->ctl_out;
        size_t out_len = NIC_CTL_DATA_MAX;
        if ((ep = ctl_owned_ep(fw, c, &m, &rc)) != NULL) {
            rc = fw->pers->ep_ctl ? fw->pers->ep_ctl(fw, ep, m.pers_op, m.data, m.len, out, &out_len)
                                  : NIC_ERR_UNSUPPORTED;
            if (rc != NIC_OK || out_len > NIC_CTL_DATA_MAX)
                out_len = 0;
            memcpy(m.data, out, out_len);
            m.len = (uint32_t)out_len;
        } else {
            m.len = 0;
        }
        break;
    }
    case NIC_CTL_EP_WAKEFD:
        if ((ep = ctl_owned_ep(fw, c, &m, &rc)) != NULL) {
            if (in_fd < 0) {
                rc = NIC_ERR_INVALID;
            } else {
                if (ep->wake_fd >= 0)
                    close(ep->wake_fd);
                ep->wake_fd = in_fd;
                in_fd = -1;   /* kept */
            }
        }
        m.len = 0;
        break;
    case NIC_CTL_STATUS:
        nic_fw_status_text(fw, (char *)m.data, NIC_CTL_DATA_MAX);
        m.len = (uint32_t)strlen((char *)m.data) + 1;
        break;
    case NIC_CTL_SHUTDOWN:
        nic_log_info(&fw->cfg.log, "shutdown requested by process %d", (int)fw->conns[c].pid);
        nic_fw_stop(fw);
        m.len = 0;
        break;
    case NIC_CTL_START_FAILED:
        /* Started for a job that could not start: nothing to keep it for.
         * One started by hand stays, as it was asked to. */
        fw->exit_when_idle = fw->cfg.on_demand;
        m.len = 0;
        break;
    default:
        rc = NIC_ERR_INVALID;
        m.len = 0;
        break;
    }
    m.status = rc;
    ctl_reply(fw->conns[c].fd, &m, fds, nfds);
out:
    if (in_fd >= 0)
        close(in_fd);
}
#undef m

void nic_fw_status_text(nic_fw_t *fw, char *buf, size_t len)
{
    FILE *f = fmemopen(buf, len, "w");
    char addr[64];
    unsigned neps = 0;

    if (f == NULL) {
        snprintf(buf, len, "status unavailable");
        return;
    }
    for (unsigned i = 0; i < NIC_FW_MAX_EP; i++)
        neps += fw->eps[i] != NULL;
    nic_addr_format(&fw->wire.addr, addr, sizeof(addr));
    fprintf(f, "node %s nic %s personality %s pid %d\n", fw->node, fw->nic, fw->pers->name,
            (int)getpid());
    fprintf(f, "wire %s\nprocesses %u endpoints %u\n", addr, fw->nconns, neps);
    for (unsigned c = 0; c < NIC_FW_MAX_CONN; c++)
        if (fw->conns[c].fd >= 0)
            fprintf(f, "  process %d\n", (int)fw->conns[c].pid);
    fprintf(f, "tx %llu frames %llu bytes, rx %llu frames %llu bytes, tx errors %llu\n",
            (unsigned long long)fw->wire.st.tx_frames, (unsigned long long)fw->wire.st.tx_bytes,
            (unsigned long long)fw->wire.st.rx_frames, (unsigned long long)fw->wire.st.rx_bytes,
            (unsigned long long)fw->wire.st.tx_errors);
    fprintf(f, "offload: gso %s (%llu trains sent), gro %s (%llu trains received)\n",
            fw->wire.gso ? "on" : "off", (unsigned long long)fw->wire.st.tx_trains,
            fw->wire.gro ? "on" : "off", (unsigned long long)fw->wire.st.rx_trains);
    fprintf(f, "mtu %u (%zu frame bytes a datagram): frames cut %llu, joined %llu, "
               "given up %llu, bad pieces %llu\n",
            fw->wire.mtu, fw->wire.piece_max, (unsigned long long)fw->wire.st.tx_cut,
            (unsigned long long)fw->wire.st.rx_joined,
            (unsigned long long)fw->wire.st.rx_given_up,
            (unsigned long long)fw->wire.st.rx_bad_piece);
    fprintf(f, "faults: drop %llu dup %llu reorder %llu corrupt %llu\n",
            (unsigned long long)fw->wire.st.fault_drop, (unsigned long long)fw->wire.st.fault_dup,
            (unsigned long long)fw->wire.st.fault_reorder,
            (unsigned long long)fw->wire.st.fault_corrupt);
    fprintf(f, "auth: jobs %u; dropped garbage %llu nokey %llu badmac %llu replayed %llu "
               "moved %llu; unsent nokey %llu; senders evicted %llu\n",
            nic_wire_job_count(&fw->wire), (unsigned long long)fw->wire.st.rx_garbage,
            (unsigned long long)fw->wire.st.rx_no_key, (unsigned long long)fw->wire.st.rx_bad_mac,
            (unsigned long long)fw->wire.st.rx_replayed, (unsigned long long)fw->wire.st.rx_moved,
            (unsigned long long)fw->wire.st.tx_no_key,
            (unsigned long long)fw->wire.st.senders_evicted);
    if (fw->pers->status != NULL)
        fw->pers->status(fw, f);
    fclose(f);
    buf[len - 1] = '\0';
}
