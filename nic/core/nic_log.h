/*
 * nic_log.h - logging of the NIC layer (firmware and host library).
 *
 * Level from MULTIDEV_LOG_LEVEL (error, warn, info, debug, trace; default
 * warn), tested before formatting.  Lines go to stderr prefixed with
 * "nic[<who>]", or to a sink a subdevice installs (so its messages come out
 * through the multidevice's logger).
 */
#ifndef NIC_LOG_H
#define NIC_LOG_H

#include <stdarg.h>

enum { NIC_LOG_ERROR = 0, NIC_LOG_WARN, NIC_LOG_INFO, NIC_LOG_DEBUG, NIC_LOG_TRACE };

extern int nic_log_level;

typedef void (*nic_log_sink_t)(void *arg, int level, const char *text);

/* Names the logger (who) and reads MULTIDEV_LOG_LEVEL: NIC_OK, or
 * NIC_ERR_CONFIG after an error line if it holds no level. */
int  nic_log_init(const char *who);
/* An error line, for the readers of tunables (md_tun_say_fn). */
void nic_log_say_error(const char *line);
void nic_log_set_sink(nic_log_sink_t sink, void *arg);
/* Errors and warnings also go to fd, a line each, while fd >= 0: how a
 * starting nicd tells its starter why it could not start (nicd.c). */
void nic_log_tee(int fd);
void nic_log_emit(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define nic_log(_l, ...) \
    do { if ((_l) <= nic_log_level) nic_log_emit((_l), __VA_ARGS__); } while (0)
#define nic_log_error(...) nic_log(NIC_LOG_ERROR, __VA_ARGS__)
#define nic_log_warn(...)  nic_log(NIC_LOG_WARN, __VA_ARGS__)
#define nic_log_info(...)  nic_log(NIC_LOG_INFO, __VA_ARGS__)
#define nic_log_debug(...) nic_log(NIC_LOG_DEBUG, __VA_ARGS__)
#define nic_log_trace(...) nic_log(NIC_LOG_TRACE, __VA_ARGS__)

#endif /* NIC_LOG_H */
