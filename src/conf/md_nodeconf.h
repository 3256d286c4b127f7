/*
 * md_nodeconf.h - the per-node configuration file (doc/node-config.md).
 *
 * One parser and one writer, shared by libmultidev (which reads the file at
 * init) and mdconfig (which writes it).  The parser never crashes on any
 * input and reports the first error as "file:line:column: message".
 */
#ifndef MD_NODECONF_H
#define MD_NODECONF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "md_size.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MD_NODECONF_VERSION  1
#define MD_NODECONF_NAME_MAX 64          /**< including the NUL */
#define MD_NODECONF_ERR_MAX  512         /**< room for an error message */
/* Peers in one range of a route or arrive line ("n[0000-4095]"). */
#define MD_NODECONF_RANGE_MAX (1u << 20)
/* In an arrive line: messages from that peer also arrive forwarded through
 * an intermediate node (the multidevice's own receiver, not a module). */
#define MD_NODECONF_FORWARDED "fwd"
/* Rails of one rails line (striping a large message over several
 * networks that reach the peer), and the range of a rail's weight. */
#define MD_NODECONF_RAILS_MAX 8
#define MD_NODECONF_RAIL_WEIGHT_MAX 1000000u

typedef struct md_nodeconf_kv {
    char *key;
    char *value;
} md_nodeconf_kv_t;

typedef struct md_nodeconf_device {
    char              name[MD_NODECONF_NAME_MAX];
    md_nodeconf_kv_t *params;
    size_t            num_params;
    int               line;              /**< 0 if not from a file */
} md_nodeconf_device_t;

typedef struct md_nodeconf_route {
    char   peer[MD_NODECONF_NAME_MAX];
    size_t min;                          /**< inclusive */
    size_t max;                          /**< inclusive; MD_SIZE_INF = inf */
    char   subdev[MD_NODECONF_NAME_MAX];
    char   next_hop[MD_NODECONF_NAME_MAX]; /**< "" for a direct link */
    int    line;
} md_nodeconf_route_t;

typedef struct md_nodeconf_arrive {
    char    peer[MD_NODECONF_NAME_MAX];
    char  (*subdevs)[MD_NODECONF_NAME_MAX];
    size_t  num_subdevs;
    int     line;
} md_nodeconf_arrive_t;

/* A message of at least `from` bytes to peer is striped over the rails,
 * each getting a share in proportion to its weight. */
typedef struct md_nodeconf_rails {
    char      peer[MD_NODECONF_NAME_MAX];
    size_t    from;                          /**< striped from this size on (inclusive) */
    size_t    num;                           /**< rails: 2..MD_NODECONF_RAILS_MAX */
    char    (*subdevs)[MD_NODECONF_NAME_MAX];/**< [num] */
    uint32_t *weights;                       /**< [num] modelled MB/s, >= 1 */
    int       line;
} md_nodeconf_rails_t;

typedef struct md_nodeconf {
    char                  source[256];   /**< file name used in errors */
    int                   version;
    char                  node[MD_NODECONF_NAME_MAX];
    md_nodeconf_device_t *devices;
    size_t                num_devices;
    md_nodeconf_route_t  *routes;        /**< grouped by peer, ascending min */
    size_t                num_routes;
    md_nodeconf_arrive_t *arrives;
    size_t                num_arrives;
    md_nodeconf_rails_t  *rails;         /**< sorted by peer */
    size_t                num_rails;
} md_nodeconf_t;

/* Parse.  On success *conf_p is a new configuration (md_nodeconf_free) and
 * 0 is returned; on failure -1 and err holds "file:line:col: message".
 * Checks everything the format page promises: magic and version, exactly
 * one node line, names, sizes, contiguous route ranges per peer from 0 to
 * inf, route, arrive and rails subdevices present in the device list, no
 * duplicate device, at most one arrive and one rails line per peer. */
int md_nodeconf_parse_file(const char *path, md_nodeconf_t **conf_p,
                           char *err, size_t err_len);
int md_nodeconf_parse_string(const char *text, const char *source,
                             md_nodeconf_t **conf_p, char *err,
                             size_t err_len);

/* Which file holds node's configuration when the user named path (what:
 * the setting that named it, for messages, e.g. "MULTIDEV_CONFIG"): path
 * itself if it is a file; if it is a directory, <path>/<node>.conf as
 * mdconfig -o writes them, where node "" stands for the host name, which
 * is then written into node (node_len bytes).  0 with file filled, or -1
 * with err saying what is missing. */
int md_nodeconf_locate(const char *what, const char *path, char *node, size_t node_len,
                       char *file, size_t file_len, char *err, size_t err_len);

/* Building a configuration in memory (mdconfig).  Each returns 0 or -1
 * (out of memory, name too long: err filled). */
md_nodeconf_t *md_nodeconf_new(const char *node);
int md_nodeconf_add_device(md_nodeconf_t *conf, const char *name,
                           const md_nodeconf_kv_t *params, size_t num_params);
int md_nodeconf_add_route(md_nodeconf_t *conf, const char *peer, size_t min,
                          size_t max, const char *subdev,
                          const char *next_hop /* NULL or "" = direct */);
int md_nodeconf_add_arrive(md_nodeconf_t *conf, const char *peer,
                           const char *const *subdevs, size_t num_subdevs);
/* num rails (2..MD_NODECONF_RAILS_MAX, distinct subdevices, not "fwd"),
 * weights 1..MD_NODECONF_RAIL_WEIGHT_MAX, from < inf; at most one rails
 * line per peer.  0 or -1 (errno EINVAL/EEXIST/ENOMEM). */
int md_nodeconf_add_rails(md_nodeconf_t *conf, const char *peer, size_t from,
                          const char *const *subdevs, const uint32_t *weights,
                          size_t num);

/* Writes the canonical text form; the output parses back to an equal
 * configuration, and equal configurations give byte-identical output. */
int md_nodeconf_write(FILE *f, const md_nodeconf_t *conf);

void md_nodeconf_free(md_nodeconf_t *conf);

/* Lookups used at run time. */
const md_nodeconf_device_t *md_nodeconf_find_device(const md_nodeconf_t *conf,
                                                    const char *name);
/* The route to peer for a message of size bytes, or NULL. */
const md_nodeconf_route_t *md_nodeconf_find_route(const md_nodeconf_t *conf,
                                                  const char *peer,
                                                  size_t size);
const md_nodeconf_arrive_t *md_nodeconf_find_arrive(const md_nodeconf_t *conf,
                                                    const char *peer);
/* The rails to peer, or NULL: none (every message takes its route). */
const md_nodeconf_rails_t *md_nodeconf_find_rails(const md_nodeconf_t *conf,
                                                  const char *peer);

#ifdef __cplusplus
}
#endif

#endif /* MD_NODECONF_H */
