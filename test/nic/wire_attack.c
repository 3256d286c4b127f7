/*
 * wire_attack.c - a stranger on the network of a job, for the namespace
 * tests (test/mpi/hosts.sh): it captures the job's datagrams where it can
 * see them and sends forged, replayed, malformed and flooding datagrams to
 * a firmware.  Every command is bounded in count and time.
 *
 *   wire_attack capture [--port P] [--count N] [--timeout-ms T] --out FILE
 *       (run inside the target host) records the first N datagrams that
 *       arrive for UDP port P (any port if none is given, then only that
 *       of the first) and carry our wire's envelope: source, destination
 *       and payload.  Prints "tag <hex> port <P> captured <N>".
 *   wire_attack replay --in FILE --to IP:PORT [--spoof]
 *       sends the captured datagrams again, from a socket of its own or,
 *       with --spoof, from the address they first came from (raw IP).
 *   wire_attack forge --in FILE --to IP:PORT
 *       a Myrinet data packet with a correct CRC for the captured
 *       datagram's job and destination endpoint, in an envelope with that
 *       job's tag and a made-up MAC, and again with no envelope at all.
 *   wire_attack garbage --to IP:PORT [--count N]
 *       random bytes of random lengths.
 *   wire_attack flood --to IP:PORT [--ports N]
 *       from N source ports: a Myrinet ACK (correct CRC) without envelope
 *       and one in an envelope with a made-up MAC.
 *
 * Exit status 0 when everything was sent (or captured), 1 otherwise.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/ip.h>
#include <netinet/udp.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "core/nic_wire.h"
#include "myri/myri_wire.h"

#define MAX_CAPTURE 16

typedef struct captured {
    struct sockaddr_in from, to;
    uint32_t           len;
    uint8_t            data[NIC_WIRE_DGRAM_MAX];
} captured_t;

typedef struct opts {
    const char        *cmd, *in, *out;
    struct sockaddr_in to;
    int                have_to, port, count, ports, timeout_ms, spoof;
} opts_t;

static int die(const char *what)
{
    fprintf(stderr, "wire_attack: %s\n", what);
    return 1;
}

static uint64_t now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

static int send_from_new_port(const struct sockaddr_in *to, const void *buf, size_t len)
{
    int s = socket(AF_INET, SOCK_DGRAM, 0);
    ssize_t n = -1;

    if (s >= 0) {
        n = sendto(s, buf, len, 0, (const struct sockaddr *)to, sizeof(*to));
        close(s);
    }
    return n == (ssize_t)len ? 0 : -1;
}

/* --- capture --- */

