/* Every malformed per-node file is rejected with file:line:col and what was
 * expected; nothing is returned on failure. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "md_nodeconf.h"

typedef struct bad_case {
    const char *text;
    const char *error;
} bad_case_t;

#define H "multidev-node-config 1\nnode n1\ndevice shm\ndevice sci\n"

static const bad_case_t bad_cases[] = {
    /* magic line */
    { "", "t.conf:1:1: expected 'multidev-node-config 1', got end of file" },
    { "# c\n\n", "t.conf:3:1: expected 'multidev-node-config 1', got end of file" },
    { "node n1\n", "t.conf:1:1: expected 'multidev-node-config 1' as the "
                   "first line, got 'node'" },
    { "  multidev-node-config\n",
      "t.conf:1:23: expected the format version 1, got end of line" },
    { "multidev-node-config 2\n",
      "t.conf:1:22: expected the format version 1, got '2'" },
    { "multidev-node-config 01\n",
      "t.conf:1:22: expected the format version 1, got '01'" },
    { "multidev-node-config 1 extra\n",
      "t.conf:1:24: expected end of line, got 'extra'" },
    /* node */
    { "multidev-node-config 1\ndevice shm\n",
      "t.conf:3:1: expected a 'node' line, got end of file" },
    { "multidev-node-config 1\ndevice shm",
      "t.conf:2:11: expected a 'node' line, got end of file" },
    { "multidev-node-config 1\nnode n1\nnode n2\n",
      "t.conf:3:1: duplicate 'node' line (first at line 2)" },
    { "multidev-node-config 1\nnode\n",
      "t.conf:2:5: expected a node name, got end of line" },
    { "multidev-node-config 1\nnode n*1\n",
      "t.conf:2:6: expected a node name ([A-Za-z0-9_.-], 1-63 characters), "
      "got 'n*1'" },
    { "multidev-node-config 1\nnode -\n",
      "t.conf:2:6: expected a node name ([A-Za-z0-9_.-], 1-63 characters), "
      "got '-'" },
    { "multidev-node-config 1\nnode n1 n2\n",
      "t.conf:2:9: expected end of line, got 'n2'" },
    { "multidev-node-config 1\nnodes n1\n",
      "t.conf:2:1: expected a keyword (node, device, route, arrive, rails), got "
      "'nodes'" },
    { "multidev-node-config 1\nmultidev-node-config 1\n",
      "t.conf:2:1: expected a keyword (node, device, route, arrive, rails), got "
      "'multidev-node-config'" },
    /* device */
    { H "device\n", "t.conf:5:7: expected a subdevice name, got end of line" },
    { H "device shm\n", "t.conf:5:8: duplicate device 'shm' (first at line 3)" },
    { H "device myri port\n", "t.conf:5:13: expected key=value, got 'port'" },
    { H "device myri =1\n",
      "t.conf:5:13: expected a parameter key ([A-Za-z0-9_.-], 1-63 "
      "characters) before '=', got '=1'" },
    { H "device myri p=1 q=2 p=3\n",
      "t.conf:5:21: duplicate parameter 'p' (expected each key once)" },
    { H "device myri p=\xc3\xa9\n",
      "t.conf:5:15: expected a parameter value of printable ASCII, got "
      "'\\xc3\\xa9'" },
    /* route */
    { H "route\n", "t.conf:5:6: expected a peer node name, got end of line" },
    { H "route n2\n",
      "t.conf:5:9: expected a size (bytes, k/m/g suffix), got end of line" },
    { H "route n2 x inf sci -\n",
      "t.conf:5:10: expected a size (bytes, k/m/g suffix), got 'x'" },
    { H "route n2 inf inf sci -\n",
      "t.conf:5:10: expected a size (bytes, k/m/g suffix), got 'inf' (inf is "
      "only allowed as a maximum)" },
    { H "route n2 0 fast sci -\n",
      "t.conf:5:12: expected a size (bytes, k/m/g suffix or inf), got 'fast'" },
    { H "route n2 0 99999999999999999999 sci -\n",
      "t.conf:5:12: expected a size (bytes, k/m/g suffix or inf), got "
      "'99999999999999999999'" },
    { H "route n2 0 17179869184g sci -\n",
      "t.conf:5:12: expected a size (bytes, k/m/g suffix or inf), got "
      "'17179869184g'" },
    { H "route n2 100 50 sci -\n",
      "t.conf:5:14: expected a maximum of at least the minimum 100, got 50" },
    { H "route n2 5 inf sci -\n",
      "t.conf:5:10: expected the first route to 'n2' to start at 0, got 5" },
    { H "route n2 0 99 sci -\nroute n2 101 inf sci -\n",
      "t.conf:6:10: expected the route to 'n2' to start at 100 (line 5 ends "
      "at 99), got 101" },
    { H "route n2 0 99 sci -\nroute n2 50 inf sci -\n",
      "t.conf:6:10: expected the route to 'n2' to start at 100 (line 5 ends "
      "at 99), got 50" },
    { H "route n2 0 inf sci -\nroute n2 0 inf sci -\n",
      "t.conf:6:10: duplicate route to 'n2' starting at 0 (first at line 5)" },
    { H "route n2 0 inf sci -\nroute n2 10 20 sci -\n",
      "t.conf:6:10: expected no further route to 'n2' (line 5 already "
      "reaches inf)" },
    /* ranges may come in any order; the gap is reported where it starts */
    { H "route n2 100 inf sci -\nroute n2 0 98 sci -\n",
      "t.conf:5:10: expected the route to 'n2' to start at 99 (line 6 ends "
      "at 98), got 100" },
    { H "route n2 100 inf sci -\nroute n2 1 99 sci -\n",
      "t.conf:6:10: expected the first route to 'n2' to start at 0, got 1" },
    { H "route n2 0 inf\n",
      "t.conf:5:15: expected a subdevice name, got end of line" },
    { H "route n2 0 inf sci\n",
      "t.conf:5:19: expected a next hop (a node name, or '-' for a direct "
      "link), got end of line" },
    { H "route n2 0 inf sci n2\n",
      "t.conf:5:20: expected '-' for a direct route to 'n2', got 'n2'" },
    { H "route n2 0 inf sci - x\n",
      "t.conf:5:22: expected end of line, got 'x'" },
    { H "route n2 0 inf sci n1\n",
      "t.conf:5:20: expected a next hop other than this node 'n1'" },
    { H "route n1 0 inf sci n3\n",
      "t.conf:5:20: expected '-' as the next hop of a route to this node "
      "itself" },
    { H "route n2 0 inf gm -\n",
      "t.conf:5:16: expected a subdevice declared by a 'device' line, got "
      "'gm'" },
    { H "route n2 0 99 sci -\n",
      "t.conf:5:12: expected the routes to 'n2' to end with inf, the last one "
      "ends at 99" },
    /* arrive */
    { H "arrive n2\n", "t.conf:5:10: expected a subdevice name, got end of line" },
    { H "arrive n2 sci shm sci\n",
      "t.conf:5:19: duplicate subdevice 'sci' (expected each once)" },
    { H "arrive n2 sci\narrive n2 shm\n",
      "t.conf:6:8: duplicate 'arrive' for 'n2' (first at line 5)" },
    { H "arrive n2 sci gm\n",
      "t.conf:5:15: expected a subdevice declared by a 'device' line, got "
      "'gm'" },
    { H "arrive n2 sci s$\n",
      "t.conf:5:15: expected a subdevice name ([A-Za-z0-9_.-], 1-63 "
      "characters), got 's$'" },
    /* a list of peers naming one twice */
    { H "arrive n[2,2] sci\n",
      "t.conf:5:8: duplicate 'arrive' for 'n2' (first at line 5)" },
    /* rails */
    { H "rails\n", "t.conf:5:6: expected a peer node name, got end of line" },
    { H "rails n2\n",
      "t.conf:5:9: expected a size (bytes, k/m/g suffix), got end of line" },
    { H "rails n2 inf sci=1 shm=2\n",
      "t.conf:5:10: expected a size (bytes, k/m/g suffix), got 'inf' (inf is "
      "only allowed as a maximum)" },
    { H "rails n2 big sci=1 shm=2\n",
      "t.conf:5:10: expected a size (bytes, k/m/g suffix), got 'big'" },
    { H "rails n2 64k\n",
      "t.conf:5:13: expected subdevice=weight (at least 2 rails), got end of "
      "line" },
    { H "rails n2 64k sci=80\n",
      "t.conf:5:20: expected subdevice=weight (at least 2 rails), got end of "
      "line" },
    { H "rails n2 64k sci shm=2\n",
      "t.conf:5:14: expected subdevice=weight, got 'sci'" },
    { H "rails n2 64k s$=1 shm=2\n",
      "t.conf:5:14: expected a subdevice name ([A-Za-z0-9_.-], 1-63 "
      "characters) before '=', got 's$=1'" },
    { H "rails n2 64k =1 shm=2\n",
      "t.conf:5:14: expected a subdevice name ([A-Za-z0-9_.-], 1-63 "
      "characters) before '=', got '=1'" },
    { H "rails n2 64k fwd=1 sci=2\n",
      "t.conf:5:14: expected a subdevice as a rail, got 'fwd' (the forwarding "
      "receiver)" },
    { H "rails n2 64k sci=0 shm=2\n",
      "t.conf:5:18: expected a weight (an integer 1-1000000, the rail's MB/s) "
      "after '=', got '0'" },
    { H "rails n2 64k sci=1000001 shm=2\n",
      "t.conf:5:18: expected a weight (an integer 1-1000000, the rail's MB/s) "
      "after '=', got '1000001'" },
    { H "rails n2 64k sci= shm=2\n",
      "t.conf:5:18: expected a weight (an integer 1-1000000, the rail's MB/s) "
      "after '=', got ''" },
    { H "rails n2 64k sci=1.5 shm=2\n",
      "t.conf:5:18: expected a weight (an integer 1-1000000, the rail's MB/s) "
      "after '=', got '1.5'" },
    { H "rails n2 64k sci=080 shm=2\n",
      "t.conf:5:18: expected a weight (an integer 1-1000000, the rail's MB/s) "
      "after '=', got '080'" },
    { H "rails n2 64k sci=80 sci=90\n",
      "t.conf:5:21: duplicate subdevice 'sci' (expected each once)" },
    { H "rails n2 64k sci=1 shm=1 a=1 b=1 c=1 d=1 e=1 f=1 g=1\n",
      "t.conf:5:50: expected at most 8 rails, got 'g=1'" },
    { H "rails n2 64k sci=80 gm=10\n",
      "t.conf:5:21: expected a subdevice declared by a 'device' line, got "
      "'gm'" },
    { H "rails n2 64k sci=80 shm=10\nrails n2 1m sci=80 shm=10\n",
      "t.conf:6:7: duplicate 'rails' for 'n2' (first at line 5)" },
    { H "rails n[2-4] 64k sci=80 shm=10\nrails n3 1m sci=80 shm=10\n",
      "t.conf:6:7: duplicate 'rails' for 'n3' (first at line 5)" },
    { H "rails n[2,2] 64k sci=80 shm=10\n",
      "t.conf:5:7: duplicate 'rails' for 'n2' (first at line 5)" },
    { H "rails n[01-x] 64k sci=1 shm=1\n",
      "t.conf:5:12: expected the upper bound (a number of at most 9 "
      "digits), got 'x' (in the peer range 'n[01-x]')" },
    { H "rails n[0-3] 64k sci=80 shm=10\n",
      "t.conf:5:7: expected a peer other than this node 'n1' (rails stripe "
      "messages to other nodes)" },
    /* the node named after the rails line, a device declared after it */
    { "multidev-node-config 1\ndevice shm\nrails n1 1m shm=1 sci=2\n"
      "device sci\nnode n1\n",
      "t.conf:3:7: expected a peer other than this node 'n1' (rails stripe "
      "messages to other nodes)" },
    /* checks settled at the end report the earliest position */
    { H "route n2 0 99 sci -\nroute n3 0 inf gm -\n",
      "t.conf:5:12: expected the routes to 'n2' to end with inf, the last one "
      "ends at 99" },
    { H "route n3 0 inf gm -\nroute n2 0 99 sci -\n",
      "t.conf:5:16: expected a subdevice declared by a 'device' line, got "
      "'gm'" },
    { "multidev-node-config 1\nroute n2 0 inf x -\n",
      "t.conf:2:16: expected a subdevice declared by a 'device' line, got 'x'" },
    /* peer ranges (doc/node-config.md): errors inside the list point into
     * it; errors about one of its peers name the peer */
    { H "route n[09-03] 0 inf sci -\n",
      "t.conf:5:12: expected an upper bound of at least 9, got 3 (in the "
      "peer range 'n[09-03]')" },
    { H "route n[01-x] 0 inf sci -\n",
      "t.conf:5:12: expected the upper bound (a number of at most 9 "
      "digits), got 'x' (in the peer range 'n[01-x]')" },
    { H "route n[01-09] 0 inf sci n03\n",
      "t.conf:5:26: expected '-' for a direct route to 'n03', got 'n03'" },
    { H "route n02 0 inf sci -\nroute n[01-03] 0 inf sci -\n",
      "t.conf:6:16: duplicate route to 'n02' starting at 0 (first at line "
      "5)" },
    { H "route n[01-03] 0 99 sci -\nroute n[01-03] 200 inf sci -\n",
      "t.conf:6:16: expected the route to 'n01' to start at 100 (line 5 "
      "ends at 99), got 200" },
    { H "arrive n[01-03] sci\narrive n02 sci\n",
      "t.conf:6:8: duplicate 'arrive' for 'n02' (first at line 5)" },
    { H "route n[0-9999999] 0 inf sci -\n",
      "t.conf:5:7: expected at most 1048576 names in one list (in the peer "
      "range 'n[0-9999999]')" },
    { H "route n[01-03] 0 inf bus -\n",
      "t.conf:5:22: expected a subdevice declared by a 'device' line, got "
      "'bus'" },
    /* bytes that are not text */
    { "multidev-node-config 1\nnode n\x01\n",
      "t.conf:2:7: unexpected control character 0x01 (expected text)" },
    { "multidev-node-config 1\nnode n1\n\x7f",
      "t.conf:3:1: unexpected control character 0x7f (expected text)" },
    { "multidev-node-config 1\n# comment \x1b[0m\n",
      "t.conf:2:11: unexpected control character 0x1b (expected text)" },
};

