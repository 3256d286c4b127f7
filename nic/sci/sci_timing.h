/*
 * sci_timing.h - timing profiles of the emulated PCI-SCI bridge (off by
 * default).  A profile gives the component costs of one historical
 * platform; end-to-end figures (MPI latency, bandwidth) must come out of
 * them and are never put in.  See sci_timing.c for the sources.
 */
#ifndef SCI_TIMING_H
#define SCI_TIMING_H

#include "sci_wire.h"

/* 0 and the costs (t may be NULL) if name is a profile, -1 if not. */
int sci_timing_profile(const char *name, sci_timing_t *t);

#endif /* SCI_TIMING_H */
