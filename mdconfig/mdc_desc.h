/*
 * mdc_desc.h - a parsed network description (doc/network-description.md).
 *
 * Plain arrays indexed by small integers; names are resolved while
 * parsing, so everything after the parser works on indices.
 */
#ifndef MDC_DESC_H
#define MDC_DESC_H

#include <stddef.h>
#include <stdint.h>

#include "md_nodeconf.h"
#include "md_names.h"
#include "mdc_strmap.h"

#define MDC_DESC_VERSION 1
#define MDC_MAX_NODES    65536      /**< per description */
#define MDC_MAX_PORTS    65536      /**< per switch */
#define MDC_MAX_SEGMENTS (1 << 20)  /**< switches, rings, buses, links */
#define MDC_MAX_TRUNKS   (1 << 20)
#define MDC_ERR_MAX      512

typedef struct mdc_row {
    size_t   from;                  /**< first size (bytes) of the row */
    uint64_t lat_fs;                /**< latency, femtoseconds */
    uint64_t byte_fs;               /**< per byte: 1/bandwidth, fs (0 = inf) */
} mdc_row_t;

/* A piecewise cost table: row i applies from rows[i].from up to the next
 * row's from - 1 (the last row to inf).  rows[0].from is 0. */
typedef struct mdc_profile {
    char       name[MD_NAME_MAX];  /**< "" for an inline cost */
    mdc_row_t *rows;
    size_t     num_rows;
    int        line;
} mdc_profile_t;

typedef struct mdc_type {
    char name[MD_NAME_MAX];
    char subdev[MD_NAME_MAX];      /**< module name; "" = no subdevice */
    int  sysmsg;                    /**< carries system messages */
    int  line;                      /**< 0 = built in */
} mdc_type_t;

/* Forwarding at a node: not allowed, or a cost profile. */
#define MDC_FWD_UNSET  (-2)         /**< node: use the global default */
#define MDC_FWD_NO     (-1)

typedef enum mdc_seg_kind {
    MDC_SEG_SWITCH,
    MDC_SEG_RING,
    MDC_SEG_BUS,
    MDC_SEG_LINK,
} mdc_seg_kind_t;

typedef struct mdc_member {
    int node;
    int port;                       /**< switch port, ring position */
} mdc_member_t;

/* A piece of a network: a crossbar, a ring, a bus, or one link. */
typedef struct mdc_segment {
    mdc_seg_kind_t kind;
    char           name[MD_NAME_MAX]; /**< "" for a link */
    int            network;
    int            ports;           /**< switch: number of ports */
    mdc_member_t  *members;
    size_t         num_members;
    int            line;
} mdc_segment_t;

typedef struct mdc_trunk {
    int      network;
    int      seg_a, seg_b;          /**< two switches of that network */
    uint64_t lat_fs;
    int      line;
} mdc_trunk_t;

typedef struct mdc_network {
    char              name[MD_NAME_MAX];
    int               type;
    int               profile;
    md_nodeconf_kv_t *dev_params;   /**< dev.KEY=VALUE, for device lines */
    size_t            num_dev_params;
    /* Where its NICs bind (at most one of the two; "" if not given). */
    char              subnet[20];   /**< "10.0.0.0/24" as validated */
    uint32_t          subnet_net;   /**< network order */
    unsigned          subnet_prefix;
    char              iface[16];    /**< an interface name, e.g. eth1 */
    int               line;
} mdc_network_t;

/* A node's own address on a network (addr.NET=). */
typedef struct mdc_node_addr {
    int      network;
    uint32_t addr;                  /**< network order */
} mdc_node_addr_t;

/* Where a node is attached: one entry per (network, segment). */
typedef struct mdc_attach {
    int network;
    int segment;
    int port;
} mdc_attach_t;

typedef struct mdc_node {
    char          name[MD_NAME_MAX];
    char          host[MD_NAME_MAX];
    int           slots;
    int           forward;          /**< profile, MDC_FWD_NO or _UNSET */
    int           local_type;       /**< type for same-node peers */
    mdc_attach_t *attach;
    size_t        num_attach;
    mdc_node_addr_t *addrs;         /**< addr.NET=, one per network at most */
    size_t        num_addrs;
    int           line;
} mdc_node_t;

typedef struct mdc_desc {
    char           source[256];
    mdc_type_t    *types;
    size_t         num_types;
    mdc_profile_t *profiles;
    size_t         num_profiles;
    mdc_node_t    *nodes;
    size_t         num_nodes;
    mdc_network_t *networks;
    size_t         num_networks;
    mdc_segment_t *segments;
    size_t         num_segments;
    mdc_trunk_t   *trunks;
    size_t         num_trunks;
    int            forward;         /**< global default: profile or NO */
    int            forward_line;    /**< 0 = no forward line */
    mdc_strmap_t   type_map, profile_map, node_map, network_map, segment_map;
} mdc_desc_t;

/* Parses a description; 0 with *desc_p set, or -1 with err =
 * "file:line:col: expected ...".  Never crashes on any input. */
int mdc_desc_parse_file(const char *path, mdc_desc_t **desc_p, char *err,
                        size_t err_len);
int mdc_desc_parse_buffer(const char *buf, size_t len, const char *source,
                          mdc_desc_t **desc_p, char *err, size_t err_len);
void mdc_desc_free(mdc_desc_t *desc);

/* Forwarding profile in effect at a node (MDC_FWD_NO if none). */
int mdc_desc_node_forward(const mdc_desc_t *desc, int node);
/* Index of a node by name, or -1. */
int mdc_desc_find_node(const mdc_desc_t *desc, const char *name);
/* Does the network carry traffic (its type has a subdevice)? */
int mdc_desc_network_routable(const mdc_desc_t *desc, int network);
/* The attachment of node to network, or NULL. */
const mdc_attach_t *mdc_desc_attach(const mdc_desc_t *desc, int node,
                                    int network);
/* The node's own address on network (addr.NET=), or NULL. */
const mdc_node_addr_t *mdc_desc_node_addr(const mdc_desc_t *desc, int node,
                                          int network);

#endif /* MDC_DESC_H */
