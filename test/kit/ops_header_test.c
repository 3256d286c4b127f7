/*
 * ops_header_test.c - MD_SUBDEV_OPS_HEADER: a module's static function
 * table carries the SDI and kit ABI versions it was built with and its
 * name; what it does not name stays NULL (unsupported).
 */
#include <criterion/criterion.h>
#include <string.h>

#include "md_kit.h"
#include "md_sdi.h"

static int fake_progress(md_subdev_t *sd)
{
    (void)sd;
    return 0;
}

static const md_subdev_ops_t fake_ops = {
    MD_SUBDEV_OPS_HEADER("fake"),
    .caps = MD_CAP_LOCAL_ONLY,
    .progress = fake_progress,
};

Test(ops_header, fills_the_versions_and_the_name)
{
    md_subdev_ops_t ops;

    memset(&ops, 0xa5, sizeof(ops));
    ops = fake_ops;
    cr_assert_eq(ops.abi_version, MD_SDI_ABI_VERSION);
    cr_assert_eq(ops.kit_abi_version, MD_KIT_ABI_VERSION);
    cr_assert_eq(ops.kit_abi_version, md_kit_abi_version(), "the libmdkit it runs with");
    cr_assert_str_eq(ops.name, "fake");
    cr_assert_eq(ops.caps, MD_CAP_LOCAL_ONLY);
    cr_assert_eq(ops.progress, fake_progress);
    cr_assert_null(ops.send_cancel, "an unnamed slot is unsupported");
    cr_assert_null(ops.wait_fd);
}
