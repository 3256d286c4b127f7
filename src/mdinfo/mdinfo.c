/* mdinfo - what multidev finds, is told and would do here (as ucx_info and
 * ompi_info are for UCX and Open MPI).
 *
 *   mdinfo [--node-file PATH] [--module-path DIRS] [WHAT]
 *
 *   --all (the default)  the subdevices, every variable and, given a node
 *                        file, its device list and routes
 *   --subdevs            the subdevice modules found in the module path,
 *                        each loaded by libmultidev's loader: its file,
 *                        SDI and kit ABI, capabilities, optional
 *                        operations and parameters; one that the loader
 *                        refuses is listed with the loader's message
 *   --env                every variable's value here and where it comes
 *                        from (default, environment, node file, fallback)
 *   --routes             the node file's device list and connection table
 *   --names              the declared variables, one a line
 *   --doc SECTION        the markdown table of a section
 *   --doc-update FILE    rewrite FILE's generated tables
 *   --doc-check FILE     exit 1 if FILE's tables are not what the
 *                        declarations give (test/tunables)
 *
 * --node-file PATH (default: MULTIDEV_CONFIG) reads a node file
 * (doc/node-config.md) found and parsed as libmultidev does: PATH itself,
 * or, for a directory, PATH/<node>.conf (MULTIDEV_NODE, else the host
 * name).  Its device lines' parameters then count as values (--env,
 * --subdevs).  --module-path DIRS searches DIRS before the install
 * directory, as MULTIDEV_MODULE_PATH, its default, does.
 *
 * Exit status: 0; 1 when something is wrong (a malformed variable, an
 * unknown MULTIDEV_* variable, a module refused, a node file that does not
 * parse: said on stderr); 2 for a usage error.  The variables come from
 * the table of tunables (src/tunables/md_tun_table.c). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "mdinfo.h"
#include "mdinfo_doc.h"

int mdinfo_said;

void mdinfo_say(const char *line)
{
    fprintf(stderr, "mdinfo: %s\n", line);
    mdinfo_said++;
}

enum mdinfo_what { WHAT_ALL, WHAT_SUBDEVS, WHAT_ENV, WHAT_ROUTES };

static void usage(FILE *f)
{
    fprintf(f,
            "usage: mdinfo [--node-file PATH] [--module-path DIRS]\n"
            "              [--all | --subdevs | --env | --routes]\n"
            "       mdinfo --names | --doc SECTION | --doc-update FILE | --doc-check FILE\n"
            "\n"
            "  --all              (default) the subdevices, every variable, and the\n"
            "                     node file's routes when one is given\n"
            "  --subdevs          subdevice modules found, loaded by libmultidev's loader:\n"
            "                     file, SDI and kit ABI, capabilities, operations,\n"
            "                     parameters; a refused one with the loader's message\n"
            "  --env              every MULTIDEV_* variable: value and origin (default,\n"
            "                     environment, node file, fallback variable)\n"
            "  --routes           the node file's device list and connection table\n"
            "  --node-file PATH   a node file, or a directory of them (mdconfig -o)\n"
            "                     holding <MULTIDEV_NODE or host>.conf; its device\n"
            "                     lines' parameters count as values (default:\n"
            "                     MULTIDEV_CONFIG, as libmultidev reads it)\n"
            "  --module-path DIRS search DIRS (colon-separated) before the install\n"
            "                     directory (default: MULTIDEV_MODULE_PATH)\n"
            "  --names            the declared variables, one a line\n"
            "  --doc SECTION      the markdown table of a section of doc/environment.md\n"
            "  --doc-update FILE  rewrite FILE's generated tables\n"
            "  --doc-check FILE   exit 1 if FILE's tables differ from the declarations\n");
}

/* The commands on the table of tunables alone; -1 if argv is none. */
static int table_command(int argc, char **argv)
{
    size_t n;
    const md_tun_t *t = md_tun_all(&n);

    if (argc == 2 && strcmp(argv[1], "--names") == 0) {
        for (size_t i = 0; i < n; i++)
            printf("%s\n", t[i].name);
        return 0;
    }
    if (argc == 3 && strcmp(argv[1], "--doc") == 0) {
        if (md_tun_doc_table(argv[2], stdout) > 0)
            return 0;
        fprintf(stderr, "mdinfo: no variables in section '%s'\n", argv[2]);
        return 2;
    }
    if (argc == 3 && strcmp(argv[1], "--doc-update") == 0)
        return mdinfo_doc_file(argv[2], MDINFO_DOC_UPDATE) == 0 ? 0 : 1;
    if (argc == 3 && strcmp(argv[1], "--doc-check") == 0)
        return mdinfo_doc_file(argv[2], MDINFO_DOC_CHECK) == 0 ? 0 : 1;
    return -1;
}

