/* nic_wire_auth.c - the wire's envelope: job keys, the MAC over every
 * datagram, and the replay windows of the senders (see nic_wire.h).
 *
 * NIC_WIRE_MAC_POLY1305: Poly1305 with a one-time key, the first 32 bytes
 * of the XChaCha20 key stream under the job's wire key and the 24-byte
 * nonce sender | counter | 0 - ChaCha20-Poly1305 without the encryption
 * (the frames are not secret, only authentic) - over envelope and frame.
 *
 * NIC_WIRE_MAC_AESGCM: AES-256-GCM with the frame as associated data and no
 * plaintext (GMAC), under the sender's key BLAKE2b(job's wire key, sender
 * id) and the 12-byte nonce counter | piece | pieces | frame length.  A key per sender makes the
 * 96-bit nonce unique with no chance involved (senders' ids are random),
 * and binds the sender; the job is bound by the key, the counter by the
 * nonce.  The sender's key schedule is made once per job (at
 * nic_wire_job_add) and the receiver's once per sender, stored with its
 * replay window only after a frame of it passed. */
#include "config.h"

#include <sodium.h>
#include <stdlib.h>
#include <string.h>

#include "nic_log.h"
#include "nic_status.h"
#include "nic_wire.h"

#define NIC_WIRE_WINDOW (64u * NIC_WIRE_REPLAY_WORDS)
#define NIC_WIRE_PROBE  16u       /* sender slots looked at per lookup */

_Static_assert(sizeof(crypto_aead_aes256gcm_state) <= NIC_WIRE_GCM_STATE,
               "room for libsodium's AES-GCM state");

static const uint8_t NIC_WIRE_GCM_CONTEXT[8] = { 'm', 'd', 'g', 'c', 'm', '0', '0', '1' };

/* The AES-GCM key schedule of sender under the job's wire key. */
static void gcm_sender_state(const uint8_t job_key[NIC_JOB_KEY_LEN], uint64_t sender,
                             uint8_t state[NIC_WIRE_GCM_STATE])
{
    uint8_t in[16], key[crypto_aead_aes256gcm_KEYBYTES];

    memcpy(in, NIC_WIRE_GCM_CONTEXT, 8);
    memcpy(in + 8, &sender, 8);
    crypto_generichash(key, sizeof(key), in, sizeof(in), job_key, NIC_JOB_KEY_LEN);
    crypto_aead_aes256gcm_beforenm((crypto_aead_aes256gcm_state *)(void *)state, key);
    sodium_memzero(key, sizeof(key));
}

/* The envelope's counter and piece fields, which make the 12 bytes. */
static void gcm_nonce(const nic_wire_env_t *env, uint8_t nonce[crypto_aead_aes256gcm_NPUBBYTES])
{
    _Static_assert(crypto_aead_aes256gcm_NPUBBYTES == 12, "the nonce's layout");
    memcpy(nonce, &env->counter, 8);
    nonce[8] = env->piece;
    nonce[9] = env->pieces;
    memcpy(nonce + 10, &env->frame_len, 2);
}

_Static_assert((NIC_WIRE_MAX_SENDERS & (NIC_WIRE_MAX_SENDERS - 1)) == 0,
               "the sender table is indexed by a mask");

int nic_wire_auth_init(nic_wire_t *w)
{
    if (sodium_init() < 0) {
        nic_log_error(w->log, "wire: the crypto library (libsodium) cannot start");
        return NIC_ERR_IO;
    }
    w->senders = calloc(NIC_WIRE_MAX_SENDERS, sizeof(*w->senders));
    if (w->senders == NULL)
        return NIC_ERR_NO_MEMORY;
    do {
        randombytes_buf(&w->sender_id, sizeof(w->sender_id));
    } while (w->sender_id == 0);
    w->tx_counter = 0;
    w->have_aesgcm = crypto_aead_aes256gcm_is_available();
    return nic_wire_set_mac(w, 0);
}

