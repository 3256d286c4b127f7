/*
 * shm_segment.c - the shared-memory segment each rank owns.
 *
 * Layout: shm_seg_hdr_t with a table of rings, then one ring per local
 * sender (self included), each line-aligned.  The owner creates it in
 * init (O_EXCL: a name already taken is an error, never shared), binds it
 * to its NUMA node with hwloc and touches every page so that the fast
 * path never faults; peers map it in connect.  The name goes as soon as
 * it is no longer needed: the last local peer to map a segment unlinks
 * it (hdr->mapped counts them), and ready (after every rank connected)
 * and finalize unlink whatever is left.  So no crash after start-up can
 * leave a segment behind in /dev/shm, and a crash during start-up leaves
 * only the segments of ranks that did not finish connecting, which the
 * survivors' finalize removes.
 *
 * Names: /mdshm-<job>-<node>-<rank>-<hash>.  Job id and node name are
 * reduced to [A-Za-z0-9._] and shortened; the hash of the exact job id
 * and node name keeps distinct jobs and emulated nodes apart even when
 * their reduced spellings meet.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <hwloc.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shm_impl.h"

#define SHM_NAME_PART_MAX 48

static void shm_name_part(char *out, const char *in)
{
    size_t n = 0;

    for (; in != NULL && *in != '\0' && n < SHM_NAME_PART_MAX; in++) {
        char c = *in;
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                 (c >= '0' && c <= '9') || c == '.' || c == '_';
        out[n++] = ok ? c : '_';
    }
    out[n] = '\0';
}

static uint32_t shm_fnv1a(uint32_t h, const char *s)
{
    for (; s != NULL && *s != '\0'; s++) {
        h ^= (uint8_t)*s;
        h *= 16777619u;
    }
    return h;
}

int shm_segment_name(char *out, size_t outlen, const char *job_id,
                     const char *node_name, int32_t rank)
{
    char job[SHM_NAME_PART_MAX + 1], node[SHM_NAME_PART_MAX + 1];
    uint32_t h = shm_fnv1a(2166136261u, job_id);
    int n;

    h = shm_fnv1a(h ^ 0xff, node_name);
    shm_name_part(job, job_id);
    shm_name_part(node, node_name);
    n = snprintf(out, outlen, "/mdshm-%s-%s-%d-%08x", job, node, (int)rank, h);
    return n > 0 && (size_t)n < outlen ? 0 : -1;
}

/* Binds [mem, mem+len) to the NUMA node(s) this process runs on.  Best
 * effort: a machine with one NUMA node, or a refusal, changes nothing. */
static void shm_segment_bind(shm_ctx_t *ctx, void *mem, size_t len)
{
    hwloc_topology_t topo;
    hwloc_bitmap_t cpus = NULL, nodes = NULL;

    if (hwloc_topology_init(&topo) != 0)
        return;
    hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_NONE);
    if (hwloc_topology_load(topo) != 0)
        goto out;
    if (hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE) <= 1) {
        SHM_DEBUG(ctx, "one NUMA node; segment left unbound");
        goto out;
    }
    cpus = hwloc_bitmap_alloc();
    nodes = hwloc_bitmap_alloc();
    if (cpus == NULL || nodes == NULL)
        goto out;
    /* A bound process: its binding; otherwise where it runs right now. */
    if (hwloc_get_cpubind(topo, cpus, HWLOC_CPUBIND_PROCESS) != 0 ||
        hwloc_bitmap_isincluded(hwloc_topology_get_complete_cpuset(topo), cpus))
        if (hwloc_get_last_cpu_location(topo, cpus, HWLOC_CPUBIND_THREAD) != 0)
            goto out;
    hwloc_cpuset_to_nodeset(topo, cpus, nodes);
    if (hwloc_set_area_membind(topo, mem, len, nodes, HWLOC_MEMBIND_BIND,
                               HWLOC_MEMBIND_BYNODESET) != 0) {
        SHM_DEBUG(ctx, "binding the segment to its NUMA node failed: %s",
                  strerror(errno));
    } else {
        char text[64];

        hwloc_bitmap_snprintf(text, sizeof(text), nodes);
        SHM_INFO(ctx, "segment bound to NUMA node(s) %s", text);
    }
out:
    hwloc_bitmap_free(cpus);
    hwloc_bitmap_free(nodes);
    hwloc_topology_destroy(topo);
}

static size_t shm_page_round(size_t n)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);

    return (n + page - 1) / page * page;
}

