/* nic_wire.c - UDP transport between firmwares: the socket, single sends
 * with fault injection, addresses.  Batched sends and receives (with the
 * segmentation offloads) are in nic_wire_batch.c. */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "nic_fw.h"
#include "nic_log.h"
#include "nic_wire.h"

#define NIC_WIRE_SOCKBUF  (8 << 20)
#define NIC_WIRE_HOLD_NS  (1000 * 1000)   /* a reordered frame waits <= 1 ms */

/* xorshift64*: a reproducible stream per firmware for fault decisions. */
static double wire_rand(nic_wire_t *w)
{
    w->rng ^= w->rng >> 12;
    w->rng ^= w->rng << 25;
    w->rng ^= w->rng >> 27;
    return (double)((w->rng * 2685821657736338717ull) >> 11) / (double)(1ull << 53);
}

int nic_wire_open(nic_wire_t *w, const char *ip, uint16_t port, const nic_fault_t *fault,
                  const nic_log_sink_t *sink)
{
    int size = NIC_WIRE_SOCKBUF;
    socklen_t alen = sizeof(w->addr);

    memset(w, 0, sizeof(*w));
    w->log = sink;
    w->fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (w->fd < 0) {
        nic_log_error(w->log, "wire: socket: %m");
        return NIC_ERR_IO;
    }
    /* A window of 4 kB frames must fit the socket buffers, or the kernel
     * drops what the reliability layer then resends.  The FORCE options
     * pass net.core.rmem_max where we may (root); else the plain ones. */
    if (setsockopt(w->fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) != 0)
        (void)setsockopt(w->fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
    if (setsockopt(w->fd, SOL_SOCKET, SO_SNDBUFFORCE, &size, sizeof(size)) != 0)
        (void)setsockopt(w->fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
    w->addr.sin_family = AF_INET;
    w->addr.sin_port = htons(port);
    if (inet_pton(AF_INET, ip ? ip : "127.0.0.1", &w->addr.sin_addr) != 1) {
        nic_log_error(w->log, "wire: bad IPv4 address '%s'", ip);
        close(w->fd);
        return NIC_ERR_CONFIG;
    }
    if (bind(w->fd, (struct sockaddr *)&w->addr, sizeof(w->addr)) != 0) {
        nic_log_error(w->log, "wire: bind %s:%u: %m", ip ? ip : "127.0.0.1", port);
        close(w->fd);
        return NIC_ERR_IO;
    }
    getsockname(w->fd, (struct sockaddr *)&w->addr, &alen);
    nic_wire_set_offload(w, 1);
    if (fault != NULL)
        w->fault = *fault;
    w->rng = w->fault.seed ? w->fault.seed : 0x9e3779b97f4a7c15ull ^ (uint64_t)getpid();
    if (nic_wire_auth_init(w) != NIC_OK) {
        close(w->fd);
        return NIC_ERR_IO;
    }
    if (nic_wire_reasm_init(w) != NIC_OK) {
        nic_wire_auth_fini(w);
        close(w->fd);
        return NIC_ERR_NO_MEMORY;
    }
    nic_wire_set_mtu(w, 0);
    w->held_buf = malloc(NIC_WIRE_DGRAM_MAX);
    w->rx_bufs = malloc((size_t)NIC_WIRE_RX_BUF * NIC_WIRE_RX_BATCH);
    w->rx_align = malloc((size_t)NIC_WIRE_RX_BUF * NIC_WIRE_RX_BATCH);
    if (w->held_buf == NULL || w->rx_bufs == NULL || w->rx_align == NULL) {
        free(w->held_buf);
        free(w->rx_bufs);
        free(w->rx_align);
        nic_wire_reasm_fini(w);
        nic_wire_auth_fini(w);
        close(w->fd);
        return NIC_ERR_NO_MEMORY;
    }
    return NIC_OK;
}

void nic_wire_close(nic_wire_t *w)
{
    if (w->fd >= 0)
        close(w->fd);
    w->fd = -1;
    free(w->held_buf);
    free(w->rx_bufs);
    free(w->rx_align);
    w->held_buf = NULL;
    w->rx_bufs = NULL;
    w->rx_align = NULL;
    nic_wire_reasm_fini(w);
    nic_wire_auth_fini(w);
}

static int wire_sendmsg(nic_wire_t *w, const struct sockaddr_in *to,
                        const struct iovec *iov, int iovcnt)
{
    struct msghdr mh = {
        .msg_name = (void *)to, .msg_namelen = sizeof(*to),
        .msg_iov = (struct iovec *)iov, .msg_iovlen = (size_t)iovcnt,
    };
    for (;;) {
        ssize_t n = sendmsg(w->fd, &mh, 0);
        if (n >= 0) {
            w->st.tx_frames++;
            w->st.tx_bytes += (uint64_t)n;
            return NIC_OK;
        }
        if (errno == EINTR)
            continue;
        /* A full socket buffer or an unreachable port is a lost frame on
         * this wire; the personality's reliability layer recovers. */
        w->st.tx_errors++;
        return NIC_OK;
    }
}

static int wire_release_held(nic_wire_t *w)
{
    struct iovec iov = { w->held_buf, w->held_len };
    w->held = 0;
    return wire_sendmsg(w, &w->held_to, &iov, 1);
}

/* One datagram: the envelope, the frame's pieces, the MAC. */
static int wire_sendmsg_sealed(nic_wire_t *w, const struct sockaddr_in *to,
                               const nic_wire_env_t *env, const struct iovec *iov, int iovcnt,
                               const uint8_t *mac)
{
    struct iovec parts[10];

    if (iovcnt > 8)
        return NIC_ERR_INVALID;
    parts[0] = (struct iovec){ (void *)env, sizeof(*env) };
    for (int i = 0; i < iovcnt; i++)
        parts[1 + i] = iov[i];
    parts[1 + iovcnt] = (struct iovec){ (void *)mac, NIC_WIRE_MAC_LEN };
    return wire_sendmsg(w, to, parts, iovcnt + 2);
}

/* With faults to inject: the datagram flattened, so that a copy can be
 * corrupted, held or sent twice. */
static int wire_send_faulty(nic_wire_t *w, const struct sockaddr_in *to,
                            const nic_wire_env_t *env, const struct iovec *iov, int iovcnt,
                            const uint8_t *mac)
{
    const nic_fault_t *f = &w->fault;
    uint8_t *copy;
    size_t len = 0;
    int rc;

    if (f->drop > 0 && wire_rand(w) < f->drop) {
        w->st.fault_drop++;
        return NIC_OK;
    }
    copy = malloc(NIC_WIRE_DGRAM_MAX);
    if (copy == NULL)
        return NIC_ERR_NO_MEMORY;
    memcpy(copy, env, sizeof(*env));
    len = sizeof(*env);
    for (int i = 0; i < iovcnt && len + iov[i].iov_len <= NIC_WIRE_DGRAM_MAX - NIC_WIRE_MAC_LEN;
         i++) {
        memcpy(copy + len, iov[i].iov_base, iov[i].iov_len);
        len += iov[i].iov_len;
    }
    memcpy(copy + len, mac, NIC_WIRE_MAC_LEN);
    len += NIC_WIRE_MAC_LEN;
    if (f->corrupt > 0 && wire_rand(w) < f->corrupt) {
        size_t at = (size_t)(wire_rand(w) * (double)len);
        copy[at < len ? at : len - 1] ^= (uint8_t)(1u << (w->rng & 7));
        w->st.fault_corrupt++;
    }
    if (f->reorder > 0 && !w->held && wire_rand(w) < f->reorder) {
        memcpy(w->held_buf, copy, len);
        w->held_len = len;
        w->held_to = *to;
        w->held = 1;
        w->held_since = nic_now_ns();
        w->st.fault_reorder++;
        free(copy);
        return NIC_OK;
    }
    struct iovec one = { copy, len };
    rc = wire_sendmsg(w, to, &one, 1);
    if (f->dup > 0 && wire_rand(w) < f->dup) {
        w->st.fault_dup++;
        wire_sendmsg(w, to, &one, 1);
    }
    if (w->held)
        wire_release_held(w);
    free(copy);
    return rc;
}

static int wire_faults_on(const nic_wire_t *w)
{
    const nic_fault_t *f = &w->fault;
    return f->drop > 0 || f->dup > 0 || f->reorder > 0 || f->corrupt > 0;
}

/* One datagram of a frame: sealed, then sent (faults applied). */
static int wire_send_one(nic_wire_t *w, const struct sockaddr_in *to, uint64_t job,
                         const nic_wire_cut_t *cut, const struct iovec *iov, int iovcnt)
{
    nic_wire_env_t env;
    uint8_t mac[NIC_WIRE_MAC_LEN];
    int rc;

    if ((rc = nic_wire_auth_seal(w, job, cut, &env, iov, iovcnt, mac)) != NIC_OK)
        return rc;
    if (wire_faults_on(w))
        return wire_send_faulty(w, to, &env, iov, iovcnt, mac);
    return wire_sendmsg_sealed(w, to, &env, iov, iovcnt, mac);
}

/* The padding of last pieces (see nic_wire.h, "Path MTU"). */
static const uint8_t wire_zero_pad[NIC_WIRE_PAD_MAX];

/* Bytes of piece k of a frame of len bytes in pieces of piece_len, and the
 * padding that makes it piece_len long. */
static size_t piece_bytes(size_t len, size_t piece_len, unsigned k, size_t *pad)
{
    size_t off = k * piece_len, n = len - off < piece_len ? len - off : piece_len;
    *pad = piece_len - n;
    return n;
}

int nic_wire_send(nic_wire_t *w, const struct sockaddr_in *to, uint64_t job,
                  const struct iovec *iov, int iovcnt)
{
    size_t len = 0, piece_len;
    nic_wire_cut_t cut;
    unsigned pieces;

    for (int i = 0; i < iovcnt; i++)
        len += iov[i].iov_len;
    if ((pieces = nic_wire_cut_plan(w, len, &piece_len)) == 1)
        return wire_send_one(w, to, job, NULL, iov, iovcnt);
    w->st.tx_cut++;
    cut.pieces = pieces;
    cut.frame_len = len;
    for (cut.piece = 0; cut.piece < pieces; cut.piece++) {
        struct iovec part[7];
        size_t pad, n_bytes = piece_bytes(len, piece_len, cut.piece, &pad);
        int n = nic_wire_iov_slice(iov, iovcnt, cut.piece * piece_len, n_bytes, part, 6), rc;

        if (n < 0)
            return NIC_ERR_INVALID;
        if (pad > 0)
            part[n++] = (struct iovec){ (void *)wire_zero_pad, pad };
        if ((rc = wire_send_one(w, to, job, &cut, part, n)) != NIC_OK)
            return rc;
    }
    return NIC_OK;
}

/* Queue one datagram of a stable frame: len bytes at buf, then pad bytes
 * of padding. */
static int wire_queue(nic_wire_t *w, const struct sockaddr_in *to, uint64_t job,
                      const nic_wire_cut_t *cut, const void *buf, size_t len, size_t pad)
{
    struct iovec body[2] = { { (void *)buf, len }, { (void *)wire_zero_pad, pad } };
    struct iovec *parts = &w->tx_parts[NIC_WIRE_TX_PARTS * w->tx_n];
    unsigned i = w->tx_n;
    int rc;

    rc = nic_wire_auth_seal(w, job, cut, &w->tx_env[i], body, pad > 0 ? 2 : 1, w->tx_mac[i]);
    if (rc != NIC_OK)
        return rc;
    w->tx_to[i] = *to;
    w->tx_iov[i] = (struct iovec){ (void *)buf, len + pad };
    parts[0] = (struct iovec){ &w->tx_env[i], sizeof(w->tx_env[i]) };
    parts[1] = body[0];
    parts[2] = body[1];
    parts[3] = (struct iovec){ w->tx_mac[i], NIC_WIRE_MAC_LEN };
    w->tx_n++;
    return NIC_OK;
}

int nic_wire_send_stable(nic_wire_t *w, const struct sockaddr_in *to, uint64_t job,
                         const void *buf, size_t len)
{
    struct iovec iov = { (void *)buf, len };
    size_t piece_len;
    unsigned pieces;
    nic_wire_cut_t cut;

    if (wire_faults_on(w))
        return nic_wire_send(w, to, job, &iov, 1);   /* faults decide per datagram */
    pieces = nic_wire_cut_plan(w, len, &piece_len);
    cut = (nic_wire_cut_t){ .pieces = pieces, .frame_len = len };
    _Static_assert(NIC_WIRE_TX_BATCH >= NIC_WIRE_MAX_PIECES, "a frame's pieces fit the queue");
    if (w->tx_n + pieces > NIC_WIRE_TX_BATCH)
        nic_wire_flush_tx(w);
    if (pieces == 1)
        return wire_queue(w, to, job, NULL, buf, len, 0);
    w->st.tx_cut++;
    for (cut.piece = 0; cut.piece < pieces; cut.piece++) {
        size_t pad, n = piece_bytes(len, piece_len, cut.piece, &pad);
        int rc = wire_queue(w, to, job, &cut, (const uint8_t *)buf + cut.piece * piece_len, n,
                            pad);
        if (rc != NIC_OK)
            return rc;
    }
    return NIC_OK;
}

int nic_wire_flush(nic_wire_t *w, uint64_t now_ns)
{
    if (w->held && now_ns - w->held_since > NIC_WIRE_HOLD_NS) {
        wire_release_held(w);
        return 1;
    }
    return 0;
}

int nic_addr_parse(const char *text, struct sockaddr_in *sa)
{
    char ip[64];
    const char *colon = strrchr(text, ':');
    char *end;
    unsigned long port;

    if (colon == NULL || (size_t)(colon - text) >= sizeof(ip))
        return NIC_ERR_INVALID;
    memcpy(ip, text, (size_t)(colon - text));
    ip[colon - text] = '\0';
    port = strtoul(colon + 1, &end, 10);
    if (*end != '\0' || port > 65535)
        return NIC_ERR_INVALID;
    memset(sa, 0, sizeof(*sa));
    sa->sin_family = AF_INET;
    sa->sin_port = htons((uint16_t)port);
    return inet_pton(AF_INET, ip, &sa->sin_addr) == 1 ? NIC_OK : NIC_ERR_INVALID;
}

void nic_addr_format(const struct sockaddr_in *sa, char *buf, size_t len)
{
    char ip[INET_ADDRSTRLEN] = "?";
    inet_ntop(AF_INET, &sa->sin_addr, ip, sizeof(ip));
    snprintf(buf, len, "%s:%u", ip, ntohs(sa->sin_port));
}
