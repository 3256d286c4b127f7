/*
 * md_sysmsg.c - system messages: one-sided messages with negative tags that
 * the runtime, not the application, sends (P1 §3.4).  The receiving
 * subdevice supplies the buffer and hands the payload to the handler of the
 * tag.  Tags -1..-63 belong to the multidevice, the rest to callers
 * (md_sysmsg_register).
 */
#include "config.h"

#include "md_core.h"
#include "md_log.h"
#include "md_sysmsg.h"
#include "md_fwd.h"
#include "md_thread.h"

static int md_systag_slot(int32_t tag)
{
    int32_t slot = MD_SYSTAG_USER_FIRST - tag;

    return (tag <= MD_SYSTAG_USER_FIRST && slot < MD_SYSTAG_HANDLERS) ? slot : -1;
}

int md_sysmsg_register(md_t *md, int32_t tag, md_sysmsg_handler_t handler,
                       void *ctx)
{
    return md_sysmsg_register_flags(md, tag, handler, ctx, 0);
}

int md_sysmsg_register_flags(md_t *md, int32_t tag,
                             md_sysmsg_handler_t handler, void *ctx,
                             unsigned flags)
{
    int slot = md_systag_slot(tag);

    if (slot < 0) {
        md_log_error("system message tag %d is outside the range open to "
                     "callers (%d..%d)", tag,
                     MD_SYSTAG_USER_FIRST - MD_SYSTAG_HANDLERS + 1,
                     MD_SYSTAG_USER_FIRST);
        return MD_ERR_INVALID;
    }
    md_api_enter(md);
    md->sys_handlers[slot].handler = handler;
    md->sys_handlers[slot].ctx = ctx;
    md->sys_handlers[slot].flags = flags;
    md_api_leave(md);
    return MD_OK;
}

/* The multidevice's own tags are handled at once, wherever the message
 * arrives (the progress thread included); the caller's are queued and run
 * from the caller's next call into the multidevice, outside any lock and
 * outside the subdevice that received them (a handler may send). */
void md_sysmsg_dispatch(md_t *md, md_subdev_t *sd, const md_envelope_t *env,
                        const void *payload)
{
    int slot = md_systag_slot(env->tag);

    if (md->tearing_down)
        return;           /* drained in a finalize: nobody waits for it (md_teardown) */
    if (env->tag > MD_SYSTAG_USER_FIRST) {
        md_fwd_dispatch(md, sd, env, payload);
        return;
    }
    md->user_sysmsgs++;
    if (slot >= 0 && (md->sys_handlers[slot].flags & MD_SYSMSG_F_ANY_THREAD))
        md_sysmsg_run_handler(md, env->src_world, env->tag, payload, env->size);
    else
        md_defer_sysmsg(md, env, payload);
}

void md_sysmsg_run_handler(md_t *md, int32_t src_world, int32_t tag,
                           const void *payload, size_t len)
{
    int slot = md_systag_slot(tag);

    if (slot >= 0 && md->sys_handlers[slot].handler != NULL) {
        md->sys_handlers[slot].handler(md->sys_handlers[slot].ctx, src_world,
                                       tag, payload, len);
        return;
    }
    md_log_error("system message with tag %d from rank %d has no handler; "
                 "%zu bytes dropped", tag, src_world, len);
}
