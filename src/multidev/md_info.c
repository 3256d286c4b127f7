/*
 * md_info.c - what the multidevice chose and counted (invariant 5): ranks,
 * nodes, the device list, routes, per-subdevice counters.
 */
#include "config.h"

#include <stdio.h>

#include "md_core.h"
#include "md_fwd.h"

int32_t md_world_rank(const md_t *md) { return md->rank; }
int32_t md_world_size(const md_t *md) { return md->size; }
int md_num_subdevs(const md_t *md) { return md->devs.num; }

int32_t md_node_of_rank(const md_t *md, int32_t world_rank)
{
    if (world_rank < 0 || world_rank >= md->size)
        return -1;
    return md->node_of_rank[world_rank];
}

const md_subdev_t *md_subdev(const md_t *md, int index)
{
    if (index < 0 || index >= md->devs.num)
        return NULL;
    return &md->devs.subdevs[index];
}

int md_route(const md_t *md, int32_t dst_world, size_t len,
             int32_t *next_hop_world)
{
    const md_route_class_t *c;

    if (dst_world < 0 || dst_world >= md->size)
        return -1;
    c = md_conntab_lookup(md, dst_world, len);
    if (c == NULL)
        return -1;
    if (next_hop_world != NULL)
        *next_hop_world = c->next_hop_node < 0
                              ? dst_world : md->node_relay_rank[c->next_hop_node];
    return c->subdev;
}

void md_print_stats(const md_t *md, void *file)
{
    FILE *out = file;

    for (int i = 0; i < md->devs.num; i++) {
        const md_subdev_t *sd = &md->devs.subdevs[i];
        const md_subdev_counters_t *c = &sd->counters;

        fprintf(out, "multidev[%d] stats %s: sent %llu msgs %llu B (eager %llu, "
                "rndv %llu); received %llu msgs %llu B (unexpected %llu); "
                "sysmsgs sent %llu received %llu\n", md->rank, sd->name,
                (unsigned long long)c->msgs_sent, (unsigned long long)c->bytes_sent,
                (unsigned long long)c->eager_sent, (unsigned long long)c->rndv_sent,
                (unsigned long long)c->msgs_recvd, (unsigned long long)c->bytes_recvd,
                (unsigned long long)c->unexpected,
                (unsigned long long)c->sysmsgs_sent,
                (unsigned long long)c->sysmsgs_recvd);
    }
    if (md->idle_sleeps > 0)
        fprintf(out, "multidev[%d] stats idle: %llu sleeps, %llu ran to their %d ms bound, "
                "%llu of those late (work was waiting: a lost wake-up)\n", md->rank,
                (unsigned long long)md->idle_sleeps, (unsigned long long)md->idle_timeouts,
                md->idle_sleep_ms, (unsigned long long)md->idle_late);
    md_fwd_counters_t fw;
    md_fwd_batch_counters_t bc;

    md_get_fwd_counters(md, &fw);
    md_fwd_get_batch_counters(md, &bc);
    if (md->fwd_index >= 0 || fw.originated_msgs > 0 || fw.relayed_msgs > 0)
        fprintf(out, "multidev[%d] stats forwarding: originated %llu msgs %llu B; "
                "relayed %llu msgs in %llu chunks, %llu B, %llu credits returned, "
                "at most %llu B held; delivered %llu msgs %llu B; "
                "%llu acknowledgements in %llu messages; "
                "%llu chunks sent in %llu batches (%llu held)\n",
                md->rank, (unsigned long long)fw.originated_msgs,
                (unsigned long long)fw.originated_bytes,
                (unsigned long long)fw.relayed_msgs, (unsigned long long)fw.relayed_chunks,
                (unsigned long long)fw.relayed_bytes, (unsigned long long)fw.credits_returned,
                (unsigned long long)fw.relay_peak_bytes,
                (unsigned long long)fw.delivered_msgs,
                (unsigned long long)fw.delivered_bytes, (unsigned long long)fw.acks_sent,
                (unsigned long long)fw.ack_msgs_sent, (unsigned long long)bc.chunks,
                (unsigned long long)bc.msgs, (unsigned long long)bc.held);
    fflush(out);
}
