/*
 * md_firmware.h - a helper for the subdevices that drive an emulated NIC
 * (myri, via, sci): where this process's firmware runs.
 */
#ifndef MD_FIRMWARE_H
#define MD_FIRMWARE_H

#include "md_sdi.h"

/* Where the firmware runs (md_param_firmware). */
enum {
    MD_FW_NICD = 0,        /* the node's daemon, shared by its processes */
    MD_FW_THREAD = 1,      /* a thread of this process, which the other ranks
                              of its node attach to */
    MD_FW_OWN_THREAD = 2,  /* a thread of this process, its alone: the process
                              is its job's only rank on the node */
};

/* Parameter "firmware" (MULTIDEV_<SUBDEV>_FIRMWARE, default
 * MULTIDEV_NIC_FIRMWARE, else auto): "thread" in this process, "nicd" the
 * node's daemon, "auto" a thread when this process is its job's only rank
 * on the node, else nicd.  Returns MD_FW_*, or MD_ERR_CONFIG (logged) on
 * any other value. */
int md_param_firmware(const md_subdev_init_args_t *args, const char *subdev);

/* The nic_attach_opts_t fields for a placement. */
#define MD_FW_ATTACH_INPROC(fw) ((fw) != MD_FW_NICD)
#define MD_FW_ATTACH_OWN(fw)    ((fw) == MD_FW_OWN_THREAD)

/* The log sink of the NIC a subdevice drives: the function of the
 * nic_log_sink_t it attaches with, sd (an md_subdev_t *) its argument.
 * Hands each line of that NIC (its host library's and, in-process, its
 * firmware's) to sd->host->log at its level (the NIC's levels are
 * md_log.h's), which prefixes the subdevice's name: NIC lines carry none.
 * Runs on the firmware thread too: host->log must be thread-safe. */
void md_firmware_log(void *sd, int level, const char *text);

#endif /* MD_FIRMWARE_H */
