/*
 * md_complete.h - finishing a subdevice's requests, helpers for subdevices:
 * the status of a receive, the per-subdevice counters, the hand-off of a
 * finished request to the host, and the request a subdevice makes for
 * itself to receive a system message too large to arrive in one piece.
 * Not thread-safe: the caller serialises.
 */
#ifndef MD_COMPLETE_H
#define MD_COMPLETE_H

#include <stdint.h>

#include "md_sdi.h"

/* Fills req->status for a message of envelope env of which delivered bytes
 * reached the buffer (fewer than env->size: MD_ERR_TRUNCATE), received by
 * the subdevice of index subdev. */
void md_recv_status_set(md_request_t *req, const md_envelope_t *env, uint64_t delivered,
                        int32_t subdev);

/* Counts a finished request in the per-subdevice counters (successes and
 * truncations; sends by user or system message). */
void md_counters_complete(md_subdev_counters_t *c, const md_request_t *req);

/* A receive request with a buffer of env->size bytes, for a system message
 * from world rank src that the subdevice receives itself; NULL when out of
 * memory.  md_complete_hand() with sysmsg set frees both. */
md_request_t *md_sysmsg_recv_new(const md_envelope_t *env, int32_t src);

/* Hands a finished request to the host.  sysmsg: req came from
 * md_sysmsg_recv_new(); its payload goes to host->sysmsg() (or, if it
 * failed, its loss is logged as from rank src) and it is freed.
 * Otherwise req is counted and goes to host->complete(). */
void md_complete_hand(md_subdev_t *sd, md_request_t *req, int sysmsg, int32_t src);

#endif /* MD_COMPLETE_H */
