/* loader_test.c - the device-list loader accepts a good module and rejects
 * each kind of broken one with a message naming the module and the fault. */
#include <criterion/criterion.h>
#include <string.h>

#include "md_core.h"
#include "solo_bootstrap.h"

static md_subdev_ops_t ops;
static lt_dlhandle handle;
static char err[1024];

static int load(const char *name)
{
    err[0] = '\0';
    handle = NULL;
    return md_loader_load(name, MD_TEST_MODULE_DIR, &ops, &handle, err,
                          sizeof(err));
}

Test(loader, good_module_fills_the_table)
{
    cr_assert_eq(load("tgood"), MD_OK, "%s", err);
    cr_assert_not_null(handle);
    cr_assert_str_eq(ops.name, "tgood");
    cr_assert_eq(ops.abi_version, MD_SDI_ABI_VERSION);
    cr_assert_not_null(ops.isend);
    cr_assert_null(ops.improbe, "an optional slot it leaves empty stays NULL");
    md_loader_unload(handle);
}

Test(loader, missing_module_is_named)
{
    cr_assert_eq(load("tnothere"), MD_ERR_NOT_LOADED);
    cr_assert(strstr(err, "libmd_tnothere") != NULL, "%s", err);
    cr_assert(strstr(err, MD_TEST_MODULE_DIR) != NULL,
              "the message shows where it looked: %s", err);
}

Test(loader, missing_symbol_is_named)
{
    cr_assert_eq(load("tnosym"), MD_ERR_NOT_LOADED);
    cr_assert(strstr(err, "tnosym_LoadDevicePtr") != NULL, "%s", err);
}

Test(loader, wrong_abi_version_is_refused)
{
    cr_assert_eq(load("tbadabi"), MD_ERR_ABI);
    cr_assert(strstr(err, "'tbadabi'") != NULL, "%s", err);
    cr_assert(strstr(err, "version 99") != NULL, "%s", err);
}

Test(loader, wrong_kit_abi_version_is_refused)
{
    cr_assert_eq(load("tbadkit"), MD_ERR_ABI);
    cr_assert(strstr(err, "'tbadkit'") != NULL, "%s", err);
    cr_assert(strstr(err, "kit ABI version 77") != NULL, "%s", err);
}

Test(loader, null_mandatory_slot_is_refused)
{
    cr_assert_eq(load("tnullslot"), MD_ERR_INVALID);
    cr_assert(strstr(err, "'tnullslot'") != NULL, "%s", err);
    cr_assert(strstr(err, "'isend'") != NULL, "%s", err);
}

Test(loader, table_naming_another_subdevice_is_refused)
{
    cr_assert_eq(load("tbadname"), MD_ERR_INVALID);
    cr_assert(strstr(err, "somebody_else") != NULL, "%s", err);
}

Test(loader, names_that_are_not_identifiers_are_refused)
{
    cr_assert_eq(load("../etc/x"), MD_ERR_INVALID);
    cr_assert_eq(load(""), MD_ERR_INVALID);
    cr_assert(strstr(err, "not a valid subdevice name") != NULL, "%s", err);
}

static int dummy_improbe(md_subdev_t *sd, const md_match_t *m, int *flag,
                         md_request_t *msg)
{
    (void)sd; (void)m; (void)msg;
    *flag = 0;
    return MD_OK;
}

Test(loader, validate_checks_improbe_and_imrecv_together)
{
    cr_assert_eq(load("tgood"), MD_OK, "%s", err);
    md_subdev_ops_t half = ops;
    half.improbe = dummy_improbe;
    cr_assert_eq(md_loader_validate("tgood", &half, err, sizeof(err)),
                 MD_ERR_INVALID);
    cr_assert(strstr(err, "improbe without imrecv") != NULL, "%s", err);
    md_loader_unload(handle);
}

Test(loader, init_fails_cleanly_when_a_configured_module_is_missing)
{
    md_t *md = (md_t *)1;
    int rc = solo_init("multidev-node-config 1\nnode solo\ndevice tnothere\n", &md);
    cr_assert_eq(rc, MD_ERR_NOT_LOADED);
    cr_assert_null(md);
}
