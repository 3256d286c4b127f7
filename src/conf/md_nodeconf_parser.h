/*
 * md_nodeconf_parser.h - the per-node file parser's state and the helpers
 * its line parsers share (md_nodeconf_parse.c; the rails line in
 * md_nodeconf_parse_rails.c).  Internal to src/conf.
 */
#ifndef MD_NODECONF_PARSER_H
#define MD_NODECONF_PARSER_H

#include "md_lines.h"
#include "md_names.h"
#include "md_nodeconf_internal.h"

#define NAME_RULE "[A-Za-z0-9_.-], 1-63 characters"

/* Checks settled when the whole file is read (check_refs). */
typedef enum ref_kind {
    REF_SUBDEV,          /* must be declared by a device line */
    REF_NEXT_HOP,        /* must not be this node */
    REF_SELF_ROUTE,      /* a forwarded route whose peer must not be us */
    REF_SELF_RAILS,      /* a rails line whose peers must not hold us */
} ref_kind_t;

typedef struct ref {
    ref_kind_t kind;
    int        line, col;
    char       name[MD_NODECONF_NAME_MAX];
} ref_t;

typedef struct pos {
    int line, col;
} pos_t;

typedef struct route_pos {
    int line, min_col, max_col;
} route_pos_t;

/* One route line, read but not yet stored. */
typedef struct route_line {
    size_t min, max;
    char   subdev[MD_NODECONF_NAME_MAX];
    char   hop[MD_NODECONF_NAME_MAX];  /* "" = direct */
    int    line, min_col, hop_col;
} route_line_t;

/* Consecutive route lines for the same range of peers ("route n[0-9] 0 99
 * ..." then "route n[0-9] 100 inf ..."): stored peer by peer once the
 * range ends, so that every insertion appends. */
typedef struct pending {
    char          range[256];          /* the peer token; "" = none */
    md_names_t    peers;
    route_line_t *lines;
    size_t        num_lines, cap_lines;
} pending_t;

typedef struct parser {
    md_line_reader_t rd;
    md_nodeconf_t   *conf;
    char            *err;
    size_t           err_len;
    int              node_line;
    ref_t           *refs;
    size_t           num_refs, cap_refs;
    route_pos_t     *route_pos;     /* columns of each route line, in order */
    size_t           num_pos, cap_pos;
    pos_t            best;          /* earliest deferred error so far */
    pending_t        pending;
} parser_t;

/* Formats "file:line:col: message" into the error buffer; returns -1. */
int md_ncp_fail(parser_t *p, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* t quoted for a message, into buf (MD_TOKEN_QUOTE_MAX bytes). */
const char *md_ncp_quote(const md_token_t *t, char *buf);
/* Records a check of name at t's column, settled at the end. */
int md_ncp_add_ref(parser_t *p, ref_kind_t kind, int line,
                   const md_token_t *t, const char *name);
/* tok[idx] must be a name (what: for the message); copied into out. */
int md_ncp_expect_name(parser_t *p, const md_line_t *l, size_t idx,
                       const char *what, char *out);
/* tok[idx] must be a size (inf too if allow_inf). */
int md_ncp_parse_size(parser_t *p, const md_line_t *l, size_t idx,
                      int allow_inf, size_t *value);
/* The peers of tok[1]: one name, or a name list ("n[0000-0095]"). */
int md_ncp_expect_peers(parser_t *p, const md_line_t *l, md_names_t *peers);
/* names[i], from tok[idx], must differ from names[0..i) and, unless it is
 * "fwd", be declared by a device line (checked at the end). */
int md_ncp_subdev_once(parser_t *p, const md_line_t *l, size_t idx,
                       char (*names)[MD_NODECONF_NAME_MAX], size_t i);

/* "duplicate 'KEYWORD' for 'PEER' (first at line N)" at the peers. */
int md_ncp_duplicate_peer(parser_t *p, const md_line_t *l, const char *keyword,
                          const char *peer, int first_line);

/* The peers of tok[1] (md_ncp_expect_peers), none of which may have a
 * KEYWORD line yet: line_of gives the line of a peer's, or 0. */
typedef int (*md_ncp_line_of_fn)(const md_nodeconf_t *conf, const char *peer);
int md_ncp_expect_new_peers(parser_t *p, const md_line_t *l,
                            const char *keyword, md_ncp_line_of_fn line_of,
                            md_names_t *peers);

/* A "rails" line (md_nodeconf_parse_rails.c). */
int md_ncp_parse_rails(parser_t *p, const md_line_t *l);

#endif /* MD_NODECONF_PARSER_H */
