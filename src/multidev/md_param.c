/* md_param.c - parameters of a device line, with environment overrides. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "md_core.h"
#include "md_firmware.h"
#include "md_sdi.h"
#include "md_log.h"
#include "md_size.h"

const char *md_param_get(const md_subdev_init_args_t *args, const char *key)
{
    for (size_t i = 0; i < args->num_params; i++)
        if (strcmp(args->params[i].key, key) == 0)
            return args->params[i].value;
    return NULL;
}

/* MULTIDEV_<SUBDEV>_<KEY> (upper case), then the device line; NULL if
 * neither gives the parameter. */
static const char *param_text(const md_subdev_init_args_t *args, const char *subdev,
                              const char *key)
{
    char env_name[128];
    const char *text;

    snprintf(env_name, sizeof(env_name), "MULTIDEV_%s_%s", subdev, key);
    for (char *c = env_name; *c != '\0'; c++)
        *c = (*c == '-' || *c == '.') ? '_' : (char)toupper((unsigned char)*c);

    text = getenv(env_name);
    if (text == NULL && args != NULL)
        text = md_param_get(args, key);
    return text;
}

int md_param_size(const md_subdev_init_args_t *args, const char *subdev,
                  const char *key, size_t def, size_t *value)
{
    const char *text = param_text(args, subdev, key);
    size_t parsed;

    if (text == NULL) {
        *value = def;
        return MD_OK;
    }
    if (md_parse_size(text, &parsed) != 0) {
        md_log_error("%s: parameter %s='%s' is not a size (bytes with an "
                     "optional k/m/g suffix)", subdev, key, text);
        return MD_ERR_CONFIG;
    }
    *value = parsed;
    return MD_OK;
}

int md_param_str(const md_subdev_init_args_t *args, const char *subdev,
                 const char *key, const char *def, char *out, size_t len)
{
    const char *text = param_text(args, subdev, key);

    snprintf(out, len, "%s", text != NULL ? text : def);
    return text != NULL;
}

int md_param_firmware(const md_subdev_init_args_t *args, const char *subdev)
{
    const char *all = getenv("MULTIDEV_NIC_FIRMWARE");
    char mode[16];
    int32_t on_node = 0;

    md_param_str(args, subdev, "firmware", all != NULL ? all : "auto", mode, sizeof(mode));
    for (int32_t r = 0; r < args->world_size; r++)
        on_node += args->node_of_rank[r] == args->my_node;
    if (strcmp(mode, "nicd") == 0)
        return MD_FW_NICD;
    if (strcmp(mode, "thread") == 0)
        return on_node == 1 ? MD_FW_OWN_THREAD : MD_FW_THREAD;
    if (strcmp(mode, "auto") != 0) {
        md_log_error("%s: parameter firmware='%s' is not auto, thread or nicd", subdev, mode);
        return MD_ERR_CONFIG;
    }
    return on_node == 1 ? MD_FW_OWN_THREAD : MD_FW_NICD;
}

int md_env_count(const char *name, long long def, long long lo, long long hi,
                 long long *value)
{
    const char *text = getenv(name);
    char *end = NULL;

    *value = def;
    if (text == NULL)
        return MD_OK;
    errno = 0;
    *value = strtoll(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || *value < lo || *value > hi) {
        md_log_error("%s='%s': expected a whole number from %lld to %lld", name, text, lo, hi);
        return MD_ERR_CONFIG;
    }
    return MD_OK;
}

int md_env_choice(const char *name, const char *const *words, int n, int def, int *value)
{
    const char *text = getenv(name);
    char expected[256] = "";
    size_t used = 0;

    *value = def;
    if (text == NULL)
        return MD_OK;
    for (int i = 0; i < n; i++) {
        if (strcasecmp(text, words[i]) == 0) {
            *value = i;
            return MD_OK;
        }
        if (used < sizeof(expected))
            used += (size_t)snprintf(expected + used, sizeof(expected) - used, "%s%s",
                                     i == 0 ? "" : i == n - 1 ? " or " : ", ", words[i]);
    }
    md_log_error("%s='%s': expected %s", name, text, expected);
    return MD_ERR_CONFIG;
}
