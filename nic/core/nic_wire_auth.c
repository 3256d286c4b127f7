/* nic_wire_auth.c - the wire's envelope: job keys, the MAC over every
 * datagram, and the replay windows of the senders (see nic_wire.h).
 *
 * The MAC is Poly1305 with a one-time key: the first 32 bytes of the
 * XChaCha20 key stream under the job's wire key and the 24-byte nonce
 * sender | counter | 0.  That is the construction of ChaCha20-Poly1305
 * without the encryption (the frames are not secret, only authentic), and
 * it takes the frame in pieces, as the send paths have it. */
#include "config.h"

#include <sodium.h>
#include <stdlib.h>
#include <string.h>

#include "nic_log.h"
#include "nic_status.h"
#include "nic_wire.h"

#define NIC_WIRE_WINDOW (64u * NIC_WIRE_REPLAY_WORDS)
#define NIC_WIRE_PROBE  16u       /* sender slots looked at per lookup */

_Static_assert((NIC_WIRE_MAX_SENDERS & (NIC_WIRE_MAX_SENDERS - 1)) == 0,
               "the sender table is indexed by a mask");

int nic_wire_auth_init(nic_wire_t *w)
{
    if (sodium_init() < 0) {
        nic_log_error("wire: the crypto library (libsodium) cannot start");
        return NIC_ERR_IO;
    }
    w->senders = calloc(NIC_WIRE_MAX_SENDERS, sizeof(*w->senders));
    if (w->senders == NULL)
        return NIC_ERR_NO_MEMORY;
    do {
        randombytes_buf(&w->sender_id, sizeof(w->sender_id));
    } while (w->sender_id == 0);
    w->tx_counter = 0;
    return NIC_OK;
}

void nic_wire_auth_fini(nic_wire_t *w)
{
    sodium_memzero(w->keys, sizeof(w->keys));
    free(w->senders);
    w->senders = NULL;
    w->last_key = NULL;
    w->last_sender = NULL;
}

/* --- job keys --- */

static nic_wire_key_t *key_find(nic_wire_t *w, uint64_t tag)
{
    if (w->last_key != NULL && w->last_key->tag == tag && tag != 0)
        return w->last_key;
    for (unsigned i = 0; i < NIC_WIRE_MAX_JOBS; i++)
        if (w->keys[i].tag == tag && tag != 0)
            return w->last_key = &w->keys[i];
    return NULL;
}

int nic_wire_job_add(nic_wire_t *w, const nic_job_t *job)
{
    nic_wire_key_t *k = key_find(w, job->tag);

    if (k != NULL) {
        k->refs++;
        return NIC_OK;
    }
    for (unsigned i = 0; i < NIC_WIRE_MAX_JOBS; i++)
        if (w->keys[i].tag == 0) {
            k = &w->keys[i];
            k->tag = job->tag;
            k->refs = 1;
            nic_job_wire_key(job, k->key);
            return NIC_OK;
        }
    nic_log_warn("wire: %u jobs have endpoints here already; job %016llx refused",
                 NIC_WIRE_MAX_JOBS, (unsigned long long)job->tag);
    return NIC_ERR_NO_RESOURCE;
}

void nic_wire_job_drop(nic_wire_t *w, uint64_t tag)
{
    nic_wire_key_t *k = key_find(w, tag);

    if (k == NULL || --k->refs > 0)
        return;
    sodium_memzero(k, sizeof(*k));
    w->last_key = NULL;
    for (unsigned i = 0; w->senders != NULL && i < NIC_WIRE_MAX_SENDERS; i++)
        if (w->senders[i].job == tag)
            memset(&w->senders[i], 0, sizeof(w->senders[i]));
    w->last_sender = NULL;
}

unsigned nic_wire_job_refs(const nic_wire_t *w, uint64_t tag)
{
    for (unsigned i = 0; i < NIC_WIRE_MAX_JOBS; i++)
        if (w->keys[i].tag == tag && tag != 0)
            return w->keys[i].refs;
    return 0;
}

unsigned nic_wire_job_count(const nic_wire_t *w)
{
    unsigned n = 0;
    for (unsigned i = 0; i < NIC_WIRE_MAX_JOBS; i++)
        n += w->keys[i].tag != 0;
    return n;
}

