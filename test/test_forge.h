/*
 * test_forge.h - datagrams to a firmware from outside it, as a test sends
 * them: from a member of a job (the job's key, a proper envelope, so that
 * what the test checks is the personality's own handling of the frame),
 * from a stranger who knows the job's public tag but not its key (a forged
 * MAC), or with no envelope at all.  Each call uses a socket of its own on
 * loopback, so every datagram comes from a new port.
 */
#ifndef TEST_FORGE_H
#define TEST_FORGE_H

#include <arpa/inet.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/nic_job.h"
#include "core/nic_status.h"
#include "core/nic_wire.h"

/* As a member of job: NIC_OK once sent. */
static inline int test_send_as_member(const nic_job_t *job, const struct sockaddr_in *to,
                                      const void *frame, size_t len)
{
    nic_wire_t w;
    struct iovec iov = { (void *)frame, len };
    int rc;

    if ((rc = nic_wire_open(&w, "127.0.0.1", 0, NULL, NULL)) != NIC_OK)
        return rc;
    if ((rc = nic_wire_job_add(&w, job)) == NIC_OK)
        rc = nic_wire_send(&w, to, job->tag, &iov, 1);
    nic_wire_close(&w);
    return rc;
}

/* Bytes exactly as given, from a new port. */
static inline int test_send_raw(const struct sockaddr_in *to, const void *buf, size_t len)
{
    int s = socket(AF_INET, SOCK_DGRAM, 0);
    ssize_t n;

    if (s < 0)
        return NIC_ERR_IO;
    n = sendto(s, buf, len, 0, (const struct sockaddr *)to, sizeof(*to));
    close(s);
    return n == (ssize_t)len ? NIC_OK : NIC_ERR_IO;
}

/* A well-made envelope naming the job's tag around frame, whose MAC is not
 * the job's (mac_byte repeated; a stranger cannot compute the real one). */
static inline int test_send_forged(uint64_t tag, const struct sockaddr_in *to, const void *frame,
                                   size_t len, uint8_t mac_byte)
{
    static uint8_t buf[NIC_WIRE_DGRAM_MAX];
    nic_wire_env_t env = { .magic = NIC_WIRE_MAGIC, .version = NIC_WIRE_VERSION,
                           .mac = NIC_WIRE_MAC_POLY1305, .pieces = 1, .job = tag,
                           .sender = 0x5eed, .counter = 1 };

    if (len > NIC_WIRE_MTU)
        return NIC_ERR_INVALID;
    memcpy(buf, &env, sizeof(env));
    memcpy(buf + sizeof(env), frame, len);
    memset(buf + sizeof(env) + len, mac_byte, NIC_WIRE_MAC_LEN);
    return test_send_raw(to, buf, len + NIC_WIRE_OVERHEAD);
}

#endif /* TEST_FORGE_H */
