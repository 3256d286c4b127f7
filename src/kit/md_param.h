/*
 * md_param.h - a subdevice's parameters (part of the subdevice kit).
 *
 * A parameter comes from the subdevice's device line in the node file
 * (args->params, "key=value") or from the environment, and is declared
 * once in the table of tunables (src/tunables/md_tun_table.c).
 */
#ifndef MD_PARAM_H
#define MD_PARAM_H

#include <stddef.h>

#include "md_sdi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Looks up a parameter of the device line ("key=value"); NULL if absent. */
const char *md_param_get(const md_subdev_init_args_t *args, const char *key);
/* A subdevice's declared parameter (src/tunables/md_tun_table.c holds its
 * type, range, default and doc): the environment variable
 * MULTIDEV_<SUBDEV>_<KEY> wins over the device line's key=, which wins
 * over the declared default.  Returns 1 if the environment or the device
 * line gave it, 0 for the default, MD_ERR_CONFIG after an error line naming
 * the variable (or key), its value and what is allowed.  A parameter
 * declared without a default that nobody gave leaves *value (out)
 * untouched and returns 0: the subdevice computes it.
 *   md_param_value: counts, sizes, times, booleans; a choice's word as its
 *                   index among the declared words
 *   md_param_text:  names and lists, and a choice's word as written;
 *                   copied into out (len bytes, "" when there is none) */
int md_param_value(const md_subdev_init_args_t *args, const char *subdev,
                   const char *key, size_t *value);
int md_param_text(const md_subdev_init_args_t *args, const char *subdev,
                  const char *key, char *out, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* MD_PARAM_H */
