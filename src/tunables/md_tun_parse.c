/* md_tun_parse.c - the one parser of tunable values: text to a value of
 * the declared type, inside the declared range, or the words saying what
 * the declaration allows. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "md_size.h"
#include "md_tun.h"

/* The index of text among the '|'-separated words (any case), or -1. */
static int choice_index(const char *words, const char *text)
{
    size_t n = strlen(text);

    for (int i = 0;; i++) {
        size_t wlen = strcspn(words, "|");
        if (wlen == n && strncasecmp(words, text, n) == 0)
            return i;
        if (words[wlen] == '\0')
            return -1;
        words += wlen + 1;
    }
}

void md_tun_word(const md_tun_t *t, long long index, char *out, size_t len)
{
    const char *w = t->words != NULL ? t->words : "";

    for (long long i = 0; i < index; i++) {
        size_t n = strcspn(w, "|");
        w += n + (w[n] == '|');     /* past the last word: "" */
    }
    snprintf(out, len, "%.*s", index >= 0 ? (int)strcspn(w, "|") : 0, w);
}

/* "a, b or c" from "a|b|c". */
static void choice_words(const char *words, char *out, size_t len)
{
    size_t used = 0, count = 1;

    for (const char *c = words; *c != '\0'; c++)
        count += *c == '|';
    out[0] = '\0';
    for (size_t i = 0; i < count && used < len; i++) {
        size_t wlen = strcspn(words, "|");
        used += (size_t)snprintf(out + used, len - used, "%s%.*s",
                                 i == 0 ? "" : i + 1 == count ? " or " : ", ", (int)wlen, words);
        words += wlen + (words[wlen] == '|');
    }
}

void md_tun_allowed(const md_tun_t *t, char *out, size_t len)
{
    char lo[32], hi[32];

    switch (t->type) {
    case MD_TUN_COUNT:
        snprintf(out, len, "a whole number from %lld to %lld", t->min, t->max);
        break;
    case MD_TUN_SIZE:
        md_size_format((size_t)t->min, lo, sizeof(lo));
        md_size_format((size_t)t->max, hi, sizeof(hi));
        snprintf(out, len, "a size from %s to %s (bytes, or with a k, m or g suffix)", lo, hi);
        break;
    case MD_TUN_TIME:
        snprintf(out, len, "a time in %s from %lld to %lld", t->unit, t->min, t->max);
        break;
    case MD_TUN_PROB:
        snprintf(out, len, "a probability from 0 to 1");
        break;
    case MD_TUN_BOOL:
        snprintf(out, len, "0 or 1");
        break;
    case MD_TUN_CHOICE:
        choice_words(t->words, out, len);
        break;
    case MD_TUN_STRING:
    case MD_TUN_PATH:
    case MD_TUN_IPV4:
    case MD_TUN_IFACE:
    case MD_TUN_SUBNET:
        snprintf(out, len, "any text");
        break;
    }
}

/* strtoll and strtod skip leading blanks; a value written so is not one. */
static int parse_whole(const char *text, long long *num)
{
    char *end = NULL;

    if (isspace((unsigned char)text[0]))
        return -1;
    errno = 0;
    *num = strtoll(text, &end, 10);
    return errno == 0 && end != text && *end == '\0' ? 0 : -1;
}

static int parse_size(const char *text, long long *num)
{
    size_t v;

    if (md_parse_size(text, &v) != 0 || v > (size_t)0x7fffffffffffffffull)
        return -1;
    *num = (long long)v;
    return 0;
}

static int parse_prob(const char *text, double *p)
{
    char *end = NULL;

    if (isspace((unsigned char)text[0]))
        return -1;
    errno = 0;
    *p = strtod(text, &end);
    return errno == 0 && end != text && *end == '\0' && isfinite(*p) && *p >= 0 && *p <= 1
               ? 0 : -1;
}

int md_tun_parse(const md_tun_t *t, const char *text, md_tun_value_t *v, char *err,
                 size_t len)
{
    int rc = 0;

    v->num = 0;
    v->prob = 0;
    v->text = text;
    switch (t->type) {
    case MD_TUN_COUNT:
    case MD_TUN_TIME:
        rc = parse_whole(text, &v->num);
        break;
    case MD_TUN_SIZE:
        rc = parse_size(text, &v->num);
        break;
    case MD_TUN_PROB:
        rc = parse_prob(text, &v->prob);
        break;
    case MD_TUN_BOOL:
        rc = strcmp(text, "0") == 0 || strcmp(text, "1") == 0 ? 0 : -1;
        v->num = text[0] == '1';
        break;
    case MD_TUN_CHOICE:
        v->num = choice_index(t->words, text);
        rc = v->num >= 0 ? 0 : -1;
        break;
    case MD_TUN_STRING:
    case MD_TUN_PATH:
    case MD_TUN_IPV4:
    case MD_TUN_IFACE:
    case MD_TUN_SUBNET:
        break;
    }
    if (rc == 0 && (t->type == MD_TUN_COUNT || t->type == MD_TUN_SIZE || t->type == MD_TUN_TIME) &&
        (v->num < t->min || v->num > t->max))
        rc = -1;
    if (rc != 0)
        md_tun_allowed(t, err, len);
    return rc;
}
