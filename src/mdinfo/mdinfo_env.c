/* mdinfo_env.c - every variable's value and origin (mdinfo.h). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "mdinfo.h"

/* The device line of conf that a subdevice parameter t would be read from
 * (the device named as t's section), or NULL; *text set to its key's
 * value, NULL when the line does not give it. */
static const md_nodeconf_device_t *device_line(const md_tun_t *t, const md_nodeconf_t *conf,
                                               const char **text)
{
    const md_nodeconf_device_t *d;

    *text = NULL;
    if (conf == NULL || t->key == NULL ||
        (d = md_nodeconf_find_device(conf, t->section)) == NULL)
        return NULL;
    for (size_t i = 0; i < d->num_params; i++)
        if (strcmp(d->params[i].key, t->key) == 0)
            *text = d->params[i].value;
    return d;
}

static void origin_text(int origin, const md_tun_t *t, const md_nodeconf_t *conf,
                        const md_nodeconf_device_t *d, char *out, size_t len)
{
    switch (origin) {
    case MD_TUN_ENV:      snprintf(out, len, "environment"); break;
    case MD_TUN_FALLBACK: snprintf(out, len, "%s", t->fallback); break;
    case MD_TUN_DEFAULT:  snprintf(out, len, "default"); break;
    case MD_TUN_LINE:     snprintf(out, len, "node file %s:%d", conf->source, d->line); break;
    default:              snprintf(out, len, "unset"); break;
    }
}

void mdinfo_env_row(const md_tun_t *t, const md_nodeconf_t *conf, const char *indent)
{
    const char *line_text;
    const md_nodeconf_device_t *d = device_line(t, conf, &line_text);
    md_tun_value_t v;
    char shown[600], origin_shown[400];
    int origin = t->key != NULL
                     ? md_tun_param(t->section, t->key, line_text, &v, mdinfo_say)
                     : md_tun_env(t->name, &v, mdinfo_say);

    if (origin < 0)
        return;
    if (origin == MD_TUN_UNSET)
        snprintf(shown, sizeof(shown), "%s", t->name);
    else
        snprintf(shown, sizeof(shown), "%s=%s", t->name, v.text);
    origin_text(origin, t, conf, d, origin_shown, sizeof(origin_shown));
    printf("%s%-44s %s", indent, shown, origin_shown);
    if (origin == MD_TUN_UNSET && t->def_doc != NULL && strcmp(t->def_doc, "unset") != 0)
        printf(": %s", t->def_doc);
    /* where a value would come from that is not given now */
    if (t->key != NULL && origin != MD_TUN_ENV && origin != MD_TUN_LINE)
        printf(" (a device line's %s= overrides this)", t->key);
    printf("\n");
}

int mdinfo_env(const md_nodeconf_t *conf)
{
    size_t n;
    const md_tun_t *t = md_tun_all(&n);
    int said_before = mdinfo_said;

    for (size_t i = 0; i < n; i++)
        mdinfo_env_row(&t[i], conf, "");
    md_tun_check_environ(mdinfo_say);
    return mdinfo_said == said_before ? 0 : 1;
}
