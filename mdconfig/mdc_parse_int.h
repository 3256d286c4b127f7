/*
 * mdc_parse_int.h - what the statement parsers of a network description
 * share: the parser state, error reporting with positions, attributes
 * (key=value tokens), name lists and growable arrays.
 */
#ifndef MDC_PARSE_INT_H
#define MDC_PARSE_INT_H

#include <stddef.h>

#include "md_lines.h"
#include "mdc_desc.h"

typedef struct mdc_parser {
    md_line_reader_t rd;
    mdc_desc_t      *d;
    const md_line_t *l;             /* the line being parsed */
    char            *err;
    size_t           err_len;
    mdc_strmap_t     links;         /* "net/a/b" -> line, duplicate links */
    struct mdc_local_ref {          /* local=TYPE, checked at the end */
        int node, line, col;
    }               *locals;
    size_t           num_locals;
    struct mdc_addr_ref {           /* addr.NET=, checked at the end */
        int      node, line, col, net_col;
        char     net[MD_NAME_MAX];
        uint32_t addr;
    }               *addrs;
    size_t           num_addrs;
} mdc_parser_t;

/* An attribute a statement accepts; filled by mdc_parse_attrs. */
typedef struct mdc_attr {
    const char       *key;          /* "latency", or a prefix ("dev.") */
    const char       *hint;         /* a prefix's placeholder in messages
                                       ("KEY": "dev.KEY="); NULL: a key */
    const md_token_t *tok;          /* the whole token, NULL if absent */
    md_token_t        val;          /* the part after '=' */
} mdc_attr_t;

int mdc_desc_init_builtins(mdc_desc_t *d);
/* End of file: every local=TYPE names a type the node has a NIC for. */
int mdc_check_locals(mdc_parser_t *p);

/* Addresses (mdc_parse_addr.c): a node line's addr.NET= lists, a network
 * line's subnet= and iface=, and at the end of the file every addr.NET=
 * checked against its network and stored with its node. */
int mdc_parse_node_addrs(mdc_parser_t *p, int first_node, size_t count);
int mdc_parse_network_place(mdc_parser_t *p, mdc_network_t *net,
                            const mdc_attr_t *subnet, const mdc_attr_t *iface);
int mdc_check_addrs(mdc_parser_t *p);
/* For a dev.KEY= whose key is one of these: what to write instead. */
const char *mdc_addr_key_instead(const char *key, size_t len);

/* Sets err to "source:line:col: ..." for the current line; returns -1. */
int mdc_perr(mdc_parser_t *p, int col, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
const char *mdc_quote(const md_token_t *t, char *buf);
#define MDC_QUOTE_BUF MD_TOKEN_QUOTE_MAX

/* tok[idx] must exist and be a plain name (what: "a network name"). */
int mdc_expect_name(mdc_parser_t *p, size_t idx, const char *what, char *out);

/* Tokens from idx on: key=value ones are matched against attrs (unknown
 * or repeated keys are errors); the others are positional and their
 * indices are stored in pos[] (at most max_pos, else an error naming
 * what_pos).  A prefix attribute (hint set) matches every key that starts
 * with it and keeps only the last token: its statement reads the line's
 * tokens itself (dev.KEY=, addr.NET=). */
int mdc_parse_attrs(mdc_parser_t *p, size_t idx, mdc_attr_t *attrs,
                    size_t num_attrs, size_t *pos, size_t max_pos,
                    size_t *num_pos, const char *what_pos);

/* Expands a name list token; names must (or must not) be declared nodes. */
int mdc_expand_names(mdc_parser_t *p, const md_token_t *t, size_t max,
                     md_names_t *out);
/* A node name list of declared nodes, as indices (malloc'd). */
int mdc_expand_nodes(mdc_parser_t *p, const md_token_t *t, int **nodes,
                     size_t *count);

/* Value parsers reporting at the value's column. */
int mdc_attr_time(mdc_parser_t *p, const mdc_attr_t *a, uint64_t *fs);
int mdc_attr_bandwidth(mdc_parser_t *p, const mdc_attr_t *a, uint64_t *bfs);
int mdc_attr_uint(mdc_parser_t *p, const mdc_attr_t *a, unsigned long min,
                  unsigned long max, unsigned long *v);
int mdc_attr_size(mdc_parser_t *p, const mdc_attr_t *a, size_t *v);
/* "no", a time (an anonymous constant profile) or a profile name. */
int mdc_parse_forward_cost(mdc_parser_t *p, const md_token_t *t, int *fwd);

/* Appends an element to a growable array (capacity doubles at powers of
 * two, the count is the capacity's only record).  NULL on out of memory. */
void *mdc_grow(void **array, size_t *count, size_t elem);

/* Adds a profile (name "" = anonymous) with one row; returns its index. */
int mdc_add_profile(mdc_parser_t *p, const char *name, uint64_t lat_fs,
                    uint64_t byte_fs);

/* Statements. */
int mdc_parse_type(mdc_parser_t *p);
int mdc_parse_profile(mdc_parser_t *p);
int mdc_parse_forward(mdc_parser_t *p);
int mdc_parse_node(mdc_parser_t *p);
int mdc_parse_network(mdc_parser_t *p);
int mdc_parse_segment(mdc_parser_t *p, mdc_seg_kind_t kind);
int mdc_parse_link(mdc_parser_t *p);
int mdc_parse_trunk(mdc_parser_t *p);

#endif /* MDC_PARSE_INT_H */
