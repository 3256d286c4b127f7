/* rundir_test.c - the NIC run directory must be the user's own and closed
 * to everybody else (issue 17: another user could create it first and
 * receive the ranks' attach requests, which carry the job's secret).  A
 * squatted, open or linked directory is refused with a message that says
 * which and why, at the run directory and at a node's directory alike,
 * and nothing is attached through it. */
#include "config.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/nic_host.h"
#include "core/nic_log.h"
#include "core/nic_rundir.h"
#include "core/nic_status.h"

static char said[1024];

static void keep_error(void *arg, int level, const char *text)
{
    (void)arg;
    if (level == NIC_LOG_ERROR)
        snprintf(said, sizeof(said), "%s", text);
}

/* the sink of the NIC that asks for its run directory */
static const nic_log_sink_t keep = { keep_error, NULL };

static char base[64];

static void make_base(void)
{
    snprintf(base, sizeof(base), "/tmp/md-rundir-XXXXXX");
    cr_assert_not_null(mkdtemp(base));
    said[0] = '\0';
}

static void remove_base(void)
{
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", base);
    cr_assert_eq(system(cmd), 0);
}

TestSuite(rundir, .init = make_base, .fini = remove_base);

/* rundir refused: NIC_ERR_PROTECTION and a message naming it and the why */
static void assert_refused(const char *rundir, const char *why)
{
    char dir[256];
    cr_assert_eq(nic_rundir_node(&keep, rundir, "n0", dir, sizeof(dir)), NIC_ERR_PROTECTION);
    cr_assert_not_null(strstr(said, why), "the message says '%s': %s", why, said);
    cr_assert_not_null(strstr(said, "MULTIDEV_NIC_RUNDIR"), "and what to do: %s", said);
}

Test(rundir, a_private_directory_is_used_and_its_node_directory_made_private)
{
    char dir[256];
    struct stat st;

    cr_assert_eq(nic_rundir_node(&keep, base, "n0", dir, sizeof(dir)), NIC_OK);
    cr_assert_eq(stat(dir, &st), 0);
    cr_assert_eq(st.st_mode & 0777, 0700);
    cr_assert_eq(said[0], '\0', "no complaint: %s", said);
}

Test(rundir, a_directory_open_to_others_is_refused)
{
    cr_assert_eq(chmod(base, 0777), 0);
    assert_refused(base, "open to group or others");
    cr_assert_eq(chmod(base, 0750), 0);
    assert_refused(base, "mode 750");
}

Test(rundir, a_directory_of_another_user_is_refused)
{
    char other[256];

    if (geteuid() == 0) {
        /* squatted: made by someone else first, private to them */
        snprintf(other, sizeof(other), "%s/squat", base);
        cr_assert_eq(mkdir(other, 0700), 0);
        cr_assert_eq(chown(other, 65534, 65534), 0);
    } else {
        snprintf(other, sizeof(other), "/");   /* root's, and we are not root */
    }
    assert_refused(other, "belongs to uid");
}

Test(rundir, a_symbolic_link_is_refused)
{
    char target[256], link[256];

    snprintf(target, sizeof(target), "%s/real", base);
    snprintf(link, sizeof(link), "%s/link", base);
    cr_assert_eq(mkdir(target, 0700), 0);
    cr_assert_eq(symlink(target, link), 0);
    assert_refused(link, "symbolic link");
}

Test(rundir, a_node_directory_open_to_others_is_refused_and_nothing_attaches)
{
    char node[256];
    nic_host_t *h = NULL;
    nic_attach_opts_t o = { .node = "n0", .nic = "myri0", .pers = "myri", .rundir = base,
                            .start = 1, .inproc = 1, .timeout_ms = 2000, .log = keep };

    snprintf(node, sizeof(node), "%s/n0", base);
    cr_assert_eq(mkdir(node, 0777), 0);
    cr_assert_eq(chmod(node, 0777), 0);
    cr_assert_eq(nic_host_attach(&o, &h), NIC_ERR_PROTECTION);
    cr_assert_null(h);
    cr_assert_not_null(strstr(said, node), "the message names %s: %s", node, said);
}
