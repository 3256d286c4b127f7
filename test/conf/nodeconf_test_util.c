/* nodeconf_test_util.c - helpers shared by the per-node file tests. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

#include "nodeconf_test_util.h"

char *nct_write(const md_nodeconf_t *conf)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    cr_assert_not_null(f);
    cr_assert_eq(md_nodeconf_write(f, conf), 0);
    fclose(f);
    return buf;
}

md_nodeconf_t *nct_parse(const char *text)
{
    md_nodeconf_t *conf = NULL;
    char err[MD_NODECONF_ERR_MAX];

    cr_assert_eq(md_nodeconf_parse_string(text, "rt.conf", &conf, err,
                                          sizeof(err)), 0, "%s", err);
    return conf;
}

void nct_expect_written_as(const char *text, const char *expected)
{
    md_nodeconf_t *c = nct_parse(text);
    char *out = nct_write(c);

    cr_expect_str_eq(out, expected);
    free(out);
    md_nodeconf_free(c);
}

void nct_expect_built_as(const md_nodeconf_t *conf, const char *expected)
{
    char *text = nct_write(conf);

    cr_expect_str_eq(text, expected);
    nct_expect_written_as(text, text);
    free(text);
}
