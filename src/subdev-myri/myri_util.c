/* myri_util.c - envelope packing. */
#include "config.h"

#include <string.h>

#include "myri_impl.h"

_Static_assert(sizeof(md_envelope_t) == 5 * sizeof(uint64_t), "envelope fits the GAM arguments");

void myri_env_pack(const md_envelope_t *env, uint64_t args[5])
{
    memcpy(args, env, sizeof(*env));
}

void myri_env_unpack(const uint64_t args[5], md_envelope_t *env)
{
    memcpy(env, args, sizeof(*env));
}
