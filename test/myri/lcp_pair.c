/* lcp_pair.c - emulated nodes in one process for the LCP tests. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lcp_pair.h"
#include "test_job.h"

int lcp_pair_start(lcp_pair_t *p, const lcp_pair_opts_t *o)
{
    nic_fw_config_t cfg;
    int rc;

    memset(p, 0, sizeof(*p));
    p->n = o->n;
    p->topo = o->topo;
    snprintf(p->rundir, sizeof(p->rundir), "/tmp/lcp-XXXXXX");
    if (mkdtemp(p->rundir) == NULL)
        return -1;
    for (int i = 0; i < o->n; i++) {
        char node[16];
        char addr[64];
        snprintf(node, sizeof(node), "t%d", i);
        nic_attach_opts_t ao = { .node = node, .nic = "myri0", .pers = "myri",
                                 .rundir = p->rundir, .start = o->nicd || o->inproc,
                                 .inproc = o->inproc };
        int own_thread = !o->nicd && !o->inproc;
        if (own_thread) {
            nic_fw_config_defaults(&cfg, NULL);
            cfg.node = node;
            cfg.nic = "myri0";
            cfg.pers = "myri";
            cfg.rundir = p->rundir;
            cfg.fault = o->fault;
            cfg.fault.seed = o->fault.seed + (uint64_t)i * 7919;
            if ((rc = nic_fw_thread_start(&cfg, &p->node[i].fw)) != NIC_OK)
                return rc;
        }
        if ((rc = nic_host_attach(&ao, &p->node[i].h)) != NIC_OK)
            return rc;
        if (own_thread) {
            nic_fw_thread_addr(p->node[i].fw, addr, sizeof(addr));
            nic_addr_parse(addr, &p->node[i].addr);
        } else {
            p->node[i].addr.sin_family = AF_INET;
            p->node[i].addr.sin_addr.s_addr = p->node[i].h->wire_ip;
            p->node[i].addr.sin_port = p->node[i].h->wire_port;
        }
        myri_gam_params_t gp = { .job = test_job(o->job[i] ? o->job[i] : 1), .my_vnn = i,
                                 .num_vnn = o->n, .credits = o->credits ? o->credits : 8 };
        if ((rc = myri_gam_open(p->node[i].h, &gp, &p->node[i].g)) != NIC_OK)
            return rc;
        if (o->topo == LCP_TOPO_TWO_SWITCHES) {
            p->node[i].sw = (uint16_t)(i % 2);
            p->node[i].port = (uint8_t)(i % 2 ? 5 + i / 2 : 2 + i / 2);
        } else {
            p->node[i].sw = 0;
            p->node[i].port = (uint8_t)(1 + i);
        }
    }
    return lcp_pair_wire(p);
}

int lcp_pair_wire(lcp_pair_t *p)
{
    myri_fabric_item_t items[LCP_PAIR_MAX + 1];
    int ni = 0, rc;

    memset(&p->fab, 0, sizeof(p->fab));
    for (int i = 0; i < p->n; i++)
        items[ni++] = (myri_fabric_item_t){ .kind = MYRI_FAB_ATTACH, .sw_a = p->node[i].sw,
                                            .port_a = p->node[i].port,
                                            .ip = p->node[i].addr.sin_addr.s_addr,
                                            .udp_port = p->node[i].addr.sin_port };
    if (p->topo == LCP_TOPO_TWO_SWITCHES)
        items[ni++] = (myri_fabric_item_t){ .kind = MYRI_FAB_LINK, .sw_a = 0, .port_a = 7,
                                            .sw_b = 1, .port_b = 0 };
    for (int k = 0; k < ni; k++)
        myri_fabric_add(&p->fab, &items[k]);
    for (int i = 0; i < p->n; i++) {
        myri_peer_entry_t pe[LCP_PAIR_MAX];
        memset(pe, 0, sizeof(pe));
        if ((rc = myri_gam_fabric(p->node[i].g, items, (size_t)ni)) != NIC_OK)
            return rc;
        for (int j = 0; j < p->n; j++) {
            int len = myri_fabric_route(&p->fab, p->node[i].sw, p->node[i].port, p->node[j].sw,
                                        p->node[j].port, pe[j].route);
            if (len < 0)
                return len;
            pe[j].route_len = (uint8_t)len;
            pe[j].ep_id = myri_gam_ep(p->node[j].g)->id;
            pe[j].valid = 1;
        }
        if ((rc = myri_gam_set_peers(p->node[i].g, 0, (uint32_t)p->n, pe)) != NIC_OK)
            return rc;
    }
    return 0;
}

void lcp_pair_stop(lcp_pair_t *p)
{
    for (int i = 0; i < p->n; i++) {
        myri_gam_close(p->node[i].g);
        if (p->node[i].fw == NULL && p->node[i].h != NULL && p->node[i].h->inproc == NULL)
            nic_host_shutdown(p->node[i].h);   /* a nicd: do not let it linger */
        nic_host_detach(p->node[i].h);
        if (p->node[i].fw != NULL)
            nic_fw_thread_stop(p->node[i].fw);
    }
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", p->rundir);
    if (system(cmd) != 0) {
        /* a leftover temp directory is harmless */
    }
}

int lcp_pair_poll(lcp_pair_t *p)
{
    int ev = 0;
    for (int i = 0; i < p->n; i++) {
        int rc = myri_gam_poll(p->node[i].g, 64);
        if (rc > 0)
            ev += rc;
    }
    return ev;
}

long lcp_pair_counter(lcp_pair_t *p, int i, const char *name)
{
    char text[4096], key[64];
    const char *at;

    if (nic_host_status(p->node[i].h, text, sizeof(text)) != NIC_OK)
        return -1;
    snprintf(key, sizeof(key), " %s ", name);
    at = strstr(text, key);
    return at ? strtol(at + strlen(key), NULL, 10) : -1;
}
