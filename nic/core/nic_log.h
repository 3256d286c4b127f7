/*
 * nic_log.h - logging of the NIC layer (firmware and host library).
 *
 * Every line is about one NIC, and goes to that NIC's sink: the attach
 * handle (nic_host_t) carries the sink its subdevice gave it, a firmware
 * carries its own (nic_fw_config_t.log: an in-process firmware takes its
 * host's, nicd none), and the firmware's wire, reliable streams and
 * personality log through the firmware's.  A process that drives several
 * NICs (myri and via, each with its firmware thread) so has each NIC's
 * lines reach its own subdevice, and one NIC that goes away takes nothing
 * from another.  A sink with no function (or none at all, NULL) writes
 * stderr, "<who> <level>: <text>" (who: nic_log_init, "nic" by default).
 *
 * Level from MULTIDEV_LOG_LEVEL (error, warn, info, debug, trace; default
 * warn), one for the process, tested before formatting.
 */
#ifndef NIC_LOG_H
#define NIC_LOG_H

#include <stdarg.h>
#include <stdatomic.h>

/* The values of md_log.h's levels (test/tunables checks), so that a sink
 * hands a level to the multidevice's logger unchanged. */
enum nic_log_level {
    NIC_LOG_ERROR = 0,
    NIC_LOG_WARN  = 1,
    NIC_LOG_INFO  = 2,
    NIC_LOG_DEBUG = 3,
    NIC_LOG_TRACE = 4,
};

/* Where the lines about one NIC go. */
typedef struct nic_log_sink {
    void (*fn)(void *arg, int level, const char *text);   /* NULL: stderr */
    void  *arg;
} nic_log_sink_t;

/* Written when a host attaches (nic_log_level_read), read by every
 * firmware thread: atomic, relaxed (a level is no data to order). */
extern _Atomic int nic_log_level;

static inline int nic_log_on(int level)
{
    return level <= atomic_load_explicit(&nic_log_level, memory_order_relaxed);
}

/* Names the process's stderr lines (who) and reads MULTIDEV_LOG_LEVEL: a
 * program's first call (nicd, nicctl).  NIC_OK, or NIC_ERR_CONFIG after an
 * error line if the variable holds no level. */
int  nic_log_init(const char *who);
/* Reads MULTIDEV_LOG_LEVEL into nic_log_level (the host library does, as
 * it attaches): NIC_OK, or NIC_ERR_CONFIG after an error line to sink. */
int  nic_log_level_read(const nic_log_sink_t *sink);
/* Errors and warnings also go to fd, a line each, while fd >= 0: how a
 * starting nicd tells its starter why it could not start (nicd.c). */
void nic_log_tee(int fd);
/* One line to sink (NULL: stderr); errno is kept. */
void nic_log_emit(const nic_log_sink_t *sink, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#define nic_log(_sink, _level, ...) \
    do { \
        if (nic_log_on(_level)) \
            nic_log_emit((_sink), (_level), __VA_ARGS__); \
    } while (0)
#define nic_log_error(_sink, ...) nic_log(_sink, NIC_LOG_ERROR, __VA_ARGS__)
#define nic_log_warn(_sink, ...)  nic_log(_sink, NIC_LOG_WARN, __VA_ARGS__)
#define nic_log_info(_sink, ...)  nic_log(_sink, NIC_LOG_INFO, __VA_ARGS__)
#define nic_log_debug(_sink, ...) nic_log(_sink, NIC_LOG_DEBUG, __VA_ARGS__)
#define nic_log_trace(_sink, ...) nic_log(_sink, NIC_LOG_TRACE, __VA_ARGS__)

#endif /* NIC_LOG_H */
