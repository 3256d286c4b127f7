/*
 * md_loader.c - the device list: subdevice modules loaded with libltdl.
 *
 * A subdevice "x" is the module libmd_x (.la or .so) exporting
 * x_LoadDevicePtr (P1 §4.3).  The search path is MULTIDEV_MODULE_PATH (or
 * the caller's path) followed by the install directory.  Every failure names
 * the module and says what is wrong with it.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "md_core.h"
#include "md_kit.h"
#include "md_log.h"
#include "md_module.h"

#ifndef MD_MODULE_DIR
#define MD_MODULE_DIR "/usr/local/lib/multidev"
#endif

static int md_ltdl_users;

static int md_ltdl_acquire(char *err, size_t err_len)
{
    if (md_ltdl_users == 0 && lt_dlinit() != 0) {
        snprintf(err, err_len, "libltdl failed to initialise: %s", lt_dlerror());
        return MD_ERR_NOT_LOADED;
    }
    md_ltdl_users++;
    return MD_OK;
}

static void md_ltdl_release(void)
{
    if (md_ltdl_users > 0 && --md_ltdl_users == 0)
        lt_dlexit();
}

static int md_name_is_valid(const char *name)
{
    size_t n = strlen(name);

    if (n == 0 || n >= 32)
        return 0;
    for (const char *c = name; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
              (*c >= '0' && *c <= '9') || *c == '_'))
            return 0;
    return 1;
}

int md_loader_validate(const char *name, const md_subdev_ops_t *ops,
                       char *err, size_t err_len)
{
    static const struct {
        const char *what;
        size_t      offset;
    } mandatory[] = {
#define MD_SLOT(_f) { #_f, offsetof(md_subdev_ops_t, _f) }
        MD_SLOT(init),   MD_SLOT(connect),     MD_SLOT(finalize),
        MD_SLOT(isend),  MD_SLOT(irecv),       MD_SLOT(recv_cancel),
        MD_SLOT(iprobe), MD_SLOT(progress),
#undef MD_SLOT
    };

    if (ops->abi_version != MD_SDI_ABI_VERSION) {
        snprintf(err, err_len, "subdevice '%s' was built for SDI ABI version "
                 "%u, but this libmultidev speaks version %u: rebuild it",
                 name, ops->abi_version, MD_SDI_ABI_VERSION);
        return MD_ERR_ABI;
    }
    if (ops->kit_abi_version != 0 && ops->kit_abi_version != md_kit_abi_version()) {
        snprintf(err, err_len, "subdevice '%s' was built against subdevice kit ABI "
                 "version %u, but this process's libmdkit is version %u: rebuild it",
                 name, ops->kit_abi_version, md_kit_abi_version());
        return MD_ERR_ABI;
    }
    if (ops->name == NULL || strcmp(ops->name, name) != 0) {
        snprintf(err, err_len, "subdevice '%s' calls itself '%s' in its "
                 "function table", name, ops->name ? ops->name : "(null)");
        return MD_ERR_INVALID;
    }
    for (size_t i = 0; i < sizeof(mandatory) / sizeof(mandatory[0]); i++) {
        void *const *slot = (void *const *)((const char *)ops + mandatory[i].offset);
        if (*slot == NULL) {
            snprintf(err, err_len, "subdevice '%s' leaves the mandatory "
                     "operation '%s' empty (NULL)", name, mandatory[i].what);
            return MD_ERR_INVALID;
        }
    }
    if ((ops->improbe == NULL) != (ops->imrecv == NULL)) {
        snprintf(err, err_len, "subdevice '%s' offers %s without %s", name,
                 ops->improbe ? "improbe" : "imrecv",
                 ops->improbe ? "imrecv" : "improbe");
        return MD_ERR_INVALID;
    }
    return MD_OK;
}

void md_module_search_path(const char *search_path, char *out, size_t len)
{
    snprintf(out, len, "%s%s%s", search_path ? search_path : "",
             (search_path && *search_path) ? ":" : "", MD_MODULE_DIR);
}

int md_loader_load(const char *name, const char *search_path,
                   md_subdev_ops_t *ops, lt_dlhandle *handle,
                   char *err, size_t err_len)
{
    char module[64], symbol[64], path[4096];
    md_load_device_ptr_fn load;
    lt_dlhandle h;
    int rc;

    if (!md_name_is_valid(name)) {
        snprintf(err, err_len, "'%s' is not a valid subdevice name (letters, "
                 "digits and '_', at most 31)", name);
        return MD_ERR_INVALID;
    }
    rc = md_ltdl_acquire(err, err_len);
    if (rc != MD_OK)
        return rc;

    md_module_search_path(search_path, path, sizeof(path));
    lt_dlsetsearchpath(path);
    snprintf(module, sizeof(module), "libmd_%s", name);
    h = lt_dlopenext(module);
    if (h == NULL) {
        snprintf(err, err_len, "subdevice '%s': cannot load module %s from "
                 "%s: %s", name, module, path, lt_dlerror());
        md_ltdl_release();
        return MD_ERR_NOT_LOADED;
    }
    snprintf(symbol, sizeof(symbol), "%s_LoadDevicePtr", name);
    load = (md_load_device_ptr_fn)(uintptr_t)lt_dlsym(h, symbol);
    if (load == NULL) {
        const lt_dlinfo *info = lt_dlgetinfo(h);
        snprintf(err, err_len, "subdevice '%s': module %s does not export "
                 "%s", name, (info && info->filename) ? info->filename : module,
                 symbol);
        goto err_close;
    }
    memset(ops, 0, sizeof(*ops));
    rc = load(ops);
    if (rc != MD_OK) {
        snprintf(err, err_len, "subdevice '%s': %s failed: %s", name, symbol,
                 md_status_string(rc));
        goto err_close;
    }
    rc = md_loader_validate(name, ops, err, err_len);
    if (rc != MD_OK)
        goto err_close_rc;
    *handle = h;
    return MD_OK;

err_close:
    rc = MD_ERR_NOT_LOADED;
err_close_rc:
    lt_dlclose(h);
    md_ltdl_release();
    return rc;
}

void md_loader_unload(lt_dlhandle h)
{
    lt_dlclose(h);
    md_ltdl_release();
}

int md_devlist_index(const md_t *md, const char *name)
{
    for (int i = 0; i < md->devs.num; i++)
        if (strcmp(md->devs.subdevs[i].name, name) == 0)
            return i;
    return -1;
}

int md_devlist_load(md_t *md, const char *module_path)
{
    static const md_nodeconf_device_t md_default_device = { .name = "shm" };
    const md_nodeconf_device_t *devices = &md_default_device;
    size_t num = 1;
    char err[1024];

    if (md->conf != NULL) {
        devices = md->conf->devices;
        num = md->conf->num_devices;
    }
    if (num > MD_MAX_SUBDEVS) {
        md_log_error("%s: %zu devices listed, at most %d are supported",
                     md->conf->source, num, MD_MAX_SUBDEVS);
        return MD_ERR_CONFIG;
    }
    for (size_t i = 0; i < num; i++) {
        md_subdev_t *sd = &md->devs.subdevs[i];
        int rc = md_loader_load(devices[i].name, module_path,
                                &md->devs.ops[i], &md->devs.handles[i],
                                err, sizeof(err));
        if (rc != MD_OK) {
            md_log_error("%s", err);
            return rc;
        }
        memset(sd, 0, sizeof(*sd));
        sd->ops = &md->devs.ops[i];
        sd->host = &md->host;
        sd->host_ctx = md;
        sd->index = (int32_t)i;
        snprintf(sd->name, sizeof(sd->name), "%s", devices[i].name);
        md->devs.num++;
        md_log_debug("loaded subdevice %s as device %zu", sd->name, i);
    }
    return MD_OK;
}

/* The forwarding receiver joins the device list when forwarded messages
 * can reach this node; it is part of libmultidev, not a module. */
int md_devlist_add_builtin(md_t *md, const md_subdev_ops_t *ops)
{
    int i = md->devs.num;
    md_subdev_t *sd = &md->devs.subdevs[i];

    if (i == MD_MAX_SUBDEVS) {
        md_log_error("no room in the device list for the built-in %s",
                     ops->name);
        return MD_ERR_CONFIG;
    }
    md->devs.ops[i] = *ops;
    md->devs.handles[i] = NULL;
    memset(sd, 0, sizeof(*sd));
    sd->ops = &md->devs.ops[i];
    sd->host = &md->host;
    sd->host_ctx = md;
    sd->index = i;
    snprintf(sd->name, sizeof(sd->name), "%s", ops->name);
    md->devs.num++;
    return MD_OK;
}

void md_devlist_unload(md_t *md)
{
    for (int i = md->devs.num - 1; i >= 0; i--)
        if (md->devs.handles[i] != NULL)
            md_loader_unload(md->devs.handles[i]);
    md->devs.num = 0;
}