Test(nodeconf_errors, every_malformed_case_reports_its_position)
{
    for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
        md_nodeconf_t *conf = (md_nodeconf_t *)0x1;
        char err[MD_NODECONF_ERR_MAX] = "untouched";
        int rc = md_nodeconf_parse_string(bad_cases[i].text, "t.conf", &conf,
                                          err, sizeof(err));
        cr_expect_eq(rc, -1, "case %zu parsed: %s", i, bad_cases[i].text);
        cr_expect_eq(conf, (md_nodeconf_t *)0x1, "case %zu set *conf_p", i);
        cr_expect_str_eq(err, bad_cases[i].error, "case %zu: got\n  %s\nexpected\n  %s", i,
                         err, bad_cases[i].error);
    }
}

Test(nodeconf_errors, names_longer_than_63_characters)
{
    char text[256], name[65], err[MD_NODECONF_ERR_MAX], expect[256];
    md_nodeconf_t *conf = NULL;

    memset(name, 'x', 64);
    name[64] = '\0';
    snprintf(text, sizeof(text), "multidev-node-config 1\nnode %s\n", name);
    snprintf(expect, sizeof(expect),
             "t.conf:2:6: expected a node name ([A-Za-z0-9_.-], 1-63 "
             "characters), got '%s'", name);
    cr_assert_eq(md_nodeconf_parse_string(text, "t.conf", &conf, err,
                                          sizeof(err)), -1);
    cr_expect_str_eq(err, expect);
}

