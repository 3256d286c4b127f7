/* nodeconf_test_util.h - helpers shared by the per-node file tests. */
#ifndef NODECONF_TEST_UTIL_H
#define NODECONF_TEST_UTIL_H

#include "md_nodeconf.h"

/* conf's canonical text (asserting it writes; caller frees). */
char *nct_write(const md_nodeconf_t *conf);
/* text parsed (asserting it parses; md_nodeconf_free). */
md_nodeconf_t *nct_parse(const char *text);
/* text, parsed and written back, is expected (byte for byte). */
void nct_expect_written_as(const char *text, const char *expected);
/* conf (built in memory) is written as expected, which parses back to the
 * same bytes. */
void nct_expect_built_as(const md_nodeconf_t *conf, const char *expected);

#endif /* NODECONF_TEST_UTIL_H */
