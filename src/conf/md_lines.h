/*
 * md_lines.h - split a text buffer into lines of whitespace separated
 * tokens, each with its 1-based line and column.
 *
 * Shared by the per-node file parser (md_nodeconf_parse.c) and the network
 * description parser of mdconfig: both formats are line oriented, `#`
 * starts a comment that runs to the end of the line, tokens are separated
 * by spaces, tabs or carriage returns.  Columns count bytes from 1 (a tab
 * is one column).  Any other control character is an error, so that a
 * binary file is reported rather than half parsed.
 */
#ifndef MD_LINES_H
#define MD_LINES_H

#include <stdarg.h>
#include <stddef.h>

typedef struct md_token {
    const char *text;                /**< not NUL terminated */
    size_t      len;
    int         col;                 /**< 1-based byte column */
} md_token_t;

typedef struct md_line {
    int               lineno;        /**< 1-based */
    const md_token_t *tok;           /**< valid until the next call */
    size_t            num_tok;
    int               end_col;       /**< column just after the last byte */
} md_line_t;

typedef struct md_line_reader {
    const char *buf;
    size_t      len;
    size_t      pos;
    int         lineno;              /**< line of the next call */
    const char *source;              /**< file name used in errors */
    md_token_t *tok;
    size_t      cap;
} md_line_reader_t;

void md_lines_init(md_line_reader_t *r, const char *buf, size_t len,
                   const char *source);
void md_lines_fini(md_line_reader_t *r);

/* Next line holding at least one token (blank and comment-only lines are
 * skipped).  Returns 1 with *line filled, 0 at the end of the buffer, -1
 * on an unexpected control byte or out of memory (err filled). */
int md_lines_next(md_line_reader_t *r, md_line_t *line, char *err,
                  size_t err_len);

/* Where the end of the buffer is, for "expected X, got end of file". */
void md_lines_eof_pos(const md_line_reader_t *r, int *line, int *col);

/* Token helpers. */
int md_token_is(const md_token_t *t, const char *word);
/* Copies the token into buf (NUL terminated); -1 if it does not fit. */
int md_token_copy(const md_token_t *t, char *buf, size_t buf_len);
/* A printable rendering for messages: non-printable bytes become \xNN, long
 * tokens are cut with "...".  Always NUL terminates. */
const char *md_token_quote(const md_token_t *t, char *buf, size_t buf_len);
#define MD_TOKEN_QUOTE_MAX 80

/* "source:line:col: message" into err (always NUL terminated). */
void md_conf_errorf(char *err, size_t err_len, const char *source, int line,
                    int col, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
void md_conf_verrorf(char *err, size_t err_len, const char *source, int line,
                     int col, const char *fmt, va_list ap);

/* Names of nodes, subdevices, networks: [A-Za-z0-9_.-]+, at most max_len
 * bytes, and not the single character "-" (which means "none"). */
int md_name_valid(const char *text, size_t len, size_t max_len);

/* Reads a whole file into a malloc'd buffer (not NUL terminated; may hold
 * NUL bytes).  NULL with errno set on failure. */
char *md_read_file(const char *path, size_t *len_p);

#endif /* MD_LINES_H */
