/*
 * thread_stress.c - plain-C stress of the progress thread, run under TSan:
 * three emulated nodes, the relay alternating between computing and
 * calling in, messages of mixed sizes forwarded and direct, ANY_SOURCE
 * receives at the destination.  Exit status 0 means every message arrived
 * intact and in order; TSan reports any data race between the caller and
 * the progress thread.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "forkjob.h"

#define CTX 5
enum { COUNT = 200 };

static const char *const nodes3[] = { "n0", "n1", "n2" };
static const char *const split3[][2] = {
    { "n0", "multidev-node-config 1\nnode n0\ndevice tnet\n"
            "route n0 0 inf tnet -\nroute n1 0 inf tnet -\n"
            "route n2 0 4095 tnet -\nroute n2 4096 inf tnet n1\n" },
    { "n1", "multidev-node-config 1\nnode n1\ndevice tnet\n"
            "route n0 0 inf tnet -\nroute n1 0 inf tnet -\n"
            "route n2 0 inf tnet -\n" },
    { "n2", "multidev-node-config 1\nnode n2\ndevice tnet\n"
            "route n0 0 4095 tnet -\nroute n0 4096 inf tnet n1\n"
            "route n1 0 inf tnet -\nroute n2 0 inf tnet -\n" },
    { NULL, NULL },
};

static size_t len_of(int i)
{
    return i % 3 == 0 ? 100000 + (size_t)i : (size_t)(i * 13) % 4096;
}

static int stress(md_t *md, int rank, int size, forkjob_shared_t *sh, void *arg)
{
    static uint8_t buf[200000];
    int rc = 0;

    (void)arg;
    for (int i = 0; i < COUNT && rc == 0; i++) {
        md_request_t req = { 0 };
        size_t len = len_of(i);

        if (rank == 0) {
            memset(buf, (int)(i & 0xff), len);
            if (md_isend(md, &req, buf, len, 2, 0, i & 7, CTX, 0) != MD_OK ||
                forkjob_wait(md, &req) != 0)
                rc = 20;
        } else if (rank == 2) {
            if (md_irecv(md, &req, buf, sizeof(buf), -1, MD_ANY_SOURCE,
                         MD_ANY_TAG, CTX, NULL) != MD_OK ||
                forkjob_wait(md, &req) != 0)
                rc = 21;
            else if (req.status.size != len || req.status.tag != (i & 7) ||
                     (len > 0 && (buf[0] != (uint8_t)i || buf[len - 1] != (uint8_t)i)))
                rc = 22;
        } else if (i % 20 == 0) {
            for (int k = 0; k < 2000; k++)      /* compute, then call in */
                sched_yield();
            md_progress(md);
        }
    }
    forkjob_finish(sh);
    if (forkjob_serve(md, sh, size) != 0 && rc == 0)
        rc = 99;
    return rc;
}

int main(void)
{
    int rc;

    setenv("MULTIDEV_PROGRESS_THREAD", "on", 1);
    rc = forkjob_run(3, nodes3, split3, stress, NULL, 240);
    printf("thread_stress: %d messages through a relay with a progress thread: %s\n",
           COUNT, rc == 0 ? "ok" : "FAILED");
    return rc == 0 ? 0 : 1;
}
