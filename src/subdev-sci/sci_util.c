/* sci_util.c - envelopes. */
#include "config.h"

#include "sci_impl.h"

void sci_env_from_info(const sci_msg_info_t *in, md_envelope_t *env)
{
    env->src_rank = in->src_rank;
    env->src_world = in->src_world;
    env->dst_world = in->dst_world;
    env->tag = in->tag;
    env->context_id = in->context_id;
    env->flags = in->env_flags;
    env->seq = in->seq;
    env->size = in->size;
}