int shm_segment_create(shm_ctx_t *ctx, const char *job_id, const char *node_name)
{
    size_t refs_len = shm_align_line(sizeof(shm_seg_hdr_t) +
                                     (size_t)ctx->nlocal * sizeof(shm_seg_ring_ref_t));
    size_t hdr_len = refs_len + SHM_HELP_SLOTS * sizeof(shm_help_slot_t);
    size_t ring_len = shm_align_line(shm_ring_footprint(ctx->tun.ring_size));
    shm_seg_hdr_t *hdr;
    void *mem;
    int fd;

    if (shm_segment_name(ctx->seg_name, sizeof(ctx->seg_name), job_id,
                         node_name, ctx->world_rank) != 0) {
        SHM_ERROR(ctx, "segment name too long");
        return MD_ERR_INVALID;
    }
    ctx->seg_len = shm_page_round(hdr_len + (size_t)ctx->nlocal * ring_len);

    fd = shm_open(ctx->seg_name, O_CREAT | O_EXCL | O_RDWR, 0600);
    if (fd < 0) {
        int err = errno;

        if (err == EEXIST)
            SHM_ERROR(ctx, "segment %s already exists: another job with "
                      "job id '%s' runs on node '%s', or one crashed before "
                      "all ranks connected (remove /dev/shm%s)", ctx->seg_name,
                      job_id, node_name, ctx->seg_name);
        else
            SHM_ERROR(ctx, "cannot create segment %s: %s", ctx->seg_name,
                      strerror(err));
        return MD_ERR_IO;
    }
    ctx->seg_linked = 1;
    if (ftruncate(fd, (off_t)ctx->seg_len) != 0) {
        SHM_ERROR(ctx, "cannot size segment %s to %zu bytes: %s",
                  ctx->seg_name, ctx->seg_len, strerror(errno));
        close(fd);
        shm_segment_unlink(ctx);
        return MD_ERR_IO;
    }
    mem = mmap(NULL, ctx->seg_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (mem == MAP_FAILED) {
        SHM_ERROR(ctx, "cannot map segment %s (%zu bytes): %s",
                  ctx->seg_name, ctx->seg_len, strerror(errno));
        shm_segment_unlink(ctx);
        return MD_ERR_IO;
    }
    ctx->seg = mem;

    if (ctx->tun.numa_bind)
        shm_segment_bind(ctx, mem, ctx->seg_len);
    /* First touch after binding: pages come from the right node now, and
     * nobody page-faults on the fast path later. */
    memset(mem, 0, ctx->seg_len);

    hdr = mem;
    ctx->seg_hdr = hdr;
    hdr->magic = SHM_SEG_MAGIC;
    hdr->version = SHM_PROTO_VERSION;
    hdr->owner_world = ctx->world_rank;
    hdr->owner_pid = (int32_t)getpid();
    hdr->nrings = (uint32_t)ctx->nlocal;
    hdr->ring_size = ctx->tun.ring_size;
    hdr->help_slots = SHM_HELP_SLOTS;
    hdr->help_offset = refs_len;
    for (int32_t i = 0; i < ctx->nlocal; i++) {
        uint64_t off = hdr_len + (uint64_t)i * ring_len;

        hdr->ring[i].producer_world = ctx->peers[i].world;
        hdr->ring[i].offset = off;
        shm_ring_format((uint8_t *)mem + off, ctx->tun.ring_size);
        if (shm_ring_consumer_attach(&ctx->peers[i].in, (uint8_t *)mem + off) != 0)
            return MD_ERR_INVALID;
    }
    atomic_store_explicit(&hdr->state, SHM_SEG_ALIVE, memory_order_release);
    return MD_OK;
}

/* The ring the owner of hdr keeps for messages from world rank me. */
static void *shm_segment_ring_for(shm_seg_hdr_t *hdr, size_t seg_len, int32_t me)
{
    for (uint32_t i = 0; i < hdr->nrings; i++) {
        if (hdr->ring[i].producer_world != me)
            continue;
        if (hdr->ring[i].offset + sizeof(shm_ring_ctrl_t) > seg_len)
            return NULL;
        return (uint8_t *)hdr + hdr->ring[i].offset;
    }
    return NULL;
}

/* Eager limit and fragment size towards a peer: mine, but never more
 * than the peer's ring (its ring_size may differ from mine) takes. */
static void shm_segment_peer_limits(shm_ctx_t *ctx, shm_peer_t *peer)
{
    size_t max_rec = shm_ring_max_record(peer->out.size);

    peer->eager_limit = ctx->tun.eager_limit;
    if (peer->eager_limit > max_rec - sizeof(shm_msg_hdr_t))
        peer->eager_limit = max_rec - sizeof(shm_msg_hdr_t);
    peer->frag_size = ctx->tun.frag_size;
    if (peer->frag_size > max_rec - SHM_DATA_OFFSET)
        peer->frag_size = max_rec - SHM_DATA_OFFSET;
}

int shm_segment_map_peer(shm_ctx_t *ctx, shm_peer_t *peer, const shm_card_t *card)
{
    shm_seg_hdr_t *hdr;
    struct stat st;
    void *mem, *ring;
    int fd;

    if (peer->is_self) {
        peer->seg = NULL;          /* not mapped twice */
        peer->seg_hdr = ctx->seg_hdr;
        ring = shm_segment_ring_for(ctx->seg_hdr, ctx->seg_len, ctx->world_rank);
        if (ring == NULL || shm_ring_producer_attach(&peer->out, ring) != 0)
            return MD_ERR_INVALID;
        shm_segment_peer_limits(ctx, peer);
        return MD_OK;
    }
    fd = shm_open(card->seg_name, O_RDWR, 0);
    if (fd < 0) {
        SHM_ERROR(ctx, "cannot open segment %s of rank %d: %s",
                  card->seg_name, (int)peer->world, strerror(errno));
        return errno == ENOENT ? MD_ERR_PEER_FAILED : MD_ERR_IO;
    }
    if (fstat(fd, &st) != 0 || (uint64_t)st.st_size != card->seg_len) {
        SHM_ERROR(ctx, "segment %s of rank %d has %lld bytes, its card "
                  "says %llu", card->seg_name, (int)peer->world,
                  (long long)st.st_size, (unsigned long long)card->seg_len);
        close(fd);
        return MD_ERR_IO;
    }
    mem = mmap(NULL, card->seg_len, PROT_READ | PROT_WRITE,
               MAP_SHARED | MAP_POPULATE, fd, 0);
    close(fd);
    if (mem == MAP_FAILED) {
        SHM_ERROR(ctx, "cannot map segment %s of rank %d: %s",
                  card->seg_name, (int)peer->world, strerror(errno));
        return MD_ERR_IO;
    }
    peer->seg = mem;
    peer->seg_len = card->seg_len;
    hdr = mem;
    peer->seg_hdr = hdr;
    int peers_own = hdr->magic == SHM_SEG_MAGIC && hdr->version == SHM_PROTO_VERSION &&
                    hdr->owner_world == peer->world;
    uint32_t state = atomic_load_explicit(&hdr->state, memory_order_acquire);
    if (peers_own && state == SHM_SEG_FINALIZED) {
        /* It left while we connected: it failed start-up (another peer
         * died) and closed.  A peer failure, not a foreign segment. */
        SHM_ERROR(ctx, "rank %d closed its shm segment %s during start-up", (int)peer->world,
                  card->seg_name);
        return MD_ERR_PEER_FAILED;
    }
    if (!peers_own || state != SHM_SEG_ALIVE) {
        SHM_ERROR(ctx, "segment %s is not a live shm segment of rank %d "
                  "(version %u, owner %d)", card->seg_name, (int)peer->world,
                  hdr->version, (int)hdr->owner_world);
        return MD_ERR_INVALID;
    }
    ring = shm_segment_ring_for(hdr, peer->seg_len, ctx->world_rank);
    if (ring == NULL || shm_ring_producer_attach(&peer->out, ring) != 0) {
        SHM_ERROR(ctx, "rank %d keeps no ring for rank %d: the two "
                  "disagree on which ranks share their node",
                  (int)peer->world, (int)ctx->world_rank);
        return MD_ERR_CONFIG;
    }
    shm_segment_peer_limits(ctx, peer);
    /* The last of the owner's local peers to map the segment removes its
     * name; the mapping lives on. */
    if (atomic_fetch_add_explicit(&hdr->mapped, 1, memory_order_acq_rel) + 1 ==
            hdr->nrings - 1 &&
        shm_unlink(card->seg_name) != 0 && errno != ENOENT)
        SHM_WARN(ctx, "cannot remove segment %s: %s", card->seg_name,
                 strerror(errno));
    return MD_OK;
}

void shm_segment_unlink(shm_ctx_t *ctx)
{
    if (!ctx->seg_linked)
        return;
    if (shm_unlink(ctx->seg_name) != 0 && errno != ENOENT)
        SHM_WARN(ctx, "cannot remove segment %s: %s", ctx->seg_name,
                 strerror(errno));
    ctx->seg_linked = 0;
}

/* A start-up that failed: no rank of this job maps a segment any more, and
 * a local peer that was killed during it cannot remove its own.  The
 * first local rank to finalize removes every local peer's name (one that
 * is gone already is no error), so that /dev/shm is left as it was. */
void shm_segment_unlink_local(shm_ctx_t *ctx)
{
    char name[SHM_SEG_NAME_MAX];

    for (int32_t i = 0; ctx->peers != NULL && i < ctx->nlocal; i++) {
        if (ctx->peers[i].is_self ||
            shm_segment_name(name, sizeof(name), ctx->job_id, ctx->node_name,
                             ctx->peers[i].world) != 0)
            continue;
        if (shm_unlink(name) == 0)
            SHM_INFO(ctx, "start-up failed: removed segment %s of rank %d", name,
                     (int)ctx->peers[i].world);
    }
    shm_segment_unlink(ctx);
}

void shm_segment_destroy(shm_ctx_t *ctx)
{
    for (int32_t i = 0; ctx->peers != NULL && i < ctx->nlocal; i++) {
        shm_peer_t *peer = &ctx->peers[i];

        if (peer->seg != NULL)
            munmap(peer->seg, peer->seg_len);
        peer->seg = NULL;
        peer->seg_hdr = NULL;
    }
    if (ctx->seg_hdr != NULL)
        atomic_store_explicit(&ctx->seg_hdr->state, SHM_SEG_FINALIZED,
                              memory_order_release);
    shm_segment_unlink(ctx);
    if (ctx->seg != NULL)
        munmap(ctx->seg, ctx->seg_len);
    ctx->seg = NULL;
    ctx->seg_hdr = NULL;
}
