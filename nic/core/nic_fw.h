/*
 * nic_fw.h - the firmware core, as seen by a personality (a control
 * program: nic/myri, nic/via, nic/sci) and by the programs that run it
 * (nicd, or a thread inside a test).
 *
 * The core owns: the main loop, the control socket and the attached
 * processes, endpoints and their rings, registered regions, the UDP wire
 * with fault injection, sleeping and waking, and reclaiming what a dead
 * process left behind.  A personality fills a nic_pers_ops_t and reacts to
 * doorbells (ep_service), frames (rx_frame) and time (poll).
 */
#ifndef NIC_FW_H
#define NIC_FW_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "nic_abi.h"
#include "nic_clock.h"
#include "nic_log.h"
#include "nic_ring.h"
#include "nic_status.h"
#include "nic_wire.h"

#define NIC_FW_MAX_EP    256u   /* endpoints per firmware */
#define NIC_FW_MAX_MR    64u    /* regions per endpoint */
#define NIC_FW_MAX_CONN  256u   /* attached processes */

typedef struct nic_fw nic_fw_t;
typedef struct nic_pers_ops nic_pers_ops_t;

/* A registered region, as the firmware maps it. */
typedef struct nic_fw_mr {
    uint32_t key;          /* 0: free slot */
    uint32_t access;       /* NIC_MR_* */
    uint8_t *base;
    uint64_t size;
} nic_fw_mr_t;

/* An open endpoint, firmware side. */
typedef struct nic_fw_ep {
    uint32_t         id;        /* slot | generation << 8 */
    uint32_t         conn;      /* owning connection */
    uint64_t         job_key;
    int              memfd;
    int              wake_fd;   /* host's eventfd (NIC_CTL_EP_WAKEFD) or -1 */
    nic_ep_shared_t *sh;
    size_t           seg_size;
    nic_ring_t       sq, rq, cq;   /* firmware's side of each ring */
    nic_fw_mr_t      mr[NIC_FW_MAX_MR];
    void            *pers;         /* the personality's per-endpoint state */
} nic_fw_ep_t;

/* Firmware configuration (nicd options, or a test). */
typedef struct nic_fw_config {
    const char *node;          /* emulated node name (shm/socket directory) */
    const char *nic;           /* NIC name on that node, e.g. "myri0" */
    const char *pers;          /* personality name, e.g. "myri" */
    const char *rundir;        /* NULL: nic_rundir_base() */
    const char *bind_ip;       /* UDP address (default 127.0.0.1) */
    uint16_t    bind_port;     /* 0: any */
    int         idle_exit_ms;  /* exit after this long with no process; <0 never */
    int         own_files;     /* nic names this process's own firmware: remove its
                                  lock file when it stops (nic_fw_thread_stop) */
    int         spin_us;       /* busy-poll this long before blocking */
    int         offload;       /* UDP GSO/GRO where the kernel has them */
    int         mac;           /* 0 auto, else NIC_WIRE_MAC_* (MULTIDEV_NIC_MAC) */
    unsigned    mtu;           /* the link's MTU; 0 finds it (MULTIDEV_NIC_MTU) */
    int         on_demand;     /* started by a host to attach to (nicd
                                  --ready-fd), not by hand: it ends with a
                                  failed start-up (NIC_CTL_START_FAILED) */
    nic_fault_t fault;         /* fault injection on transmit */
    nic_log_sink_t log;        /* where the firmware's lines go (nic_log.h):
                                  an in-process firmware's host's; nicd's
                                  writes stderr */
} nic_fw_config_t;

/* Fills defaults, log = *sink (NULL: stderr), then applies the
 * MULTIDEV_NIC_* environment variables: NIC_OK, or NIC_ERR_CONFIG after an
 * error line to sink naming a malformed one (the rest of cfg is then
 * unset). */
int nic_fw_config_defaults(nic_fw_config_t *cfg, const nic_log_sink_t *sink);

