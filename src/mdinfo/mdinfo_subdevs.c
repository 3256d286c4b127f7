/*
 * mdinfo_subdevs.c - the subdevice modules libmultidev would load, and
 * what each says of itself without a job (mdinfo.h).
 *
 * A module is a file libmd_<name>.la or .so in a directory of the loader's
 * search path.  Each name found is loaded by name through the loader
 * md_init uses (md_module.h), so the file it opens, the checks it makes
 * and the message it gives are those of a job's start.
 */
#include "config.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "md_kit.h"
#include "md_module.h"
#include "mdinfo.h"

#define MDINFO_MAX_MODULES 256
#define MODULE_PREFIX      "libmd_"

typedef char mdinfo_name_t[32];

/* The subdevice name in a directory entry libmd_<name>.la or .so, or 0. */
static int module_name(const char *entry, mdinfo_name_t name)
{
    size_t len = strlen(entry), plen = strlen(MODULE_PREFIX);

    if (len <= plen + 3 || strncmp(entry, MODULE_PREFIX, plen) != 0 ||
        (strcmp(entry + len - 3, ".la") != 0 && strcmp(entry + len - 3, ".so") != 0) ||
        len - plen - 3 >= sizeof(mdinfo_name_t))
        return 0;
    memcpy(name, entry + plen, len - plen - 3);
    name[len - plen - 3] = '\0';
    return 1;
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp(a, b);
}

/* Adds the module names of dir not in names[0..*n) yet, in name order. */
static void scan_dir(const char *dir, mdinfo_name_t *names, size_t *n)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    size_t first = *n;

    if (d == NULL)
        return;     /* a directory of the path that does not exist holds nothing */
    while ((e = readdir(d)) != NULL && *n < MDINFO_MAX_MODULES) {
        mdinfo_name_t name;
        size_t i = 0;

        if (!module_name(e->d_name, name))
            continue;
        while (i < *n && strcmp(names[i], name) != 0)
            i++;
        if (i == *n)
            memcpy(names[(*n)++], name, sizeof(name));
    }
    closedir(d);
    qsort(names + first, *n - first, sizeof(*names), name_cmp);
}

/* Capabilities by name (md_sdi.h, MD_CAP_*). */
static const struct {
    unsigned long long bit;
    const char        *name;
} caps_named[] = {
    { MD_CAP_LOCAL_ONLY, "local-only (reaches same-node peers only)" },
};

static void print_caps(unsigned long long caps)
{
    const char *sep = "";

    printf("    %-14s ", "capabilities");
    for (size_t i = 0; i < sizeof(caps_named) / sizeof(caps_named[0]); i++) {
        if (caps & caps_named[i].bit) {
            printf("%s%s", sep, caps_named[i].name);
            sep = ", ";
        }
        caps &= ~caps_named[i].bit;
    }
    if (caps != 0)
        printf("%sunknown 0x%llx", sep, caps);
    else if (*sep == '\0')
        printf("none (reaches peers on any node)");
    printf("\n");
}

/* Optional slots of the table: NULL means not offered (md_sdi.h). */
static void print_optional_ops(const md_subdev_ops_t *ops)
{
    const struct {
        const char *name;
        int         set;
    } slots[] = {
        { "ready", ops->ready != NULL },          { "send_cancel", ops->send_cancel != NULL },
        { "improbe", ops->improbe != NULL },      { "imrecv", ops->imrecv != NULL },
        { "wait_fd", ops->wait_fd != NULL },
    };
    size_t n = sizeof(slots) / sizeof(slots[0]);

    printf("    %-14s ", "offers");
    for (int want = 1; want >= 0; want--) {
        const char *sep = want ? "" : "; not ";
        int any = 0;

        for (size_t i = 0; i < n; i++) {
            if (slots[i].set != want)
                continue;
            printf("%s%s", any ? " " : sep, slots[i].name);
            any = 1;
        }
        if (want && !any)
            printf("no optional operation");
    }
    printf("\n");
}

/* The variables of the subdevice's section: its parameters. */
static void print_parameters(const char *name, const md_nodeconf_t *conf)
{
    size_t n;
    const md_tun_t *t = md_tun_all(&n);
    int any = 0;

    for (size_t i = 0; i < n; i++) {
        if (strcmp(t[i].section, name) != 0)
            continue;
        if (!any)
            printf("    parameters\n");
        any = 1;
        mdinfo_env_row(&t[i], conf, "      ");
    }
}

static int print_module(const char *name, const char *module_path, const md_nodeconf_t *conf)
{
    const md_nodeconf_device_t *d = conf != NULL ? md_nodeconf_find_device(conf, name) : NULL;
    char err[1024];
    md_module_t mod;
    int rc = md_module_open(name, module_path, &mod, err, sizeof(err));

    printf("subdevice %s\n", name);
    if (d != NULL)
        printf("    %-14s device %d of node %s (%s:%d)\n", "node file",
               (int)(d - conf->devices), conf->node, conf->source, d->line);
    if (rc != MD_OK) {
        printf("    %-14s %s\n", "not loaded", err);
        return 1;
    }
    printf("    %-14s %s\n", "module", mod.path);
    printf("    %-14s %u\n", "SDI ABI", mod.ops.abi_version);
    if (mod.ops.kit_abi_version != 0)
        printf("    %-14s %u\n", "kit ABI", mod.ops.kit_abi_version);
    else
        printf("    %-14s none (uses no kit header)\n", "kit ABI");
    print_caps(mod.ops.caps);
    print_optional_ops(&mod.ops);
    print_parameters(name, conf);
    md_module_close(&mod);
    return 0;
}

int mdinfo_subdevs(const char *module_path, const md_nodeconf_t *conf)
{
    static mdinfo_name_t names[MDINFO_MAX_MODULES];
    char path[MD_MODULE_PATH_MAX], *dir, *save = NULL;
    size_t n = 0;
    int refused = 0;

    md_module_search_path(module_path, path, sizeof(path));
    printf("# libmultidev speaks SDI ABI %u and runs libmdkit of kit ABI %u\n",
           (unsigned)MD_SDI_ABI_VERSION, md_kit_abi_version());
    printf("# subdevice modules (libmd_<name>) searched in %s\n", path);
    for (dir = strtok_r(path, ":", &save); dir != NULL; dir = strtok_r(NULL, ":", &save))
        scan_dir(dir, names, &n);
    if (n == 0) {
        mdinfo_say("no subdevice module (libmd_<name>.la or .so) in the module path "
                   "(MULTIDEV_MODULE_PATH, then the install directory)");
        return 1;
    }
    for (size_t i = 0; i < n; i++) {
        printf("\n");
        refused += print_module(names[i], module_path, conf);
    }
    return refused == 0 ? 0 : 1;
}
