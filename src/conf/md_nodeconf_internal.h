/*
 * md_nodeconf_internal.h - what the parser needs from the in-memory model
 * beyond the public md_nodeconf.h: insertions that hand back the stored
 * element (so the parser can record its line) and the canonical order.
 *
 * Canonical order, kept on every insertion: devices in load order; routes
 * sorted by peer name (strcmp), then by min; arrive and rails lines sorted
 * by peer (a rails line's rails in the order given).
 * The writer prints that order, so equal configurations print the same
 * bytes however they were built, and lookups are binary searches.
 */
#ifndef MD_NODECONF_INTERNAL_H
#define MD_NODECONF_INTERNAL_H

#include "md_nodeconf.h"

#define MD_NODECONF_NAME_LEN (MD_NODECONF_NAME_MAX - 1)

/* Each returns the stored element, or NULL with errno set: EINVAL (bad
 * name, value or range), EEXIST (duplicate), ENOMEM. */
md_nodeconf_device_t *md_nodeconf_insert_device(md_nodeconf_t *conf,
                                                const char *name,
                                                const md_nodeconf_kv_t *params,
                                                size_t num_params);
md_nodeconf_route_t *md_nodeconf_insert_route(md_nodeconf_t *conf,
                                              const char *peer, size_t min,
                                              size_t max, const char *subdev,
                                              const char *next_hop);
md_nodeconf_arrive_t *md_nodeconf_insert_arrive(md_nodeconf_t *conf,
                                                const char *peer,
                                                const char *const *subdevs,
                                                size_t num_subdevs);

md_nodeconf_rails_t *md_nodeconf_insert_rails(md_nodeconf_t *conf,
                                              const char *peer, size_t from,
                                              const char *const *subdevs,
                                              const uint32_t *weights,
                                              size_t num);

/* Shared by the arrays of md_nodeconf.c and md_nodeconf_rails.c. */
/* In an array of n stride-sized items sorted by a name at their start
 * (the peer of arrive and rails lines): the index of the first item not
 * before peer. */
size_t md_nodeconf_peer_lower_bound(const void *base, size_t n, size_t stride,
                                    const char *peer);
/* The item for peer in such an array, or NULL. */
const void *md_nodeconf_peer_find(const void *base, size_t n, size_t stride,
                                  const char *peer);
/* A new zeroed item for peer at its place in such an array (*n grows by
 * one), or NULL with errno EEXIST (peer has one) or ENOMEM. */
void *md_nodeconf_peer_slot(void **array, size_t *n, size_t stride,
                            const char *peer);
/* A valid name, and n >= 1 valid names without a duplicate. */
int md_nodeconf_name_ok(const char *name);
int md_nodeconf_subdevs_valid(const char *const *subdevs, size_t n);
/* Frees the rails lines (md_nodeconf_free). */
void md_nodeconf_free_rails(md_nodeconf_t *conf);

/* The last route (greatest min) to peer, or NULL. */
const md_nodeconf_route_t *md_nodeconf_last_route(const md_nodeconf_t *conf,
                                                  const char *peer);

/* Frees n key/value pairs (either may be NULL) and the array. */
void md_nodeconf_free_params(md_nodeconf_kv_t *params, size_t n);

/* Parameter values: printable ASCII without blanks or '#', possibly empty. */
int md_nodeconf_value_valid(const char *value);

#endif /* MD_NODECONF_INTERNAL_H */
