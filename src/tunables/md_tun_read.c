/* md_tun_read.c - a tunable's value from where it may be given: the
 * environment, a subdevice's device line, a fallback variable, the
 * default (md_tun.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "md_tun.h"

static void say_undeclared(const char *what, md_tun_say_fn say)
{
    char line[MD_TUN_ERR_MAX];

    snprintf(line, sizeof(line), "%s is read but not declared in the table of tunables "
             "(src/tunables/md_tun_table.c)", what);
    say(line);
}

/* The environment's value of t, NULL if unset or empty. */
static const char *env_text(const md_tun_t *t)
{
    const char *text = getenv(t->name);
    return text != NULL && text[0] != '\0' ? text : NULL;
}

/* text, given as label (the variable, or the device line's key), as t's
 * value; where, if not "", says where it was given. */
static int parse_given(const md_tun_t *t, const char *label, const char *text,
                       const char *where, md_tun_value_t *v, md_tun_say_fn say)
{
    char allowed[MD_TUN_ERR_MAX / 2], line[MD_TUN_ERR_MAX];

    if (md_tun_parse(t, text, v, allowed, sizeof(allowed)) == 0)
        return 0;
    snprintf(line, sizeof(line), "%s='%s'%s: expected %s", label, text, where, allowed);
    say(line);
    return -1;
}

/* After the places a value may be given: the fallback, then the default. */
static int read_unset(const md_tun_t *t, md_tun_value_t *v, md_tun_say_fn say)
{
    char err[MD_TUN_ERR_MAX / 2];

    if (t->fallback != NULL) {
        const md_tun_t *f = md_tun_find(t->fallback);
        const char *text = f != NULL ? env_text(f) : NULL;

        if (f == NULL) {
            say_undeclared(t->fallback, say);
            return -1;
        }
        if (text != NULL)
            return parse_given(t, f->name, text, "", v, say) == 0 ? MD_TUN_FALLBACK : -1;
    }
    memset(v, 0, sizeof(*v));
    if (t->def == NULL)
        return MD_TUN_UNSET;
    if (md_tun_parse(t, t->def, v, err, sizeof(err)) != 0) {
        /* test/tunables keeps this from happening */
        char line[MD_TUN_ERR_MAX];
        snprintf(line, sizeof(line), "%s: its declared default '%s' is not %s", t->name,
                 t->def, err);
        say(line);
        return -1;
    }
    return MD_TUN_DEFAULT;
}

int md_tun_env(const char *name, md_tun_value_t *v, md_tun_say_fn say)
{
    const md_tun_t *t = md_tun_find(name);
    const char *text;

    if (t == NULL) {
        say_undeclared(name, say);
        return -1;
    }
    if ((text = env_text(t)) != NULL)
        return parse_given(t, t->name, text, "", v, say) == 0 ? MD_TUN_ENV : -1;
    return read_unset(t, v, say);
}

int md_tun_param(const char *section, const char *key, const char *line_text,
                 md_tun_value_t *v, md_tun_say_fn say)
{
    const md_tun_t *t = md_tun_find_key(section, key);
    char where[96], what[96];
    const char *text;

    if (t == NULL) {
        snprintf(what, sizeof(what), "parameter %s of %s", key, section);
        say_undeclared(what, say);
        return -1;
    }
    if ((text = env_text(t)) != NULL)
        return parse_given(t, t->name, text, "", v, say) == 0 ? MD_TUN_ENV : -1;
    if (line_text != NULL && line_text[0] != '\0') {
        snprintf(where, sizeof(where), " on the %s device line", section);
        return parse_given(t, key, line_text, where, v, say) == 0 ? MD_TUN_LINE : -1;
    }
    return read_unset(t, v, say);
}

int md_tun_env_num(const char *name, long long *num, md_tun_say_fn say)
{
    md_tun_value_t v;
    int rc = md_tun_env(name, &v, say);

    if (rc > MD_TUN_UNSET)
        *num = v.num;
    return rc;
}

int md_tun_env_prob(const char *name, double *prob, md_tun_say_fn say)
{
    md_tun_value_t v;
    int rc = md_tun_env(name, &v, say);

    if (rc > MD_TUN_UNSET)
        *prob = v.prob;
    return rc;
}

int md_tun_env_text(const char *name, const char **text, md_tun_say_fn say)
{
    md_tun_value_t v;
    int rc = md_tun_env(name, &v, say);

    if (rc >= MD_TUN_UNSET)
        *text = v.text;
    return rc;
}
