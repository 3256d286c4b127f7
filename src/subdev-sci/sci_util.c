/* sci_util.c - envelopes. */
#include "config.h"

#include "sci_impl.h"

void sci_env_from_info(const sci_msg_info_t *in, md_envelope_t *env)
{
    MD_ENVELOPE_FROM_WIRE(env, in, in->size);
}
