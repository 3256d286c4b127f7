/* nic_clock.h - the one clock of the emulated NICs, hosts and firmwares
 * alike (CLOCK_MONOTONIC: timing-model stamps cross between them). */
#ifndef NIC_CLOCK_H
#define NIC_CLOCK_H

#include <stdint.h>

uint64_t nic_now_ns(void);
/* The same clock at the kernel tick's resolution (a few ms), without
 * reading the CPU's counter: for periodic checks on a polling path. */
uint64_t nic_now_coarse_ns(void);
/* Busy-wait for ns nanoseconds (timing model; nanosleep is too coarse). */
void nic_spin_ns(uint64_t ns);

/* A timer that runs only while its firmware runs, for the waits after
 * which a peer is given up (no acknowledgement, no answer to a read or a
 * barrier): a stall of our own -- a stopped process, a paused virtual
 * machine, a starved thread -- is no evidence against the peer.  Each look
 * (nic_stall_timer_expired) adds the time since the previous one, but at
 * most NIC_STALL_STEP_NS; so the firmware must look at least every
 * NIC_STALL_LOOK_NS while the timer runs (the look brings *next forward). */
#define NIC_STALL_STEP_NS (250 * 1000 * 1000ull)
#define NIC_STALL_LOOK_NS (100 * 1000 * 1000ull)

typedef struct nic_stall_timer {
    uint64_t waited_ns;     /* counted so far */
    uint64_t at_ns;         /* the last look */
} nic_stall_timer_t;

static inline void nic_stall_timer_start(nic_stall_timer_t *t, uint64_t now)
{
    t->waited_ns = 0;
    t->at_ns = now;
}

/* Whether the timer has run for timeout; if not, *next (the firmware's
 * next deadline) is brought forward to when to look again. */
static inline int nic_stall_timer_expired(nic_stall_timer_t *t, uint64_t now, uint64_t timeout,
                                          uint64_t *next)
{
    if (now > t->at_ns) {
        uint64_t gap = now - t->at_ns;
        t->waited_ns += gap < NIC_STALL_STEP_NS ? gap : NIC_STALL_STEP_NS;
        t->at_ns = now;
    }
    if (t->waited_ns >= timeout)
        return 1;
    uint64_t left = timeout - t->waited_ns;
    uint64_t due = now + (left < NIC_STALL_LOOK_NS ? left : NIC_STALL_LOOK_NS);
    if (due < *next)
        *next = due;
    return 0;
}

#endif /* NIC_CLOCK_H */
