/*
 * shm_proto.h - the records that travel through the shm rings, and the
 * segment and card layouts.  All of it is shared between processes of one
 * job built from the same module, so it carries a version but no
 * compatibility with other versions.
 *
 * Protocols (sender S, receiver R; ring S->R lives in R's segment):
 *   eager  (size <= eager_limit)   S: EAGER(envelope, payload)
 *          MD_ENV_F_SYNC           R: ACK(S's request) once matched
 *   single copy (CMA)              S: RTS(envelope, size, address)
 *                                  R: matches, process_vm_readv, FIN(S's req)
 *   pipelined (CMA off or denied)  S: RTS          R: matches, CTS(bytes wanted)
 *                                  S: DATA fragments of frag_size through the
 *                                     ring, completes after the last one
 * The receiver alone picks CMA or pipelined, per peer, when it matches.
 */
#ifndef SHM_PROTO_H
#define SHM_PROTO_H

#include <stdint.h>

#include "shm_ring.h"

#define SHM_PROTO_VERSION 2u

enum shm_rec_type {
    SHM_REC_EAGER = 2,   /**< shm_msg_hdr_t + payload */
    SHM_REC_RTS   = 3,   /**< shm_msg_hdr_t + shm_rts_t */
    SHM_REC_CTS   = 4,   /**< shm_ctrl_rec_t: sreq, rreq, len */
    SHM_REC_DATA  = 5,   /**< shm_ctrl_rec_t: rreq, offset, len + payload */
    SHM_REC_FIN   = 6,   /**< shm_ctrl_rec_t: sreq; data was read */
    SHM_REC_ACK   = 7,   /**< shm_ctrl_rec_t: sreq; sync send matched */
    SHM_REC_HELP  = 8,   /**< shm_ctrl_rec_t: sreq, rreq = the receiver's
                              buffer, offset = the ticket (generation << 32 |
                              log2 chunk << 8 | help slot), len = bytes to
                              copy (shm_help.c) */
};

/* Envelope of a message; 56 bytes so 8 payload bytes share its line. */
typedef struct shm_msg_hdr {
    shm_ring_rec_t rec;
    int32_t  src_rank;
    int32_t  src_world;
    int32_t  dst_world;
    int32_t  tag;
    uint32_t context_id;
    uint32_t env_flags;
    uint64_t seq;
    uint64_t sreq;        /**< sender's request (SYNC eager, RTS) */
} shm_msg_hdr_t;

/* Body of an RTS after the header. */
typedef struct shm_rts {
    uint64_t size;        /**< message bytes */
    uint64_t addr;        /**< sender's buffer, for process_vm_readv */
} shm_rts_t;

typedef struct shm_rts_rec {
    shm_msg_hdr_t hdr;
    shm_rts_t     rts;
} shm_rts_rec_t;

/* Control records; DATA payload starts at SHM_DATA_OFFSET. */
typedef struct shm_ctrl_rec {
    shm_ring_rec_t rec;
    uint64_t sreq;        /**< sender's request (CTS, FIN, ACK) */
    uint64_t rreq;        /**< receiver's request (CTS, DATA) */
    uint64_t offset;      /**< DATA: where the fragment goes */
    uint64_t len;         /**< CTS: bytes wanted; DATA: fragment bytes */
} shm_ctrl_rec_t;

#define SHM_DATA_OFFSET 64u

_Static_assert(sizeof(shm_msg_hdr_t) == 56, "shm_msg_hdr_t layout");
_Static_assert(sizeof(shm_ctrl_rec_t) <= SHM_DATA_OFFSET, "shm_ctrl_rec_t");

/* Segment of one rank: header, then one ring per local sender. */
#define SHM_SEG_MAGIC 0x4745534d4853444dull   /* "MDSHMSEG" */

enum shm_seg_state {
    SHM_SEG_ALIVE     = 1,
    SHM_SEG_FINALIZED = 2,   /**< the owner left normally */
};

typedef struct shm_seg_ring_ref {
    int32_t  producer_world;   /**< who writes into this ring */
    uint32_t reserved;
    uint64_t offset;           /**< from the segment start */
} shm_seg_ring_ref_t;

typedef struct shm_seg_hdr {
    uint64_t          magic;
    uint32_t          version;
    int32_t           owner_world;
    int32_t           owner_pid;
    uint32_t          nrings;
    uint64_t          ring_size;
    _Atomic uint32_t  state;          /**< enum shm_seg_state */
    _Atomic uint32_t  mapped;         /**< peers that have mapped it */
    _Atomic uint32_t  sleeping;       /**< the owner's progress thread sleeps
                                           on its wake socket (shm_wake.c) */
    uint32_t          help_slots;     /**< shm_help_slot_t at help_offset */
    uint64_t          help_offset;
    shm_seg_ring_ref_t ring[];        /**< [nrings] */
} shm_seg_hdr_t;

/* A large message that its sender helps its receiver copy (shm_help.c):
 * the message is cut into chunks of 16 to 64 KiB, and either side
 * takes the next one by advancing claim (generation << 32 | next chunk;
 * the receiver starts a new generation each time it hands the slot out,
 * so a late helper's claim fails) and counts it in done once copied.  In
 * the receiver's segment, a cache line each. */
#define SHM_HELP_SLOTS 16u
#define SHM_HELP_CHUNK_SHIFT_MIN 14u     /* 16 KiB */
#define SHM_HELP_CHUNK_SHIFT_MAX 16u     /* 64 KiB */

typedef struct shm_help_slot {
    _Atomic uint64_t claim;
    _Atomic uint64_t done;     /**< chunks copied */
    _Atomic uint32_t abort;    /**< the sender could not write: the receiver
                                    copies everything again itself */
    uint32_t         reserved;
    uint8_t          pad[64 - 24];
} shm_help_slot_t;

_Static_assert(sizeof(shm_help_slot_t) == 64, "shm_help_slot_t is one line");

/* Business card (at most MD_CARD_MAX bytes). */
#define SHM_CARD_MAGIC 0x6d736863u    /* "mshc" */
#define SHM_SEG_NAME_MAX 200

typedef struct shm_card {
    uint32_t magic;
    uint32_t version;
    int32_t  pid;
    int32_t  node;
    uint64_t seg_len;
    uint64_t cma_probe_addr;   /**< a word in the owner's memory ... */
    uint64_t cma_probe_value;  /**< ... holding this value */
    char     seg_name[SHM_SEG_NAME_MAX];
} shm_card_t;

#endif /* SHM_PROTO_H */
