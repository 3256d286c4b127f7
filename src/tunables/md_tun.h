/*
 * md_tun.h - the table of tunables (DESIGN.md, invariant 7).
 *
 * Every MULTIDEV_* variable multidev reads is declared once, in
 * md_tun_table.c: its name, type, default, range or words, unit and one
 * line of documentation.  Everything else comes from that declaration:
 *
 *   - the one parser (md_tun_parse), strict: a value that is not of the
 *     type or outside the range is an error that names the variable, the
 *     value and what is allowed -- never a silent default;
 *   - the readers: the environment (md_tun_env*), and a subdevice's
 *     parameters, where MULTIDEV_<SUBDEV>_<KEY> wins over the device
 *     line's key=, which wins over the default (md_tun_param);
 *   - the documentation: the variables tables of doc/environment.md, and
 *     what `mdinfo --env` prints (md_tun_doc.c, src/mdinfo).
 *
 * This layer sits below both libmultidev and the NIC firmware, which link
 * it and include none of each other's headers.  It reads the environment
 * and parses text; saying what went wrong is left to the caller's logger,
 * passed as a md_tun_say_fn.  An empty value counts as unset.
 */
#ifndef MD_TUN_H
#define MD_TUN_H

#include <stddef.h>
#include <stdio.h>

typedef enum md_tun_type {
    MD_TUN_COUNT,    /**< a whole number, min..max */
    MD_TUN_SIZE,     /**< bytes, min..max: 4096, 64k, 1m, 1g */
    MD_TUN_TIME,     /**< a whole number of unit ("us", "ms"), min..max */
    MD_TUN_PROB,     /**< a probability, 0 to 1 */
    MD_TUN_BOOL,     /**< 0 or 1 */
    MD_TUN_CHOICE,   /**< one of words (any case); the value is its index */
    MD_TUN_STRING,   /**< a name or a list, taken as written */
    MD_TUN_PATH,     /**< a file or a directory */
    /* Where a NIC binds: text here, checked against the host's interfaces
     * where it is used (md_nic_addr.c; a firmware's bind). */
    MD_TUN_IPV4,     /**< an IPv4 address, dotted quad */
    MD_TUN_IFACE,    /**< a network interface's name */
    MD_TUN_SUBNET,   /**< A.B.C.D/N */
} md_tun_type_t;

typedef struct md_tun {
    const char   *name;     /**< MULTIDEV_... */
    const char   *section;  /**< the part of doc/environment.md listing it:
                                 "multidev", "shm", "nic", "myri", "sci",
                                 "via", "mdconfig", "build" */
    const char   *key;      /**< a subdevice parameter's device-line key
                                 (name is MULTIDEV_<SECTION>_<KEY>); NULL:
                                 the environment only */
    md_tun_type_t type;
    const char   *def;      /**< the default, written as a value is and
                                 parsed like one; NULL: none (def_doc) */
    const char   *def_doc;  /**< def NULL: what the code takes instead */
    const char   *fallback; /**< unset: this variable's value first, then
                                 def (MULTIDEV_NIC_FIRMWARE) */
    long long     min, max; /**< count, size, time */
    const char   *words;    /**< choice: "auto|on|off" */
    const char   *unit;     /**< time: "us" or "ms" */
    const char   *doc;      /**< what it does (a line of the docs) */
} md_tun_t;

/* A value read: num for counts, sizes, times, booleans and choices (the
 * word's index); prob for probabilities; text is what it was read from
 * (the environment's, the line's or the default), the value itself for
 * strings, paths and addresses; NULL when unset. */
typedef struct md_tun_value {
    long long   num;
    double      prob;
    const char *text;
} md_tun_value_t;

/* Where a value came from (what the readers return; -1 is an error). */
typedef enum md_tun_origin {
    MD_TUN_UNSET = 0,     /**< nowhere, and no default: the caller decides */
    MD_TUN_DEFAULT,       /**< the declaration's default */
    MD_TUN_FALLBACK,      /**< the fallback variable */
    MD_TUN_LINE,          /**< the device line */
    MD_TUN_ENV,           /**< the environment */
} md_tun_origin_t;

#define MD_TUN_ERR_MAX 512

/* Receives one line saying what is wrong (the caller's logger). */
typedef void (*md_tun_say_fn)(const char *line);

/* ---- the table ---------------------------------------------------- */

/* Every declaration, in the order of the docs; *count set. */
const md_tun_t *md_tun_all(size_t *count);
/* The declaration of a variable, or of a subdevice's key; NULL if none. */
const md_tun_t *md_tun_find(const char *name);
const md_tun_t *md_tun_find_key(const char *section, const char *key);

/* ---- parsing ------------------------------------------------------ */

/* Parses text as t's value.  0, or -1 with err (len bytes) saying what t
 * allows ("a whole number from 0 to 65535"), for the caller to put after
 * the name and value it read. */
int md_tun_parse(const md_tun_t *t, const char *text, md_tun_value_t *v, char *err,
                 size_t len);
/* What t allows, in words ("a size from 0 to 4k", "auto, on or off"). */
void md_tun_allowed(const md_tun_t *t, char *out, size_t len);
/* A choice's word number index as declared (its value's canonical
 * spelling) into out; "" if there is none. */
void md_tun_word(const md_tun_t *t, long long index, char *out, size_t len);

/* ---- reading ------------------------------------------------------ */

/* Variable name from the environment, else its fallback, else its
 * default.  The origin, or -1 after one line through say naming the
 * variable, its value and what is allowed (an undeclared name, a
 * programming error, is said and -1 too). */
int md_tun_env(const char *name, md_tun_value_t *v, md_tun_say_fn say);
/* The same for the three kinds of value. */
int md_tun_env_num(const char *name, long long *num, md_tun_say_fn say);
int md_tun_env_prob(const char *name, double *prob, md_tun_say_fn say);
int md_tun_env_text(const char *name, const char **text, md_tun_say_fn say);

/* Subdevice section's parameter key: MULTIDEV_<SECTION>_<KEY>, else
 * line_text (the device line's key=, NULL when absent), else the fallback
 * variable, else the default; the origin, or -1 as md_tun_env. */
int md_tun_param(const char *section, const char *key, const char *line_text,
                 md_tun_value_t *v, md_tun_say_fn say);

/* ---- documentation ------------------------------------------------- */

/* The default as the docs give it ("4096", "unset", "the host name"). */
const char *md_tun_default_doc(const md_tun_t *t);
/* What values t takes, for the docs ("0 to 4k", "auto, on, off"). */
void md_tun_values_doc(const md_tun_t *t, char *out, size_t len);
/* Writes the markdown table of a section's variables; their number (0:
 * no such section, nothing written). */
int md_tun_doc_table(const char *section, FILE *out);

/* Says, for each MULTIDEV_* variable set in the environment that is not
 * declared, that it is not multidev's (a misspelling is otherwise lost
 * silently); returns how many. */
int md_tun_check_environ(md_tun_say_fn say);

#endif /* MD_TUN_H */
