/*
 * myri_impl.h - the Myrinet subdevice: MPI point-to-point on the GAM
 * library of the emulated LANai (nic/myri).
 *
 * Protocols (one GAM handler each; the 40-byte envelope travels in the five
 * request arguments):
 *   EAGER       payload = the message (at most eager_limit <= 4096 bytes)
 *   EAGER_SYNC  payload = sender cookie (8 bytes) + the message; the
 *               receiver answers SYNC_ACK once it has matched it
 *   RTS         payload = sender cookie; the receiver answers CTS once it
 *               has matched (rendezvous), then DATA pieces of 4 kB follow
 *   CTS         args: sender cookie, receiver cookie, bytes to send
 *   DATA        args: receiver cookie, offset; payload = a piece
 *   SYNC_ACK    args: sender cookie
 * A negative tag makes a system message: it goes EAGER (or RTS when larger
 * than a piece), is never matched and is handed to host->sysmsg().
 *
 * Every outgoing GAM request goes through its destination's FIFO op queue,
 * drained by progress while credits allow, so nothing overtakes an earlier
 * message to the same peer and no handler ever waits for a credit.
 * Arrivals that host->arrival_ok() holds back wait, in order, in their
 * sender's held queue.  Completions are collected and handed to the host at
 * the end of each call (the host may call back into the subdevice).
 */
#ifndef MYRI_IMPL_H
#define MYRI_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "md_card.h"
#include "md_complete.h"
#include "md_cookie.h"
#include "md_held.h"
#include "md_liveness.h"
#include "md_log.h"
#include "md_nic_addr.h"
#include "md_opq.h"
#include "md_peerset.h"
#include "md_kit.h"
#include "md_mq.h"
#include "md_param.h"
#include "md_peerfail.h"
#include "md_serves.h"
#include "md_reqlist.h"
#include "md_sdbase.h"
#include "md_sdi.h"
#include "core/nic_host.h"
#include "myri/myri_gam.h"

#define MYRI_CARD_MAGIC 0x4d595249u   /* "MYRI" */

enum myri_handler {
    MYRI_H_PROBE = 0,      /* no handler: only the automatic reply */
    MYRI_H_EAGER = 1, MYRI_H_EAGER_SYNC, MYRI_H_RTS, MYRI_H_CTS, MYRI_H_DATA, MYRI_H_SYNC_ACK,
};

/* What a rank publishes (its business card). */
typedef struct myri_card {
    uint32_t magic;
    uint32_t ep_id;
    uint32_t ip;          /* firmware wire address, network order */
    uint16_t udp_port;    /* network order */
    uint8_t  port;        /* switch port its NIC is plugged into */
    uint8_t  pad;
    char     sw[32];      /* switch name */
} myri_card_t;

/* Request state, in req->sd_priv (a posted receive's is md_mq's). */
enum myri_rstate {
    MYRI_RS_FREE = 0,
    MYRI_RS_WAIT_DATA,    /* receive matched an RTS, DATA coming */
    MYRI_RS_QUEUED,       /* send waiting in the op queue */
    MYRI_RS_WAIT_CTS,     /* RTS sent */
    MYRI_RS_WAIT_ACK,     /* synchronous eager sent */
    MYRI_RS_SENDING,      /* DATA pieces going out */
    MYRI_RS_DONE,
};

typedef struct myri_rpriv {
    md_mq_req_t   mq;              /* the kit's: posted (md_mq) or done list */
    uint32_t      state;
    uint32_t      cookie;          /* its md_cookie, 0: none */
    uint64_t      remote_cookie;   /* the peer's cookie (rendezvous) */
    uint64_t      sent, expected;  /* DATA bytes sent or expected */
    void         *unexp;           /* improbe: the bound unexpected entry */
    uint32_t      flags;           /* MYRI_RF_* */
} myri_rpriv_t;

_Static_assert(sizeof(myri_rpriv_t) <= sizeof(((md_request_t *)0)->sd_priv), "sd_priv too small");

#define MYRI_RF_SYSMSG 0x1u   /* our own receive of a large system message */

static inline myri_rpriv_t *myri_rp(md_request_t *r) { return (myri_rpriv_t *)r->sd_priv; }

