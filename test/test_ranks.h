/* test_ranks.h - the parent side of a test job of forked ranks: wait for
 * them all, report each that failed, and kill those still running at the
 * deadline (never one already reaped, whose pid may have been reused).
 * Also the rank side's wait for one request by polling its subdevice. */
#ifndef TEST_RANKS_H
#define TEST_RANKS_H

#include <signal.h>
#include <stdio.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "md_sdi.h"
#include "test_idle.h"

/* SIGKILL to the ranks in pid[] not yet reaped (0). */
static inline void test_ranks_kill(const pid_t *pid, int n)
{
    for (int i = 0; i < n; i++)
        if (pid[i] > 0)
            kill(pid[i], SIGKILL);
}

/* Waits for the n ranks in pid[] (each set to 0 once reaped); who
 * prefixes the reports.  The first rank that fails decides: the others,
 * which would wait for it (a barrier, a message) until the deadline, are
 * killed then.  Returns 0 if every rank exited with 0, else the first
 * failing rank's status (its exit code, or 128 + its signal), or 124 if
 * ranks were still running after timeout_s (0: 60). */
static inline int test_ranks_reap(pid_t *pid, int n, unsigned timeout_s, const char *who)
{
    uint64_t deadline = test_idle_now_us() + (uint64_t)(timeout_s ? timeout_s : 60) * 1000000ull;
    int result = 0, left = n, st;

    while (left > 0) {
        pid_t p = waitpid(-1, &st, WNOHANG);
        if (p > 0) {
            int rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
            for (int i = 0; i < n; i++)
                if (pid[i] == p)
                    pid[i] = 0;     /* reaped: its pid may be reused */
            left--;
            if (rc != 0 && result == 0) {
                fprintf(stderr, "%s: rank pid %d %s %d; the others are killed\n", who, (int)p,
                        WIFEXITED(st) ? "exited with" : "killed by signal",
                        WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
                result = rc;
                test_ranks_kill(pid, n);
            }
            continue;
        }
        if (test_idle_now_us() > deadline) {
            fprintf(stderr, "%s: %d rank(s) still running at the timeout: killed\n", who, left);
            test_ranks_kill(pid, n);
            while (waitpid(-1, &st, 0) > 0)
                ;
            return 124;
        }
        usleep(1000);
    }
    return result;
}

/* Polls sd until req completes (its status) or timeout_ms pass
 * (MD_ERR_TIMEOUT); a progress error is returned as it comes. */
static inline int test_ranks_wait(int (*progress)(md_subdev_t *), md_subdev_t *sd,
                                  md_request_t *req, int timeout_ms)
{
    uint64_t end = test_idle_now_us() + (uint64_t)timeout_ms * 1000;
    test_idle_t idle = { 0 };

    while (!atomic_load(&req->complete)) {
        int rc = progress(sd);
        if (rc < 0)
            return rc;
        if (test_idle_now_us() > end)
            return MD_ERR_TIMEOUT;
        if (rc == 0)
            test_idle_wait(&idle);
        else
            test_idle_busy(&idle);
    }
    return req->status.error;
}

#endif
