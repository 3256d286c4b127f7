/* md_sdbase.c - a subdevice's common state set up and torn down
 * (md_sdbase.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "md_sdbase.h"

int md_sdbase_init(md_sdbase_t *b, md_subdev_t *sd, const md_subdev_init_args_t *args)
{
    b->sd = sd;
    b->host = sd->host;
    b->me = args->world_rank;
    b->world_size = args->world_size;
    md_mq_init(&b->mq);
    md_reqlist_init(&b->done);
    md_cookies_init(&b->cookies);
    b->serves = malloc((size_t)args->world_size);
    if (b->serves == NULL || md_peerset_init(&b->busy, args->world_size) != MD_OK ||
        md_held_set_init(&b->held, args->world_size) != MD_OK ||
        md_liveness_init(&b->live, args->world_size, b->me, b->serves,
                         MD_LIVENESS_PROBE_MS) != MD_OK)
        return MD_ERR_NO_MEMORY;
    memcpy(b->serves, args->serves, (size_t)args->world_size);
    return MD_OK;
}

void md_sdbase_fini(md_sdbase_t *b)
{
    md_mq_remove_unexpected_if(&b->mq, NULL, NULL, md_mq_free_msg, NULL);
    free(b->serves);
    b->serves = NULL;
    md_peerset_fini(&b->busy);
    md_held_set_fini(&b->held);
    md_liveness_fini(&b->live);
    md_cookies_fini(&b->cookies);
}
