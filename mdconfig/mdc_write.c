/* mdc_write.c - write all per-node files (mdc_write.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mdc_nodefile.h"
#include "mdc_write.h"

typedef struct writer {
    const mdc_graph_t *g;
    const char        *dir;
    mdc_peer_order_t   order;
    mdc_rails_t       *rails;        /* NULL: no rails lines */
    mdc_src_rails_t    sr[256];      /* per worker (at most 256 threads) */
    int64_t            only;         /* the one node written, or -1: all */
    char               err[4200];    /* first error; guarded by failed */
    int                failed;       /* atomic */
} writer_t;

static void file_name(char *buf, size_t len, const char *dir,
                      const char *node, int tmp)
{
    snprintf(buf, len, tmp ? "%s/.%s.conf.tmp" : "%s/%s.conf", dir, node);
}

static int write_one(void *ctx, int worker, const mdc_routes_t *r)
{
    writer_t *w = ctx;
    const mdc_desc_t *d = w->g->desc;
    char path[4096];
    static __thread char buf[1 << 16];
    int rc = -1;

    file_name(path, sizeof(path), w->dir, d->nodes[r->src].name, 1);
    FILE *f = fopen(path, "w");
    if (f != NULL) {
        setvbuf(f, buf, _IOFBF, sizeof(buf));
        rc = mdc_nodefile_write(f, w->g, r, &w->order, w->rails,
                                &w->sr[worker]);
        if (fclose(f) != 0)
            rc = -1;
    }
    if (rc != 0 && __atomic_exchange_n(&w->failed, 1, __ATOMIC_RELAXED) == 0)
        snprintf(w->err, sizeof(w->err), "%s: %s", path,
                 errno != 0 ? strerror(errno) : "out of memory");
    return rc;
}

/* Renames (keep) or removes every temporary file. */
static int finish(const writer_t *w, int keep)
{
    const mdc_desc_t *d = w->g->desc;
    char tmp[4096], final[4096];
    int rc = 0;

    for (size_t i = 0; i < d->num_nodes; i++) {
        if (w->only >= 0 && (int64_t)i != w->only)
            continue;
        file_name(tmp, sizeof(tmp), w->dir, d->nodes[i].name, 1);
        file_name(final, sizeof(final), w->dir, d->nodes[i].name, 0);
        if (keep && rename(tmp, final) != 0) {
            fprintf(stderr, "mdconfig: error: cannot rename %s to %s: %s\n",
                    tmp, final, strerror(errno));
            keep = 0;
            rc = -1;
        }
        if (!keep)
            unlink(tmp);
    }
    return rc;
}

/* mkdir -p */
static int make_dirs(const char *path)
{
    char buf[4096];
    size_t n = strlen(path);

    if (n >= sizeof(buf)) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(buf, path, n + 1);
    for (size_t i = 1; i < n; i++) {
        if (buf[i] != '/')
            continue;
        buf[i] = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST)
            return -1;
        buf[i] = '/';
    }
    return mkdir(buf, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

static int write_nodes(const mdc_graph_t *g, const char *outdir, int threads,
                       int64_t only, int rails, mdc_problems_t *problems)
{
    writer_t w = { .g = g, .dir = outdir, .only = only };
    struct stat st;

    if (make_dirs(outdir) != 0) {
        fprintf(stderr, "mdconfig: error: cannot create directory %s: %s\n",
                outdir, strerror(errno));
        return -1;
    }
    if (stat(outdir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "mdconfig: error: %s is not a directory\n", outdir);
        return -1;
    }
    if (mdc_peer_order_init(&w.order, g->desc) != 0 ||
        (rails && (w.rails = mdc_rails_new(g)) == NULL)) {
        fprintf(stderr, "mdconfig: error: out of memory\n");
        mdc_peer_order_fini(&w.order);
        return -1;
    }
    int rc = only >= 0
        ? mdc_for_one_source(g, (uint32_t)only, MDC_ROUTES_RUNS, write_one, &w, problems)
        : mdc_for_each_source(g, threads, MDC_ROUTES_RUNS, write_one, &w, problems);
    mdc_peer_order_fini(&w.order);
    mdc_rails_free(w.rails);
    for (size_t i = 0; i < sizeof(w.sr) / sizeof(w.sr[0]); i++)
        mdc_src_rails_fini(&w.sr[i]);
    if (rc != 0) {
        fprintf(stderr, "mdconfig: error: %s\n",
                w.failed ? w.err : "out of memory");
        finish(&w, 0);
        return -1;
    }
    if (mdc_problems_report(stderr, "mdconfig: error: ", g->desc, problems) > 0) {
        finish(&w, 0);
        return 1;
    }
    return finish(&w, 1);
}

int mdc_write_all(const mdc_graph_t *g, const char *outdir, int threads,
                  int rails, mdc_problems_t *problems)
{
    return write_nodes(g, outdir, threads, -1, rails, problems);
}

int mdc_write_node(const mdc_graph_t *g, const char *outdir, uint32_t node,
                   int rails, mdc_problems_t *problems)
{
    return write_nodes(g, outdir, 1, node, rails, problems);
}
