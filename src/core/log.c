/* log.c: the library's messages on stderr, one line each, "buddypool: ..."
 * (bp_warn) or "buddypool: fatal: ..." before abort() (bp_fatal). A leaf:
 * it calls nothing of the library, so every file may use it without joining
 * another file's circle of calls. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "../internal.h"

/* One line: "buddypool: " and prefix, then the message (a longer one is
 * cut to the buffer). */
static void say(const char *prefix, const char *fmt, va_list ap)
{
    char line[512];
    vsnprintf(line, sizeof line, fmt, ap);
    fprintf(stderr, "buddypool: %s%s\n", prefix, line);
}

void bp_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say("", fmt, ap);
    va_end(ap);
}

void bp_fatal(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say("fatal: ", fmt, ap);
    va_end(ap);
    fflush(stderr);
    abort();
}
