/*
 * md_drain.h - for network subdevices: the bounded drain at finalize.
 * Before it closes, a subdevice lets its NIC take what is still queued
 * (the last eager messages, ready and done flags, credits), so that the
 * peers get them; but a NIC or peer that no longer answers must not hold
 * the finalize for longer than a bound.
 */
#ifndef MD_DRAIN_H
#define MD_DRAIN_H

#define MD_DRAIN_MS 2000u   /**< how long a finalize waits for its NIC at most */

/* Calls step(arg) as long as pending(arg) says work is left, for at most
 * limit_ms (MD_DRAIN_MS); a negative step ends it too.  Returns MD_OK once
 * nothing is pending, MD_ERR_TIMEOUT when the time ran out after a step, or
 * the negative status of step. */
int md_drain(int (*pending)(void *arg), int (*step)(void *arg), void *arg, unsigned limit_ms);

#endif /* MD_DRAIN_H */
