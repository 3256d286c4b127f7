/*
 * mp_ranks.h - rank bodies shared by mp_test (Criterion) and mp_smoke
 * (plain C, run under ThreadSanitizer).  Each is a tb_rank_fn; arg is a
 * NULL-terminated list of "key=value" subdevice parameters or NULL.
 */
#ifndef MP_RANKS_H
#define MP_RANKS_H

#include "shm_test_boot.h"

#define CTX 1u
#define MAX_MSG (4u << 20)

/* Blocking helpers built on isend/irecv + tb_wait (TB_CHECK on failure). */
void send_wait(tb_dev_t *dev, int dst, const void *buf, size_t len, int tag,
               uint32_t flags);
void recv_wait(tb_dev_t *dev, int src, void *buf, size_t len, int tag,
               md_request_t *r);

/* 2 ranks: ping-pong 0 B .. 4 MiB both ways with data checks; sets
 * tb->flags[rank] to 1 if large messages used CMA, 2 if pipelined. */
int pingpong_rank(tb_shared_t *tb, int rank, void *arg);
/* 2 ranks: windows of 64 isends through a (small) ring, order checked. */
int window_rank(tb_shared_t *tb, int rank, void *arg);
/* n ranks: ranks 1.. send to rank 0, which receives with ANY_SOURCE and
 * checks per-sender order. */
int any_source_rank(tb_shared_t *tb, int rank, void *arg);
/* 2 ranks: small and large system messages; never matched by a user
 * receive. */
int sysmsg_rank(tb_shared_t *tb, int rank, void *arg);

#endif
