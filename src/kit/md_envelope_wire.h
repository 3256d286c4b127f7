/*
 * md_envelope_wire.h - an envelope from a subdevice's wire header.
 *
 * A subdevice's message header carries the envelope's fields in a layout of
 * its own (its protocol), named as md_envelope_t names them, but with the
 * flags as env_flags and without the size, which the protocol may carry
 * elsewhere (an RTS's body, the record's length).  MD_ENVELOPE_FROM_WIRE
 * fills an md_envelope_t from any such header.  A macro, because the
 * headers' types differ; it costs no call on shm's receive path.
 */
#ifndef MD_ENVELOPE_WIRE_H
#define MD_ENVELOPE_WIRE_H

#include "md_sdi.h"

/* *env (md_envelope_t *) from *hdr (a header with the members src_rank,
 * src_world, dst_world, tag, context_id, env_flags and seq) and the
 * message's size in bytes. */
#define MD_ENVELOPE_FROM_WIRE(env, hdr, msg_size)  \
    do {                                           \
        (env)->src_rank = (hdr)->src_rank;         \
        (env)->src_world = (hdr)->src_world;       \
        (env)->dst_world = (hdr)->dst_world;       \
        (env)->tag = (hdr)->tag;                   \
        (env)->context_id = (hdr)->context_id;     \
        (env)->flags = (hdr)->env_flags;           \
        (env)->seq = (hdr)->seq;                   \
        (env)->size = (msg_size);                  \
    } while (0)

#endif /* MD_ENVELOPE_WIRE_H */
