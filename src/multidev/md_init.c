/*
 * md_init.c - bringing a multidevice up and down (P1 §3.2).
 *
 *   1. read this node's configuration (MULTIDEV_CONFIG) or take the default
 *   2. learn which rank runs on which node (one allgather of node names)
 *   3. load the device list and build the connection table
 *   4. init the subdevices, exchange cards, connect, ready (md_wireup.c)
 *
 * Each step ends in an agreement among all ranks, so an error anywhere ends
 * md_init everywhere with a message rather than a hang.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "md_core.h"
#include "md_log.h"
#include "md_fail.h"
#include "md_fwd.h"
#include "md_pool.h"
#include "md_thread.h"
#include "md_tun.h"

static void md_copy_name(char *dst, const char *src)
{
    size_t i = 0;

    for (; src[i] != '\0' && i < MD_NAME_MAX - 1; i++) {
        char c = src[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                 (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
        dst[i] = ok ? c : '_';
    }
    dst[i] = '\0';
}

static int md_config_load(md_t *md, const md_init_params_t *p)
{
    const char *path = p->config_path, *name = p->node_name;
    char file[4096], err[MD_NODECONF_ERR_MAX];

    if ((path == NULL && md_tun_env_text("MULTIDEV_CONFIG", &path, md_log_say_error) < 0) ||
        (name == NULL && md_tun_env_text("MULTIDEV_NODE", &name, md_log_say_error) < 0))
        return MD_ERR_CONFIG;
    if (name != NULL && *name != '\0')
        snprintf(md->node_name, MD_NAME_MAX, "%s", name);
    if (path == NULL || *path == '\0')
        return MD_OK;

    if (md_nodeconf_locate("MULTIDEV_CONFIG", path, md->node_name, MD_NAME_MAX, file,
                           sizeof(file), err, sizeof(err)) != 0 ||
        md_nodeconf_parse_file(file, &md->conf, err, sizeof(err)) != 0) {
        md_log_error("%s", err);
        return MD_ERR_CONFIG;
    }
    if (md->node_name[0] != '\0' && strcmp(md->node_name, md->conf->node) != 0) {
        md_log_error("%s is the configuration of node %s, but this process "
                     "runs as node %s (MULTIDEV_NODE)", file, md->conf->node,
                     md->node_name);
        return MD_ERR_CONFIG;
    }
    snprintf(md->node_name, MD_NAME_MAX, "%s", md->conf->node);
    md_log_info("configuration %s for node %s", file, md->node_name);
    return MD_OK;
}

static int md_seq_setup(md_t *md)
{
    if (md_fail_setup(md) != MD_OK)
        return MD_ERR_NO_MEMORY;
    md->send_seq = calloc((size_t)md->size, sizeof(uint64_t));
    md->recv_seq = calloc((size_t)md->size, sizeof(uint64_t));
    md->ordered_node = calloc((size_t)md->num_nodes, 1);
    if (!md->send_seq || !md->recv_seq || !md->ordered_node)
        return MD_ERR_NO_MEMORY;
    /* Arrivals are checked against the sender's sequence when they may
     * come on several subdevices, or forwarded (relays and subdevices may
     * reorder forwarded messages among themselves). */
    for (int32_t n = 0; n < md->num_nodes; n++) {
        uint32_t m = md->routes[n].arrive_mask;
        md->ordered_node[n] = (m & (m - 1)) != 0 ||
            (md->fwd_index >= 0 && (m & (1u << md->fwd_index)));
    }
    return MD_OK;
}

static void md_teardown(md_t *md)
{
    /* A subdevice that drains in its finalize still hands arrivals up; a
     * system message among them (a forwarding acknowledgement to pass on)
     * must not send through a subdevice finalized before it.  Every rank
     * has passed finalize's barrier, so nothing waits for such messages
     * any more: from here they are dropped, and subdevice i takes no send
     * once its finalize begins. */
    md->tearing_down = 1;
    for (int i = md->devs_initialised - 1; i >= 0; i--) {
        md_subdev_t *sd = md_sd(md, i);
        int rc;

        md->devs_initialised = i;
        rc = sd->ops->finalize(sd);
        if (rc != MD_OK)
            md_log_warn("subdevice %s: finalize: %s", sd->name,
                        md_status_string(rc));
    }
    md->devs_initialised = 0;
    md_anyq_free_all(md);
    md_fwd_free(md);
    md_fail_free(md);
    free(md->wild);
    md_pool_drain();
    md_devlist_unload(md);
    if (md->conf != NULL)
        md_nodeconf_free(md->conf);
    md_nodes_free(md);
    free(md->routes);
    free(md->send_seq);
    free(md->recv_seq);
    free(md->ordered_node);
    memset(md->job_secret, 0, sizeof(md->job_secret));
    __asm__ __volatile__("" ::: "memory");   /* keep the clearing */
    free(md);
}

/* What md_init reads of the environment itself (the other parts read
 * theirs in their set-up): MD_OK, or MD_ERR_CONFIG after an error line. */
