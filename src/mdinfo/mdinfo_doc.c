/* mdinfo_doc.c - splicing the tables of tunables into a markdown file
 * (mdinfo_doc.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mdinfo_doc.h"
#include "md_tun.h"

#define BEGIN_MARK "<!-- tunables "
#define END_MARK   "<!-- end of tunables "

/* The sections of the table, in order, without repeats. */
static size_t sections(const char **out, size_t cap)
{
    size_t n, count = 0;
    const md_tun_t *t = md_tun_all(&n);

    for (size_t i = 0; i < n; i++) {
        size_t j = 0;
        while (j < count && strcmp(out[j], t[i].section) != 0)
            j++;
        if (j == count && count < cap)
            out[count++] = t[i].section;
    }
    return count;
}

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "r");
    char *buf = NULL;
    size_t cap = 0;

    *len = 0;
    if (f == NULL)
        return NULL;
    for (;;) {
        if (*len + 4096 + 1 > cap) {
            char *grown = realloc(buf, cap = 2 * cap + 8192);
            if (grown == NULL) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = grown;
        }
        size_t got = fread(buf + *len, 1, 4096, f);
        *len += got;
        if (got == 0)
            break;
    }
    fclose(f);
    buf[*len] = '\0';
    return buf;
}

/* Copies text to out with every marked table written anew; marks which
 * sections it met (seen[i] counts section i).  -1 on a marker naming no
 * section or a table without its end. */
static int splice(const char *path, const char *text, FILE *out, const char **secs,
                  size_t nsecs, int *seen)
{
    const char *line = text;
    int lineno = 0;

    while (*line != '\0') {
        const char *next = strchr(line, '\n');
        size_t len = next != NULL ? (size_t)(next - line + 1) : strlen(line);
        size_t sec;

        lineno++;
        fwrite(line, 1, len, out);
        if (strncmp(line, BEGIN_MARK, strlen(BEGIN_MARK)) != 0) {
            line += len;
            continue;
        }
        const char *name = line + strlen(BEGIN_MARK);
        size_t name_len = strcspn(name, ": \n");
        for (sec = 0; sec < nsecs; sec++)
            if (strlen(secs[sec]) == name_len && strncmp(secs[sec], name, name_len) == 0)
                break;
        if (sec == nsecs) {
            fprintf(stderr, "%s:%d: no section '%.*s' in the table of tunables\n", path,
                    lineno, (int)name_len, name);
            return -1;
        }
        seen[sec]++;
        md_tun_doc_table(secs[sec], out);
        /* skip the old table up to its end marker, which is kept */
        for (line += len; *line != '\0'; line += len) {
            next = strchr(line, '\n');
            len = next != NULL ? (size_t)(next - line + 1) : strlen(line);
            lineno++;
            if (strncmp(line, END_MARK, strlen(END_MARK)) == 0)
                break;
        }
        if (*line == '\0') {
            fprintf(stderr, "%s: the table of section %s has no '%s%s -->' line\n", path,
                    secs[sec], END_MARK, secs[sec]);
            return -1;
        }
    }
    return 0;
}

/* Says where the file and the declarations part. */
static void say_first_difference(const char *path, const char *have, const char *want)
{
    int lineno = 1;
    size_t i = 0;

    while (have[i] != '\0' && have[i] == want[i]) {
        lineno += have[i] == '\n';
        i++;
    }
    while (i > 0 && have[i - 1] != '\n')
        i--;
    fprintf(stderr, "%s:%d: the tables of tunables differ from src/tunables/md_tun_table.c "
            "(run `mdinfo --doc-update %s`)\n  file:   %.*s\n  tables: %.*s\n", path, lineno,
            path, (int)strcspn(have + i, "\n"), have + i, (int)strcspn(want + i, "\n"),
            want + i);
}

int mdinfo_doc_file(const char *path, int mode)
{
    const char *secs[32];
    size_t nsecs = sections(secs, 32), text_len, out_len = 0;
    int seen[32] = { 0 }, rc = 0;
    char *text = read_all(path, &text_len), *out = NULL;
    FILE *mem;

    if (text == NULL) {
        perror(path);
        return -1;
    }
    mem = open_memstream(&out, &out_len);
    if (mem == NULL || splice(path, text, mem, secs, nsecs, seen) != 0)
        rc = -1;
    if (mem != NULL)
        fclose(mem);
    for (size_t s = 0; rc == 0 && s < nsecs; s++) {
        if (seen[s] != 1) {
            fprintf(stderr, "%s: section %s has %d tables of tunables, not one (a line "
                    "'%s%s: ...-->' and its end)\n", path, secs[s], seen[s], BEGIN_MARK,
                    secs[s]);
            rc = -1;
        }
    }
    if (rc == 0 && strcmp(text, out) != 0) {
        if (mode == MDINFO_DOC_CHECK) {
            say_first_difference(path, text, out);
            rc = -1;
        } else {
            FILE *f = fopen(path, "w");
            if (f == NULL || fwrite(out, 1, out_len, f) != out_len || fclose(f) != 0) {
                perror(path);
                rc = -1;
            }
        }
    }
    free(text);
    free(out);
    return rc;
}
