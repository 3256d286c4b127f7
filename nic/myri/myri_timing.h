/*
 * myri_timing.h - timing profiles of the emulated Myrinet (off by default).
 *
 * A profile gives component costs of one historical platform; end-to-end
 * figures (round trip, bandwidth, LogP) must come out of them, they are
 * never put in.  Profiles: "hplam" (HP 9000/J200 with the Myricom
 * LANai 4.0 card, Krumbein 1996, seed 002).  See doc/nic.md.
 */
#ifndef MYRI_TIMING_H
#define MYRI_TIMING_H

#include "myri_gam.h"
#include "myri_wire.h"

/* 0 and the costs if name is a profile (t, ht may be NULL), -1 if not. */
int myri_timing_profile(const char *name, myri_timing_t *t, myri_host_timing_t *ht);

#endif /* MYRI_TIMING_H */
