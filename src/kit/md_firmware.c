/* md_firmware.c - what the subdevices of an emulated NIC share about its
 * firmware: its log sink and the job key it is opened with (md_firmware.h). */
#include "md_firmware.h"
#include "md_log.h"

void md_firmware_log(void *arg, int level, const char *text)
{
    md_subdev_t *sd = arg;

    sd->host->log(sd, level, "%s", text);
}

int md_firmware_job_key_check(md_subdev_t *sd, const md_subdev_init_args_t *args)
{
    if (args->job_key != 0)
        return MD_OK;
    sd->host->log(sd, MD_LOG_ERROR, "the init arguments carry no job key (job_key 0): the NIC "
                  "cannot isolate this job's endpoints");
    return MD_ERR_INVALID;
}
