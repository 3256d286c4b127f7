/*
 * nic_rundir.h - where a node's firmwares live on the host.
 *
 *   <rundir>/<node>/<nic>.sock   control socket of the running firmware
 *   <rundir>/<node>/<nic>.lock   held (flock) by the running firmware
 *   <rundir>/<node>/<nic>.start  serialises processes that start it
 *   <rundir>/<node>/<nic>.log    the daemon's stderr
 *   <rundir>/<node>/<nic>.p<pid>.sock, .lock   a process's own firmware
 *                                (nic_fw_thread.c removes those left behind)
 *
 * <rundir> is MULTIDEV_NIC_RUNDIR, default /dev/shm/multidev-nic-<uid>.
 * Each emulated node has its own directory, so nothing of one node can be
 * found from another.
 */
#ifndef NIC_RUNDIR_H
#define NIC_RUNDIR_H

#include <stddef.h>

#include "nic_log.h"

/* Writes the node directory and creates it (mode 0700) if needed.  The run
 * directory and the node directory must be directories of this user that
 * nobody else may enter (no symbolic link, mode 0700 or less): anything
 * else is refused with NIC_ERR_PROTECTION and a message saying why, to
 * sink (the NIC's that asks). */
int nic_rundir_node(const nic_log_sink_t *sink, const char *rundir, const char *node,
                    char *dir, size_t len);
/* <dir>/<nic><suffix> */
int nic_rundir_file(const char *dir, const char *nic, const char *suffix, char *path,
                    size_t len);
/* A name usable as one path component: [A-Za-z0-9_.-]+, not "." or "..". */
int nic_name_ok(const char *name);

#endif /* NIC_RUNDIR_H */
