/* nic_clock.h - the one clock of the emulated NICs, hosts and firmwares
 * alike (CLOCK_MONOTONIC: timing-model stamps cross between them). */
#ifndef NIC_CLOCK_H
#define NIC_CLOCK_H

#include <stdint.h>

uint64_t nic_now_ns(void);
/* Busy-wait for ns nanoseconds (timing model; nanosleep is too coarse). */
void nic_spin_ns(uint64_t ns);

#endif /* NIC_CLOCK_H */
