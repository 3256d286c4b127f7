/* mdc_test_util.h - helpers shared by the mdconfig tests. */
#ifndef MDC_TEST_UTIL_H
#define MDC_TEST_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "mdc_graph.h"
#include "mdc_route.h"

/* Parses text (asserting success) and builds its graph. */
mdc_graph_t *mdct_graph(const char *text);
void mdct_graph_free(mdc_graph_t *g);

/* The routes of one node (caller frees with mdc_routes_fini). */
void mdct_routes(const mdc_graph_t *g, uint32_t src, mdc_routes_t *out);

/* The route segment from src to the named node holding size. */
const mdc_rseg_t *mdct_find(const mdc_graph_t *g, const mdc_routes_t *r,
                            const char *dst, size_t size);

/* Node index by name (asserting it exists). */
uint32_t mdct_node(const mdc_graph_t *g, const char *name);

/* 32 nodes n00..n31 on two trunked Myrinet switches of 16 and SCI rings of
 * 8; every node may forward. */
extern const char *const mdct_switches_and_rings;

/* Scratch directories: a new one named after tag (buf: len bytes), and
 * removing one with what it holds. */
void mdct_tmpdir(char *buf, size_t len, const char *tag);
void mdct_rm_dir(const char *dir);
/* A whole file (asserting it reads; no NUL added; caller frees). */
char *mdct_slurp(const char *path, size_t *len);
/* DIR/NODE.conf parsed (asserting it parses; md_nodeconf_free). */
md_nodeconf_t *mdct_load(const char *dir, const char *node);

/* A small deterministic random generator. */
typedef struct mdct_rng {
    uint64_t s;
} mdct_rng_t;

static inline uint32_t mdct_rand(mdct_rng_t *r, uint32_t n)
{
    r->s = r->s * 6364136223846793005ULL + 1442695040888963407ULL;
    return n == 0 ? 0 : (uint32_t)((r->s >> 33) % n);
}

#endif /* MDC_TEST_UTIL_H */
