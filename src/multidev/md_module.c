/*
 * md_module.c - a subdevice module loaded for a tool (md_module.h): the
 * device list's loader (md_loader.c) without a multidevice instance.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "md_core.h"
#include "md_module.h"

int md_module_open(const char *name, const char *search_path, md_module_t *mod,
                   char *err, size_t err_len)
{
    lt_dlhandle h;
    const lt_dlinfo *info;
    int rc;

    memset(mod, 0, sizeof(*mod));
    rc = md_loader_load(name, search_path, &mod->ops, &h, err, err_len);
    if (rc != MD_OK)
        return rc;
    info = lt_dlgetinfo(h);
    snprintf(mod->path, sizeof(mod->path), "%s",
             info != NULL && info->filename != NULL ? info->filename : "?");
    mod->handle = h;
    return MD_OK;
}

void md_module_close(md_module_t *mod)
{
    if (mod->handle != NULL)
        md_loader_unload(mod->handle);
    mod->handle = NULL;
}
