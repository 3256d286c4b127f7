/* md_env.c - libmultidev's readers of the environment that still pass
 * their own default and range, checked against the table of tunables
 * (src/tunables/md_tun.h). */
#include <stdio.h>
#include <string.h>

#include "md_core.h"
#include "md_log.h"
#include "md_tun.h"

/* md_env_count and md_env_choice serve readers that still pass their own
 * default and range (md_fwd.c): the declaration decides, and a caller
 * whose default or range has drifted from it is told so, once, rather
 * than two values living on side by side. */
static int md_env_matches(const md_tun_t *t, const char *name, long long def, long long lo,
                          long long hi)
{
    md_tun_value_t v;
    char why[MD_TUN_ERR_MAX];

    if (t != NULL && t->def != NULL && md_tun_parse(t, t->def, &v, why, sizeof(why)) == 0 &&
        v.num == def && (t->type == MD_TUN_CHOICE || (t->min == lo && t->max == hi)))
        return 1;
    md_log_error("%s: the default %lld or range %lld..%lld its reader passes is not its "
                 "declaration's (src/tunables/md_tun_table.c)", name, def, lo, hi);
    return 0;
}

int md_env_count(const char *name, long long def, long long lo, long long hi,
                 long long *value)
{
    if (!md_env_matches(md_tun_find(name), name, def, lo, hi))
        return MD_ERR_CONFIG;
    return md_tun_env_num(name, value, md_log_say_error) < 0 ? MD_ERR_CONFIG : MD_OK;
}

int md_env_choice(const char *name, const char *const *words, int n, int def, int *value)
{
    const md_tun_t *t = md_tun_find(name);
    char joined[256] = "";
    size_t used = 0;
    long long index;

    for (int i = 0; i < n && used < sizeof(joined); i++)
        used += (size_t)snprintf(joined + used, sizeof(joined) - used, "%s%s", i ? "|" : "",
                                 words[i]);
    if (!md_env_matches(t, name, def, 0, n - 1))
        return MD_ERR_CONFIG;
    if (t->words == NULL || strcmp(t->words, joined) != 0) {
        md_log_error("%s: its reader's words %s are not its declaration's", name, joined);
        return MD_ERR_CONFIG;
    }
    if (md_tun_env_num(name, &index, md_log_say_error) < 0)
        return MD_ERR_CONFIG;
    *value = (int)index;
    return MD_OK;
}
