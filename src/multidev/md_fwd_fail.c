/*
 * md_fwd_fail.c - forwarding when a rank cannot be reached any more
 * (md_fail.c): the flows this rank originated to it fail, the flows it
 * relays to or from it are forgotten (their origins learn of the failure
 * from FWD_UNREACH, or from their own subdevices), and the relay answers
 * a chunk for a failed rank with FWD_UNREACH instead of sending it on.
 */
#include "config.h"

#include <stdlib.h>

#include "md_fail.h"
#include "md_fwd_state.h"
#include "md_log.h"

void md_fwd_send_unreach(md_t *md, int32_t to, int32_t failed, int status)
{
    const md_route_class_t *c = md_conntab_lookup(md, to, 0);
    md_fwd_ctl_t ctl = { .origin = failed, .dst = to, .hop_src = md->rank, .status = status };

    if (c == NULL || c->next_hop_node >= 0 || md->fwd == NULL)
        return;      /* only told to ranks reached directly, over their route's subdevice */
    md_fwd_send_ctl(md, c->subdev, to, MD_SYSTAG_FWD_UNREACH, &ctl, 1);
}

/* The flows this rank sends to rank fail (a standard send whose chunks have
 * all left completed already: it simply ends). */
static void md_fwd_fail_origin(md_t *md, int32_t rank, int status)
{
    md_fwd_state_t *st = md->fwd;
    int again = 1;

    /* md_fwd_out_fail may free the flow: look again from the start. */
    while (again) {
        again = 0;
        for (md_fwd_out_t *o = st->out; o != NULL; o = o->next)
            if (o->env.dst_world == rank && o->error == MD_OK) {
                md_fwd_out_fail(md, o, status);
                again = 1;
                break;
            }
    }
}

static void md_fwd_forget_relays(md_t *md, int32_t rank)
{
    md_fwd_state_t *st = md->fwd;

    for (md_fwd_relay_t **p = &st->relays; *p != NULL;) {
        md_fwd_relay_t *r = *p;
        if (r->origin == rank || r->dst == rank) {
            *p = r->next;
            free(r);
        } else {
            p = &r->next;
        }
    }
}

void md_fwd_fail_rank(md_t *md, int32_t rank, int status)
{
    if (md->fwd == NULL)
        return;
    md_fwd_fail_origin(md, rank, status);
    md_fwd_forget_relays(md, rank);
    if (md->fwd_index >= 0)
        md_fwd_recv_fail_source(md_sd(md, md->fwd_index), rank, status);
}

int md_fwd_relay_refuse(md_t *md, md_subdev_t *sd, const md_fwd_hdr_t *hdr)
{
    int status = md_rank_failed(md, hdr->env.dst_world);
    md_fwd_ctl_t ctl;

    if (status == MD_OK)
        return 0;
    ctl = (md_fwd_ctl_t){ .origin = hdr->env.dst_world, .dst = hdr->hop_src,
                          .hop_src = md->rank, .status = status };
    md_fwd_send_ctl(md, sd->index, hdr->hop_src, MD_SYSTAG_FWD_UNREACH, &ctl, 1);
    return 1;
}