/* An arrived message nobody has matched yet (or one held back). */
typedef struct myri_msg {
    md_mq_msg_t      mq;           /* first (a cast converts): envelope,
                                      unexpected-queue links */
    md_held_link_t   held;         /* while held back (md_held) */
    int32_t          src;          /* sender's world rank (vnn) */
    uint32_t         handler;      /* EAGER, EAGER_SYNC or RTS */
    uint64_t         cookie;       /* sender cookie (sync, RTS) */
    uint32_t         len;          /* eager bytes held in data */
    uint8_t          data[];
} myri_msg_t;

/* One outgoing GAM request waiting for a credit. */
typedef struct myri_peer {
    md_opq_t    ops;               /* kind: the GAM handler; req: EAGER*, RTS, DATA */
    int         failed;            /* status once the NIC reported it lost */
} myri_peer_t;

typedef struct myri_ctx {
    md_sdbase_t         base;      /* sd, host, me, serves, mq, done, cookies, ... */
    nic_host_t         *nic;
    myri_gam_t         *gam;
    myri_peer_t        *peers;     /* [world_size] */
    size_t              eager_limit;
    int                 dead;      /* status once the firmware died */
    char                nic_name[32];
    int                 fw_thread;      /* MD_FW_*: where the firmware runs */
    int                 ready;          /* the job's start-up is over */
    myri_card_t         card;
    size_t              credits, sq, flush_us;
    char                sw[32], links[512], timing[16];
    md_nic_addr_t       addr;          /* what the NIC binds (md_nic_addr.h) */
    size_t              port;
    int                 port_set;
} myri_ctx_t;

#define MYRI_LOG(ctx, lvl, ...) MD_SDBASE_LOG(&(ctx)->base, (lvl), __VA_ARGS__)

/* myri_init.c */
int myri_init(md_subdev_t *sd, const md_subdev_init_args_t *args, void *card, size_t *card_len);
int myri_connect(md_subdev_t *sd, const md_card_table_t *cards);
int myri_finalize(md_subdev_t *sd);
/* myri_fabric_setup.c */
int myri_fabric_setup(myri_ctx_t *ctx, const md_card_table_t *cards);
/* myri_send.c */
int  myri_isend(md_subdev_t *sd, md_request_t *req);
int  myri_ops_drain(myri_ctx_t *ctx);
void myri_op_push(myri_ctx_t *ctx, int32_t peer, md_op_t *op);
int  myri_op_ctl(myri_ctx_t *ctx, int32_t peer, uint32_t handler, uint64_t a0, uint64_t a1,
                 uint64_t a2);
void myri_on_cts(myri_ctx_t *ctx, const uint64_t *args);
void myri_on_sync_ack(myri_ctx_t *ctx, const uint64_t *args);
/* myri_recv.c */
int  myri_irecv(md_subdev_t *sd, md_request_t *req);
int  myri_recv_cancel(md_subdev_t *sd, md_request_t *req);
int  myri_iprobe(md_subdev_t *sd, const md_match_t *m, int *flag, md_recv_status_t *st);
int  myri_improbe(md_subdev_t *sd, const md_match_t *m, int *flag, md_request_t *msg);
int  myri_imrecv(md_subdev_t *sd, md_request_t *msg, md_request_t *req);
void myri_on_arrival(myri_ctx_t *ctx, int32_t src, uint32_t handler, const md_envelope_t *env,
                     uint64_t cookie, const void *data, uint32_t len);
void myri_on_data(myri_ctx_t *ctx, const uint64_t *args, const void *data, uint32_t len);
int  myri_held_retry(myri_ctx_t *ctx);
/* myri_progress.c */
int  myri_progress(md_subdev_t *sd);
int  myri_wait_fd(md_subdev_t *sd, unsigned flags);
void myri_complete(myri_ctx_t *ctx, md_request_t *req);
void myri_flush_done(myri_ctx_t *ctx);
void myri_fail_all(myri_ctx_t *ctx, int status);
void myri_fail_peer(myri_ctx_t *ctx, int32_t peer, int status);
void myri_fail_posted(myri_ctx_t *ctx, int32_t peer, int status);
void myri_install_handlers(myri_ctx_t *ctx);
/* myri_util.c */
void          myri_env_pack(const md_envelope_t *env, uint64_t args[5]);
void          myri_env_unpack(const uint64_t args[5], md_envelope_t *env);

#endif /* MYRI_IMPL_H */
