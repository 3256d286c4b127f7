/*
 * md_module.h - subdevice modules as a tool sees them, without a job.
 *
 * mdinfo lists the modules libmultidev would load and what each says of
 * itself.  It goes through the loader md_init uses (md_loader.c): the same
 * search path, the same checks (SDI and kit ABI, name, mandatory slots),
 * the same messages; nothing is initialised.
 */
#ifndef MD_MODULE_H
#define MD_MODULE_H

#include <stddef.h>

#include "md_sdi.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MD_MODULE_PATH_MAX 4096

/* One module, loaded and checked. */
typedef struct md_module {
    md_subdev_ops_t ops;                       /**< as <name>_LoadDevicePtr
                                                    filled it */
    char            path[MD_MODULE_PATH_MAX];  /**< the file the loader
                                                    opened */
    void           *handle;                    /**< the loader's */
} md_module_t;

/* The directories the loader searches, in order, colon-separated:
 * search_path (what md_init takes from MULTIDEV_MODULE_PATH; NULL or ""
 * for none), then the install directory. */
void md_module_search_path(const char *search_path, char *out, size_t len);

/* Loads subdevice name from search_path as md_init would.  MD_OK with
 * *mod filled (md_module_close releases it); else an error status and err
 * holding the loader's message (the one md_init would log). */
int md_module_open(const char *name, const char *search_path, md_module_t *mod,
                   char *err, size_t err_len);
void md_module_close(md_module_t *mod);

#ifdef __cplusplus
}
#endif

#endif /* MD_MODULE_H */
