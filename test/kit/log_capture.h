/*
 * log_capture.h - for the kit's tests: a host->log that keeps the last
 * line a kit function logged (captured_log) and its level
 * (captured_level), so a test checks the words the subdevices used to
 * write themselves.
 */
#ifndef TEST_KIT_LOG_CAPTURE_H
#define TEST_KIT_LOG_CAPTURE_H

#include <stdarg.h>
#include <stdio.h>

#include "md_sdi.h"

static char captured_log[256];
static int  captured_level = -1;

static void capture_log(md_subdev_t *sd, int level, const char *fmt, ...)
{
    va_list ap;

    (void)sd;
    captured_level = level;
    va_start(ap, fmt);
    vsnprintf(captured_log, sizeof(captured_log), fmt, ap);
    va_end(ap);
}

#endif /* TEST_KIT_LOG_CAPTURE_H */
