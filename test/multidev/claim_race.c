/*
 * claim_race.c - a plain-C stress test (Criterion cannot run under TSan):
 * subdevice progress threads racing to claim the duplicates of one receive.
 * Exactly one thread may win each claim, and the winner is recorded.  Built
 * in every configuration; the TSan build runs it to check the claim is
 * race-free.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "md_sdi.h"

enum { THREADS = 4, ROUNDS = 20000 };

static md_claim_t claims[ROUNDS];
static md_request_t dups[THREADS][ROUNDS];
static int wins[THREADS];
static pthread_barrier_t start;

static void *racer(void *arg)
{
    int me = (int)(intptr_t)arg;

    pthread_barrier_wait(&start);
    for (int r = 0; r < ROUNDS; r++)
        if (md_request_claim(&dups[me][r], me))
            wins[me]++;
    return NULL;
}

int main(void)
{
    pthread_t t[THREADS];
    int total = 0;

    for (int r = 0; r < ROUNDS; r++) {
        atomic_init(&claims[r].owner, -1);
        for (int i = 0; i < THREADS; i++)
            dups[i][r].claim = &claims[r];
    }
    pthread_barrier_init(&start, NULL, THREADS);
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, racer, (void *)(intptr_t)i);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    for (int i = 0; i < THREADS; i++)
        total += wins[i];
    for (int r = 0; r < ROUNDS; r++) {
        int owner = atomic_load(&claims[r].owner);
        if (owner < 0 || owner >= THREADS) {
            fprintf(stderr, "claim %d has no owner (%d)\n", r, owner);
            return 1;
        }
        /* the owner claiming again is idempotent, the others still lose */
        for (int i = 0; i < THREADS; i++)
            if (md_request_claim(&dups[i][r], i) != (i == owner)) {
                fprintf(stderr, "claim %d: thread %d got the wrong answer\n", r, i);
                return 1;
            }
    }
    if (total != ROUNDS) {
        fprintf(stderr, "%d claims won for %d receives\n", total, ROUNDS);
        return 1;
    }
    printf("claim_race: %d receives, %d threads, each claimed exactly once\n",
           ROUNDS, THREADS);
    return 0;
}