/* The node file named by --node-file, else by MULTIDEV_CONFIG, found as
 * libmultidev finds it (a directory holds <MULTIDEV_NODE or host>.conf)
 * and parsed; *conf stays NULL when neither names one.  0, or -1 said. */
static int read_node_file(const char *option, md_nodeconf_t **conf)
{
    const char *path = option, *node_env = NULL;
    char node[MD_NODECONF_NAME_MAX] = "", file[4096], err[MD_NODECONF_ERR_MAX];

    if ((path == NULL && md_tun_env_text("MULTIDEV_CONFIG", &path, mdinfo_say) < 0) ||
        md_tun_env_text("MULTIDEV_NODE", &node_env, mdinfo_say) < 0)
        return -1;
    if (path == NULL || *path == '\0')
        return 0;
    if (node_env != NULL)
        snprintf(node, sizeof(node), "%s", node_env);
    if (md_nodeconf_locate(option != NULL ? "--node-file" : "MULTIDEV_CONFIG", path, node,
                           sizeof(node), file, sizeof(file), err, sizeof(err)) != 0 ||
        md_nodeconf_parse_file(file, conf, err, sizeof(err)) != 0) {
        fprintf(stderr, "mdinfo: %s\n", err);
        return -1;
    }
    return 0;
}

static int run(int what, const md_nodeconf_t *conf, const char *module_path)
{
    int rc = 0;

    if (what == WHAT_ROUTES || (what == WHAT_ALL && conf != NULL)) {
        if (conf == NULL) {
            fprintf(stderr, "mdinfo: --routes needs a node file: --node-file PATH, or "
                    "MULTIDEV_CONFIG\n");
            return 2;
        }
        mdinfo_routes(conf);
        if (what == WHAT_ALL)
            printf("\n");
    }
    if (what == WHAT_SUBDEVS || what == WHAT_ALL) {
        rc |= mdinfo_subdevs(module_path, conf);
        if (what == WHAT_ALL)
            printf("\n# variables\n");
    }
    if (what == WHAT_ENV || what == WHAT_ALL)
        rc |= mdinfo_env(conf);
    return rc;
}

int main(int argc, char **argv)
{
    const char *node_file = NULL, *module_path = NULL;
    int what = WHAT_ALL, rc = table_command(argc, argv);
    md_nodeconf_t *conf = NULL;

    if (rc >= 0)
        return rc;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];

        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--node-file") == 0 && i + 1 < argc) {
            node_file = argv[++i];
        } else if (strcmp(a, "--module-path") == 0 && i + 1 < argc) {
            module_path = argv[++i];
        } else if (strcmp(a, "--all") == 0) {
            what = WHAT_ALL;
        } else if (strcmp(a, "--subdevs") == 0) {
            what = WHAT_SUBDEVS;
        } else if (strcmp(a, "--env") == 0) {
            what = WHAT_ENV;
        } else if (strcmp(a, "--routes") == 0) {
            what = WHAT_ROUTES;
        } else {
            fprintf(stderr, "mdinfo: unknown or incomplete option '%s'\n", a);
            usage(stderr);
            return 2;
        }
    }
    if (module_path == NULL && md_tun_env_text("MULTIDEV_MODULE_PATH", &module_path,
                                               mdinfo_say) < 0)
        return 1;
    if (read_node_file(node_file, &conf) != 0)
        return 1;
    rc = run(what, conf, module_path);
    if (conf != NULL)
        md_nodeconf_free(conf);
    return rc;
}
