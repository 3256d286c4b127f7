/*
 * md_wireup.c - bring the device list up across the job (P1 §3.2, steps
 * 5-7): init every subdevice, exchange their business cards, connect, wait
 * for everybody, then tell them the job is ready.
 *
 * Every step that can fail on one rank is followed by an agreement round,
 * so a failure anywhere ends md_init on every rank with a message, instead
 * of leaving the others waiting in a collective.
 */
#include "config.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "md_core.h"
#include "md_log.h"

int md_agree(md_t *md, const md_bootstrap_t *bs, int local_rc, const char *what)
{
    int32_t mine = local_rc, *all;
    int rc = MD_OK;

    all = malloc(sizeof(*all) * (size_t)md->size);
    if (all == NULL)
        return MD_ERR_NO_MEMORY;
    if (bs->allgather(bs->ctx, &mine, all, sizeof(mine)) != 0) {
        md_log_error("%s: the launcher's allgather failed", what);
        free(all);
        return MD_ERR_IO;
    }
    for (int32_t r = 0; r < md->size && rc == MD_OK; r++) {
        if (all[r] == MD_OK)
            continue;
        rc = r == md->rank ? all[r] : MD_ERR_PEER_FAILED;
        if (r != md->rank)
            md_log_error("%s failed on rank %d (%s); see its messages", what,
                         r, md_status_string(all[r]));
    }
    free(all);
    md->failed_everywhere |= rc != MD_OK;
    return rc;
}

/* The ranks a subdevice carries traffic to or from (P1's GetDeviceNodeList):
 * peers it reaches directly or receives from, the peers it is a rail to
 * (it may carry no route to them: a rail slower than the others at every
 * size still takes its share of striped messages), and the relay ranks of
 * routes whose first hop it is, not their final destinations. */
void md_wireup_serves(const md_t *md, int index, uint8_t *serves)
{
    memset(serves, 0, (size_t)md->size);
    for (int32_t r = 0; r < md->size; r++) {
        const md_node_route_t *route = &md->routes[md->node_of_rank[r]];

        if ((route->arrive_mask >> index) & 1u)
            serves[r] = 1;
        for (int32_t k = 0; k < route->num_rails; k++)
            if (route->rails[k].subdev == index)
                serves[r] = 1;
        for (int32_t c = 0; c < route->num_classes; c++) {
            const md_route_class_t *cl = &route->classes[c];
            if (cl->subdev != index)
                continue;
            if (cl->next_hop_node < 0)
                serves[r] = 1;
            else
                serves[md->node_relay_rank[cl->next_hop_node]] = 1;
        }
    }
}

static int md_wireup_role(const md_t *md, const uint8_t *serves)
{
    for (int32_t r = 0; r < md->size; r++)
        if (serves[r] && md->node_of_rank[r] != md->my_node)
            return MD_ROLE_GLOBAL;
    return MD_ROLE_LOCAL;
}

/* A card as a subdevice reads or writes it: aligned for any struct (in a
 * blob a card lies wherever the names before it end). */
typedef union md_card_buf {
    max_align_t align;
    uint8_t     bytes[MD_CARD_MAX];
} md_card_buf_t;

/* Calls every subdevice's init and packs the cards into one blob:
 * repeated { u8 name_len, name, u16 card_len, card }. */
static int md_wireup_init_all(md_t *md, uint8_t *blob, size_t *blob_len)
{
    md_card_buf_t card;
    uint8_t *serves = calloc((size_t)md->size, 1);
    md_param_t params[64];
    size_t used = 0;
    int rc = MD_OK;

    if (serves == NULL)
        return MD_ERR_NO_MEMORY;
    for (int i = 0; i < md->devs.num && rc == MD_OK; i++) {
        md_subdev_t *sd = md_sd(md, i);
        const md_nodeconf_device_t *dev =
            md->conf ? md_nodeconf_find_device(md->conf, sd->name) : NULL;
        md_subdev_init_args_t args = {
            .world_rank = md->rank, .world_size = md->size,
            .node_of_rank = md->node_of_rank, .my_node = md->my_node,
            .num_nodes = md->num_nodes, .node_name = md->node_name,
            .job_id = md->job_id, .job_secret = md->job_secret, .job_key = md->job_key,
            .serves = serves, .params = params,
            .host_oversubscribed = md->host_oversubscribed,
            .hosts = &md->hosts.job,
        };
        size_t name_len = strlen(sd->name), card_len = 0;

        md_wireup_serves(md, i, serves);
        args.role = md_wireup_role(md, serves);
        for (size_t k = 0; dev && k < dev->num_params && k < 64; k++) {
            params[k].key = dev->params[k].key;
            params[k].value = dev->params[k].value;
            args.num_params = k + 1;
        }
        rc = sd->ops->init(sd, &args, card.bytes, &card_len);
        if (rc != MD_OK) {
            md_log_error("subdevice %s: init failed: %s", sd->name,
                         md_status_string(rc));
            break;
        }
        if (card_len > MD_CARD_MAX) {
            md_log_error("subdevice %s wrote a %zu-byte card (max %d)",
                         sd->name, card_len, MD_CARD_MAX);
            rc = MD_ERR_INVALID;
            break;
        }
        blob[used] = (uint8_t)name_len;
        memcpy(blob + used + 1, sd->name, name_len);
        blob[used + 1 + name_len] = (uint8_t)(card_len & 0xff);
        blob[used + 2 + name_len] = (uint8_t)(card_len >> 8);
        memcpy(blob + used + 3 + name_len, card.bytes, card_len);
        used += 3 + name_len + card_len;
        md->devs_initialised = i + 1;
    }
    free(serves);
    *blob_len = used;
    return rc;
}

