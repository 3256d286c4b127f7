/* sci_att.c - the bridge's two address translation tables.
 *
 * Upstream (exports): 4 kB pages of incoming "virtual PCI" space, each
 * pointing at any page of a registered region, so an exported segment may
 * be made of non-contiguous pages and start anywhere inside its first page.
 * Downstream (imports): 16 kB pages of the importer's window space, each
 * pointing at a remote bridge and an offset there.  Entry 0 of each table
 * is never handed out, so address 0 is never valid. */
#include "config.h"

#include <string.h>

#include "sci_fw.h"

/* First fit of n free entries, from the hint on, then from the start. */
static int att_find(uint32_t entries, uint32_t *hint, uint32_t n, uint32_t *first,
                    int (*is_free)(const void *tbl, uint32_t i), const void *tbl)
{
    for (int pass = 0; pass < 2; pass++) {
        uint32_t i = pass == 0 ? *hint : 1, run = 0, start = i;
        for (; i < entries; i++) {
            if (!is_free(tbl, i)) {
                run = 0;
                start = i + 1;
                continue;
            }
            if (++run == n) {
                *first = start;
                *hint = start + n;
                return NIC_OK;
            }
        }
    }
    return NIC_ERR_NO_RESOURCE;
}

static int up_free(const void *tbl, uint32_t i)
{
    return ((const sci_up_t *)tbl)[i].ep == NULL;
}

static int down_free(const void *tbl, uint32_t i)
{
    return ((const sci_down_t *)tbl)[i].ep == NULL;
}

int sci_up_alloc(sci_bridge_t *b, uint32_t n, uint32_t *first)
{
    if (n == 0 || n >= b->up_entries)
        return NIC_ERR_INVALID;
    if (b->up_hint == 0 || b->up_hint >= b->up_entries)
        b->up_hint = 1;
    return att_find(b->up_entries, &b->up_hint, n, first, up_free, b->up);
}

void sci_up_free_seg(sci_bridge_t *b, uint32_t head)
{
    uint32_t n = b->up[head].npages;
    for (uint32_t i = head; i < head + n && i < b->up_entries; i++) {
        memset(&b->up[i], 0, sizeof(b->up[i]));
        b->up_used--;
    }
}

void sci_up_free_ep(sci_bridge_t *b, nic_fw_ep_t *ep)
{
    for (uint32_t i = 1; i < b->up_entries; i++)
        if (b->up[i].ep == ep && b->up[i].head == i)
            sci_up_free_seg(b, i);
}

uint8_t *sci_up_page(sci_bridge_t *b, uint64_t addr, uint32_t n, uint32_t access,
                     uint32_t *skip, uint32_t *got, sci_up_t **ep_entry)
{
    uint64_t page = addr / SCI_UP_PAGE;
    uint32_t in = (uint32_t)(addr % SCI_UP_PAGE), from, to;
    sci_up_t *e;
    uint8_t *p;

    *skip = *got = 0;
    if (page == 0 || page >= b->up_entries)
        return NULL;
    e = &b->up[page];
    if (e->ep == NULL)
        return NULL;
    from = in > e->lo ? in : e->lo;
    to = in + n < e->hi ? in + n : e->hi;
    if (from >= to)
        return NULL;
    p = nic_fw_mr_lookup(e->ep, e->key, e->off + from, to - from, access);
    if (p == NULL)
        return NULL;
    *skip = from - in;
    *got = to - from;
    if (ep_entry != NULL)
        *ep_entry = e;
    return p;
}

int sci_up_check(sci_bridge_t *b, uint64_t addr, uint64_t len, uint32_t flags, uint32_t tag,
                 nic_fw_ep_t *owner)
{
    while (len > 0) {
        uint64_t page = addr / SCI_UP_PAGE;
        uint32_t in = (uint32_t)(addr % SCI_UP_PAGE);
        uint64_t n = SCI_UP_PAGE - in < len ? SCI_UP_PAGE - in : len;
        const sci_up_t *e;

        if (page == 0 || page >= b->up_entries || b->up[page].ep == NULL)
            return NIC_ERR_INVALID;
        e = &b->up[page];
        if (in < e->lo || in + n > e->hi)
            return NIC_ERR_INVALID;
        if ((e->flags & flags) != flags || (tag != 0 && e->tag != tag) ||
            (owner != NULL && e->ep != owner))
            return NIC_ERR_PROTECTION;
        addr += n;
        len -= n;
    }
    return NIC_OK;
}

int sci_down_alloc(sci_bridge_t *b, uint32_t n, uint32_t *first)
{
    if (n == 0 || n >= SCI_DOWN_ENTRIES)
        return NIC_ERR_INVALID;
    if (b->down_hint == 0 || b->down_hint >= SCI_DOWN_ENTRIES)
        b->down_hint = 1;
    return att_find(SCI_DOWN_ENTRIES, &b->down_hint, n, first, down_free, b->down);
}

void sci_down_free_imp(sci_bridge_t *b, uint32_t head)
{
    uint32_t n = b->down[head].npages;
    for (uint32_t i = head; i < head + n && i < SCI_DOWN_ENTRIES; i++) {
        memset(&b->down[i], 0, sizeof(b->down[i]));
        b->down_used--;
    }
}

void sci_down_free_ep(sci_bridge_t *b, nic_fw_ep_t *ep)
{
    for (uint32_t i = 1; i < SCI_DOWN_ENTRIES; i++)
        if (b->down[i].ep == ep && b->down[i].head == i)
            sci_down_free_imp(b, i);
}

sci_down_t *sci_down_lookup(sci_bridge_t *b, nic_fw_ep_t *ep, uint64_t addr, uint32_t *avail)
{
    uint64_t page = addr / SCI_DOWN_PAGE;
    uint32_t in = (uint32_t)(addr % SCI_DOWN_PAGE);
    sci_down_t *d;

    if (page == 0 || page >= SCI_DOWN_ENTRIES)
        return NULL;
    d = &b->down[page];
    if (d->ep != ep || in >= d->valid)
        return NULL;
    *avail = d->valid - in;
    return d;
}

int sci_down_check(sci_bridge_t *b, nic_fw_ep_t *ep, uint64_t addr, uint64_t len, uint32_t tag)
{
    while (len > 0) {
        uint32_t avail;
        sci_down_t *d = sci_down_lookup(b, ep, addr, &avail);
        uint64_t n;

        if (d == NULL)
            return NIC_ERR_INVALID;
        if (tag != 0 && d->tag != tag)
            return NIC_ERR_PROTECTION;
        n = avail < len ? avail : len;
        if (n < len && avail != SCI_DOWN_PAGE - addr % SCI_DOWN_PAGE)
            return NIC_ERR_INVALID;   /* the import ends inside this page */
        addr += n;
        len -= n;
    }
    return NIC_OK;
}
