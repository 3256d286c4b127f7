/*
 * mdconfig - the multidevice configurator (doc/mdconfig.md).
 *
 *   mdconfig DESC -o DIR           write DIR/<node>.conf for every node
 *   mdconfig DESC -o DIR --node X  only DIR/X.conf
 *   mdconfig DESC -o DIR --rails=off   without rails lines (striping)
 *   mdconfig --check DESC          report problems of the routes
 *   mdconfig --explain SRC DST SIZE DESC
 *   mdconfig --dot DESC [-o FILE] [--size SIZE]   (--dot=FILE: -o FILE)
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "md_size.h"
#include "mdc_commands.h"
#include "mdc_write.h"

#define EXIT_USAGE 2

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "(built outside configure)"
#endif

static void usage(FILE *f)
{
    fprintf(f,
        "usage: mdconfig DESC -o DIR [--node NODE] [--rails=on|off] [-j THREADS] [-v]\n"
        "       mdconfig --check DESC [-j THREADS]\n"
        "       mdconfig --explain SRC DST SIZE DESC\n"
        "       mdconfig --dot DESC [-o FILE.dot|FILE.svg|FILE.png] "
        "[--size SIZE]\n"
        "       mdconfig --dot=FILE.svg|FILE.png|FILE.dot DESC [--size SIZE]\n"
        "       mdconfig --help | --version\n"
        "\n"
        "Reads a network description (doc/network-description.md), finds the\n"
        "fastest route between every pair of nodes for every message size and\n"
        "writes one per-node file per node (doc/node-config.md).\n"
        "\n"
        "  -o DIR          write DIR/<node>.conf (created if missing)\n"
        "  --node NODE     with -o DIR: only NODE's file (its own routes only)\n"
        "  --rails=on|off  with -o DIR: rails lines, striping large messages over\n"
        "                  every network that joins two nodes directly, shares by\n"
        "                  modelled bandwidth (default on; doc/mdconfig.md)\n"
        "  --check         unreachable nodes, forwarding over subdevices without\n"
        "                  system messages, asymmetric routes, channel cycles\n"
        "  --explain       the route from SRC to DST for SIZE bytes, hop by hop\n"
        "  --dot           Graphviz picture; routes in use bold; rendered with\n"
        "                  dot(1) when -o ends in .svg or .png (--dot=FILE:\n"
        "                  the same as --dot -o FILE)\n"
        "  --size SIZE     --dot: mark only the routes of that size\n"
        "  -v, --verbose   print the size of the graph and the work done\n"
        "  -j THREADS      worker threads (default MULTIDEV_MDCONFIG_THREADS,\n"
        "                  else the number of CPUs)\n");
}

typedef enum { CMD_WRITE, CMD_CHECK, CMD_EXPLAIN, CMD_DOT } cmd_t;

typedef struct args {
    cmd_t       cmd;
    const char *desc, *out, *src, *dst, *node;
    size_t      size;
    int         have_size;
    int         threads;
    int         verbose;
    int         rails;              /* 1: on (default), 0: --rails=off */
    int         have_rails;
} args_t;

static int bad_usage(const char *fmt, const char *what)
{
    fprintf(stderr, "mdconfig: ");
    fprintf(stderr, fmt, what);
    fprintf(stderr, "\n(mdconfig --help shows the usage)\n");
    return EXIT_USAGE;
}

static int parse_size_arg(const char *text, size_t *size)
{
    return md_parse_size(text, size);
}

static int parse_args(int argc, char **argv, args_t *a)
{
    static const struct option opts[] = {
        { "check", no_argument, NULL, 'c' },
        { "explain", no_argument, NULL, 'e' },
        { "dot", optional_argument, NULL, 'd' },
        { "size", required_argument, NULL, 's' },
        { "node", required_argument, NULL, 'n' },
        { "rails", required_argument, NULL, 'r' },
        { "help", no_argument, NULL, 'h' },
        { "verbose", no_argument, NULL, 'v' },
        { "version", no_argument, NULL, 'V' },
        { NULL, 0, NULL, 0 },
    };
    int c, ncmd = 0;

    memset(a, 0, sizeof(*a));
    a->rails = 1;
    while ((c = getopt_long(argc, argv, "o:j:hv", opts, NULL)) != -1) {
        switch (c) {
        case 'c': a->cmd = CMD_CHECK; ncmd++; break;
        case 'e': a->cmd = CMD_EXPLAIN; ncmd++; break;
        case 'd':                      /* --dot=FILE is --dot -o FILE */
            a->cmd = CMD_DOT;
            ncmd++;
            if (optarg != NULL)
                a->out = optarg;
            break;
        case 'o': a->out = optarg; break;
        case 'n': a->node = optarg; break;
        case 'r':
            if (strcmp(optarg, "on") != 0 && strcmp(optarg, "off") != 0)
                return bad_usage("--rails expects on or off, got '%s'", optarg);
            a->rails = strcmp(optarg, "on") == 0;
            a->have_rails = 1;
            break;
        case 'j':
            a->threads = atoi(optarg);
            if (a->threads < 1 || a->threads > 256)
                return bad_usage("-j expects 1 to 256 threads, got '%s'",
                                 optarg);
            break;
        case 's':
            if (parse_size_arg(optarg, &a->size) != 0)
                return bad_usage("--size expects a size (bytes, k/m/g "
                                 "suffix), got '%s'", optarg);
            a->have_size = 1;
            break;
        case 'v': a->verbose = 1; break;
        case 'h': usage(stdout); exit(0);
        case 'V': printf("mdconfig (multidev) %s\n", PACKAGE_VERSION); exit(0);
        default: return bad_usage("%s", "unknown option");
        }
    }
    if (ncmd > 1)
        return bad_usage("%s", "give at most one of --check, --explain, --dot");
    int rest = argc - optind, want = a->cmd == CMD_EXPLAIN ? 4 : 1;
    if (rest != want)
        return bad_usage(a->cmd == CMD_EXPLAIN
                         ? "--explain expects SRC DST SIZE DESC%s"
                         : "expects one description file%s", "");
    if (a->cmd == CMD_EXPLAIN) {
        a->src = argv[optind];
        a->dst = argv[optind + 1];
        if (parse_size_arg(argv[optind + 2], &a->size) != 0)
            return bad_usage("--explain expects a size (bytes, k/m/g suffix) "
                             "as SIZE, got '%s'", argv[optind + 2]);
        a->desc = argv[optind + 3];
    } else {
        a->desc = argv[optind];
    }
    if (a->cmd == CMD_WRITE && a->out == NULL)
        return bad_usage("%s", "expects -o DIR (or one of --check, --explain, "
                         "--dot)");
    if ((a->cmd == CMD_CHECK || a->cmd == CMD_EXPLAIN) && a->out != NULL)
        return bad_usage("%s", "-o goes with writing files or --dot");
    if (a->node != NULL && a->cmd != CMD_WRITE)
        return bad_usage("%s", "--node goes with writing files (-o DIR)");
    if (a->have_rails && a->cmd != CMD_WRITE)
        return bad_usage("%s", "--rails goes with writing files (-o DIR)");
    if (a->have_size && a->cmd != CMD_DOT)
        return bad_usage("%s", "--size goes with --dot");
    return 0;
}