unsigned nic_wire_sender_count(const nic_wire_t *w)
{
    unsigned n = 0;
    for (unsigned i = 0; w->senders != NULL && i < NIC_WIRE_MAX_SENDERS; i++)
        n += w->senders[i].job != 0;
    return n;
}

/* --- the MAC --- */

static void wire_mac(const uint8_t key[NIC_JOB_KEY_LEN], const nic_wire_env_t *env,
                     const struct iovec *iov, int iovcnt, uint8_t mac[NIC_WIRE_MAC_LEN])
{
    uint8_t nonce[crypto_stream_xchacha20_NONCEBYTES] = { 0 };
    uint8_t one_time[crypto_onetimeauth_KEYBYTES];
    crypto_onetimeauth_state st;

    _Static_assert(sizeof(nonce) >= 2 * sizeof(uint64_t), "nonce holds sender and counter");
    memcpy(nonce, &env->sender, sizeof(env->sender));
    memcpy(nonce + sizeof(env->sender), &env->counter, sizeof(env->counter));
    crypto_stream_xchacha20(one_time, sizeof(one_time), nonce, key);
    crypto_onetimeauth_init(&st, one_time);
    crypto_onetimeauth_update(&st, (const uint8_t *)env, sizeof(*env));
    for (int i = 0; i < iovcnt; i++)
        crypto_onetimeauth_update(&st, iov[i].iov_base, iov[i].iov_len);
    crypto_onetimeauth_final(&st, mac);
    sodium_memzero(one_time, sizeof(one_time));
}

int nic_wire_auth_seal(nic_wire_t *w, uint64_t job, nic_wire_env_t *env,
                       const struct iovec *iov, int iovcnt, uint8_t mac[NIC_WIRE_MAC_LEN])
{
    nic_wire_key_t *k = key_find(w, job);

    if (k == NULL) {
        w->st.tx_no_key++;
        return NIC_ERR_PROTECTION;
    }
    env->magic = NIC_WIRE_MAGIC;
    env->reserved = 0;
    env->job = job;
    env->sender = w->sender_id;
    env->counter = ++w->tx_counter;
    wire_mac(k->key, env, iov, iovcnt, mac);
    return NIC_OK;
}

/* --- replay windows --- */

static unsigned sender_hash(uint64_t job, uint64_t sender)
{
    uint64_t h = (job ^ (sender * 0x9e3779b97f4a7c15ull)) * 0xff51afd7ed558ccdull;
    return (unsigned)(h >> 32) & (NIC_WIRE_MAX_SENDERS - 1);
}

/* The sender's window, or NULL; *slot_p: where a new one would go (a free
 * slot, else the one heard from longest ago among those probed). */
static nic_wire_sender_t *sender_find(nic_wire_t *w, uint64_t job, uint64_t sender,
                                      nic_wire_sender_t **slot_p)
{
    nic_wire_sender_t *s = w->last_sender, *victim = NULL;
    unsigned h;

    if (s != NULL && s->job == job && s->sender == sender)
        return s;
    h = sender_hash(job, sender);
    for (unsigned i = 0; i < NIC_WIRE_PROBE; i++) {
        s = &w->senders[(h + i) & (NIC_WIRE_MAX_SENDERS - 1)];
        if (s->job == job && s->sender == sender)
            return w->last_sender = s;
        if (victim == NULL || (victim->job != 0 && (s->job == 0 || s->used < victim->used)))
            victim = s;
    }
    *slot_p = victim;
    return NULL;
}

static int window_test(const nic_wire_sender_t *s, uint64_t counter)
{
    uint64_t d;

    if (counter > s->top)
        return 1;
    d = s->top - counter;
    if (d >= NIC_WIRE_WINDOW)
        return 0;
    return !((s->seen[d / 64] >> (d % 64)) & 1);
}

static void window_take(nic_wire_sender_t *s, uint64_t counter)
{
    if (counter > s->top) {
        uint64_t shift = counter - s->top;
        if (shift >= NIC_WIRE_WINDOW) {
            memset(s->seen, 0, sizeof(s->seen));
        } else {
            /* bit k moves to bit k + shift */
            unsigned words = (unsigned)(shift / 64), bits = (unsigned)(shift % 64);
            for (int i = NIC_WIRE_REPLAY_WORDS - 1; i >= 0; i--) {
                uint64_t v = 0;
                if (i - (int)words >= 0) {
                    v = s->seen[i - words] << bits;
                    if (bits != 0 && i - (int)words - 1 >= 0)
                        v |= s->seen[i - words - 1] >> (64 - bits);
                }
                s->seen[i] = v;
            }
        }
        s->top = counter;
        s->seen[0] |= 1;
        return;
    }
    uint64_t d = s->top - counter;
    s->seen[d / 64] |= 1ull << (d % 64);
}