int nic_wire_set_mac(nic_wire_t *w, int mac)
{
    if (mac == 0) {
        w->mac = w->have_aesgcm ? NIC_WIRE_MAC_AESGCM : NIC_WIRE_MAC_POLY1305;
        return NIC_OK;
    }
    if (mac == NIC_WIRE_MAC_AESGCM && !w->have_aesgcm) {
        nic_log_error(w->log,
                      "wire: MULTIDEV_NIC_MAC=aesgcm, but this CPU has no AES-NI (libsodium "
                      "computes AES-GCM only with it): use poly1305 on every host of the job");
        return NIC_ERR_CONFIG;
    }
    w->mac = mac;
    return NIC_OK;
}

void nic_wire_auth_fini(nic_wire_t *w)
{
    sodium_memzero(w->keys, sizeof(w->keys));
    if (w->senders != NULL)       /* the senders' AES-GCM states are key material */
        sodium_memzero(w->senders, NIC_WIRE_MAX_SENDERS * sizeof(*w->senders));
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
            if (w->have_aesgcm)
                gcm_sender_state(k->key, w->sender_id, k->tx_gcm);
            return NIC_OK;
        }
    nic_log_warn(w->log, "wire: %u jobs have endpoints here already; job %016llx refused",
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
    nic_wire_reasm_forget_job(w, tag);
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

/* GMAC of a frame given in pieces: AES-GCM takes its associated data in
 * one piece, so several are copied together first (no send path uses more
 * than one today). */
static void gcm_mac(const uint8_t state[NIC_WIRE_GCM_STATE], const nic_wire_env_t *env,
                    const struct iovec *iov, int iovcnt, uint8_t mac[NIC_WIRE_MAC_LEN])
{
    static _Thread_local uint8_t flat[NIC_WIRE_MTU];
    uint8_t nonce[crypto_aead_aes256gcm_NPUBBYTES];
    const uint8_t *ad = iov[0].iov_base;
    size_t len = iov[0].iov_len;
    uint8_t no_ciphertext[1];

    if (iovcnt > 1) {
        len = 0;
        for (int i = 0; i < iovcnt && len + iov[i].iov_len <= sizeof(flat); i++) {
            memcpy(flat + len, iov[i].iov_base, iov[i].iov_len);
            len += iov[i].iov_len;
        }
        ad = flat;
    }
    gcm_nonce(env, nonce);
    /* Everything is additional data: the cipher text is empty, but libsodium
     * declares its output pointer non-null. */
    crypto_aead_aes256gcm_encrypt_detached_afternm(no_ciphertext, mac, NULL, NULL, 0, ad, len,
                                                   NULL,
                                                   nonce,
                                                   (const crypto_aead_aes256gcm_state *)
                                                       (const void *)state);
}

int nic_wire_auth_seal(nic_wire_t *w, uint64_t job, const nic_wire_cut_t *cut,
                       nic_wire_env_t *env, const struct iovec *iov, int iovcnt,
                       uint8_t mac[NIC_WIRE_MAC_LEN])
{
    nic_wire_key_t *k = key_find(w, job);

    if (k == NULL) {
        w->st.tx_no_key++;
        return NIC_ERR_PROTECTION;
    }
    memset(env, 0, sizeof(*env));
    env->magic = NIC_WIRE_MAGIC;
    env->version = NIC_WIRE_VERSION;
    env->mac = (uint8_t)w->mac;
    env->piece = cut != NULL ? (uint8_t)cut->piece : 0;
    env->pieces = cut != NULL ? (uint8_t)cut->pieces : 1;
    env->frame_len = cut != NULL ? (uint16_t)cut->frame_len : 0;
    env->job = job;
    env->sender = w->sender_id;
    env->counter = ++w->tx_counter;
    if (w->mac == NIC_WIRE_MAC_AESGCM)
        gcm_mac(k->tx_gcm, env, iov, iovcnt, mac);
    else
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

    if (*counter != 1 || !nic_log_on(level))
        return;
    nic_addr_format(from, a, sizeof(a));
    nic_addr_format(&w->addr, me, sizeof(me));
    nic_log_emit(w->log, level, "wire %s: dropped a datagram from %s: %s; further ones are counted "
                 "(nicctl status, 'auth:')", me, a, what);
}

static int same_addr(const struct sockaddr_in *a, const struct sockaddr_in *b)
{
    return a->sin_addr.s_addr == b->sin_addr.s_addr && a->sin_port == b->sin_port;
}

/* Whether the frame's MAC is its job's.  s: the sender's record, if it has
 * one; gcm: where the sender's AES-GCM key schedule is made when it has
 * none yet (kept only if the frame passes). */
static int mac_ok(nic_wire_t *w, const nic_wire_key_t *k, const nic_wire_env_t *env,
                  const nic_wire_sender_t *s, const struct iovec *body, const uint8_t *mac_in,
                  uint8_t gcm[NIC_WIRE_GCM_STATE], int *gcm_made)
{
    uint8_t mac[NIC_WIRE_MAC_LEN], nonce[crypto_aead_aes256gcm_NPUBBYTES];
    static const uint8_t no_ciphertext[1];
    uint8_t no_plaintext[1];
    const uint8_t *state;

    if (env->mac == NIC_WIRE_MAC_POLY1305) {
        wire_mac(k->key, env, body, 1, mac);
        return crypto_verify_16(mac, mac_in) == 0;
    }
    if (s != NULL && s->has_gcm) {
        state = s->gcm;
    } else {
        gcm_sender_state(k->key, env->sender, gcm);
        *gcm_made = 1;
        state = gcm;
    }
    gcm_nonce(env, nonce);
    return crypto_aead_aes256gcm_decrypt_detached_afternm(
               no_plaintext, NULL, no_ciphertext, 0, mac_in, body->iov_base, body->iov_len, nonce,
               (const crypto_aead_aes256gcm_state *)(const void *)state) == 0;
}

uint8_t *nic_wire_auth_open(nic_wire_t *w, const struct sockaddr_in *from, uint8_t *dgram,
                            size_t len, nic_wire_env_t *env_out, size_t *frame_len)
{
    _Alignas(16) uint8_t gcm[NIC_WIRE_GCM_STATE];
    nic_wire_env_t env;
    nic_wire_key_t *k;
    nic_wire_sender_t *s, *slot = NULL;
    struct iovec body;
    int gcm_made = 0;

    if (len < NIC_WIRE_OVERHEAD) {
        w->st.rx_garbage++;
        drop_note(w, &w->st.rx_garbage, from, NIC_LOG_WARN, "too short for our envelope");
        return NULL;
    }
    memcpy(&env, dgram, sizeof(env));
    if (env.magic != NIC_WIRE_MAGIC || env.version != NIC_WIRE_VERSION || env.sender == 0 ||
        (env.mac != NIC_WIRE_MAC_POLY1305 && env.mac != NIC_WIRE_MAC_AESGCM) ||
        env.pieces == 0 || (env.pieces == 1 && (env.piece != 0 || env.frame_len != 0))) {
        w->st.rx_garbage++;
        drop_note(w, &w->st.rx_garbage, from, NIC_LOG_WARN, "not our envelope");
        return NULL;
    }
    if ((k = key_find(w, env.job)) == NULL) {
        w->st.rx_no_key++;
        drop_note(w, &w->st.rx_no_key, from, NIC_LOG_INFO, "of a job with no endpoint here");
        return NULL;
    }
    if (env.mac == NIC_WIRE_MAC_AESGCM && !w->have_aesgcm) {
        w->st.rx_no_aesgcm++;
        drop_note(w, &w->st.rx_no_aesgcm, from, NIC_LOG_ERROR,
                  "it is authenticated with AES-GCM, which this CPU cannot compute (no "
                  "AES-NI): set MULTIDEV_NIC_MAC=poly1305 on every host of the job");
        return NULL;
    }
    body.iov_base = dgram + sizeof(env);
    body.iov_len = len - NIC_WIRE_OVERHEAD;
    s = sender_find(w, env.job, env.sender, &slot);
    if (!mac_ok(w, k, &env, s, &body, dgram + len - NIC_WIRE_MAC_LEN, gcm, &gcm_made)) {
        w->st.rx_bad_mac++;
        drop_note(w, &w->st.rx_bad_mac, from, NIC_LOG_WARN,
                  "its MAC is not its job's (forged or damaged)");
        return NULL;
    }
    /* Authentic: only now may it touch state. */
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
    if (gcm_made) {
        memcpy(s->gcm, gcm, sizeof(s->gcm));
        s->has_gcm = 1;
    }
    window_take(s, env.counter);
    s->used = ++w->rx_clock;
    *env_out = env;
    *frame_len = body.iov_len;
    return body.iov_base;
}
