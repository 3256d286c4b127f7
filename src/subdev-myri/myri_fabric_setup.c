/* myri_fabric_setup.c - from the business cards and the links= parameter
 * to the LCP's fabric (which NIC is on which switch port, which ports are
 * cabled) and to the route bytes toward every peer this subdevice serves.
 *
 *   switch=<name>   the crossbar this node's NIC is plugged into (sw0)
 *   port=<n>        its port on that crossbar (default: the node index)
 *   links=<sw>:<p>-<sw>:<p>,...   switch-to-switch cables, the same on
 *                   every node (mdconfig writes them)
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "myri/myri_fabric.h"
#include "myri_impl.h"

#define MAX_SWITCHES 256

typedef struct names {
    char     n[MAX_SWITCHES][32];
    unsigned count;
} names_t;

static int name_id(names_t *s, const char *name)
{
    for (unsigned i = 0; i < s->count; i++)
        if (strcmp(s->n[i], name) == 0)
            return (int)i;
    if (s->count == MAX_SWITCHES)
        return -1;
    snprintf(s->n[s->count], sizeof(s->n[0]), "%s", name);
    return (int)s->count++;
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(a, b);
}

static const myri_card_t *card_of(const md_card_table_t *cards, int32_t r)
{
    return md_card_find(cards, r, sizeof(myri_card_t), MYRI_CARD_MAGIC);
}

/* "a:1-b:2" -> names and ports */
static int parse_link(const char *text, char *sa, unsigned *pa, char *sb, unsigned *pb)
{
    char extra;
    return sscanf(text, "%31[^:]:%u-%31[^:]:%u%c", sa, pa, sb, pb, &extra) == 4 ? 0 : -1;
}

int myri_fabric_setup(myri_ctx_t *ctx, const md_card_table_t *cards)
{
    names_t *sw = calloc(1, sizeof(*sw));
    myri_fabric_t *fab = calloc(1, sizeof(*fab));
    myri_fabric_item_t *items = NULL;
    myri_peer_entry_t *pe = NULL;
    size_t nitems = 0;
    int rc = MD_OK;
    char linkbuf[512], *save = NULL;

    items = calloc((size_t)ctx->base.world_size + 256, sizeof(*items));
    pe = calloc((size_t)ctx->base.world_size, sizeof(*pe));
    if (sw == NULL || fab == NULL || items == NULL || pe == NULL) {
        rc = MD_ERR_NO_MEMORY;
        goto out;
    }
    /* Switch ids: every name, sorted, so that all ranks agree. */
    for (int32_t r = 0; r < ctx->base.world_size; r++) {
        const myri_card_t *c = card_of(cards, r);
        if (c != NULL && name_id(sw, c->sw) < 0) {
            rc = MD_ERR_CONFIG;
            goto out;
        }
    }
    snprintf(linkbuf, sizeof(linkbuf), "%s", ctx->links);
    for (char *tok = strtok_r(linkbuf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char a[32], b[32];
        unsigned pa, pb;
        if (parse_link(tok, a, &pa, b, &pb) != 0 || pa >= MYRI_SWITCH_PORTS ||
            pb >= MYRI_SWITCH_PORTS) {
            MYRI_LOG(ctx, MD_LOG_ERROR, "links: '%s' is not <switch>:<port>-<switch>:<port> with "
                     "ports below %d", tok, MYRI_SWITCH_PORTS);
            rc = MD_ERR_CONFIG;
            goto out;
        }
        name_id(sw, a);
        name_id(sw, b);
    }
    qsort(sw->n, sw->count, sizeof(sw->n[0]), cmp_name);

    for (int32_t r = 0; r < ctx->base.world_size; r++) {
        const myri_card_t *c = card_of(cards, r);
        if (c == NULL)
            continue;
        myri_fabric_item_t it = { .kind = MYRI_FAB_ATTACH, .sw_a = (uint16_t)name_id(sw, c->sw),
                                  .port_a = c->port, .ip = c->ip, .udp_port = c->udp_port };
        uint16_t s;
        uint8_t p;
        struct sockaddr_in addr = { .sin_family = AF_INET, .sin_port = c->udp_port };
        addr.sin_addr.s_addr = c->ip;
        for (unsigned i = 0; i < fab->nattach; i++) {
            if (fab->attach[i].sw == it.sw_a && fab->attach[i].port == it.port_a &&
                (fab->attach[i].addr.sin_addr.s_addr != c->ip ||
                 fab->attach[i].addr.sin_port != c->udp_port)) {
                MYRI_LOG(ctx, MD_LOG_ERROR,
                         "two NICs claim switch %s port %u (rank %d among them): "
                         "give each node its own port=", c->sw, c->port, r);
                rc = MD_ERR_CONFIG;
                goto out;
            }
        }
        if (myri_fabric_find(fab, &addr, &s, &p) == MD_OK && (s != it.sw_a || p != it.port_a)) {
            MYRI_LOG(ctx, MD_LOG_ERROR, "rank %d's NIC is plugged into two switch ports", r);
            rc = MD_ERR_CONFIG;
            goto out;
        }
        myri_fabric_add(fab, &it);
        items[nitems++] = it;
    }
    snprintf(linkbuf, sizeof(linkbuf), "%s", ctx->links);
    for (char *tok = strtok_r(linkbuf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char a[32], b[32];
        unsigned pa, pb;
        parse_link(tok, a, &pa, b, &pb);
        myri_fabric_item_t it = { .kind = MYRI_FAB_LINK, .sw_a = (uint16_t)name_id(sw, a),
                                  .port_a = (uint8_t)pa, .sw_b = (uint16_t)name_id(sw, b),
                                  .port_b = (uint8_t)pb };
        myri_fabric_add(fab, &it);
        items[nitems++] = it;
    }
    if ((rc = myri_gam_fabric(ctx->gam, items, nitems)) != NIC_OK) {
        MYRI_LOG(ctx, MD_LOG_ERROR, "the NIC refused the fabric description: %s",
                 md_status_string(rc));
        goto out;
    }

    const myri_card_t *mine = &ctx->card;
    uint16_t my_sw = (uint16_t)name_id(sw, mine->sw);
    for (int32_t r = 0; r < ctx->base.world_size; r++) {
        const myri_card_t *c = card_of(cards, r);
        if (!ctx->base.serves[r])
            continue;
        if (c == NULL) {
            MYRI_LOG(ctx, MD_LOG_ERROR, "rank %d is to be reached over myri but published no "
                     "myri card", r);
            rc = MD_ERR_NO_ROUTE;
            goto out;
        }
        int len = myri_fabric_route(fab, my_sw, mine->port, (uint16_t)name_id(sw, c->sw),
                                    c->port, pe[r].route);
        if (len < 0) {
            MYRI_LOG(ctx, MD_LOG_ERROR, "no route of at most %d hops from switch %s port %u to "
                     "rank %d (switch %s port %u): check links=", MYRI_MAX_HOPS, mine->sw,
                     mine->port, r, c->sw, c->port);
            rc = MD_ERR_NO_ROUTE;
            goto out;
        }
        pe[r].route_len = (uint8_t)len;
        pe[r].ep_id = c->ep_id;
        pe[r].valid = 1;
    }
    rc = myri_gam_set_peers(ctx->gam, 0, (uint32_t)ctx->base.world_size, pe);
    if (rc != NIC_OK)
        MYRI_LOG(ctx, MD_LOG_ERROR, "loading routes into the NIC failed: %s", md_status_string(rc));
out:
    free(sw);
    free(fab);
    free(items);
    free(pe);
    return rc;
}