/* --dot -o FILE: .dot is written as is; .svg and .png go through dot. */
static int dot_to_file(const mdc_graph_t *g, const args_t *a)
{
    const char *ext = strrchr(a->out, '.');
    int render = ext != NULL && (strcmp(ext, ".svg") == 0 ||
                                 strcmp(ext, ".png") == 0);
    char cmd[4200];
    FILE *f;

    if (!render) {
        f = fopen(a->out, "w");
        if (f == NULL) {
            perror(a->out);
            return 1;
        }
        int rc = mdc_dot(f, g, !a->have_size, a->size, a->threads);
        return fclose(f) != 0 ? 1 : rc;
    }
    if (system("command -v dot >/dev/null 2>&1") != 0) {
        fprintf(stderr, "mdconfig: error: rendering %s needs Graphviz's dot, "
                "which is not installed; use -o FILE.dot\n", a->out);
        return 1;
    }
    if (strchr(a->out, '\'') != NULL) {
        fprintf(stderr, "mdconfig: error: output name must not contain '\n");
        return 1;
    }
    snprintf(cmd, sizeof(cmd), "dot -T%s -o '%s'", ext + 1, a->out);
    f = popen(cmd, "w");
    if (f == NULL) {
        perror("dot");
        return 1;
    }
    int rc = mdc_dot(f, g, !a->have_size, a->size, a->threads);
    int st = pclose(f);
    if (st != 0 || rc != 0) {
        fprintf(stderr, "mdconfig: error: dot failed rendering %s\n", a->out);
        return 1;
    }
    return 0;
}

static int run(const args_t *a, const mdc_graph_t *g)
{
    mdc_problems_t prob;

    switch (a->cmd) {
    case CMD_WRITE: {
        int node = a->node != NULL ? mdc_desc_find_node(g->desc, a->node) : -1;
        if (a->node != NULL && node < 0) {
            fprintf(stderr, "mdconfig: error: %s: no node '%s'\n",
                    g->desc->source, a->node);
            return 1;
        }
        int rc = node >= 0
            ? mdc_write_node(g, a->out, (uint32_t)node, a->rails, &prob)
            : mdc_write_all(g, a->out, a->threads, a->rails, &prob);
        if (a->verbose)
            fprintf(stderr, "mdconfig: %u nodes, %u vertices, %u edges, %zu "
                    "size classes; %zu Dijkstra runs, %zu route intervals, "
                    "%zu nodes' routes copied from a node on the same hubs\n",
                    g->num_hosts, g->num_vertices, g->first[g->num_vertices],
                    g->num_classes, prob.dijkstra_runs, prob.intervals,
                    prob.copied);
        return rc == 0 ? 0 : 1;
    }
    case CMD_CHECK:
        return mdc_check(stdout, g, a->threads);
    case CMD_EXPLAIN:
        return mdc_explain(stdout, g, a->src, a->dst, a->size);
    case CMD_DOT:
        if (a->out == NULL)
            return mdc_dot(stdout, g, !a->have_size, a->size, a->threads);
        return dot_to_file(g, a);
    }
    return 1;
}

int main(int argc, char **argv)
{
    args_t a;
    char err[MDC_ERR_MAX];
    mdc_desc_t *d;
    int rc = parse_args(argc, argv, &a);

    if (rc != 0)
        return rc;
    if (mdc_desc_parse_file(a.desc, &d, err, sizeof(err)) != 0) {
        fprintf(stderr, "mdconfig: error: %s\n", err);
        return 1;
    }
    mdc_graph_t *g = mdc_graph_build(d);
    if (g == NULL) {
        fprintf(stderr, "mdconfig: error: out of memory\n");
        mdc_desc_free(d);
        return 1;
    }
    rc = run(&a, g);
    mdc_graph_free(g);
    mdc_desc_free(d);
    return rc;
}
