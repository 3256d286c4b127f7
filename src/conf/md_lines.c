/* md_lines.c - line and token splitting with positions (see md_lines.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "md_lines.h"

void md_lines_init(md_line_reader_t *r, const char *buf, size_t len,
                   const char *source)
{
    memset(r, 0, sizeof(*r));
    r->buf = buf;
    r->len = len;
    r->lineno = 1;
    r->source = source != NULL ? source : "<string>";
}

void md_lines_fini(md_line_reader_t *r)
{
    free(r->tok);
    r->tok = NULL;
    r->cap = 0;
}

static int is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

static int is_control(unsigned char c)
{
    return (c < 0x20 && c != '\t' && c != '\r' && c != '\n') || c == 0x7f;
}

static int push_token(md_line_reader_t *r, size_t n, const char *text,
                      size_t len, int col)
{
    if (n == r->cap) {
        size_t cap = r->cap != 0 ? 2 * r->cap : 16;
        md_token_t *t = realloc(r->tok, cap * sizeof(*t));
        if (t == NULL)
            return -1;
        r->tok = t;
        r->cap = cap;
    }
    r->tok[n].text = text;
    r->tok[n].len = len;
    r->tok[n].col = col;
    return 0;
}

/* Tokenizes the line starting at r->pos; leaves r->pos after its '\n'. */
static int split_line(md_line_reader_t *r, md_line_t *line, char *err,
                      size_t err_len)
{
    size_t start = r->pos, i = r->pos, n = 0;
    int in_comment = 0;

    while (i < r->len && r->buf[i] != '\n') {
        unsigned char c = (unsigned char)r->buf[i];
        if (is_control(c)) {
            md_conf_errorf(err, err_len, r->source, r->lineno,
                           (int)(i - start + 1),
                           "unexpected control character 0x%02x (expected "
                           "text)", c);
            return -1;
        }
        if (in_comment || is_blank((char)c)) {
            i++;
            continue;
        }
        if (c == '#') {
            in_comment = 1;
            i++;
            continue;
        }
        size_t tstart = i;
        while (i < r->len && r->buf[i] != '\n' && !is_blank(r->buf[i]) &&
               r->buf[i] != '#' && !is_control((unsigned char)r->buf[i]))
            i++;
        if (push_token(r, n, r->buf + tstart, i - tstart,
                       (int)(tstart - start + 1)) != 0) {
            md_conf_errorf(err, err_len, r->source, r->lineno, 1,
                           "out of memory");
            return -1;
        }
        n++;
    }
    line->lineno = r->lineno;
    line->tok = r->tok;
    line->num_tok = n;
    line->end_col = (int)(i - start + 1);
    r->pos = i < r->len ? i + 1 : i;
    r->lineno++;
    return 0;
}

int md_lines_next(md_line_reader_t *r, md_line_t *line, char *err,
                  size_t err_len)
{
    while (r->pos < r->len) {
        if (split_line(r, line, err, err_len) != 0)
            return -1;
        if (line->num_tok > 0)
            return 1;
    }
    return 0;
}

void md_lines_eof_pos(const md_line_reader_t *r, int *line, int *col)
{
    size_t i = r->len, line_start;
    int lineno = 1;

    for (size_t k = 0; k < r->len; k++)
        if (r->buf[k] == '\n')
            lineno++;
    line_start = i;
    while (line_start > 0 && r->buf[line_start - 1] != '\n')
        line_start--;
    *line = lineno;
    *col = (int)(i - line_start + 1);
}

int md_token_is(const md_token_t *t, const char *word)
{
    size_t n = strlen(word);
    return t->len == n && memcmp(t->text, word, n) == 0;
}

int md_token_copy(const md_token_t *t, char *buf, size_t buf_len)
{
    if (t->len >= buf_len)
        return -1;
    memcpy(buf, t->text, t->len);
    buf[t->len] = '\0';
    return 0;
}

const char *md_token_quote(const md_token_t *t, char *buf, size_t buf_len)
{
    size_t o = 0, i;

    if (buf_len < 8) {
        if (buf_len > 0)
            buf[0] = '\0';
        return buf;
    }
    for (i = 0; i < t->len; i++) {
        unsigned char c = (unsigned char)t->text[i];
        size_t need = (c >= 0x20 && c < 0x7f) ? 1 : 4;
        if (o + need > buf_len - 4)          /* keep room for "...\0" */
            break;
        if (need == 1)
            buf[o++] = (char)c;
        else
            o += (size_t)snprintf(buf + o, 5, "\\x%02x", c);
    }
    if (i < t->len) {
        memcpy(buf + o, "...", 3);
        o += 3;
    }
    buf[o] = '\0';
    return buf;
}

void md_conf_verrorf(char *err, size_t err_len, const char *source, int line,
                     int col, const char *fmt, va_list ap)
{
    int n;

    if (err == NULL || err_len == 0)
        return;
    n = snprintf(err, err_len, "%s:%d:%d: ", source, line, col);
    if (n >= 0 && (size_t)n < err_len)
        vsnprintf(err + n, err_len - (size_t)n, fmt, ap);
}

void md_conf_errorf(char *err, size_t err_len, const char *source, int line,
                    int col, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    md_conf_verrorf(err, err_len, source, line, col, fmt, ap);
    va_end(ap);
}

int md_name_valid(const char *text, size_t len, size_t max_len)
{
    if (len == 0 || len > max_len || (len == 1 && text[0] == '-'))
        return 0;
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-'))
            return 0;
    }
    return 1;
}

char *md_read_file(const char *path, size_t *len_p)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t len = 0, cap = 0;

    if (f == NULL)
        return NULL;
    for (;;) {
        if (len == cap) {
            cap = cap != 0 ? 2 * cap : 65536;
            char *nb = realloc(buf, cap);
            if (nb == NULL) {
                free(buf);
                fclose(f);
                errno = ENOMEM;
                return NULL;
            }
            buf = nb;
        }
        size_t n = fread(buf + len, 1, cap - len, f);
        len += n;
        if (n == 0)
            break;
    }
    if (ferror(f)) {
        int e = errno;
        free(buf);
        fclose(f);
        errno = e != 0 ? e : EIO;
        return NULL;
    }
    fclose(f);
    *len_p = len;
    return buf;
}
