/* test_req.h - the requests a subdevice test hands to a subdevice's isend
 * and irecv, filled as libmultidev fills them (world ranks are ranks, one
 * communicator context). */
#ifndef TEST_REQ_H
#define TEST_REQ_H

#include <stdint.h>
#include <string.h>

#include "md_sdi.h"

/* A send of len bytes from rank me to dst; the caller sets env.seq if the
 * subdevice's ordering is under test. */
static inline void test_req_send(md_request_t *req, int32_t me, int32_t dst, int32_t tag,
                                 uint32_t context, uint32_t flags, const void *buf, size_t len)
{
    memset(req, 0, sizeof(*req));
    req->kind = MD_REQ_SEND;
    req->peer_world = dst;
    req->buf = (void *)(uintptr_t)buf;
    req->len = len;
    req->env = (md_envelope_t){ .src_rank = me, .src_world = me, .dst_world = dst, .tag = tag,
                                .context_id = context, .flags = flags, .size = len };
}

/* A receive of at most len bytes from src (or MD_ANY_SOURCE) with tag (or
 * MD_ANY_TAG). */
static inline void test_req_recv(md_request_t *req, int32_t src, int32_t tag, uint32_t context,
                                 void *buf, size_t len)
{
    memset(req, 0, sizeof(*req));
    req->kind = MD_REQ_RECV;
    req->peer_world = src == MD_ANY_SOURCE ? -1 : src;
    req->buf = buf;
    req->len = len;
    req->match = (md_match_t){ .src_rank = src, .tag = tag, .context_id = context };
}

#endif
