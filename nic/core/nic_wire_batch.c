/* nic_wire_batch.c - the wire's batched paths: the frames a firmware turn
 * queued leave in one sendmmsg, runs of equal-sized frames to one peer as
 * UDP GSO super-datagrams; receives take up to NIC_WIRE_RX_BATCH datagrams
 * per recvmmsg, a GRO train (several datagrams in one buffer) split again,
 * and every datagram's envelope checked (nic_wire_auth.c) before its frame
 * goes up.  A datagram is envelope, frame (or a piece of it), padding and
 * MAC, gathered from four parts: the kernel cuts a train by bytes, so the
 * parts of consecutive datagrams simply follow each other. */
#include "config.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <string.h>
#include <sys/socket.h>

#include "nic_fw.h"
#include "nic_log.h"
#include "nic_wire.h"


void nic_wire_set_offload(nic_wire_t *w, int on)
{
    int gro = on ? 1 : 0, zero = 0;

    /* Setting the per-socket segment size to 0 only asks whether the
     * kernel knows UDP_SEGMENT; each train sets its size in a cmsg. */
    w->gso = on && setsockopt(w->fd, SOL_UDP, UDP_SEGMENT, &zero, sizeof(zero)) == 0;
    w->gro = setsockopt(w->fd, SOL_UDP, UDP_GRO, &gro, sizeof(gro)) == 0 && on;
}

static int same_addr(const struct sockaddr_in *a, const struct sockaddr_in *b)
{
    return a->sin_addr.s_addr == b->sin_addr.s_addr && a->sin_port == b->sin_port;
}

unsigned nic_wire_gso_run(const struct sockaddr_in *to, const struct iovec *iov, unsigned n,
                          unsigned i)
{
    size_t seg = iov[i].iov_len, bytes = seg + NIC_WIRE_OVERHEAD;
    unsigned k = 1;

    while (i + k < n && k < NIC_WIRE_GSO_MAX_SEGS && same_addr(&to[i], &to[i + k]) &&
           iov[i + k].iov_len <= seg &&
           bytes + iov[i + k].iov_len + NIC_WIRE_OVERHEAD <= NIC_WIRE_GSO_MAX_BYTES) {
        bytes += iov[i + k].iov_len + NIC_WIRE_OVERHEAD;
        if (iov[i + k++].iov_len < seg)
            break;   /* a shorter frame can only close a train */
    }
    return k;
}

typedef union wire_cmsg {
    char           buf[CMSG_SPACE(sizeof(uint16_t))];
    struct cmsghdr align;
} wire_cmsg_t;

/* The messages for frames first.. of the queue: one per frame, or one per
 * train with GSO.  count[m] says how many frames message m carries. */
static unsigned wire_build_tx(nic_wire_t *w, unsigned first, struct mmsghdr *msgs,
                              wire_cmsg_t *ctl, unsigned *count)
{
    unsigned m = 0;

    for (unsigned i = first; i < w->tx_n; m++) {
        unsigned k = w->gso ? nic_wire_gso_run(w->tx_to, w->tx_iov, w->tx_n, i) : 1;
        struct msghdr *h = &msgs[m].msg_hdr;

        memset(h, 0, sizeof(*h));
        h->msg_name = &w->tx_to[i];
        h->msg_namelen = sizeof(w->tx_to[i]);
        h->msg_iov = &w->tx_parts[NIC_WIRE_TX_PARTS * i];
        h->msg_iovlen = NIC_WIRE_TX_PARTS * (size_t)k;
        if (k > 1) {
            struct cmsghdr *c;
            h->msg_control = ctl[m].buf;
            h->msg_controllen = sizeof(ctl[m].buf);
            c = CMSG_FIRSTHDR(h);
            c->cmsg_level = SOL_UDP;
            c->cmsg_type = UDP_SEGMENT;
            c->cmsg_len = CMSG_LEN(sizeof(uint16_t));
            uint16_t seg = (uint16_t)(w->tx_iov[i].iov_len + NIC_WIRE_OVERHEAD);
            memcpy(CMSG_DATA(c), &seg, sizeof(seg));
        }
        count[m] = k;
        i += k;
    }
    return m;
}

int nic_wire_flush_tx(nic_wire_t *w)
{
    struct mmsghdr msgs[NIC_WIRE_TX_BATCH];
    wire_cmsg_t ctl[NIC_WIRE_TX_BATCH];
    unsigned count[NIC_WIRE_TX_BATCH];
    unsigned f = 0, n = w->tx_n;

    while (f < n) {
        unsigned m = wire_build_tx(w, f, msgs, ctl, count);
        int k = sendmmsg(w->fd, msgs, m, 0);

        if (k < 0) {
            if (errno == EINTR)
                continue;
            if (count[0] > 1 && (errno == EINVAL || errno == EIO || errno == EMSGSIZE)) {
                /* The route or the kernel refuses a train (a segment above
                 * the path MTU, no checksum offload): one datagram per
                 * frame from now on. */
                nic_log_info(w->log,
                             "wire: UDP segmentation offload refused (%s); sending frame by "
                             "frame", strerror(errno));
                w->gso = 0;
                continue;
            }
            /* The frames at the head are lost on this wire (a full socket
             * buffer, an unreachable port); reliability recovers. */
            w->st.tx_errors += count[0];
            f += count[0];
            continue;
        }
        for (int j = 0; j < k; j++) {
            w->st.tx_frames += count[j];
            w->st.tx_trains += count[j] > 1;
            w->st.tx_bytes += msgs[j].msg_len;
            f += count[j];
        }
    }
    w->tx_n = 0;
    return (int)n;
}