/* A drop of a kind not seen before on this wire is worth a line (it means
 * a stranger, a damaged link or a misconfigured job: a warning); later ones
 * are only counted (nicctl status).  Frames of a job with no endpoint here
 * are expected where jobs end (a peer's last acknowledgements and BYEs
 * cross the end of the job here), so they are said only at info level. */
static void drop_note(nic_wire_t *w, const uint64_t *counter, const struct sockaddr_in *from,
                      int level, const char *what)
{
    char a[64], me[64];

    if (*counter != 1 || level > nic_log_level)
        return;
    nic_addr_format(from, a, sizeof(a));
    nic_addr_format(&w->addr, me, sizeof(me));
    nic_log_emit(level, "wire %s: dropped a datagram from %s: %s; further ones are counted "
                 "(nicctl status, 'auth:')", me, a, what);
}

static int same_addr(const struct sockaddr_in *a, const struct sockaddr_in *b)
{
    return a->sin_addr.s_addr == b->sin_addr.s_addr && a->sin_port == b->sin_port;
}

uint8_t *nic_wire_auth_open(nic_wire_t *w, const struct sockaddr_in *from, uint8_t *dgram,
                            size_t len, uint64_t *job, size_t *frame_len)
{
    nic_wire_env_t env;
    nic_wire_key_t *k;
    nic_wire_sender_t *s, *slot = NULL;
    uint8_t mac[NIC_WIRE_MAC_LEN];
    struct iovec body;

    if (len < NIC_WIRE_OVERHEAD) {
        w->st.rx_garbage++;
        drop_note(w, &w->st.rx_garbage, from, NIC_LOG_WARN, "too short for our envelope");
        return NULL;
    }
    memcpy(&env, dgram, sizeof(env));
    if (env.magic != NIC_WIRE_MAGIC || env.reserved != 0 || env.sender == 0) {
        w->st.rx_garbage++;
        drop_note(w, &w->st.rx_garbage, from, NIC_LOG_WARN, "not our envelope");
        return NULL;
    }
    if ((k = key_find(w, env.job)) == NULL) {
        w->st.rx_no_key++;
        drop_note(w, &w->st.rx_no_key, from, NIC_LOG_INFO, "of a job with no endpoint here");
        return NULL;
    }
    body.iov_base = dgram + sizeof(env);
    body.iov_len = len - NIC_WIRE_OVERHEAD;
    wire_mac(k->key, &env, &body, 1, mac);
    if (crypto_verify_16(mac, dgram + len - NIC_WIRE_MAC_LEN) != 0) {
        w->st.rx_bad_mac++;
        drop_note(w, &w->st.rx_bad_mac, from, NIC_LOG_WARN,
                  "its MAC is not its job's (forged or damaged)");
        return NULL;
    }
    /* Authentic: only now may it touch state. */
    s = sender_find(w, env.job, env.sender, &slot);
    if (s != NULL && !same_addr(&s->addr, from)) {
        w->st.rx_moved++;          /* a copy sent from elsewhere */
        drop_note(w, &w->st.rx_moved, from, NIC_LOG_WARN, "its sender sends from another address");
        return NULL;
    }
    if (s != NULL && !window_test(s, env.counter)) {
        w->st.rx_replayed++;
        drop_note(w, &w->st.rx_replayed, from, NIC_LOG_WARN,
                  "replayed (or duplicated on the way)");
        return NULL;
    }
    if (s == NULL) {
        if (slot->job != 0)
            w->st.senders_evicted++;
        s = slot;
        memset(s, 0, sizeof(*s));
        s->job = env.job;
        s->sender = env.sender;
        s->addr = *from;
        s->top = env.counter;
        w->last_sender = s;
    }
    window_take(s, env.counter);
    s->used = ++w->rx_clock;
    *job = env.job;
    *frame_len = body.iov_len;
    return body.iov_base;
}
