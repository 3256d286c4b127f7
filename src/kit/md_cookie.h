/*
 * md_cookie.h - request cookies for subdevices: a small handle naming a
 * request, sent to a peer and back (rendezvous, synchronous sends), that
 * finds the request again in O(1), and finds nothing once the request is
 * gone: a cookie is a slot number and the slot's generation, so a stale or
 * forged cookie from the wire is refused.  Cookies fit 32 bits (VIA's
 * immediate data).  Not thread-safe: the caller serialises.
 */
#ifndef MD_COOKIE_H
#define MD_COOKIE_H

#include <stdint.h>

#include "md_complete.h"   /* md_counters_complete, once declared here */
#include "md_sdi.h"

typedef struct md_cookies {
    md_request_t **req;          /* [cap]; slot 0 unused */
    uint32_t      *next_free;    /* [cap] */
    uint16_t      *gen;          /* [cap] */
    uint32_t       cap, free;
} md_cookies_t;

void          md_cookies_init(md_cookies_t *t);
void          md_cookies_fini(md_cookies_t *t);
/* A cookie for req (never 0), or 0 when out of memory. */
uint32_t      md_cookie_new(md_cookies_t *t, md_request_t *req);
/* The request of a live cookie, NULL otherwise. */
md_request_t *md_cookie_peek(const md_cookies_t *t, uint64_t cookie);
/* The same, and the cookie dies. */
md_request_t *md_cookie_take(md_cookies_t *t, uint64_t cookie);
/* Live cookies' requests, for failing them: calls fn(arg, req) for each. */
void          md_cookie_foreach(const md_cookies_t *t, void (*fn)(void *, md_request_t *),
                                void *arg);

#endif /* MD_COOKIE_H */