static int cmd_capture(const opts_t *o)
{
    int s = socket(AF_INET, SOCK_RAW, IPPROTO_UDP), n = 0, port = o->port;
    uint64_t end = now_ms() + (uint64_t)o->timeout_ms;
    static captured_t cap[MAX_CAPTURE];
    FILE *f;

    if (s < 0)
        return die("a raw socket needs root (CAP_NET_RAW) in this network namespace");
    while (n < o->count && now_ms() < end) {
        uint8_t pkt[70000];
        struct pollfd p = { .fd = s, .events = POLLIN };
        if (poll(&p, 1, 100) <= 0)
            continue;
        ssize_t len = recv(s, pkt, sizeof(pkt), 0);
        if (len < (ssize_t)sizeof(struct iphdr))
            continue;
        struct iphdr ip;
        struct udphdr udp;
        memcpy(&ip, pkt, sizeof(ip));
        size_t off = (size_t)ip.ihl * 4;
        if ((size_t)len < off + sizeof(udp))
            continue;
        memcpy(&udp, pkt + off, sizeof(udp));
        size_t plen = (size_t)len - off - sizeof(udp);
        const uint8_t *payload = pkt + off + sizeof(udp);
        uint16_t magic;
        if ((port != 0 && ntohs(udp.dest) != port) || plen < NIC_WIRE_OVERHEAD ||
            plen > NIC_WIRE_DGRAM_MAX)
            continue;
        memcpy(&magic, payload, sizeof(magic));
        if (magic != NIC_WIRE_MAGIC)
            continue;
        port = ntohs(udp.dest);
        captured_t *c = &cap[n++];
        c->from = (struct sockaddr_in){ .sin_family = AF_INET, .sin_port = udp.source,
                                        .sin_addr.s_addr = ip.saddr };
        c->to = (struct sockaddr_in){ .sin_family = AF_INET, .sin_port = udp.dest,
                                      .sin_addr.s_addr = ip.daddr };
        c->len = (uint32_t)plen;
        memcpy(c->data, payload, plen);
    }
    close(s);
    if (n == 0)
        return die("captured nothing: no datagram of our wire reached that port in time");
    if ((f = fopen(o->out, "wb")) == NULL || fwrite(cap, sizeof(cap[0]), (size_t)n, f) != (size_t)n)
        return die("cannot write the capture file");
    fclose(f);
    nic_wire_env_t env;
    memcpy(&env, cap[0].data, sizeof(env));
    char to[64];
    nic_addr_format(&cap[0].to, to, sizeof(to));
    printf("tag %016llx to %s port %d captured %d\n", (unsigned long long)env.job, to, port, n);
    return 0;
}

static int load(const char *path, captured_t *cap, int *n)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return -1;
    *n = (int)fread(cap, sizeof(cap[0]), MAX_CAPTURE, f);
    fclose(f);
    return *n > 0 ? 0 : -1;
}

/* --- replay --- */

static uint16_t csum16(const void *data, size_t len, uint32_t sum)
{
    const uint8_t *p = data;
    for (size_t i = 0; i + 1 < len; i += 2)
        sum += (uint32_t)(p[i] << 8 | p[i + 1]);
    if (len & 1)
        sum += (uint32_t)p[len - 1] << 8;
    while (sum >> 16)
        sum = (sum & 0xffff) + (sum >> 16);
    return (uint16_t)~sum;
}

/* One datagram from any source address (IP_HDRINCL). */
static int send_spoofed(const struct sockaddr_in *from, const struct sockaddr_in *to,
                        const uint8_t *payload, size_t len)
{
    static uint8_t pkt[70000];
    struct iphdr ip = { .ihl = 5, .version = 4, .ttl = 64, .protocol = IPPROTO_UDP,
                        .saddr = from->sin_addr.s_addr, .daddr = to->sin_addr.s_addr };
    struct udphdr udp = { .source = from->sin_port, .dest = to->sin_port,
                          .len = htons((uint16_t)(sizeof(udp) + len)) };
    int s = socket(AF_INET, SOCK_RAW, IPPROTO_RAW), on = 1;
    ssize_t n = -1;

    if (s < 0 || setsockopt(s, IPPROTO_IP, IP_HDRINCL, &on, sizeof(on)) != 0) {
        if (s >= 0)
            close(s);
        return -1;
    }
    ip.tot_len = htons((uint16_t)(sizeof(ip) + sizeof(udp) + len));
    ip.check = htons(csum16(&ip, sizeof(ip), 0));   /* the kernel fills it anyway */
    memcpy(pkt, &ip, sizeof(ip));
    memcpy(pkt + sizeof(ip), &udp, sizeof(udp));
    memcpy(pkt + sizeof(ip) + sizeof(udp), payload, len);
    /* UDP checksum 0: none (allowed for IPv4) */
    n = sendto(s, pkt, sizeof(ip) + sizeof(udp) + len, 0, (const struct sockaddr *)to,
               sizeof(*to));
    close(s);
    return n == (ssize_t)(sizeof(ip) + sizeof(udp) + len) ? 0 : -1;
}