/* The segment size of a GRO train, 0 for a plain datagram. */
static size_t wire_gro_size(struct msghdr *h)
{
    for (struct cmsghdr *c = CMSG_FIRSTHDR(h); c != NULL; c = CMSG_NXTHDR(h, c))
        if (c->cmsg_level == SOL_UDP && c->cmsg_type == UDP_GRO) {
            int seg;
            memcpy(&seg, CMSG_DATA(c), sizeof(seg));
            return seg > 0 ? (size_t)seg : 0;
        }
    return 0;
}

typedef union wire_rx_cmsg {
    char           buf[CMSG_SPACE(sizeof(int))];
    struct cmsghdr align;
} wire_rx_cmsg_t;

/* A datagram of a train at an odd offset (segments of odd length), copied
 * to an aligned place in rx_align: personalities read their headers in
 * place (the envelope before the frame keeps its alignment).  rx_align is as large as the receive buffers, and each buffer's
 * copies fit its share: a train has at most 64 frames, each copy grows by
 * at most 7 bytes, and 64 x 7 is less than what a 65000-byte train leaves
 * of its 64 KiB buffer. */
static uint8_t *wire_aligned(nic_wire_t *w, uint8_t *frame, size_t len, size_t *cursor)
{
    uint8_t *to;

    if (((uintptr_t)frame & 7) == 0 ||
        *cursor + len > (size_t)NIC_WIRE_RX_BATCH * NIC_WIRE_RX_BUF)
        return frame;
    to = w->rx_align + *cursor;
    memcpy(to, frame, len);
    *cursor += (len + 7) & ~(size_t)7;
    return to;
}

/* A piece to its frame: the frame when it is whole.  Frames handed up
 * keep their slots until the personality is done with them; when half the
 * slots are so held (many frames in one receive call), it is told to be
 * done early, so that the partial frames always have room. */
static uint8_t *wire_join(nic_wire_t *w, const nic_wire_env_t *env, const uint8_t *piece,
                          size_t *len, nic_wire_rx_done_fn done, void *arg)
{
    if (w->reasm_handed >= NIC_WIRE_REASM_SLOTS / 2) {
        if (done != NULL)
            done(arg);
        nic_wire_reasm_release(w);
    }
    return nic_wire_reasm_add(w, env, piece, *len, len);
}

int nic_wire_recv(nic_wire_t *w, int max, nic_wire_rx_fn fn, nic_wire_rx_done_fn done, void *arg)
{
    struct mmsghdr msgs[NIC_WIRE_RX_BATCH];
    struct iovec iov[NIC_WIRE_RX_BATCH];
    struct sockaddr_in from[NIC_WIRE_RX_BATCH];
    wire_rx_cmsg_t ctl[NIC_WIRE_RX_BATCH];
    int total = 0;

    while (total < max) {
        int want = max - total < NIC_WIRE_RX_BATCH ? max - total : NIC_WIRE_RX_BATCH;
        for (int i = 0; i < want; i++) {
            iov[i].iov_base = w->rx_bufs + (size_t)i * NIC_WIRE_RX_BUF;
            iov[i].iov_len = NIC_WIRE_RX_BUF;
            memset(&msgs[i].msg_hdr, 0, sizeof(msgs[i].msg_hdr));
            msgs[i].msg_hdr.msg_iov = &iov[i];
            msgs[i].msg_hdr.msg_iovlen = 1;
            msgs[i].msg_hdr.msg_name = &from[i];
            msgs[i].msg_hdr.msg_namelen = sizeof(from[i]);
            if (w->gro) {
                msgs[i].msg_hdr.msg_control = ctl[i].buf;
                msgs[i].msg_hdr.msg_controllen = sizeof(ctl[i].buf);
            }
        }
        int n = recvmmsg(w->fd, msgs, (unsigned)want, MSG_DONTWAIT, NULL);
        size_t cursor = 0;
        if (n <= 0)
            break;
        for (int i = 0; i < n; i++) {
            uint8_t *buf = iov[i].iov_base;
            size_t len = msgs[i].msg_len;
            size_t seg = w->gro ? wire_gro_size(&msgs[i].msg_hdr) : 0;

            if (seg == 0 || seg >= len)
                seg = len;
            else
                w->st.rx_trains++;
            w->st.rx_bytes += len;
            for (size_t off = 0; off < len; off += seg) {
                size_t dlen = len - off < seg ? len - off : seg, flen;
                nic_wire_env_t env;
                uint8_t *frame = nic_wire_auth_open(w, &from[i],
                                                    wire_aligned(w, buf + off, dlen, &cursor),
                                                    dlen, &env, &flen);
                if (frame != NULL && env.pieces > 1)
                    frame = wire_join(w, &env, frame, &flen, done, arg);
                if (frame == NULL)
                    continue;
                w->st.rx_frames++;
                fn(arg, &from[i], env.job, frame, flen);
            }
        }
        if (done != NULL)
            done(arg);
        nic_wire_reasm_release(w);
        total += n;
        if (n < want)
            break;
    }
    return total;
}

int nic_wire_rx_holds(const nic_wire_t *w, const void *p)
{
    const uint8_t *b = p;
    const size_t size = (size_t)NIC_WIRE_RX_BATCH * NIC_WIRE_RX_BUF;
    return (w->rx_bufs != NULL && b >= w->rx_bufs && b < w->rx_bufs + size) ||
           (w->rx_align != NULL && b >= w->rx_align && b < w->rx_align + size) ||
           nic_wire_reasm_holds(w, p);
}
