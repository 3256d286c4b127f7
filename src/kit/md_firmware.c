/* md_firmware.c - what the subdevices of an emulated NIC share about its
 * firmware: its log sink (md_firmware.h). */
#include "md_firmware.h"

void md_firmware_log(void *arg, int level, const char *text)
{
    md_subdev_t *sd = arg;

    sd->host->log(sd, level, "%s", text);
}
