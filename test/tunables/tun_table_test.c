/* tun_table_test.c - the declarations themselves: well-formed names, the
 * subdevice parameters' names made from their keys, defaults inside their
 * ranges, fallbacks of the same type, docs that fit a table cell. */
#include <criterion/criterion.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "md_tun.h"

static const char *const sections[] = { "multidev", "shm", "nic", "myri", "sci", "via",
                                        "mdconfig", "build" };
static const char *const subdevices[] = { "shm", "myri", "sci", "via" };

static int listed(const char *s, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(s, list[i]) == 0)
            return 1;
    return 0;
}

Test(table, names_are_unique_and_well_formed)
{
    size_t n;
    const md_tun_t *t = md_tun_all(&n);

    cr_assert_gt(n, 90);
    for (size_t i = 0; i < n; i++) {
        cr_expect_eq(strncmp(t[i].name, "MULTIDEV_", 9), 0, "%s", t[i].name);
        for (const char *c = t[i].name; *c; c++)
            cr_expect(isupper((unsigned char)*c) || isdigit((unsigned char)*c) || *c == '_',
                      "%s", t[i].name);
        cr_expect(md_tun_find(t[i].name) == &t[i], "%s is declared once", t[i].name);
        cr_expect(listed(t[i].section, sections, 8), "%s: section %s", t[i].name,
                  t[i].section);
    }
}

Test(table, a_parameter_is_named_after_its_subdevice_and_key)
{
    size_t n;
    const md_tun_t *t = md_tun_all(&n);
    char want[128];

    for (size_t i = 0; i < n; i++) {
        if (t[i].key == NULL)
            continue;
        cr_expect(listed(t[i].section, subdevices, 4), "%s: a key outside a subdevice",
                  t[i].name);
        int len = snprintf(want, sizeof(want), "MULTIDEV_%s_%s", t[i].section, t[i].key);
        for (int c = 0; c < len; c++)
            want[c] = (char)toupper((unsigned char)want[c]);
        cr_expect_str_eq(t[i].name, want);
        cr_expect(md_tun_find_key(t[i].section, t[i].key) == &t[i], "%s: key declared once",
                  t[i].name);
    }
}

Test(table, every_default_is_a_value_of_its_own)
{
    size_t n;
    const md_tun_t *t = md_tun_all(&n);

    for (size_t i = 0; i < n; i++) {
        md_tun_value_t v;
        char why[MD_TUN_ERR_MAX];

        cr_expect(t[i].def == NULL || t[i].def_doc == NULL, "%s: one default", t[i].name);
        if (t[i].def != NULL)
            cr_expect_eq(md_tun_parse(&t[i], t[i].def, &v, why, sizeof(why)), 0,
                         "%s: default '%s' is not %s", t[i].name, t[i].def, why);
    }
}

Test(table, types_have_what_they_need)
{
    size_t n;
    const md_tun_t *t = md_tun_all(&n);

    for (size_t i = 0; i < n; i++) {
        if (t[i].type == MD_TUN_COUNT || t[i].type == MD_TUN_SIZE || t[i].type == MD_TUN_TIME)
            cr_expect_leq(t[i].min, t[i].max, "%s: a range", t[i].name);
        if (t[i].type == MD_TUN_SIZE)
            cr_expect_geq(t[i].min, 0, "%s: sizes are not negative", t[i].name);
        if (t[i].type == MD_TUN_TIME)
            cr_expect(t[i].unit != NULL && (strcmp(t[i].unit, "us") == 0 ||
                                            strcmp(t[i].unit, "ms") == 0),
                      "%s: a unit", t[i].name);
        if (t[i].type == MD_TUN_TIME) {
            const char *u = strrchr(t[i].name, '_');
            cr_expect(u != NULL && strcasecmp(u + 1, t[i].unit) == 0,
                      "%s: the unit is in the name", t[i].name);
        }
        cr_expect_eq(t[i].type == MD_TUN_CHOICE, t[i].words != NULL, "%s: words", t[i].name);
    }
}

Test(table, a_fallback_is_declared_and_alike)
{
    size_t n;
    const md_tun_t *t = md_tun_all(&n);
    int fallbacks = 0;

    for (size_t i = 0; i < n; i++) {
        if (t[i].fallback == NULL)
            continue;
        const md_tun_t *f = md_tun_find(t[i].fallback);
        fallbacks++;
        cr_assert_not_null(f, "%s: fallback %s", t[i].name, t[i].fallback);
        cr_expect_eq(f->type, t[i].type, "%s", t[i].name);
        cr_expect(f->words == NULL || strcmp(f->words, t[i].words) == 0, "%s", t[i].name);
        cr_expect_null(f->fallback, "%s: one step", t[i].name);
    }
    cr_expect_eq(fallbacks, 3, "the three subdevices' firmware=");
}

Test(table, docs_fit_a_table_cell)
{
    size_t n;
    const md_tun_t *t = md_tun_all(&n);

    for (size_t i = 0; i < n; i++) {
        cr_expect(t[i].doc != NULL && t[i].doc[0] != '\0', "%s: doc", t[i].name);
        cr_expect(strpbrk(t[i].doc, "|\n") == NULL, "%s: no | or newline", t[i].name);
        cr_expect(t[i].def_doc == NULL || strpbrk(t[i].def_doc, "|\n") == NULL, "%s",
                  t[i].name);
    }
}

Test(table, the_doc_table_has_a_row_per_variable)
{
    char *text = NULL;
    size_t len = 0, rows = 0;
    FILE *f = open_memstream(&text, &len);

    md_tun_doc_table("myri", f);
    fclose(f);
    for (char *c = text; (c = strstr(c, "\n| `MULTIDEV_MYRI_")) != NULL; c++)
        rows++;
    cr_expect_eq(rows, 17);      /* with the stream timeouts: RTO_US, RTO_MIN_US ... */
    cr_expect(strstr(text, "| `MULTIDEV_MYRI_EAGER_LIMIT` (`eager_limit`) | 4096 | size, 0 "
                           "to 4k |") != NULL, "%s", text);
    cr_expect(strstr(text, "| `MULTIDEV_MYRI_FIRMWARE` (`firmware`) | "
                           "`MULTIDEV_NIC_FIRMWARE`, else auto | auto, thread, nicd |") != NULL,
              "%s", text);
    free(text);
}