/* Personality interface.  All callbacks run on the firmware thread. */
struct nic_pers_ops {
    const char *name;
    uint32_t    id;                          /* enum nic_pers_id */
    int  (*fw_init)(nic_fw_t *fw, void **state);
    void (*fw_fini)(nic_fw_t *fw, void *state);
    /* A new endpoint (rings mapped, state OPEN); set ep->pers. */
    int  (*ep_open)(nic_fw_t *fw, nic_fw_ep_t *ep);
    /* The endpoint goes away (closed, or its process died): drop every
     * reference to it, its regions are unmapped after this returns. */
    void (*ep_close)(nic_fw_t *fw, nic_fw_ep_t *ep);
    /* NIC_CTL_PERS: personality-specific configuration. */
    int  (*ep_ctl)(nic_fw_t *fw, nic_fw_ep_t *ep, uint32_t op,
                   const void *in, size_t in_len, void *out, size_t *out_len);
    /* Look at the endpoint's SQ/RQ; return the number of entries handled. */
    int  (*ep_service)(nic_fw_t *fw, nic_fw_ep_t *ep);
    /* One frame from the wire, authentic: job is the tag of the key its
     * MAC was checked with (a frame whose own header names another job
     * is the personality's to refuse). */
    void (*rx_frame)(nic_fw_t *fw, const struct sockaddr_in *from, uint64_t job,
                     uint8_t *frame, size_t len);
    /* Optional: the last endpoint of a job here has closed (after its
     * ep_close); the job's key is still known to the wire during the call,
     * and forgotten right after. */
    void (*job_end)(nic_fw_t *fw, uint64_t job);
    /* Optional: the frames handed to rx_frame since the last call are
     * about to be overwritten (the wire receives into its buffers again). */
    void (*rx_batch_end)(nic_fw_t *fw);
    /* Timers and queued work; return events handled.  *next_ns: absolute
     * CLOCK_MONOTONIC time of the next timer (UINT64_MAX: none). */
    int  (*poll)(nic_fw_t *fw, uint64_t now_ns, uint64_t *next_ns);
    /* Counters for nicd --status. */
    void (*status)(nic_fw_t *fw, FILE *out);
};

/* The registry of personalities (nic_pers_list.c). */
const nic_pers_ops_t *nic_pers_find(const char *name);

/* Create the firmware: bind the wire, create the control socket, status
 * page and eventfd.  Does not take the node lock (nicd does that). */
int  nic_fw_create(const nic_fw_config_t *cfg, nic_fw_t **fw_p);
/* Run the main loop until nic_fw_stop() or the idle timeout. */
int  nic_fw_run(nic_fw_t *fw);
/* A thread of the firmware's own process (in-process mode) lends it one
 * turn of the data path (wire, doorbells, timers, queued frames) instead
 * of idling; returns the events handled, 0 also when the firmware is busy
 * on its own thread.  While hosts lend turns, the firmware thread naps
 * instead of waking for every datagram. */
int  nic_fw_lend(nic_fw_t *fw);
/* The lending host is about to sleep: the firmware thread takes the data
 * path back at once (it watches the wire again). */
void nic_fw_unlend(nic_fw_t *fw);
/* The lending host is about to sleep in poll() on the wire socket itself
 * (nic_fw_wire()->fd) and will lend a turn when it wakes: one wake-up per
 * arrival, the host's, instead of the firmware thread's and then the
 * host's.  The firmware thread keeps its naps and meets its own deadlines
 * meanwhile; it takes the wire back once no host has lent for the lending
 * window after the host woke. */
void nic_fw_host_on_wire(nic_fw_t *fw);
void nic_fw_stop(nic_fw_t *fw);      /* any thread */
void nic_fw_destroy(nic_fw_t *fw);

/* --- for personalities --- */
void            *nic_fw_pers_state(nic_fw_t *fw);
nic_wire_t      *nic_fw_wire(nic_fw_t *fw);
const nic_fw_config_t *nic_fw_config(nic_fw_t *fw);
/* Where the lines about this firmware go: the first argument of every
 * nic_log_*() of the firmware, its wire and its personality. */
const nic_log_sink_t *nic_fw_log(const nic_fw_t *fw);
nic_fw_ep_t     *nic_fw_ep_lookup(nic_fw_t *fw, uint32_t ep_id);
/* Process id of the endpoint's owner (from SO_PEERCRED; 0 if unknown). */
pid_t            nic_fw_ep_pid(nic_fw_t *fw, const nic_fw_ep_t *ep);
/* Calls fn for every open endpoint. */
void nic_fw_ep_foreach(nic_fw_t *fw, void (*fn)(nic_fw_t *, nic_fw_ep_t *, void *),
                       void *arg);
/* Bytes [off, off+len) of region key, if the endpoint registered it with
 * every bit of access; NULL otherwise (the protection check). */
void *nic_fw_mr_lookup(nic_fw_ep_t *ep, uint32_t key, uint64_t off,
                       uint64_t len, uint32_t access);
/* Publish CQ entries and wake a host blocked in nic_ep_wait(). */
void nic_fw_cq_commit(nic_fw_ep_t *ep);
/* The firmware wrote the endpoint's memory without a CQ entry (an SCI
 * remote store): bump mem_gen and wake a sleeping host. */
void nic_fw_ep_mem_written(nic_fw_ep_t *ep);
/* Put the endpoint into the ERROR state with a status code. */
void nic_fw_ep_fail(nic_fw_ep_t *ep, int status);

#endif /* NIC_FW_H */