static int cmd_replay(const opts_t *o)
{
    static captured_t cap[MAX_CAPTURE];
    int n, bad = 0;

    if (load(o->in, cap, &n) != 0)
        return die("cannot read the capture file");
    for (int r = 0; r < 2; r++)          /* each twice: a replay of a replay */
        for (int i = 0; i < n; i++)
            bad += o->spoof ? send_spoofed(&cap[i].from, &o->to, cap[i].data, cap[i].len) != 0
                            : send_from_new_port(&o->to, cap[i].data, cap[i].len) != 0;
    printf("replayed %d datagrams twice%s\n", n, o->spoof ? " from their own source" : "");
    return bad ? die("some replays could not be sent") : 0;
}

/* --- forged packets --- */

static size_t myri_packet(uint8_t *buf, uint8_t kind, uint64_t job_key, uint32_t dst_ep)
{
    myri_hdr_t h;
    size_t len = sizeof(h) + 16 + 1;

    memset(&h, 0, sizeof(h));
    h.type[0] = MYRI_TYPE0;
    h.type[1] = MYRI_TYPE1;
    h.type[2] = MYRI_TYPE2;
    h.type[3] = MYRI_TYPE3;
    h.src_fw = 0xbad;
    h.seq = kind == MYRI_KIND_DATA ? 1 : 0;
    h.ack = 0x7fffffff;            /* as if everything had been received */
    h.kind = kind;
    h.flags = MYRI_F_SYN;
    h.dst_ep = dst_ep;
    h.job_key = job_key;
    h.d.op = MYRI_OP_MEDIUM;
    h.d.handler = 1;
    h.d.len = 16;
    memcpy(buf, &h, sizeof(h));
    memset(buf + sizeof(h), 0xee, 16);
    buf[len - 1] = myri_crc8(0, buf, len - 1);
    return len;
}

/* An envelope naming tag around the frame, with a made-up MAC. */
static size_t enveloped(uint8_t *out, uint64_t tag, uint64_t sender, const uint8_t *frame,
                        size_t len)
{
    nic_wire_env_t env = { .magic = NIC_WIRE_MAGIC, .version = NIC_WIRE_VERSION,
                           .mac = NIC_WIRE_MAC_AESGCM, .pieces = 1, .job = tag,
                           .sender = sender, .counter = 1u << 30 };
    memcpy(out, &env, sizeof(env));
    memcpy(out + sizeof(env), frame, len);
    for (unsigned i = 0; i < NIC_WIRE_MAC_LEN; i++)
        out[sizeof(env) + len + i] = (uint8_t)rand();
    return sizeof(env) + len + NIC_WIRE_MAC_LEN;
}

static int cmd_forge(const opts_t *o)
{
    static captured_t cap[MAX_CAPTURE];
    uint8_t frame[256], dgram[512];
    nic_wire_env_t env;
    myri_hdr_t h;
    int n, bad = 0;

    if (load(o->in, cap, &n) != 0)
        return die("cannot read the capture file");
    memcpy(&env, cap[0].data, sizeof(env));
    memcpy(&h, cap[0].data + sizeof(env), sizeof(h));
    /* data to the endpoint the captured packet went to, in its job */
    size_t len = myri_packet(frame, MYRI_KIND_DATA, h.job_key, h.dst_ep);
    for (int i = 0; i < 50; i++) {
        bad += send_from_new_port(&o->to, dgram, enveloped(dgram, env.job, env.sender, frame,
                                                           len)) != 0;
        bad += send_from_new_port(&o->to, frame, len) != 0;
    }
    printf("forged 50 packets for job %016llx endpoint %#x with a made-up MAC, 50 without "
           "envelope\n", (unsigned long long)env.job, h.dst_ep);
    return bad ? die("some forged packets could not be sent") : 0;
}

