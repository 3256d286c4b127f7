/*
 * nic_fw_thread.h - the firmware as a thread of the calling process
 * ("in-process mode"), for unit tests and single-process tools.  It takes
 * the node lock like nicd, so it never runs beside a nicd of the same node
 * and NIC; hosts attach to it through the same socket (start = 0).
 */
#ifndef NIC_FW_THREAD_H
#define NIC_FW_THREAD_H

#include "nic_fw.h"

typedef struct nic_fw_thread nic_fw_thread_t;

int  nic_fw_thread_start(const nic_fw_config_t *cfg, nic_fw_thread_t **thr_p);
/* The firmware's wire address ("ip:port"). */
void nic_fw_thread_addr(nic_fw_thread_t *thr, char *buf, size_t len);
void nic_fw_thread_stop(nic_fw_thread_t *thr);
/* The firmware the thread runs (for nic_fw_lend). */
nic_fw_t *nic_fw_thread_fw(nic_fw_thread_t *thr);

/* Take <dir>/<nic>.lock for the life of the firmware: NIC_OK, or
 * NIC_ERR_NO_RESOURCE when another firmware holds it.  path (path_len
 * bytes, may be NULL) receives the lock file's path; sink: where a bad run
 * directory is said. */
int  nic_fw_lock(const nic_log_sink_t *sink, const char *rundir, const char *node,
                 const char *nic, int *fd_p, char *path, size_t path_len);

#endif /* NIC_FW_THREAD_H */
