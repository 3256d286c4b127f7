/* md_tun_doc.c - the tunables as documentation: the variables tables of
 * doc/environment.md, written from the declarations (md_tun.h). */
#include <stdio.h>
#include <string.h>

#include "md_size.h"
#include "md_tun.h"

const char *md_tun_default_doc(const md_tun_t *t)
{
    if (t->def != NULL)
        return t->def;
    return t->def_doc != NULL ? t->def_doc : "unset";
}

void md_tun_values_doc(const md_tun_t *t, char *out, size_t len)
{
    char lo[32], hi[32];
    size_t used;

    switch (t->type) {
    case MD_TUN_COUNT:
        snprintf(out, len, "%lld to %lld", t->min, t->max);
        break;
    case MD_TUN_SIZE:
        md_size_format((size_t)t->min, lo, sizeof(lo));
        md_size_format((size_t)t->max, hi, sizeof(hi));
        snprintf(out, len, "size, %s to %s", lo, hi);
        break;
    case MD_TUN_TIME:
        snprintf(out, len, "%lld to %lld %s", t->min, t->max, t->unit);
        break;
    case MD_TUN_PROB:
        snprintf(out, len, "0 to 1");
        break;
    case MD_TUN_BOOL:
        snprintf(out, len, "0, 1");
        break;
    case MD_TUN_CHOICE:
        used = 0;
        for (const char *c = t->words; *c != '\0' && used + 3 < len; c++) {
            if (*c == '|') {
                out[used++] = ',';
                out[used++] = ' ';
            } else {
                out[used++] = *c;
            }
        }
        out[used] = '\0';
        break;
    case MD_TUN_STRING:
        snprintf(out, len, "text");
        break;
    case MD_TUN_PATH:
        snprintf(out, len, "path");
        break;
    case MD_TUN_IPV4:
        snprintf(out, len, "IPv4 address");
        break;
    case MD_TUN_IFACE:
        snprintf(out, len, "interface");
        break;
    case MD_TUN_SUBNET:
        snprintf(out, len, "`A.B.C.D/N`");
        break;
    }
}

int md_tun_doc_table(const char *section, FILE *out)
{
    size_t n;
    const md_tun_t *t = md_tun_all(&n);
    char values[256];
    int rows = 0;

    for (size_t i = 0; i < n; i++) {
        if (strcmp(t[i].section, section) != 0)
            continue;
        if (rows == 0)
            fprintf(out, "| variable | default | values | meaning |\n|---|---|---|---|\n");
        md_tun_values_doc(&t[i], values, sizeof(values));
        fprintf(out, "| `%s`", t[i].name);
        if (t[i].key != NULL)
            fprintf(out, " (`%s`)", t[i].key);
        if (t[i].fallback != NULL)
            fprintf(out, " | `%s`, else %s", t[i].fallback, md_tun_default_doc(&t[i]));
        else
            fprintf(out, " | %s", md_tun_default_doc(&t[i]));
        fprintf(out, " | %s | %s |\n", values, t[i].doc);
        rows++;
    }
    return rows;
}
