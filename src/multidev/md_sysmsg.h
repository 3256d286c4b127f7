/* md_sysmsg.h - system messages (negative tags), P1 §3.4. */
#ifndef MD_SYSMSG_H
#define MD_SYSMSG_H

#include "md_core.h"

/* Runs the handler registered for env->tag. */
void md_sysmsg_dispatch(md_t *md, md_subdev_t *sd, const md_envelope_t *env,
                        const void *payload);

#endif /* MD_SYSMSG_H */