static int md_init_env(md_t *md, const md_init_params_t *p, const char **module_path)
{
    long long stats;

    if (md_log_init(md->rank) != 0 ||
        md_tun_env_num("MULTIDEV_STATS", &stats, md_log_say_error) < 0)
        return MD_ERR_CONFIG;
    md->print_stats = (int)stats;
    *module_path = p->module_path;
    if (*module_path == NULL &&
        md_tun_env_text("MULTIDEV_MODULE_PATH", module_path, md_log_say_error) < 0)
        return MD_ERR_CONFIG;
    /* a misspelt variable would change nothing: say so, once per job */
    if (md->rank == 0)
        md_tun_check_environ(md_log_say_warning);
    return MD_OK;
}

/* A failed md_init leaves nothing behind: its subdevices' finalize removes
 * what their init made (shm segments, the NIC firmware it started, its own
 * firmware's files).  When every rank knows of the failure (an agreement
 * failed), none returns before all have done so: a launcher kills the
 * whole job as soon as the first rank exits, and a rank killed before its
 * teardown would leave its shm segment in /dev/shm.  A failure of this rank
 * alone returns at once (the others went on and will not come). */
static void md_init_abandon(md_t *md)
{
    md_bootstrap_t bs = md->bootstrap;
    int everywhere = md->failed_everywhere;

    md_teardown(md);
    if (everywhere && bs.barrier != NULL && bs.barrier(bs.ctx) != 0)
        md_log_warn("the launcher's barrier after a failed start-up failed");
}

int md_init(const md_init_params_t *p, md_t **md_p)
{
    const char *module_path = NULL;
    md_t *md;
    int rc, local;

    *md_p = NULL;
    if (p == NULL || p->world_size <= 0 || p->world_rank < 0 ||
        p->world_rank >= p->world_size || p->bootstrap.allgather == NULL)
        return MD_ERR_INVALID;
    md = calloc(1, sizeof(*md));
    if (md == NULL)
        return MD_ERR_NO_MEMORY;
    md->rank = p->world_rank;
    md->size = p->world_size;
    md->bootstrap = p->bootstrap;
    md->fwd_index = -1;
    md_copy_name(md->job_id, p->job_id ? p->job_id : "job");
    md_host_setup(md);

    local = md_init_env(md, p, &module_path);
    if (local == MD_OK)
        local = md_config_load(md, p);
    rc = md_nodes_setup(md, p);
    rc = md_agree(md, &md->bootstrap, local != MD_OK ? local : rc,
                  "reading the node configuration");
    if (rc != MD_OK)
        goto err;

    local = md_secret_setup(md);
    if (local == MD_OK)
        local = md_devlist_load(md, module_path);
    if (local == MD_OK)
        local = md_fwd_setup(md);
    if (local == MD_OK && md_fwd_conf_needs_receiver(md->conf)) {
        md->fwd_index = md->devs.num;
        local = md_devlist_add_builtin(md, &md_fwd_recv_ops);
    }
    if (local == MD_OK)
        local = md_conntab_build(md);
    if (local == MD_OK)
        local = md_seq_setup(md);
    if (local == MD_OK)
        local = md_thread_setup(md);
    if (local == MD_OK)
        local = md_idle_setup(md);
    rc = md_agree(md, &md->bootstrap, local, "loading the device list");
    if (rc != MD_OK)
        goto err;

    rc = md_wireup(md, &md->bootstrap);
    if (rc == MD_OK)
        rc = md_thread_start(md);
    if (rc != MD_OK)
        goto err;
    md_conntab_print(md);
    *md_p = md;
    return MD_OK;

err:
    md_init_abandon(md);
    return rc;
}

int md_finalize(md_t *md)
{
    int rc = MD_OK;

    if (md == NULL)
        return MD_OK;
    md_thread_stop(md);
    /* sends still pushed back by a subdevice: give them a bounded chance */
    for (int spins = 0; md->pending.head != NULL && spins < 1000000; spins++)
        if (md_progress(md) < 0)
            break;
    if (md->pending.head != NULL)
        md_log_warn("finalize with sends that never left: they are dropped");
    md_fwd_ack_finish(md);
    md_anyq_drain_cancels(md);
    if (md->print_stats)
        md_print_stats(md, stderr);
    if (md->bootstrap.barrier != NULL && md->bootstrap.barrier(md->bootstrap.ctx) != 0)
        rc = MD_ERR_IO;
    md_teardown(md);
    return rc;
}

int md_comm_create(md_t *md, int32_t size, const int32_t *world_ranks,
                   md_comm_t **comm_p)
{
    md_comm_t *comm = calloc(1, sizeof(*comm));

    if (comm == NULL || (comm->members = calloc((size_t)(md->size + 7) / 8, 1)) == NULL) {
        free(comm);
        return MD_ERR_NO_MEMORY;
    }
    for (int32_t i = 0; i < size; i++) {
        if (world_ranks[i] < 0 || world_ranks[i] >= md->size) {
            free(comm->members);
            free(comm);
            return MD_ERR_INVALID;
        }
        comm->subdev_mask |= md_conntab_arrive_mask(md, world_ranks[i]);
        comm->members[world_ranks[i] / 8] |= (uint8_t)(1u << (world_ranks[i] % 8));
    }
    *comm_p = comm;
    return MD_OK;
}

void md_comm_free(md_t *md, md_comm_t *comm)
{
    (void)md;
    if (comm != NULL)
        free(comm->members);
    free(comm);
}
