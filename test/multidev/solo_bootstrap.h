/* solo_bootstrap.h - a launcher for a one-rank job (tests). */
#ifndef SOLO_BOOTSTRAP_H
#define SOLO_BOOTSTRAP_H

#include "md_sdi.h"
#include "multidev.h"

/* Parameters for md_init as rank 0 of 1 with the given configuration text
 * (written to a temporary file) or NULL for the default. */
md_init_params_t solo_params(const char *config_text);
/* md_init with solo_params(config_text); returns md_init's status. */
int solo_init(const char *config_text, md_t **md_p);
/* Calls md_progress until req completes, at most max_polls times: 1 if it
 * completed, 0 if not, md_progress's error at once. */
int solo_wait(md_t *md, md_request_t *req, int max_polls);

#endif
