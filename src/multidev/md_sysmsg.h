/* md_sysmsg.h - system messages (negative tags), P1 §3.4. */
#ifndef MD_SYSMSG_H
#define MD_SYSMSG_H

#include "md_core.h"

/* Runs the handler registered for env->tag. */
void md_sysmsg_dispatch(md_t *md, md_subdev_t *sd, const md_envelope_t *env,
                        const void *payload);

/* Runs the caller's handler of a user system tag (outside any lock). */
void md_sysmsg_run_handler(md_t *md, int32_t src_world, int32_t tag,
                           const void *payload, size_t len);

#endif /* MD_SYSMSG_H */