Test(nodeconf_errors, long_tokens_are_cut_in_messages)
{
    char text[4096], err[MD_NODECONF_ERR_MAX];
    md_nodeconf_t *conf = NULL;

    strcpy(text, "multidev-node-config 1\nnode n1\nroute n2 0 ");
    memset(text + strlen(text), '7', 1000);
    text[strlen("multidev-node-config 1\nnode n1\nroute n2 0 ") + 1000] = 0;
    strcat(text, " sci -\n");
    cr_assert_eq(md_nodeconf_parse_string(text, "t.conf", &conf, err,
                                          sizeof(err)), -1);
    cr_expect(strncmp(err, "t.conf:3:12: expected a size (bytes, k/m/g suffix "
                      "or inf), got '7777", 60) == 0, "%s", err);
    cr_expect(strstr(err, "7...'") != NULL, "%s", err);
    cr_expect(strlen(err) < 200, "%s", err);
}

Test(nodeconf_errors, nul_byte_in_a_file)
{
    char path[] = "/tmp/nodeconf_nul_XXXXXX", err[MD_NODECONF_ERR_MAX];
    static const char bytes[] = "multidev-node-config 1\nnode n1\0\n";
    md_nodeconf_t *conf = NULL;
    int fd = mkstemp(path);

    cr_assert_geq(fd, 0);
    cr_assert_eq(write(fd, bytes, sizeof(bytes) - 1),
                 (ssize_t)(sizeof(bytes) - 1));
    close(fd);
    int rc = md_nodeconf_parse_file(path, &conf, err, sizeof(err));
    char expect[256];
    snprintf(expect, sizeof(expect),
             "%s:2:8: unexpected control character 0x00 (expected text)",
             path);
    unlink(path);
    cr_expect_eq(rc, -1);
    cr_expect_str_eq(err, expect);
}

Test(nodeconf_errors, missing_file_names_the_cause)
{
    char err[MD_NODECONF_ERR_MAX];
    md_nodeconf_t *conf = NULL;

    cr_assert_eq(md_nodeconf_parse_file("/nonexistent/n1.conf", &conf, err,
                                        sizeof(err)), -1);
    cr_expect_str_eq(err, "/nonexistent/n1.conf: cannot read: No such file or "
                          "directory");
    cr_expect_null(conf);
}

Test(nodeconf_errors, tiny_error_buffers_are_safe)
{
    char err[8];
    md_nodeconf_t *conf = NULL;

    cr_expect_eq(md_nodeconf_parse_string("bogus", "t.conf", &conf, err,
                                          sizeof(err)), -1);
    cr_expect_str_eq(err, "t.conf:");
    cr_expect_eq(md_nodeconf_parse_string("bogus", "t.conf", &conf, NULL, 0),
                 -1);
}