static int cmd_garbage(const opts_t *o)
{
    uint8_t buf[2048];
    int bad = 0;

    for (int i = 0; i < o->count; i++) {
        size_t len = 1 + (size_t)rand() % sizeof(buf);
        for (size_t k = 0; k < len; k++)
            buf[k] = (uint8_t)rand();
        if (i % 3 == 0 && len >= sizeof(nic_wire_env_t)) {
            uint16_t m = NIC_WIRE_MAGIC;      /* looks like ours at first sight */
            memcpy(buf, &m, sizeof(m));
            buf[offsetof(nic_wire_env_t, version)] = NIC_WIRE_VERSION;
        }
        bad += send_from_new_port(&o->to, buf, len) != 0;
    }
    printf("sent %d datagrams of garbage\n", o->count);
    return bad ? die("some could not be sent") : 0;
}

static int cmd_flood(const opts_t *o)
{
    uint8_t frame[256], dgram[512];
    int bad = 0;

    for (int i = 0; i < o->ports; i++) {
        size_t len = myri_packet(frame, MYRI_KIND_ACK, 0, 0);
        bad += send_from_new_port(&o->to, frame, len) != 0;
        bad += send_from_new_port(&o->to, dgram,
                                  enveloped(dgram, (uint64_t)rand() << 32 | (uint64_t)rand(),
                                            (uint64_t)i + 1, frame, len)) != 0;
    }
    printf("flooded from %d ports, 2 datagrams each\n", o->ports);
    return bad ? die("some could not be sent") : 0;
}

int main(int argc, char **argv)
{
    static const struct option lo[] = {
        { "port", required_argument, NULL, 'p' }, { "count", required_argument, NULL, 'c' },
        { "timeout-ms", required_argument, NULL, 't' }, { "out", required_argument, NULL, 'o' },
        { "in", required_argument, NULL, 'i' }, { "to", required_argument, NULL, 'T' },
        { "spoof", no_argument, NULL, 's' }, { "ports", required_argument, NULL, 'P' },
        { NULL, 0, NULL, 0 },
    };
    opts_t o = { .count = 4, .ports = 1000, .timeout_ms = 10000 };
    int c;

    if (argc < 2)
        return die("usage: wire_attack capture|replay|forge|garbage|flood [options] (see the source)");
    o.cmd = argv[1];
    optind = 2;
    while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
        switch (c) {
        case 'p': o.port = atoi(optarg); break;
        case 'c': o.count = atoi(optarg); break;
        case 't': o.timeout_ms = atoi(optarg); break;
        case 'o': o.out = optarg; break;
        case 'i': o.in = optarg; break;
        case 'T':
            if (nic_addr_parse(optarg, &o.to) != 0)
                return die("--to wants IP:PORT");
            o.have_to = 1;
            break;
        case 's': o.spoof = 1; break;
        case 'P': o.ports = atoi(optarg); break;
        default: return die("unknown option");
        }
    }
    if (o.count < 1 || o.count > MAX_CAPTURE * 1000 || o.ports < 1 || o.ports > 10000 ||
        o.timeout_ms < 1 || o.timeout_ms > 600000)
        return die("a count, port count or timeout out of range");
    srand((unsigned)time(NULL) ^ (unsigned)getpid());
    if (strcmp(o.cmd, "capture") == 0) {
        if (o.port < 0 || o.port > 65535 || o.out == NULL)
            return die("capture needs --out (and a --port of 0..65535)");
        if (o.count > MAX_CAPTURE)
            o.count = MAX_CAPTURE;
        return cmd_capture(&o);
    }
    if (!o.have_to)
        return die("this command needs --to IP:PORT");
    if (strcmp(o.cmd, "replay") == 0 || strcmp(o.cmd, "forge") == 0) {
        if (o.in == NULL)
            return die("needs --in FILE (from capture)");
        return strcmp(o.cmd, "replay") == 0 ? cmd_replay(&o) : cmd_forge(&o);
    }
    if (strcmp(o.cmd, "garbage") == 0)
        return cmd_garbage(&o);
    if (strcmp(o.cmd, "flood") == 0)
        return cmd_flood(&o);
    return die("unknown command");
}
