/* md_tun_environ.c - MULTIDEV_* variables set that nothing declares: a
 * misspelt name would otherwise change nothing, silently. */
#include <stdio.h>
#include <string.h>

#include "md_tun.h"

extern char **environ;

int md_tun_check_environ(md_tun_say_fn say)
{
    static const char prefix[] = "MULTIDEV_";
    char name[128], line[MD_TUN_ERR_MAX];
    int unknown = 0;

    for (char **e = environ; e != NULL && *e != NULL; e++) {
        size_t len = strcspn(*e, "=");

        if (strncmp(*e, prefix, sizeof(prefix) - 1) != 0 || len >= sizeof(name))
            continue;
        memcpy(name, *e, len);
        name[len] = '\0';
        if (md_tun_find(name) != NULL)
            continue;
        snprintf(line, sizeof(line), "%s is set, but multidev has no such variable (see "
                 "doc/environment.md or `mdinfo --env`)", name);
        say(line);
        unknown++;
    }
    return unknown;
}
