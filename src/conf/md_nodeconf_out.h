/*
 * md_nodeconf_out.h - the lines of a per-node file, written through one
 * buffer: the single place that spells the text form (doc/node-config.md).
 *
 * md_nodeconf_write (a configuration in memory) and mdconfig (which
 * streams routes straight from its router, never holding a node's N
 * peers as md_nodeconf entries) both write through it, so both give the
 * same bytes for the same content.
 */
#ifndef MD_NODECONF_OUT_H
#define MD_NODECONF_OUT_H

#include <stdio.h>

#include "md_nodeconf.h"

typedef struct md_nodeconf_out md_nodeconf_out_t;

/* A writer into f (which stays open); NULL on out of memory. */
md_nodeconf_out_t *md_nodeconf_out_new(FILE *f);
/* Flushes and frees; -1 if some write failed. */
int md_nodeconf_out_finish(md_nodeconf_out_t *o);

/* The magic line, the node line and the device lines of conf. */
void md_nodeconf_out_head(md_nodeconf_out_t *o, const md_nodeconf_t *conf);

/* A route, arrive or rails line for the peers first..last, a range of names
 * (md_names_follows from one to the next; last == first: one peer). */
void md_nodeconf_out_route(md_nodeconf_out_t *o, const char *first,
                           const char *last, size_t min, size_t max,
                           const char *subdev, const char *next_hop);
/* An arrive line: md_nodeconf_out_arrive, then md_nodeconf_out_word for
 * each subdevice, then md_nodeconf_out_end_line. */
void md_nodeconf_out_arrive(md_nodeconf_out_t *o, const char *first,
                            const char *last);
void md_nodeconf_out_word(md_nodeconf_out_t *o, const char *word);
/* A rails line: md_nodeconf_out_rails, then md_nodeconf_out_rail for each
 * rail in order, then md_nodeconf_out_end_line. */
void md_nodeconf_out_rails(md_nodeconf_out_t *o, const char *first,
                           const char *last, size_t from);
void md_nodeconf_out_rail(md_nodeconf_out_t *o, const char *subdev,
                          uint32_t weight);
void md_nodeconf_out_end_line(md_nodeconf_out_t *o);

#endif /* MD_NODECONF_OUT_H */
