/*
 * mdinfo.h - what the parts of mdinfo share (mdinfo.c has the commands).
 *
 *   mdinfo_env.c      every variable: its value and where it comes from
 *   mdinfo_subdevs.c  the subdevice modules found, loaded by libmultidev's
 *                     loader, and what each says of itself
 *   mdinfo_routes.c   a node file's device list and connection table
 *   mdinfo_doc.c      the tables of doc/environment.md
 */
#ifndef MDINFO_H
#define MDINFO_H

#include "md_nodeconf.h"
#include "md_tun.h"

/* Says one line on stderr ("mdinfo: ..."); counted in mdinfo_said. */
void mdinfo_say(const char *line);
extern int mdinfo_said;

/* Prints every variable, one a line: its value and its origin (default,
 * environment, the fallback variable, or the device line of conf, which
 * may be NULL).  0, or 1 if one is malformed or a MULTIDEV_* variable set
 * is none of multidev's (said on stderr). */
int mdinfo_env(const md_nodeconf_t *conf);
/* One variable's line, after indent. */
void mdinfo_env_row(const md_tun_t *t, const md_nodeconf_t *conf, const char *indent);

/* Lists the subdevice modules in the loader's search path (module_path,
 * then the install directory) and what each says of itself; a module the
 * loader refuses is listed with its message.  0, or 1 if one was refused
 * or none was found. */
int mdinfo_subdevs(const char *module_path, const md_nodeconf_t *conf);

/* Prints conf's device list and connection table as tables. */
void mdinfo_routes(const md_nodeconf_t *conf);

#endif /* MDINFO_H */
