/*
 * shm_cma.c - the single-copy path: the receiver reads the sender's buffer
 * with process_vm_readv (Cross Memory Attach).
 *
 * The kernel allows it only when the reader may ptrace the owner: same
 * user, and Yama's ptrace_scope 0 (or 1 when the reader is an ancestor).
 * Containers may also forbid the call.  connect() therefore probes every
 * peer once, reading a word whose address and value the peer put in its
 * card; peers that cannot be read get the pipelined copy.  A sender that
 * helps its receiver copy (shm_help.c) writes with process_vm_writev; the
 * probe writes the same word back with the value it holds.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "shm_impl.h"

static int shm_cma_errno_status(int err)
{
    switch (err) {
    case EPERM:
    case EACCES:
    case ENOSYS:
        return MD_ERR_UNSUPPORTED;
    case ESRCH:
        return MD_ERR_PEER_FAILED;
    default:
        return MD_ERR_IO;
    }
}

/* process_vm_readv (write 0) or process_vm_writev (write 1) of len bytes
 * between local and the peer's remote, resumed after short transfers. */
static int shm_cma_rw(pid_t pid, void *local, uint64_t remote, size_t len, int write)
{
#if defined(HAVE_PROCESS_VM_READV) && defined(HAVE_PROCESS_VM_WRITEV)
    size_t done = 0;

    while (done < len) {
        struct iovec l = { .iov_base = (uint8_t *)local + done,
                           .iov_len = len - done };
        struct iovec r = { .iov_base = (void *)(uintptr_t)(remote + done),
                           .iov_len = len - done };
        ssize_t n = write ? process_vm_writev(pid, &l, 1, &r, 1, 0)
                          : process_vm_readv(pid, &l, 1, &r, 1, 0);

        if (n < 0) {
            if (errno == EINTR)
                continue;
            return shm_cma_errno_status(errno);
        }
        if (n == 0)
            return MD_ERR_IO;
        done += (size_t)n;
    }
    return MD_OK;
#else
    (void)pid; (void)local; (void)remote; (void)len; (void)write;
    return MD_ERR_UNSUPPORTED;
#endif
}

int shm_cma_read(pid_t pid, void *local, uint64_t remote, size_t len)
{
    return shm_cma_rw(pid, local, remote, len, 0);
}

int shm_cma_write(pid_t pid, const void *local, uint64_t remote, size_t len)
{
    return shm_cma_rw(pid, (void *)(uintptr_t)local, remote, len, 1);
}

int shm_cma_probe(pid_t pid, uint64_t addr, uint64_t expect)
{
    uint64_t value = 0;
    int rc = shm_cma_read(pid, &value, addr, sizeof(value));

    if (rc != MD_OK)
        return rc;
    return value == expect ? MD_OK : MD_ERR_IO;
}

int shm_cma_probe_write(pid_t pid, uint64_t addr, uint64_t value)
{
    return shm_cma_write(pid, &value, addr, sizeof(value));
}
