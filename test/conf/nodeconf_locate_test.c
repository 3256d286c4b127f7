/* nodeconf_locate_test.c - which file holds a node's configuration
 * (md_nodeconf_locate): a file named is that file; a directory holds
 * <node>.conf; what is missing is said, naming the setting. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "md_nodeconf.h"

static char dir[64];
static char conf_a[128];

static void make_dir(void)
{
    FILE *f;

    snprintf(dir, sizeof(dir), "/tmp/md-locate-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    snprintf(conf_a, sizeof(conf_a), "%s/a.conf", dir);
    f = fopen(conf_a, "w");
    cr_assert_not_null(f);
    fclose(f);
}

static void remove_dir(void)
{
    unlink(conf_a);
    rmdir(dir);
}

TestSuite(nodeconf_locate, .init = make_dir, .fini = remove_dir);

Test(nodeconf_locate, a_file_is_the_file_whatever_the_node)
{
    char node[64] = "b", file[256], err[512];

    cr_assert_eq(md_nodeconf_locate("X", conf_a, node, sizeof(node), file, sizeof(file), err,
                                    sizeof(err)), 0);
    cr_assert_str_eq(file, conf_a);
    cr_assert_str_eq(node, "b");
}

Test(nodeconf_locate, a_directory_holds_the_node_s_file)
{
    char node[64] = "a", file[256], err[512];

    cr_assert_eq(md_nodeconf_locate("X", dir, node, sizeof(node), file, sizeof(file), err,
                                    sizeof(err)), 0);
    cr_assert_str_eq(file, conf_a);
}

Test(nodeconf_locate, a_directory_without_the_node_s_file_is_said)
{
    char node[64] = "b", file[256], err[512];

    cr_assert_eq(md_nodeconf_locate("MULTIDEV_CONFIG", dir, node, sizeof(node), file,
                                    sizeof(file), err, sizeof(err)), -1);
    cr_assert_not_null(strstr(err, "holds no configuration for node b"), "%s", err);
    cr_assert_eq(strncmp(err, "MULTIDEV_CONFIG=", 16), 0, "%s", err);
}

Test(nodeconf_locate, no_node_name_means_the_host_name)
{
    char node[64] = "", host[64] = "", file[256], err[512];

    cr_assert_eq(gethostname(host, sizeof(host) - 1), 0);
    cr_assert_eq(md_nodeconf_locate("X", dir, node, sizeof(node), file, sizeof(file), err,
                                    sizeof(err)), -1, "no %s.conf there", host);
    cr_assert_str_eq(node, host);
}

Test(nodeconf_locate, a_path_that_does_not_exist_is_said)
{
    char node[64] = "a", file[256], err[512];

    cr_assert_eq(md_nodeconf_locate("--node-file", "/nonexistent/md", node, sizeof(node), file,
                                    sizeof(file), err, sizeof(err)), -1);
    cr_assert_str_eq(err, "--node-file=/nonexistent/md: no such file or directory");
}
