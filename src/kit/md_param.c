/* md_param.c - a subdevice's parameters: its device line, with environment
 * overrides, read through the table of tunables (src/tunables/md_tun.h),
 * and where its firmware runs. */
#include <stdio.h>
#include <string.h>

#include "md_firmware.h"
#include "md_log.h"
#include "md_param.h"
#include "md_tun.h"

const char *md_param_get(const md_subdev_init_args_t *args, const char *key)
{
    for (size_t i = 0; args != NULL && i < args->num_params; i++)
        if (strcmp(args->params[i].key, key) == 0)
            return args->params[i].value;
    return NULL;
}

/* The parameter as md_tun_param reads it: 1 given, 0 default (or none),
 * MD_ERR_CONFIG (said). */
static int param_read(const md_subdev_init_args_t *args, const char *subdev, const char *key,
                      md_tun_value_t *v)
{
    int origin = md_tun_param(subdev, key, md_param_get(args, key), v, md_log_say_error);

    if (origin < 0)
        return MD_ERR_CONFIG;
    return origin >= MD_TUN_FALLBACK;
}

int md_param_value(const md_subdev_init_args_t *args, const char *subdev, const char *key,
                   size_t *value)
{
    md_tun_value_t v;
    int rc = param_read(args, subdev, key, &v);

    /* declared ranges of parameters start at 0 or above */
    if (rc >= 0 && v.text != NULL)
        *value = (size_t)v.num;
    return rc;
}

int md_param_text(const md_subdev_init_args_t *args, const char *subdev, const char *key,
                  char *out, size_t len)
{
    md_tun_value_t v;
    int rc = param_read(args, subdev, key, &v);
    const md_tun_t *t = md_tun_find_key(subdev, key);

    if (rc < 0)
        return rc;
    if (t->type == MD_TUN_CHOICE && v.text != NULL)
        md_tun_word(t, v.num, out, len);    /* "HPLAM" is read as hplam */
    else
        snprintf(out, len, "%s", v.text != NULL ? v.text : "");
    return rc;
}

int md_param_firmware(const md_subdev_init_args_t *args, const char *subdev)
{
    enum { AUTO, THREAD, NICD };    /* the words of MULTIDEV_<SUBDEV>_FIRMWARE */
    size_t mode;
    int32_t on_node = 0;

    if (md_param_value(args, subdev, "firmware", &mode) < 0)
        return MD_ERR_CONFIG;
    for (int32_t r = 0; r < args->world_size; r++)
        on_node += args->node_of_rank[r] == args->my_node;
    if (mode == NICD)
        return MD_FW_NICD;
    if (mode == THREAD)
        return on_node == 1 ? MD_FW_OWN_THREAD : MD_FW_THREAD;
    return on_node == 1 ? MD_FW_OWN_THREAD : MD_FW_NICD;
}

