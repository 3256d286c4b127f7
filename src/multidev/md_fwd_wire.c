/*
 * md_fwd_wire.c - a forwarded chunk's header on the wire, and where a chunk
 * is cut so that each part still goes eagerly.  See md_fwd.h.
 */
#include "config.h"

#include <stddef.h>
#include <string.h>

#include "md_fwd.h"
#include "md_log.h"

size_t md_fwd_eager_cut(const md_t *md, int subdev, uint64_t offset, size_t len,
                        uint64_t size)
{
    size_t eager = md->devs.subdevs[subdev].attr.eager_limit;

    if (len <= eager && eager > 2 * MD_FWD_WIRE_PART &&
        len + md_fwd_wire_len(offset, len, size) > eager)
        return eager - MD_FWD_WIRE_PART;
    return len;
}

/* The wire form (md_fwd.h): the envelope's fields in order, its size last
 * and only for a part; the flags word holds the envelope's flags in its low
 * half, MD_FWD_F_* above them and MD_FWD_W_PART on top. */
#define MD_FWD_W_PART     0x80000000u
#define MD_FWD_ENV_FLAGS  0x0000ffffu
_Static_assert(MD_ENV_F_SYNC <= MD_FWD_ENV_FLAGS, "envelope flags must fit 16 bits");

typedef struct md_fwd_wire {
    int32_t  src_rank, src_world, dst_world, tag;
    uint32_t context_id;
    uint32_t flags;
    uint64_t seq;
    uint64_t size, offset;   /* a part only */
} md_fwd_wire_t;
_Static_assert(offsetof(md_fwd_wire_t, size) == MD_FWD_WIRE_WHOLE &&
               sizeof(md_fwd_wire_t) == MD_FWD_WIRE_PART, "wire header layout");

size_t md_fwd_hdr_pack(const md_fwd_hdr_t *hdr, uint8_t *out)
{
    size_t n = md_fwd_wire_len(hdr->offset, hdr->len, hdr->env.size);
    md_fwd_wire_t w = { .src_rank = hdr->env.src_rank, .src_world = hdr->env.src_world,
                        .dst_world = hdr->env.dst_world, .tag = hdr->env.tag,
                        .context_id = hdr->env.context_id,
                        .flags = (hdr->env.flags & MD_FWD_ENV_FLAGS) | (hdr->flags << 16) |
                                 (n == MD_FWD_WIRE_PART ? MD_FWD_W_PART : 0),
                        .seq = hdr->env.seq, .size = hdr->env.size, .offset = hdr->offset };

    memcpy(out, &w, n);
    return n;
}

size_t md_fwd_hdr_unpack(const md_envelope_t *env, const void *payload, md_fwd_hdr_t *hdr)
{
    md_fwd_wire_t w;
    size_t n = MD_FWD_WIRE_WHOLE;

    if (env->size >= n) {
        memcpy(&w, payload, n);
        if (w.flags & MD_FWD_W_PART)
            n = MD_FWD_WIRE_PART;
    }
    if (env->size < n) {
        md_log_error("forwarding: chunk from rank %d has %llu bytes, less than its "
                     "%zu-byte header; dropped", env->src_world,
                     (unsigned long long)env->size, n);
        return 0;
    }
    if (n == MD_FWD_WIRE_PART) {
        memcpy(&w.size, (const uint8_t *)payload + MD_FWD_WIRE_WHOLE, n - MD_FWD_WIRE_WHOLE);
    } else {
        w.size = env->size - n;
        w.offset = 0;
    }
    if (w.offset > w.size || env->size - n > w.size - w.offset) {
        md_log_error("forwarding: chunk from rank %d of %llu bytes at offset %llu "
                     "overruns its %llu-byte message; dropped", env->src_world,
                     (unsigned long long)(env->size - n), (unsigned long long)w.offset,
                     (unsigned long long)w.size);
        return 0;
    }
    *hdr = (md_fwd_hdr_t){ .env = { .src_rank = w.src_rank, .src_world = w.src_world,
                                    .dst_world = w.dst_world, .tag = w.tag,
                                    .context_id = w.context_id,
                                    .flags = w.flags & MD_FWD_ENV_FLAGS, .seq = w.seq,
                                    .size = w.size },
                           .offset = w.offset, .len = (uint32_t)(env->size - n),
                           .hop_src = env->src_world,
                           .flags = (w.flags & ~MD_FWD_W_PART) >> 16 };
    return n;
}