/* Finds subdevice name's card in one rank's blob. */
static const uint8_t *md_wireup_find_card(const uint8_t *blob, size_t len,
                                          const char *name, uint16_t *card_len)
{
    size_t pos = 0, name_len = strlen(name);

    while (pos + 3 <= len) {
        size_t nl = blob[pos];
        uint16_t cl;

        if (pos + 3 + nl > len)
            break;
        cl = (uint16_t)(blob[pos + 1 + nl] | (blob[pos + 2 + nl] << 8));
        if (nl == name_len && memcmp(blob + pos + 1, name, nl) == 0) {
            *card_len = cl;
            return blob + pos + 3 + nl;
        }
        pos += 3 + nl + cl;
    }
    *card_len = 0;
    return NULL;
}

/* Each subdevice's connect gets the cards of every rank, each copied to
 * an aligned place of its own.  A failed connect does not skip the
 * subdevices after it: their peers may wait in a handshake with this rank
 * (via), which would otherwise last until their timeout. */
static int md_wireup_connect_all(md_t *md, const uint8_t *blobs,
                                 const uint32_t *lens, size_t stride)
{
    const uint8_t **cards = calloc((size_t)md->size, sizeof(*cards));
    uint16_t *card_lens = calloc((size_t)md->size, sizeof(*card_lens));
    md_card_buf_t *copies = calloc((size_t)md->size, sizeof(*copies));
    int rc = MD_OK;

    if (cards == NULL || card_lens == NULL || copies == NULL) {
        rc = MD_ERR_NO_MEMORY;
        goto out;
    }
    for (int i = 0; i < md->devs.num; i++) {
        md_subdev_t *sd = md_sd(md, i);
        md_card_table_t table = { .world_size = md->size, .card = cards,
                                  .len = card_lens };

        for (int32_t r = 0; r < md->size; r++) {
            const uint8_t *c = md_wireup_find_card(blobs + (size_t)r * stride, lens[r],
                                                   sd->name, &card_lens[r]);
            cards[r] = NULL;
            if (c != NULL && card_lens[r] <= MD_CARD_MAX) {
                memcpy(copies[r].bytes, c, card_lens[r]);
                cards[r] = copies[r].bytes;
            }
        }
        int sd_rc = sd->ops->connect(sd, &table);
        if (sd_rc != MD_OK) {
            md_log_error("subdevice %s: connect failed: %s", sd->name,
                         md_status_string(sd_rc));
            rc = rc != MD_OK ? rc : sd_rc;
        }
    }
out:
    free(cards);
    free(card_lens);
    free(copies);
    return rc;
}

int md_wireup(md_t *md, const md_bootstrap_t *bs)
{
    size_t blob_cap = (size_t)md->devs.num * (3 + 32 + MD_CARD_MAX);
    uint8_t *mine = calloc(1, blob_cap ? blob_cap : 1), *all = NULL;
    uint32_t *lens = calloc((size_t)md->size, sizeof(*lens)), my_len, stride = 0;
    size_t used = 0;
    int rc;

    if (mine == NULL || lens == NULL) {
        free(mine);
        free(lens);
        return MD_ERR_NO_MEMORY;
    }
    rc = md_wireup_init_all(md, mine, &used);
    rc = md_agree(md, bs, rc, "subdevice initialisation");
    if (rc != MD_OK)
        goto out;

    my_len = (uint32_t)used;
    if (bs->allgather(bs->ctx, &my_len, lens, sizeof(my_len)) != 0) {
        rc = MD_ERR_IO;
        goto out;
    }
    for (int32_t r = 0; r < md->size; r++)
        stride = lens[r] > stride ? lens[r] : stride;
    stride = stride ? stride : 1;
    all = calloc((size_t)md->size, stride);
    if (all == NULL) {
        rc = MD_ERR_NO_MEMORY;
        goto out;
    }
    if (bs->allgather(bs->ctx, mine, all, stride) != 0) {
        md_log_error("exchanging subdevice cards failed");
        rc = MD_ERR_IO;
        goto out;
    }
    rc = md_wireup_connect_all(md, all, lens, stride);
    rc = md_agree(md, bs, rc, "connecting the subdevices");
    for (int i = 0; i < md->devs.num && rc == MD_OK; i++) {
        md_subdev_t *sd = md_sd(md, i);
        if (sd->ops->ready != NULL)
            rc = sd->ops->ready(sd);
        if (rc != MD_OK)
            md_log_error("subdevice %s: ready failed: %s", sd->name,
                         md_status_string(rc));
    }
out:
    free(mine);
    free(all);
    free(lens);
    return rc;
}
