/* log_sink.c - (plain C, for ThreadSanitizer) two NICs in one process, each
 * with its firmware as a thread of the process and its own log sink, as
 * two subdevices (myri and via) have them: every line about a NIC reaches
 * that NIC's sink alone, from its host library and from its firmware
 * thread alike, at the level MULTIDEV_LOG_LEVEL names; and the lines of
 * the one left still arrive after the other has gone.  Exits non-zero,
 * saying what went wrong, on any failure. */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/nic_host.h"
#include "core/nic_log.h"
#include "test_job.h"
#include "test_nic_rundir.h"

#define SINK_LINES 64

/* What one NIC's sink received: called from the host's thread and from
 * the NIC's firmware thread, hence the lock. */
typedef struct kept_lines {
    pthread_mutex_t lock;
    unsigned        n;
    int             level[SINK_LINES];
    char            text[SINK_LINES][256];
} kept_lines_t;

static void keep_line(void *arg, int level, const char *text)
{
    kept_lines_t *k = arg;

    pthread_mutex_lock(&k->lock);
    if (k->n < SINK_LINES) {
        k->level[k->n] = level;
        snprintf(k->text[k->n], sizeof(k->text[0]), "%s", text);
    }
    k->n++;
    pthread_mutex_unlock(&k->lock);
}

static unsigned kept_count(kept_lines_t *k)
{
    pthread_mutex_lock(&k->lock);
    unsigned n = k->n;
    pthread_mutex_unlock(&k->lock);
    return n;
}

/* Lines from index `from` on that hold `what` (at `level`, or any if < 0). */
static unsigned kept_with(kept_lines_t *k, unsigned from, const char *what, int level)
{
    unsigned found = 0;

    pthread_mutex_lock(&k->lock);
    for (unsigned i = from; i < k->n && i < SINK_LINES; i++)
        if (strstr(k->text[i], what) != NULL && (level < 0 || k->level[i] == level))
            found++;
    pthread_mutex_unlock(&k->lock);
    return found;
}

static int failures;

static void expect(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "log_sink: FAILED: %s\n", what);
        failures++;
    }
}

static nic_host_t *attach(const char *nic, kept_lines_t *k)
{
    nic_attach_opts_t o = { .node = "n0", .nic = nic, .pers = "echo", .start = 1,
                            .inproc = 1, .own_fw = 1, .timeout_ms = 5000,
                            .log = { keep_line, k } };
    nic_host_t *h = NULL;

    if (nic_host_attach(&o, &h) != NIC_OK) {
        fprintf(stderr, "log_sink: cannot attach %s\n", nic);
        exit(2);
    }
    return h;
}

/* An endpoint the firmware refuses (ring sizes that are no powers of two):
 * a warning of the firmware thread ("ring sizes <n>/...") and an error of
 * the host library naming the NIC, both said before the call returns. */
static void refused_open(nic_host_t *h, uint32_t sq_entries)
{
    nic_ep_t *ep = NULL;

    expect(nic_ep_open(h, test_jobp(1), sq_entries, 0, 4, &ep) == NIC_ERR_INVALID,
           "an endpoint with bad ring sizes is refused");
}

int main(void)
{
    static kept_lines_t a = { .lock = PTHREAD_MUTEX_INITIALIZER };
    static kept_lines_t b = { .lock = PTHREAD_MUTEX_INITIALIZER };
    nic_host_t *ha, *hb;

    if (test_nic_rundir("logsink") != 0)
        return 2;
    /* the level is read as a host attaches: info lines come through */
    setenv("MULTIDEV_LOG_LEVEL", "info", 1);
    ha = attach("a0", &a);
    hb = attach("b0", &b);
    expect(kept_with(&a, 0, "attached", NIC_LOG_INFO) == 1,
           "a0's firmware thread told a0's sink, at info, that this process attached");
    expect(kept_with(&b, 0, "attached", NIC_LOG_INFO) == 1,
           "b0's firmware thread told b0's sink, at info, that this process attached");

    refused_open(ha, 3);
    refused_open(hb, 5);
    expect(kept_with(&a, 0, "ring sizes 3/", NIC_LOG_WARN) == 1,
           "a0's firmware warning reached a0's sink");
    expect(kept_with(&a, 0, "node n0 nic a0: opening an endpoint failed", NIC_LOG_ERROR) == 1,
           "a0's host error reached a0's sink");
    expect(kept_with(&b, 0, "ring sizes 5/", NIC_LOG_WARN) == 1,
           "b0's firmware warning reached b0's sink");
    expect(kept_with(&b, 0, "node n0 nic b0: opening an endpoint failed", NIC_LOG_ERROR) == 1,
           "b0's host error reached b0's sink");
    expect(kept_with(&a, 0, "ring sizes 5/", -1) == 0 && kept_with(&a, 0, "nic b0", -1) == 0,
           "nothing of b0 reached a0's sink");
    expect(kept_with(&b, 0, "ring sizes 3/", -1) == 0 && kept_with(&b, 0, "nic a0", -1) == 0,
           "nothing of a0 reached b0's sink");

    /* a0 goes (its firmware thread with it); b0 still says what it does */
    nic_host_detach(ha);
    unsigned a_after = kept_count(&a), b_after = kept_count(&b);
    refused_open(hb, 7);
    expect(kept_with(&b, b_after, "ring sizes 7/", NIC_LOG_WARN) == 1,
           "b0's firmware lines still reach b0's sink once a0 is gone");
    expect(kept_with(&b, b_after, "node n0 nic b0: opening an endpoint failed",
                     NIC_LOG_ERROR) == 1,
           "b0's host lines still reach b0's sink once a0 is gone");
    expect(kept_count(&a) == a_after, "a0's sink hears nothing once a0 is gone");
    nic_host_detach(hb);

    if (failures == 0)
        printf("log_sink: two NICs, two sinks: %u and %u lines, none astray\n", kept_count(&a),
               kept_count(&b));
    return failures == 0 ? 0 : 1;
}
