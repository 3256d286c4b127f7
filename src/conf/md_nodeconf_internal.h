/*
 * md_nodeconf_internal.h - what the parser needs from the in-memory model
 * beyond the public md_nodeconf.h: insertions that hand back the stored
 * element (so the parser can record its line) and the canonical order.
 *
 * Canonical order, kept on every insertion: devices in load order; routes
 * sorted by peer name (strcmp), then by min; arrive lines sorted by peer.
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

/* The last route (greatest min) to peer, or NULL. */
const md_nodeconf_route_t *md_nodeconf_last_route(const md_nodeconf_t *conf,
                                                  const char *peer);

/* Frees n key/value pairs (either may be NULL) and the array. */
void md_nodeconf_free_params(md_nodeconf_kv_t *params, size_t n);

/* Parameter values: printable ASCII without blanks or '#', possibly empty. */
int md_nodeconf_value_valid(const char *value);

#endif /* MD_NODECONF_INTERNAL_H */
