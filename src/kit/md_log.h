/* md_log.h - the multidevice's logger.
 *
 * One line per message on stderr, "multidev[<rank>] <level>: <text>".  The
 * level comes from MULTIDEV_LOG_LEVEL (error, warn, info, debug, trace;
 * default warn) and is tested before anything is formatted. */
#ifndef MD_LOG_H
#define MD_LOG_H

enum md_log_level {
    MD_LOG_ERROR = 0,
    MD_LOG_WARN  = 1,
    MD_LOG_INFO  = 2,
    MD_LOG_DEBUG = 3,
    MD_LOG_TRACE = 4,
};

extern int md_log_current_level;

/* Reads MULTIDEV_LOG_LEVEL; called by md_init, safe to call again.  0, or
 * -1 after an error line if the variable holds no level. */
int md_log_init(int world_rank);
/* An error line, and a warning, for the readers of tunables
 * (md_tun_say_fn). */
void md_log_say_error(const char *line);
void md_log_say_warning(const char *line);
void md_log_emit(int level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#define md_log(_level, ...) \
    do { \
        if ((_level) <= md_log_current_level) \
            md_log_emit((_level), __VA_ARGS__); \
    } while (0)

#define md_log_error(...) md_log(MD_LOG_ERROR, __VA_ARGS__)
#define md_log_warn(...)  md_log(MD_LOG_WARN, __VA_ARGS__)
#define md_log_info(...)  md_log(MD_LOG_INFO, __VA_ARGS__)
#define md_log_debug(...) md_log(MD_LOG_DEBUG, __VA_ARGS__)
#define md_log_trace(...) md_log(MD_LOG_TRACE, __VA_ARGS__)

#endif /* MD_LOG_H */
