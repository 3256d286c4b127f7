/* md_kit.c - the version of the subdevice kit (md_kit.h). */
#include "config.h"

#include "md_kit.h"

unsigned md_kit_abi_version(void)
{
    return MD_KIT_ABI_VERSION;
}
