/*
 * md_fail.h - ranks this rank can no longer reach (md_fail.c).
 */
#ifndef MD_FAIL_H
#define MD_FAIL_H

#include "md_core.h"

int  md_fail_setup(md_t *md);
void md_fail_free(md_t *md);
/* MD_OK while rank can be reached, else the status of its failure. */
int  md_rank_failed(const md_t *md, int32_t rank);
/* A subdevice reports that it can no longer reach rank (the SDI upcall
 * peer_failed): noted now, acted upon by md_fail_progress. */
void md_fail_peer_reported(md_t *md, md_subdev_t *sd, int32_t rank, int status);
/* Rank from, a relay, cannot reach rank (an FWD_UNREACH message): failed
 * here too if this rank's route to it passes from's node. */
void md_fail_unreach_received(md_t *md, int32_t from, int32_t rank, int status);
/* Draws the consequences of the failures noted since the last call (from
 * md_progress, outside any subdevice call); returns how many. */
int  md_fail_progress(md_t *md);

/* What the failure of a rank asks of the other parts. */
/* md_fwd*.c: flows to it fail, relayed flows touching it are forgotten,
 * receives only it could match in the forwarding receiver fail. */
void md_fwd_fail_rank(md_t *md, int32_t rank, int status);
/* md_fwd.c: tells rank to that failed cannot be reached from here. */
void md_fwd_send_unreach(md_t *md, int32_t to, int32_t failed, int status);
/* md_anyq.c: receives from it posted on several subdevices fail; and the
 * wildcard ones of communicators that hold it (md_wild.c). */
void md_anyq_fail_source(md_t *md, int32_t rank, int status);
void md_anyq_fail_wildcards(md_t *md, int32_t rank, int status);
/* md_pending.c: sends to it held back by back-pressure fail. */
void md_pending_fail(md_t *md, int32_t rank, int status);

#endif /* MD_FAIL_H */
