/*
 * md_firmware.h - a helper for the subdevices that drive an emulated NIC
 * (myri, via, sci): where this process's firmware runs.
 */
#ifndef MD_FIRMWARE_H
#define MD_FIRMWARE_H

#include "md_sdi.h"

/* Parameter "firmware" (MULTIDEV_<SUBDEV>_FIRMWARE, default
 * MULTIDEV_NIC_FIRMWARE, else auto): "thread" in this process (returns 1),
 * "nicd" the node's daemon (0), "auto" a thread when this process is the
 * only rank of its node.  MD_ERR_CONFIG (logged) on any other value. */
int md_param_firmware_thread(const md_subdev_init_args_t *args, const char *subdev);

#endif /* MD_FIRMWARE_H */
