/* solo_bootstrap.c - md_init for a one-rank job in a test process. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "solo_bootstrap.h"

static int solo_allgather(void *ctx, const void *in, void *out, size_t len)
{
    (void)ctx;
    memcpy(out, in, len);
    return 0;
}

static int solo_barrier(void *ctx)
{
    (void)ctx;
    return 0;
}

md_init_params_t solo_params(const char *config_text)
{
    static char path[64];
    md_init_params_t p = {
        .world_rank = 0, .world_size = 1, .job_id = "solo",
        .bootstrap = { .allgather = solo_allgather, .barrier = solo_barrier },
        .module_path = MD_TEST_MODULE_DIR,
    };

    if (config_text != NULL) {
        FILE *f;
        snprintf(path, sizeof(path), "/tmp/md-solo-%d.conf", (int)getpid());
        f = fopen(path, "w");
        if (f != NULL) {
            fputs(config_text, f);
            fclose(f);
        }
        p.config_path = path;
    }
    return p;
}

int solo_init(const char *config_text, md_t **md_p)
{
    md_init_params_t p = solo_params(config_text);
    int rc = md_init(&p, md_p);

    if (p.config_path != NULL)
        unlink(p.config_path);
    return rc;
}

int solo_wait(md_t *md, md_request_t *req, int max_polls)
{
    for (int i = 0; i < max_polls && !md_request_is_complete(req); i++) {
        int rc = md_progress(md);
        if (rc < 0)
            return rc;
    }
    return md_request_is_complete(req);
}
